// Demo stub declarations for binary operators (metal-kernel skill).
//
// Made up for the examples; plays the part of PyTorch's
// aten/src/ATen/native/BinaryOps.h. Note that division has one stub per
// rounding mode, and add takes its alpha scalar through the stub.
#pragma once

#include <ATen/native/DispatchStub.h>
#include <c10/core/Scalar.h>

namespace at {
struct TensorIteratorBase;
} // namespace at

namespace at::native {

using structured_binary_fn = void (*)(TensorIteratorBase&);
using structured_binary_fn_alpha = void (*)(TensorIteratorBase&, const Scalar& alpha);

DECLARE_DISPATCH(structured_binary_fn_alpha, add_stub);
DECLARE_DISPATCH(structured_binary_fn, atan2_stub);
DECLARE_DISPATCH(structured_binary_fn, div_true_stub);
DECLARE_DISPATCH(structured_binary_fn, div_floor_stub);
DECLARE_DISPATCH(structured_binary_fn, div_trunc_stub);
DECLARE_DISPATCH(structured_binary_fn, fmax_stub);
DECLARE_DISPATCH(structured_binary_fn, hypot_stub);

} // namespace at::native
