/* metal_host_atomic.h — <metal_atomic> on the host (MSL "Atomic
 * functions"): metal::atomic<T> and the *_explicit functions.
 *
 * Part of the Metal host layer; include <metal_atomic> or <metal_stdlib>,
 * not this file.
 *
 * atomic<T>     T in int, uint, bool, ulong, float (what Metal has; any
 *               other trivially copyable T of 1, 2, 4 or 8 bytes works
 *               too): the size and alignment of T, so a buffer of T can be
 *               reinterpreted as one of atomic<T> (c10/metal/atomic.h
 *               does); not copyable.  atomic_int, atomic_uint,
 *               atomic_bool, atomic_ulong, atomic_float name them.
 * functions     atomic_store_explicit, atomic_load_explicit,
 *               atomic_exchange_explicit,
 *               atomic_compare_exchange_weak_explicit (and _strong_),
 *               atomic_fetch_{add,sub,and,or,xor,min,max}_explicit, on a
 *               `device` or `threadgroup` atomic<T>* (both are atomic<T>*
 *               on the host).  The operand is converted to T, as in
 *               Metal (`atomic_fetch_add_explicit(&count, 1, ...)` on an
 *               atomic<uint>).  fetch_add/sub on float add in float.
 * memory_order  memory_order_relaxed, _acquire, _release, _acq_rel,
 *               _seq_cst; every operation is sequentially consistent on
 *               the host (stronger than asked; Metal's device atomics are
 *               relaxed).  atomic_thread_fence(flags, order[, scope]) is a
 *               full fence.
 * Every operation is a real atomic operation of the host (GCC/clang
 * __atomic builtins), so it stays correct whatever runs the threads
 * (issue #26's execution model); each first tells the execution hook of
 * metal_host_simd.h (exec::atomic, when a model is installed) which
 * address it accesses, so that the model's checks do not take it for a
 * plain access (race, uninitialized-read).
 */
#ifndef METAL_HOST_ATOMIC_H
#define METAL_HOST_ATOMIC_H

#include <type_traits>

#include "metal_host_simd.h"

namespace metal {

enum memory_order {
	memory_order_relaxed,
	memory_order_acquire,
	memory_order_release,
	memory_order_acq_rel,
	memory_order_seq_cst
};

enum thread_scope {
	thread_scope_thread,
	thread_scope_simdgroup,
	thread_scope_threadgroup,
	thread_scope_device
};

template <class T>
struct atomic {
	static_assert(std::is_trivially_copyable<T>::value &&
	                  (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8),
	              "metal::atomic<T>: T must be a trivially copyable type of 1, 2, 4 or 8 bytes");
	alignas(sizeof(T)) T v_;
	atomic() = default;
	atomic(const atomic &) = delete;
	atomic &operator=(const atomic &) = delete;
};

typedef atomic<int> atomic_int;
typedef atomic<unsigned int> atomic_uint;
typedef atomic<bool> atomic_bool;
typedef atomic<unsigned long> atomic_ulong;
typedef atomic<float> atomic_float;

namespace detail {
/* tell the execution model (if any) of an atomic access to P */
inline void note(const volatile void *p, bool write) {
	if (::metal_host::exec *e = ::metal_host::exec_current)
		e->atomic(const_cast<const void *>(p), write);
}
template <class T>
struct same_t {
	using type = T;
};
/* the operand of an atomic function: converted to T, not deduced */
template <class T>
using op_t = typename same_t<T>::type;

/* old = *o; *o = f(old, x); return old: a compare-exchange loop */
template <class T, class F>
inline T atomic_rmw(atomic<T> *o, T x, F f) {
	T old;
	__atomic_load(&o->v_, &old, __ATOMIC_SEQ_CST);
	for (;;) {
		T nv = f(old, x);
		if (__atomic_compare_exchange(&o->v_, &old, &nv, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return old;
	}
}
} // namespace detail

template <class T>
inline void atomic_store_explicit(atomic<T> *o, detail::op_t<T> x, memory_order) {
	detail::note(o, true);
	__atomic_store(&o->v_, &x, __ATOMIC_SEQ_CST);
}
template <class T>
inline T atomic_load_explicit(const atomic<T> *o, memory_order) {
	detail::note(o, false);
	T r;
	__atomic_load(&o->v_, &r, __ATOMIC_SEQ_CST);
	return r;
}
template <class T>
inline T atomic_exchange_explicit(atomic<T> *o, detail::op_t<T> x, memory_order) {
	detail::note(o, true);
	T r;
	__atomic_exchange(&o->v_, &x, &r, __ATOMIC_SEQ_CST);
	return r;
}
/* *o == *expected: *o = desired, true; else *expected = *o, false (the
 * weak form never fails spuriously on the host) */
template <class T>
inline bool atomic_compare_exchange_weak_explicit(atomic<T> *o, detail::op_t<T> *expected,
                                                  detail::op_t<T> desired, memory_order, memory_order) {
	detail::note(o, true);
	return __atomic_compare_exchange(&o->v_, expected, &desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}
template <class T>
inline bool atomic_compare_exchange_strong_explicit(atomic<T> *o, detail::op_t<T> *expected,
                                                    detail::op_t<T> desired, memory_order, memory_order) {
	detail::note(o, true);
	return __atomic_compare_exchange(&o->v_, expected, &desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

#define METAL_HOST_ATOMIC_FETCH(NAME, EXPR)                                     \
	template <class T>                                                     \
	inline T atomic_fetch_##NAME##_explicit(atomic<T> *o, detail::op_t<T> x, memory_order) { \
		detail::note(o, true);                                         \
		return detail::atomic_rmw(o, x, [](T a, T b) { return T(EXPR); }); \
	}
METAL_HOST_ATOMIC_FETCH(add, a + b)
METAL_HOST_ATOMIC_FETCH(sub, a - b)
METAL_HOST_ATOMIC_FETCH(and, a & b)
METAL_HOST_ATOMIC_FETCH(or, a | b)
METAL_HOST_ATOMIC_FETCH(xor, a ^ b)
METAL_HOST_ATOMIC_FETCH(min, b < a ? b : a)
METAL_HOST_ATOMIC_FETCH(max, a < b ? b : a)
#undef METAL_HOST_ATOMIC_FETCH

inline void atomic_thread_fence(mem_flags, memory_order, thread_scope = thread_scope_device) {
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

} // namespace metal

#endif /* METAL_HOST_ATOMIC_H */
