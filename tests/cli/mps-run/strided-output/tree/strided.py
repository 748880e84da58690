# unwritten-output on output views that do not cover their storage: a
# kernel doubling x into a strided view (every other column of a wider
# tensor) and into a slice of a longer one.  The check counts the view's
# elements only: no warning when every one is written; when the threads
# stop one row short, a warning with the view's count (2 of 12), not the
# storage's.
import torch

SOURCE = """
#include <metal_stdlib>
using namespace metal;
kernel void twice_2d(constant float* x [[buffer(0)]],
                     device float* out [[buffer(1)]],
                     constant long& cols [[buffer(2)]],
                     constant long& row_stride [[buffer(3)]],
                     constant long& col_stride [[buffer(4)]],
                     uint i [[thread_position_in_grid]]) {
  const long r = i / cols, c = i % cols;
  out[r * row_stride + c * col_stride] = 2.0 * x[i];
}
"""

lib = torch.mps.compile_shader(SOURCE)
x = torch.arange(12, dtype=torch.float32)
for name, rows in (("every element", 6), ("one row short", 5)):
    base = torch.full((6, 4), -1.0)
    view = base[:, ::2]  # 6 x 2, strides (4, 2): half of the storage
    lib.twice_2d(x, view, 2, view.stride(0), view.stride(1), threads=rows * 2, group_size=4)
    ok = torch.equal(view[:rows], 2 * x[:rows * 2].view(rows, 2)) and bool((base[:, 1::2] == -1).all())
    print("strided view, %-14s %s" % (name, "ok" if ok else "MISMATCH"))
# a contiguous slice from element 3 of 10: the storage runs on past it
base = torch.full((10,), -1.0)
view = base[3:6]
lib.twice_2d(x, view, 3, 3, 1, threads=3, group_size=3)
print("slice [3:6]                 %s" % ("ok" if torch.equal(base[3:6], 2 * x[:3]) else "MISMATCH"))
# a transposed view covers all its storage, but not in order: the view's
# count too (2 of its 6 elements unwritten when 2 of its 3 rows are)
base = torch.full((2, 3), -1.0)
view = base.t()
lib.twice_2d(x, view, 2, view.stride(0), view.stride(1), threads=4, group_size=4)
print("transposed, 2 of 3 rows     %s" % ("ok" if torch.equal(view[:2], 2 * x[:4].view(2, 2)) else "MISMATCH"))
