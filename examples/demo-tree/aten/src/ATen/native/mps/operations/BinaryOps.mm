// Demo legacy (MPSGraph) binary operators for the metal-kernel skill.
//
// Made up for the examples; laid out like PyTorch's older binary op file.
// Everything here builds an MPSGraph per dtype/shape key and caches it. The
// native Metal path lives in BinaryKernel.mm / kernels/BinaryKernel.metal.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/ScalarOps.h>
#include <ATen/native/BinaryOps.h>
#include <ATen/native/mps/OperationUtils.h>

#ifndef AT_PER_OPERATOR_HEADERS
#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#else
#include <ATen/ops/atan2_native.h>
#include <ATen/ops/div_native.h>
#endif

namespace at::native {
namespace mps {

struct TwoInputGraph : public MPSCachedGraph {
  TwoInputGraph(MPSGraph* graph) : MPSCachedGraph(graph) {}
  MPSGraphTensor* lhsTensor = nil;
  MPSGraphTensor* rhsTensor = nil;
  MPSGraphTensor* outputTensor = nil;
};

typedef MPSGraphTensor* (^TwoInputBody)(TwoInputGraph*, MPSGraphTensor*, MPSGraphTensor*);
#define BinaryOpFn(graph, primary, secondary) \
  MPSGraphTensor*(mps::TwoInputGraph * graph, MPSGraphTensor * primary, MPSGraphTensor * secondary)

// Looks up (or builds) the graph for op_name and these tensors, then runs it.
static void binaryOpTensor(const Tensor& self,
                           const Tensor& other,
                           const Tensor& output,
                           const std::string& op_name,
                           TwoInputBody body) {
  if (output.numel() == 0) {
    return;
  }
  MPSStream* stream = getCurrentMPSStream();
  @autoreleasepool {
    const std::string key = op_name + getTensorsStringKey({self, other, output});
    auto cachedGraph = LookUpOrCreateCachedGraph<TwoInputGraph>(
        key, ^(MPSGraph* mpsGraph, TwoInputGraph* newCachedGraph) {
          newCachedGraph->lhsTensor = mpsGraphRankedPlaceHolder(mpsGraph, self);
          newCachedGraph->rhsTensor = mpsGraphRankedPlaceHolder(mpsGraph, other);
          newCachedGraph->outputTensor =
              body(newCachedGraph, newCachedGraph->lhsTensor, newCachedGraph->rhsTensor);
        });
    Placeholder selfFeed(cachedGraph->lhsTensor, self);
    Placeholder otherFeed(cachedGraph->rhsTensor, other);
    Placeholder resultFeed(cachedGraph->outputTensor, output);
    auto feeds = dictionaryFromPlaceholders(selfFeed, otherFeed);
    runMPSGraph(stream, cachedGraph->graph(), feeds, resultFeed);
  }
}

// Shared by both div overloads: true division, or rounded toward zero or
// toward negative infinity when rounding_mode says so.
static void div_mode_template(const Tensor& self,
                              const Tensor& other,
                              std::optional<std::string_view> rounding_mode,
                              const Tensor& output,
                              const std::string& op_name) {
  TwoInputBody divBlock = ^BinaryOpFn(cachedGraph, primary, secondary) {
    MPSGraph* mpsGraph = cachedGraph->graph();
    MPSGraphTensor* quotient = [mpsGraph divisionWithPrimaryTensor:primary rhsTensor:secondary name:nil];
    if (!rounding_mode.has_value()) {
      return quotient;
    }
    if (*rounding_mode == "trunc") {
      return [mpsGraph truncateWithTensor:quotient name:nil];
    }
    TORCH_CHECK(*rounding_mode == "floor", "div: unknown rounding_mode '", *rounding_mode, "'");
    return [mpsGraph floorWithTensor:quotient name:nil];
  };
  binaryOpTensor(self, other, output, op_name + "_mps:" + std::string(rounding_mode.value_or("true")), divBlock);
}

} // namespace mps

TORCH_IMPL_FUNC(atan2_out_mps)(const Tensor& self, const Tensor& other, const Tensor& output) {
  TORCH_CHECK(self.scalar_type() != ScalarType::Long, "atan2: int64 input is not supported on MPS");
  mps::binaryOpTensor(self, other, output, "atan2", ^BinaryOpFn(cachedGraph, primary, secondary) {
    MPSGraph* mpsGraph = cachedGraph->graph();
    return [mpsGraph atan2WithPrimaryTensor:primary rhsTensor:secondary name:nil];
  });
}

TORCH_IMPL_FUNC(div_out_mode_mps)
(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode, const Tensor& output) {
  mps::div_mode_template(self, other, rounding_mode, output, "div_mode");
}

TORCH_IMPL_FUNC(div_out_mps)(const Tensor& self, const Tensor& other, const Tensor& output) {
  mps::div_mode_template(self, other, std::nullopt, output, "div");
}

} // namespace at::native
