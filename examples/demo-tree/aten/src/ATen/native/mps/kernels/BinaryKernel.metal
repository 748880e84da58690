// Demo binary Metal kernels for the metal-kernel skill.
//
// Made up for the examples; laid out like the binary kernel file of current
// PyTorch. From c10/metal/indexing.h:
//   REGISTER_BINARY_OP(NAME, IN, OUT)              plain functor call
//   REGISTER_OPMATH_BINARY_OP(NAME, IN, OUT)       functor runs in opmath_t<IN>
//   REGISTER_BINARY_ALPHA_OP(NAME, IN, ALPHA, OUT) functor gets a third,
//                                                  alpha argument
// Complex tensors arrive as float2 (complex64) and half2 (complex32).
#include <c10/metal/indexing.h>
#include <c10/metal/utils.h>
#include <metal_stdlib>

using namespace metal;
using namespace c10::metal;

// hypot(a, b) = sqrt(a^2 + b^2), computed in float for half/bfloat inputs.
struct hypot_functor {
  template <typename T, enable_if_t<is_floating_point_v<T>, bool> = true>
  inline T operator()(const T a, const T b) {
    return static_cast<T>(precise::sqrt(float(a) * float(a) + float(b) * float(b)));
  }
  template <typename T, enable_if_t<is_integral_v<T>, bool> = true>
  inline float operator()(const T a, const T b) {
    return precise::sqrt(float(a) * float(a) + float(b) * float(b));
  }
};

// fmax ignores a NaN operand unless both are NaN; on integers it is max.
struct fmax_functor {
  template <typename T, enable_if_t<is_floating_point_v<T>, bool> = true>
  inline T operator()(const T a, const T b) {
    return static_cast<T>(::metal::fmax(a, b));
  }
  template <typename T, enable_if_t<is_integral_v<T>, bool> = true>
  inline T operator()(const T a, const T b) {
    return a > b ? a : b;
  }
};

// add with alpha: a + alpha * b. Complex values multiply alpha in.
struct add_alpha_functor {
  template <typename T>
  inline T operator()(const T a, const T b, const T alpha) {
    return static_cast<T>(a + alpha * b);
  }
};

// File-local helpers: one call covers a family of dtypes.
#define REGISTER_FLOAT_BINARY_OP(NAME)      \
  REGISTER_BINARY_OP(NAME, float, float);   \
  REGISTER_BINARY_OP(NAME, half, half);     \
  REGISTER_BINARY_OP(NAME, bfloat, bfloat)

#define REGISTER_OPMATH_FLOAT_BINARY_OP(NAME)    \
  REGISTER_OPMATH_BINARY_OP(NAME, float, float); \
  REGISTER_OPMATH_BINARY_OP(NAME, half, half);   \
  REGISTER_OPMATH_BINARY_OP(NAME, bfloat, bfloat)

#define REGISTER_INTEGER_BINARY_OP(NAME)  \
  REGISTER_BINARY_OP(NAME, long, long);   \
  REGISTER_BINARY_OP(NAME, int, int);     \
  REGISTER_BINARY_OP(NAME, short, short); \
  REGISTER_BINARY_OP(NAME, uchar, uchar); \
  REGISTER_BINARY_OP(NAME, char, char);   \
  REGISTER_BINARY_OP(NAME, bool, bool)

#define REGISTER_INT2FLOAT_BINARY_OP(NAME) \
  REGISTER_BINARY_OP(NAME, long, float);   \
  REGISTER_BINARY_OP(NAME, int, float);    \
  REGISTER_BINARY_OP(NAME, short, float);  \
  REGISTER_BINARY_OP(NAME, uchar, float);  \
  REGISTER_BINARY_OP(NAME, char, float);   \
  REGISTER_BINARY_OP(NAME, bool, float)

REGISTER_FLOAT_BINARY_OP(fmax);
REGISTER_INTEGER_BINARY_OP(fmax);
REGISTER_OPMATH_FLOAT_BINARY_OP(hypot);
REGISTER_INT2FLOAT_BINARY_OP(hypot);

REGISTER_BINARY_ALPHA_OP(add_alpha, float, float, float);
REGISTER_BINARY_ALPHA_OP(add_alpha, half, half, half);
REGISTER_BINARY_ALPHA_OP(add_alpha, bfloat, bfloat, bfloat);
REGISTER_BINARY_ALPHA_OP(add_alpha, long, long, long);
REGISTER_BINARY_ALPHA_OP(add_alpha, int, int, int);
REGISTER_BINARY_ALPHA_OP(add_alpha, short, short, short);
REGISTER_BINARY_ALPHA_OP(add_alpha, uchar, uchar, uchar);
REGISTER_BINARY_ALPHA_OP(add_alpha, char, char, char);
REGISTER_BINARY_ALPHA_OP(add_alpha, bool, bool, bool);
REGISTER_BINARY_ALPHA_OP(add_alpha, float2, float2, float2);
REGISTER_BINARY_ALPHA_OP(add_alpha, half2, half2, half2);
