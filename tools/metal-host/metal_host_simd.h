/* metal_host_simd.h — <metal_simdgroup> and the synchronisation functions
 * of <metal_compute> on the host (MSL "SIMD-group functions", "Quad-group
 * functions", "Threadgroup and SIMD-group synchronization functions"),
 * and the execution hook they all go through.
 *
 * Part of the Metal host layer; include <metal_stdlib>, not this file.
 *
 * THE EXECUTION HOOK.  metal_host::exec_current is a thread-local pointer
 * to the calling Metal thread's execution context, a metal_host::exec
 * (five virtual functions, below).  Null, the default, means "one thread
 * alone": a SIMD-group (and a quad-group) of one lane, lane 0, active;
 * then simd_sum(x) == x, simd_prefix_exclusive_sum(x) == 0,
 * simd_shuffle*(x, ...) == x (the lane asked for is this one, or out of
 * range: the own value), simd_shuffle_and_fill_up/down(x, f, d) is f for
 * 0 < d < width... (see each function), simd_ballot(c) == c, barriers do
 * nothing.  An execution model (issue #26: threadgroups run as
 * cooperative tasks with real lanes) sets exec_current for each thread it
 * runs, and implements:
 *   lane()      this thread's lane in its SIMD-group (0 ... lanes() - 1)
 *   lanes()     the SIMD-group's width (at most exec::max_lanes)
 *   active()    the mask of the SIMD-group's active lanes (bit i = lane i)
 *   exchange(mine, all, size)
 *               every active lane of the SIMD-group calls it with its own
 *               value (size bytes at mine); it returns, in each lane, when
 *               all (lanes() * size bytes) holds every lane's value in
 *               lane order (an inactive lane's bytes: unspecified)
 *   barrier(scope, flags)
 *               threadgroup_barrier (scope 1) or simdgroup_barrier
 *               (scope 0): returns when every thread of the group reached it
 *   atomic(addr, write)
 *               (optional) an atomic function of metal_host_atomic.h is
 *               about to access addr: not a plain access for the checks
 * Every SIMD and quad function below is computed from one exchange of its
 * operands (quad-groups are the aligned groups of 4 lanes of the
 * SIMD-group), so the model provides data movement and scheduling only.
 *
 * Values: reductions and scans combine the active lanes in lane order
 * with T's own operators (half sums round after each step; the GPU's
 * order is not specified, so float and half sums can differ from it in
 * the last bits); simd_min/max use metal::min/max (a NaN operand gives
 * the other).  The lane arguments are ushort as in Metal; a lane out of
 * range reads the calling lane's own value (undefined in Metal).
 */
#ifndef METAL_HOST_SIMD_H
#define METAL_HOST_SIMD_H

#include <cstdint>

#include "metal_host_math.h"

