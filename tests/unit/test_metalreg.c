/* test_metalreg.c — cmocka tests of tools/lib/read/metalreg.c: dtype tokens,
 * presets, --dtypes parsing, kernel names, and the parser of REGISTER_*
 * calls and file-local helper #defines (argument order read from the
 * #define, token pasting, nested helpers, which helpers can generate),
 * and the text checks for the c10/metal infrastructure (defect #1: a tree
 * shaped like PyTorch 2.6 must not pass them). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "read/metalreg.h"

static void test_kinds(void **state)
{
	(void)state;
	assert_int_equal(mr_kind_parse("unary"), MR_UNARY);
	assert_int_equal(mr_kind_parse("unary-alpha"), MR_UNARY_ALPHA);
	assert_int_equal(mr_kind_parse("binary"), MR_BINARY);
	assert_int_equal(mr_kind_parse("binary-alpha"), MR_BINARY_ALPHA);
	assert_int_equal(mr_kind_parse("Unary"), -1);
	assert_int_equal(mr_kind_parse(""), -1);
	assert_string_equal(mr_kind_macro(MR_BINARY), "REGISTER_BINARY_OP");
	assert_string_equal(mr_kind_name(MR_BINARY_ALPHA), "binary-alpha");
	assert_true(mr_kind_alpha(MR_UNARY_ALPHA));
	assert_false(mr_kind_alpha(MR_BINARY));
	assert_int_equal(mr_core_find("REGISTER_OPMATH_BINARY_OP", 25)->kind,
	                 MR_BINARY);
	assert_int_equal(mr_core_find("REGISTER_BINARY_ALPHA_OP", 24)->i_out, 3);
	assert_null(mr_core_find("REGISTER_BINARY_CASTOUT_OP", 26));
	/* the ternary kinds (issue #28) */
	assert_int_equal(mr_kind_parse("ternary"), MR_TERNARY);
	assert_int_equal(mr_kind_parse("ternary-alpha"), MR_TERNARY_ALPHA);
	assert_int_equal(mr_kind_arity(MR_UNARY_ALPHA), 1);
	assert_int_equal(mr_kind_arity(MR_BINARY), 2);
	assert_int_equal(mr_kind_arity(MR_TERNARY_ALPHA), 3);
	assert_int_equal(mr_kind_of(3, 1), MR_TERNARY_ALPHA);
	assert_int_equal(mr_kind_of(2, 0), MR_BINARY);
	assert_int_equal(mr_kind_of(4, 0), -1);
	assert_true(mr_kind_alpha(MR_TERNARY_ALPHA));
	assert_false(mr_kind_alpha(MR_TERNARY));
	assert_string_equal(mr_kind_exec(MR_TERNARY_ALPHA), "exec_ternary_kernel");
	assert_string_equal(mr_kind_exec(MR_UNARY), "exec_unary_kernel");
	assert_string_equal(mr_kind_opmath_macro(MR_TERNARY_ALPHA),
	                    "REGISTER_OPMATH_TERNARY_ALPHA_OP");
	assert_null(mr_kind_opmath_macro(MR_UNARY));
	assert_string_equal(mr_kind_kernel_file(MR_TERNARY),
	                    "aten/src/ATen/native/mps/kernels/PointwiseOps.metal");
	assert_string_equal(mr_kind_host_file(MR_BINARY_ALPHA),
	                    "aten/src/ATen/native/mps/operations/BinaryKernel.mm");
	assert_int_equal(mr_core_find("REGISTER_OPMATH_TERNARY_ALPHA_OP", 32)->kind,
	                 MR_TERNARY_ALPHA);
	assert_int_equal(mr_core_find("REGISTER_OPMATH_TERNARY_ALPHA_OP", 32)->i_alpha,
	                 2);
	assert_int_equal(mr_core_find("REGISTER_TERNARY_OP", 19)->i_out, 2);
	/* binary-params: several scalars in a struct (hardtanh_backward) */
	assert_int_equal(mr_kind_parse("binary-params"), MR_BINARY_PARAMS);
	assert_string_equal(mr_kind_name(MR_BINARY_PARAMS), "binary-params");
	assert_int_equal(mr_kind_arity(MR_BINARY_PARAMS), 2);
	assert_false(mr_kind_alpha(MR_BINARY_PARAMS));
	assert_true(mr_kind_params(MR_BINARY_PARAMS));
	assert_false(mr_kind_params(MR_BINARY_ALPHA));
	assert_string_equal(mr_kind_macro(MR_BINARY_PARAMS), "REGISTER_BINARY_ALPHA_OP");
	assert_string_equal(mr_kind_exec(MR_BINARY_PARAMS),
	                    "exec_binary_kernel_with_params");
	assert_string_equal(mr_kind_kernel_file(MR_BINARY_PARAMS),
	                    "aten/src/ATen/native/mps/kernels/Activation.metal");
	assert_string_equal(mr_kind_host_file(MR_BINARY_PARAMS),
	                    "aten/src/ATen/native/mps/operations/Activation.mm");
	{
		char *st = mr_params_struct("hardtanh_backward");
		char *h = mr_params_helper("hardtanh_backward");
		char *a = mr_params_alpha("hardtanh_backward", "bfloat");
		assert_string_equal(st, "HardtanhBackwardParams");
		assert_string_equal(h, "REGISTER_HARDTANH_BACKWARD_OP");
		assert_string_equal(a, "HardtanhBackwardParams_bfloat");
		free(st);
		free(h);
		free(a);
	}
	{
		/* a helper typedefing the struct per dtype: the registrations
		 * carry the typedef as the alpha */
		const char *t = "#define REGISTER_X_OP(T) \\\n"
		                "  typedef XParams<float> XParams_##T; \\\n"
		                "  REGISTER_BINARY_ALPHA_OP(x, T, XParams_##T, T)\n"
		                "REGISTER_X_OP(half);\n";
		struct mr_file f;
		memset(&f, 0, sizeof f);
		mr_file_parse(&f, t, strlen(t));
		assert_int_equal(f.nregs, 1);
		assert_string_equal(f.regs[0].name, "x");
		assert_string_equal(f.regs[0].in, "half");
		assert_string_equal(f.regs[0].alpha, "XParams_half");
		mr_file_free(&f);
	}
	{
		const char *t = "REGISTER_OPMATH_TERNARY_ALPHA_OP(addcmul, half, float, half);\n"
		                "REGISTER_TERNARY_OP(clamp, int, int);\n";
		struct mr_file f;
		memset(&f, 0, sizeof f);
		mr_file_parse(&f, t, strlen(t));
		assert_int_equal(f.nregs, 2);
		assert_string_equal(f.regs[0].in, "half");
		assert_string_equal(f.regs[0].alpha, "float");
		assert_string_equal(f.regs[0].out, "half");
		assert_int_equal(f.regs[1].core->kind, MR_TERNARY);
		assert_null(f.regs[1].alpha);
		mr_file_free(&f);
	}
	{
		const char *t = "x = lib.exec_ternary_kernel(iter, \"addcmul\", value);";
		assert_true(mr_text_has_exec(t, strlen(t), 2));
		assert_false(mr_text_has_exec(t, strlen(t), 1));
	}
}

