# Planted mistakes, one kernel each, each caught by its named check.  The
# library is compiled once; each call says first what it plants.
import torch

SOURCE = """
#include <metal_stdlib>
using namespace metal;

// the row sum of row-sum/, without its barrier: a race
kernel void missing_barrier(constant float* x [[buffer(0)]],
                            device float* out [[buffer(1)]],
                            uint lid [[thread_position_in_threadgroup]],
                            uint lane [[thread_index_in_simdgroup]],
                            uint sg [[simdgroup_index_in_threadgroup]]) {
  threadgroup float partial[2];
  float acc = simd_sum(x[lid]);
  if (lane == 0)
    partial[sg] = acc;
  if (sg == 0) {
    float v = lane < 2 ? partial[lane] : 0.0;
    v = simd_sum(v);
    if (lane == 0)
      out[0] = v;
  }
}

// a barrier only some threads reach
kernel void barrier_in_branch(device float* out [[buffer(0)]],
                              uint lid [[thread_position_in_threadgroup]]) {
  threadgroup float t[64];
  t[lid] = lid;
  if (lid < 16)
    threadgroup_barrier(mem_flags::mem_threadgroup);
  out[lid] = t[lid];
}

// no bound check: called with one thread too many
kernel void one_too_many(constant float* x [[buffer(0)]],
                         device float* out [[buffer(1)]],
                         uint i [[thread_position_in_grid]]) {
  out[i] = 2 * x[i];
}

// right, but called with threads = the number of groups
kernel void scale(constant float* x [[buffer(0)]],
                  device float* out [[buffer(1)]],
                  constant long& n [[buffer(2)]],
                  uint i [[thread_position_in_grid]]) {
  if (i < n)
    out[i] = 2 * x[i];
}

// every thread adds into one element without an atomic
kernel void plain_add(constant float* x [[buffer(0)]],
                      device float* total [[buffer(1)]],
                      uint i [[thread_position_in_grid]]) {
  total[0] += x[i];
}

// reads its neighbour's slot before anyone wrote it
kernel void read_before_write(device float* out [[buffer(0)]],
                              uint lid [[thread_position_in_threadgroup]],
                              uint n [[threads_per_threadgroup]]) {
  threadgroup float t[64];
  float left = t[(lid + n - 1) % n];
  t[lid] = lid;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[lid] = left + t[lid];
}

// a SIMD-group sum by shuffles, written for 64 lanes: the first offset,
// 32, reads past a 32-lane SIMD-group (each lane gets its own value back)
kernel void wrong_shuffle(constant float* x [[buffer(0)]],
                          device float* out [[buffer(1)]],
                          uint lid [[thread_position_in_threadgroup]]) {
  float v = x[lid];
  for (ushort off = 32; off > 0; off /= 2)
    v += simd_shuffle_down(v, off);
  if (lid == 0)
    out[0] = v;
}

// the grid position computed from a partial group's own size
kernel void partial_stride(constant float* x [[buffer(0)]],
                           device float* out [[buffer(1)]],
                           uint lid [[thread_position_in_threadgroup]],
                           uint group [[threadgroup_position_in_grid]],
                           uint width [[threads_per_threadgroup]]) {
  const uint i = group * width + lid;
  out[i] = 2 * x[i];
}
"""

lib = torch.mps.compile_shader(SOURCE)
x = torch.arange(64, dtype=torch.float32)
out = torch.zeros(64)

print("missing barrier")
lib.missing_barrier(x, torch.zeros(1), threads=64, group_size=64)
print("barrier in a branch")
lib.barrier_in_branch(out, threads=64, group_size=64)
print("one thread too many")
lib.one_too_many(x, out, threads=65, group_size=32)
print("threads given as the number of groups")
lib.scale(x, out, 64, threads=64 // 32, group_size=32)
print("a plain += on one device element")
total = torch.zeros(1)
lib.plain_add(x, total, threads=64, group_size=32)
print("a threadgroup read before any write")
lib.read_before_write(out, threads=64, group_size=64)
print("a wrong shuffle offset (caught by the comparison with torch)")
got = torch.zeros(1)
lib.wrong_shuffle(x, got, threads=32, group_size=32)
print("  simd sum %g, torch.sum %g" % (got.item(), x[:32].sum().item()))
print("a partial group's threads_per_threadgroup as the stride")
out = torch.zeros(100)
lib.partial_stride(torch.arange(100, dtype=torch.float32), out, threads=100, group_size=32)
print("done")
