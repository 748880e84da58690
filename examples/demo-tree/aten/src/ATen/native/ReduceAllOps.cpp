// Demo CPU kernels of the whole-tensor reductions max and min.
//
// Made up for the metal-kernel examples; laid out like PyTorch's own
// ReduceAllOps.cpp, but each operator has its own function here.
#include <ATen/Dispatch.h>
#include <ATen/core/Tensor.h>

namespace at::native {

// the largest element; NaN when any element is NaN
template <typename scalar_t, typename Op>
static scalar_t reduce_all_loop(const Tensor& input, scalar_t init, Op op) {
  const scalar_t* data = input.const_data_ptr<scalar_t>();
  scalar_t acc = init;
  for (int64_t i = 0; i < input.numel(); i++) {
    acc = op(acc, data[i]);
  }
  return acc;
}

Tensor max_cpu(const Tensor& self) {
  TORCH_CHECK(self.numel() > 0, "max(): Expected reduction dim to be specified for input.numel() == 0.");
  Tensor result = at::empty({}, self.options());
  const Tensor input = self.contiguous();
  AT_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, input.scalar_type(), "max_all", [&] {
    result.fill_(reduce_all_loop<scalar_t>(input, input.const_data_ptr<scalar_t>()[0],
        [](scalar_t a, scalar_t b) { return (a != a || a > b) ? a : b; }));
  });
  return result;
}

Tensor min_cpu(const Tensor& self) {
  TORCH_CHECK(self.numel() > 0, "min(): Expected reduction dim to be specified for input.numel() == 0.");
  Tensor result = at::empty({}, self.options());
  const Tensor input = self.contiguous();
  AT_DISPATCH_FLOATING_TYPES_AND2(kHalf, kBFloat16, input.scalar_type(), "min_all", [&] {
    result.fill_(reduce_all_loop<scalar_t>(input, input.const_data_ptr<scalar_t>()[0],
        [](scalar_t a, scalar_t b) { return (a != a || a < b) ? a : b; }));
  });
  return result;
}

} // namespace at::native
