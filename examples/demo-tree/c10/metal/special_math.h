// Demo tree (our own text, not PyTorch's): stands for
// c10/metal/special_math.h of current PyTorch, where the tested special
// functions of the Metal kernels live.  The tools read which helpers the
// tree has; mps-try and mps-migrate compile them on the host.
#pragma once
#include <metal_stdlib>

namespace c10 {
namespace metal {

// the modified Bessel function of the first kind, order 0, in float: its
// power series sum (x/2)^2k / (k!)^2 up to |x| = 12, above that the
// asymptotic series e^|x| / sqrt(2 pi |x|) (1 + a1 t + a2 t^2 + ...),
// t = 1 / (8 |x|), a_k = ((2k - 1)!!)^2 / k! (e^|x| overflows past 88.7,
// as the CPU's does)
template <typename T>
inline float i0(T x_) {
  const float x = ::metal::fabs(static_cast<float>(x_));
  if (x <= 12.0f) {
    const float q = 0.25f * x * x;
    float term = 1.0f, sum = 1.0f;
    for (int k = 1; k < 64; ++k) {
      term *= q / static_cast<float>(k * k);
      sum += term;
      if (term < sum * 1e-9f) {
        break;
      }
    }
    return sum;
  }
  const float t = 1.0f / (8.0f * x);
  const float poly = 1.0f +
      t * (1.0f +
           t * (4.5f +
                t * (37.5f + t * (459.375f + t * (7441.875f + t * 150077.8125f)))));
  return ::metal::precise::exp(x) / (2.50662827f * ::metal::precise::sqrt(x)) *
      poly;
}

} // namespace metal
} // namespace c10