static void test_dtypes(void **state)
{
	(void)state;
	assert_int_equal(mr_ndtypes, 11);
	assert_ptr_equal(mr_dtype("half2", 5), mr_dtypes[10]);
	assert_ptr_equal(mr_dtype("floatX", 5), mr_dtypes[0]);
	assert_null(mr_dtype("double", 6));
	assert_null(mr_dtype("int8_t", 6));
	assert_null(mr_dtype("", 0));
}

static void test_presets(void **state)
{
	struct mr_pair p[MR_MAX_PAIRS];
	int n;
	(void)state;
	n = mr_preset("float", MR_UNARY, p);
	assert_int_equal(n, 3);
	assert_string_equal(p[2].in, "bfloat");
	assert_string_equal(p[2].out, "bfloat");
	assert_null(p[0].alpha);
	n = mr_preset("int2float", MR_BINARY, p);
	assert_int_equal(n, 6);
	assert_string_equal(p[0].in, "long");
	assert_string_equal(p[5].in, "bool");
	assert_string_equal(p[5].out, "float");
	n = mr_preset("integer", MR_BINARY_ALPHA, p);
	assert_int_equal(n, 6);
	assert_string_equal(p[3].in, "uchar");
	assert_string_equal(p[3].alpha, "uchar");
	assert_string_equal(p[3].out, "uchar");
	assert_int_equal(mr_preset("complex", MR_UNARY, p), 2);
	assert_string_equal(p[1].in, "half2");
	n = mr_preset("all", MR_UNARY, p);
	assert_int_equal(n, 11);
	assert_string_equal(p[3].in, "long");
	assert_string_equal(p[3].out, "long");
	assert_string_equal(p[10].out, "half2");
	assert_int_equal(mr_preset("double", MR_UNARY, p), -1);
}

