// Fixture: a unary kernel file shaped like current PyTorch's, where the
// last functor sits right above its own registrations.
#include <c10/metal/indexing.h>
#include <metal_stdlib>
using namespace metal;
using namespace c10::metal;

struct neg_functor {
  template <typename T>
  inline T operator()(const T x) {
    return T(-x);
  }
};

struct abs_functor {
  template <typename T>
  inline T operator()(const T x) {
    return x < T(0) ? T(-x) : x;
  }
};

REGISTER_UNARY_OP(neg, float, float);
REGISTER_UNARY_OP(neg, half, half);

struct logical_not_functor {
  template <typename T>
  inline bool operator()(const T x) {
    return !static_cast<bool>(x);
  }
};

REGISTER_UNARY_OP(logical_not, bool, bool);
REGISTER_UNARY_OP(logical_not, float, bool);
REGISTER_UNARY_OP(logical_not, half, bool);

REGISTER_UNARY_OP(abs, float, float);
REGISTER_UNARY_OP(abs, half, half);
