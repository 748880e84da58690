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

/* The shapes that whole groups of rows share, so that a group reads as
 * its names: each macro gives the row written out in full (the struct's
 * fields in order: cxx, quals, what, nargs, real, integer, cplx, helper,
 * ty, why). */

/* a type of the C++ code: Metal's METAL, the result type TY (a type has
 * no integer, complex or helper templates; complex below has one) */
#define TYPE(name, quals, nargs, metal, ty, why)                            \
    {name, quals, TR_TYPE, nargs, metal, NULL, NULL, NULL, ty, why}

/* <cmath>'s constant NAME: Metal's own NAME (metal_math) */
#define CMATH_CONST(name)                                                   \
    {name, TQ_BARE, TR_CONST, 0, name, NULL, NULL, NULL, TY_REAL,           \
     "<cmath> " name "; Metal's metal_math"}

/* <cmath>'s constant NAME: Metal's float constant NAME_F */
#define FLOAT_CONST(name)                                                   \
    {name, TQ_BARE, TR_CONST, 0, name "_F", NULL, NULL, NULL, TY_REAL,      \
     "Metal's float constants M_*_F"}

/* c10/util/MathConstants.h's NAME<T>: Metal's float constant METAL */
#define C10_CONST(name, metal)                                              \
    {name, TQ_C10, TR_CONST, 0, metal, NULL, NULL, NULL, TY_REAL,           \
     "c10/util/MathConstants.h " name "<T>: Metal's " metal}

/* std::numeric_limits<X>::NAME(): Metal's, for real and integral X */
#define METAL_LIMIT(name)                                                   \
    {name, TQ_BARE, TR_LIMIT, 0, "metal::numeric_limits<$T>::" name "()",   \
     "metal::numeric_limits<$T>::" name "()", NULL, NULL, TY_ARG,           \
     "<limits>, Metal's metal_limits"}

/* <cmath>'s NAME of NARGS arguments: metal::precise::NAME; PRECISE with
 * the reason most of them share */
#define PRECISE_WHY(name, nargs, why)                                       \
    {name, MATHQ, TR_FN, nargs, "metal::precise::" name "($*)", NULL, NULL, \
     NULL, TY_ARG, why}
#define PRECISE(name, nargs) PRECISE_WHY(name, nargs, "<cmath>; metal::precise")

/* <cmath>'s NAME: metal::NAME, exact; INTEGER the template for integers
 * (NULL: as real), TY the result's type */
#define METAL_FN(name, nargs, integer, ty, why)                             \
    {name, MATHQ, TR_FN, nargs, "metal::" name "($*)", integer, NULL, NULL, \
     ty, why}

/* a function Metal lacks: the tree's c10::metal helper when the tree
 * defines it; C10_HELPER for <cmath>'s NAME (a helper of the same name),
 * ATEN_HELPER for ATen's one-argument NAME (the helper HELPER) */
#define C10_HELPER(name, nargs)                                             \
    {name, MATHQ, TR_FN, nargs, NULL, NULL, NULL, name, TY_ARG,             \
     "<cmath>; c10::metal::" name " when the tree defines it"}
#define ATEN_HELPER(name, helper)                                           \
    {name, TQ_BARE | TQ_AT, TR_FN, 1, NULL, NULL, NULL, helper, TY_ARG,     \
     "ATen's " name "; c10::metal::" helper " when the tree defines it"}