static void test_parse_dtypes(void **state)
{
	struct mr_pair p[MR_MAX_PAIRS];
	char *err;
	int n;
	(void)state;
	n = mr_parse_dtypes("int:float, half , float:float,int:float", MR_UNARY,
	                    p, &err);
	assert_int_equal(n, 3);
	assert_null(err);
	assert_string_equal(p[0].in, "int");
	assert_string_equal(p[0].out, "float");
	assert_string_equal(p[1].in, "half");
	assert_string_equal(p[1].out, "half");
	n = mr_parse_dtypes("half:long:half,float:float", MR_UNARY_ALPHA, p, &err);
	assert_int_equal(n, 2);
	assert_string_equal(p[0].alpha, "long");
	assert_string_equal(p[1].alpha, "float");

	assert_int_equal(mr_parse_dtypes("float:double", MR_UNARY, p, &err), -1);
	assert_non_null(strstr(err, "unknown dtype 'double'"));
	free(err);
	assert_int_equal(mr_parse_dtypes("int:float,int:int", MR_UNARY, p, &err),
	                 -1);
	assert_string_equal(err, "input dtype 'int' is given two outputs "
	                         "('float' and 'int')");
	free(err);
	assert_int_equal(mr_parse_dtypes("float:float:float", MR_BINARY, p, &err),
	                 -1);
	free(err);
	assert_int_equal(mr_parse_dtypes("a:b:c:d", MR_BINARY_ALPHA, p, &err), -1);
	free(err);
	assert_int_equal(mr_parse_dtypes("float,", MR_UNARY, p, &err), -1);
	assert_string_equal(err, "empty item in 'float,'");
	free(err);
	assert_int_equal(mr_parse_dtypes("float:", MR_UNARY, p, &err), -1);
	assert_string_equal(err, "empty dtype in 'float:'");
	free(err);
}

static void test_names(void **state)
{
	struct mr_pair p = {"half", NULL, "float"};
	char *s;
	(void)state;
	assert_true(mr_valid_name("foo"));
	assert_true(mr_valid_name("_x9"));
	assert_false(mr_valid_name(""));
	assert_false(mr_valid_name("9x"));
	assert_false(mr_valid_name("a.b"));
	assert_false(mr_valid_name("../x"));
	assert_false(mr_valid_name("a b"));
	assert_false(mr_valid_name("a;b"));
	assert_false(mr_valid_name(NULL));
	s = mr_kernel_name("foo", "dense", &p);
	assert_string_equal(s, "foo_dense_float_half");
	free(s);
	p.alpha = "long";
	s = mr_kernel_name("foo", "strided", &p);
	assert_string_equal(s, "foo_strided_float_half_long");
	free(s);
}

static const char unary_src[] =
    "#define REGISTER_UNARY_OP(N, I, O) whatever(N, I, O)\n"
    "#define OUT_IN(DTYPE_OUT, DTYPE_IN) \\\n"
    "  REGISTER_UNARY_OP(exp, DTYPE_IN, DTYPE_OUT); \\\n"
    "  REGISTER_UNARY_OP(sqrt, DTYPE_IN, DTYPE_OUT)\n"
    "#define VEC2(DTYPE) REGISTER_UNARY_OP(exp, DTYPE##2, DTYPE ## 2)\n"
    "#define NOT_A_HELPER 1\n"
    "OUT_IN(float, long);\n"
    "REGISTER_UNARY_OP( neg ,\n   half,half )\n"
    "VEC2(float);\n"
    "const char *s = \"REGISTER_UNARY_OP(str, float, float);\";\n";

