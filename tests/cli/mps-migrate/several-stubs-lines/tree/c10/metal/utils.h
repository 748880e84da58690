// Test fixture for mps-try (our own text, not PyTorch's): stands for
// c10/metal/utils.h, the type helpers the kernels use.
#pragma once
#include <metal_stdlib>

namespace c10 {
namespace metal {

// the type a functor returns for the given argument types
template <typename F, typename... A>
using result_of = decltype(::metal::declval<F>()(::metal::declval<A>()...));

template <typename T>
constexpr bool is_complex_v =
    ::metal::is_same_v<T, float2> || ::metal::is_same_v<T, half2>;

template <typename T>
constexpr bool is_scalar_floating_point_v =
    ::metal::is_floating_point_v<T> && ::metal::is_scalar_v<T>;

template <typename T>
constexpr bool is_scalar_integral_v =
    ::metal::is_integral_v<T> && ::metal::is_scalar_v<T>;

// the type arithmetic on T is carried out in: float for the 16-bit floats
template <typename T>
struct opmath_of {
  using type = T;
};
template <>
struct opmath_of<half> {
  using type = float;
};
template <>
struct opmath_of<bfloat> {
  using type = float;
};
template <typename T>
using opmath_t = typename opmath_of<T>::type;

// complex products and quotients, on (re, im) pairs
template <typename T, ::metal::enable_if_t<is_complex_v<T>, bool> = true>
inline T mul(T a, T b) {
  return T(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

template <typename T, ::metal::enable_if_t<is_complex_v<T>, bool> = true>
inline T div(T a, T b) {
  auto d = b.x * b.x + b.y * b.y;
  return T((a.x * b.x + a.y * b.y) / d, (a.y * b.x - a.x * b.y) / d);
}

} // namespace metal
} // namespace c10
