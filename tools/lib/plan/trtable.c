/* trtable.c — translate.h's table (tr_table): every name a kernel's math
 * may use, what it becomes in Metal, and the class names (tr_cls_name).
 * Layer: plan; calls read/cudakern (the c10/metal names) and base.  One row per construct, each with
 * its own unit test in tests/unit/test_translate.c; and the names of the
 * checkout's c10/metal the rows resolve against (tr_env_load).
 */
#include "plan/translate.h"
#include "base/lex.h"

#include <stdlib.h>
#include <string.h>

/* ---- the table ---- */

#define MATHQ TQ_MATH
#define STDQ (TQ_BARE | TQ_STD | TQ_GLOBAL | TQ_COMPAT | TQ_AT)

static const struct tr_row rows[] = {
    /* types */
    {"scalar_t", TQ_BARE, TR_TYPE, 0, "$scalar", NULL, NULL, NULL, TY_NONE,
     "the type of AT_DISPATCH_*'s branch (ATen/Dispatch.h)"},
    {"T", TQ_BARE, TR_TYPE, 0, "$scalar", NULL, NULL, NULL, TY_NONE,
     "a jiterator function's template type: the dtype of the branch"},
    {"opmath_t", TQ_BARE, TR_TYPE, 0, "$opmath", NULL, NULL, NULL, TY_NONE,
     "at::opmath_type: float for Half and BFloat16 (ATen/OpMathType.h)"},
    {"accscalar_t", TQ_BARE, TR_TYPE, 0, "$acc", NULL, NULL, NULL, TY_NONE,
     "at::acc_type: float on the GPU for the floating types "
     "(ATen/AccumulateType.h)"},
    {"opmath_type", TQ_BARE | TQ_AT, TR_TYPE, 1, "$opmath", NULL, NULL, NULL,
     TY_NONE, "ATen/OpMathType.h"},
    {"acc_type", TQ_BARE | TQ_AT, TR_TYPE, 2, "$acc", NULL, NULL, NULL,
     TY_NONE, "ATen/AccumulateType.h"},
    {"float", TQ_BARE, TR_TYPE, 0, "float", NULL, NULL, NULL, TY_REAL, "C++"},
    {"double", TQ_BARE, TR_TYPE, 0, "float", NULL, NULL, NULL, TY_REAL,
     "Metal has no 64-bit float: computed in float"},
    {"int", TQ_BARE, TR_TYPE, 0, "int", NULL, NULL, NULL, TY_INT, "C++"},
    {"int64_t", TQ_BARE | TQ_STD, TR_TYPE, 0, "long", NULL, NULL, NULL,
     TY_INT, "Metal's long is 64-bit"},
    {"int32_t", TQ_BARE | TQ_STD, TR_TYPE, 0, "int", NULL, NULL, NULL,
     TY_INT, "Metal's int is 32-bit"},
    {"bool", TQ_BARE, TR_TYPE, 0, "bool", NULL, NULL, NULL, TY_BOOL, "C++"},
    {"auto", TQ_BARE, TR_TYPE, 0, "auto", NULL, NULL, NULL, TY_NONE,
     "the initializer's type"},
    {"complex", TQ_C10 | TQ_STD, TR_TYPE, 1, NULL, NULL, "float2", NULL,
     TY_CPLX, "c10::complex<T>: float2 in the complex overload "
     "(c10/metal's complex values)"},

    /* constants */
    {"NAN", TQ_BARE, TR_CONST, 0, "NAN", NULL, NULL, NULL, TY_REAL,
     "<cmath> NAN; Metal's metal_math"},
    {"INFINITY", TQ_BARE, TR_CONST, 0, "INFINITY", NULL, NULL, NULL, TY_REAL,
     "<cmath> INFINITY; Metal's metal_math"},
    {"M_PI", TQ_BARE, TR_CONST, 0, "M_PI_F", NULL, NULL, NULL, TY_REAL,
     "Metal's float constants M_*_F"},
    {"M_PI_2", TQ_BARE, TR_CONST, 0, "M_PI_2_F", NULL, NULL, NULL, TY_REAL,
     "Metal's float constants M_*_F"},
    {"M_PI_4", TQ_BARE, TR_CONST, 0, "M_PI_4_F", NULL, NULL, NULL, TY_REAL,
     "Metal's float constants M_*_F"},
    {"M_1_PI", TQ_BARE, TR_CONST, 0, "M_1_PI_F", NULL, NULL, NULL, TY_REAL,
     "Metal's float constants M_*_F"},
    {"M_2_SQRTPI", TQ_BARE, TR_CONST, 0, "M_2_SQRTPI_F", NULL, NULL, NULL,
     TY_REAL, "Metal's float constants M_*_F"},
    {"M_SQRT2", TQ_BARE, TR_CONST, 0, "M_SQRT2_F", NULL, NULL, NULL, TY_REAL,
     "Metal's float constants M_*_F"},
    {"M_SQRT1_2", TQ_BARE, TR_CONST, 0, "M_SQRT1_2_F", NULL, NULL, NULL,
     TY_REAL, "Metal's float constants M_*_F"},
    {"M_E", TQ_BARE, TR_CONST, 0, "M_E_F", NULL, NULL, NULL, TY_REAL,
     "Metal's float constants M_*_F"},
    {"M_LN2", TQ_BARE, TR_CONST, 0, "M_LN2_F", NULL, NULL, NULL, TY_REAL,
     "Metal's float constants M_*_F"},
    {"M_LN10", TQ_BARE, TR_CONST, 0, "M_LN10_F", NULL, NULL, NULL, TY_REAL,
     "Metal's float constants M_*_F"},
    {"M_LOG2E", TQ_BARE, TR_CONST, 0, "M_LOG2E_F", NULL, NULL, NULL, TY_REAL,
     "Metal's float constants M_*_F"},
    {"M_LOG10E", TQ_BARE, TR_CONST, 0, "M_LOG10E_F", NULL, NULL, NULL,
     TY_REAL, "Metal's float constants M_*_F"},
    {"pi", TQ_C10, TR_CONST, 0, "M_PI_F", NULL, NULL, NULL, TY_REAL,
     "c10/util/MathConstants.h pi<T>: Metal's M_PI_F"},
    {"ln_2", TQ_C10, TR_CONST, 0, "M_LN2_F", NULL, NULL, NULL, TY_REAL,
     "c10/util/MathConstants.h ln_2<T>: Metal's M_LN2_F"},
    {"ln_10", TQ_C10, TR_CONST, 0, "M_LN10_F", NULL, NULL, NULL, TY_REAL,
     "c10/util/MathConstants.h ln_10<T>: Metal's M_LN10_F"},
    {"true", TQ_BARE, TR_CONST, 0, "true", NULL, NULL, NULL, TY_BOOL, "C++"},
    {"false", TQ_BARE, TR_CONST, 0, "false", NULL, NULL, NULL, TY_BOOL,
     "C++"},

    /* std::numeric_limits<X>::NAME(): $T is X as translated */
    {"infinity", TQ_BARE, TR_LIMIT, 0, "INFINITY", NULL, NULL, NULL, TY_REAL,
     "<limits>; only for a floating X"},
    {"quiet_NaN", TQ_BARE, TR_LIMIT, 0, "NAN", NULL, NULL, NULL, TY_REAL,
     "<limits>; only for a floating X"},
    {"max", TQ_BARE, TR_LIMIT, 0, "metal::numeric_limits<$T>::max()",
     "metal::numeric_limits<$T>::max()", NULL, NULL, TY_ARG,
     "<limits>, Metal's metal_limits"},
    {"lowest", TQ_BARE, TR_LIMIT, 0, "metal::numeric_limits<$T>::lowest()",
     "metal::numeric_limits<$T>::lowest()", NULL, NULL, TY_ARG,
     "<limits>, Metal's metal_limits"},
    {"min", TQ_BARE, TR_LIMIT, 0, "metal::numeric_limits<$T>::min()",
     "metal::numeric_limits<$T>::min()", NULL, NULL, TY_ARG,
     "<limits>, Metal's metal_limits"},
    {"epsilon", TQ_BARE, TR_LIMIT, 0, "metal::numeric_limits<$T>::epsilon()",
     NULL, NULL, NULL, TY_ARG, "<limits>, Metal's metal_limits"},

    /* member functions of a value */
    {"real", TQ_BARE, TR_METHOD, 0, "$1", NULL, "$1.x", NULL, TY_REAL,
     "c10::complex::real(): float2's x"},
    {"imag", TQ_BARE, TR_METHOD, 0, "0.0f", NULL, "$1.y", NULL, TY_REAL,
     "c10::complex::imag(): float2's y"},

    /* math that rounds: metal::precise:: */
    {"sin", MATHQ, TR_FN, 1, "metal::precise::sin($*)", NULL, NULL, NULL,
     TY_ARG, "<cmath>; metal::precise (correctly rounded to Metal's limits)"},
    {"cos", MATHQ, TR_FN, 1, "metal::precise::cos($*)", NULL, NULL, NULL,
     TY_ARG, "<cmath>; metal::precise"},
    {"tan", MATHQ, TR_FN, 1, "metal::precise::tan($*)", NULL, NULL, NULL,
     TY_ARG, "<cmath>; metal::precise"},
    {"asin", MATHQ, TR_FN, 1, "metal::precise::asin($*)", NULL, NULL, NULL,
     TY_ARG, "<cmath>; metal::precise"},
    {"acos", MATHQ, TR_FN, 1, "metal::precise::acos($*)", NULL, NULL, NULL,
     TY_ARG, "<cmath>; metal::precise"},
    {"atan", MATHQ, TR_FN, 1, "metal::precise::atan($*)", NULL, NULL, NULL,
     TY_ARG, "<cmath>; metal::precise"},
    {"atan2", MATHQ, TR_FN, 2, "metal::precise::atan2($*)", NULL, NULL, NULL,
     TY_ARG, "<cmath>; metal::precise"},
    {"sinh", MATHQ, TR_FN, 1, "metal::precise::sinh($*)", NULL, NULL, NULL,
     TY_ARG, "<cmath>; metal::precise"},
    {"cosh", MATHQ, TR_FN, 1, "metal::precise::cosh($*)", NULL, NULL, NULL,
     TY_ARG, "<cmath>; metal::precise"},
    {"tanh", MATHQ, TR_FN, 1, "metal::precise::tanh($*)", NULL, NULL, NULL,
     TY_ARG, "<cmath>; metal::precise"},
    {"asinh", MATHQ, TR_FN, 1, "metal::precise::asinh($*)", NULL, NULL, NULL,
     TY_ARG, "<cmath>; metal::precise"},
    {"acosh", MATHQ, TR_FN, 1, "metal::precise::acosh($*)", NULL, NULL, NULL,
     TY_ARG, "<cmath>; metal::precise"},
    {"atanh", MATHQ, TR_FN, 1, "metal::precise::atanh($*)", NULL, NULL, NULL,
     TY_ARG, "<cmath>; metal::precise"},
    {"exp", MATHQ, TR_FN, 1, "metal::precise::exp($*)", NULL, NULL, NULL,
     TY_ARG, "<cmath>; metal::precise"},
    {"exp2", MATHQ, TR_FN, 1, "metal::precise::exp2($*)", NULL, NULL, NULL,
     TY_ARG, "<cmath>; metal::precise"},
    {"log", MATHQ, TR_FN, 1, "metal::precise::log($*)", NULL, NULL, NULL,
     TY_ARG, "<cmath>; metal::precise"},
    {"log2", MATHQ, TR_FN, 1, "metal::precise::log2($*)", NULL, NULL, NULL,
     TY_ARG, "<cmath>; metal::precise"},
    {"log10", MATHQ, TR_FN, 1, "metal::precise::log10($*)", NULL, NULL, NULL,
     TY_ARG, "<cmath>; metal::precise"},
    {"sqrt", MATHQ, TR_FN, 1, "metal::precise::sqrt($*)", NULL, NULL, NULL,
     TY_ARG, "<cmath>; metal::precise"},
    {"rsqrt", MATHQ, TR_FN, 1, "metal::precise::rsqrt($*)", NULL, NULL, NULL,
     TY_ARG, "CUDA's rsqrt; metal::precise"},
    {"pow", MATHQ, TR_FN, 2, "metal::precise::pow($*)", NULL, NULL, NULL,
     TY_ARG, "<cmath>; metal::precise::pow (negative bases with integral "
     "exponents as C)"},
    {"fmod", MATHQ, TR_FN, 2, "metal::precise::fmod($*)", NULL, NULL, NULL,
     TY_ARG, "<cmath>; metal::precise"},

    /* exact math: metal:: */
    {"floor", MATHQ, TR_FN, 1, "metal::floor($*)", "$1", NULL, NULL, TY_ARG,
     "<cmath>; exact in Metal"},
    {"ceil", MATHQ, TR_FN, 1, "metal::ceil($*)", "$1", NULL, NULL, TY_ARG,
     "<cmath>; exact in Metal"},
    {"trunc", MATHQ, TR_FN, 1, "metal::trunc($*)", "$1", NULL, NULL, TY_ARG,
     "<cmath>; exact in Metal"},
    {"round", MATHQ, TR_FN, 1, "metal::round($*)", "$1", NULL, NULL, TY_ARG,
     "<cmath> round: halfway cases away from zero, as Metal's round"},
    {"nearbyint", MATHQ, TR_FN, 1, "metal::rint($*)", "$1", NULL, NULL,
     TY_ARG, "<cmath> nearbyint in the default rounding mode (to nearest "
     "even): Metal's rint"},
    {"rint", MATHQ, TR_FN, 1, "metal::rint($*)", "$1", NULL, NULL, TY_ARG,
     "<cmath>; Metal's rint"},
    {"fabs", MATHQ, TR_FN, 1, "metal::fabs($*)", NULL, NULL, NULL, TY_ARG,
     "<cmath>; exact"},
    {"abs", STDQ, TR_FN, 1, "metal::fabs($*)", "metal::abs($*)", NULL, NULL,
     TY_ARG, "<cmath>/<cstdlib> abs; Metal's fabs and abs (integers)"},
    {"copysign", MATHQ, TR_FN, 2, "metal::copysign($*)", NULL, NULL, NULL,
     TY_ARG, "<cmath>; exact"},
    {"fmax", MATHQ, TR_FN, 2, "metal::fmax($*)", NULL, NULL, NULL, TY_ARG,
     "<cmath> fmax (a NaN operand gives the other): Metal's fmax"},
    {"fmin", MATHQ, TR_FN, 2, "metal::fmin($*)", NULL, NULL, NULL, TY_ARG,
     "<cmath> fmin: Metal's fmin"},
    {"isnan", MATHQ, TR_FN, 1, "metal::isnan($*)", "false", NULL, NULL,
     TY_BOOL, "<cmath>; an integer is never NaN"},
    {"_isnan", TQ_BARE | TQ_AT, TR_FN, 1, "metal::isnan($*)", "false", NULL,
     NULL, TY_BOOL, "at::_isnan (c10/util/math_compat): isnan, false for "
     "integers"},
    {"isinf", MATHQ, TR_FN, 1, "metal::isinf($*)", "false", NULL, NULL,
     TY_BOOL, "<cmath>; an integer is never infinite"},
    {"_isinf", TQ_BARE | TQ_AT, TR_FN, 1, "metal::isinf($*)", "false", NULL,
     NULL, TY_BOOL, "at::_isinf: isinf, false for integers"},
    {"isfinite", MATHQ, TR_FN, 1, "metal::isfinite($*)", "true", NULL, NULL,
     TY_BOOL, "<cmath>; an integer is finite"},
    {"signbit", MATHQ, TR_FN, 1, "metal::signbit($*)", "($1 < 0)", NULL, NULL,
     TY_BOOL, "<cmath> signbit (true for -0.0 and negative NaN); for "
     "integers x < 0"},
    {"is_negative", TQ_BARE | TQ_C10, TR_FN, 1, "($1 < 0)", "($1 < 0)", NULL,
     NULL, TY_BOOL, "c10/util/TypeSafeSignMath.h is_negative: x < 0 (false "
     "for unsigned types)"},
    {"signum", TQ_BARE | TQ_C10, TR_FN, 1, "(int(0 < $1) - int($1 < 0))",
     "(int(0 < $1) - int($1 < 0))", NULL, NULL, TY_INT,
     "c10/util/TypeSafeSignMath.h signum: (0 < x) - (x < 0) (0 for NaN)"},

    /* min and max: std:: compares with <; CUDA's ::min/::max are fminf/fmaxf
     * for floats and min/max for integers */
    {"max", TQ_STD, TR_FN, 2, "($1 < $2 ? $2 : $1)",
     "($1 < $2 ? $2 : $1)", NULL, NULL,
     TY_ARG, "std::max(a, b) is (a < b) ? b : a ([alg.min.max])"},
    {"min", TQ_STD, TR_FN, 2, "($2 < $1 ? $2 : $1)",
     "($2 < $1 ? $2 : $1)", NULL, NULL,
     TY_ARG, "std::min(a, b) is (b < a) ? b : a ([alg.min.max])"},
    {"max", TQ_BARE | TQ_GLOBAL | TQ_COMPAT, TR_FN, 2, "metal::fmax($*)",
     "metal::max($*)", NULL, NULL, TY_ARG,
     "CUDA's ::max: fmaxf for floats, max for integers"},
    {"min", TQ_BARE | TQ_GLOBAL | TQ_COMPAT, TR_FN, 2, "metal::fmin($*)",
     "metal::min($*)", NULL, NULL, TY_ARG,
     "CUDA's ::min: fminf for floats, min for integers"},

    /* in the tree's c10/metal only (Metal has none of them) */
    {"log1p", MATHQ, TR_FN, 1, NULL, NULL, NULL, "log1p", TY_ARG,
     "<cmath>; c10::metal::log1p when the tree defines it"},
    {"expm1", MATHQ, TR_FN, 1, NULL, NULL, NULL, "expm1", TY_ARG,
     "<cmath>; c10::metal::expm1 when the tree defines it"},
    {"erf", MATHQ, TR_FN, 1, NULL, NULL, NULL, "erf", TY_ARG,
     "<cmath>; c10::metal::erf when the tree defines it"},
    {"erfc", MATHQ, TR_FN, 1, NULL, NULL, NULL, "erfc", TY_ARG,
     "<cmath>; c10::metal::erfc when the tree defines it"},
    {"erfinv", TQ_BARE | TQ_C10, TR_FN, 1, NULL, NULL, NULL, "erfinv",
     TY_ARG, "c10::metal::erfinv when the tree defines it"},
    {"lgamma", MATHQ, TR_FN, 1, NULL, NULL, NULL, "log_gamma", TY_ARG,
     "<cmath> lgamma; c10::metal::log_gamma when the tree defines it (what "
     "main's lgamma_functor calls)"},
    {"calc_digamma", TQ_BARE | TQ_AT, TR_FN, 1, NULL, NULL, NULL, "digamma",
     TY_ARG, "ATen's calc_digamma (native/Math.h, cuda/Math.cuh); "
     "c10::metal::digamma when the tree defines it"},
    {"calc_erfinv", TQ_BARE | TQ_AT, TR_FN, 1, NULL, NULL, NULL, "erfinv",
     TY_ARG, "ATen's calc_erfinv; c10::metal::erfinv when the tree defines it"},
    {"calc_i0", TQ_BARE | TQ_AT, TR_FN, 1, NULL, NULL, NULL, "i0", TY_ARG,
     "ATen's calc_i0; c10::metal::i0 when the tree defines it"},
    {"calc_i1", TQ_BARE | TQ_AT, TR_FN, 1, NULL, NULL, NULL, "i1", TY_ARG,
     "ATen's calc_i1; c10::metal::i1 when the tree defines it"},
    {"signs_differ", TQ_BARE | TQ_C10, TR_FN, 2, "(($1 < 0) != ($2 < 0))",
     "(($1 < 0) != ($2 < 0))", NULL, NULL, TY_BOOL,
     "c10/util/TypeSafeSignMath.h signs_differ: is_negative(a) != "
     "is_negative(b)"},
    {"tgamma", MATHQ, TR_FN, 1, NULL, NULL, NULL, "tgamma", TY_ARG,
     "<cmath>; c10::metal::tgamma when the tree defines it"},
    {"hypot", MATHQ, TR_FN, 2, NULL, NULL, NULL, "hypot", TY_ARG,
     "<cmath>; c10::metal::hypot when the tree defines it"},
    {"cbrt", MATHQ, TR_FN, 1, NULL, NULL, NULL, "cbrt", TY_ARG,
     "<cmath>; c10::metal::cbrt when the tree defines it"},

    /* complex values */
    {"conj", TQ_BARE | TQ_STD | TQ_C10, TR_FN, 1, "$1", "$1",
     "float2($1.x, -$1.y)", "conj", TY_ARG,
     "std::conj; c10::metal::conj when the tree defines it"},
    {"real", TQ_BARE | TQ_STD, TR_FN, 1, "$1", "$1", "$1.x", NULL, TY_REAL,
     "std::real: float2's x"},
    {"imag", TQ_BARE | TQ_STD, TR_FN, 1, "0.0f", "0", "$1.y", NULL, TY_REAL,
     "std::imag: float2's y"},
    {"operator*", TQ_BARE, TR_FN, 2, NULL, NULL, NULL, "mul", TY_CPLX,
     "complex * complex: c10::metal::mul (float2 * float2 is elementwise)"},
    {"operator/", TQ_BARE, TR_FN, 2, NULL, NULL, NULL, "div", TY_CPLX,
     "complex / complex: c10::metal::div (float2 / float2 is elementwise)"},
    {"operator==", TQ_BARE, TR_FN, 2, NULL, NULL, "metal::all($1 == $2)", NULL,
     TY_BOOL, "complex == complex: both parts equal (float2 == float2 is a "
     "bool2)"},
    {"operator!=", TQ_BARE, TR_FN, 2, NULL, NULL, "metal::any($1 != $2)", NULL,
     TY_BOOL, "complex != complex: either part differs"},
};

const struct tr_row *tr_table(size_t *n)
{
	*n = sizeof rows / sizeof rows[0];
	return rows;
}

const char *tr_cls_name(int cls)
{
	static const char *const names[RG_NCLS] = {"floating-point", "integral",
	                                          "bool", "complex"};
	return cls >= 0 && cls < RG_NCLS ? names[cls] : "?";
}

/* ---- environment ---- */

int tr_env_load(struct tr_env *env, const char *root)
{
	memset(env, 0, sizeof *env);
	if (ck_c10_metal_functions(root, &env->c10, &env->nc10) != 0) {
		lex_strv_free(env->c10, env->nc10);
		env->c10 = NULL;
		env->nc10 = 0;
		return -1;
	}
	return 0;
}

void tr_env_free(struct tr_env *env)
{
	lex_strv_free(env->c10, env->nc10);
	memset(env, 0, sizeof *env);
}
