// Demo structured meta functions and shared kernels of the unary operators
// (metal-kernel skill).
//
// Made up for the examples; laid out like PyTorch's UnaryOps.cpp. The meta
// function decides the output dtype; the shared kernel calls the stub, and
// each device (CPU, CUDA, MPS) fills the stub with its own kernel.
#include <ATen/native/UnaryOps.h>

namespace at::meta {

// "float ops": integer and bool inputs give a float output
#define CREATE_UNARY_FLOAT_META_FUNC(func)                  \
  TORCH_META_FUNC(func)(const Tensor& self) {               \
    build_borrowing_unary_float_op(maybe_get_output(), self); \
  }

CREATE_UNARY_FLOAT_META_FUNC(exp)
CREATE_UNARY_FLOAT_META_FUNC(sqrt)
CREATE_UNARY_FLOAT_META_FUNC(i0)

} // namespace at::meta

namespace at::native {

DEFINE_DISPATCH(abs_stub);
DEFINE_DISPATCH(exp_stub);
DEFINE_DISPATCH(i0_stub);
DEFINE_DISPATCH(sqrt_stub);

#define CREATE_UNARY_TORCH_IMPL_FUNC(func_out, func_stub)             \
  TORCH_IMPL_FUNC(func_out)(const Tensor& self, const Tensor& result) { \
    func_stub(device_type(), *this);                                  \
  }

CREATE_UNARY_TORCH_IMPL_FUNC(exp_out, exp_stub)
CREATE_UNARY_TORCH_IMPL_FUNC(sqrt_out, sqrt_stub)
CREATE_UNARY_TORCH_IMPL_FUNC(i0_out, i0_stub)

// abs.out is not structured: a plain function that builds the iterator
Tensor& abs_out(const Tensor& self, Tensor& result) {
  auto iter = TensorIterator::unary_op(result, self);
  abs_stub(iter.device_type(), iter);
  return result;
}

} // namespace at::native
