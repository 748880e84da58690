# Row kernels the way main's softmax, norm and loss kernels are written,
# each compared with torch on the CPU: a two-pass softmax (max, then the
# sum of exponentials) over a strided dimension with a threadgroup tree
# along y; a layer norm (mean, then variance, per row) with simd_sum and
# a threadgroup array of SIMD partials; an nll loss with class weights and
# an ignore_index, one group folding every sample.  Sizes: partial groups,
# one element, empty, and non-contiguous views.  One library, one compile.
import torch
import torch.nn.functional as F

SOURCE = """
#include <metal_stdlib>
using namespace metal;

// softmax over dim 0 of x (rows x cols, any strides): a 2-D grid, x the
// column, y the threads of one column's reduction; a threadgroup tree
// along y for the max, then for the sum.  out is contiguous.
kernel void softmax_dim0(constant float* x [[buffer(0)]],
                         device float* out [[buffer(1)]],
                         constant long& rows [[buffer(2)]],
                         constant long& cols [[buffer(3)]],
                         constant long& row_stride [[buffer(4)]],
                         constant long& col_stride [[buffer(5)]],
                         uint2 tid [[thread_position_in_threadgroup]],
                         uint2 tptg [[threads_per_threadgroup]],
                         uint2 gid [[thread_position_in_grid]]) {
  threadgroup float shared[1024];
  const long col = gid.x; // not tgid.x * tptg.x + tid.x: a partial group has fewer threads
  const bool active = col < cols;
  const uint me = tid.y * tptg.x + tid.x;
  float m = -INFINITY;
  for (long r = tid.y; active && r < rows; r += tptg.y)
    m = max(m, x[r * row_stride + col * col_stride]);
  shared[me] = m;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (uint s = tptg.y / 2; s > 0; s /= 2) {
    if (tid.y < s)
      shared[me] = max(shared[me], shared[me + s * tptg.x]);
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  m = shared[tid.x];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  float sum = 0.0f;
  for (long r = tid.y; active && r < rows; r += tptg.y)
    sum += precise::exp(x[r * row_stride + col * col_stride] - m);
  shared[me] = sum;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (uint s = tptg.y / 2; s > 0; s /= 2) {
    if (tid.y < s)
      shared[me] += shared[me + s * tptg.x];
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  const float inv = 1.0f / shared[tid.x];
  for (long r = tid.y; active && r < rows; r += tptg.y)
    out[r * cols + col] = precise::exp(x[r * row_stride + col * col_stride] - m) * inv;
}

// layer norm over the last dim: one group per row; the mean, then the
// variance around it, each a simd_sum and a threadgroup array of the
// SIMD-groups' partials that every thread folds.
kernel void layer_norm_row(constant float* x [[buffer(0)]],
                           constant float* weight [[buffer(1)]],
                           constant float* bias [[buffer(2)]],
                           device float* out [[buffer(3)]],
                           constant long& n [[buffer(4)]],
                           constant long& row_stride [[buffer(5)]],
                           constant long& col_stride [[buffer(6)]],
                           constant float& eps [[buffer(7)]],
                           uint lid [[thread_position_in_threadgroup]],
                           uint row [[threadgroup_position_in_grid]],
                           uint width [[threads_per_threadgroup]],
                           uint lane [[thread_index_in_simdgroup]],
                           uint sg [[simdgroup_index_in_threadgroup]],
                           uint nsg [[simdgroups_per_threadgroup]]) {
  threadgroup float part[32];
  constant float* xr = x + row * row_stride;
  float s = 0.0f;
  for (long c = lid; c < n; c += width)
    s += xr[c * col_stride];
  s = simd_sum(s);
  if (lane == 0)
    part[sg] = s;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  float total = 0.0f;
  for (uint i = 0; i < nsg; i++)
    total += part[i];
  const float mean = total / n;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  float q = 0.0f;
  for (long c = lid; c < n; c += width) {
    float d = xr[c * col_stride] - mean;
    q += d * d;
  }
  q = simd_sum(q);
  if (lane == 0)
    part[sg] = q;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  float var = 0.0f;
  for (uint i = 0; i < nsg; i++)
    var += part[i];
  const float rstd = rsqrt(var / n + eps);
  for (long c = lid; c < n; c += width)
    out[row * n + c] = (xr[c * col_stride] - mean) * rstd * weight[c] + bias[c];
}

// nll loss with class weights and ignore_index: one group; each thread
// folds a strided part of the samples (loss and weight), simd_sum, the
// SIMD-groups' partials in threadgroup memory, thread 0 writes the sum
// and the weight total; out = {sum of losses, sum of weights}.
kernel void nll_loss_fold(constant float* logp [[buffer(0)]],
                          constant long* target [[buffer(1)]],
                          constant float* weight [[buffer(2)]],
                          device float* out [[buffer(3)]],
                          constant long& nsamples [[buffer(4)]],
                          constant long& sample_stride [[buffer(5)]],
                          constant long& class_stride [[buffer(6)]],
                          constant long& ignore_index [[buffer(7)]],
                          uint lid [[thread_position_in_threadgroup]],
                          uint width [[threads_per_threadgroup]],
                          uint lane [[thread_index_in_simdgroup]],
                          uint sg [[simdgroup_index_in_threadgroup]],
                          uint nsg [[simdgroups_per_threadgroup]]) {
  threadgroup float loss_part[32];
  threadgroup float weight_part[32];
  float loss = 0.0f, wsum = 0.0f;
  for (long i = lid; i < nsamples; i += width) {
    const long t = target[i];
    if (t == ignore_index)
      continue;
    const float w = weight[t];
    loss -= w * logp[i * sample_stride + t * class_stride];
    wsum += w;
  }
  loss = simd_sum(loss);
  wsum = simd_sum(wsum);
  if (lane == 0) {
    loss_part[sg] = loss;
    weight_part[sg] = wsum;
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (lid == 0) {
    float l = 0.0f, w = 0.0f;
    for (uint i = 0; i < nsg; i++) {
      l += loss_part[i];
      w += weight_part[i];
    }
    out[0] = l;
    out[1] = w;
  }
}
"""

