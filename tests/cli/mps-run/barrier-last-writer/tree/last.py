# Each thread writes its own element of a threadgroup array just before a
# barrier; after it, thread 0 reads the element the last thread wrote.
# The last thread to reach the barrier is the one that releases the
# group: its write belongs to the phase before the barrier, not after
# (issue #27: it used to be reported as a race).  Without the barrier the
# same read is a race.
import sys

import torch

SOURCE = """
#include <metal_stdlib>
using namespace metal;

kernel void last(device float* out [[buffer(0)]],
                 uint lid [[thread_position_in_threadgroup]],
                 uint width [[threads_per_threadgroup]]) {
  threadgroup float part[64];
  part[lid] = float(lid);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (lid == 0)
    out[0] = part[width - 1];
}

kernel void no_barrier(device float* out [[buffer(0)]],
                       uint lid [[thread_position_in_threadgroup]],
                       uint width [[threads_per_threadgroup]]) {
  threadgroup float part[64];
  part[lid] = float(lid);
  if (lid == 0)
    out[0] = part[width - 1];
}
"""

lib = torch.mps.compile_shader(SOURCE)
out = torch.zeros(1)
lib.last(out, threads=64, group_size=64)
print("with the barrier:", out.item())
sys.stdout.flush()
lib.no_barrier(out, threads=64, group_size=64)
