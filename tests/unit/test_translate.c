/* test_translate.c — cmocka tests of tools/lib/plan/translate.c: one case
 * per row of the translation table (and a check that no row lacks one),
 * the statements a lambda body may hold, what stops a translation (with
 * the construct named), helpers inlined, captured constants and the
 * alpha, the functor of a small tree (CUDA and CPU kernels of our own
 * text), and the functor text regplan writes from the math. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/diag.h"
#include "plan/regplan.h"
#include "plan/translate.h"
#include "tree.h"

/* ---- one case per row ---- */

/* How a case evaluates: the class and output give the types (see
 * tr_expr_text): R real values (the int-to-float overload: a and b are
 * float, the result is written as is), I integers (T, the result cast to
 * T), C complex (float2, the result as T(...)), F the floating overload
 * (the result cast to T). */
enum { R, I, C, F };

struct row_case {
	const char *cxx;   /* the row */
	int what;
	unsigned qual;     /* a qualifier bit the row has (tells rows apart) */
	int how;
	const char *expr;  /* C++, a and b the parameters */
	const char *want;  /* the Metal expression returned */
};

static const struct row_case cases[] = {
    /* types */
    {"scalar_t", TR_TYPE, TQ_BARE, F, "static_cast<scalar_t>(a)",
     "static_cast<T>(a)"},
    {"T", TR_TYPE, TQ_BARE, I, "T(a) + b", "static_cast<T>(static_cast<T>(a) + b)"},
    {"opmath_t", TR_TYPE, TQ_BARE, F, "opmath_t(a) * b", "static_cast<T>(a * b)"},
    {"accscalar_t", TR_TYPE, TQ_BARE, I, "static_cast<accscalar_t>(a)",
     "static_cast<T>(static_cast<long>(a))"},
    {"opmath_type", TR_TYPE, TQ_AT, R, "static_cast<at::opmath_type<scalar_t>>(a)", "a"},
    {"acc_type", TR_TYPE, TQ_AT, R, "static_cast<at::acc_type<scalar_t, true>>(a)", "a"},
    {"float", TR_TYPE, TQ_BARE, I, "(float)a", "static_cast<T>(static_cast<float>(a))"},
    {"double", TR_TYPE, TQ_BARE, R, "static_cast<double>(a) * 2", "a * 2"},
    {"int", TR_TYPE, TQ_BARE, R, "static_cast<int>(a)", "static_cast<float>(static_cast<int>(a))"},
    {"int64_t", TR_TYPE, TQ_BARE, I, "int64_t(a)", "static_cast<T>(static_cast<long>(a))"},
    {"int32_t", TR_TYPE, TQ_STD, I, "std::int32_t(a)", "static_cast<T>(static_cast<int>(a))"},
    {"bool", TR_TYPE, TQ_BARE, I, "bool(a) ? 1 : 0", "static_cast<T>(static_cast<bool>(a) ? 1 : 0)"},
    {"auto", TR_TYPE, TQ_BARE, R, "a", "a"}, /* see test_statements */
    {"complex", TR_TYPE, TQ_C10, C, "c10::complex<float>(a.real(), 0)", "T(float2(a.x, 0))"},
    /* constants */
    {"NAN", TR_CONST, TQ_BARE, R, "NAN", "NAN"},
    {"INFINITY", TR_CONST, TQ_BARE, R, "-INFINITY", "-INFINITY"},
    {"M_PI", TR_CONST, TQ_BARE, R, "a * M_PI", "a * M_PI_F"},
    {"M_PI_2", TR_CONST, TQ_BARE, R, "M_PI_2", "M_PI_2_F"},
    {"M_PI_4", TR_CONST, TQ_BARE, R, "M_PI_4", "M_PI_4_F"},
    {"M_1_PI", TR_CONST, TQ_BARE, R, "M_1_PI", "M_1_PI_F"},
    {"M_2_SQRTPI", TR_CONST, TQ_BARE, R, "M_2_SQRTPI", "M_2_SQRTPI_F"},
    {"M_SQRT2", TR_CONST, TQ_BARE, R, "M_SQRT2", "M_SQRT2_F"},
    {"M_SQRT1_2", TR_CONST, TQ_BARE, R, "M_SQRT1_2", "M_SQRT1_2_F"},
    {"M_E", TR_CONST, TQ_BARE, R, "M_E", "M_E_F"},
    {"M_LN2", TR_CONST, TQ_BARE, R, "M_LN2", "M_LN2_F"},
    {"M_LN10", TR_CONST, TQ_BARE, R, "M_LN10", "M_LN10_F"},
    {"M_LOG2E", TR_CONST, TQ_BARE, R, "M_LOG2E", "M_LOG2E_F"},
    {"M_LOG10E", TR_CONST, TQ_BARE, R, "M_LOG10E", "M_LOG10E_F"},
    {"pi", TR_CONST, TQ_C10, R, "2 * c10::pi<double>", "2 * M_PI_F"},
    {"ln_2", TR_CONST, TQ_C10, R, "1.0 / c10::ln_2<float>", "1.0f / M_LN2_F"},
    {"ln_10", TR_CONST, TQ_C10, R, "c10::ln_10<double>", "M_LN10_F"},
    {"true", TR_CONST, TQ_BARE, I, "a > 0 || true", "static_cast<T>(a > 0 || true)"},
    {"false", TR_CONST, TQ_BARE, I, "a > 0 && false", "static_cast<T>(a > 0 && false)"},
    /* numeric_limits: of the branch's type (T in the floating overload) */
    {"infinity", TR_LIMIT, TQ_BARE, F, "std::numeric_limits<scalar_t>::infinity()",
     "static_cast<T>(INFINITY)"},
    {"quiet_NaN", TR_LIMIT, TQ_BARE, R, "std::numeric_limits<float>::quiet_NaN()", "NAN"},
    {"max", TR_LIMIT, TQ_BARE, F, "std::numeric_limits<scalar_t>::max()",
     "static_cast<T>(metal::numeric_limits<T>::max())"},
    {"lowest", TR_LIMIT, TQ_BARE, I, "std::numeric_limits<scalar_t>::lowest()",
     "static_cast<T>(metal::numeric_limits<T>::lowest())"},
    {"min", TR_LIMIT, TQ_BARE, I, "std::numeric_limits<int>::min()",
     "static_cast<T>(metal::numeric_limits<int>::min())"},
    {"epsilon", TR_LIMIT, TQ_BARE, R, "std::numeric_limits<float>::epsilon()",
     "metal::numeric_limits<float>::epsilon()"},
    /* member functions */
    {"real", TR_METHOD, TQ_BARE, C, "scalar_t(a.real(), 0)", "T(float2(a.x, 0))"},
    {"imag", TR_METHOD, TQ_BARE, C, "scalar_t(a.imag(), b.real())", "T(float2(a.y, b.x))"},
    /* math that rounds */
    {"sin", TR_FN, TQ_STD, R, "std::sin(a)", "metal::precise::sin(a)"},
    {"cos", TR_FN, TQ_GLOBAL, R, "::cos(a)", "metal::precise::cos(a)"},
    {"tan", TR_FN, TQ_COMPAT, R, "c10::cuda::compat::tan(a)", "metal::precise::tan(a)"},
    {"asin", TR_FN, TQ_AT, R, "at::asin(a)", "metal::precise::asin(a)"},
    {"acos", TR_FN, TQ_BARE, R, "acos(a)", "metal::precise::acos(a)"},
    {"atan", TR_FN, TQ_F, R, "atanf(a)", "metal::precise::atan(a)"},
    {"atan2", TR_FN, TQ_STD, R, "std::atan2(a, b)", "metal::precise::atan2(a, b)"},
    {"sinh", TR_FN, TQ_STD, R, "std::sinh(a)", "metal::precise::sinh(a)"},
    {"cosh", TR_FN, TQ_STD, R, "std::cosh(a)", "metal::precise::cosh(a)"},
    {"tanh", TR_FN, TQ_STD, R, "std::tanh(a)", "metal::precise::tanh(a)"},
    {"asinh", TR_FN, TQ_STD, R, "std::asinh(a)", "metal::precise::asinh(a)"},
    {"acosh", TR_FN, TQ_STD, R, "std::acosh(a)", "metal::precise::acosh(a)"},
    {"atanh", TR_FN, TQ_STD, R, "std::atanh(a)", "metal::precise::atanh(a)"},
    {"exp", TR_FN, TQ_STD, R, "std::exp(-a)", "metal::precise::exp(-a)"},
    {"exp2", TR_FN, TQ_GLOBAL, R, "::exp2(a)", "metal::precise::exp2(a)"},
    {"log", TR_FN, TQ_STD, R, "std::log(a)", "metal::precise::log(a)"},
    {"log2", TR_FN, TQ_STD, R, "std::log2(a)", "metal::precise::log2(a)"},
    {"log10", TR_FN, TQ_STD, R, "std::log10(a)", "metal::precise::log10(a)"},
    {"sqrt", TR_FN, TQ_STD, I, "std::sqrt(a)",
     "static_cast<T>(metal::precise::sqrt(static_cast<float>(a)))"},
    {"rsqrt", TR_FN, TQ_GLOBAL, R, "::rsqrt(a)", "metal::precise::rsqrt(a)"},
    {"pow", TR_FN, TQ_STD, R, "std::pow(a, 2)",
     "metal::precise::pow(a, static_cast<float>(2))"},
    {"fmod", TR_FN, TQ_GLOBAL, R, "::fmod(a, b)", "metal::precise::fmod(a, b)"},
    /* exact math */
    {"floor", TR_FN, TQ_STD, R, "std::floor(a)", "metal::floor(a)"},
    {"ceil", TR_FN, TQ_STD, I, "std::ceil(a)", "static_cast<T>(a)"},
    {"trunc", TR_FN, TQ_F, R, "::truncf(static_cast<float>(a))", "metal::trunc(a)"},
    {"round", TR_FN, TQ_STD, R, "std::round(a)", "metal::round(a)"},
    {"nearbyint", TR_FN, TQ_F, R, "::nearbyintf(a)", "metal::rint(a)"},
    {"rint", TR_FN, TQ_STD, R, "std::rint(a)", "metal::rint(a)"},
    {"fabs", TR_FN, TQ_STD, R, "std::fabs(a)", "metal::fabs(a)"},
    {"abs", TR_FN, TQ_STD, I, "std::abs(a)", "static_cast<T>(metal::abs(a))"},
    /* of a complex value its magnitude, a float: compared as one */
    {"abs", TR_FN, TQ_STD, C, "std::abs(b) < 0.5 ? a : b",
     "T(metal::precise::sqrt(metal::dot(b, b)) < 0.5f ? a : b)"},
    {"copysign", TR_FN, TQ_STD, R, "std::copysign(a, b)", "metal::copysign(a, b)"},
    {"fmax", TR_FN, TQ_STD, R, "std::fmax(a, b)", "metal::fmax(a, b)"},
    {"fmin", TR_FN, TQ_STD, R, "std::fmin(a, b)", "metal::fmin(a, b)"},
    {"isnan", TR_FN, TQ_STD, I, "std::isnan(a)", "static_cast<T>(false)"},
    {"_isnan", TR_FN, TQ_AT, R, "at::_isnan(a) ? b : a", "metal::isnan(a) ? b : a"},
    {"isinf", TR_FN, TQ_STD, R, "std::isinf(a) ? 0 : a", "metal::isinf(a) ? 0 : a"},
    {"_isinf", TR_FN, TQ_AT, R, "at::_isinf(a) ? 0 : a", "metal::isinf(a) ? 0 : a"},
    {"isfinite", TR_FN, TQ_STD, R, "std::isfinite(a) ? a : 0",
     "metal::isfinite(a) ? a : 0"},
    {"signbit", TR_FN, TQ_BARE, I, "signbit(a)", "static_cast<T>(a < 0)"},
    {"is_negative", TR_FN, TQ_C10, I, "c10::is_negative(a)", "static_cast<T>(a < 0)"},
    {"signum", TR_FN, TQ_C10, R, "c10::signum(a)",
     "static_cast<float>(int(0 < a) - int(a < 0))"},
    /* min and max */
    {"max", TR_FN, TQ_STD, R, "std::max(a + 1, b)", "(a + 1) < b ? b : (a + 1)"},
    {"min", TR_FN, TQ_STD, I, "std::min(a, b)", "static_cast<T>(b < a ? b : a)"},
    {"max", TR_FN, TQ_GLOBAL, R, "::max(a, b)", "metal::fmax(a, b)"},
    {"min", TR_FN, TQ_GLOBAL, I, "::min(a, b)", "static_cast<T>(metal::min(a, b))"},
    /* in the tree's c10/metal (the environment below has them) */
    {"log1p", TR_FN, TQ_STD, R, "std::log1p(a)", "c10::metal::log1p(a)"},
    {"expm1", TR_FN, TQ_GLOBAL, R, "::expm1(a)", "c10::metal::expm1(a)"},
    {"erf", TR_FN, TQ_STD, R, "std::erf(a)", "c10::metal::erf(a)"},
    {"erfc", TR_FN, TQ_STD, R, "std::erfc(a)", "c10::metal::erfc(a)"},
    {"erfinv", TR_FN, TQ_C10, R, "c10::erfinv(a)", "c10::metal::erfinv(a)"},
    {"lgamma", TR_FN, TQ_GLOBAL, R, "::lgamma(a)", "c10::metal::log_gamma(a)"},
    {"calc_digamma", TR_FN, TQ_BARE, R, "calc_digamma(a)", "c10::metal::digamma(a)"},
    {"calc_erfinv", TR_FN, TQ_BARE, R, "calc_erfinv(a)", "c10::metal::erfinv(a)"},
    {"calc_i0", TR_FN, TQ_BARE, R, "calc_i0(a)", "c10::metal::i0(a)"},
    {"calc_i1", TR_FN, TQ_BARE, R, "calc_i1(a)", "c10::metal::i1(a)"},
    {"signs_differ", TR_FN, TQ_C10, I, "c10::signs_differ(a, b)",
     "static_cast<T>((a < 0) != (b < 0))"},
    {"tgamma", TR_FN, TQ_STD, R, "std::tgamma(a)", "c10::metal::tgamma(a)"},
    {"hypot", TR_FN, TQ_GLOBAL, R, "::hypot(a, b)", "c10::metal::hypot(a, b)"},
    {"cbrt", TR_FN, TQ_STD, R, "std::cbrt(a)", "c10::metal::cbrt(a)"},
    /* complex values */
    {"conj", TR_FN, TQ_STD, C, "std::conj(a)", "T(c10::metal::conj(a))"},
    {"real", TR_FN, TQ_STD, C, "scalar_t(std::real(a), 0)", "T(float2(a.x, 0))"},
    {"imag", TR_FN, TQ_STD, C, "scalar_t(std::imag(a), 0)", "T(float2(a.y, 0))"},
    {"operator*", TR_FN, TQ_BARE, C, "a * b", "T(c10::metal::mul(a, b))"},
    {"operator/", TR_FN, TQ_BARE, C, "a / b", "T(c10::metal::div(a, b))"},
    {"operator==", TR_FN, TQ_BARE, C, "a == b ? a : b", "T(metal::all(a == b) ? a : b)"},
    {"operator!=", TR_FN, TQ_BARE, C, "a != b ? a : b", "T(metal::any(a != b) ? a : b)"},
};

