// Demo host stubs for the binary Metal kernels (metal-kernel skill).
//
// Made up for the examples; laid out like the binary stub file of current
// PyTorch. The string given to exec_binary_kernel is the NAME used in
// kernels/BinaryKernel.metal, which is not always the operator's name
// (add runs the "add_alpha" kernels).
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/native/BinaryOps.h>
#include <ATen/native/TensorIterator.h>
#include <ATen/native/mps/OperationUtils.h>

namespace at::native {
#ifndef PYTORCH_JIT_COMPILE_SHADERS
static auto& lib = mps::MetalShaderLibrary::getBundledLibrary();
#else
#include <ATen/native/mps/BinaryKernel_metallib.h>
#endif

namespace mps {
// add and sub share one alpha kernel; sub negates alpha before calling it.
static void add_mps_kernel(TensorIteratorBase& iter, const Scalar& alpha) {
  lib.exec_binary_kernel(iter, "add_alpha", alpha);
}
} // namespace mps

static void fmax_mps_kernel(TensorIteratorBase& iter) {
  TORCH_CHECK_TYPE(!isComplexType(iter.common_dtype()), "fmax is not defined for complex tensors");
  lib.exec_binary_kernel(iter, "fmax");
}

static void hypot_mps_kernel(TensorIteratorBase& iter) {
  lib.exec_binary_kernel(iter, "hypot");
}

REGISTER_DISPATCH(add_stub, &mps::add_mps_kernel);
REGISTER_DISPATCH(fmax_stub, &fmax_mps_kernel);
REGISTER_DISPATCH(hypot_stub, &hypot_mps_kernel);
} // namespace at::native
