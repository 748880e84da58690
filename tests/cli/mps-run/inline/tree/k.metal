#include <metal_stdlib>
#include <c10/metal/twice.h>
#include <ATen/native/mps/kernels/Offset.h>
using namespace metal;

kernel void twice_plus(device float* out [[buffer(0)]],
                       constant float* x [[buffer(1)]],
                       uint i [[thread_position_in_grid]]) {
  out[i] = twice(x[i]) + OFFSET;
}
