// Fixture: the stub the host stub registers, shaped like ATen's BinaryOps.h.
#pragma once
namespace at::native {
using binary_fn = void (*)(TensorIteratorBase&);
DECLARE_DISPATCH(binary_fn, foo_stub);
} // namespace at::native
