/* metal_host_exec.cpp — the runtime of the execution model
 * (metal_host_exec.h): the task switch, the scheduler of one threadgroup,
 * the barriers and SIMD-group exchanges, the shadow memory of the checks,
 * the reports, and main() of the program mps-run builds.
 *
 * Compiled WITHOUT the layer's FLAGS (the contract's item 3: plain C++17,
 * any system header), linked with the Metal unit, which supplies the
 * kernel table (metal_host::model::kernels).
 *
 * The task switch: a few instructions of assembly on x86-64 (System V)
 * and arm64 (AAPCS64, Linux and macOS): the callee-saved registers pushed
 * on the task's own stack, the stack pointer swapped.  Elsewhere, or with
 * -DMH_UCONTEXT, makecontext/swapcontext (POSIX.1-2001, still in glibc
 * and macOS), which costs a signal-mask system call per switch (measured:
 * README.md of the layer, "mps-run").
 *
 * Usage: PROGRAM CALLFILE — the call file (written by mps-run's Python
 * side) names the kernel, the grid, the group, the SIMD width and one
 * file per argument; the program runs the dispatch, writes the buffers
 * that are not const back into their files and the findings, one line
 * each, into the findings file.  Exit 0 when it ran (findings or not),
 * 2 for a bad call file.
 */
#if defined(__APPLE__) && !defined(_XOPEN_SOURCE)
#define _XOPEN_SOURCE 700
#define _DARWIN_C_SOURCE 1
#endif
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <time.h>

#if !defined(MH_UCONTEXT) && !(defined(__x86_64__) || defined(__aarch64__))
#define MH_UCONTEXT 1
#endif
#ifdef MH_UCONTEXT
#include <ucontext.h>
#endif

#include "metal_host_exec.h"

