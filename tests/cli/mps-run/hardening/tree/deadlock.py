# A deadlocked barrier: the even threads of each group wait at one
# barrier, the odd ones at another.  On a GPU the group hangs or the
# result is undefined; here each barrier is released and the run reports
# divergent-barrier.
import torch

lib = torch.mps.compile_shader("""
#include <metal_stdlib>
using namespace metal;
kernel void halves(device float* out [[buffer(0)]],
                   uint i [[thread_position_in_grid]],
                   uint lid [[thread_position_in_threadgroup]]) {
  threadgroup float t[64];
  t[lid] = float(i);
  if (lid % 2 == 0)
    threadgroup_barrier(mem_flags::mem_threadgroup);
  else
    threadgroup_barrier(mem_flags::mem_threadgroup);
  out[i] = t[lid ^ 1];
}
""")
out = torch.zeros(128)
lib.halves(out, threads=128, group_size=64)
print("ran to the end")
