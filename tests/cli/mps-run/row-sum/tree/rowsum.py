# A row sum the way main's reduction kernels are written: each thread sums
# a strided part of its row, simd_sum folds each SIMD-group, lane 0 of each
# SIMD-group leaves its value in threadgroup memory, and after a barrier
# the first SIMD-group folds those.  Compared with torch.sum on rows of
# many lengths: partial groups, one element, empty rows, no rows, a view
# with a storage offset and a transposed (non-contiguous) view.
import torch

SOURCE = """
#include <metal_stdlib>
using namespace metal;

kernel void row_sum(constant float* x [[buffer(0)]],
                    device float* out [[buffer(1)]],
                    constant long& ncols [[buffer(2)]],
                    constant long& row_stride [[buffer(3)]],
                    constant long& col_stride [[buffer(4)]],
                    uint lid [[thread_position_in_threadgroup]],
                    uint row [[threadgroup_position_in_grid]],
                    uint width [[threads_per_threadgroup]],
                    uint lane [[thread_index_in_simdgroup]],
                    uint sg [[simdgroup_index_in_threadgroup]]) {
  threadgroup float partial[32];
  float acc = 0.0;
  for (long c = lid; c < ncols; c += width)
    acc += x[row * row_stride + c * col_stride];
  acc = simd_sum(acc);
  if (lane == 0)
    partial[sg] = acc;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (sg == 0) {
    uint groups = (width + 31) / 32;
    float v = lane < groups ? partial[lane] : 0.0;
    v = simd_sum(v);
    if (lane == 0)
      out[row] = v;
  }
}
"""

device = "mps" if torch.backends.mps.is_available() else "cpu"
lib = torch.mps.compile_shader(SOURCE)
torch.manual_seed(0)


def check(x, group, what):
    rows = x.shape[0]
    out = torch.full((rows,), -1.0, device=device)
    lib.row_sum(x, out, x.shape[1], x.stride(0), x.stride(1),
                threads=rows * group, group_size=group)
    ref = x.sum(1)
    good = torch.allclose(out, ref, rtol=1e-5, atol=1e-5)
    print("%-34s %s" % (what, "ok" if good else "MISMATCH %s %s" % (out.tolist(), ref.tolist())))


check(torch.rand(3, 100, device=device), 64, "3 x 100, groups of 64")
check(torch.rand(5, 1000, device=device), 256, "5 x 1000, groups of 256")
check(torch.rand(4, 37, device=device), 96, "4 x 37, groups of 96 (3 SIMD)")
check(torch.rand(1, 1, device=device), 32, "1 x 1")
check(torch.rand(2, 0, device=device), 32, "2 x 0 (empty rows)")
check(torch.rand(0, 8, device=device), 32, "0 x 8 (no rows)")
check(torch.rand(6, 50, device=device)[2:], 64, "a view from row 2 (storage offset)")
check(torch.rand(40, 7, device=device).t(), 32, "transposed 7 x 40")