static char *c10_names[] = {"log1p", "expm1", "erf", "erfc", "erfinv",
                            "log_gamma", "digamma", "i0", "i1", "tgamma",
                            "hypot", "cbrt", "conj", "mul", "div"};
static const struct tr_env env_all = {c10_names, sizeof c10_names / sizeof *c10_names};
static const struct tr_env env_none = {NULL, 0};

static char *expr_of(const char *expr, int how, const struct tr_env *env,
                     char **why)
{
	switch (how) {
	case R: return tr_expr_text(expr, RG_CLS_INTEGRAL, "float", env, why);
	case I: return tr_expr_text(expr, RG_CLS_INTEGRAL, NULL, env, why);
	case C: return tr_expr_text(expr, RG_CLS_COMPLEX, NULL, env, why);
	default: return tr_expr_text(expr, RG_CLS_FLOAT, NULL, env, why);
	}
}

static void test_every_row_has_a_case(void **state)
{
	size_t n, i, k;
	const struct tr_row *rows = tr_table(&n);
	(void)state;
	assert_true(n >= 100);
	for (i = 0; i < n; i++) {
		int found = 0;
		for (k = 0; k < sizeof cases / sizeof cases[0] && !found; k++)
			found = !strcmp(cases[k].cxx, rows[i].cxx) &&
			        cases[k].what == rows[i].what &&
			        (rows[i].quals & cases[k].qual);
		if (!found)
			fail_msg("row %zu (%s) has no test case", i, rows[i].cxx);
		assert_non_null(rows[i].why);
	}
}

