/* metal_host_array.h — <metal_array> on the host (MSL "Arrays and
 * structs"): metal::array<T, N>, metal::array_ref<T>, and metal::vec<T, N>
 * (the template form of the vector types, c10/metal/common.h's vec3).
 *
 * Part of the Metal host layer; include <metal_stdlib> or <metal_array>,
 * not this file.
 *
 * array<T, N>  an aggregate holding N elements (`array<int, 3> a = {1, 2,
 *              3};`, `array<T, 4> tmp;` left uninitialised as in Metal),
 *              trivially copyable when T is, with size(), empty(),
 *              operator[], front(), back(), data(), begin(), end().  Its
 *              const volatile operator[] reads an array in `constant`
 *              memory (`constant` is `const volatile` on the host,
 *              metal_host.h).  N = 0 is accepted (size() 0, no element).
 * array_ref<T> a pointer and a size (make_array_ref(p, n), or from an
 *              array): size(), empty(), operator[], data(), begin(), end().
 * vec<T, N>    the same type as TN (vec<float, 3> is float3).
 */
#ifndef METAL_HOST_ARRAY_H
#define METAL_HOST_ARRAY_H

#include <cstddef>

#include "metal_host_vector.h"

namespace metal {

template <class T, int N>
using vec = ::metal_host::vec<T, N>;

template <class T, size_t N>
struct array {
	/* public, so that the type is an aggregate; N = 0 keeps one unused
	 * element (C++ has no zero-length member arrays) */
	T elems_[N ? N : 1];

	static constexpr size_t size() { return N; }
	static constexpr bool empty() { return N == 0; }
	constexpr T &operator[](size_t i) { return elems_[i]; }
	constexpr const T &operator[](size_t i) const { return elems_[i]; }
	const volatile T &operator[](size_t i) const volatile { return elems_[i]; }
	constexpr T &front() { return elems_[0]; }
	constexpr const T &front() const { return elems_[0]; }
	constexpr T &back() { return elems_[N - 1]; }
	constexpr const T &back() const { return elems_[N - 1]; }
	constexpr T *data() { return elems_; }
	constexpr const T *data() const { return elems_; }
	constexpr T *begin() { return elems_; }
	constexpr const T *begin() const { return elems_; }
	constexpr T *end() { return elems_ + N; }
	constexpr const T *end() const { return elems_ + N; }
};

template <class T>
struct array_ref {
	const T *ptr_ = nullptr;
	size_t n_ = 0;
	constexpr array_ref() = default;
	constexpr array_ref(const T *p, size_t n) : ptr_(p), n_(n) {}
	template <size_t N>
	constexpr array_ref(const array<T, N> &a) : ptr_(a.data()), n_(N) {}
	template <size_t N>
	constexpr array_ref(const T (&a)[N]) : ptr_(a), n_(N) {}
	constexpr size_t size() const { return n_; }
	constexpr bool empty() const { return n_ == 0; }
	constexpr const T &operator[](size_t i) const { return ptr_[i]; }
	constexpr const T *data() const { return ptr_; }
	constexpr const T *begin() const { return ptr_; }
	constexpr const T *end() const { return ptr_ + n_; }
};

template <class T>
constexpr array_ref<T> make_array_ref(const T *p, size_t n) { return array_ref<T>(p, n); }
template <class T, size_t N>
constexpr array_ref<T> make_array_ref(const array<T, N> &a) { return array_ref<T>(a); }
template <class T, size_t N>
constexpr array_ref<T> make_array_ref(const T (&a)[N]) { return array_ref<T>(a); }

} // namespace metal

#endif /* METAL_HOST_ARRAY_H */
