// Demo structured meta functions and shared kernels of the binary
// operators (metal-kernel skill).
//
// Made up for the examples; laid out like PyTorch's BinaryOps.cpp.
#include <ATen/native/BinaryOps.h>

namespace at::meta {

TORCH_META_FUNC2(add, Tensor)(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  build_borrowing_binary_op(maybe_get_output(), self, other);
}

// atan2 is a "float op": integer and bool inputs give a float output
TORCH_META_FUNC(atan2)(const Tensor& self, const Tensor& other) {
  build_borrowing_binary_float_op(maybe_get_output(), self, other);
}

TORCH_META_FUNC(hypot)(const Tensor& self, const Tensor& other) {
  build_borrowing_binary_float_op(maybe_get_output(), self, other);
}

TORCH_META_FUNC(fmax)(const Tensor& self, const Tensor& other) {
  TORCH_CHECK(!isComplexType(self.scalar_type()), "fmax: complex tensors are not ordered");
  build_borrowing_binary_op(maybe_get_output(), self, other);
}

TORCH_META_FUNC2(div, Tensor)(const Tensor& self, const Tensor& other) {
  build_borrowing_binary_float_op(maybe_get_output(), self, other);
}

TORCH_META_FUNC2(div, Tensor_mode)(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  if (!rounding_mode.has_value()) {
    build_borrowing_binary_float_op(maybe_get_output(), self, other);
  } else {
    build_borrowing_binary_op(maybe_get_output(), self, other);
  }
}

} // namespace at::meta

namespace at::native {

DEFINE_DISPATCH(add_stub);
DEFINE_DISPATCH(atan2_stub);
DEFINE_DISPATCH(div_true_stub);
DEFINE_DISPATCH(div_floor_stub);
DEFINE_DISPATCH(div_trunc_stub);
DEFINE_DISPATCH(fmax_stub);
DEFINE_DISPATCH(hypot_stub);

TORCH_IMPL_FUNC(add_out)(const Tensor& self, const Tensor& other, const Scalar& alpha, const Tensor& result) {
  add_stub(device_type(), *this, alpha);
}

TORCH_IMPL_FUNC(atan2_out)(const Tensor& self, const Tensor& other, const Tensor& result) {
  atan2_stub(device_type(), *this);
}

TORCH_IMPL_FUNC(hypot_out)(const Tensor& self, const Tensor& other, const Tensor& result) {
  hypot_stub(device_type(), *this);
}

TORCH_IMPL_FUNC(fmax_out)(const Tensor& self, const Tensor& other, const Tensor& result) {
  fmax_stub(device_type(), *this);
}

TORCH_IMPL_FUNC(div_out)(const Tensor& self, const Tensor& other, const Tensor& result) {
  div_true_stub(device_type(), *this);
}

// one stub per rounding mode
TORCH_IMPL_FUNC(div_out_mode)(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode, const Tensor& result) {
  if (!rounding_mode.has_value()) {
    div_true_stub(device_type(), *this);
  } else if (*rounding_mode == "trunc") {
    div_trunc_stub(device_type(), *this);
  } else {
    div_floor_stub(device_type(), *this);
  }
}

} // namespace at::native