static void test_row_cases(void **state)
{
	size_t k, bad = 0;
	(void)state;
	for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		char *why = NULL;
		char *got = expr_of(cases[k].expr, cases[k].how, &env_all, &why);
		if (!got || strcmp(got, cases[k].want) != 0) {
			print_message("%s: %s: got '%s', want '%s'\n", cases[k].cxx,
			              cases[k].expr, got ? got : why ? why : "?",
			              cases[k].want);
			bad++;
		}
		free(got);
		free(why);
	}
	assert_int_equal(bad, 0);
}

/* without the tree's helpers: the rows that need one are refused, conj
 * has its own formula */
static void test_rows_without_helpers(void **state)
{
	char *why = NULL, *got;
	(void)state;
	got = expr_of("std::log1p(a)", R, &env_none, &why);
	assert_null(got);
	assert_string_equal(why, "std::log1p (no Metal function, and the tree's "
	                         "c10/metal defines no log1p)");
	free(why);
	got = expr_of("std::conj(a)", C, &env_none, &why);
	assert_string_equal(got, "T(float2(a.x, -a.y))");
	free(got);
	got = expr_of("a * b", C, &env_none, &why);
	assert_null(got);
	assert_string_equal(why, "complex * (the tree's c10/metal defines no mul)");
	free(why);
	/* a c10/metal helper of real values is not used on complex ones */
	got = expr_of("std::log1p(a)", C, &env_all, &why);
	assert_null(got);
	assert_string_equal(why, "std::log1p on complex values");
	free(why);
	got = expr_of("std::exp(a)", C, &env_all, &why);
	assert_null(got);
	assert_string_equal(why, "std::exp on complex values");
	free(why);
}

/* complex values meet reals as C++ does: a + r adds to the real part */
static void test_complex_arithmetic(void **state)
{
	char *why = NULL, *got;
	(void)state;
	got = expr_of("a + 1", C, &env_all, &why);
	assert_string_equal(got, "T(a + float2(1, 0))");
	free(got);
	got = expr_of("a * 2.5", C, &env_all, &why);
	assert_string_equal(got, "T(a * 2.5f)");
	free(got);
	got = expr_of("1 / a", C, &env_all, &why);
	assert_string_equal(got, "T(c10::metal::div(float2(1, 0), a))");
	free(got);
	got = expr_of("a < b", C, &env_all, &why);
	assert_null(got);
	assert_string_equal(why, "the operator < on complex values");
	free(why);
	/* the one of the complex type: (1, 0) (jiterator strings' lerp) */
	got = expr_of("(static_cast<T>(1) - b) * a", C, &env_all, &why);
	assert_string_equal(got, "T(c10::metal::mul(float2(1, 0) - b, a))");
	free(got);
	/* magnitudes compare as floats; the complex value itself does not */
	got = expr_of("std::abs(a) <= std::abs(b) ? a : b", C, &env_all, &why);
	assert_string_equal(got, "T(metal::precise::sqrt(metal::dot(a, a)) <= "
	                         "metal::precise::sqrt(metal::dot(b, b)) ? a : b)");
	free(got);
	got = expr_of("std::abs(a) < b ? a : b", C, &env_all, &why);
	assert_null(got);
	assert_string_equal(why, "the operator < on complex values");
	free(why);
	got = expr_of("a % b", R, &env_all, &why);
	assert_null(got);
	assert_string_equal(why, "the operator % on floating values");
	free(why);
}

/* ---- statements and refusals ---- */

static struct ck_param params2[2] = {{"scalar_t", "a"}, {"scalar_t", "b"}};

