#include <c10/metal/indexing.h>
using namespace metal;

namespace {
struct neg_functor {
  template <typename T>
  inline T operator()(const T x) {
    return T(-x);
  }
};
} // namespace

namespace demo {
    REGISTER_UNARY_OP(neg, float, float)
    REGISTER_UNARY_OP(neg, half, half)
} // namespace demo