namespace metal_host {
namespace model {


/* ---------------------------------------------------------------- */
/* the task switch                                                  */
/* ---------------------------------------------------------------- */

#ifndef MH_UCONTEXT
extern "C" void mh_switch(void **save_sp, void *to_sp);
#if defined(__APPLE__)
#define MH_SYM "_mh_switch"
#else
#define MH_SYM "mh_switch"
#endif
#if defined(__x86_64__)
/* push rbp rbx r12-r15, save rsp, load the other, pop, ret */
__asm__(".text\n.globl " MH_SYM "\n" MH_SYM ":\n"
        "\tpushq %rbp\n\tpushq %rbx\n\tpushq %r12\n\tpushq %r13\n\tpushq %r14\n\tpushq %r15\n"
        "\tmovq %rsp, (%rdi)\n\tmovq %rsi, %rsp\n"
        "\tpopq %r15\n\tpopq %r14\n\tpopq %r13\n\tpopq %r12\n\tpopq %rbx\n\tpopq %rbp\n"
        "\tret\n");
#elif defined(__aarch64__)
/* x19-x30 and d8-d15 in a 160-byte frame */
__asm__(".text\n.globl " MH_SYM "\n.p2align 2\n" MH_SYM ":\n"
        "\tsub sp, sp, #160\n"
        "\tstp x19, x20, [sp, #0]\n\tstp x21, x22, [sp, #16]\n\tstp x23, x24, [sp, #32]\n"
        "\tstp x25, x26, [sp, #48]\n\tstp x27, x28, [sp, #64]\n\tstp x29, x30, [sp, #80]\n"
        "\tstp d8, d9, [sp, #96]\n\tstp d10, d11, [sp, #112]\n\tstp d12, d13, [sp, #128]\n"
        "\tstp d14, d15, [sp, #144]\n"
        "\tmov x2, sp\n\tstr x2, [x0]\n\tmov sp, x1\n"
        "\tldp x19, x20, [sp, #0]\n\tldp x21, x22, [sp, #16]\n\tldp x23, x24, [sp, #32]\n"
        "\tldp x25, x26, [sp, #48]\n\tldp x27, x28, [sp, #64]\n\tldp x29, x30, [sp, #80]\n"
        "\tldp d8, d9, [sp, #96]\n\tldp d10, d11, [sp, #112]\n\tldp d12, d13, [sp, #128]\n"
        "\tldp d14, d15, [sp, #144]\n"
        "\tadd sp, sp, #160\n\tret\n");
#endif
#endif

/* a growable array and a fixed string: the runtime avoids <vector> and
 * <string>, whose parsing took most of its compile time (measured in
 * README.md, mps-run) */
template <class T>
struct arr {
	T *v = nullptr;
	size_t n = 0, cap = 0;
	size_t size() const { return n; }
	T *data() { return v; }
	T *begin() { return v; }
	T *end() { return v + n; }
	T &operator[](size_t i) { return v[i]; }
	void reserve(size_t k) {
		if (k <= cap)
			return;
		cap = k < 2 * cap ? 2 * cap : k;
		v = static_cast<T *>(std::realloc(static_cast<void *>(v), cap * sizeof(T)));
		if (!v) {
			std::fprintf(stderr, "mps-run: out of memory\n");
			std::exit(3);
		}
	}
	void assign(size_t k, const T &x) {
		reserve(k);
		for (size_t i = 0; i < k; i++)
			std::memcpy(static_cast<void *>(v + i), static_cast<const void *>(&x), sizeof(T));
		n = k;
	}
	void push_back(const T &x) {
		reserve(n + 1);
		std::memcpy(static_cast<void *>(v + n), static_cast<const void *>(&x), sizeof(T));
		n++;
	}
};

struct text {
	char s[1200];
	const char *c_str() const { return s; }
};

enum { READY, WAIT_TG, WAIT_SG, DONE };

struct wait_site {
	const char *fn;       /* "simd" for a SIMD-group exchange, NULL for a barrier */
	const char *file;
	int line;
};

#define MH_SLOT 128       /* bytes of one lane's value in an exchange */

struct task {
#ifdef MH_UCONTEXT
	ucontext_t uc;
#else
	void *sp;
#endif
	char *stack;
	int state;
	pos p;
	unsigned long gtid;   /* linear index in the grid */
	unsigned ph, sph;     /* threadgroup barriers passed; + SIMD barriers */
	wait_site at;              /* where it waits */
	int site_line;        /* the line site() gave for the next call */
	bool fresh;           /* an exchange just ended: rel_mask is this one's */
	/* the last touch not yet told apart (read or write) */
	void *t_addr;
	unsigned t_size;
	unsigned char t_snap[64];
	int t_kind;           /* 0 none, 1 device buffer, 2 threadgroup array */
	buffer *t_buf;
	tg_shadow *t_tg;
	size_t t_index;
	int t_line;
};

/* what the checks know of one element: its last writer and reader (a
 * thread's index in its group, -1 none, reader -2: several) with the group
 * (g_group_lin) and the phases they were in */
struct cell {
	int w_tid, r_tid;
	unsigned w_grp, r_grp;
	unsigned w_ph, r_ph, w_sph, r_sph;
	unsigned char init, touched, atomic;
};
#define MH_CELL0 cell{-1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0}

struct buffer {
	int index;
	const char *name;
	int is_const;
	unsigned char *data;
	size_t bytes, elem;
	arr<cell> cells;
	bool any_touched = false;
};

struct simd_state {
	unsigned live, arrived;
	unsigned char slots[64 * MH_SLOT];
	unsigned char rel[64 * MH_SLOT];
	uint64_t rel_mask;
};

/* ---- the run's state ---- */
static const kernel_desc *g_kernel;
static arr<buffer *> g_bufs;
static arr<task> g_tasks;
static arr<simd_state> g_simd;
static task *g_cur;
static unsigned g_width = 32;
static unsigned g_live, g_tg_arrived;
static unsigned g_epoch;
static unsigned g_group_lin;
static bool g_reverse;    /* the second order: each group's tasks run last first */
static bool g_quiet;      /* the second run reports nothing of its own */
static size_t g_stack_size = 256 * 1024;
static char *g_stacks;
#ifdef MH_UCONTEXT
static ucontext_t g_sched_uc;
#else
static void *g_sched_sp;
#endif
static FILE *g_findings;
static char g_file[1024], g_src[1024];
static long g_lineoff;
static unsigned long g_nerr, g_nwarn, g_switches;
static unsigned char g_scratch[256];

/* ---------------------------------------------------------------- */
/* reports                                                          */
/* ---------------------------------------------------------------- */

struct report_key {
	const char *check, *subject;
	text where;
	unsigned long count;
};
static arr<report_key> g_seen;

static text where(const char *file, int line) {
	text r;
	if (file && g_src[0] && std::strcmp(g_src, file) && std::strstr(file, g_src) == nullptr)
		std::snprintf(r.s, sizeof r.s, "%s:%d", file, line);
	else
		std::snprintf(r.s, sizeof r.s, "%s:%ld", g_file, line + g_lineoff);
	return r;
}

static text thread_desc(const task *t) {
	text r;
	const pos &p = t->p;
	std::snprintf(r.s, sizeof r.s,
	              "thread (%u,%u,%u) of group (%u,%u,%u), grid position (%u,%u,%u)", p.tptg[0],
	              p.tptg[1], p.tptg[2], p.tgpig[0], p.tgpig[1], p.tgpig[2], p.tpig[0], p.tpig[1],
	              p.tpig[2]);
	return r;
}

/* report: one finding; the same check at the same place about the same
 * SUBJECT (a buffer's or array's name) is printed once and counted. */
static void report(bool error, const char *check, const text &at, const char *subject,
                   const char *fmt, ...) {
	if (g_quiet)
		return;
	for (auto &k : g_seen)
		if (!std::strcmp(k.check, check) && !std::strcmp(k.where.s, at.s) &&
		    !std::strcmp(k.subject, subject)) {
			k.count++;
			return;
		}
	report_key nk;
	nk.check = check;
	nk.subject = subject;
	nk.where = at;
	nk.count = 1;
	g_seen.push_back(nk);
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	std::vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	std::fprintf(g_findings, "mps-run: %s: %s: %s [%s]\n", at.c_str(), error ? "error" : "warning",
	             msg, check);
	if (error)
		g_nerr++;
	else
		g_nwarn++;
}

/* ---------------------------------------------------------------- */
/* scheduling                                                       */
/* ---------------------------------------------------------------- */

static void resolve(task *t);

static void to_sched(task *t) {
	resolve(t);
	g_switches++;
#ifdef MH_UCONTEXT
	swapcontext(&t->uc, &g_sched_uc);
#else
	mh_switch(&t->sp, g_sched_sp);
#endif
}

static void run_task(task *t) {
	g_cur = t;
#ifdef MH_UCONTEXT
	swapcontext(&g_sched_uc, &t->uc);
#else
	mh_switch(&g_sched_sp, t->sp);
#endif
	g_cur = nullptr;
}

static void simd_release(unsigned sg);
static void tg_release();

static void task_exit(task *t) {
	resolve(t);
	t->state = DONE;
	g_live--;
	simd_state &s = g_simd[t->p.sgitg];
	s.live--;
	if (g_tg_arrived > 0) {
		const task *w = nullptr;
		for (auto &o : g_tasks)
			if (o.state == WAIT_TG) {
				w = &o;
				break;
			}
		report(true, "divergent-barrier", where(w->at.file, w->at.line), "",
		       "in kernel '%s', %s returned while %u thread(s) of its group wait at this barrier",
		       g_kernel->name, thread_desc(t).c_str(), g_tg_arrived);
		if (g_tg_arrived == g_live)
			tg_release();
	}
	if (s.arrived > 0 && s.arrived == s.live)
		simd_release(t->p.sgitg);
}

static void *const *g_argdata; /* each argument's bytes (main) */

static void task_main() {
	task *t = g_cur;
	g_kernel->run(g_argdata, g_bufs.data());
	task_exit(t);
	for (;;)
		to_sched(t);
}

#ifdef MH_UCONTEXT
static void task_main_uc() { task_main(); }
#endif

static void task_start(task *t) {
	t->state = READY;
#ifdef MH_UCONTEXT
	getcontext(&t->uc);
	t->uc.uc_stack.ss_sp = t->stack;
	t->uc.uc_stack.ss_size = g_stack_size;
	t->uc.uc_link = nullptr;
	makecontext(&t->uc, task_main_uc, 0);
#else
	uintptr_t top = ((uintptr_t)(t->stack + g_stack_size)) & ~(uintptr_t)15;
	void **sp = (void **)top;
#if defined(__x86_64__)
	*--sp = nullptr;                 /* the entry's return address (never used) */
	*--sp = (void *)task_main;       /* ret goes there */
	for (int i = 0; i < 6; i++)
		*--sp = nullptr;         /* rbp rbx r12-r15 */
#else
	sp -= 20;                        /* the 160-byte frame */
	std::memset(sp, 0, 160);
	sp[11] = (void *)task_main;      /* x30 */
#endif
	t->sp = sp;
#endif
}

/* ---- SIMD-group exchanges ---- */

static bool same_site(const wait_site &a, const wait_site &b) {
	return a.line == b.line && ((a.fn == b.fn) || (a.fn && b.fn && !std::strcmp(a.fn, b.fn))) &&
	       ((a.file == b.file) || (a.file && b.file && !std::strcmp(a.file, b.file)));
}

/* release the lanes of SIMD-group SG waiting at the site of its lowest
 * waiting lane (the others, at another site, diverged: they wait on) */
static void simd_release(unsigned sg) {
	simd_state &s = g_simd[sg];
	unsigned base = sg * g_width;
	const task *first = nullptr;
	uint64_t mask = 0;
	for (unsigned l = 0; l < g_width && base + l < g_tasks.size(); l++) {
		task &t = g_tasks[base + l];
		if (t.state != WAIT_SG)
			continue;
		if (!first)
			first = &t;
		if (!same_site(first->at, t.at))
			continue;
		mask |= uint64_t(1) << l;
		std::memcpy(s.rel + l * MH_SLOT, s.slots + l * MH_SLOT, MH_SLOT);
		t.state = READY;
		s.arrived--;
		if (!first->at.fn)
			t.sph++;
	}
	s.rel_mask = mask;
}

/* one exchange of SIZE bytes at V (NULL: a SIMD barrier); the lanes'
 * values are in the SIMD-group's rel afterwards, the mask in rel_mask */
static simd_state &exchange_raw(const void *v, size_t size) {
	task *t = g_cur;
	if (!t)
		std::abort();
	simd_state &s = g_simd[t->p.sgitg];
	unsigned lane = t->p.tiisg;
	if (size > MH_SLOT) {
		std::fprintf(stderr, "mps-run: internal error: a SIMD-group value of %zu bytes (at most %d)\n",
		             size, MH_SLOT);
		std::exit(3);
	}
	/* the thread's last touch belongs to the phase before this wait:
	 * resolve it before a release can advance the phase */
	resolve(t);
	if (v)
		std::memcpy(s.slots + lane * MH_SLOT, v, size);
	t->at = {v ? "simd" : nullptr, nullptr, t->site_line};
	t->state = WAIT_SG;
	s.arrived++;
	if (s.arrived == s.live)
		simd_release(t->p.sgitg);
	if (t->state != READY)
		to_sched(t);
	else
		resolve(t);
	t->fresh = true;
	return s;
}

void lanes_exchange(const void *mine, void *all, size_t size) {
	simd_state &s = exchange_raw(mine, size);
	unsigned char *o = static_cast<unsigned char *>(all);
	for (unsigned l = 0; l < g_width; l++)
		std::memcpy(o + l * size, s.rel + l * MH_SLOT, size);
}

uint64_t active_lanes() {
	task *t = g_cur;
	if (!t)
		return 1;
	if (!t->fresh) {
		char none = 0;
		exchange_raw(&none, 1);
	}
	t->fresh = false;
	return g_simd[t->p.sgitg].rel_mask;
}

void site(int line) {
	if (g_cur) {
		g_cur->site_line = line;
		g_cur->fresh = false;
	}
}

void sg_barrier() {
	exchange_raw(nullptr, 0);
}

/* ---- the threadgroup barrier ---- */

static void tg_release() {
	const task *first = nullptr;
	for (auto &t : g_tasks) {
		if (t.state != WAIT_TG)
			continue;
		if (!first)
			first = &t;
		else if (!same_site(first->at, t.at)) {
			report(true, "divergent-barrier", where(t.at.file, t.at.line), "",
			       "in kernel '%s', %s waits at this barrier while %s waits at the barrier of "
			       "line %ld: a barrier must be reached by every thread of the group",
			       g_kernel->name, thread_desc(&t).c_str(), thread_desc(first).c_str(),
			       first->at.line + g_lineoff);
		}
	}
	for (auto &t : g_tasks)
		if (t.state == WAIT_TG) {
			t.state = READY;
			t.ph++;
			t.sph++;
		}
	g_tg_arrived = 0;
}

void tg_barrier() {
	task *t = g_cur;
	if (!t)
		std::abort();
	t->fresh = false;
	resolve(t); /* before the release advances the phase (exchange_raw) */
	t->at = {nullptr, nullptr, t->site_line};
	t->state = WAIT_TG;
	g_tg_arrived++;
	if (g_tg_arrived == g_live)
		tg_release();
	if (t->state != READY)
		to_sched(t);
	else
		resolve(t);
}

const pos *cur() {
	static pos none;
	return g_cur ? &g_cur->p : &none;
}

/* ---------------------------------------------------------------- */
/* shadow memory                                                    */
/* ---------------------------------------------------------------- */

/* two accesses of threads A and B (A earlier) conflict when they are of
 * different threads not ordered by a barrier: another group (device
 * memory), or the same threadgroup phase (and, within a SIMD-group, the
 * same SIMD phase) */
static bool unordered(int a_tid, unsigned a_grp, unsigned a_ph, unsigned a_sph, const task *b) {
	if (a_tid < 0)
		return false;
	if (a_grp != g_group_lin)
		return true; /* another group: nothing orders the two */
	if ((unsigned)a_tid == b->p.tiitg)
		return false;
	const task *a = &g_tasks[(size_t)a_tid];
	if (a_ph != b->ph)
		return false;
	if (a->p.sgitg == b->p.sgitg && a_sph != b->sph)
		return false;
	return true;
}

static text tid_desc(int tid, unsigned grp) {
	if (grp == g_group_lin && tid >= 0 && (size_t)tid < g_tasks.size())
		return thread_desc(&g_tasks[(size_t)tid]);
	text r;
	std::snprintf(r.s, sizeof r.s, "a thread of another group (the %u-th run)", grp);
	return r;
}

static void resolve(task *t) {
	if (!t->t_kind)
		return;
	bool wrote = std::memcmp(t->t_addr, t->t_snap, t->t_size) != 0;
	if (t->t_kind == 1) {
		buffer *b = t->t_buf;
		cell &c = b->cells[t->t_index];
		if (wrote && !c.atomic) {
			if (c.w_tid >= 0 && unordered(c.w_tid, c.w_grp, c.w_ph, c.w_sph, t))
				report(true, "race", where(nullptr, t->t_line), b->name,
				       "in kernel '%s', %s writes element %zu of buffer '%s' (argument %d), "
				       "also written by %s without an atomic",
				       g_kernel->name, thread_desc(t).c_str(), t->t_index, b->name, b->index,
				       tid_desc(c.w_tid, c.w_grp).c_str());
			c.w_tid = (int)t->p.tiitg;
			c.w_grp = g_group_lin;
			c.w_ph = t->ph;
			c.w_sph = t->sph;
		}
	} else {
		tg_shadow *s = t->t_tg;
		cell &c = s->cells[t->t_index];
		if (wrote) {
			if (c.w_tid >= 0 && unordered(c.w_tid, c.w_grp, c.w_ph, c.w_sph, t))
				report(true, "race", where(nullptr, t->t_line), s->name,
				       "in kernel '%s', %s writes threadgroup '%s'[%zu], written by %s since the "
				       "last barrier",
				       g_kernel->name, thread_desc(t).c_str(), s->name, t->t_index,
				       tid_desc(c.w_tid, c.w_grp).c_str());
			else if (c.r_tid == -2 ? c.r_ph == t->ph : unordered(c.r_tid, c.r_grp, c.r_ph, c.r_sph, t))
				report(true, "race", where(nullptr, t->t_line), s->name,
				       "in kernel '%s', %s writes threadgroup '%s'[%zu], read by %s since the "
				       "last barrier",
				       g_kernel->name, thread_desc(t).c_str(), s->name, t->t_index,
				       c.r_tid == -2 ? "other threads" : tid_desc(c.r_tid, c.r_grp).c_str());
			c.w_tid = (int)t->p.tiitg;
			c.w_grp = g_group_lin;
			c.w_ph = t->ph;
			c.w_sph = t->sph;
			c.init = 1;
		} else {
			if (!c.init)
				report(true, "uninitialized-read", where(nullptr, t->t_line), s->name,
				       "in kernel '%s', %s reads threadgroup '%s'[%zu], which no thread of the "
				       "group has written",
				       g_kernel->name, thread_desc(t).c_str(), s->name, t->t_index);
			else if (unordered(c.w_tid, c.w_grp, c.w_ph, c.w_sph, t))
				report(true, "race", where(nullptr, t->t_line), s->name,
				       "in kernel '%s', %s reads threadgroup '%s'[%zu], written by %s since the "
				       "last barrier",
				       g_kernel->name, thread_desc(t).c_str(), s->name, t->t_index,
				       tid_desc(c.w_tid, c.w_grp).c_str());
			if (c.r_tid == -1 || c.r_ph != t->ph || (unsigned)c.r_tid == t->p.tiitg) {
				c.r_tid = (int)t->p.tiitg;
				c.r_grp = g_group_lin;
				c.r_ph = t->ph;
				c.r_sph = t->sph;
			} else {
				c.r_tid = -2;
			}
		}
	}
	t->t_kind = 0;
}

void *access(buffer *b, const void *addr, unsigned size, int line) {
	task *t = g_cur;
	if (!b || !t)
		return const_cast<void *>(addr);
	resolve(t);
	const unsigned char *a = static_cast<const unsigned char *>(addr);
	if (a < b->data || a + size > b->data + b->bytes || size > sizeof g_scratch) {
		long idx = (long)((a - b->data) / (long)(b->elem ? b->elem : 1));
		report(true, "out-of-bounds", where(nullptr, line), b->name,
		       "in kernel '%s', %s accesses element %ld of buffer '%s' (argument %d), which has "
		       "%zu elements",
		       g_kernel->name, thread_desc(t).c_str(), idx, b->name, b->index,
		       b->bytes / (b->elem ? b->elem : 1));
		std::memset(g_scratch, 0, sizeof g_scratch);
		return g_scratch;
	}
	size_t i = (size_t)(a - b->data) / b->elem;
	b->any_touched = true;
	if (b->is_const)
		return const_cast<void *>(addr);
	b->cells[i].touched = 1;
	t->t_kind = 1;
	t->t_buf = b;
	t->t_index = i;
	t->t_addr = const_cast<void *>(addr);
	t->t_size = size > 64 ? 64 : size;
	std::memcpy(t->t_snap, addr, t->t_size);
	t->t_line = line;
	return const_cast<void *>(addr);
}

void tg_register(tg_shadow *s, const char *name, void *data, size_t n, size_t elem,
                 unsigned char fill) {
	if (s->epoch == g_epoch && s->cells)
		return;
	if (!s->cells)
		s->cells = new cell[n];
	s->name = name;
	s->data = data;
	s->n = n;
	s->elem = elem;
	s->epoch = g_epoch;
	/* a new group: the memory holds whatever it held (a fill pattern here) */
	std::memset(data, fill, n * elem);
	for (size_t i = 0; i < n; i++)
		s->cells[i] = MH_CELL0;
}

void *tg_access(tg_shadow *s, long index, int line) {
	task *t = g_cur;
	unsigned char *base = static_cast<unsigned char *>(s->data);
	if (!t)
		return base + index * (long)s->elem;
	resolve(t);
	if (index < 0 || (size_t)index >= s->n) {
		report(true, "out-of-bounds", where(nullptr, line), s->name,
		       "in kernel '%s', %s accesses threadgroup '%s'[%ld], which has %zu elements",
		       g_kernel->name, thread_desc(t).c_str(), s->name, index, s->n);
		std::memset(g_scratch, 0, sizeof g_scratch);
		return g_scratch;
	}
	void *a = base + index * (long)s->elem;
	t->t_kind = 2;
	t->t_tg = s;
	t->t_index = (size_t)index;
	t->t_addr = a;
	t->t_size = s->elem > 64 ? 64 : (unsigned)s->elem;
	std::memcpy(t->t_snap, a, t->t_size);
	t->t_line = line;
	return a;
}

void atomic_touch(const void *addr, bool write) {
	task *t = g_cur;
	if (!t)
		return;
	if (t->t_kind && t->t_addr == addr) {
		/* the atomic's own access (&buf[i]): not a plain one */
		if (t->t_kind == 2) {
			cell &c = t->t_tg->cells[t->t_index];
			if (write)
				c.init = 1;
			else if (!c.init)
				report(true, "uninitialized-read", where(nullptr, t->t_line), t->t_tg->name,
				       "in kernel '%s', %s loads atomic threadgroup '%s'[%zu], which no thread of "
				       "the group has written",
				       g_kernel->name, thread_desc(t).c_str(), t->t_tg->name, t->t_index);
		}
		t->t_kind = 0;
	} else {
		resolve(t);
	}
	for (buffer *b : g_bufs)
		if (b && (const unsigned char *)addr >= b->data &&
		    (const unsigned char *)addr < b->data + b->bytes && !b->is_const) {
			cell &c = b->cells[((const unsigned char *)addr - b->data) / b->elem];
			c.atomic = 1;
			c.touched = 1;
			b->any_touched = true;
		}
}

/* ---------------------------------------------------------------- */
/* the dispatch                                                     */
/* ---------------------------------------------------------------- */

static void run_group(const unsigned grp[3], const unsigned threads[3], const unsigned gs[3],
                      const unsigned ngroups[3]) {
	unsigned n3[3];
	for (int d = 0; d < 3; d++) {
		unsigned start = grp[d] * gs[d];
		n3[d] = threads[d] - start < gs[d] ? threads[d] - start : gs[d];
	}
	unsigned n = n3[0] * n3[1] * n3[2];
	g_epoch++;
	g_tasks.assign(n, task());
	unsigned nsg = (n + g_width - 1) / g_width;
	g_simd.assign(nsg, simd_state());
	for (unsigned i = 0; i < n; i++) {
		task &t = g_tasks[i];
		std::memset(&t, 0, sizeof t);
		unsigned x = i % n3[0], y = (i / n3[0]) % n3[1], z = i / (n3[0] * n3[1]);
		pos &p = t.p;
		unsigned l3[3] = {x, y, z};
		for (int d = 0; d < 3; d++) {
			p.tptg[d] = l3[d];
			p.tgpig[d] = grp[d];
			p.tpig[d] = grp[d] * gs[d] + l3[d];
			p.tptg_n[d] = n3[d];
			p.dtptg[d] = gs[d];
			p.tpg[d] = threads[d];
			p.tgpg[d] = ngroups[d];
		}
		p.tiitg = i;
		p.tiisg = i % g_width;
		p.sgitg = i / g_width;
		p.tpsg = g_width;
		p.sgptg = nsg;
		t.gtid = (unsigned long)p.tpig[0] +
		         (unsigned long)threads[0] * (p.tpig[1] + (unsigned long)threads[1] * p.tpig[2]);
		t.stack = g_stacks + (size_t)i * g_stack_size;
		task_start(&t);
		g_simd[p.sgitg].live++;
	}
	g_live = n;
	g_tg_arrived = 0;
	while (g_live > 0) {
		bool ran = false;
		for (size_t q = 0; q < g_tasks.size(); q++) {
			task &t = g_tasks[g_reverse ? g_tasks.size() - 1 - q : q];
			if (t.state == READY) {
				run_task(&t);
				ran = true;
			}
		}
		if (ran)
			continue;
		/* nothing can run: SIMD-groups whose lanes diverged (some wait at a
		 * SIMD function, the others elsewhere) go on with the lanes that
		 * are there, as the GPU runs a divergent branch */
		bool released = false;
		for (unsigned s = 0; s < nsg; s++)
			if (g_simd[s].arrived > 0) {
				simd_release(s);
				released = true;
			}
		if (!released) {
			std::fprintf(stderr, "mps-run: internal error: no thread can run\n");
			std::exit(3);
		}
	}
}

static int dispatch(const unsigned threads[3], const unsigned gs[3]) {
	unsigned ng[3];
	size_t gsize = 1;
	for (int d = 0; d < 3; d++) {
		ng[d] = (threads[d] + gs[d] - 1) / gs[d];
		gsize *= gs[d];
	}
	size_t total = gsize * g_stack_size;
	g_stacks = (char *)mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANON, -1, 0);
	if (g_stacks == MAP_FAILED) {
		std::fprintf(stderr, "mps-run: cannot map %zu bytes of stacks\n", total);
		return 2;
	}
	unsigned g[3];
	for (g[2] = 0; g[2] < ng[2]; g[2]++)
		for (g[1] = 0; g[1] < ng[1]; g[1]++)
			for (g[0] = 0; g[0] < ng[0]; g[0]++) {
				g_group_lin++;
				run_group(g, threads, gs, ng);
			}
	munmap(g_stacks, total);
	return 0;
}

} /* namespace model */
} /* namespace metal_host */

