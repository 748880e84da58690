/* test_regplan.c — cmocka tests of tools/lib/plan/regplan.c: where a functor
 * and its registrations go (after the last complete group of the kind,
 * never between a functor and its registrations), the stub the host stub
 * registers, the host dtype check (rg_check_text), and refusals collected
 * as messages.  The texts are our own, shaped like PyTorch's files; the
 * "root" is a temporary folder holding c10/metal/indexing.h and a stub
 * declaration header. */
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
#include "read/metalreg.h"
#include "plan/regplan.h"
#include "tree.h"

static char *root;

static void put(const char *rel, const char *s)
{
	tree_put(root, rel, s, strlen(s));
}

static int setup(void **state)
{
	(void)state;
	root = xstrdup("/tmp/test_regplan.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	put("c10/metal/indexing.h",
	    "#define REGISTER_UNARY_OP(NAME, IN, OUT)\n"
	    "#define REGISTER_BINARY_OP(NAME, IN, OUT)\n"
	    "#define REGISTER_UNARY_ALPHA_OP(NAME, IN, ALPHA, OUT)\n");
	put("aten/src/ATen/native/UnaryOps.h",
	    "DECLARE_DISPATCH(unary_fn, frac_stub);\n"
	    "DECLARE_DISPATCH(unary_fn, shared_stub);\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tree_remove(root);
	free(root);
	return 0;
}

static const char host_mm[] =
    "namespace at::native {\n"
    "static auto& lib = mps::MetalShaderLibrary::getBundledLibrary();\n"
    "#define REGISTER_UNARY_TI_DISPATCH(NAME)                    \\\n"
    "  static void NAME##_kernel_mps(TensorIteratorBase& iter) { \\\n"
    "    lib.exec_unary_kernel(iter, #NAME);                     \\\n"
    "  }                                                         \\\n"
    "  REGISTER_DISPATCH(NAME##_stub, NAME##_kernel_mps)\n"
    "\n"
    "REGISTER_UNARY_TI_DISPATCH(exp);\n"
    "} // namespace at::native\n";

/* plan, build both files; returns the new kernel text (caller frees) and
 * *host the new host text (or NULL) */
static char *run(const char *kernel, const struct rg_request *rq, char **host,
                 struct rg_plan *p)
{
	struct rg_file k = {"UnaryKernel.metal", kernel, strlen(kernel)};
	struct rg_file h = {"UnaryKernel.mm", host_mm, strlen(host_mm)};
	size_t n;
	char *t;
	assert_int_equal(rg_plan(p, root, rq, &k, rq->host ? &h : NULL), 0);
	t = rg_build(p, RG_KERNEL, &k, &n);
	if (host)
		*host = rq->host ? rg_build(p, RG_HOST, &h, &n) : NULL;
	return t;
}

static struct rg_request float_request(const char *name)
{
	static struct mr_pair pairs[MR_MAX_PAIRS];
	struct rg_request rq;
	int n = mr_preset("float", MR_UNARY, pairs);
	memset(&rq, 0, sizeof rq);
	rq.kind = MR_UNARY;
	rq.name = name;
	rq.pairs = pairs;
	rq.npairs = (size_t)n;
	rq.functor = 1;
	return rq;
}

/* the last functor of the file is followed by its own registrations: the
 * new functor and its registrations go after that group, together */
static void test_after_group(void **state)
{
	static const char k[] =
	    "struct a_functor {\n};\n"
	    "struct b_functor {\n};\n"
	    "\n"
	    "REGISTER_UNARY_OP(a, float, float);\n"
	    "\n"
	    "struct b2_functor {\n};\n"
	    "// its registrations\n"
	    "REGISTER_UNARY_OP(b2, float, bool);\n"
	    "REGISTER_UNARY_OP(b2, half, bool);\n"
	    "\n"
	    "REGISTER_UNARY_OP(b, float, float);\n";
	struct rg_request rq = float_request("frac");
	struct rg_plan p;
	char *t = run(k, &rq, NULL, &p);
	const char *f = strstr(t, "struct frac_functor"), *r, *b2, *b;
	(void)state;
	assert_non_null(f);
	r = strstr(t, "REGISTER_UNARY_OP(frac, float, float);");
	b2 = strstr(t, "REGISTER_UNARY_OP(b2, half, bool);");
	b = strstr(t, "REGISTER_UNARY_OP(b, float, float);");
	assert_non_null(r);
	/* after b2's group, before b's registrations; functor then its lines */
	assert_true(b2 < f && f < r && r < b);
	assert_non_null(strstr(t, "REGISTER_UNARY_OP(b2, half, bool);\n\nstruct frac_functor {\n"));
	assert_non_null(strstr(t, "REGISTER_UNARY_OP(frac, bfloat, bfloat);\n\nREGISTER_UNARY_OP(b, float"));
	assert_int_equal(p.functor_exists, 0);
	{
		/* addlen: the bytes each item added, together the growth; each
		 * item's text at its newoff (issue #28: mps-migrate moves the
		 * lines of earlier kernels by them) */
		size_t i, sum = 0;
		for (i = 0; i < p.nitems; i++) {
			const struct rg_item *it = &p.items[i];
			if (it->present || !it->text || it->file != RG_KERNEL)
				continue;
			assert_int_equal(it->addlen, strlen(it->text));
			assert_memory_equal(t + it->newoff, it->text, it->addlen);
			sum += it->addlen;
		}
		assert_int_equal(sum, strlen(t) - strlen(k));
	}
	free(t);
	rg_plan_free(&p);
}

/* at the end of a file without a final newline, the line end rg_build
 * adds before the first item counts in its addlen, the one it leaves off
 * after the last does not */
static void test_addlen_no_eol(void **state)
{
	static const char k[] = "struct a_functor {\n};\n\nREGISTER_UNARY_OP(a, float, float);";
	struct rg_request rq = float_request("frac");
	struct rg_plan p;
	char *t = run(k, &rq, NULL, &p);
	size_t i, sum = 0;
	(void)state;
	for (i = 0; i < p.nitems; i++)
		if (!p.items[i].present && p.items[i].text && p.items[i].file == RG_KERNEL)
			sum += p.items[i].addlen;
	assert_int_equal(sum, strlen(t) - strlen(k));
	assert_true(t[strlen(t) - 1] != '\n');
	free(t);
	rg_plan_free(&p);
}

/* no complete group (functors first, registrations after): after the
 * kind's last registration, functor and registrations together */
static void test_no_group(void **state)
{
	static const char k[] =
	    "struct a_functor {\n};\n"
	    "struct b_functor {\n};\n"
	    "\n"
	    "REGISTER_UNARY_OP(a, float, float);\n"
	    "REGISTER_UNARY_OP(b, float, float);\n";
	struct rg_request rq = float_request("frac");
	struct rg_plan p;
	char *t = run(k, &rq, NULL, &p);
	(void)state;
	assert_non_null(strstr(t, "REGISTER_UNARY_OP(b, float, float);\n\nstruct frac_functor {\n"));
	assert_non_null(strstr(t, "};\n\nREGISTER_UNARY_OP(frac, float, float);\n"));
	/* the end of the file: no blank line after the last one */
	assert_int_equal(t[strlen(t) - 1], '\n');
	assert_non_null(strstr(t, "REGISTER_UNARY_OP(frac, bfloat, bfloat);\n"));
	assert_null(strstr(t, "bfloat, bfloat);\n\n"));
	free(t);
	rg_plan_free(&p);
}

/* a group of another kind does not count */
static void test_group_other_kind(void **state)
{
	static const char k[] =
	    "struct a_functor {\n};\n"
	    "REGISTER_UNARY_OP(a, float, float);\n"
	    "\n"
	    "struct s_functor {\n};\n"
	    "REGISTER_UNARY_ALPHA_OP(s, float, float, float);\n";
	struct rg_request rq = float_request("frac");
	struct rg_plan p;
	char *t = run(k, &rq, NULL, &p);
	(void)state;
	/* after a's group (the last unary one), not after s's alpha group */
	assert_true(strstr(t, "struct frac_functor") < strstr(t, "struct s_functor"));
	free(t);
	rg_plan_free(&p);
}

/* the host stub: the stub given; a check forbids the TI macro */
static void test_host_stub(void **state)
{
	static const char k[] = "REGISTER_UNARY_OP(exp, float, float);\n";
	struct rg_request rq = float_request("frac");
	struct rg_plan p;
	char *host, *t;
	(void)state;
	rq.host = 1;
	t = run(k, &rq, &host, &p);
	assert_non_null(host);
	assert_non_null(strstr(host, "REGISTER_UNARY_TI_DISPATCH(exp);\nREGISTER_UNARY_TI_DISPATCH(frac);\n"));
	assert_int_equal(p.host_ti, 1);
	free(t);
	free(host);
	rg_plan_free(&p);

	/* a kernel NAME whose stub is another: a function and REGISTER_DISPATCH */
	rq = float_request("frac_fast");
	rq.host = 1;
	rq.stub = "frac_stub";
	t = run(k, &rq, &host, &p);
	assert_int_equal(p.host_ti, 0);
	assert_non_null(strstr(host, "static void frac_fast_mps_kernel(TensorIteratorBase& iter) {\n"
	                             "  lib.exec_unary_kernel(iter, \"frac_fast\");\n}\n"));
	assert_non_null(strstr(host, "REGISTER_DISPATCH(frac_stub, &frac_fast_mps_kernel);\n"));
	free(t);
	free(host);
	rg_plan_free(&p);

	/* a dtype check: the function form, the check first in the body,
	 * within 80 columns (no .clang-format under the root: LLVM's
	 * default), an argument a line once broken */
	rq = float_request("frac");
	rq.host = 1;
	rq.op = "frac";
	rq.check = rg_dtype_bit("float") | rg_dtype_bit("half") | rg_dtype_bit("bfloat");
	t = run(k, &rq, &host, &p);
	assert_non_null(strstr(host,
	    "static void frac_mps_kernel(TensorIteratorBase& iter) {\n"
	    "  TORCH_CHECK_TYPE(isFloatingType(iter.common_dtype()),\n"
	    "                   \"frac on MPS supports only floating-point inputs, got \",\n"
	    "                   iter.common_dtype());\n"
	    "  lib.exec_unary_kernel(iter, \"frac\");\n}\n"));
	assert_int_equal(p.column, 80);
	assert_int_equal(p.check_words, 1);
	free(t);
	free(host);
	rg_plan_free(&p);
}

/* refusals are messages, never printed */
static void test_refusals(void **state)
{
	static const char k[] = "REGISTER_UNARY_OP(frac, float, bool);\n";
	struct rg_request rq = float_request("frac");
	struct rg_file kf = {"K.metal", k, strlen(k)};
	struct rg_file hf = {"H.mm", "namespace x {\n}\n", 16};
	struct rg_plan p;
	(void)state;
	assert_int_equal(rg_plan(&p, root, &rq, &kf, NULL), -1);
	assert_int_equal(p.nerrors, 1);
	assert_non_null(strstr(p.msgs[0].text, "K.metal:1:1: error: frac is already "
	                                       "registered for input float with output bool"));
	assert_non_null(strstr(p.msgs[0].text, "[conflicting-registration]"));
	rg_plan_free(&p);
	/* an undeclared stub and no exec_unary_kernel anywhere */
	rq = float_request("other");
	rq.host = 1;
	assert_int_equal(rg_plan(&p, root, &rq, &kf, &hf), -1);
	assert_true(p.nerrors == 2);
	assert_non_null(strstr(p.msgs[0].text, "[no-exec-kernel]"));
	assert_non_null(strstr(p.msgs[1].text, "other_stub is not declared"));
	rg_plan_free(&p);
}

static void want_check(unsigned allowed, const char *want)
{
	char *c = rg_check_text("op", allowed, "\n", "    ");
	if (!want) {
		assert_null(c);
		return;
	}
	assert_non_null(c);
	assert_string_equal(c, want);
	free(c);
}

static unsigned bits(const char *const *v)
{
	unsigned b = 0;
	for (; *v; v++)
		b |= rg_dtype_bit(*v);
	return b;
}

static void test_check_text(void **state)
{
	static const char *const fl[] = {"float", "half", "bfloat", NULL};
	static const char *const noncx[] = {"float", "half", "bfloat", "long", "int",
	                                    "short", "char", "uchar", "bool", NULL};
	static const char *const nobool[] = {"float", "half", "bfloat", "long",
	                                     "int", "short", "char", "uchar",
	                                     "float2", "half2", NULL};
	static const char *const fh[] = {"float", "half", NULL};
	(void)state;
	assert_int_equal(rg_dtype_bit("float"), 1u);
	assert_int_equal(rg_dtype_bit("half2"), 1u << 10);
	assert_int_equal(rg_dtype_bit("double"), 0u);
	want_check(0, NULL);
	want_check(RG_ALL_DTYPES, NULL);
	want_check(bits(fl),
	             "TORCH_CHECK_TYPE(isFloatingType(iter.common_dtype()),\n"
	             "    \"op on MPS supports only floating-point inputs, got \", "
	             "iter.common_dtype());");
	/* always the allowed set, never the negation of what is refused: a
	 * negation would let uint16 or float8 through */
	want_check(bits(noncx),
	             "TORCH_CHECK_TYPE(isFloatingType(iter.common_dtype()) || "
	             "isIntegralType(iter.common_dtype(), /*includeBool=*/true),\n"
	             "    \"op on MPS supports only floating-point, integral and "
	             "bool inputs, got \", iter.common_dtype());");
	want_check(bits(nobool),
	             "TORCH_CHECK_TYPE(isFloatingType(iter.common_dtype()) || "
	             "isIntegralType(iter.common_dtype(), /*includeBool=*/false) || "
	             "isComplexType(iter.common_dtype()),\n"
	             "    \"op on MPS supports only floating-point, integral and "
	             "complex inputs, got \", iter.common_dtype());");
	want_check(bits(fh),
	             "TORCH_CHECK_TYPE(iter.common_dtype() == kFloat || "
	             "iter.common_dtype() == kHalf,\n"
	             "    \"op on MPS supports only Float and Half inputs, got \", "
	             "iter.common_dtype());");
}

/* issue #21: a binary file that keeps its functors together; the
 * float pairs of an opmath kernel with the opmath helper, the complex
 * ones in the complex block */
static void test_blocked(void **state)
{
	static const char k[] =
	    "struct add_functor {\n};\n"
	    "\n"
	    "struct mul_functor {\n};\n"
	    "struct zeta_functor {\n};\n"
	    "\n"
	    "#define REGISTER_FLOAT_BINARY_OP(NAME)    \\\n"
	    "  REGISTER_BINARY_OP(NAME, float, float); \\\n"
	    "  REGISTER_BINARY_OP(NAME, half, half)\n"
	    "#define REGISTER_OPMATH_FLOAT_BINARY_OP(NAME)    \\\n"
	    "  REGISTER_OPMATH_BINARY_OP(NAME, float, float); \\\n"
	    "  REGISTER_OPMATH_BINARY_OP(NAME, half, half)\n"
	    "\n"
	    "REGISTER_FLOAT_BINARY_OP(add);\n"
	    "REGISTER_OPMATH_FLOAT_BINARY_OP(mul);\n"
	    "REGISTER_FLOAT_BINARY_OP(zeta);\n"
	    "\n"
	    "// complex\n"
	    "REGISTER_BINARY_OP(add, float2, float2);\n"
	    "REGISTER_BINARY_OP(mul, float2, float2);\n";
	static struct mr_pair pairs[MR_MAX_PAIRS];
	struct rg_request rq;
	struct rg_plan p;
	struct rg_file kf = {"BinaryKernel.metal", k, strlen(k)};
	char *t;
	size_t n;
	int np;
	char *err = NULL;
	(void)state;
	np = mr_parse_dtypes("float,half,float2", MR_BINARY, pairs, &err);
	assert_int_equal(np, 3);
	memset(&rq, 0, sizeof rq);
	rq.kind = MR_BINARY;
	rq.name = "tb";
	rq.pairs = pairs;
	rq.npairs = (size_t)np;
	rq.functor = 1;
	rq.opmath = 1;
	assert_int_equal(rg_plan(&p, root, &rq, &kf, NULL), 0);
	assert_true(p.blocked);
	assert_true(p.opmath);
	t = rg_build(&p, RG_KERNEL, &kf, &n);
	/* the functor after the last functor, before the helpers */
	assert_non_null(strstr(t, "struct zeta_functor {\n};\n\nstruct tb_functor {"));
	assert_non_null(strstr(t, "};\n\n#define REGISTER_FLOAT_BINARY_OP"));
	/* the opmath helper, after mul's run; complex after the last complex */
	assert_non_null(strstr(t, "REGISTER_OPMATH_FLOAT_BINARY_OP(mul);\n"
	                          "REGISTER_OPMATH_FLOAT_BINARY_OP(tb);\n"
	                          "REGISTER_FLOAT_BINARY_OP(zeta);\n"));
	assert_non_null(strstr(t, "REGISTER_BINARY_OP(mul, float2, float2);\n"
	                          "REGISTER_BINARY_OP(tb, float2, float2);\n"));
	free(t);
	rg_plan_free(&p);

	/* without opmath: the plain helper, after the last of its calls */
	rq.opmath = 0;
	assert_int_equal(rg_plan(&p, root, &rq, &kf, NULL), 0);
	t = rg_build(&p, RG_KERNEL, &kf, &n);
	assert_non_null(strstr(t, "REGISTER_FLOAT_BINARY_OP(zeta);\n"
	                          "REGISTER_FLOAT_BINARY_OP(tb);\n"));
	free(t);
	rg_plan_free(&p);
}

/* issue #21: the host file's own names, words and column limit */
static void test_host_conventions(void **state)
{
	static const char k[] = "REGISTER_UNARY_OP(exp, float, float);\n";
	static const char h[] =
	    "namespace at::native {\n"
	    "static auto& lib = mps::MetalShaderLibrary::getBundledLibrary();\n"
	    "static void erfcx_kernel(TensorIteratorBase& iter) {\n"
	    "  TORCH_CHECK_TYPE(isFloatingType(iter.common_dtype()),\n"
	    "                   \"erfcx_kernel wants floats\");\n"
	    "  lib.exec_unary_kernel(iter, \"erfcx\");\n"
	    "}\n"
	    "static void sinc_kernel(TensorIteratorBase& iter) {\n"
	    "  lib.exec_unary_kernel(iter, \"sinc\");\n"
	    "}\n"
	    "REGISTER_DISPATCH(erfcx_stub, erfcx_kernel);\n"
	    "REGISTER_DISPATCH(sinc_stub, sinc_kernel);\n"
	    "}\n";
	static struct mr_pair pairs[MR_MAX_PAIRS];
	struct rg_request rq;
	struct rg_plan p;
	struct rg_file kf = {"UnaryKernel.metal", k, strlen(k)};
	struct rg_file hf = {"UnaryKernel.mm", h, strlen(h)};
	char *t;
	size_t n;
	int np = mr_preset("float", MR_UNARY_ALPHA, pairs);
	(void)state;
	put("aten/src/ATen/native/Frac.h", "DECLARE_DISPATCH(unary_fn, logit_stub);\n");
	memset(&rq, 0, sizeof rq);
	rq.kind = MR_UNARY_ALPHA;
	rq.name = "logit";
	rq.stub = "logit_stub";
	rq.pairs = pairs;
	rq.npairs = (size_t)np;
	rq.host = 1;
	rq.check = rg_dtype_bit("float") | rg_dtype_bit("half") | rg_dtype_bit("bfloat");
	rq.scalar_decl = "const Scalar& eps";
	rq.scalar_pass = "eps";
	rq.scalar_dtype = "ScalarType::Float";
	assert_int_equal(rg_plan(&p, root, &rq, &kf, &hf), 0);
	t = rg_build(&p, RG_HOST, &hf, &n);
	/* NAME_kernel; the neighbour's words for the same condition; the
	 * scalar with its dtype; the file's REGISTER_DISPATCH without '&' */
	assert_non_null(strstr(t,
	    "static void logit_kernel(TensorIteratorBase& iter, const Scalar& eps) {\n"
	    "  TORCH_CHECK_TYPE(\n"
	    "      isFloatingType(iter.common_dtype()), \"logit_kernel wants floats\");\n"
	    "  lib.exec_unary_kernel(iter, \"logit\", eps, ScalarType::Float);\n"
	    "}\n"));
	assert_non_null(strstr(t, "REGISTER_DISPATCH(logit_stub, logit_kernel);\n"));
	assert_int_equal(p.check_words, 2);
	free(t);
	rg_plan_free(&p);

	/* 120 columns for .mm files; bin packing (no BinPackArguments: LLVM's
	 * true) puts the last two arguments on one line */
	put(".clang-format", "---\nColumnLimit: 80\n---\nLanguage: ObjC\n"
	                     "ColumnLimit: 120\n");
	rq.check = rg_dtype_bit("float") | rg_dtype_bit("half") |
	           rg_dtype_bit("bfloat") | rg_dtype_bit("float2") |
	           rg_dtype_bit("half2");
	assert_int_equal(rg_plan(&p, root, &rq, &kf, &hf), 0);
	t = rg_build(&p, RG_HOST, &hf, &n);
	assert_non_null(strstr(t,
	    "  TORCH_CHECK_TYPE(isFloatingType(iter.common_dtype()) || isComplexType(iter.common_dtype()),\n"
	    "                   \"logit on MPS supports only floating-point and complex inputs, got \", "
	    "iter.common_dtype());\n"));
	assert_int_equal(p.column, 120);
	assert_int_equal(p.check_words, 1);
	free(t);
	rg_plan_free(&p);
	{
		/* no line of the stub over the limit */
		char *path = xasprintf("%s/.clang-format", root);
		unlink(path);
		free(path);
	}
}

/* binary-params: the header of the params structs, appended to or
 * created; a header that defines the struct already is left alone */
static void test_params_header(void **state)
{
	static const char *fields[] = {"min_val", "max_val"};
	const char *old = "#pragma once\r\n\r\ntemplate <typename T>\r\n"
	                  "struct OtherParams {\r\n  T a;\r\n};";
	char *t, *r;
	size_t len;
	(void)state;
	r = rg_params_header_rel("aten/src/ATen/native/mps/kernels/Activation.metal");
	assert_string_equal(r, "aten/src/ATen/native/mps/kernels/Activation.h");
	free(r);
	r = rg_params_include("aten/src/ATen/native/mps/kernels/Activation.metal");
	assert_string_equal(r, "ATen/native/mps/kernels/Activation.h");
	free(r);
	/* appended in the file's line ends, a final newline added first */
	t = rg_params_header(old, strlen(old), "hard_band", (char *const *)fields, 2,
	                     &len);
	assert_non_null(t);
	assert_int_equal(len, strlen(t));
	assert_string_equal(t + strlen(old),
	                    "\r\n\r\n// hard_band's scalars, at the precision its "
	                    "kernels compute in\r\ntemplate <typename T>\r\n"
	                    "struct HardBandParams {\r\n  T min_val;\r\n"
	                    "  T max_val;\r\n};\r\n");
	/* present already (a comment does not count) */
	assert_null(rg_params_header(t, len, "hard_band", (char *const *)fields, 2, &len));
	free(t);
	t = rg_params_header("// struct HardBandParams\n", 25, "hard_band",
	                     (char *const *)fields, 1, &len);
	assert_non_null(t);
	free(t);
	/* created */
	t = rg_params_header(NULL, 0, "x", (char *const *)fields, 1, &len);
	assert_string_equal(t, "#pragma once\n\n// x's scalars, at the precision "
	                       "its kernels compute in\ntemplate <typename T>\n"
	                       "struct XParams {\n  T min_val;\n};\n");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_after_group), cmocka_unit_test(test_addlen_no_eol),
	    cmocka_unit_test(test_no_group),
	    cmocka_unit_test(test_group_other_kind), cmocka_unit_test(test_host_stub),
	    cmocka_unit_test(test_refusals), cmocka_unit_test(test_check_text),
	    cmocka_unit_test(test_params_header),
	    cmocka_unit_test(test_blocked), cmocka_unit_test(test_host_conventions),
	};
	diag_init("test_regplan");
	return cmocka_run_group_tests(tests, setup, teardown);
}
