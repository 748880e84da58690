// Fixture: stub declarations, shaped like ATen's BinaryOps.h.
#pragma once
namespace at::native {
using structured_binary_fn = void (*)(TensorIteratorBase&);
DECLARE_DISPATCH(structured_binary_fn, atan2_stub);
DECLARE_DISPATCH(structured_binary_fn, fmax_stub);
} // namespace at::native