using namespace metal_host::model;

static int bad(const char *path, unsigned long line, const char *what) {
	std::fprintf(stderr, "mps-run: %s:%lu: error: %s\n", path, line, what);
	return 2;
}

/* the bytes of PATH, malloc'd with ROOM more bytes zeroed; NULL when it
 * cannot be read */
static unsigned char *read_all(const char *path, size_t *len, size_t room) {
	FILE *f = std::fopen(path, "rb");
	if (!f)
		return nullptr;
	arr<unsigned char> o;
	unsigned char b[65536];
	size_t k;
	while ((k = std::fread(b, 1, sizeof b, f)) > 0) {
		o.reserve(o.n + k);
		std::memcpy(o.v + o.n, b, k);
		o.n += k;
	}
	std::fclose(f);
	o.reserve(o.n + room + 1);
	std::memset(o.v + o.n, 0, room + 1);
	*len = o.n;
	return o.v;
}

/* a tensor view of an argument (the call file's "view" line) */
struct view_spec {
	bool given;
	unsigned long item;      /* bytes of the tensor's element */
	int ndim;
	long size[16], stride[16]; /* in the tensor's elements */
};

/* the cells of buffer B (its elements as the kernel types them) that the
 * view W covers: a malloc'd flag per cell; *COUNT the cells covered */
