// Demo CUDA kernels of the whole-tensor reductions max and min.
//
// Made up for the metal-kernel examples: one block of 512 threads folds
// the tensor, each thread a strided part, then a shared-memory tree.
#include <ATen/Dispatch.h>
#include <ATen/cuda/CUDAContext.h>

namespace at::native {
namespace {

template <typename scalar_t>
__global__ void max_all_kernel(const scalar_t* in, scalar_t* out, int64_t n) {
  __shared__ float part[512];
  float acc = static_cast<float>(in[0]);
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    const float v = static_cast<float>(in[i]);
    acc = (v != v || v > acc) ? v : acc;
  }
  part[threadIdx.x] = acc;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if (threadIdx.x < k) {
      const float v = part[threadIdx.x + k];
      part[threadIdx.x] = (v != v || v > part[threadIdx.x]) ? v : part[threadIdx.x];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    *out = static_cast<scalar_t>(part[0]);
  }
}

} // namespace

Tensor max_cuda(const Tensor& self) {
  TORCH_CHECK(self.numel() > 0, "max(): Expected reduction dim to be specified for input.numel() == 0.");
  Tensor result = at::empty({}, self.options());
  const Tensor input = self.contiguous();
  AT_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, input.scalar_type(), "max_all_cuda", [&] {
    max_all_kernel<scalar_t><<<1, 512>>>(input.const_data_ptr<scalar_t>(),
                                         result.mutable_data_ptr<scalar_t>(), input.numel());
  });
  return result;
}

} // namespace at::native
