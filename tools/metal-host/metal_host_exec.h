/* metal_host_exec.h — the execution model of the Metal host layer (mps-run,
 * issue #26): a whole compute kernel run on the host, each threadgroup's
 * threads as cooperative tasks on one OS thread, with Metal's barriers,
 * SIMD-group functions and threadgroup memory, and the checks a GPU does
 * not make (out-of-bounds, race, divergent-barrier, uninitialized-read,
 * unwritten-output).
 *
 * Part of the Metal host layer; the Metal unit includes it after
 * <metal_stdlib>.  The scheduler, the task switch and the reports live in
 * metal_host_exec.cpp, a second unit compiled WITHOUT the layer's FLAGS
 * (the contract's item 3) and linked with the Metal unit.  The two talk
 * through the functions of namespace metal_host::model below, on plain
 * types.
 *
 * The model (what the GPU does, as the Metal Shading Language
 * specification describes it; our reading, stated where it matters):
 *   - dispatchThreads: `threads` (1-3 numbers) is the whole grid,
 *     `group_size` the threads of one group; when threads is not a multiple
 *     of group_size the last group of that dimension is partial (its
 *     [[threads_per_threadgroup]] is what it has; the requested size is
 *     [[dispatch_threads_per_threadgroup]]).
 *   - groups run one after the other; the threads of one group are tasks
 *     switched only where a thread waits: at threadgroup_barrier,
 *     simdgroup_barrier and every SIMD-group function.
 *   - SIMD-groups: consecutive linear thread indices in the group, WIDTH
 *     lanes (32 unless the run says 8, 16 or 64).  The layer's SIMD-group
 *     and quad functions (metal_host_simd.h) reach the model through its
 *     execution hook (metal_host::exec_current, set by MH_ENTER below): an
 *     exchange waits for every lane of the SIMD-group that has not
 *     returned; the lanes that arrived are the active ones (ballot,
 *     broadcast_first).  When no thread can go on, the lanes waiting at an
 *     exchange go on alone: the others diverged (wait at a barrier or at
 *     another exchange), as a divergent branch runs on the GPU.
 *   - threadgroup memory: a `threadgroup T name[N];` of a kernel body
 *     becomes a static tg_array (one per kernel, the groups run in turn);
 *     its contents at the start of each group are a fill pattern.
 *
 * Where a diagnostic points: buffer and threadgroup-array accesses carry
 * the source line through .at(__LINE__) (the rewrite mps-run applies to
 * the kernel's body); each call of a barrier or a SIMD-group function is
 * wrapped as (metal_host::model::site(__LINE__), CALL) by the same rewrite.
 */