static unsigned char *view_cover(const view_spec &w, const buffer *b, size_t *count) {
	size_t n = b->bytes / b->elem;
	unsigned char *c = (unsigned char *)std::calloc(n + 1, 1);
	long idx[16] = {0};
	*count = 0;
	for (int d = 0; d < w.ndim; d++)
		if (w.size[d] <= 0)
			return c; /* empty */
	for (;;) {
		long pos = 0;
		for (int d = 0; d < w.ndim; d++)
			pos += idx[d] * w.stride[d];
		if (pos >= 0) {
			size_t lo = (size_t)pos * w.item / b->elem, hi = ((size_t)pos + 1) * w.item - 1;
			hi /= b->elem;
			for (size_t e = lo; e <= hi && e < n; e++)
				if (!c[e]) {
					c[e] = 1;
					++*count;
				}
		}
		int d = w.ndim - 1;
		while (d >= 0 && ++idx[d] == w.size[d])
			idx[d--] = 0;
		if (d < 0)
			break;
	}
	return c;
}

int main(int argc, char **argv) {
	if (argc != 2) {
		std::fprintf(stderr, "usage: %s CALLFILE\n", argv[0]);
		return 2;
	}
	FILE *cf = std::fopen(argv[1], "r");
	if (!cf) {
		std::fprintf(stderr, "mps-run: cannot open '%s': %s\n", argv[1], std::strerror(errno));
		return 2;
	}
	char kname[256] = "", findings[1024] = "";
	unsigned threads[3] = {1, 1, 1}, gs[3] = {1, 1, 1};
	enum { MAXARG = 256 };
	static char argpath[MAXARG][1024];
	static view_spec views[MAXARG];
	int nargs = 0;
	char line[4096];
	unsigned long ln = 0;
#define MH_SET(dst, v) std::snprintf(dst, sizeof dst, "%s", v)
	while (std::fgets(line, sizeof line, cf)) {
		ln++;
		line[std::strcspn(line, "\n")] = 0;
		char *sp = std::strchr(line, ' ');
		if (!sp)
			continue;
		*sp = 0;
		const char *v = sp + 1, *key = line;
		if (!std::strcmp(key, "kernel"))
			MH_SET(kname, v);
		else if (!std::strcmp(key, "file"))
			MH_SET(g_file, v);
		else if (!std::strcmp(key, "src"))
			MH_SET(g_src, v);
		else if (!std::strcmp(key, "lineoff"))
			g_lineoff = std::strtol(v, nullptr, 10);
		else if (!std::strcmp(key, "findings"))
			MH_SET(findings, v);
		else if (!std::strcmp(key, "simd"))
			g_width = (unsigned)std::strtoul(v, nullptr, 10);
		else if (!std::strcmp(key, "stack"))
			g_stack_size = (size_t)std::strtoul(v, nullptr, 10);
		else if (!std::strcmp(key, "threads") || !std::strcmp(key, "group")) {
			unsigned *o = !std::strcmp(key, "threads") ? threads : gs;
			if (std::sscanf(v, "%u %u %u", &o[0], &o[1], &o[2]) != 3)
				return bad(argv[1], ln, "three numbers expected");
		} else if (!std::strcmp(key, "view")) {
			/* view I ITEMSIZE NDIM SIZES... STRIDES...: the elements of
			 * argument I the tensor covers (unwritten-output) */
			char *e;
			unsigned long i = std::strtoul(v, &e, 10);
			if (i >= MAXARG)
				return bad(argv[1], ln, "too many arguments");
			view_spec &w = views[i];
			w.item = std::strtoul(e, &e, 10);
			w.ndim = (int)std::strtol(e, &e, 10);
			if (w.ndim < 0 || w.ndim > 16 || w.item == 0)
				return bad(argv[1], ln, "a view: item size, 0-16 dimensions");
			for (int d = 0; d < 2 * w.ndim; d++)
				(d < w.ndim ? w.size[d] : w.stride[d - w.ndim]) = std::strtol(e, &e, 10);
			w.given = true;
		} else if (!std::strcmp(key, "arg")) {
			unsigned long i = std::strtoul(v, &sp, 10);
			if (*sp == ' ')
				sp++;
			if (i >= MAXARG)
				return bad(argv[1], ln, "too many arguments");
			MH_SET(argpath[i], sp);
			if ((int)i + 1 > nargs)
				nargs = (int)i + 1;
		}
	}
#undef MH_SET
	std::fclose(cf);
	const kernel_desc *k = nullptr;
	for (int i = 0; i < nkernels; i++)
		if (!std::strcmp(kname, kernels[i].name))
			k = &kernels[i];
	if (!k)
		return bad(argv[1], 1, "no such kernel");
	if (nargs != k->nargs)
		return bad(argv[1], 1, "wrong number of arguments");
	if (g_width != 8 && g_width != 16 && g_width != 32 && g_width != 64)
		return bad(argv[1], 1, "SIMD width must be 8, 16, 32 or 64");
	for (int d = 0; d < 3; d++)
		if (gs[d] == 0)
			return bad(argv[1], 1, "a group size is 0");
	g_findings = !findings[0] ? stderr : std::fopen(findings, "a");
	if (!g_findings)
		g_findings = stderr;
	g_kernel = k;
	static unsigned char *data[MAXARG];
	static size_t size[MAXARG];
	static void *ptrs[MAXARG];
	g_bufs.assign((size_t)k->nargs, nullptr);
	for (int i = 0; i < k->nargs; i++) {
		const arg_desc &a = k->args[i];
		/* room for a scalar shorter than its type (the low bytes,
		 * little-endian: a Python int bound to `constant int&`) */
		data[i] = read_all(argpath[i], &size[i], a.elem + 64);
		if (!data[i])
			return bad(argv[1], 1, "cannot read an argument file");
		ptrs[i] = data[i];
		if (a.kind != 2) {
			buffer *b = new buffer();
			b->index = i;
			b->name = a.name;
			b->is_const = a.kind == 1;
			b->data = data[i];
			b->bytes = size[i];
			b->elem = a.elem ? a.elem : 1;
			if (!b->is_const)
				b->cells.assign(b->bytes / b->elem + 1, MH_CELL0);
			if (a.kind == 3) /* a buffer of atomics: written by many threads by design */
				for (auto &c : b->cells)
					c.atomic = 1;
			g_bufs[(size_t)i] = b;
		}
	}
	g_argdata = ptrs;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	const char *ord = std::getenv("MPS_RUN_ORDERS");
	bool two = ord && !std::strcmp(ord, "2") && threads[0] && threads[1] && threads[2];
	/* the second order: the written buffers as they were before the call */
	static unsigned char *before[MAXARG];
	if (two)
		for (int i = 0; i < k->nargs; i++)
			if (g_bufs[(size_t)i] && !g_bufs[(size_t)i]->is_const) {
				before[i] = (unsigned char *)std::malloc(size[i] + 1);
				std::memcpy(before[i], data[i], size[i]);
			}
	int rc = threads[0] && threads[1] && threads[2] ? dispatch(threads, gs) : 0;
	if (two && rc == 0) {
		/* run again from the same inputs, each group's threads in
		 * reverse order, quietly; compare; keep the first run's results
		 * and shadow (unwritten-output reads it) */
		static unsigned char *first_run[MAXARG];
		static arr<cell> first_cells[MAXARG];
		for (int i = 0; i < k->nargs; i++)
			if (before[i]) {
				buffer *b = g_bufs[(size_t)i];
				first_run[i] = (unsigned char *)std::malloc(size[i] + 1);
				std::memcpy(first_run[i], data[i], size[i]);
				std::memcpy(data[i], before[i], size[i]);
				first_cells[i] = b->cells;
				b->cells = arr<cell>();
				b->cells.assign(b->bytes / b->elem + 1, MH_CELL0);
				if (k->args[i].kind == 3)
					for (auto &c : b->cells)
						c.atomic = 1;
			}
		g_reverse = true;
		g_quiet = true;
		rc = dispatch(threads, gs);
		g_quiet = false;
		for (int i = 0; i < k->nargs; i++)
			if (before[i]) {
				buffer *b = g_bufs[(size_t)i];
				size_t n = b->bytes / b->elem, diff = 0, at = 0;
				for (size_t e = 0; e < n; e++)
					if (!b->cells[e].atomic && !first_cells[i][e].atomic &&
					    std::memcmp(first_run[i] + e * b->elem, data[i] + e * b->elem, b->elem) &&
					    diff++ == 0)
						at = e;
				if (diff)
					report(true, "race", where(nullptr, k->line), b->name,
					       "kernel '%s' wrote element %zu of buffer '%s' (argument %d) differently "
					       "when each group's threads ran in reverse order (%zu element(s) differ): "
					       "the result depends on the order of the threads",
					       k->name, at, b->name, b->index, diff);
				std::free(b->cells.v);
				b->cells = first_cells[i];
				std::memcpy(data[i], first_run[i], size[i]);
				std::free(first_run[i]);
				std::free(before[i]);
			}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* unwritten-output: a buffer the kernel wrote, with elements no thread
	 * touched; not a buffer only atomics touched (a scatter or histogram
	 * target: adding into some elements only is its purpose) */
	for (buffer *b : g_bufs) {
		if (!b || b->is_const || !b->any_touched)
			continue;
		size_t n = b->bytes / b->elem, miss = 0, first = 0, of = n;
		bool plain = false;
		/* a strided or sliced output view: its elements only */
		unsigned char *cover = views[b->index].given ? view_cover(views[b->index], b, &of) : nullptr;
		for (size_t i = 0; i < n; i++) {
			if (b->cells[i].touched && !b->cells[i].atomic)
				plain = true;
			if (!b->cells[i].touched && (!cover || cover[i]) && miss++ == 0)
				first = i;
		}
		bool viewed = cover != nullptr;
		std::free(cover);
		if (miss && plain && viewed)
			report(false, "unwritten-output", where(nullptr, k->line), b->name,
			       "kernel '%s' left %zu of the %zu elements of the view of buffer '%s' (argument %d) "
			       "untouched, the first at element %zu of its storage (threads given as a number of "
			       "groups?)",
			       k->name, miss, of, b->name, b->index, first);
		else if (miss && plain)
			report(false, "unwritten-output", where(nullptr, k->line), b->name,
			       "kernel '%s' left %zu of the %zu elements of buffer '%s' (argument %d) untouched, "
			       "the first at index %zu (threads given as a number of groups?)",
			       k->name, miss, n, b->name, b->index, first);
	}
	for (auto &s : g_seen)
		if (s.count > 1)
			std::fprintf(g_findings, "mps-run: %s: note: [%s]%s%s%s found %lu times in all here\n",
			             s.where.s, s.check, s.subject[0] ? " on '" : "", s.subject,
			             s.subject[0] ? "'" : "", s.count);
	if (g_findings != stderr)
		std::fclose(g_findings);
	for (int i = 0; i < k->nargs; i++) {
		if (k->args[i].kind != 0 && k->args[i].kind != 3)
			continue;
		FILE *f = std::fopen(argpath[i], "wb");
		if (!f || std::fwrite(data[i], 1, size[i], f) != size[i] ||
		    std::fclose(f) != 0)
			return bad(argv[1], 1, "cannot write an argument file back");
	}
	if (std::getenv("MPS_RUN_STATS"))
		std::fprintf(stderr, "mps-run: stats: %lu switches, %.6f s\n", g_switches,
		             (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return rc;
}
