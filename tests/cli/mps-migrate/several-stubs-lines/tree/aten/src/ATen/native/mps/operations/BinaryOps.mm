// Fixture: division still on MPSGraph, shaped like PyTorch's BinaryOps.mm
// (our own text).
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/native/BinaryOps.h>
#include <ATen/native/mps/OperationUtils.h>
#ifndef AT_PER_OPERATOR_HEADERS
#include <ATen/Functions.h>
#else
#include <ATen/ops/div_native.h>
#endif

namespace at::native {
namespace mps {
static void div_mode_template(const Tensor& self, const Tensor& other, std::optional<c10::string_view> rounding_mode, const Tensor& output, const std::string& op_name) {
  BinaryOpBlock div_mode_op_block = ^BinaryOpFn(cachedGraph, primaryCastTensor, secondaryCastTensor) {
    MPSGraph* mpsGraph = cachedGraph->graph();
    return [mpsGraph divisionWithPrimaryTensor:primaryCastTensor secondaryTensor:secondaryCastTensor name:nil];
  };
  binaryOpTensor(self, other, output, op_name + "_mps:" + rounding_mode.value_or(""), div_mode_op_block);
}
} // namespace mps

TORCH_IMPL_FUNC(div_out_mode_mps)(const Tensor& self, const Tensor& other, std::optional<c10::string_view> rounding_mode, const Tensor& output) {
  mps::div_mode_template(self, other, rounding_mode, output, "div_mode_out");
}

TORCH_IMPL_FUNC(div_out_mps)(const Tensor& self, const Tensor& other, const Tensor& output) {
  mps::div_mode_template(self, other, std::nullopt, output, "div_out");
}

} // namespace at::native