static void test_parse_file(void **state)
{
	struct mr_file f;
	(void)state;
	memset(&f, 0, sizeof f);
	mr_file_parse(&f, unary_src, strlen(unary_src));
	/* REGISTER_UNARY_OP's own #define is not a helper */
	assert_int_equal(f.nhelpers, 2);
	assert_string_equal(f.helpers[0].name, "OUT_IN");
	assert_int_equal(f.helpers[0].nparams, 2);
	assert_int_equal(f.helpers[0].nbody, 2);
	assert_int_equal(f.ncalls, 3);
	assert_string_equal(f.calls[0].macro, "OUT_IN");
	assert_int_equal(f.calls[0].semi, 1);
	assert_int_equal(f.calls[1].semi, 0);
	assert_string_equal(f.calls[1].args[0], "neg");
	assert_string_equal(f.calls[1].args[2], "half");
	assert_int_equal(f.calls[1].start,
	                 (size_t)(strstr(unary_src, "REGISTER_UNARY_OP( neg") -
	                          unary_src));
	assert_int_equal(f.nregs, 4);
	/* (OUT, IN): OUT_IN(float, long) registers long -> float */
	assert_string_equal(f.regs[0].name, "exp");
	assert_string_equal(f.regs[0].in, "long");
	assert_string_equal(f.regs[0].out, "float");
	assert_string_equal(f.regs[1].name, "sqrt");
	assert_int_equal(f.regs[1].call, 0);
	assert_string_equal(f.regs[2].name, "neg");
	assert_null(f.regs[2].alpha);
	/* token pasting */
	assert_string_equal(f.regs[3].in, "float2");
	assert_string_equal(f.regs[3].out, "float2");
	assert_int_equal(f.regs[3].call, 2);
	mr_file_free(&f);
}

static const char binary_src[] =
    "#define INT_NB(NAME) \\\n"
    "  REGISTER_BINARY_OP(NAME, long, long); \\\n"
    "  REGISTER_BINARY_OP(NAME, int, int)\n"
    "#define INT(NAME) INT_NB(NAME); REGISTER_BINARY_OP(NAME, bool, bool)\n"
    "#define OPM(NAME) REGISTER_OPMATH_BINARY_OP(NAME, float, float)\n"
    "#define CMP(NAME) REGISTER_BINARY_OP(NAME, float, bool); \\\n"
    "  REGISTER_BINARY_CASTOUT_OP(NAME, float, bool)\n"
    "#define TWO(NAME, T) REGISTER_BINARY_OP(NAME, T, T)\n"
    "#define LOOP(NAME) LOOP(NAME)\n"
    "INT(add);\n"
    "CMP(lt);\n"
    "OPM(mul);\n"
    "LOOP(x);\n"
    "REGISTER_BINARY_ALPHA_OP(add_alpha, half, half, half);\n";

static void test_helpers(void **state)
{
	struct mr_file f;
	struct mr_pair p[MR_MAX_PAIRS];
	(void)state;
	memset(&f, 0, sizeof f);
	mr_file_parse(&f, binary_src, strlen(binary_src));
	assert_int_equal(f.nhelpers, 6);
	/* nested helper: 3 registrations */
	assert_int_equal(mr_helper_pairs(&f, mr_helper_find(&f, "INT", 3),
	                                 MR_BINARY, p),
	                 3);
	assert_string_equal(p[0].in, "long");
	assert_string_equal(p[2].in, "bool");
	assert_int_equal(mr_helper_pairs(&f, mr_helper_find(&f, "INT_NB", 6),
	                                 MR_BINARY, p),
	                 2);
	/* the wrong kind, another macro, an unknown call, two parameters, a
	 * loop: never used to generate */
	assert_int_equal(mr_helper_pairs(&f, mr_helper_find(&f, "INT", 3),
	                                 MR_UNARY, p),
	                 0);
	assert_int_equal(mr_helper_pairs(&f, mr_helper_find(&f, "OPM", 3),
	                                 MR_BINARY, p),
	                 0);
	assert_int_equal(mr_helper_pairs(&f, mr_helper_find(&f, "CMP", 3),
	                                 MR_BINARY, p),
	                 0);
	assert_int_equal(mr_helper_pairs(&f, mr_helper_find(&f, "TWO", 3),
	                                 MR_BINARY, p),
	                 0);
	assert_int_equal(mr_helper_pairs(&f, mr_helper_find(&f, "LOOP", 4),
	                                 MR_BINARY, p),
	                 0);
	/* reading: INT(add) 3 + CMP(lt) 1 known + OPM(mul) 1 + alpha 1 */
	assert_int_equal(f.nregs, 6);
	assert_string_equal(f.regs[3].name, "lt");
	assert_string_equal(f.regs[3].out, "bool");
	assert_string_equal(f.regs[4].core->macro, "REGISTER_OPMATH_BINARY_OP");
	assert_int_equal(f.regs[4].core->kind, MR_BINARY);
	assert_string_equal(f.regs[5].alpha, "half");
	assert_int_equal(f.regs[5].core->kind, MR_BINARY_ALPHA);
	mr_file_free(&f);
}

