// Fixture: the binary host stubs, shaped like current PyTorch's (our
// text): the stubs together, then their registrations.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/native/BinaryOps.h>
#include <ATen/native/mps/OperationUtils.h>

namespace at::native {
#ifndef PYTORCH_JIT_COMPILE_SHADERS
static auto& lib = mps::MetalShaderLibrary::getBundledLibrary();
#else
#include <ATen/native/mps/BinaryKernel_metallib.h>
#endif

static void fmax_mps_kernel(TensorIteratorBase& iter) {
  lib.exec_binary_kernel(iter, "fmax");
}

static void fmin_mps_kernel(TensorIteratorBase& iter) {
  lib.exec_binary_kernel(iter, "fmin");
}

REGISTER_DISPATCH(fmax_stub, &fmax_mps_kernel)
REGISTER_DISPATCH(fmin_stub, &fmin_mps_kernel)
} // namespace at::native
