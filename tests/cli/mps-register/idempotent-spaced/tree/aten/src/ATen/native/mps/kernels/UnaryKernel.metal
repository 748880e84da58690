#include <c10/metal/indexing.h>
using namespace metal;

struct foo_functor {
  template <typename T>
  inline T operator()(const T x) {
    return x;
  }
};

REGISTER_UNARY_OP( foo,float,float );
REGISTER_UNARY_OP(foo ,
                  half ,  half);
REGISTER_UNARY_OP(foo, bfloat, \
                  bfloat);