namespace metal_host {

/* a Metal thread's execution context (header comment) */
struct exec {
	static constexpr unsigned max_lanes = 64;
	virtual unsigned lane() = 0;
	virtual unsigned lanes() = 0;
	virtual uint64_t active() = 0;
	virtual void exchange(const void *mine, void *all, size_t size) = 0;
	virtual void barrier(int scope, unsigned flags) = 0;
	/* an atomic function of <metal_atomic> is about to access ADDR
	 * (write: it may change it; an atomic_load does not); the default
	 * ignores it (a model with checks tells atomics from plain accesses) */
	virtual void atomic(const void *addr, bool write) {
		(void)addr;
		(void)write;
	}
	virtual ~exec() = default;
};

/* the calling thread's context; null: one lane alone */
inline thread_local exec *exec_current = nullptr;

/* every lane's value of x, as exec::exchange gives them */
struct lanes_view {
	unsigned lane, width;
	uint64_t active;
	bool on(unsigned i) const { return i < width && ((active >> i) & 1u); }
};
template <class T>
inline lanes_view gather(const T &x, T *all) {
	exec *e = exec_current;
	if (!e) {
		__builtin_memcpy(static_cast<void *>(all), static_cast<const void *>(&x), sizeof(T));
		return {0, 1, 1};
	}
	e->exchange(&x, all, sizeof(T));
	unsigned w = e->lanes();
	return {e->lane(), w > exec::max_lanes ? exec::max_lanes : w, e->active()};
}

/* the lanes of this thread's group: the SIMD-group (quad false) or its
 * quad-group, as [base, base + n) */
inline void group_of(const lanes_view &v, bool quad, unsigned &base, unsigned &n) {
	if (quad) {
		base = v.lane & ~3u;
		n = v.width - base < 4 ? v.width - base : 4;
	} else {
		base = 0;
		n = v.width;
	}
}

/* fold OP over the active lanes of the group in lane order; when
 * upto_self, only those up to this lane (inclusive: incl) */
template <class T, class F>
inline T fold(const T *all, const lanes_view &v, bool quad, int upto_self, bool incl, T ident, F op) {
	unsigned base, n;
	group_of(v, quad, base, n);
	T acc = ident;
	bool first = true;
	for (unsigned i = base; i < base + n; i++) {
		if (!v.on(i))
			continue;
		if (upto_self && (incl ? i > v.lane : i >= v.lane))
			break;
		acc = first ? all[i] : T(op(acc, all[i]));
		first = false;
	}
	return acc;
}

/* the value of lane `src` of the group (relative to the group), or the
 * own value when that lane is out of range or inactive */
template <class T>
inline T from_lane(const T *all, const lanes_view &v, bool quad, long src) {
	unsigned base, n;
	group_of(v, quad, base, n);
	if (src < 0 || src >= long(n) || !v.on(base + unsigned(src)))
		return all[v.lane];
	return all[base + unsigned(src)];
}

} // namespace metal_host

