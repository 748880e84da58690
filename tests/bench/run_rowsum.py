# make bench, mps-run section: the benchmark kernel, a sum over
# 1,024 rows of 1,024 floats in groups of 256 threads (simd_sum, then a
# threadgroup tree over the SIMD-groups' sums), checked against torch.sum.
# Prints "call SECONDS" (the Python call: argument files, the run, the
# copy back); the run alone comes from MPS_RUN_STATS on stderr.
import time
import torch

SOURCE = """
#include <metal_stdlib>
using namespace metal;
kernel void row_sum(constant float* x [[buffer(0)]],
                    device float* out [[buffer(1)]],
                    constant long& ncols [[buffer(2)]],
                    uint lid [[thread_position_in_threadgroup]],
                    uint row [[threadgroup_position_in_grid]],
                    uint width [[threads_per_threadgroup]],
                    uint lane [[thread_index_in_simdgroup]],
                    uint sg [[simdgroup_index_in_threadgroup]]) {
  threadgroup float partial[32];
  float acc = 0.0;
  for (long c = lid; c < ncols; c += width)
    acc += x[row * ncols + c];
  acc = simd_sum(acc);
  if (lane == 0)
    partial[sg] = acc;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (uint s = (width / 32) / 2; s > 0; s /= 2) {
    if (lid < s)
      partial[lid] += partial[lid + s];
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  if (lid == 0)
    out[row] = partial[0];
}
"""

lib = torch.mps.compile_shader(SOURCE)
x = torch.rand(1024, 1024)
out = torch.empty(1024)
t = time.perf_counter()
lib.row_sum(x, out, 1024, threads=1024 * 256, group_size=256)
t = time.perf_counter() - t
assert torch.allclose(out, x.sum(1), rtol=1e-4), "mismatch"
print("call %.3f" % t)
