# Kernels written for mps-run's tests (not PyTorch's) on PyTorch 2.14.1's
# real c10/metal headers: a row sum through c10::metal::threadgroup_sum
# (reduction_utils.h, opmath_t of utils.h), instantiated for two dtypes by
# a macro; an index_add through c10::metal::AtomicType (atomic.h); an
# index check reporting through the error buffer (error.h).  Each against
# torch on the CPU, with partial groups, one element, empty and
# non-contiguous inputs.
import torch

SOURCE = r"""
#include <c10/metal/atomic.h>
#include <c10/metal/error.h>
#include <c10/metal/reduction_utils.h>
#include <c10/metal/utils.h>
using namespace metal;

template <typename T>
kernel void row_sum(constant T* x [[buffer(0)]],
                    device T* out [[buffer(1)]],
                    constant long& n [[buffer(2)]],
                    constant long& stride [[buffer(3)]],
                    uint row [[threadgroup_position_in_grid]],
                    uint t [[thread_position_in_threadgroup]],
                    uint size [[threads_per_threadgroup]]) {
  threadgroup c10::metal::opmath_t<T> part[32];
  c10::metal::opmath_t<T> acc = 0;
  for (long i = t; i < n; i += size)
    acc += x[row * stride + i];
  auto total = c10::metal::threadgroup_sum<c10::metal::opmath_t<T>>(part, acc, t, size);
  if (t == 0)
    out[row] = static_cast<T>(total);
}

#define INSTANTIATE_ROW_SUM(DTYPE)                                          \
  template [[host_name("row_sum_" #DTYPE)]] kernel void row_sum<DTYPE>(     \
      constant DTYPE * x [[buffer(0)]], device DTYPE * out [[buffer(1)]],   \
      constant long& n [[buffer(2)]], constant long& stride [[buffer(3)]], \
      uint row [[threadgroup_position_in_grid]],                           \
      uint t [[thread_position_in_threadgroup]],                           \
      uint size [[threads_per_threadgroup]])

INSTANTIATE_ROW_SUM(float);
INSTANTIATE_ROW_SUM(half);

kernel void index_add(device c10::metal::AtomicType_t<float>* out [[buffer(0)]],
                      constant long* index [[buffer(1)]],
                      constant float* src [[buffer(2)]],
                      constant long& count [[buffer(3)]],
                      uint i [[thread_position_in_grid]]) {
  if (i >= count)
    return;
  c10::metal::AtomicType<float>::atomic_add(out, index[i], src[i]);
}

kernel void checked_take(device float* out [[buffer(0)]],
                         constant float* x [[buffer(1)]],
                         constant long* index [[buffer(2)]],
                         constant long& size [[buffer(3)]],
                         device c10::metal::ErrorMessages* error [[buffer(4)]],
                         uint i [[thread_position_in_grid]]) {
  long k = index[i];
  if (k < 0 || k >= size) {
    TORCH_REPORT_ERROR(error, "index ", k, " is out of bounds for size ", size);
    return;
  }
  out[i] = x[k];
}
"""

lib = torch.mps.compile_shader(SOURCE)


def row_sum(x, group):
    rows, n = x.shape
    out = torch.zeros(rows, dtype=x.dtype)
    kernel = getattr(lib, "row_sum_" + {torch.float: "float", torch.half: "half"}[x.dtype])
    kernel(x, out, n, x.stride(0), threads=rows * group, group_size=group)
    return out


def show(what, ok):
    print("%-40s %s" % (what, "ok" if ok else "MISMATCH"))


for dtype in (torch.float, torch.half):
    tol = 1e-5 if dtype == torch.float else 1e-2
    for rows, n, group in ((3, 100, 64), (2, 1000, 256), (4, 37, 96), (1, 1, 32), (2, 0, 32)):
        x = torch.linspace(-2, 3, rows * n).reshape(rows, n).to(dtype)
        got = row_sum(x, group)
        show("row_sum %s %d x %d, groups of %d" % (str(dtype)[6:], rows, n, group),
             torch.allclose(got.float(), x.float().sum(1), rtol=tol, atol=tol))
    x = torch.linspace(-1, 1, 6 * 50).reshape(6, 50).to(dtype)[2:]
    show("row_sum %s rows 2..5 of 6 x 50 (offset)" % str(dtype)[6:],
         torch.allclose(row_sum(x, 64).float(), x.float().sum(1), rtol=tol, atol=tol))
    x = torch.linspace(-1, 1, 6 * 50).reshape(6, 50).to(dtype)[:, 3:]
    show("row_sum %s columns 3.. of 6 x 50 (strided)" % str(dtype)[6:],
         torch.allclose(row_sum(x, 32).float(), x.float().sum(1), rtol=tol, atol=tol))

for m, count in ((10, 1000), (1, 7), (5, 0)):
    index = torch.arange(count) * 7 % m if count else torch.zeros(0, dtype=torch.long)
    src = torch.linspace(0, 1, count)
    out = torch.zeros(m)
    lib.index_add(out, index, src, count, threads=max(count, 1), group_size=64)
    want = torch.zeros(m).index_add_(0, index, src)
    show("index_add %d into %d" % (count, m), torch.allclose(out, want, atol=1e-5))

x = torch.arange(8, dtype=torch.float)
out = torch.zeros(3)
lib.checked_take(out, x, torch.tensor([7, 0, 3]), 8, error_buf_idx=4)
show("checked_take in bounds", out.tolist() == [7.0, 0.0, 3.0])
try:
    lib.checked_take(out, x, torch.tensor([1, 9, 2]), 8, error_buf_idx=4)
    print("checked_take out of bounds: no exception")
except RuntimeError as e:  # torch.AcceleratorError where torch has it
    print("checked_take out of bounds raised: %s" % str(e).splitlines()[0])
