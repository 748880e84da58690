// Demo legacy (MPSGraph) unary operators for the metal-kernel skill.
//
// Made up for the examples; laid out like PyTorch's older unary op file.
// Operators here still build an MPSGraph; exp already moved to
// UnaryKernel.mm and kernels/UnaryKernel.metal.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/native/UnaryOps.h>
#include <ATen/native/mps/OperationUtils.h>

#ifndef AT_PER_OPERATOR_HEADERS
#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#else
#include <ATen/ops/abs_native.h>
#include <ATen/ops/sqrt_native.h>
#endif

namespace at::native {
namespace mps {

typedef MPSGraphTensor* (^OneInputBody)(MPSGraph*, MPSGraphTensor*);

// Builds (once per key) and runs a one-input graph whose body is body.
static void unary_op(const Tensor& self, const Tensor& output, const std::string& op_name, OneInputBody body) {
  if (output.numel() == 0) {
    return;
  }
  @autoreleasepool {
    const std::string key = op_name + getTensorsStringKey({self, output});
    auto cachedGraph = LookUpOrCreateCachedGraph<OneInputGraph>(
        key, ^(MPSGraph* mpsGraph, OneInputGraph* newCachedGraph) {
          newCachedGraph->in_ = mpsGraphRankedPlaceHolder(mpsGraph, self);
          newCachedGraph->out_ = body(mpsGraph, newCachedGraph->in_);
        });
    Placeholder selfFeed(cachedGraph->in_, self);
    Placeholder resultFeed(cachedGraph->out_, output);
    auto feeds = dictionaryFromPlaceholders(selfFeed);
    runMPSGraph(getCurrentMPSStream(), cachedGraph->graph(), feeds, resultFeed);
  }
}

} // namespace mps

// One line per operator: FUNC_OUT is the structured kernel name from the
// yaml, MPSGRAPH_OP the MPSGraph method stem (squareRoot -> squareRootWithTensor).
#define CREATE_MPS_STRUCTURED_UNARY_TORCH_IMPL_FUNC(FUNC_OUT, MPSGRAPH_OP)                           \
  TORCH_IMPL_FUNC(FUNC_OUT)(const Tensor& self, const Tensor& output) {                              \
    mps::unary_op(self, output, #FUNC_OUT, ^MPSGraphTensor*(MPSGraph* mpsGraph, MPSGraphTensor* x) { \
      return [mpsGraph MPSGRAPH_OP##WithTensor:x name:nil];                                          \
    });                                                                                              \
  }

CREATE_MPS_STRUCTURED_UNARY_TORCH_IMPL_FUNC(sqrt_out_mps, squareRoot)

// abs.out is not structured, so it is a plain function with an out argument.
Tensor& abs_out_mps(const Tensor& self, Tensor& output) {
  at::native::resize_output(output, self.sizes());
  mps::unary_op(self, output, "abs_out_mps", ^MPSGraphTensor*(MPSGraph* mpsGraph, MPSGraphTensor* x) {
    return [mpsGraph absoluteWithTensor:x name:nil];
  });
  return output;
}

} // namespace at::native
