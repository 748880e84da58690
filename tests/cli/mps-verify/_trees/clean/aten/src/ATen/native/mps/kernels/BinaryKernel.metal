// Test fixture: binary Metal kernels.
#include <c10/metal/indexing.h>
#include <metal_stdlib>
using namespace metal;

struct atan2_functor {
  template <typename T>
  inline float operator()(const T a, const T b) {
    return precise::atan2(float(a), float(b));
  }
};

struct div_true_functor {
  template <typename T>
  inline float operator()(const T a, const T b) {
    return float(a) / float(b);
  }
};

struct div_floor_functor {
  template <typename T>
  inline T operator()(const T a, const T b) {
    return T(floor(float(a) / float(b)));
  }
};

struct div_trunc_functor {
  template <typename T>
  inline T operator()(const T a, const T b) {
    return T(trunc(float(a) / float(b)));
  }
};

#define REGISTER_FLOAT_BINARY_OP(NAME)  \
  REGISTER_BINARY_OP(NAME, float, float); \
  REGISTER_BINARY_OP(NAME, half, half)

REGISTER_FLOAT_BINARY_OP(atan2);
REGISTER_FLOAT_BINARY_OP(div_true);
REGISTER_FLOAT_BINARY_OP(div_floor);
REGISTER_FLOAT_BINARY_OP(div_trunc);
