// Test fixture: the stub declarations of a few unary operators.
#pragma once
#include <ATen/native/DispatchStub.h>

namespace at::native {
using unary_fn = void (*)(TensorIteratorBase&);
DECLARE_DISPATCH(unary_fn, sqrt_stub);
} // namespace at::native
