// Demo unary Metal kernels for the metal-kernel skill.
//
// Made up for the examples; laid out like the unary kernel file of current
// PyTorch. REGISTER_UNARY_OP comes from c10/metal/indexing.h: its arguments
// are (NAME, input dtype, output dtype) and it instantiates the dense and the
// strided kernel of NAME_functor for that pair of dtypes.
#include <c10/metal/indexing.h>
#include <c10/metal/special_math.h>
#include <c10/metal/utils.h>
#include <metal_stdlib>

using namespace metal;
using namespace c10::metal;

// exp: floating inputs keep their dtype, integer and bool inputs give float,
// complex values (float2 / half2) use exp(a + ib) = e^a (cos b + i sin b).
struct exp_functor {
  template <typename T, enable_if_t<is_scalar_floating_point_v<T>, bool> = true>
  inline T operator()(const T x) {
    return T(precise::exp(float(x)));
  }
  template <typename T, enable_if_t<is_scalar_integral_v<T>, bool> = true>
  inline float operator()(const T x) {
    return precise::exp(float(x));
  }
  template <typename T, enable_if_t<is_complex_v<T>, bool> = true>
  inline T operator()(const T x) {
    const auto scale = precise::exp(float(x.x));
    return T(scale * precise::cos(float(x.y)), scale * precise::sin(float(x.y)));
  }
};

REGISTER_UNARY_OP(exp, float, float);
REGISTER_UNARY_OP(exp, half, half);
REGISTER_UNARY_OP(exp, bfloat, bfloat);
REGISTER_UNARY_OP(exp, float2, float2);
REGISTER_UNARY_OP(exp, half2, half2);

// Integer-to-float registrations for every op above.
// CAREFUL: this helper takes (OUTPUT dtype, INPUT dtype), the reverse of
// REGISTER_UNARY_OP. Add a line for a new op inside the body, not a new call.
#define REGISTER_UNARY_INT_INPUT_OPS(DTYPE_OUT, DTYPE_IN) \
  REGISTER_UNARY_OP(exp, DTYPE_IN, DTYPE_OUT)

REGISTER_UNARY_INT_INPUT_OPS(float, long);
REGISTER_UNARY_INT_INPUT_OPS(float, int);
REGISTER_UNARY_INT_INPUT_OPS(float, short);
REGISTER_UNARY_INT_INPUT_OPS(float, char);
REGISTER_UNARY_INT_INPUT_OPS(float, uchar);
REGISTER_UNARY_INT_INPUT_OPS(float, bool);