#ifndef METAL_HOST_EXEC_H
#define METAL_HOST_EXEC_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace metal_host {
namespace model {

/* The positions of the running thread (all three components; unused ones
 * 0, or 1 for sizes). */
struct pos {
	unsigned tpig[3];     /* thread_position_in_grid */
	unsigned tgpig[3];    /* threadgroup_position_in_grid */
	unsigned tptg[3];     /* thread_position_in_threadgroup */
	unsigned tptg_n[3];   /* threads_per_threadgroup (partial groups: what the group has) */
	unsigned dtptg[3];    /* dispatch_threads_per_threadgroup */
	unsigned tpg[3];      /* threads_per_grid */
	unsigned tgpg[3];     /* threadgroups_per_grid */
	unsigned tiitg;       /* thread_index_in_threadgroup */
	unsigned tiisg;       /* thread_index_in_simdgroup */
	unsigned sgitg;       /* simdgroup_index_in_threadgroup */
	unsigned tpsg;        /* threads_per_simdgroup */
	unsigned sgptg;       /* simdgroups_per_threadgroup */
};

/* cur: the running thread's positions (never NULL while a kernel runs). */
const pos *cur();

/* The hook's side (metal_host_simd.h's exec, implemented by the runtime):
 * lanes_exchange: deposit SIZE bytes (<= 128) of MINE for this lane, wait
 * until every lane of the SIMD-group still running there has deposited,
 * and copy every lane's bytes into ALL (lane order, SIZE bytes each);
 * active_lanes: the lanes of the SIMD-group active with this one (those
 * of the last exchange when asked right after it, else a new exchange);
 * the barriers wait for the group / the SIMD-group. */
void lanes_exchange(const void *mine, void *all, size_t size);
uint64_t active_lanes();
void tg_barrier();
void sg_barrier();

/* site: the source line of the barrier or SIMD-group function about to be
 * called (mps-run's rewrite wraps each call as (site(__LINE__), call)),
 * for the reports. */
void site(int line);

/* ---- checked memory ---- */

/* A buffer argument of the dispatch (device or constant), known to the
 * runtime: its bytes and its shadow (which thread wrote each element). */
struct buffer;

/* access: thread touches SIZE bytes at ADDR inside buffer B (an element
 * of ELEM bytes) at LINE: checks the bounds (out-of-bounds: returns a
 * scratch address to read or write instead), and records the touch so
 * that the next switch or touch of the thread tells a write (the bytes
 * changed) from a read.  Returns the address to use. */
void *access(buffer *b, const void *addr, unsigned size, int line);

/* The shadow of one threadgroup array. */
struct tg_shadow {
	unsigned epoch;       /* the group it was reset for */
	const char *name;
	size_t n, elem;
	void *data;
	struct cell *cells;
};
void *tg_access(tg_shadow *s, long index, int line);
void tg_register(tg_shadow *s, const char *name, void *data, size_t n, size_t elem,
                 unsigned char fill);

/* atomic_touch: an atomic function is about to access ADDR (WRITE: it
 * may change it).  The touch the running thread just made at ADDR (the
 * `&buf[i]` that gave the atomic its pointer) is not a plain access: it
 * takes part in no race; a threadgroup element becomes initialised by an
 * atomic write, and an atomic load of one no thread wrote is an
 * uninitialized-read.  An element of a device buffer accessed so counts
 * as written (unwritten-output) and as atomic (race: never). */
void atomic_touch(const void *addr, bool write);

/* A checked pointer into a buffer argument: what a `device T*` or
 * `constant T*` parameter of the kernel becomes.  Arithmetic keeps the
 * buffer; indexing and dereference check the bounds. */
template <class T>
struct dptr {
	T *p;
	buffer *b;
	int line;
	dptr() : p(nullptr), b(nullptr), line(0) {}
	dptr(T *p_, buffer *b_) : p(p_), b(b_), line(0) {}
	template <class U, class = std::enable_if_t<std::is_convertible<U *, T *>::value>>
	dptr(const dptr<U> &o) : p(o.p), b(o.b), line(o.line) {}
	dptr &at(int l) { line = l; return *this; }
	T &operator[](long i) const {
		return *static_cast<T *>(access(b, (const void *)(p + i), sizeof(T), line));
	}
	T &operator*() const { return (*this)[0]; }
	T *operator->() const { return &(*this)[0]; }
	operator T *() const { return p; }
	/* a cast to another pointer type, `(device atomic_float*)(out + i)`:
	 * unchecked from there on, as the array's decay */
	template <class U, class = std::enable_if_t<!std::is_same<U, T>::value>>
	explicit operator U *() const { return reinterpret_cast<U *>(const_cast<std::remove_const_t<T> *>(p)); }
	dptr operator+(long i) const { dptr r = *this; r.p += i; return r; }
	dptr operator-(long i) const { dptr r = *this; r.p -= i; return r; }
	dptr &operator+=(long i) { p += i; return *this; }
	dptr &operator-=(long i) { p -= i; return *this; }
	dptr &operator++() { ++p; return *this; }
	dptr &operator--() { --p; return *this; }
	dptr operator++(int) { dptr r = *this; ++p; return r; }
	dptr operator--(int) { dptr r = *this; --p; return r; }
};

/* The kernel table the Metal unit (mps-run's driver) defines, one entry
 * per kernel: its arguments in buffer order and a function that runs one
 * thread (the positions from cur()). */
struct arg_desc {
	int kind;             /* 0 device buffer, 1 const buffer (constant or
	                         device const), 2 a scalar by reference, 3 a
	                         device buffer of atomics */
	const char *name;
	unsigned elem;        /* bytes of one element (scalars: of the type) */
};
struct kernel_desc {
	const char *name;
	int line;             /* of the kernel in its source */
	int nargs;
	const arg_desc *args;
	void (*run)(void *const *data, buffer *const *bufs);
};
extern const kernel_desc kernels[];
extern const int nkernels;

/* A threadgroup array of the kernel's body: `threadgroup T name[N];`
 * becomes `static tg_array<T, N> name;`.  Indexing checks the bounds,
 * races, reads of unwritten elements; the array decays to T* (unchecked
 * beyond that point). */
template <class T, size_t N>
struct tg_array {
	alignas(16) unsigned char raw[N * sizeof(T)];
	tg_shadow sh;
	int line = 0;
	tg_array() { std::memset(&sh, 0, sizeof sh); }
	tg_array &at(int l) { line = l; return *this; }
	/* the fill of a new group's memory: all bytes 0xff for floating point
	 * and other classes (NaN in float, half, bfloat, their vectors), 0xa5
	 * for integers and bool, whose 0xff would be -1 or the type's maximum:
	 * values kernels write (main's Sort.metal pads uchar rows with 255),
	 * and a write of the bytes already there reads as a read */
	void bind(const char *name) {
		tg_register(&sh, name, raw, N, sizeof(T), std::is_integral<T>::value ? 0xa5 : 0xff);
	}
	T &operator[](long i) { return *static_cast<T *>(tg_access(&sh, i, line)); }
	T *data() { return reinterpret_cast<T *>(raw); }
	operator T *() { return data(); }
	T *operator+(long i) { return data() + i; }
};

/* A two-dimensional threadgroup array, `threadgroup T name[A][B];`: one
 * checked array of A*B elements; name[i][j] checks element i*B+j (the
 * reports give that flat index). */
template <class T, size_t A, size_t B>
struct tg_array2 {
	tg_array<T, A * B> flat;
	struct row {
		tg_array<T, A * B> *f;
		long i;
		T &operator[](long j) const { return (*f)[i * (long)B + j]; }
		operator T *() const { return f->data() + i * (long)B; }
	};
	tg_array2 &at(int l) { flat.at(l); return *this; }
	void bind(const char *name) { flat.bind(name); }
	row operator[](long i) { return row{&flat, i}; }
};

} /* namespace model */
} /* namespace metal_host */