static void test_odd_input(void **state)
{
	struct mr_file f;
	static const char *odd[] = {
	    "", "REGISTER_UNARY_OP(", "REGISTER_UNARY_OP(a, b", "#define X(",
	    "#define X(A) \\", "REGISTER_UNARY_OP(a, float)\n",
	    "\"REGISTER_UNARY_OP(a,b,c)", "REGISTER_UNARY_OP()\n",
	    "#define H(N) REGISTER_UNARY_OP(N, float, float)\nH();\nH(a, b);\n",
	    /* 2^16 expansions without the step bound */
	    "#define B(N) B(N); B(N)\nB(x);\n",
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof odd / sizeof odd[0]; i++) {
		memset(&f, 0, sizeof f);
		mr_file_parse(&f, odd[i], strlen(odd[i]));
		assert_int_equal(f.nregs, 0);
		mr_file_free(&f);
	}
}

/* the checks mps-register runs before writing anything (defect #1) */
static void test_infrastructure(void **state)
{
#define T(s) s, strlen(s)
	(void)state;
	/* core macro: a call, a call inside a helper's body, its #define */
	assert_true(mr_text_uses_macro(T("REGISTER_BINARY_OP(x, float, float);"),
	                               "REGISTER_BINARY_OP"));
	assert_true(mr_text_uses_macro(
	    T("#define H(N) \\\n  REGISTER_BINARY_OP (N, int, int)\n"),
	    "REGISTER_BINARY_OP"));
	assert_false(mr_text_uses_macro(T("REGISTER_BINARY_OPS(x);"),
	                                "REGISTER_BINARY_OP"));
	assert_false(mr_text_uses_macro(T("MY_REGISTER_BINARY_OP(x);"),
	                                "REGISTER_BINARY_OP"));
	/* 2.6-style file: own per-op macros only */
	assert_false(mr_text_uses_macro(
	    T("#define REGISTER_FMAX_OP(T) template [[host_name(\"fmax_\" #T)]]\n"
	      "REGISTER_FMAX_OP(float);\n"),
	    "REGISTER_BINARY_OP"));
	assert_false(mr_text_uses_macro(T("x"), "a(b"));

	assert_true(mr_text_defines_macro(T("#pragma once\n#define REGISTER_UNARY_OP(N, I, O) \\\n  x\n"),
	                                  "REGISTER_UNARY_OP"));
	assert_true(mr_text_defines_macro(T("  #  define REGISTER_UNARY_OP(N)\r\n"),
	                                  "REGISTER_UNARY_OP"));
	assert_false(mr_text_defines_macro(T("REGISTER_UNARY_OP(a, float, float);\n"),
	                                   "REGISTER_UNARY_OP"));
	assert_false(mr_text_defines_macro(T("#define REGISTER_UNARY_OPS(N)\n"),
	                                   "REGISTER_UNARY_OP"));
	assert_false(mr_text_defines_macro(T("#define REGISTER_UNARY_OP 1\n"),
	                                   "REGISTER_UNARY_OP"));

	/* exec_*_kernel: member calls and TensorIteratorBase declarations */
	assert_true(mr_text_has_exec(T("  lib.exec_binary_kernel(iter, \"x\");"), 1));
	assert_true(mr_text_has_exec(T("  p->exec_unary_kernel (iter, #N);"), 0));
	assert_true(mr_text_has_exec(
	    T("  void exec_binary_kernel(TensorIteratorBase& iter, int);"), 1));
	assert_true(mr_text_has_exec(
	    T("void exec_unary_kernel(const at::TensorIteratorBase& it);"), 0));
	assert_false(mr_text_has_exec(T("  lib.exec_binary_kernel(iter, \"x\");"), 0));
	/* PyTorch 2.6's UnaryKernel.mm: a free function taking Tensors */
	assert_false(mr_text_has_exec(
	    T("static void exec_unary_kernel(const Tensor& self, const Tensor& o);\n"
	      "  exec_unary_kernel(self, output_, \"erfinv\");\n"),
	    0));
	assert_false(mr_text_has_exec(T("mps::binary_mps_impl(iter, \"fmax\");"), 1));

	/* DECLARE_DISPATCH(type, stub) */
	assert_true(mr_text_declares_stub(
	    T("DECLARE_DISPATCH(structured_binary_fn, atan2_stub);"), "atan2_stub"));
	assert_true(mr_text_declares_stub(
	    T("DECLARE_DISPATCH(\n    void (*)(TensorIteratorBase&),\n    i0_stub)"),
	    "i0_stub"));
	assert_false(mr_text_declares_stub(
	    T("DECLARE_DISPATCH(structured_binary_fn, atan2_stub);"), "atan_stub"));
	assert_false(mr_text_declares_stub(
	    T("DECLARE_DISPATCH(fn, foo_stub_x); foo_stub;"), "foo_stub"));
	assert_false(mr_text_declares_stub(T("REGISTER_DISPATCH(foo_stub, &f);"),
	                                   "foo_stub"));
#undef T
}