static struct tr_out run(const char *body, int cls, const char *in,
                         const char *out, int kind, const char *captures,
                         char *const *outer, size_t nouter)
{
	struct ck_code c;
	struct tr_target t;
	struct tr_out r;
	memset(&c, 0, sizeof c);
	c.params = params2;
	c.nparams = kind == MR_UNARY || kind == MR_UNARY_ALPHA ? 1 : 2;
	c.captures = (char *)captures;
	c.file = "k.cu";
	c.line = 10;
	c.body_line = 10;
	c.body = (char *)body;
	t.cls = cls;
	t.in = in;
	t.out = out;
	t.kind = kind;
	tr_code(&c, NULL, 0, outer, nouter, &t, &env_all, &r);
	return r;
}

static void test_statements(void **state)
{
	struct tr_out r;
	(void)state;
	r = run("\n  if (at::_isnan(b)) {\n    return NAN;\n  } else if (a == 0)\n"
	        "    return 0;\n  auto z = a * std::log(b);\n  z += 1;\n"
	        "  using acc_t = at::opmath_type<scalar_t>;\n  const acc_t w = z;\n"
	        "  return w;\n",
	        RG_CLS_FLOAT, "float", "float", MR_BINARY, "", NULL, 0);
	assert_true(r.ok);
	assert_string_equal(r.params[0], "a_in");
	assert_string_equal(r.params[1], "b_in");
	assert_string_equal(r.text,
	                    "    const float a = static_cast<float>(a_in);\n"
	                    "    const float b = static_cast<float>(b_in);\n"
	                    "    if (metal::isnan(b)) {\n"
	                    "      return static_cast<T>(NAN);\n"
	                    "    } else if (a == 0) {\n"
	                    "      return static_cast<T>(0);\n"
	                    "    }\n"
	                    "    auto z = a * metal::precise::log(b);\n"
	                    "    z += 1;\n"
	                    "    const float w = z;\n"
	                    "    return static_cast<T>(w);\n");
	tr_out_free(&r);
	/* integers are used as they are; a parameter assigned gets a copy */
	r = run("a = a < 0 ? -a : a; return a % b;", RG_CLS_INTEGRAL, "int", "int",
	        MR_BINARY, "", NULL, 0);
	assert_true(r.ok);
	assert_string_equal(r.params[0], "a_in");
	assert_string_equal(r.params[1], "b");
	assert_string_equal(r.text, "    T a = a_in;\n"
	                            "    a = a < 0 ? -a : a;\n"
	                            "    return static_cast<T>(a % b);\n");
	tr_out_free(&r);
	/* a local nothing reads is left out (2.6.0's complex lerp lambdas
	 * copy their parameters to opmath locals they never use); one read
	 * later stays */
	r = run("opmath_t a_f = a;\n  const opmath_t b_f = b, two = 2;\n"
	        "  return a * two;", RG_CLS_FLOAT, "float", "float", MR_BINARY, "",
	        NULL, 0);
	assert_true(r.ok);
	assert_string_equal(r.text, "    const float a = static_cast<float>(a_in);\n"
	                            "    const float two = 2;\n"
	                            "    return static_cast<T>(a * two);\n");
	tr_out_free(&r);
	/* bool output from floats */
	r = run("return a > b;", RG_CLS_FLOAT, "float", "bool", MR_BINARY, "", NULL, 0);
	assert_string_equal(r.text, "    const float a = static_cast<float>(a_in);\n"
	                            "    const float b = static_cast<float>(b_in);\n"
	                            "    return a > b;\n");
	tr_out_free(&r);
}

struct refusal {
	const char *body;
	const char *construct;
	unsigned long line;
};

static void test_refusals(void **state)
{
	static const struct refusal v[] = {
	    {"\n  scalar_t s = 0;\n  for (int i = 0; i < 3; i++) s += a;\n  return s;",
	     "a loop (for)", 12},
	    {"while (a > 1) a /= 2; return a;", "a loop (while)", 10},
	    {"return Vectorized<scalar_t>(a).exp();", "Vectorized", 10},
	    {"return a + beta;", "the captured value beta", 10},
	    {"return my_helper(a);", "the helper my_helper (not a function of the "
	                             "lambda's file whose body is one return)", 10},
	    {"CUDA_KERNEL_ASSERT(a > 0); return a;", "a statement that is not an "
	                                             "assignment", 10},
	    {"return a++;", "an increment (++ or --)", 10},
	    {"return a[0];", "an index ([])", 10},
	    {"TORCH_CHECK(b != 0, \"division by zero\"); return a / b;",
	     "a string or character literal", 10},
	    {"switch (a) { case 0: return 1; } return a;", "a switch", 10},
	    {"return a.exp();", "the member function .exp()", 10},
	    {"auto f = [](scalar_t x) { return x; }; return f(a);", "a lambda", 10},
	    {"return a + ;", "a construct the translator does not read (near `;`)", 10},
	    {"return static_cast<value_t>(a);", "the type value_t", 10},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof v / sizeof v[0]; i++) {
		struct tr_out r = run(v[i].body, RG_CLS_FLOAT, "float", "float", MR_BINARY,
		                      i == 3 ? "beta" : "", NULL, 0);
		assert_false(r.ok);
		if (strcmp(r.construct, v[i].construct) != 0)
			fail_msg("%s: got '%s', want '%s'", v[i].body, r.construct,
			         v[i].construct);
		assert_int_equal(r.line, v[i].line);
		tr_out_free(&r);
	}
	/* a complex value as the condition of an if, of an else-if (once
	 * written as it stands: Metal does not read a float2 as a truth
	 * value) and of a ?: */
	{
		static const char *const conds[] = {
		    "if (a) return b; return a;",
		    "if (a == b) return b; else if (a) return a; return b;",
		    "return a ? a : b;"};
		for (i = 0; i < sizeof conds / sizeof conds[0]; i++) {
			struct tr_out r = run(conds[i], RG_CLS_COMPLEX, "c10::complex<float>",
			                      "c10::complex<float>", MR_BINARY, "", NULL, 0);
			assert_false(r.ok);
			if (strcmp(r.construct, "a complex value as a condition") != 0)
				fail_msg("%s: got '%s'", conds[i], r.construct);
			tr_out_free(&r);
		}
	}
	/* nesting too deep for the parser's recursion */
	{
		char *deep = xmalloc(2 * 1000 + 16);
		struct tr_out r;
		size_t k;
		strcpy(deep, "return ");
		for (k = 0; k < 1000; k++)
			strcat(deep, "(");
		strcat(deep, "a");
		for (k = 0; k < 1000; k++)
			strcat(deep, ")");
		strcat(deep, ";");
		r = run(deep, RG_CLS_FLOAT, "float", "float", MR_BINARY, "", NULL, 0);
		assert_false(r.ok);
		assert_string_equal(r.construct, "nesting deeper than 200 levels");
		tr_out_free(&r);
		free(deep);
	}
	/* parameters */
	{
		struct ck_code c;
		struct ck_param p[1] = {{"c10::complex<float>", "z"}};
		struct tr_target t = {RG_CLS_FLOAT, "float", "float", MR_UNARY};
		struct tr_out r;
		memset(&c, 0, sizeof c);
		c.params = p;
		c.nparams = 1;
		c.body = "return z;";
		c.line = 4;
		tr_code(&c, NULL, 0, NULL, 0, &t, &env_all, &r);
		assert_string_equal(r.construct, "a parameter of type c10::complex<float>");
		assert_int_equal(r.line, 4);
		tr_out_free(&r);
		c.nparams = 1;
		t.kind = MR_BINARY;
		tr_code(&c, NULL, 0, NULL, 0, &t, &env_all, &r);
		assert_string_equal(r.construct, "1 parameters for a binary kernel");
		tr_out_free(&r);
	}
}

