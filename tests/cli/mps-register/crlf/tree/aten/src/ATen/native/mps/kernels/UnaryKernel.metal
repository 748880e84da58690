// Small unary kernel file for the line-ending cases.
#include <c10/metal/indexing.h>
using namespace metal;

struct neg_functor {
  template <typename T>
  inline T operator()(const T x) {
    return T(-x);
  }
};

REGISTER_UNARY_OP(neg, float, float);
REGISTER_UNARY_OP(neg, half, half);
