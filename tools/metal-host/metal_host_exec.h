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
 * through the functions of namespace metal_host::exec below, on plain
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
 *     lanes (32 unless the run says 8, 16 or 64).  A SIMD-group function
 *     waits for every lane of the SIMD-group that has not returned; the
 *     lanes that arrived are the active ones (ballot, broadcast_first).
 *   - threadgroup memory: a `threadgroup T name[N];` of a kernel body
 *     becomes a static tg_array (one per kernel, the groups run in turn);
 *     its contents at the start of each group are a fill pattern.
 *
 * Where a diagnostic points: buffer and threadgroup-array accesses carry
 * the source line through .at(__LINE__) (the rewrite mps-run applies to
 * the kernel's body); barriers and SIMD functions take their caller's line
 * by default arguments (__builtin_LINE, g++ and clang++ alike).
 */
#ifndef METAL_HOST_EXEC_H
#define METAL_HOST_EXEC_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace metal_host {
namespace exec {

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

/* A SIMD-group exchange: every lane's value, WIDTH slots of STRIDE bytes,
 * MASK the lanes that took part (bit i: lane i), LANE the caller's. */
struct xchg {
	const unsigned char *slots;
	unsigned stride, width, lane;
	uint64_t mask;
	template <class T>
	T at(unsigned l) const {
		T v;
		std::memcpy(static_cast<void *>(&v), slots + (size_t)l * stride, sizeof(T));
		return v;
	}
	bool active(unsigned l) const { return l < width && ((mask >> l) & 1u); }
};

/* simd_exchange: deposit SIZE bytes of V (<= 64) for this lane and wait
 * until every lane of the SIMD-group still running has deposited; then
 * returns the slots.  FN names the function for divergence reports. */
xchg simd_exchange(const void *v, unsigned size, const char *fn, const char *file, int line);

/* The barriers: wait for the group / the SIMD-group. */
void tg_barrier(const char *file, int line);
void sg_barrier(const char *file, int line);

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
void tg_register(tg_shadow *s, const char *name, void *data, size_t n, size_t elem);

/* atomic_touch: ADDR is accessed by an atomic (no race, a write). */
void atomic_touch(const void *addr);

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
	void bind(const char *name) { tg_register(&sh, name, raw, N, sizeof(T)); }
	T &operator[](long i) { return *static_cast<T *>(tg_access(&sh, i, line)); }
	T *data() { return reinterpret_cast<T *>(raw); }
	operator T *() { return data(); }
	T *operator+(long i) { return data() + i; }
};

} /* namespace exec */
} /* namespace metal_host */

#ifdef __METAL__ /* the Metal unit only (metal_host.h defines it) */

