// Demo tree (our own text, not PyTorch's): stands for
// c10/metal/special_math.h of current PyTorch, where the tested special
// functions of the Metal kernels live.  Only the names matter here (the
// tools read which helpers the tree has); bodies are left out.
#pragma once
#include <metal_stdlib>

namespace c10 {
namespace metal {

// the modified Bessel function of the first kind, order 0
template <typename T>
inline float i0(T x) {}

} // namespace metal
} // namespace c10
