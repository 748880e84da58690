// Test fixture: host stubs of the unary Metal kernels.
#include <ATen/native/UnaryOps.h>
#include <ATen/native/mps/OperationUtils.h>

namespace at::native {
static auto& lib = mps::MetalShaderLibrary::getBundledLibrary();

// Defines NAME_kernel_mps and makes it MPS's entry of NAME_stub.
#define REGISTER_UNARY_TI_DISPATCH(NAME)                    \
  static void NAME##_kernel_mps(TensorIteratorBase& iter) { \
    lib.exec_unary_kernel(iter, #NAME);                     \
  }                                                         \
  REGISTER_DISPATCH(NAME##_stub, NAME##_kernel_mps)

REGISTER_UNARY_TI_DISPATCH(sqrt);
} // namespace at::native
