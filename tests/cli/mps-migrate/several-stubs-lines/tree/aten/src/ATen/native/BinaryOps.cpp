// Fixture: the meta functions and shared implementations of division,
// shaped like ATen's BinaryOps.cpp (our own text).
#include <ATen/native/BinaryOps.h>

namespace at::meta {

TORCH_META_FUNC2(div, Tensor)(const Tensor& self, const Tensor& other) {
  build_borrowing_binary_float_op(maybe_get_output(), self, other);
}

TORCH_META_FUNC2(div, Tensor_mode)(const Tensor& self, const Tensor& other, std::optional<c10::string_view> rounding_mode) {
  if (!rounding_mode.has_value()) {
    build_borrowing_binary_float_op(maybe_get_output(), self, other);
  } else {
    build_borrowing_binary_op(maybe_get_output(), self, other);
  }
}

} // namespace at::meta

namespace at::native {

DEFINE_DISPATCH(div_true_stub);
DEFINE_DISPATCH(div_trunc_stub);
DEFINE_DISPATCH(div_floor_stub);

TORCH_IMPL_FUNC(div_out)(const Tensor& self, const Tensor& other, const Tensor& result) {
  div_true_stub(device_type(), *this);
}

TORCH_IMPL_FUNC(div_out_mode)(const Tensor& self, const Tensor& other, std::optional<c10::string_view> rounding_mode, const Tensor& result) {
  if (!rounding_mode.has_value()) {
    div_true_stub(device_type(), *this);
  } else if (*rounding_mode == "trunc") {
    div_trunc_stub(device_type(), *this);
  } else if (*rounding_mode == "floor") {
    div_floor_stub(device_type(), *this);
  }
}

} // namespace at::native