/* a bool parameter of a floating-point or complex overload is a
 * condition the kernel hands over in the inputs' dtype (where's cond_val,
 * issue #28): tested for nonzero; an integral overload takes it as T */
static void test_condition_param(void **state)
{
	struct ck_code c;
	struct ck_param p[3] = {{"bool", "cond_val"}, {"scalar_t", "self_val"},
	                        {"scalar_t", "other_val"}};
	struct tr_target t = {RG_CLS_FLOAT, "float", "float", MR_TERNARY};
	struct tr_out r;
	(void)state;
	memset(&c, 0, sizeof c);
	c.params = p;
	c.nparams = 3;
	c.file = "k.cu";
	c.line = 18;
	c.body_line = 18;
	c.body = "return cond_val ? self_val : other_val;";
	tr_code(&c, NULL, 0, NULL, 0, &t, &env_all, &r);
	assert_true(r.ok);
	assert_string_equal(r.text,
	                    "    const bool cond_val = static_cast<float>(a) != 0.0f;\n"
	                    "    const float self_val = static_cast<float>(b);\n"
	                    "    const float other_val = static_cast<float>(c);\n"
	                    "    return static_cast<T>(cond_val ? self_val : other_val);\n");
	tr_out_free(&r);
	t.cls = RG_CLS_COMPLEX;
	t.in = t.out = "float2";
	tr_code(&c, NULL, 0, NULL, 0, &t, &env_all, &r);
	assert_true(r.ok);
	assert_string_equal(r.text,
	                    "    const bool cond_val = a.x != 0 || a.y != 0;\n"
	                    "    const float2 self_val = float2(b);\n"
	                    "    const float2 other_val = float2(c);\n"
	                    "    return T(cond_val ? self_val : other_val);\n");
	tr_out_free(&r);
	t.cls = RG_CLS_INTEGRAL;
	t.in = t.out = "long";
	tr_code(&c, NULL, 0, NULL, 0, &t, &env_all, &r);
	assert_true(r.ok);
	assert_string_equal(r.params[0], "cond_val");
	assert_string_equal(r.text,
	                    "    return static_cast<T>(cond_val ? self_val : other_val);\n");
	tr_out_free(&r);
}

/* helpers of the file whose body is one return are inlined, the overload
 * of the class's kind chosen */
static void test_helpers(void **state)
{
	struct ck_param hp[1] = {{"scalar_t", "v"}};
	struct ck_param hc[1] = {{"c10::complex<T>", "v"}};
	struct ck_code h[3];
	struct ck_code c;
	struct ck_param p[1] = {{"scalar_t", "a"}};
	struct tr_target t = {RG_CLS_FLOAT, "float", "float", MR_UNARY};
	struct tr_out r;
	(void)state;
	memset(h, 0, sizeof h);
	h[0].name = "wrap";
	h[0].params = hc;
	h[0].nparams = 1;
	h[0].body = "return c10::complex<T>(std::ceil(v.real()), 0);";
	h[1].name = "wrap";
	h[1].params = hp;
	h[1].nparams = 1;
	h[1].templ = 1;
	h[1].body = "return std::ceil(v + 1);";
	h[2].name = "long_one";
	h[2].params = hp;
	h[2].nparams = 1;
	h[2].file = "k.cu";
	h[2].line = 3;
	h[2].body = "if (v > 0) return v; return -v;";
	memset(&c, 0, sizeof c);
	c.params = p;
	c.nparams = 1;
	c.body = "return wrap(a * 2);";
	tr_code(&c, h, 3, NULL, 0, &t, &env_all, &r);
	assert_true(r.ok);
	assert_string_equal(r.text, "    const float a = static_cast<float>(x);\n"
	                            "    return static_cast<T>(metal::ceil((a * 2) + 1));\n");
	tr_out_free(&r);
	/* the complex overload for complex values */
	t.cls = RG_CLS_COMPLEX;
	t.in = t.out = "float2";
	tr_code(&c, h, 3, NULL, 0, &t, &env_all, &r);
	assert_true(r.ok);
	assert_string_equal(r.text, "    const float2 a = float2(x);\n"
	                            "    return T(float2(metal::ceil((a * 2).x), 0));\n");
	tr_out_free(&r);
	/* no complex overload of long_one: not inlined for complex values */
	c.body = "return long_one(a);";
	tr_code(&c, h, 3, NULL, 0, &t, &env_all, &r);
	assert_false(r.ok);
	assert_string_equal(r.construct, "the helper long_one (not a function of "
	                                 "the lambda's file whose body is one return)");
	tr_out_free(&r);
	c.body = "return long_one(a);";
	t.cls = RG_CLS_FLOAT;
	t.in = t.out = "float";
	tr_code(&c, h, 3, NULL, 0, &t, &env_all, &r);
	assert_string_equal(r.construct,
	                    "the helper long_one (k.cu:3: more than aliases, "
	                    "locals with a value and one return)");
	tr_out_free(&r);
}

/* a helper of several statements (Lerp.h's lerp, inlined from an ATen
 * header): its aliases of opmath_type<its template parameter> are the
 * functor's opmath (float for half and bfloat), its locals name their
 * values, its helper calls are inlined in turn */
