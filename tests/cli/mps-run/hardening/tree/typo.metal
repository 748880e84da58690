#include <metal_stdlib>
using namespace metal;
// the kernel a script reads from its own .metal file
kernel void scale(device float* out [[buffer(0)]],
                  uint i [[thread_position_in_grid]]) {
  out[i] = out[i] * ;
}