#ifdef __METAL__ /* the Metal unit only (metal_host.h defines it) */

/* The source's threadgroup arrays: `MH_TG(T, N, name)` (the rewrite). */
#define MH_TG(T, N, NAME)                                                          \
	static ::metal_host::model::tg_array<T, (N)> NAME;                           \
	NAME.bind(#NAME)
#define MH_TG2(T, A, B, NAME)                                                      \
	static ::metal_host::model::tg_array2<T, (A), (B)> NAME;                     \
	NAME.bind(#NAME)

/* The model behind the host layer's execution hook (metal_host_simd.h:
 * metal_host::exec, metal_host::exec_current): every SIMD-group function
 * and barrier of the layer reaches the runtime through this one object.
 * The driver's entry of each kernel thread installs it (MH_ENTER). */
namespace metal_host {
namespace model {
struct hook final : ::metal_host::exec {
	unsigned lane() override { return cur()->tiisg; }
	unsigned lanes() override { return cur()->tpsg; }
	uint64_t active() override { return active_lanes(); }
	void exchange(const void *mine, void *all, size_t size) override {
		lanes_exchange(mine, all, size);
	}
	void barrier(int scope, unsigned) override {
		if (scope)
			tg_barrier();
		else
			sg_barrier();
	}
	void atomic(const void *addr, bool write) override { atomic_touch(addr, write); }
};
inline hook the_hook;

/* The atomic functions on a checked pointer (`atomic_fetch_add_explicit(
 * out + i, v, ...)`, out a `device atomic_float*` parameter): the element
 * is bounds-checked as `&out[i]` is, then the layer's function runs.
 * Found by argument-dependent lookup (dptr is of this namespace). */
template <class T>
inline void atomic_store_explicit(dptr<::metal::atomic<T>> o, ::metal::detail::op_t<T> x,
                                  ::metal::memory_order m) {
	::metal::atomic_store_explicit(&o[0], x, m);
}
template <class T>
inline T atomic_load_explicit(dptr<::metal::atomic<T>> o, ::metal::memory_order m) {
	return ::metal::atomic_load_explicit(&o[0], m);
}
template <class T>
inline T atomic_load_explicit(dptr<const ::metal::atomic<T>> o, ::metal::memory_order m) {
	return ::metal::atomic_load_explicit(&o[0], m);
}
template <class T>
inline T atomic_exchange_explicit(dptr<::metal::atomic<T>> o, ::metal::detail::op_t<T> x,
                                  ::metal::memory_order m) {
	return ::metal::atomic_exchange_explicit(&o[0], x, m);
}
template <class T>
inline bool atomic_compare_exchange_weak_explicit(dptr<::metal::atomic<T>> o,
                                                  ::metal::detail::op_t<T> *expected,
                                                  ::metal::detail::op_t<T> desired,
                                                  ::metal::memory_order s, ::metal::memory_order f) {
	return ::metal::atomic_compare_exchange_weak_explicit(&o[0], expected, desired, s, f);
}
template <class T>
inline bool atomic_compare_exchange_strong_explicit(dptr<::metal::atomic<T>> o,
                                                    ::metal::detail::op_t<T> *expected,
                                                    ::metal::detail::op_t<T> desired,
                                                    ::metal::memory_order s, ::metal::memory_order f) {
	return ::metal::atomic_compare_exchange_strong_explicit(&o[0], expected, desired, s, f);
}
#define MH_ATOMIC_FETCH(NAME)                                                         \
	template <class T>                                                            \
	inline T atomic_fetch_##NAME##_explicit(dptr<::metal::atomic<T>> o,           \
	                                        ::metal::detail::op_t<T> x,           \
	                                        ::metal::memory_order m) {            \
		return ::metal::atomic_fetch_##NAME##_explicit(&o[0], x, m);          \
	}
MH_ATOMIC_FETCH(add)
MH_ATOMIC_FETCH(sub)
MH_ATOMIC_FETCH(and)
MH_ATOMIC_FETCH(or)
MH_ATOMIC_FETCH(xor)
MH_ATOMIC_FETCH(min)
MH_ATOMIC_FETCH(max)
#undef MH_ATOMIC_FETCH
} /* namespace model */
} /* namespace metal_host */
#define MH_ENTER() (::metal_host::exec_current = &::metal_host::model::the_hook)

#endif /* __METAL__ */
#endif /* METAL_HOST_EXEC_H */