static void test_helper_statements(void **state)
{
	struct ck_param hs[1] = {{"scalar_t", "weight"}};
	struct ck_param hl[3] = {{"scalar_t", "self_"}, {"scalar_t", "end_"},
	                         {"weight_t", "weight_"}};
	struct ck_code h[2];
	struct ck_code c;
	struct ck_param p[3] = {{"scalar_t", "s"}, {"scalar_t", "e"},
	                        {"scalar_t", "w"}};
	struct tr_target t = {RG_CLS_FLOAT, "half", "half", MR_TERNARY};
	struct tr_out r;
	(void)state;
	memset(h, 0, sizeof h);
	h[0].name = "small";
	h[0].params = hs;
	h[0].nparams = 1;
	h[0].templ = 1;
	h[0].body = "return std::abs(weight) < scalar_t(0.5);";
	h[1].name = "mix3";
	h[1].params = hl;
	h[1].nparams = 3;
	h[1].templ = 1;
	h[1].file = "aten/src/ATen/native/Mix.h";
	h[1].line = 9;
	h[1].body = "using opmath_t = at::opmath_type<scalar_t>;\n"
	            "using opmath_weight_t = at::opmath_type<weight_t>;\n"
	            "opmath_t self = self_;\n"
	            "opmath_t end = end_;\n"
	            "opmath_weight_t weight = weight_;\n"
	            "return small(weight) ? self + weight * (end - self)\n"
	            "    : end - (end - self) * (opmath_t(1) - weight);";
	memset(&c, 0, sizeof c);
	c.params = p;
	c.nparams = 3;
	c.body = "return mix3(s, e, w);";
	tr_code(&c, h, 2, NULL, 0, &t, &env_all, &r);
	assert_true(r.ok);
	assert_string_equal(r.text,
	                    "    const float s = static_cast<float>(a);\n"
	                    "    const float e = static_cast<float>(b);\n"
	                    "    const float w = static_cast<float>(c);\n"
	                    "    return static_cast<T>((metal::fabs(w) < "
	                    "static_cast<T>(0.5f)) ? s + w * (e - s) : e - (e - s) "
	                    "* (1.0f - w));\n");
	tr_out_free(&r);
	/* the complex overload: the helper written for complex values is
	 * preferred to the generic one, its c10::complex<scalar_t>'s
	 * scalar_t is the type of the parts (float); the generic mix3 serves
	 * complex values too (it has no complex overload); the lambda's
	 * local that nothing reads is left out */
	{
		struct ck_param hc[1] = {{"c10::complex<scalar_t>", "weight"}};
		struct ck_code h3[3];
		struct tr_target tc = {RG_CLS_COMPLEX, "float2", "float2", MR_TERNARY};
		memcpy(h3, h, sizeof h);
		memset(&h3[2], 0, sizeof h3[2]);
		h3[2].name = "small";
		h3[2].params = hc;
		h3[2].nparams = 1;
		h3[2].templ = 1;
		h3[2].body = "return (weight.real() * weight.real() + weight.imag() * "
		             "weight.imag()) < scalar_t(0.25);";
		c.body = "opmath_t s_f = s;\nreturn mix3(s, e, w);";
		tr_code(&c, h3, 3, NULL, 0, &tc, &env_all, &r);
		assert_true(r.ok);
		assert_string_equal(r.text,
		                    "    const float2 s = float2(a);\n"
		                    "    const float2 e = float2(b);\n"
		                    "    const float2 w = float2(c);\n"
		                    "    return T(((w.x * w.x + w.y * w.y) < "
		                    "static_cast<float>(0.25f)) ? s + c10::metal::mul(w, e - s) "
		                    ": e - c10::metal::mul(e - s, float2(1, 0) - w));\n");
		tr_out_free(&r);
		/* without the complex overload, the generic small compares the
		 * magnitude with its scalar_t(0.5), a complex value there (as
		 * C++ would refuse it) */
		tr_code(&c, h3, 2, NULL, 0, &tc, &env_all, &r);
		assert_false(r.ok);
		assert_string_equal(r.construct, "the operator < on complex values");
		tr_out_free(&r);
		/* a template of a real parameter type is not for complex values */
		h3[0].params = (struct ck_param[1]){{"float", "weight"}};
		tr_code(&c, h3, 2, NULL, 0, &tc, &env_all, &r);
		assert_false(r.ok);
		assert_string_equal(r.construct, "the helper small (not a function of "
		                                 "the lambda's file whose body is one "
		                                 "return)");
		tr_out_free(&r);
		c.body = "return mix3(s, e, w);";
	}
	/* an alias of a type that is no parameter's: refused, named */
	h[1].body = "using opmath_t = at::opmath_type<other_t>;\n"
	            "opmath_t self = self_;\nreturn self;";
	tr_code(&c, h, 2, NULL, 0, &t, &env_all, &r);
	assert_false(r.ok);
	assert_string_equal(r.construct, "the type at::opmath_type<...> of "
	                                 "another type than scalar_t");
	tr_out_free(&r);
	/* a local without an initializer: not inlined */
	h[1].body = "float self;\nreturn self_;";
	tr_code(&c, h, 2, NULL, 0, &t, &env_all, &r);
	assert_false(r.ok);
	assert_string_equal(r.construct, "the helper mix3 (aten/src/ATen/native/"
	                                 "Mix.h:9: more than aliases, locals with "
	                                 "a value and one return)");
	tr_out_free(&r);
}

/* captured constants are declared first; a captured Scalar is the alpha */
static void test_captures(void **state)
{
	char *outer[] = {"const opmath_t three(3.0f);", "const opmath_t unused = 1;",
	                 "const auto sixth = opmath_t(1) / (three + three);",
	                 "auto beta = beta_scalar.to<scalar_t>();"};
	struct tr_out r;
	(void)state;
	r = run("return a * sixth + three;", RG_CLS_FLOAT, "float", "float",
	        MR_UNARY, "three, sixth", outer, 3);
	assert_true(r.ok);
	assert_string_equal(r.text,
	                    "    const float a = static_cast<float>(x);\n"
	                    "    const float three = 3.0f;\n"
	                    "    const auto sixth = 1.0f / (three + three);\n"
	                    "    return static_cast<T>(a * sixth + three);\n");
	tr_out_free(&r);
	r = run("return a + beta * b;", RG_CLS_FLOAT, "float", "float",
	        MR_BINARY_ALPHA, "=", outer, 4);
	assert_true(r.ok);
	assert_string_equal(r.text,
	                    "    const float a = static_cast<float>(a_in);\n"
	                    "    const float b = static_cast<float>(b_in);\n"
	                    "    return static_cast<T>(a + static_cast<T>(alpha) * b);\n");
	tr_out_free(&r);
	r = run("return a + beta * b;", RG_CLS_FLOAT, "float", "float", MR_BINARY,
	        "=", outer, 4);
	assert_false(r.ok);
	assert_string_equal(r.construct, "the captured value beta (from a scalar "
	                                 "argument: a kernel with an alpha)");
	tr_out_free(&r);
}

/* ---- the functor of a small tree ---- */

static char *root;

