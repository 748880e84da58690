// Demo stub declarations for unary operators (metal-kernel skill).
//
// Made up for the examples; plays the part of PyTorch's
// aten/src/ATen/native/UnaryOps.h. A stub is a per-device function table:
// the shared structured kernel calls NAME_stub(device_type, iter) and each
// backend fills its own slot with REGISTER_DISPATCH.
#pragma once

#include <ATen/native/DispatchStub.h>

namespace at {
class TensorBase;
struct TensorIteratorBase;
} // namespace at

namespace at::native {

using unary_fn = void (*)(TensorIteratorBase&);

DECLARE_DISPATCH(unary_fn, abs_stub);
DECLARE_DISPATCH(unary_fn, exp_stub);
DECLARE_DISPATCH(unary_fn, i0_stub);
DECLARE_DISPATCH(unary_fn, sqrt_stub);

} // namespace at::native
