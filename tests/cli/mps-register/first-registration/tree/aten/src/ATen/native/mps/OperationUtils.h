// Fixture: the kernel library the host stubs call, shaped like the class
// in current PyTorch's OperationUtils.h (declarations only).
#pragma once
namespace at::native::mps {
class MetalShaderLibrary {
 public:
  static MetalShaderLibrary& getBundledLibrary();
  void exec_unary_kernel(TensorIteratorBase& iter, const std::string& name);
  void exec_binary_kernel(TensorIteratorBase& iter, const std::string& name);
};
} // namespace at::native::mps