static int setup(void **state)
{
	static const char cu[] =
	    "namespace at::native {\n"
	    "template <typename T> static inline T twice(T v) { return v + v; }\n"
	    "void flip_kernel_cuda(TensorIteratorBase& iter) {\n"
	    "  if (iter.dtype() == ScalarType::Bool) {\n"
	    "    gpu_kernel(iter, []GPU_LAMBDA(bool a) { return !a; });\n"
	    "  } else {\n"
	    "    AT_DISPATCH_ALL_TYPES_AND(kHalf, iter.dtype(), \"flip\", [&]() {\n"
	    "      gpu_kernel(iter, []GPU_LAMBDA(scalar_t a) -> scalar_t {\n"
	    "        return twice(-a);\n"
	    "      });\n"
	    "    });\n"
	    "  }\n"
	    "}\n"
	    "void odd_kernel_cuda(TensorIteratorBase& iter) {\n"
	    "  AT_DISPATCH_FLOATING_TYPES(iter.dtype(), \"odd\", [&]() {\n"
	    "    gpu_kernel(iter, []GPU_LAMBDA(scalar_t a) -> scalar_t {\n"
	    "      while (a > 1) { a -= 1; }\n"
	    "      return a;\n"
	    "    });\n"
	    "  });\n"
	    "}\n"
	    "REGISTER_DISPATCH(flip_stub, &flip_kernel_cuda)\n"
	    "REGISTER_DISPATCH(odd_stub, &odd_kernel_cuda)\n"
	    "}\n";
	static const char cpu[] =
	    "static void odd_kernel(TensorIteratorBase& iter) {\n"
	    "  AT_DISPATCH_FLOATING_TYPES(iter.dtype(), \"odd\", [&]() {\n"
	    "    cpu_kernel(iter, [](scalar_t a) -> scalar_t { return std::fmod(a, 1); });\n"
	    "  });\n"
	    "}\n";
	(void)state;
	root = xstrdup("/tmp/test_translate.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	tree_put(root, "aten/src/ATen/native/cuda/Flip.cu", cu, strlen(cu));
	tree_put(root, "aten/src/ATen/native/cpu/Odd.cpp", cpu, strlen(cpu));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tree_remove(root);
	free(root);
	return 0;
}

static void test_functor(void **state)
{
	static struct mr_pair pairs[] = {{"float", NULL, "float"},
	                                 {"half", NULL, "half"},
	                                 {"int", NULL, "int"},
	                                 {"bool", NULL, "bool"}};
	struct tr_plan tp;
	char *text;
	(void)state;
	pairs[0].in = pairs[0].out = mr_dtype("float", 5);
	pairs[1].in = pairs[1].out = mr_dtype("half", 4);
	pairs[2].in = pairs[2].out = mr_dtype("int", 3);
	pairs[3].in = pairs[3].out = mr_dtype("bool", 4);
	assert_int_equal(tr_plan_functor(&tp, root, "flip_stub", NULL, MR_UNARY,
	                                 "flip", pairs, 4), 0);
	/* bool's lambda is not the integers': an overload of its own */
	assert_true(tp.math.split_bool);
	assert_int_equal(tp.nov, 3);
	assert_int_equal(tp.ov[0].cls, RG_CLS_FLOAT);
	assert_int_equal(tp.ov[1].cls, RG_CLS_INTEGRAL);
	assert_int_equal(tp.ov[2].cls, RG_CLS_BOOL);
	assert_true(tp.ov[0].translated && tp.ov[1].translated && tp.ov[2].translated);
	assert_string_equal(tp.ov[2].file, "aten/src/ATen/native/cuda/Flip.cu");
	assert_int_equal(tp.ov[2].line, 5);
	assert_int_equal(tp.ov[0].verdict, TR_VERDICT_NONE);
	/* a verdict of mps-try: a match is kept, a mismatch becomes a comment */
	tr_plan_verdict(&tp, 0, TR_VERDICT_MATCH, "matches CPU on 64 values");
	assert_true(tp.ov[0].translated);
	assert_string_equal(tp.ov[0].verdict_text, "matches CPU on 64 values");
	tr_plan_verdict(&tp, 1, TR_VERDICT_MISMATCH, "int 3: 6, CPU -6");
	assert_false(tp.ov[1].translated);
	assert_null(tp.math.body[RG_CLS_INTEGRAL]);
	assert_string_equal(tp.math.note[RG_CLS_INTEGRAL],
	                    "    // left to you by mps-migrate: the translation does "
	                    "not match the CPU (int\n"
	                    "    //     3: 6, CPU -6):\n" /* within 80 columns */
	                    "    //   return static_cast<T>((-a) + (-a));\n");
	text = rg_functor_text(MR_UNARY, "flip", pairs, 4, &tp.math, "\n", 1, 1);
	assert_non_null(strstr(text, "  inline T operator()(const T x) {\n"
	                             "    // left to you by mps-migrate: the "
	                             "translation does not match"));
	assert_non_null(strstr(text, "    // TODO(mps-register): the math of flip "
	                             "for integral inputs goes here\n    return x;\n"));
	free(text);
	tr_plan_free(&tp);
	assert_int_equal(tr_plan_functor(&tp, root, "flip_stub", NULL, MR_UNARY,
	                                 "flip", pairs, 4), 0);
	text = rg_functor_text(MR_UNARY, "flip", pairs, 4, &tp.math, "\n", 1, 1);
	assert_string_equal(
	    text,
	    "struct flip_functor {\n"
	    "  template <typename T, enable_if_t<is_scalar_floating_point_v<T>, bool> = true>\n"
	    "  inline T operator()(const T x) {\n"
	    "    const float a = static_cast<float>(x);\n"
	    "    return static_cast<T>((-a) + (-a));\n"
	    "  }\n"
	    "  template <typename T, enable_if_t<is_scalar_integral_v<T>, bool> = true>\n"
	    "  inline T operator()(const T a) {\n"
	    "    return static_cast<T>((-a) + (-a));\n"
	    "  }\n"
	    "  inline bool operator()(const bool a) {\n"
	    "    return !a;\n"
	    "  }\n"
	    "};\n");
	free(text);
	tr_plan_free(&tp);
}

/* issue #25: overloads whose translated bodies coincide are one overload,
 * as PyTorch's kernel files write one template (sign: floating-point and
 * integral both (x > 0) - (x < 0)); the written code carries no comment
 * of the tools */
static void test_functor_merged(void **state)
{
	static struct mr_pair p3[3], p2[2], pf[2];
	struct rg_math m;
	char *text;
	const char *same = "    return (x > 0) - (x < 0);\n";
	(void)state;
	p3[0].in = p3[0].out = mr_dtype("float", 5);
	p3[1].in = p3[1].out = mr_dtype("int", 3);
	p3[2].in = p3[2].out = mr_dtype("float2", 6);
	memset(&m, 0, sizeof m);
	m.body[RG_CLS_FLOAT] = same;
	m.body[RG_CLS_INTEGRAL] = same;
	m.body[RG_CLS_COMPLEX] = "    return x;\n";
	/* floating-point and integral as one, complex apart */
	text = rg_functor_text(MR_UNARY, "sign", p3, 3, &m, "\n", 1, 1);
	assert_string_equal(text,
	    "struct sign_functor {\n"
	    "  template <typename T, enable_if_t<!is_complex_v<T>, bool> = true>\n"
	    "  inline T operator()(const T x) {\n"
	    "    return (x > 0) - (x < 0);\n"
	    "  }\n"
	    "  template <typename T, enable_if_t<is_complex_v<T>, bool> = true>\n"
	    "  inline T operator()(const T x) {\n"
	    "    return x;\n"
	    "  }\n"
	    "};\n");
	free(text);
	text = rg_functor_text(MR_UNARY, "sign", p3, 3, &m, "\n", 0, 0);
	assert_non_null(strstr(text, "      ::metal::enable_if_t<"
	                             "!::c10::metal::is_complex_v<T>, bool> = true>\n"));
	free(text);
	/* every class the same: one template, no condition */
	p2[0] = p3[0];
	p2[1] = p3[1];
	text = rg_functor_text(MR_UNARY, "sign", p2, 2, &m, "\n", 1, 1);
	assert_string_equal(text,
	    "struct sign_functor {\n"
	    "  template <typename T>\n"
	    "  inline T operator()(const T x) {\n"
	    "    return (x > 0) - (x < 0);\n"
	    "  }\n"
	    "};\n");
	free(text);
	/* the same text under different return types stays apart (int in,
	 * float out: the integral overload returns float) */
	pf[0] = p3[0];
	pf[1].in = mr_dtype("int", 3);
	pf[1].out = mr_dtype("float", 5);
	text = rg_functor_text(MR_UNARY, "sign", pf, 2, &m, "\n", 1, 1);
	assert_non_null(strstr(text, "is_scalar_floating_point_v<T>"));
	assert_non_null(strstr(text, "is_scalar_integral_v<T>"));
	free(text);
	/* different parameter names: apart */
	m.params[RG_CLS_INTEGRAL][0] = "a";
	text = rg_functor_text(MR_UNARY, "sign", p2, 2, &m, "\n", 1, 1);
	assert_non_null(strstr(text, "is_scalar_integral_v<T>"));
	free(text);
	/* a placeholder is never merged */
	m.params[RG_CLS_INTEGRAL][0] = NULL;
	m.body[RG_CLS_INTEGRAL] = NULL;
	text = rg_functor_text(MR_UNARY, "sign", p2, 2, &m, "\n", 1, 1);
	assert_non_null(strstr(text, "TODO(mps-register)"));
	assert_non_null(strstr(text, "is_scalar_floating_point_v<T>"));
	free(text);
}

static void test_functor_left(void **state)
{
	struct mr_pair pairs[1];
	struct cs_dtypes cpu;
	struct tr_plan tp;
	(void)state;
	pairs[0].in = pairs[0].out = mr_dtype("float", 5);
	pairs[0].alpha = NULL;
	memset(&cpu, 0, sizeof cpu);
	cpu.found = 1;
	cpu.fn = "odd_kernel";
	cpu.def.file = "aten/src/ATen/native/cpu/Odd.cpp";
	cpu.def.line = 1;
	assert_int_equal(tr_plan_functor(&tp, root, "odd_stub", &cpu, MR_UNARY,
	                                 "odd", pairs, 1), 0);
	/* the CUDA lambda loops; the CPU one translates */
	assert_true(tp.ov[0].translated);
	assert_string_equal(tp.ov[0].side, "CPU");
	assert_int_equal(tp.ov[0].line, 3);
	tr_plan_free(&tp);
	cpu.fn = "missing_kernel";
	assert_int_equal(tr_plan_functor(&tp, root, "odd_stub", &cpu, MR_UNARY,
	                                 "odd", pairs, 1), 0);
	assert_false(tp.ov[0].translated);
	assert_string_equal(tp.ov[0].construct, "a loop (while)");
	assert_string_equal(tp.ov[0].file, "aten/src/ATen/native/cuda/Flip.cu");
	assert_int_equal(tp.ov[0].line, 17);
	assert_null(tp.math.body[RG_CLS_FLOAT]);
	assert_string_equal(tp.math.note[RG_CLS_FLOAT],
	                    "    // left to you by mps-migrate: a loop (while) at\n"
	                    "    //     aten/src/ATen/native/cuda/Flip.cu:17\n"
	                    "    // CUDA, aten/src/ATen/native/cuda/Flip.cu:16 "
	                    "(gpu_kernel, for Double,\n"
	                    "    //     Float):\n"
	                    "    //   while (a > 1) { a -= 1; }\n"
	                    "    //   return a;\n");
	tr_plan_free(&tp);
	/* no registration at all */
	assert_int_equal(tr_plan_functor(&tp, root, "none_stub", NULL, MR_UNARY,
	                                 "none", pairs, 1), 0);
	assert_false(tp.ov[0].translated);
	assert_string_equal(tp.ov[0].construct,
	                    "no CUDA or CPU lambda for Float was read (CUDA: no "
	                    "REGISTER_DISPATCH(none_stub, ...) in "
	                    "aten/src/ATen/native/cuda/*.cu)");
	tr_plan_free(&tp);
}

/* lines wider than the column limit: code broken after an operator at
 * the limit (the shallowest in parentheses), continued 4 deeper; a
 * comment at a blank; a line that fits, or cannot break, as it was */
static void test_wrap(void **state)
{
	char *w;
	(void)state;
	w = tr_wrap_lines("    return a + b;\n", 20, 4);
	assert_string_equal(w, "    return a + b;\n");
	free(w);
	w = tr_wrap_lines("    return foo(a, b) * 2.0f + bar(c + d, e) - a;\n", 30, 4);
	assert_string_equal(w, "    return foo(a, b) * 2.0f +\n"
	                       "        bar(c + d, e) - a;\n");
	free(w);
	/* no top-level operator fits: inside the call, after its comma */
	w = tr_wrap_lines("    return f(aaaa + bbbb, cccc);\n", 26, 4);
	assert_string_equal(w, "    return f(aaaa + bbbb,\n"
	                       "        cccc);\n");
	free(w);
	w = tr_wrap_lines("    // translated by mps-migrate from a/b/c.cu:12 (gpu_kernel)\n",
	                  40, 4);
	assert_string_equal(w, "    // translated by mps-migrate from\n"
	                       "    //     a/b/c.cu:12 (gpu_kernel)\n");
	free(w);
	w = tr_wrap_lines("    return some_very_long_name;\n", 10, 4);
	assert_string_equal(w, "    return some_very_long_name;\n");
	free(w);
	w = tr_wrap_lines("    return a + b;\n", 0, 4);
	assert_string_equal(w, "    return a + b;\n");
	free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_wrap),
	    cmocka_unit_test(test_every_row_has_a_case),
	    cmocka_unit_test(test_row_cases),
	    cmocka_unit_test(test_rows_without_helpers),
	    cmocka_unit_test(test_complex_arithmetic),
	    cmocka_unit_test(test_statements),
	    cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_condition_param),
	    cmocka_unit_test(test_helpers),
	    cmocka_unit_test(test_helper_statements),
	    cmocka_unit_test(test_captures),
	    cmocka_unit_test(test_functor),
	    cmocka_unit_test(test_functor_merged),
	    cmocka_unit_test(test_functor_left),
	};
	diag_init("test_translate");
	return cmocka_run_group_tests(tests, setup, teardown);
}
