// Demo legacy (MPSGraph) whole-tensor reductions for the metal-kernel skill.
//
// Made up for the examples; laid out like PyTorch's older reduction file.
// max and min both build their graph through reduce_all_graph.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/native/mps/OperationUtils.h>

#ifndef AT_PER_OPERATOR_HEADERS
#include <ATen/Functions.h>
#include <ATen/NativeFunctions.h>
#else
#include <ATen/ops/max_native.h>
#include <ATen/ops/min_native.h>
#endif

namespace at::native {
namespace mps {

typedef MPSGraphTensor* (^ReduceAllBody)(MPSGraph*, MPSGraphTensor*);

// Looks up (or builds) the graph reducing every element of self into the
// 0-dim output, then runs it.
static void reduce_all_graph(const Tensor& self, const Tensor& output, const std::string& op_name,
                             ReduceAllBody body) {
  @autoreleasepool {
    std::string key = op_name + getTensorsStringKey({self});
    auto cachedGraph = LookUpOrCreateCachedGraph<MPSUnaryCachedGraph>(key, ^(MPSGraph* mpsGraph, MPSUnaryCachedGraph* g) {
      g->inputTensor_ = mpsGraphRankedPlaceHolder(mpsGraph, self);
      g->outputTensor_ = body(mpsGraph, g->inputTensor_);
    });
    runMPSGraph(getCurrentMPSStream(), cachedGraph->graph(), nil, nil);
  }
}

} // namespace mps

// the message both graph reductions give for an empty input
static void check_reduce_all_input(const Tensor& self, const char* name) {
  TORCH_CHECK(self.numel() > 0, name, "(): Expected reduction dim to be specified for input.numel() == 0.");
}

Tensor max_mps(const Tensor& self) {
  check_reduce_all_input(self, "max");
  Tensor output = at::empty({}, self.options());
  mps::reduce_all_graph(self, output, "max_all", ^MPSGraphTensor*(MPSGraph* mpsGraph, MPSGraphTensor* x) {
    return [mpsGraph reductionMaximumPropagateNaNWithTensor:x axes:nil name:nil];
  });
  return output;
}

Tensor min_mps(const Tensor& self) {
  TORCH_CHECK(self.numel() > 0, "min(): Expected reduction dim to be specified for input.numel() == 0.");
  Tensor output = at::empty({}, self.options());
  mps::reduce_all_graph(self, output, "min_all", ^MPSGraphTensor*(MPSGraph* mpsGraph, MPSGraphTensor* x) {
    return [mpsGraph reductionMinimumPropagateNaNWithTensor:x axes:nil name:nil];
  });
  return output;
}

} // namespace at::native
