// Test fixture: the stub declarations of a few binary operators.
#pragma once
#include <ATen/native/DispatchStub.h>

namespace at::native {
using structured_binary_fn = void (*)(TensorIteratorBase&);
DECLARE_DISPATCH(structured_binary_fn, atan2_stub);
DECLARE_DISPATCH(structured_binary_fn, div_true_stub);
DECLARE_DISPATCH(structured_binary_fn, div_floor_stub);
DECLARE_DISPATCH(structured_binary_fn, div_trunc_stub);
} // namespace at::native