namespace metal {

/* ---- synchronisation -------------------------------------------------- */

enum class mem_flags : unsigned {
	mem_none = 0,
	mem_device = 1,
	mem_threadgroup = 2,
	mem_texture = 4,
	mem_threadgroup_imageblock = 8,
	mem_object_data = 16
};
constexpr mem_flags operator|(mem_flags a, mem_flags b) { return mem_flags(unsigned(a) | unsigned(b)); }
constexpr mem_flags operator&(mem_flags a, mem_flags b) { return mem_flags(unsigned(a) & unsigned(b)); }

inline void threadgroup_barrier(mem_flags f) {
	if (::metal_host::exec *e = ::metal_host::exec_current)
		e->barrier(1, unsigned(f));
}
inline void simdgroup_barrier(mem_flags f) {
	if (::metal_host::exec *e = ::metal_host::exec_current)
		e->barrier(0, unsigned(f));
}

/* ---- simd_vote (simd_ballot, simd_active_threads_mask) ----------------- */

struct simd_vote {
	typedef uint64_t vote_t;
	vote_t v_ = 0;
	constexpr simd_vote() = default;
	constexpr explicit simd_vote(vote_t v) : v_(v) {}
	constexpr explicit operator vote_t() const { return v_; }
	constexpr bool all() const { return v_ == ~vote_t(0); }
	constexpr bool any() const { return v_ != 0; }
};

namespace detail {
template <class T>
using lanes_t = T[::metal_host::exec::max_lanes];

inline simd_vote ballot(bool c, bool quad) {
	lanes_t<bool> all;
	const auto v = ::metal_host::gather(c, all);
	unsigned base, n;
	::metal_host::group_of(v, quad, base, n);
	uint64_t m = 0;
	for (unsigned i = base; i < base + n; i++)
		if (v.on(i) && all[i])
			m |= uint64_t(1) << (i - base);
	return simd_vote(m);
}
inline uint64_t active_mask(bool quad) {
	::metal_host::exec *e = ::metal_host::exec_current;
	if (!e)
		return 1;
	const ::metal_host::lanes_view v{e->lane(), e->lanes(), e->active()};
	unsigned base, n;
	::metal_host::group_of(v, quad, base, n);
	return n >= 64 ? v.active : (v.active >> base) & ((uint64_t(1) << n) - 1);
}
inline bool is_first(bool quad) {
	::metal_host::exec *e = ::metal_host::exec_current;
	if (!e)
		return true;
	const unsigned lane = e->lane();
	const uint64_t m = active_mask(quad);
	return m != 0 && unsigned(__builtin_ctzll(m)) == (quad ? lane & 3u : lane);
}

template <class T, class F>
inline T reduce(T x, bool quad, F op) {
	lanes_t<T> all;
	const auto v = ::metal_host::gather(x, all);
	return ::metal_host::fold(all, v, quad, 0, true, x, op);
}
template <class T, class F>
inline T scan(T x, bool quad, bool incl, T ident, F op) {
	lanes_t<T> all;
	const auto v = ::metal_host::gather(x, all);
	return ::metal_host::fold(all, v, quad, 1, incl, ident, op);
}
/* the value of the group's lane SRC(own lane in the group, width) */
template <class T, class S>
inline T move(T x, bool quad, S src) {
	lanes_t<T> all;
	const auto v = ::metal_host::gather(x, all);
	unsigned base, n;
	::metal_host::group_of(v, quad, base, n);
	return ::metal_host::from_lane(all, v, quad, src(long(v.lane - base), long(n)));
}
/* shuffle_and_fill: lane l takes data[l + d] (down) or data[l - d] (up)
 * within windows of `mod` lanes of the group; past the window's edge it
 * takes filling from the other end of the window */
template <class T>
inline T fill(T data, T filling, bool quad, long d, long mod, bool down) {
	lanes_t<T> a, f;
	const auto v = ::metal_host::gather(data, a);
	(void)::metal_host::gather(filling, f);
	unsigned base, n;
	::metal_host::group_of(v, quad, base, n);
	const long l = long(v.lane - base);
	const long w = mod > 0 && mod < long(n) ? mod : long(n);
	const long wb = l / w * w, k = l - wb; /* window start, index in it */
	const long s = down ? k + d : k - d;
	if (s >= 0 && s < w)
		return ::metal_host::from_lane(a, v, quad, wb + s);
	const long t = down ? s - w : s + w; /* the filling's lane in the window */
	if (t < 0 || t >= w)
		return filling;
	return ::metal_host::from_lane(f, v, quad, wb + t);
}
} // namespace detail

/* The SIMD-group functions and their quad_ twins: NAME(args) -> simd_NAME
 * and quad_NAME, Q the quad flag.  Metal declares them for each type; here
 * they are templates, and the empty trailing pack makes each less
 * specialised than a source's own template of the same name (c10's
 * simd_sum, simd_max, simd_broadcast in reduction_utils.h), so that an
 * unqualified call after `using namespace metal; using namespace
 * c10::metal;` picks c10's, as Metal's overload resolution does, instead
 * of being ambiguous (the pack always stays empty). */
#define METAL_HOST_SQ(NAME, Q, ...)                                             \
	template <class T, class... Rest, std::enable_if_t<sizeof...(Rest) == 0, int> = 0> \
	inline T simd_##NAME(__VA_ARGS__, Rest...) { constexpr bool q = false; return Q; } \
	template <class T, class... Rest, std::enable_if_t<sizeof...(Rest) == 0, int> = 0> \
	inline T quad_##NAME(__VA_ARGS__, Rest...) { constexpr bool q = true; return Q; }

METAL_HOST_SQ(sum, detail::reduce(x, q, [](const T &a, const T &b) { return a + b; }), T x)
METAL_HOST_SQ(product, detail::reduce(x, q, [](const T &a, const T &b) { return a * b; }), T x)
METAL_HOST_SQ(min, detail::reduce(x, q, [](const T &a, const T &b) { return ::metal::min(a, b); }), T x)
METAL_HOST_SQ(max, detail::reduce(x, q, [](const T &a, const T &b) { return ::metal::max(a, b); }), T x)
METAL_HOST_SQ(and, detail::reduce(x, q, [](const T &a, const T &b) { return a & b; }), T x)
METAL_HOST_SQ(or, detail::reduce(x, q, [](const T &a, const T &b) { return a | b; }), T x)
METAL_HOST_SQ(xor, detail::reduce(x, q, [](const T &a, const T &b) { return a ^ b; }), T x)
METAL_HOST_SQ(prefix_inclusive_sum, detail::scan(x, q, true, T(0), [](const T &a, const T &b) { return a + b; }), T x)
METAL_HOST_SQ(prefix_exclusive_sum, detail::scan(x, q, false, T(0), [](const T &a, const T &b) { return a + b; }), T x)
METAL_HOST_SQ(prefix_inclusive_product, detail::scan(x, q, true, T(1), [](const T &a, const T &b) { return a * b; }), T x)
METAL_HOST_SQ(prefix_exclusive_product, detail::scan(x, q, false, T(1), [](const T &a, const T &b) { return a * b; }), T x)
METAL_HOST_SQ(shuffle, detail::move(x, q, [&](long, long) { return long(lane); }), T x, ushort lane)
METAL_HOST_SQ(broadcast, detail::move(x, q, [&](long, long) { return long(lane); }), T x, ushort lane)
METAL_HOST_SQ(shuffle_up, detail::move(x, q, [&](long l, long) { return l - long(delta); }), T x, ushort delta)
METAL_HOST_SQ(shuffle_down, detail::move(x, q, [&](long l, long) { return l + long(delta); }), T x, ushort delta)
METAL_HOST_SQ(shuffle_xor, detail::move(x, q, [&](long l, long) { return l ^ long(mask); }), T x, ushort mask)
METAL_HOST_SQ(shuffle_rotate_up, detail::move(x, q, [&](long l, long n) { return ((l - long(delta)) % n + n) % n; }), T x, ushort delta)
METAL_HOST_SQ(shuffle_rotate_down, detail::move(x, q, [&](long l, long n) { return (l + long(delta)) % n; }), T x, ushort delta)
METAL_HOST_SQ(broadcast_first, detail::move(x, q, [&](long, long) { return long(__builtin_ctzll(detail::active_mask(q) | (uint64_t(1) << 63))); }), T x)
METAL_HOST_SQ(shuffle_and_fill_up, detail::fill(data, filling, q, long(delta), 0, false), T data, T filling, ushort delta)
METAL_HOST_SQ(shuffle_and_fill_down, detail::fill(data, filling, q, long(delta), 0, true), T data, T filling, ushort delta)
#undef METAL_HOST_SQ

/* the forms with a window width (modulo) */
template <class T>
inline T simd_shuffle_and_fill_up(T data, T filling, ushort delta, ushort modulo) {
	return detail::fill(data, filling, false, long(delta), long(modulo), false);
}
template <class T>
inline T simd_shuffle_and_fill_down(T data, T filling, ushort delta, ushort modulo) {
	return detail::fill(data, filling, false, long(delta), long(modulo), true);
}
template <class T>
inline T quad_shuffle_and_fill_up(T data, T filling, ushort delta, ushort modulo) {
	return detail::fill(data, filling, true, long(delta), long(modulo), false);
}
template <class T>
inline T quad_shuffle_and_fill_down(T data, T filling, ushort delta, ushort modulo) {
	return detail::fill(data, filling, true, long(delta), long(modulo), true);
}

inline bool simd_all(bool c) { return detail::ballot(c, false).v_ == detail::active_mask(false); }
inline bool simd_any(bool c) { return detail::ballot(c, false).v_ != 0; }
inline simd_vote simd_ballot(bool c) { return detail::ballot(c, false); }
inline simd_vote simd_active_threads_mask() { return simd_vote(detail::active_mask(false)); }
inline bool simd_is_first() { return detail::is_first(false); }
inline bool quad_all(bool c) { return detail::ballot(c, true).v_ == detail::active_mask(true); }
inline bool quad_any(bool c) { return detail::ballot(c, true).v_ != 0; }
inline simd_vote quad_ballot(bool c) { return detail::ballot(c, true); }
inline simd_vote quad_active_threads_mask() { return simd_vote(detail::active_mask(true)); }
inline bool quad_is_first() { return detail::is_first(true); }

} // namespace metal

#endif /* METAL_HOST_SIMD_H */
