// A kernel file with functors but no registration yet.
#include <c10/metal/indexing.h>
using namespace metal;

struct neg_functor {
  template <typename T>
  inline T operator()(const T x) {
    return T(-x);
  }
};
