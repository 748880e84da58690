# Sources as current main writes them (our own kernels): a template with a
# two-dimensional threadgroup array, instantiated by a macro with
# `[[kernel]] void`; a plain [[kernel]] with a scalar bound through
# arg_casts; the same column sum with its barrier left out (race on the
# 2-D array, reported at its flat index).
import torch

SOURCE = r"""
#include <metal_stdlib>
using namespace metal;

template <typename T, uint TX, uint TY, bool SYNC>
[[max_total_threads_per_threadgroup(TX * TY)]] [[kernel]] void
col_sum(constant T* x, device T* out, constant uint2& sizes,
        uint2 tid [[thread_position_in_threadgroup]],
        uint2 tg [[threadgroup_position_in_grid]]) {
  const uint M = sizes.x, N = sizes.y;
  const uint col = tg.x * TX + tid.x;
  float acc = 0;
  for (uint r = tid.y; col < N && r < M; r += TY)
    acc += float(x[r * N + col]);
  threadgroup float part[TY][TX];
  part[tid.y][tid.x] = acc;
  if (SYNC)
    threadgroup_barrier(mem_flags::mem_threadgroup);
  for (uint s = TY / 2; s > 0; s >>= 1) {
    if (tid.y < s)
      part[tid.y][tid.x] += part[tid.y + s][tid.x];
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  if (tid.y == 0 && col < N)
    out[col] = T(part[0][tid.x]);
}

#define REGISTER_COL_SUM(DTYPE, NAME, SYNC)                        \
  template [[host_name(#NAME "_" #DTYPE)]] [[kernel]] void         \
  col_sum<DTYPE, 8, 4, SYNC>(constant DTYPE * x, device DTYPE * out, \
      constant uint2 & sizes,                                      \
      uint2 tid [[thread_position_in_threadgroup]],                \
      uint2 tg [[threadgroup_position_in_grid]]);

REGISTER_COL_SUM(float, col_sum, true);
REGISTER_COL_SUM(half, col_sum, true);
REGISTER_COL_SUM(float, col_sum_no_barrier, false);

[[kernel]] void scale(device half* out, constant half& k,
                      uint i [[thread_position_in_grid]]) {
  out[i] *= k;
}
"""

lib = torch.mps.compile_shader(SOURCE)
print(sorted(dir(lib)))


def col_sum(kernel, x):
    m, n = x.shape
    out = torch.zeros(n, dtype=x.dtype)
    kernel(x, out, [m, n], threads=[(n + 7) // 8 * 8, 4], group_size=[8, 4], arg_casts="int32")
    return out


for m, n in ((37, 21), (1, 1), (5, 8), (0, 3)):
    x = torch.linspace(-3, 3, m * n).reshape(m, n)
    print("col_sum_float %d x %d" % (m, n), "ok" if torch.allclose(col_sum(lib.col_sum_float, x), x.sum(0), atol=1e-5) else "MISMATCH")
    xh = x.half()
    print("col_sum_half %d x %d" % (m, n), "ok" if torch.allclose(col_sum(lib.col_sum_half, xh).float(), xh.float().sum(0), atol=1e-2) else "MISMATCH")

y = torch.ones(5, dtype=torch.half)
lib.scale(y, 2.5, arg_casts={1: "fp16"})
print("scale by an fp16 scalar:", y.tolist())

col_sum(lib.col_sum_no_barrier_float, torch.ones(4, 8))
