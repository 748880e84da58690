// Fixture shaped like a kernel file from before the c10/metal kernels
// (PyTorch 2.6 and older): each op has its own file-local macro that
// instantiates one templated kernel per dtype; there is no
// REGISTER_BINARY_OP and no c10/metal header.
#include <metal_stdlib>
using namespace metal;

template <typename T>
kernel void fmax_kernel(
    constant void* a_ [[buffer(0)]],
    constant void* b_ [[buffer(1)]],
    device void* out_ [[buffer(2)]],
    uint tid [[thread_position_in_grid]]) {
  device T* out = (device T*)out_;
  out[tid] = ::metal::fmax(((constant T*)a_)[tid], ((constant T*)b_)[tid]);
}

#define INSTANTIATE_FMAX(T)                              \
  template [[host_name("fmax_" #T)]] kernel void        \
  fmax_kernel<T>(                                        \
      constant void* a_ [[buffer(0)]],                   \
      constant void* b_ [[buffer(1)]],                   \
      device void* out_ [[buffer(2)]],                   \
      uint tid [[thread_position_in_grid]])

INSTANTIATE_FMAX(float);
INSTANTIATE_FMAX(half);
