// nll_loss_forward: one threadgroup folds the whole batch (each thread a
// strided part of the rows, simd_sum per SIMD-group, then the first
// SIMD-group); the kernel the mps-run script checked, as a template
#include <metal_stdlib>
using namespace metal;

template <typename T>
kernel void nll_loss_forward(constant T* self [[buffer(0)]],
                             constant long* target [[buffer(1)]],
                             constant T* weight [[buffer(2)]],
                             device T* output [[buffer(3)]],
                             device T* total_weight [[buffer(4)]],
                             constant long& n [[buffer(5)]],
                             constant long& row_stride [[buffer(6)]],
                             constant long& col_stride [[buffer(7)]],
                             constant long& reduction [[buffer(8)]],
                             constant long& ignore_index [[buffer(9)]],
                             constant long& has_weight [[buffer(10)]],
                             uint lid [[thread_position_in_threadgroup]],
                             uint width [[threads_per_threadgroup]],
                             uint lane [[thread_index_in_simdgroup]],
                             uint sg [[simdgroup_index_in_threadgroup]]) {
  threadgroup float sums[32];
  threadgroup float wsums[32];
  float s = 0.0, ws = 0.0;
  for (long i = lid; i < n; i += width) {
    long t = target[i];
    float v = 0.0;
    if (t != ignore_index) {
      float w = has_weight ? float(weight[t]) : 1.0;
      v = -float(self[i * row_stride + t * col_stride]) * w;
      s += v;
      ws += w;
    }
    if (reduction == 0)
      output[i] = T(v);
  }
  s = simd_sum(s);
  ws = simd_sum(ws);
  if (lane == 0) {
    sums[sg] = s;
    wsums[sg] = ws;
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (sg == 0) {
    uint groups = (width + 31) / 32;
    float a = simd_sum(lane < groups ? sums[lane] : 0.0);
    float b = simd_sum(lane < groups ? wsums[lane] : 0.0);
    if (lid == 0) {
      if (reduction != 0)
        output[0] = T(reduction == 1 ? a / b : a);
      total_weight[0] = T(reduction == 0 ? 0.0 : b);
    }
  }
}

#define REGISTER_NLL_LOSS_FORWARD(T)                                        \
  template [[host_name("nll_loss_forward_" #T)]] kernel void               \
  nll_loss_forward<T>(constant T*, constant long*, constant T*, device T*, \
                      device T*, constant long&, constant long&,           \
                      constant long&, constant long&, constant long&,      \
                      constant long&, uint, uint, uint, uint);

REGISTER_NLL_LOSS_FORWARD(float);
REGISTER_NLL_LOSS_FORWARD(half);
REGISTER_NLL_LOSS_FORWARD(bfloat);
