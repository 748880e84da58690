// Fixture: the CPU kernels of division, shaped like ATen's
// cpu/BinaryOpsKernel.cpp (our own text).
#include <ATen/native/BinaryOps.h>
#include <ATen/Dispatch.h>
#include <ATen/native/cpu/Loops.h>

namespace at::native {
namespace {

void div_true_kernel(TensorIteratorBase& iter) {
  AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(kBFloat16, kHalf, iter.common_dtype(), "div_true_cpu", [&]() {
    cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t { return a / b; });
  });
}

void div_trunc_kernel(TensorIteratorBase& iter) {
  AT_DISPATCH_FLOATING_TYPES_AND2(kBFloat16, kHalf, iter.dtype(), "div_trunc_cpu", [&]() {
    cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t { return std::trunc(a / b); });
  });
}

void div_floor_kernel(TensorIteratorBase& iter) {
  AT_DISPATCH_FLOATING_TYPES_AND2(kBFloat16, kHalf, iter.dtype(), "div_floor_cpu", [&]() {
    cpu_kernel(iter, [](scalar_t a, scalar_t b) -> scalar_t { return std::floor(a / b); });
  });
}

} // namespace

REGISTER_DISPATCH(div_true_stub, &div_true_kernel)
REGISTER_DISPATCH(div_trunc_stub, &div_trunc_kernel)
REGISTER_DISPATCH(div_floor_stub, &div_floor_kernel)

} // namespace at::native
