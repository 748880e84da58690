// Fixture: the stub the host stub registers, shaped like ATen's UnaryOps.h.
#pragma once
namespace at::native {
using unary_fn = void (*)(TensorIteratorBase&);
DECLARE_DISPATCH(unary_fn, foo_stub);
} // namespace at::native