/* ---- the kernels a registration instantiates, read from the headers ---- */

/* shaped like PyTorch 2.14.1's c10/metal (our own text): a string macro in
 * one header, the REGISTER_* macros in another, a nested binary macro */
static const char hdr_common[] =
    "#pragma once\n"
    "// the unroll width, as a string for kernel names\n"
    "#define MY_ILP_STR \"4\"\n"
    "#define NOT_A_STRING 4\n";

static const char hdr_new[] =
    "#define REGISTER_UNARY_OP(NAME, DTYPE0, DTYPE1)                 \\\n"
    "  static_assert(sizeof(DTYPE1) > 0, \"unary \" #NAME);          \\\n"
    "  template [[host_name(#NAME \"_dense_\" #DTYPE1 \"_\" #DTYPE0)]] kernel void \\\n"
    "      ::c10::metal::unary_dense<DTYPE0, NAME##_functor>(        \\\n"
    "          device ::c10::metal::result_of<NAME##_functor, DTYPE0> * out, \\\n"
    "          constant DTYPE0 * in, constant uint & numel, uint i); \\\n"
    "  template [[host_name(#NAME \"_dense_scalar_\" #DTYPE1 \"_\" #DTYPE0)]] \\\n"
    "  kernel void ::c10::metal::unary_dense_scalar<DTYPE0, NAME##_functor>( \\\n"
    "      device ::c10::metal::result_of<NAME##_functor, DTYPE0> * out, \\\n"
    "      constant DTYPE0 * in, uint i);                            \\\n"
    "  template [[host_name(#NAME \"_strided_\" #DTYPE1 \"_\" #DTYPE0)]] \\\n"
    "  kernel void ::c10::metal::unary_strided<DTYPE0, NAME##_functor>( \\\n"
    "      device void* out, constant void* in, constant long* sizes, \\\n"
    "      constant long* in_strides, constant long* out_strides,    \\\n"
    "      constant uint& ndim, uint2 pos);                          \\\n"
    "  template [[host_name(#NAME \"_dense_castout_\" #DTYPE0)]]     \\\n"
    "  kernel void ::c10::metal::unary_dense_castout<DTYPE0, NAME##_functor>( \\\n"
    "      device void* out, constant DTYPE0* in, constant uint2& st, uint i)\n"
    "\n"
    "#define REGISTER_BINARY_OP_(NAME, DTYPEI, DTYPEO, OMT)          \\\n"
    "  template [[host_name(#NAME \"_dense_\" #DTYPEO \"_\" #DTYPEI)]] kernel \\\n"
    "  void ::c10::metal::binary_dense<DTYPEI, NAME##_functor, OMT>( \\\n"
    "      device ::c10::metal::result_of<NAME##_functor, DTYPEI, DTYPEI> * out, \\\n"
    "      constant DTYPEI * a, constant DTYPEI * b, uint i);        \\\n"
    "  template [[host_name(#NAME \"_dense_ilp\" MY_ILP_STR           \\\n"
    "                       \"_\" #DTYPEO \"_\" #DTYPEI)]] kernel void \\\n"
    "      ::c10::metal::binary_dense_ilp<DTYPEI, NAME##_functor, OMT>( \\\n"
    "          device ::c10::metal::result_of<NAME##_functor, DTYPEI, DTYPEI> * out, \\\n"
    "          constant DTYPEI * a, constant DTYPEI * b, constant uint & numel, \\\n"
    "          uint i)\n"
    "#define REGISTER_OPMATH_BINARY_OP(NAME, DTYPEI, DTYPEO) \\\n"
    "  REGISTER_BINARY_OP_(NAME, DTYPEI, DTYPEO, ::c10::metal::opmath_t<DTYPEI>)\n"
    "#define REGISTER_BINARY_OP(NAME, DTYPEI, DTYPEO) \\\n"
    "  REGISTER_BINARY_OP_(NAME, DTYPEI, DTYPEO, DTYPEI)\n"
    "/* #define REGISTER_BINARY_CASTOUT_OP(NAME, I, O) in a comment */\n"
    "#define REGISTER_UNKNOWN_STR_OP(NAME, T) \\\n"
    "  template [[host_name(#NAME NOT_A_STRING)]] kernel void f<T>(T x)\n";

