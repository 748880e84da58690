// Demo host stubs for the unary Metal kernels (metal-kernel skill).
//
// Made up for the examples; laid out like the unary stub file of current
// PyTorch. Each stub hands a TensorIterator to the shader library, which picks
// the kernel "NAME_dense_OUT_IN" or "NAME_strided_OUT_IN" registered in
// kernels/UnaryKernel.metal.
#define TORCH_ASSERT_ONLY_METHOD_OPERATORS
#include <ATen/native/UnaryOps.h>
#include <ATen/native/mps/OperationUtils.h>

namespace at::native {
#ifndef PYTORCH_JIT_COMPILE_SHADERS
static auto& lib = mps::MetalShaderLibrary::getBundledLibrary();
#else
#include <ATen/native/mps/UnaryKernel_metallib.h>
#endif

// REGISTER_UNARY_TI_DISPATCH(NAME) writes the stub NAME_kernel_mps, which runs
// the Metal kernel family NAME, and makes it the MPS entry of NAME_stub.
// NAME must be the name used in REGISTER_UNARY_OP in the .metal file.
#define REGISTER_UNARY_TI_DISPATCH(NAME)                     \
  static void NAME##_kernel_mps(TensorIteratorBase& iter) {  \
    lib.exec_unary_kernel(iter, #NAME);                      \
  }                                                          \
  REGISTER_DISPATCH(NAME##_stub, NAME##_kernel_mps)

REGISTER_UNARY_TI_DISPATCH(exp);
} // namespace at::native
