# Kernels the way main's scan, sort and indexing kernels are written, each
# compared with torch on the CPU: an inclusive scan per row (SIMD prefix
# sums, the SIMD-groups' totals scanned by the first SIMD-group, a
# threadgroup carry from tile to tile); a bitonic sort per row (strides
# under the SIMD width by simd_shuffle_xor, the others through threadgroup
# memory; ties kept in order, as a stable sort); index_add_ along dim 0 by
# atomic adds (repeated indices: many threads add into one element, which
# is no race); a histogram with threadgroup atomics.  Sizes: partial groups, one element, empty, non-contiguous.
# One library, one compile.
import torch

SOURCE = """
#include <metal_stdlib>
using namespace metal;

// inclusive scan of each row (one group per row, tiles of the group's
// width); the SIMD-groups must be at most as many as a SIMD-group's lanes
kernel void cumsum_row(constant float* x [[buffer(0)]],
                       device float* out [[buffer(1)]],
                       constant long& n [[buffer(2)]],
                       constant long& row_stride [[buffer(3)]],
                       constant long& col_stride [[buffer(4)]],
                       uint lid [[thread_position_in_threadgroup]],
                       uint row [[threadgroup_position_in_grid]],
                       uint width [[threads_per_threadgroup]],
                       uint lane [[thread_index_in_simdgroup]],
                       uint sg [[simdgroup_index_in_threadgroup]],
                       uint nsg [[simdgroups_per_threadgroup]],
                       uint w [[threads_per_simdgroup]]) {
  threadgroup float sg_total[64];
  threadgroup float carry[1];
  if (lid == 0)
    carry[0] = 0.0f;
  for (long base = 0; base < n; base += width) {
    const long c = base + lid;
    float v = c < n ? x[row * row_stride + c * col_stride] : 0.0f;
    v = simd_prefix_inclusive_sum(v);
    if (lane == w - 1 || lid == width - 1)
      sg_total[sg] = v;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (sg == 0) {
      float t = lane < nsg ? sg_total[lane] : 0.0f;
      t = simd_prefix_exclusive_sum(t);
      if (lane < nsg)
        sg_total[lane] = t;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    v += sg_total[sg] + carry[0];
    if (c < n)
      out[row * n + c] = v;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (lid == width - 1)
      carry[0] = v;
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
}

// bitonic sort of each row (one group per row, a power of two of threads
// at least the row's length; the rest padded with +inf)
kernel void sort_row(constant float* x [[buffer(0)]],
                     device float* values [[buffer(1)]],
                     device long* indices [[buffer(2)]],
                     constant long& n [[buffer(3)]],
                     constant long& row_stride [[buffer(4)]],
                     constant long& col_stride [[buffer(5)]],
                     uint lid [[thread_position_in_threadgroup]],
                     uint row [[threadgroup_position_in_grid]],
                     uint width [[threads_per_threadgroup]],
                     uint w [[threads_per_simdgroup]]) {
  threadgroup float tv[1024];
  threadgroup long ti[1024];
  float v = lid < n ? x[row * row_stride + lid * col_stride] : INFINITY;
  long i = lid;
  for (uint k = 2; k <= width; k *= 2) {
    for (uint j = k / 2; j > 0; j /= 2) {
      float ov;
      long oi;
      if (j >= w) {
        tv[lid] = v;
        ti[lid] = i;
        threadgroup_barrier(mem_flags::mem_threadgroup);
        ov = tv[lid ^ j];
        oi = ti[lid ^ j];
        threadgroup_barrier(mem_flags::mem_threadgroup);
      } else {
        ov = simd_shuffle_xor(v, ushort(j));
        oi = simd_shuffle_xor(i, ushort(j));
      }
      const bool ascending = (lid & k) == 0;
      const bool lower = (lid & j) == 0;
      const bool other_first = ov < v || (ov == v && oi < i);
      if (lower == ascending ? other_first : !other_first) {
        v = ov;
        i = oi;
      }
    }
  }
  if (lid < n) {
    values[row * n + lid] = v;
    indices[row * n + lid] = i;
  }
}

// out.index_add_(0, index, src) for a 2-D src: one thread per element of
// src, an atomic add into its row of out
kernel void index_add_rows(constant float* src [[buffer(0)]],
                           constant long* index [[buffer(1)]],
                           device atomic_float* out [[buffer(2)]],
                           constant long& nsrc [[buffer(3)]],
                           constant long& cols [[buffer(4)]],
                           constant long& src_row_stride [[buffer(5)]],
                           constant long& src_col_stride [[buffer(6)]],
                           uint i [[thread_position_in_grid]]) {
  if (i >= nsrc * cols)
    return;
  const long r = i / cols, c = i % cols;
  atomic_fetch_add_explicit(&out[index[r] * cols + c],
                            src[r * src_row_stride + c * src_col_stride],
                            memory_order_relaxed);
}

// the same on a plain float buffer, each element reached through a cast
// to an atomic pointer (as c10/metal/atomic.h's callers do)
kernel void index_add_cast(constant float* src [[buffer(0)]],
                           constant long* index [[buffer(1)]],
                           device float* out [[buffer(2)]],
                           constant long& nsrc [[buffer(3)]],
                           constant long& cols [[buffer(4)]],
                           constant long& src_row_stride [[buffer(5)]],
                           constant long& src_col_stride [[buffer(6)]],
                           uint i [[thread_position_in_grid]]) {
  if (i >= nsrc * cols)
    return;
  const long r = i / cols, c = i % cols;
  device atomic_float* o = (device atomic_float*)(out + index[r] * cols + c);
  atomic_fetch_add_explicit(o, src[r * src_row_stride + c * src_col_stride],
                            memory_order_relaxed);
}

// a histogram of x % nbins: each group counts into threadgroup atomics,
// then adds its counts into out's atomics (pointer arithmetic this time)
kernel void histogram(constant int* x [[buffer(0)]],
                      device atomic_int* out [[buffer(1)]],
                      constant long& n [[buffer(2)]],
                      constant long& nbins [[buffer(3)]],
                      uint lid [[thread_position_in_threadgroup]],
                      uint width [[threads_per_threadgroup]],
                      uint i [[thread_position_in_grid]]) {
  threadgroup atomic_int bins[64];
  for (uint b = lid; b < nbins; b += width)
    atomic_store_explicit(&bins[b], 0, memory_order_relaxed);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (i < n)
    atomic_fetch_add_explicit(&bins[x[i] % nbins], 1, memory_order_relaxed);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (uint b = lid; b < nbins; b += width)
    atomic_fetch_add_explicit(out + b, atomic_load_explicit(&bins[b], memory_order_relaxed),
                              memory_order_relaxed);
}
"""

