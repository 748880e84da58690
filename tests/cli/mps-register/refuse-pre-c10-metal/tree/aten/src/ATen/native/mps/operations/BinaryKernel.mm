// Fixture shaped like a host file from before the c10/metal kernels: the
// kernel library and its helper live inside namespace mps, and stubs call
// the helper with the kernel's name prefix.
namespace at::native {
namespace mps {
static MetalShaderLibrary lib(BINARY_KERNEL_SOURCE);

void binary_kernel_impl(TensorIteratorBase& iter, const std::string& name) {
  auto pso = lib.getPipelineStateForFunc(name + "_" + scalarToMetalTypeString(iter.common_dtype()));
  dispatch_pso(iter, pso);
}
} // namespace mps

static void fmax_mps_kernel(TensorIteratorBase& iter) {
  mps::binary_kernel_impl(iter, "fmax");
}

REGISTER_DISPATCH(fmax_stub, &fmax_mps_kernel);
} // namespace at::native
