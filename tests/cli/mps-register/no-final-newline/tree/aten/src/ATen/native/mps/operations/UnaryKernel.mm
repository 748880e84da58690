// Small unary host file for the line-ending cases.
namespace at::native {
static auto& lib = mps::MetalShaderLibrary::getBundledLibrary();

static void neg_mps_kernel(TensorIteratorBase& iter) {
  lib.exec_unary_kernel(iter, "neg");
}

REGISTER_DISPATCH(neg_stub, &neg_mps_kernel);
} // namespace at::native