device = "mps" if torch.backends.mps.is_available() else "cpu"
lib = torch.mps.compile_shader(SOURCE)
torch.manual_seed(0)


def show(what, good):
    print("%-44s %s" % (what, "ok" if good else "MISMATCH"))


def cumsum(x, group, what):
    rows, n = x.shape
    out = torch.full((rows, n), -1.0, device=device)
    lib.cumsum_row(x, out, n, x.stride(0), x.stride(1), threads=rows * group, group_size=group)
    show("cumsum " + what, torch.allclose(out, torch.cumsum(x, 1), rtol=1e-5, atol=1e-5))


def sort(x, group, what):
    rows, n = x.shape
    values = torch.full((rows, n), -1.0, device=device)
    indices = torch.full((rows, n), -1, dtype=torch.long, device=device)
    lib.sort_row(x, values, indices, n, x.stride(0), x.stride(1),
                 threads=rows * group, group_size=group)
    ref = torch.sort(x, dim=1, stable=True)
    show("sort " + what, torch.equal(values, ref.values) and torch.equal(indices, ref.indices))


def index_add(out, index, src, group, what):
    ref = out.clone().index_add_(0, index, src)
    rows, cols = src.shape
    out2 = out.clone()
    lib.index_add_rows(src, index, out, rows, cols, src.stride(0), src.stride(1),
                       threads=max(rows * cols, 1), group_size=group)
    show("index_add_ " + what, torch.allclose(out, ref, rtol=1e-5, atol=1e-5))
    lib.index_add_cast(src, index, out2, rows, cols, src.stride(0), src.stride(1),
                       threads=max(rows * cols, 1), group_size=group)
    show("index_add_ (cast) " + what, torch.allclose(out2, ref, rtol=1e-5, atol=1e-5))


cumsum(torch.rand(3, 1000, device=device), 256, "3 x 1000, groups of 256 (4 tiles)")
cumsum(torch.rand(2, 100, device=device), 96, "2 x 100, groups of 96 (3 SIMD)")
cumsum(torch.rand(4, 45, device=device), 40, "4 x 45, groups of 40 (partial SIMD)")
cumsum(torch.rand(1, 1, device=device), 32, "1 x 1")
cumsum(torch.rand(2, 0, device=device), 32, "2 x 0 (empty rows)")
cumsum(torch.rand(70, 5, device=device).t(), 64, "transposed 5 x 70")
sort(torch.randn(3, 200, device=device), 256, "3 x 200, groups of 256")
sort(torch.randint(0, 4, (2, 50), device=device).float(), 64, "2 x 50 with ties (stable)")
sort(torch.randn(5, 7, device=device), 8, "5 x 7, groups of 8")
sort(torch.randn(1, 1, device=device), 1, "1 x 1")
sort(torch.randn(0, 4, device=device), 4, "0 x 4 (no rows)")
sort(torch.randn(90, 4, device=device).t(), 128, "transposed 4 x 90")
index_add(torch.zeros(5, 3, device=device), torch.randint(0, 5, (200,), device=device),
          torch.rand(200, 3, device=device), 64, "200 rows into 5 (repeated)")
index_add(torch.rand(4, 1, device=device), torch.tensor([2], device=device),
          torch.rand(1, 1, device=device), 32, "one element")
index_add(torch.rand(3, 2, device=device), torch.zeros(0, dtype=torch.long, device=device),
          torch.rand(0, 2, device=device), 32, "no rows")
index_add(torch.zeros(6, 4, device=device), torch.tensor([5, 0, 5, 1, 5], device=device),
          torch.rand(4, 5, device=device).t(), 8, "transposed 5 x 4")
x = torch.randint(0, 1000, (1000,), dtype=torch.int32, device=device)
for n, nbins, group in ((1000, 10, 128), (1, 3, 32), (0, 5, 32), (77, 64, 32)):
    out = torch.zeros(nbins, dtype=torch.int32, device=device)
    lib.histogram(x, out, n, nbins, threads=max(n, 1), group_size=group)
    ref = torch.bincount((x[:n] % nbins).long(), minlength=nbins).int()
    show("histogram of %d into %d bins, groups of %d" % (n, nbins, group), torch.equal(out, ref))