device = "mps" if torch.backends.mps.is_available() else "cpu"
lib = torch.mps.compile_shader(SOURCE)
torch.manual_seed(0)


def show(what, got, ref):
    good = torch.allclose(got.cpu(), ref.cpu(), rtol=1e-5, atol=1e-6, equal_nan=True)
    print("%-40s %s" % (what, "ok" if good else "MISMATCH\n%s\n%s" % (got, ref)))


def softmax(x, gx, gy, what):
    rows, cols = x.shape
    out = torch.full((rows, cols), -1.0, device=device)
    lib.softmax_dim0(x, out, rows, cols, x.stride(0), x.stride(1),
                     threads=[cols, gy], group_size=[gx, gy])
    show("softmax " + what, out, torch.softmax(x, 0))


def layer_norm(x, group, what):
    rows, n = x.shape
    w = torch.rand(n, device=device) + 0.5
    b = torch.rand(n, device=device) - 0.5
    out = torch.full((rows, n), -1.0, device=device)
    lib.layer_norm_row(x, w, b, out, n, x.stride(0), x.stride(1), 1e-5,
                       threads=rows * group, group_size=group)
    show("layer_norm " + what, out, torch.layer_norm(x, (n,), w, b, 1e-5))


def nll(logp, target, weight, ignore, group, what):
    out = torch.full((2,), -1.0, device=device)
    lib.nll_loss_fold(logp, target, weight, out, target.numel(), logp.stride(0),
                      logp.stride(1), ignore, threads=group, group_size=group)
    ref_sum = F.nll_loss(logp, target, weight=weight, ignore_index=ignore, reduction="sum")
    ref_mean = F.nll_loss(logp, target, weight=weight, ignore_index=ignore, reduction="mean")
    show("nll_loss sum " + what, out[0], ref_sum)
    show("nll_loss mean " + what, out[0] / out[1], ref_mean)


softmax(torch.randn(100, 37, device=device), 16, 8, "100 x 37, groups 16 x 8")
softmax(torch.randn(5, 3, device=device), 4, 4, "5 x 3, groups 4 x 4")
softmax(torch.randn(1, 1, device=device), 1, 1, "1 x 1")
softmax(torch.randn(9, 0, device=device), 8, 2, "9 x 0 (empty)")
softmax(torch.randn(20, 30, device=device).t(), 8, 16, "transposed 30 x 20")
layer_norm(torch.randn(3, 100, device=device), 64, "3 x 100, groups of 64")
layer_norm(torch.randn(2, 1000, device=device), 256, "2 x 1000, groups of 256")
layer_norm(torch.randn(4, 37, device=device), 96, "4 x 37, groups of 96")
layer_norm(torch.randn(1, 1, device=device), 32, "1 x 1")
layer_norm(torch.randn(0, 5, device=device), 32, "0 x 5 (no rows)")
layer_norm(torch.randn(50, 6, device=device).t(), 32, "transposed 6 x 50")
lp = torch.log_softmax(torch.randn(300, 7, device=device), 1)
tg = torch.randint(0, 7, (300,), device=device)
wt = torch.rand(7, device=device) + 0.1
nll(lp, tg, wt, 3, 128, "300 x 7, ignore 3")
nll(lp, tg, wt, -100, 96, "300 x 7, groups of 96")
nll(lp[:1], tg[:1], wt, -100, 32, "one sample")
nll(lp[:0], tg[:0], wt, -100, 32, "no samples")
nll(lp.t().contiguous().t()[5:40], tg[5:40], wt, 2, 64, "column-major view from sample 5")