/* The source's threadgroup arrays: `MH_TG(T, N, name)` (the rewrite). */
#define MH_TG(T, N, NAME)                                                          \
	static ::metal_host::exec::tg_array<T, (N)> NAME;                           \
	NAME.bind(#NAME)

/* ---- Metal's barrier and SIMD-group functions over the model ---- */
namespace metal {

enum class mem_flags : unsigned {
	mem_none = 0,
	mem_device = 1,
	mem_threadgroup = 2,
	mem_texture = 4,
	mem_threadgroup_imageblock = 8,
};
inline constexpr mem_flags operator|(mem_flags a, mem_flags b) {
	return static_cast<mem_flags>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
constexpr mem_flags mem_none = mem_flags::mem_none;
constexpr mem_flags mem_device = mem_flags::mem_device;
constexpr mem_flags mem_threadgroup = mem_flags::mem_threadgroup;
constexpr mem_flags mem_texture = mem_flags::mem_texture;

inline void threadgroup_barrier(mem_flags = mem_none, const char *file = __builtin_FILE(),
                                int line = __builtin_LINE()) {
	::metal_host::exec::tg_barrier(file, line);
}
inline void simdgroup_barrier(mem_flags = mem_none, const char *file = __builtin_FILE(),
                              int line = __builtin_LINE()) {
	::metal_host::exec::sg_barrier(file, line);
}

/* the result of simd_ballot: a mask of the lanes */
struct simd_vote {
	uint64_t v;
	explicit constexpr simd_vote(uint64_t m = 0) : v(m) {}
	explicit constexpr operator uint64_t() const { return v; }
	constexpr bool all() const { return v != 0 && (v & (v + 1)) == 0; }
	constexpr bool any() const { return v != 0; }
};

namespace mh_detail {
using ::metal_host::exec::xchg;
#define MH_XCHG(x, fn) ::metal_host::exec::simd_exchange(&(x), sizeof(x), fn, file, line)
#define MH_LOC const char *file = __builtin_FILE(), int line = __builtin_LINE()
/* the segment a lane's function works in: the SIMD-group, or its quad */
inline unsigned seg_base(const xchg &c, unsigned w) { return c.lane - c.lane % w; }
template <class T, class Op>
T reduce(const xchg &c, unsigned w, Op op) {
	unsigned b = seg_base(c, w);
	bool have = false;
	T r{};
	for (unsigned l = b; l < b + w && l < c.width; l++)
		if (c.active(l)) {
			r = have ? op(r, c.at<T>(l)) : c.at<T>(l);
			have = true;
		}
	return r;
}
template <class T, class Op>
T scan(const xchg &c, unsigned w, Op op, T id, bool inclusive) {
	unsigned b = seg_base(c, w);
	T r = id;
	for (unsigned l = b; l < c.lane + (inclusive ? 1u : 0u); l++)
		if (c.active(l))
			r = op(r, c.at<T>(l));
	return r;
}
} /* namespace mh_detail */

#define MH_SIMD_FAMILY(PFX, W)                                                        \
	template <class T> T PFX##sum(T x, MH_LOC) {                                   \
		mh_detail::xchg c = MH_XCHG(x, #PFX "sum");                                       \
		return mh_detail::reduce<T>(c, W, [](T a, T b) { return T(a + b); }); \
	}                                                                              \
	template <class T> T PFX##product(T x, MH_LOC) {                               \
		mh_detail::xchg c = MH_XCHG(x, #PFX "product");                                   \
		return mh_detail::reduce<T>(c, W, [](T a, T b) { return T(a * b); }); \
	}                                                                              \
	template <class T> T PFX##min(T x, MH_LOC) {                                   \
		mh_detail::xchg c = MH_XCHG(x, #PFX "min");                                       \
		return mh_detail::reduce<T>(c, W, [](T a, T b) { return T(metal::min(a, b)); }); \
	}                                                                              \
	template <class T> T PFX##max(T x, MH_LOC) {                                   \
		mh_detail::xchg c = MH_XCHG(x, #PFX "max");                                       \
		return mh_detail::reduce<T>(c, W, [](T a, T b) { return T(metal::max(a, b)); }); \
	}                                                                              \
	template <class T> T PFX##and(T x, MH_LOC) {                                   \
		mh_detail::xchg c = MH_XCHG(x, #PFX "and");                                       \
		return mh_detail::reduce<T>(c, W, [](T a, T b) { return T(a & b); }); \
	}                                                                              \
	template <class T> T PFX##or(T x, MH_LOC) {                                    \
		mh_detail::xchg c = MH_XCHG(x, #PFX "or");                                        \
		return mh_detail::reduce<T>(c, W, [](T a, T b) { return T(a | b); }); \
	}                                                                              \
	template <class T> T PFX##xor(T x, MH_LOC) {                                   \
		mh_detail::xchg c = MH_XCHG(x, #PFX "xor");                                       \
		return mh_detail::reduce<T>(c, W, [](T a, T b) { return T(a ^ b); }); \
	}                                                                              \
	template <class T> T PFX##prefix_inclusive_sum(T x, MH_LOC) {                  \
		mh_detail::xchg c = MH_XCHG(x, #PFX "prefix_inclusive_sum");                      \
		return mh_detail::scan<T>(c, W, [](T a, T b) { return T(a + b); }, T(0), true); \
	}                                                                              \
	template <class T> T PFX##prefix_exclusive_sum(T x, MH_LOC) {                  \
		mh_detail::xchg c = MH_XCHG(x, #PFX "prefix_exclusive_sum");                      \
		return mh_detail::scan<T>(c, W, [](T a, T b) { return T(a + b); }, T(0), false); \
	}                                                                              \
	template <class T> T PFX##prefix_inclusive_product(T x, MH_LOC) {              \
		mh_detail::xchg c = MH_XCHG(x, #PFX "prefix_inclusive_product");                  \
		return mh_detail::scan<T>(c, W, [](T a, T b) { return T(a * b); }, T(1), true); \
	}                                                                              \
	template <class T> T PFX##prefix_exclusive_product(T x, MH_LOC) {              \
		mh_detail::xchg c = MH_XCHG(x, #PFX "prefix_exclusive_product");                  \
		return mh_detail::scan<T>(c, W, [](T a, T b) { return T(a * b); }, T(1), false); \
	}                                                                              \
	/* lane L of the segment; outside it or inactive: undefined on the GPU, \
	   the caller's own value here */                                          \
	template <class T> T PFX##shuffle(T x, unsigned short l, MH_LOC) {            \
		mh_detail::xchg c = MH_XCHG(x, #PFX "shuffle");                                   \
		unsigned src = mh_detail::seg_base(c, W) + l;                          \
		return l < W && c.active(src) ? c.at<T>(src) : x;                      \
	}                                                                              \
	template <class T> T PFX##shuffle_xor(T x, unsigned short m, MH_LOC) {        \
		mh_detail::xchg c = MH_XCHG(x, #PFX "shuffle_xor");                               \
		unsigned b = mh_detail::seg_base(c, W), src = b + (((c.lane - b) ^ m) % W); \
		return c.active(src) ? c.at<T>(src) : x;                               \
	}                                                                              \
	/* up: lane - delta; the lowest delta lanes keep their own value */      \
	template <class T> T PFX##shuffle_up(T x, unsigned short d, MH_LOC) {         \
		mh_detail::xchg c = MH_XCHG(x, #PFX "shuffle_up");                                \
		unsigned i = c.lane - mh_detail::seg_base(c, W);                       \
		return i >= d && c.active(c.lane - d) ? c.at<T>(c.lane - d) : x;       \
	}                                                                              \
	template <class T> T PFX##shuffle_down(T x, unsigned short d, MH_LOC) {       \
		mh_detail::xchg c = MH_XCHG(x, #PFX "shuffle_down");                              \
		unsigned i = c.lane - mh_detail::seg_base(c, W);                       \
		return i + d < W && c.active(c.lane + d) ? c.at<T>(c.lane + d) : x;    \
	}                                                                              \
	template <class T> T PFX##shuffle_rotate_up(T x, unsigned short d, MH_LOC) {  \
		mh_detail::xchg c = MH_XCHG(x, #PFX "shuffle_rotate_up");                         \
		unsigned b = mh_detail::seg_base(c, W), i = c.lane - b;                \
		return c.at<T>(b + (i + W - d % W) % W);                               \
	}                                                                              \
	template <class T> T PFX##shuffle_rotate_down(T x, unsigned short d, MH_LOC) { \
		mh_detail::xchg c = MH_XCHG(x, #PFX "shuffle_rotate_down");                       \
		unsigned b = mh_detail::seg_base(c, W), i = c.lane - b;                \
		return c.at<T>(b + (i + d) % W);                                       \
	}                                                                              \
	/* data and filling concatenated: [filling | data] shifted up by delta, \
	   within segments of MOD lanes (default: the whole width) */            \
	template <class T> T PFX##shuffle_and_fill_up(T x, T fill, unsigned short d,  \
	                                              unsigned short mod = W, MH_LOC) { \
		struct two { T a, b; } v{x, fill};                                     \
		mh_detail::xchg c = MH_XCHG(v, #PFX "shuffle_and_fill_up");                       \
		unsigned b = c.lane - c.lane % mod, i = c.lane - b;                    \
		return i >= d ? c.at<two>(c.lane - d).a : c.at<two>(b + i + mod - d).b; \
	}                                                                              \
	template <class T> T PFX##shuffle_and_fill_down(T x, T fill, unsigned short d, \
	                                                unsigned short mod = W, MH_LOC) { \
		struct two { T a, b; } v{x, fill};                                     \
		mh_detail::xchg c = MH_XCHG(v, #PFX "shuffle_and_fill_down");                     \
		unsigned b = c.lane - c.lane % mod, i = c.lane - b;                    \
		return i + d < mod ? c.at<two>(c.lane + d).a : c.at<two>(b + i + d - mod).b; \
	}                                                                              \
	template <class T> T PFX##broadcast(T x, unsigned short l, MH_LOC) {          \
		mh_detail::xchg c = MH_XCHG(x, #PFX "broadcast");                                 \
		unsigned src = mh_detail::seg_base(c, W) + l;                          \
		return c.active(src) ? c.at<T>(src) : x;                               \
	}                                                                              \
	inline bool PFX##all(bool x, MH_LOC) {                                         \
		mh_detail::xchg c = MH_XCHG(x, #PFX "all");                                       \
		return mh_detail::reduce<bool>(c, W, [](bool a, bool b) { return a && b; }); \
	}                                                                              \
	inline bool PFX##any(bool x, MH_LOC) {                                         \
		mh_detail::xchg c = MH_XCHG(x, #PFX "any");                                       \
		return mh_detail::reduce<bool>(c, W, [](bool a, bool b) { return a || b; }); \
	}                                                                              \
	inline bool PFX##is_first(MH_LOC) {                                            \
		char x = 0;                                                            \
		mh_detail::xchg c = MH_XCHG(x, #PFX "is_first");                                  \
		unsigned b = mh_detail::seg_base(c, W);                                \
		for (unsigned l = b; l < c.lane; l++)                                  \
			if (c.active(l))                                               \
				return false;                                          \
		return true;                                                   \
	}                                                                              \
	template <class T> T PFX##broadcast_first(T x, MH_LOC) {                       \
		mh_detail::xchg c = MH_XCHG(x, #PFX "broadcast_first");                           \
		unsigned b = mh_detail::seg_base(c, W);                                \
		for (unsigned l = b; l < b + W && l < c.width; l++)                    \
			if (c.active(l))                                               \
				return c.at<T>(l);                                     \
		return x;                                                      \
	}                                                                              \
	inline simd_vote PFX##ballot(bool x, MH_LOC) {                                 \
		mh_detail::xchg c = MH_XCHG(x, #PFX "ballot");                                    \
		unsigned b = mh_detail::seg_base(c, W);                                \
		uint64_t m = 0;                                                        \
		for (unsigned l = b; l < b + W && l < c.width; l++)                    \
			if (c.active(l) && c.at<bool>(l))                              \
				m |= uint64_t(1) << (l - b);                           \
		return simd_vote(m);                                                   \
	}                                                                              \
	inline simd_vote PFX##active_threads_mask(MH_LOC) {                            \
		return PFX##ballot(true, file, line);                                  \
	}

#define MH_SIMD_W (::metal_host::exec::cur()->tpsg)
MH_SIMD_FAMILY(simd_, MH_SIMD_W)
MH_SIMD_FAMILY(quad_, 4u)
#undef MH_SIMD_W
#undef MH_XCHG
#undef MH_LOC

} /* namespace metal */

#endif /* __METAL__ */
#endif /* METAL_HOST_EXEC_H */
