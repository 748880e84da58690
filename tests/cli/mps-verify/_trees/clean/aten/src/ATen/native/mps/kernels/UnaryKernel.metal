// Test fixture: unary Metal kernels.
#include <c10/metal/indexing.h>
#include <metal_stdlib>
using namespace metal;

struct sqrt_functor {
  template <typename T>
  inline T operator()(const T x) {
    return T(precise::sqrt(float(x)));
  }
};

REGISTER_UNARY_OP(sqrt, float, float);
REGISTER_UNARY_OP(sqrt, half, half);

// This helper is called with (output dtype, input dtype).
#define REGISTER_INT_TO_FLOAT_OPS(DTYPE_OUT, DTYPE_IN) \
  REGISTER_UNARY_OP(sqrt, DTYPE_IN, DTYPE_OUT)

REGISTER_INT_TO_FLOAT_OPS(float, int);
REGISTER_INT_TO_FLOAT_OPS(float, long);