static const struct tr_row rows[] = {
    /* types */
    TYPE("scalar_t", TQ_BARE, 0, "$scalar", TY_NONE,
         "the type of AT_DISPATCH_*'s branch (ATen/Dispatch.h)"),
    TYPE("T", TQ_BARE, 0, "$scalar", TY_NONE, "a jiterator function's "
         "template type: the dtype of the branch"),
    TYPE("opmath_t", TQ_BARE, 0, "$opmath", TY_NONE, "at::opmath_type: float "
         "for Half and BFloat16 (ATen/OpMathType.h)"),
    TYPE("accscalar_t", TQ_BARE, 0, "$acc", TY_NONE, "at::acc_type: float on "
         "the GPU for the floating types (ATen/AccumulateType.h)"),
    TYPE("opmath_type", TQ_BARE | TQ_AT, 1, "$opmath", TY_NONE,
         "ATen/OpMathType.h"),
    TYPE("acc_type", TQ_BARE | TQ_AT, 2, "$acc", TY_NONE,
         "ATen/AccumulateType.h"),
    TYPE("float", TQ_BARE, 0, "float", TY_REAL, "C++"),
    TYPE("double", TQ_BARE, 0, "float", TY_REAL,
         "Metal has no 64-bit float: computed in float"),
    TYPE("int", TQ_BARE, 0, "int", TY_INT, "C++"),
    TYPE("int64_t", TQ_BARE | TQ_STD, 0, "long", TY_INT,
         "Metal's long is 64-bit"),
    TYPE("int32_t", TQ_BARE | TQ_STD, 0, "int", TY_INT,
         "Metal's int is 32-bit"),
    TYPE("bool", TQ_BARE, 0, "bool", TY_BOOL, "C++"),
    TYPE("auto", TQ_BARE, 0, "auto", TY_NONE, "the initializer's type"),
    {"complex", TQ_C10 | TQ_STD, TR_TYPE, 1, NULL, NULL, "float2", NULL,
     TY_CPLX, "c10::complex<T>: float2 in the complex overload "
     "(c10/metal's complex values)"},

    /* constants */
    CMATH_CONST("NAN"), CMATH_CONST("INFINITY"),
    FLOAT_CONST("M_PI"), FLOAT_CONST("M_PI_2"), FLOAT_CONST("M_PI_4"),
    FLOAT_CONST("M_1_PI"), FLOAT_CONST("M_2_SQRTPI"),
    FLOAT_CONST("M_SQRT2"), FLOAT_CONST("M_SQRT1_2"),
    FLOAT_CONST("M_E"), FLOAT_CONST("M_LN2"), FLOAT_CONST("M_LN10"),
    FLOAT_CONST("M_LOG2E"), FLOAT_CONST("M_LOG10E"),
    C10_CONST("pi", "M_PI_F"), C10_CONST("ln_2", "M_LN2_F"),
    C10_CONST("ln_10", "M_LN10_F"),
    {"true", TQ_BARE, TR_CONST, 0, "true", NULL, NULL, NULL, TY_BOOL, "C++"},
    {"false", TQ_BARE, TR_CONST, 0, "false", NULL, NULL, NULL, TY_BOOL,
     "C++"},

    /* std::numeric_limits<X>::NAME(): $T is X as translated */
    {"infinity", TQ_BARE, TR_LIMIT, 0, "INFINITY", NULL, NULL, NULL, TY_REAL,
     "<limits>; only for a floating X"},
    {"quiet_NaN", TQ_BARE, TR_LIMIT, 0, "NAN", NULL, NULL, NULL, TY_REAL,
     "<limits>; only for a floating X"},
    METAL_LIMIT("max"), METAL_LIMIT("lowest"), METAL_LIMIT("min"),
    {"epsilon", TQ_BARE, TR_LIMIT, 0, "metal::numeric_limits<$T>::epsilon()",
     NULL, NULL, NULL, TY_ARG, "<limits>, Metal's metal_limits"},

    /* member functions of a value */
    {"real", TQ_BARE, TR_METHOD, 0, "$1", NULL, "$1.x", NULL, TY_REAL,
     "c10::complex::real(): float2's x"},
    {"imag", TQ_BARE, TR_METHOD, 0, "0.0f", NULL, "$1.y", NULL, TY_REAL,
     "c10::complex::imag(): float2's y"},

    /* math that rounds: metal::precise:: */
    PRECISE_WHY("sin", 1, "<cmath>; metal::precise (correctly rounded to "
                          "Metal's limits)"),
    PRECISE("cos", 1), PRECISE("tan", 1),
    PRECISE("asin", 1), PRECISE("acos", 1), PRECISE("atan", 1),
    PRECISE("atan2", 2),
    PRECISE("sinh", 1), PRECISE("cosh", 1), PRECISE("tanh", 1),
    PRECISE("asinh", 1), PRECISE("acosh", 1), PRECISE("atanh", 1),
    PRECISE("exp", 1), PRECISE("exp2", 1),
    PRECISE("log", 1), PRECISE("log2", 1), PRECISE("log10", 1),
    PRECISE("sqrt", 1), PRECISE_WHY("rsqrt", 1, "CUDA's rsqrt; metal::precise"),
    PRECISE_WHY("pow", 2, "<cmath>; metal::precise::pow (negative bases with "
                          "integral exponents as C)"),
    PRECISE("fmod", 2),

    /* exact math: metal:: */
    METAL_FN("floor", 1, "$1", TY_ARG, "<cmath>; exact in Metal"),
    METAL_FN("ceil", 1, "$1", TY_ARG, "<cmath>; exact in Metal"),
    METAL_FN("trunc", 1, "$1", TY_ARG, "<cmath>; exact in Metal"),
    METAL_FN("round", 1, "$1", TY_ARG, "<cmath> round: halfway cases away "
             "from zero, as Metal's round"),
    {"nearbyint", MATHQ, TR_FN, 1, "metal::rint($*)", "$1", NULL, NULL,
     TY_ARG, "<cmath> nearbyint in the default rounding mode (to nearest "
     "even): Metal's rint"},
    METAL_FN("rint", 1, "$1", TY_ARG, "<cmath>; Metal's rint"),
    METAL_FN("fabs", 1, NULL, TY_ARG, "<cmath>; exact"),
    {"abs", STDQ, TR_FN, 1, "metal::fabs($*)", "metal::abs($*)",
     "metal::precise::sqrt(metal::dot($1, $1))", NULL, TY_ARG_REAL,
     "<cmath>/<cstdlib> abs; Metal's fabs and abs (integers); of a complex "
     "its magnitude, a float, as main's abs_functor writes it (sqrt of "
     "dot(z, z))"},
    METAL_FN("copysign", 2, NULL, TY_ARG, "<cmath>; exact"),
    METAL_FN("fmax", 2, NULL, TY_ARG, "<cmath> fmax (a NaN operand gives the "
             "other): Metal's fmax"),
    METAL_FN("fmin", 2, NULL, TY_ARG, "<cmath> fmin: Metal's fmin"),
    METAL_FN("isnan", 1, "false", TY_BOOL, "<cmath>; an integer is never NaN"),
    {"_isnan", TQ_BARE | TQ_AT, TR_FN, 1, "metal::isnan($*)", "false", NULL,
     NULL, TY_BOOL, "at::_isnan (c10/util/math_compat): isnan, false for "
     "integers"},
    METAL_FN("isinf", 1, "false", TY_BOOL, "<cmath>; an integer is never "
             "infinite"),
    {"_isinf", TQ_BARE | TQ_AT, TR_FN, 1, "metal::isinf($*)", "false", NULL,
     NULL, TY_BOOL, "at::_isinf: isinf, false for integers"},
    METAL_FN("isfinite", 1, "true", TY_BOOL, "<cmath>; an integer is finite"),
    METAL_FN("signbit", 1, "($1 < 0)", TY_BOOL, "<cmath> signbit (true for "
             "-0.0 and negative NaN); for integers x < 0"),
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
    C10_HELPER("log1p", 1), C10_HELPER("expm1", 1),
    C10_HELPER("erf", 1), C10_HELPER("erfc", 1),
    {"erfinv", TQ_BARE | TQ_C10, TR_FN, 1, NULL, NULL, NULL, "erfinv",
     TY_ARG, "c10::metal::erfinv when the tree defines it"},
    {"lgamma", MATHQ, TR_FN, 1, NULL, NULL, NULL, "log_gamma", TY_ARG,
     "<cmath> lgamma; c10::metal::log_gamma when the tree defines it (what "
     "main's lgamma_functor calls)"},
    {"calc_digamma", TQ_BARE | TQ_AT, TR_FN, 1, NULL, NULL, NULL, "digamma",
     TY_ARG, "ATen's calc_digamma (native/Math.h, cuda/Math.cuh); "
     "c10::metal::digamma when the tree defines it"},
    ATEN_HELPER("calc_erfinv", "erfinv"), ATEN_HELPER("calc_i0", "i0"),
    ATEN_HELPER("calc_i1", "i1"),
    {"signs_differ", TQ_BARE | TQ_C10, TR_FN, 2, "(($1 < 0) != ($2 < 0))",
     "(($1 < 0) != ($2 < 0))", NULL, NULL, TY_BOOL,
     "c10/util/TypeSafeSignMath.h signs_differ: is_negative(a) != "
     "is_negative(b)"},
    C10_HELPER("tgamma", 1), C10_HELPER("hypot", 2), C10_HELPER("cbrt", 1),

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
