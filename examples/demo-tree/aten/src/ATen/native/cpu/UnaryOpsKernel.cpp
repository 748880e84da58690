// Demo CPU kernels of the unary operators (metal-kernel skill).
//
// Made up for the examples; laid out like PyTorch's cpu/UnaryOpsKernel.cpp.
// The AT_DISPATCH_* macro of each kernel lists the dtypes CPU supports;
// mps-migrate reads it to choose the Metal registrations.
#include <ATen/Dispatch.h>
#include <ATen/native/UnaryOps.h>
#include <ATen/native/cpu/Loops.h>

namespace at::native {
inline namespace CPU_CAPABILITY {

static void abs_kernel(TensorIteratorBase& iter) {
  AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(kHalf, kBFloat16, iter.dtype(), "abs_cpu", [&]() {
    cpu_kernel(iter, [=](scalar_t a) -> scalar_t { return a < 0 ? -a : a; });
  });
}

static void exp_kernel(TensorIteratorBase& iter) {
  AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(kBFloat16, kHalf, iter.dtype(), "exp_cpu", [&]() {
    cpu_kernel(iter, [=](scalar_t a) -> scalar_t { return std::exp(a); });
  });
}

static void sqrt_kernel(TensorIteratorBase& iter) {
  AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(kBFloat16, kHalf, iter.dtype(), "sqrt_cpu", [&]() {
    cpu_kernel(iter, [=](scalar_t a) -> scalar_t { return std::sqrt(a); });
  });
}

// i0 has no complex form
static void i0_kernel(TensorIteratorBase& iter) {
  AT_DISPATCH_FLOATING_TYPES_AND2(kBFloat16, kHalf, iter.dtype(), "i0_cpu", [&]() {
    cpu_kernel(iter, [=](scalar_t a) -> scalar_t { return calc_i0(a); });
  });
}

} // namespace CPU_CAPABILITY

REGISTER_DISPATCH(abs_stub, &CPU_CAPABILITY::abs_kernel)
REGISTER_DISPATCH(exp_stub, &CPU_CAPABILITY::exp_kernel)
REGISTER_DISPATCH(sqrt_stub, &CPU_CAPABILITY::sqrt_kernel)
REGISTER_DISPATCH(i0_stub, &CPU_CAPABILITY::i0_kernel)

} // namespace at::native
