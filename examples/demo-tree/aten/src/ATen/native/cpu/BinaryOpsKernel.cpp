// Demo CPU kernels of the binary operators (metal-kernel skill).
//
// Made up for the examples; laid out like PyTorch's cpu/BinaryOpsKernel.cpp.
#include <ATen/Dispatch.h>
#include <ATen/Dispatch_v2.h>
#include <ATen/native/BinaryOps.h>
#include <ATen/native/cpu/Loops.h>

namespace at::native {
namespace {

void add_kernel(TensorIteratorBase& iter, const Scalar& alpha) {
  AT_DISPATCH_V2(iter.dtype(), "add_cpu", AT_WRAP([&]() {
    auto b = alpha.to<scalar_t>();
    cpu_kernel(iter, [=](scalar_t x, scalar_t y) -> scalar_t { return x + b * y; });
  }), AT_EXPAND(AT_ALL_TYPES_AND_COMPLEX), kBool, kHalf, kBFloat16, kComplexHalf);
}

void atan2_kernel(TensorIteratorBase& iter) {
  AT_DISPATCH_FLOATING_TYPES_AND2(kBFloat16, kHalf, iter.dtype(), "atan2_cpu", [&]() {
    cpu_kernel(iter, [=](scalar_t a, scalar_t b) -> scalar_t { return std::atan2(a, b); });
  });
}

void hypot_kernel(TensorIteratorBase& iter) {
  AT_DISPATCH_FLOATING_TYPES_AND2(kBFloat16, kHalf, iter.dtype(), "hypot_cpu", [&]() {
    cpu_kernel(iter, [=](scalar_t a, scalar_t b) -> scalar_t { return std::hypot(a, b); });
  });
}

void fmax_kernel(TensorIteratorBase& iter) {
  AT_DISPATCH_ALL_TYPES_AND3(kBool, kHalf, kBFloat16, iter.common_dtype(), "fmax_cpu", [&]() {
    cpu_kernel(iter, [=](scalar_t a, scalar_t b) -> scalar_t { return a > b ? a : b; });
  });
}

void div_true_kernel(TensorIteratorBase& iter) {
  AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(kBFloat16, kHalf, iter.common_dtype(), "div_true_cpu", [&]() {
    cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t { return a / b; });
  });
}

void div_floor_kernel(TensorIteratorBase& iter) {
  AT_DISPATCH_ALL_TYPES_AND2(kBFloat16, kHalf, iter.common_dtype(), "div_floor_cpu", [&]() {
    cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t { return std::floor(a / b); });
  });
}

void div_trunc_kernel(TensorIteratorBase& iter) {
  AT_DISPATCH_ALL_TYPES_AND2(kBFloat16, kHalf, iter.common_dtype(), "div_trunc_cpu", [&]() {
    cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t { return std::trunc(a / b); });
  });
}

} // namespace

REGISTER_DISPATCH(add_stub, &add_kernel)
REGISTER_DISPATCH(atan2_stub, &atan2_kernel)
REGISTER_DISPATCH(hypot_stub, &hypot_kernel)
REGISTER_DISPATCH(fmax_stub, &fmax_kernel)
REGISTER_DISPATCH(div_true_stub, &div_true_kernel)
REGISTER_DISPATCH(div_floor_stub, &div_floor_kernel)
REGISTER_DISPATCH(div_trunc_stub, &div_trunc_kernel)

} // namespace at::native
