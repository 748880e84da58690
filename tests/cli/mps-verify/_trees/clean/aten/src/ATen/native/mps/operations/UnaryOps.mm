// Test fixture: MPSGraph host code that stays (cumsum keeps its own kernel).
#include <ATen/native/mps/OperationUtils.h>
#include <ATen/ops/cumsum_native.h>

namespace at::native {
namespace mps {
// A helper that builds a graph for one input and one output.
static void unary_op(const Tensor& self, const Tensor& output, std::string name, OneInputBody block) {
  auto graph = LookUpOrCreateCachedGraph<OneInputGraph>(name, [&](auto* mpsGraph, auto* newCachedGraph) {
    newCachedGraph->out_ = block(mpsGraph, newCachedGraph->in_);
  });
  runMPSGraph(getCurrentMPSStream(), graph->graph(), feeds(self), results(output));
}
} // namespace mps

TORCH_IMPL_FUNC(cumsum_out_mps)(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, const Tensor& result) {
  mps::unary_op(self, result, "cumsum_out_mps", ^MPSGraphTensor*(MPSGraph* mpsGraph, MPSGraphTensor* inputTensor) {
    return [mpsGraph cumulativeSumWithTensor:inputTensor axis:dim name:nil];
  });
}

// The old sqrt path was removed; this comment still names it:
// TORCH_IMPL_FUNC(sqrt_out_mps)(const Tensor& self, const Tensor& output) { mps::unary_op(...); }
/* REGISTER_DISPATCH(sqrt_stub, &sqrt_graph_kernel) */
#if 0
#include <ATen/ops/sqrt_native.h>
TORCH_IMPL_FUNC(sqrt_out_mps)(const Tensor& self, const Tensor& output) {
  mps::unary_op(self, output, "sqrt_out_mps", ^MPSGraphTensor*(MPSGraph* mpsGraph, MPSGraphTensor* inputTensor) {
    return [mpsGraph squareRootWithTensor:inputTensor name:nil];
  });
}
REGISTER_DISPATCH(sqrt_stub, &sqrt_out_mps)
static void cbrt_kernel(TensorIteratorBase& iter) {
  lib.exec_unary_kernel(iter, "sqrt_typo");
}
#endif
} // namespace at::native
