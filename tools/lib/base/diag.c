/* diag.c — see diag.h. */
#if defined(__linux__)
#define _DEFAULT_SOURCE 1 /* madvise, MADV_HUGEPAGE, sbrk (heap_init) */
#endif
#include "base/diag.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <stdint.h>
#include <sys/mman.h>
#if __GLIBC_PREREQ(2, 33) && defined(MADV_HUGEPAGE) /* mallinfo2 */
#define MK_HEAP_HUGE 1
#endif
#endif

static const char *progname = "metal-kernel";

/* heap_init: see diag_init.  The heap takes its first step of HEAP_STEP
 * bytes at once (M_TOP_PAD, for that step only), every block is taken
 * from the heap (M_MMAP_THRESHOLD: no block of its own mapping) and none
 * is given back before exit (M_TRIM_THRESHOLD), and the kernel is asked
 * to back the step with transparent huge pages (madvise MADV_HUGEPAGE,
 * Linux 2.6.38).  The 10-16 MB of model and file texts a tool builds then
 * cost a few faults of 2 MiB, not thousands of 4 KiB: on the 2-core Linux
 * machine of `make bench` 3,000 small faults cost 38 ms, and `mps-verify
 * sqrt` on 2.6.0 went from 3,260 faults and 106 ms to 108 faults and
 * 59 ms.  Glibc on Linux only (macOS has no such pages).  Where the kernel
 * has no huge pages free or says no, or the step finds no room (ulimit
 * -v), the heap works as before. */
static void heap_init(void)
{
#if defined(MK_HEAP_HUGE)
	/* DEFAULT_PAD: glibc's default of the three settings (malloc.c) */
	enum { HEAP_STEP = 32 << 20, HUGE = 2 << 20, DEFAULT_PAD = 128 * 1024 };
	static int done;
	long page = sysconf(_SC_PAGESIZE);
	void *first;
	uintptr_t b, pad, lo, hi;
	if (done)
		return;
	done = 1;
	/* only a heap not used yet: its first block decides where it starts */
	if (page <= 0 || HUGE % page != 0 || mallinfo2().arena != 0)
		return;
	/* the heap starts one page before a huge page's boundary: malloc
	 * writes the first block's header and the free top's in that page,
	 * and the huge pages after it are not touched before madvise (a range
	 * with a small page in it gets no huge page) */
	b = (uintptr_t)sbrk(0);
	if (b == (uintptr_t)-1)
		return;
	pad = (2 * HUGE - (uintptr_t)page - b % HUGE) % HUGE;
	if (pad && sbrk((intptr_t)pad) == (void *)-1)
		return;
	b += pad;
	first = NULL;
	if (mallopt(M_MMAP_THRESHOLD, HEAP_STEP) && mallopt(M_TRIM_THRESHOLD, HEAP_STEP) &&
	    mallopt(M_TOP_PAD, HEAP_STEP))
		first = malloc(1); /* the heap takes its step of HEAP_STEP */
	/* later growth in glibc's usual steps: one of HEAP_STEP more would
	 * fail where the address space is limited */
	(void)mallopt(M_TOP_PAD, DEFAULT_PAD);
	if (!first) { /* no room for the step: the heap as it was */
		(void)mallopt(M_MMAP_THRESHOLD, DEFAULT_PAD);
		(void)mallopt(M_TRIM_THRESHOLD, DEFAULT_PAD);
		if (pad && (uintptr_t)sbrk(0) == b)
			(void)sbrk(-(intptr_t)pad); /* and the pad's room given back */
		return;
	}
	lo = b + (uintptr_t)page;
	hi = (uintptr_t)sbrk(0) & ~(uintptr_t)(HUGE - 1);
	/* only glibc's own heap, just grown (not another allocator's block
	 * under valgrind or a sanitizer) */
	if ((uintptr_t)first >= b && (uintptr_t)first < lo && hi > lo &&
	    hi - lo <= (uintptr_t)HEAP_STEP + HUGE)
		(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
	free(first);
#endif
}

void diag_init(const char *prog)
{
	const char *slash = strrchr(prog, '/');
	progname = slash ? slash + 1 : prog;
	heap_init();
}

const char *diag_prog(void) { return progname; }

static void vwarn(const char *fmt, va_list ap)
{
	int saved = errno;
	size_t n = strlen(fmt);

	fprintf(stderr, "%s: ", progname);
	vfprintf(stderr, fmt, ap);
	if (n > 0 && fmt[n - 1] == ':')
		fprintf(stderr, " %s", strerror(saved));
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	exit(MK_EXIT_ERROR);
}

void warnx_(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
}

void diag_at(const char *path, unsigned long line, unsigned long col,
             const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: %s:", progname, path);
	if (line > 0) {
		fprintf(stderr, "%lu:", line);
		if (col > 0)
			fprintf(stderr, "%lu:", col);
	}
	fputc(' ', stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		die("out of memory");
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xvasprintf(const char *fmt, va_list ap, size_t *len)
{
	va_list ap2;
	char small[256], *p;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(small, sizeof small, fmt, ap);
	if (n < 0)
		die("formatting failed");
	p = xmalloc((size_t)n + 1);
	if ((size_t)n < sizeof small)
		memcpy(p, small, (size_t)n + 1);
	else
		vsnprintf(p, (size_t)n + 1, fmt, ap2);
	va_end(ap2);
	*len = (size_t)n;
	return p;
}

int str_ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	size_t n;
	char *p;
	va_start(ap, fmt);
	p = xvasprintf(fmt, ap, &n);
	va_end(ap);
	return p;
}

void buf_init(struct buf *b)
{
	b->cap = 64;
	b->len = 0;
	b->data = xmalloc(b->cap);
	b->data[0] = '\0';
}

void buf_add(struct buf *b, const void *p, size_t n)
{
	if (!b->data)
		buf_init(b);
	if (b->len + n + 1 > b->cap) {
		while (b->len + n + 1 > b->cap)
			b->cap *= 2;
		b->data = xrealloc(b->data, b->cap);
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void buf_puts(struct buf *b, const char *s) { buf_add(b, s, strlen(s)); }

/* buf_printf's body: the formatted text appended */
static void buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	size_t n;
	char *p = xvasprintf(fmt, ap, &n);
	buf_add(b, p, n);
	free(p);
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

int close_stdout(int status)
{
	int bad = ferror(stdout);
	if (fclose(stdout) != 0 || bad) {
		if (!bad || errno == 0)
			errno = errno ? errno : EIO;
		warnx_("write error:");
		return MK_EXIT_ERROR;
	}
	return status;
}

void buf_json_str(struct buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	const char *run = s;
	buf_add(b, "\"", 1);
	for (;; s++) {
		unsigned char c = (unsigned char)*s;
		char e[6];
		size_t n = 2;
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		buf_add(b, run, (size_t)(s - run));
		if (!c)
			break;
		e[0] = '\\';
		switch (c) {
		case '"': e[1] = '"'; break;
		case '\\': e[1] = '\\'; break;
		case '\b': e[1] = 'b'; break;
		case '\f': e[1] = 'f'; break;
		case '\n': e[1] = 'n'; break;
		case '\r': e[1] = 'r'; break;
		case '\t': e[1] = 't'; break;
		default:
			e[1] = 'u';
			e[2] = '0';
			e[3] = '0';
			e[4] = hex[c >> 4];
			e[5] = hex[c & 15];
			n = 6;
		}
		buf_add(b, e, n);
		run = s + 1;
	}
	buf_add(b, "\"", 1);
}