/* shaped like the older headers: dense and strided, ALPHA last */
static const char hdr_old[] =
    "#define REGISTER_UNARY_ALPHA_OP(NAME, DTYPEI, DTYPEA, DTYPEO) \\\n"
    "  template [[host_name(#NAME \"_dense_\" #DTYPEO \"_\" #DTYPEI \"_\" #DTYPEA)]] \\\n"
    "  kernel void unary_alpha_dense<DTYPEI, DTYPEA, NAME##_functor>( \\\n"
    "      device result_of<NAME##_functor, DTYPEI, DTYPEA> * out, \\\n"
    "      constant DTYPEI * in, constant DTYPEA & alpha, uint i); \\\n"
    "  template [[host_name(#NAME \"_strided_\" #DTYPEO \"_\" #DTYPEI \"_\" #DTYPEA)]] \\\n"
    "  kernel void unary_alpha_strided<DTYPEI, DTYPEA, NAME##_functor>( \\\n"
    "      device void * out, constant void * in, constant DTYPEA & alpha, \\\n"
    "      constant long * sizes, constant uint & ndim, uint i)\n";

static void assert_inst(const struct mr_inst *k, const char *name,
                        const char *pattern, const char *variant,
                        const char *call)
{
	char *c = mr_inst_call(k);
	assert_string_equal(k->name, name);
	assert_string_equal(k->pattern, pattern);
	assert_string_equal(k->variant, variant);
	assert_string_equal(c, call);
	free(c);
}

