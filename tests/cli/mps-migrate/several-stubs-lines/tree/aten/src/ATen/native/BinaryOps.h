// Fixture: stub declarations, shaped like ATen's BinaryOps.h (our text).
#pragma once
#include <ATen/native/DispatchStub.h>

namespace at::native {
using structured_binary_fn = void (*)(TensorIteratorBase&);

DECLARE_DISPATCH(structured_binary_fn, div_true_stub);
DECLARE_DISPATCH(structured_binary_fn, div_trunc_stub);
DECLARE_DISPATCH(structured_binary_fn, div_floor_stub);
} // namespace at::native