static void test_instantiate(void **state)
{
	struct mr_defs d;
	struct mr_inst *v;
	size_t n;
	char *un[] = {"neg", "float", "float"};
	char *bi[] = {"atan2", "half", "half"};
	char *al[] = {"logit", "half", "float", "half"};
	(void)state;
	memset(&d, 0, sizeof d);
	mr_defs_add(&d, hdr_common, strlen(hdr_common));
	mr_defs_add(&d, hdr_new, strlen(hdr_new));

	n = mr_instantiate(&d, "REGISTER_UNARY_OP", un, 3, &v);
	assert_int_equal(n, 4);
	assert_inst(&v[0], "neg_dense_float_float", "NAME_dense_DTYPE1_DTYPE0",
	            "dense", "::c10::metal::unary_dense<float, neg_functor>");
	assert_inst(&v[1], "neg_dense_scalar_float_float",
	            "NAME_dense_scalar_DTYPE1_DTYPE0", "dense_scalar",
	            "::c10::metal::unary_dense_scalar<float, neg_functor>");
	assert_inst(&v[2], "neg_strided_float_float",
	            "NAME_strided_DTYPE1_DTYPE0", "strided",
	            "::c10::metal::unary_strided<float, neg_functor>");
	assert_inst(&v[3], "neg_dense_castout_float", "NAME_dense_castout_DTYPE0",
	            "dense_castout",
	            "::c10::metal::unary_dense_castout<float, neg_functor>");
	/* the parameters, blanks squeezed, a comma inside <> kept */
	assert_int_equal(v[0].nparams, 4);
	assert_string_equal(v[0].params[0],
	                    "device::c10::metal::result_of<neg_functor,float>*out");
	assert_string_equal(v[0].params[2], "constant uint&numel");
	assert_string_equal(v[0].params[3], "uint i");
	assert_int_equal(v[2].nparams, 7);
	assert_string_equal(v[2].params[6], "uint2 pos");
	assert_ptr_equal(mr_inst_find(v, n, "strided"), &v[2]);
	assert_null(mr_inst_find(v, n, "inner_contiguous"));
	mr_insts_free(v, n);

	/* nested: OPMATH -> BINARY_OP_, the ILP width from a string macro */
	n = mr_instantiate(&d, "REGISTER_OPMATH_BINARY_OP", bi, 3, &v);
	assert_int_equal(n, 2);
	assert_inst(&v[0], "atan2_dense_half_half", "NAME_dense_DTYPEO_DTYPEI",
	            "dense",
	            "::c10::metal::binary_dense<half, atan2_functor, "
	            "::c10::metal::opmath_t<half>>");
	assert_inst(&v[1], "atan2_dense_ilp4_half_half",
	            "NAME_dense_ilp4_DTYPEO_DTYPEI", "dense_ilp4",
	            "::c10::metal::binary_dense_ilp<half, atan2_functor, "
	            "::c10::metal::opmath_t<half>>");
	assert_int_equal(v[1].ntargs, 3);
	mr_insts_free(v, n);
	n = mr_instantiate(&d, "REGISTER_BINARY_OP", bi, 3, &v);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].targs[2], "half");
	mr_insts_free(v, n);

	/* not a macro, a macro in a comment, a wrong argument count, a name
	 * piece that is no string */
	assert_int_equal(mr_instantiate(&d, "REGISTER_BINARY_CASTOUT_OP", bi, 3, &v), 0);
	assert_null(v);
	assert_int_equal(mr_instantiate(&d, "REGISTER_UNARY_OP", bi, 2, &v), 0);
	assert_int_equal(mr_instantiate(&d, "REGISTER_UNKNOWN_STR_OP", bi, 2, &v), 0);
	mr_defs_free(&d);

	/* the older shape: two kernels, ALPHA after IN */
	memset(&d, 0, sizeof d);
	mr_defs_add(&d, hdr_old, strlen(hdr_old));
	n = mr_instantiate(&d, "REGISTER_UNARY_ALPHA_OP", al, 4, &v);
	assert_int_equal(n, 2);
	assert_inst(&v[0], "logit_dense_half_half_float",
	            "NAME_dense_DTYPEO_DTYPEI_DTYPEA", "dense",
	            "unary_alpha_dense<half, float, logit_functor>");
	assert_inst(&v[1], "logit_strided_half_half_float",
	            "NAME_strided_DTYPEO_DTYPEI_DTYPEA", "strided",
	            "unary_alpha_strided<half, float, logit_functor>");
	assert_string_equal(v[0].params[2], "constant float&alpha");
	mr_insts_free(v, n);
	mr_defs_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kinds),       cmocka_unit_test(test_dtypes),
	    cmocka_unit_test(test_presets),     cmocka_unit_test(test_parse_dtypes),
	    cmocka_unit_test(test_names),       cmocka_unit_test(test_parse_file),
	    cmocka_unit_test(test_helpers),     cmocka_unit_test(test_odd_input),
	    cmocka_unit_test(test_infrastructure),
	    cmocka_unit_test(test_instantiate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
