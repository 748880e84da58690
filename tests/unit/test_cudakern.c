/* test_cudakern.c — cmocka tests of tools/lib/read/cudakern.c: the lambdas
 * a kernel function hands to the TensorIterator loops (plain lambdas,
 * jiterator strings, functor structs, lambda and functor variables), the
 * dtypes of the branch each sits in, the declarations its captures may
 * come from, the CPU kernel's scalar lambdas, the registration found across
 * files with the helpers of included headers, and the functions of the
 * c10/metal headers.  Texts are our own, shaped like PyTorch's files. */
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
#include "read/cudakern.h"
#include "tree.h"

static const char kernels_cu[] =
    "namespace at::native {\n"
    "template <typename scalar_t>\n"
    "struct HalveFunctor {\n"
    "  __device__ scalar_t operator()(scalar_t a) const { return a / 2; }\n"
    "};\n"
    "constexpr char twist_name[] = \"twist_impl\";\n"
    "void twist_kernel_cuda(TensorIteratorBase& iter) {\n"          /* 7 */
    "  auto dtype = iter.common_dtype();\n"
    "  if (at::isComplexType(dtype)) {\n"
    "    static const auto twist_string = jiterator_stringify(\n"
    "        template <typename T> T helper(T z) { return z; }\n"
    "        template <typename T> T twist_impl(T z) { return helper(-z); });\n"
    "    AT_DISPATCH_COMPLEX_TYPES_AND(kComplexHalf, dtype, \"twist\", [&]() {\n"
    "      jitted_gpu_kernel</*name=*/twist_name, scalar_t, scalar_t, 1>(iter, twist_string);\n"
    "    });\n"
    "  } else if (dtype == ScalarType::Bool) {\n"                   /* 16 */
    "    gpu_kernel(iter, []GPU_LAMBDA(bool a) -> bool { return !a; });\n"
    "  } else {\n"
    "    AT_DISPATCH_V2(dtype, \"twist\", AT_WRAP([&]() {\n"
    "      using opmath_t = at::opmath_type<scalar_t>;\n"
    "      const opmath_t k(3.0f);\n"
    "      gpu_kernel_with_scalars(iter, [k]GPU_LAMBDA(scalar_t a, scalar_t b) -> scalar_t {\n"
    "        return a * k + b; // comments stay out of the body\n"
    "      });\n"
    "    }), AT_EXPAND(AT_INTEGRAL_TYPES), kHalf);\n"
    "  }\n"
    "}\n"
    "void halve_kernel_cuda(TensorIteratorBase& iter) {\n"
    "  AT_DISPATCH_FLOATING_TYPES(iter.dtype(), \"halve\", [&]() {\n"
    "    gpu_kernel(iter, HalveFunctor<scalar_t>());\n"
    "    HalveFunctor<scalar_t> f;\n"
    "    gpu_kernel(iter, f);\n"
    "    auto g = [] GPU_LAMBDA (scalar_t x) -> scalar_t { return x; };\n"
    "    gpu_kernel(iter, g);\n"
    "  });\n"
    "}\n"
    "}\n";

/* lambdas in the branches of a condition that is not the dtype choice
 * (logit's eps): each is one branch of the math, and says which; an early
 * return after work guards what follows; a bare `return;` and the dtype
 * branches do not */
static const char branches_cu[] =
    "void clampit_kernel_cuda(TensorIteratorBase& iter, const Scalar& lim) {\n"
    "  AT_DISPATCH_FLOATING_TYPES(iter.common_dtype(), \"clampit\", [&]() {\n"
    "    const scalar_t e = lim.to<scalar_t>();\n"
    "    if (e < scalar_t(0)) {\n"                                   /* 4 */
    "      gpu_kernel(iter, [] GPU_LAMBDA(scalar_t x) -> scalar_t { return x; });\n"
    "    } else {\n"
    "      gpu_kernel(iter, [e] GPU_LAMBDA(scalar_t x) -> scalar_t {\n"
    "        return x < e ? e : x; });\n"
    "    }\n"
    "  });\n"
    "}\n"
    "void early_kernel_cuda(TensorIteratorBase& iter) {\n"           /* 12 */
    "  if (iter.numel() == 0) { return; }\n"
    "  if (iter.dtype() == kBool) {\n"
    "    gpu_kernel(iter, [] GPU_LAMBDA(bool a, bool b) -> bool { return a; });\n"
    "    return;\n"
    "  }\n"
    "  if (iter.is_cpu_scalar(2))\n"                                 /* 18 */
    "  {\n"
    "    gpu_kernel(iter, [] GPU_LAMBDA(float a) -> float { return a; });\n"
    "    return;\n"
    "  }\n"
    "  gpu_kernel(iter, [] GPU_LAMBDA(float a, float b) -> float { return a + b; });\n"
    "}\n"
    "void pick_kernel_cuda(TensorIteratorBase& iter, int64_t n) {\n"
    "  switch (n) {\n"
    "    case 0: gpu_kernel(iter, [] GPU_LAMBDA(float a) -> float { return a; }); break;\n"
    "  }\n"
    "}\n"
    "void reduced_kernel_cuda(TensorIteratorBase& iter) {\n"
    "  if (at::isReducedFloatingType(iter.dtype())) {\n"
    "    gpu_kernel(iter, [] GPU_LAMBDA(float a) -> float { return a; });\n"
    "  }\n"
    "}\n"
    "void plain_kernel_cuda(TensorIteratorBase& iter) {\n"
    "  if (iter.numel() == 0)\n"
    "    return;\n"
    "  auto f = [] GPU_LAMBDA(float a) -> float { if (a < 0) return -a; return a; };\n"
    "  gpu_kernel(iter, f);\n"
    "}\n"
    "void mix_scalar_kernel(TensorIteratorBase& iter, const Scalar& w);\n"
    "void mix_tensor_kernel(TensorIteratorBase& iter) {\n"
    "  if (iter.is_cpu_scalar(3)) {\n"
    "    auto w = iter.scalar_value<float>(3);\n"
    "    iter.remove_operand(3);\n"
    "    return mix_scalar_kernel(iter, w);\n"
    "  }\n"
    "  gpu_kernel(iter, [] GPU_LAMBDA(float a, float b, float c) -> float { return a + c * (b - a); });\n"
    "}\n";

static void test_branches(void **state)
{
	struct ck_kernel k;
	(void)state;
	assert_int_equal(ck_lambdas_text("b.cu", branches_cu, strlen(branches_cu),
	                                 "clampit_kernel_cuda", 0, &k), 0);
	assert_int_equal(k.nlambdas, 2);
	assert_string_equal(k.lambdas[0].guard, "e < scalar_t(0)");
	assert_string_equal(k.lambdas[0].guard_file, "b.cu");
	assert_int_equal(k.lambdas[0].guard_line, 4);
	assert_string_equal(k.lambdas[1].guard, "e < scalar_t(0)"); /* its else */
	assert_int_equal(k.lambdas[1].guard_line, 4);
	assert_true(k.lambdas[0].dtypes & CS_BIT(CS_FLOAT));
	ck_kernel_free(&k);

	assert_int_equal(ck_lambdas_text("b.cu", branches_cu, strlen(branches_cu),
	                                 "early_kernel_cuda", 0, &k), 0);
	assert_int_equal(k.nlambdas, 3);
	assert_null(k.lambdas[0].guard); /* the dtype choice */
	assert_int_equal(k.lambdas[0].dtypes, CS_BIT(CS_BOOL));
	assert_string_equal(k.lambdas[1].guard, "iter.is_cpu_scalar(2)");
	assert_int_equal(k.lambdas[1].guard_line, 18);
	/* after `if (..) { gpu_kernel(..); return; }`: the other branch */
	assert_string_equal(k.lambdas[2].guard, "iter.is_cpu_scalar(2)");
	ck_kernel_free(&k);

	assert_int_equal(ck_lambdas_text("b.cu", branches_cu, strlen(branches_cu),
	                                 "pick_kernel_cuda", 0, &k), 0);
	assert_int_equal(k.nlambdas, 1);
	assert_string_equal(k.lambdas[0].guard, "n");
	ck_kernel_free(&k);

	/* isReducedFloatingType: a dtype test (Half, BFloat16), as cpu/
	 * BinaryOpsKernel.cpp's logaddexp_kernel uses it */
	assert_int_equal(ck_lambdas_text("b.cu", branches_cu, strlen(branches_cu),
	                                 "reduced_kernel_cuda", 0, &k), 0);
	assert_int_equal(k.nlambdas, 1);
	assert_null(k.lambdas[0].guard);
	assert_int_equal(k.lambdas[0].dtypes, CS_BIT(CS_HALF) | CS_BIT(CS_BFLOAT16));
	ck_kernel_free(&k);

	/* a bare early return, and the lambda's own if: no condition */
	assert_int_equal(ck_lambdas_text("b.cu", branches_cu, strlen(branches_cu),
	                                 "plain_kernel_cuda", 0, &k), 0);
	assert_int_equal(k.nlambdas, 1);
	assert_null(k.lambdas[0].guard);
	ck_kernel_free(&k);

	/* an early return that takes an operand out and hands the iterator
	 * to another kernel (lerp's CPU-scalar weight): what follows is the
	 * math for every input, no branch of it */
	assert_int_equal(ck_lambdas_text("b.cu", branches_cu, strlen(branches_cu),
	                                 "mix_tensor_kernel", 0, &k), 0);
	assert_int_equal(k.nlambdas, 1);
	assert_null(k.lambdas[0].guard);
	ck_kernel_free(&k);

	/* the dtype if / else if / else of kernels_cu: none */
	assert_int_equal(ck_lambdas_text("k.cu", kernels_cu, strlen(kernels_cu),
	                                 "twist_kernel_cuda", 0, &k), 0);
	assert_int_equal(k.nlambdas, 3);
	assert_null(k.lambdas[0].guard);
	assert_null(k.lambdas[1].guard);
	assert_null(k.lambdas[2].guard);
	ck_kernel_free(&k);
}

static void test_lambdas(void **state)
{
	struct ck_kernel k;
	char *names;
	(void)state;
	assert_int_equal(ck_lambdas_text("k.cu", kernels_cu, strlen(kernels_cu),
	                                 "twist_kernel_cuda", 0, &k), 0);
	assert_true(k.found);
	assert_int_equal(k.def_line, 7);
	assert_int_equal(k.nlambdas, 3);
	/* the jiterator function the name's string names, its helper beside */
	assert_int_equal(k.lambdas[0].how, CK_JITERATOR);
	assert_string_equal(k.lambdas[0].code.name, "twist_impl");
	assert_string_equal(k.lambdas[0].code.body, " return helper(-z); ");
	assert_int_equal(k.lambdas[0].code.line, 12);
	assert_int_equal(k.lambdas[0].helpers_to - k.lambdas[0].helpers_from, 1);
	assert_string_equal(k.helpers[k.lambdas[0].helpers_from].name, "helper");
	names = cs_dtset_names(k.lambdas[0].dtypes, ",");
	assert_string_equal(names, "ComplexDouble,ComplexFloat,ComplexHalf");
	free(names);
	assert_string_equal(k.lambdas[0].branch, "AT_DISPATCH_COMPLEX_TYPES_AND");
	/* a dtype test of an if */
	assert_int_equal(k.lambdas[1].dtypes, CS_BIT(CS_BOOL));
	assert_string_equal(k.lambdas[1].branch, "if (dtype == ScalarType::Bool)");
	assert_string_equal(k.lambdas[1].code.params[0].type, "bool");
	assert_string_equal(k.lambdas[1].code.ret, "bool");
	/* AT_DISPATCH_V2's list; the captures and their declarations */
	names = cs_dtset_names(k.lambdas[2].dtypes, ",");
	assert_string_equal(names, "Half,Long,Int,Short,Char,Byte");
	free(names);
	assert_int_equal(k.lambdas[2].how, CK_WITH_SCALARS);
	assert_string_equal(k.lambdas[2].code.captures, "k");
	assert_int_equal(k.lambdas[2].code.nparams, 2);
	assert_string_equal(k.lambdas[2].code.params[1].name, "b");
	assert_non_null(strstr(k.lambdas[2].code.body, "return a * k + b;"));
	assert_null(strchr(k.lambdas[2].code.body, '/'));
	assert_non_null(strstr(k.lambdas[2].code.shown, "// comments stay out"));
	/* every declaration before the call (the jiterator string's too: the
	 * translator takes only those the body names) */
	assert_int_equal(k.lambdas[2].nouter, 2);
	assert_string_equal(k.lambdas[2].outer[1], "const opmath_t k(3.0f);");
	ck_kernel_free(&k);

	/* functors: a struct's operator(), a variable of one, a lambda variable */
	assert_int_equal(ck_lambdas_text("k.cu", kernels_cu, strlen(kernels_cu),
	                                 "halve_kernel_cuda", 0, &k), 0);
	assert_int_equal(k.nlambdas, 3);
	assert_int_equal(k.lambdas[0].how, CK_FUNCTOR);
	assert_string_equal(k.lambdas[0].code.body, " return a / 2; ");
	assert_int_equal(k.lambdas[0].code.line, 4);
	assert_int_equal(k.lambdas[1].how, CK_FUNCTOR);
	assert_int_equal(k.lambdas[2].how, CK_GPU_KERNEL);
	assert_string_equal(k.lambdas[2].code.body, " return x; ");
	assert_int_equal(k.lambdas[2].dtypes, CS_BIT(CS_DOUBLE) | CS_BIT(CS_FLOAT));
	ck_kernel_free(&k);

	assert_int_equal(ck_lambdas_text("k.cu", kernels_cu, strlen(kernels_cu),
	                                 "absent_kernel", 0, &k), 1);
	ck_kernel_free(&k);
}

static void test_cpu(void **state)
{
	static const char cpu[] =
	    "static void frob_kernel(TensorIteratorBase& iter) {\n"
	    "  AT_DISPATCH_SWITCH(iter.dtype(), \"frob\",\n"
	    "      AT_DISPATCH_CASE_FLOATING_TYPES([&] {\n"
	    "        cpu_kernel_vec(iter,\n"
	    "            [=](scalar_t a) -> scalar_t { return a + 1; },\n"
	    "            [=](Vectorized<scalar_t> a) { return a + Vectorized<scalar_t>(1); });\n"
	    "      })\n"
	    "      AT_DISPATCH_CASE(kBool, [&] {\n"
	    "        cpu_kernel(iter, [](bool a) -> bool { return true; });\n"
	    "      }));\n"
	    "}\n";
	struct ck_kernel k;
	(void)state;
	assert_int_equal(ck_lambdas_text("cpu/F.cpp", cpu, strlen(cpu), "frob_kernel",
	                                 1, &k), 0);
	assert_int_equal(k.nlambdas, 2);
	assert_int_equal(k.lambdas[0].how, CK_CPU_KERNEL_VEC);
	assert_string_equal(k.lambdas[0].code.body, " return a + 1; ");
	assert_int_equal(k.lambdas[0].dtypes, CS_BIT(CS_DOUBLE) | CS_BIT(CS_FLOAT));
	assert_string_equal(k.lambdas[0].branch, "AT_DISPATCH_CASE_FLOATING_TYPES");
	assert_int_equal(k.lambdas[1].how, CK_CPU_KERNEL);
	assert_int_equal(k.lambdas[1].dtypes, CS_BIT(CS_BOOL));
	ck_kernel_free(&k);
	/* a dispatch macro of the file's own, read from its #define */
	{
		static const char local[] =
		    "#define _AT_DISPATCH_MINE(TYPE, NAME, ...) \\\n"
		    "  AT_DISPATCH_FLOATING_TYPES_AND(kHalf, TYPE, NAME, __VA_ARGS__)\n"
		    "void same_kernel(TensorIteratorBase& iter) {\n"
		    "  _AT_DISPATCH_MINE(iter.dtype(), \"same\", [&]() {\n"
		    "    cpu_kernel(iter, [](scalar_t a, scalar_t b) -> bool { return a == b; });\n"
		    "  });\n"
		    "}\n";
		assert_int_equal(ck_lambdas_text("cpu/S.cpp", local, strlen(local),
		                                 "same_kernel", 1, &k), 0);
		assert_int_equal(k.nlambdas, 1);
		assert_int_equal(k.lambdas[0].dtypes, CS_BIT(CS_DOUBLE) | CS_BIT(CS_FLOAT) |
		                                      CS_BIT(CS_HALF));
		assert_string_equal(k.lambdas[0].branch, "_AT_DISPATCH_MINE");
		ck_kernel_free(&k);
	}
}

static char *root;

static int setup(void **state)
{
	static const char reg_cu[] =
	    "#include <ATen/native/cuda/Helpers.cuh>\n"
	    "namespace at::native {\n"
	    "void glide_kernel_cuda(TensorIteratorBase& iter);\n"
	    "REGISTER_DISPATCH(glide_stub, &glide_kernel_cuda)\n"
	    "REGISTER_DISPATCH(macro_stub, &made_by_a_macro)\n"
	    "}\n";
	static const char def_cu[] =
	    "#include <ATen/native/cuda/Helpers.cuh>\n"
	    "#include <ATen/native/Glide.h>\n"
	    "#include <ATen/native/Missing.h>\n"
	    "#include <ATen/native/cpu/Skip.h>\n"
	    "namespace at::native {\n"
	    "static void launch(TensorIteratorBase& iter) {\n"
	    "  AT_DISPATCH_FLOATING_TYPES(iter.dtype(), \"glide\", [&]() {\n"
	    "    gpu_kernel(iter, []GPU_LAMBDA(scalar_t a) -> scalar_t { return smooth(a); });\n"
	    "  });\n"
	    "}\n"
	    "void glide_kernel_cuda(TensorIteratorBase& iter) {\n"
	    "  launch(iter);\n"
	    "}\n"
	    "}\n";
	static const char utils_h[] =
	    "namespace c10 {\nnamespace metal {\n"
	    "template <typename T> inline T conj(const T z) { return z; }\n"
	    "template <typename T> float declared_only(T x);\n"
	    "struct not_a_function { int x; };\n"
	    "namespace detail { inline int inner(int a) { return a; } }\n"
	    "} // namespace metal\n} // namespace c10\n";
	static const char special_h[] =
	    "namespace c10::metal {\ntemplate <typename T> inline float i0(T x) {}\n}\n";
	static const char helpers_cuh[] =
	    "namespace at::native {\n"
	    "template <typename T> C10_HOST_DEVICE static inline T smooth(T v) { return v * v; }\n"
	    "const auto smooth2_string = jiterator_stringify(\n"
	    "    template <typename T> T smooth2(T v) { return v; });\n"
	    "}\n";
	static const char glide_h[] =
	    "#pragma once\nnamespace at::native {\n"
	    "template <typename T> C10_HOST_DEVICE C10_ALWAYS_INLINE T glide_mix(T a) {\n"
	    "  using opmath_t = at::opmath_type<T>;\n  opmath_t x = a;\n  return x;\n}\n"
	    "}\n";
	static const char skip_h[] =
	    "namespace at::native {\ninline int skip_me(int a) { return a; }\n}\n";
	(void)state;
	root = xstrdup("/tmp/test_cudakern.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	tree_put(root, "aten/src/ATen/native/cuda/Reg.cu", reg_cu, strlen(reg_cu));
	tree_put(root, "aten/src/ATen/native/cuda/Glide.cu", def_cu, strlen(def_cu));
	tree_put(root, "aten/src/ATen/native/cuda/Helpers.cuh", helpers_cuh,
	         strlen(helpers_cuh));
	tree_put(root, "aten/src/ATen/native/Glide.h", glide_h, strlen(glide_h));
	tree_put(root, "aten/src/ATen/native/cpu/Skip.h", skip_h, strlen(skip_h));
	tree_put(root, "c10/metal/utils.h", utils_h, strlen(utils_h));
	tree_put(root, "c10/metal/special_math.h", special_h, strlen(special_h));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tree_remove(root);
	free(root);
	return 0;
}

/* a lambda's helpers: none gives NULL and 0 (a kernel may then have no
 * helpers array at all: fuzz_translate found NULL + 0, undefined in C,
 * under UBSan; its input is tests/fuzz/corpus/fuzz_translate/
 * null-helpers); a helper of the file is the lambda's range of the
 * kernel's helpers */
static void test_lambda_helpers(void **state)
{
	static const char one_cu[] =
	    "template <typename T> T twice(T x) { return x + x; }\n"
	    "void dbl_kernel_cuda(TensorIteratorBase& iter) {\n"
	    "  AT_DISPATCH_FLOATING_TYPES(iter.dtype(), \"dbl\", [&]() {\n"
	    "    gpu_kernel(iter, []GPU_LAMBDA(scalar_t a) -> scalar_t { return twice(a); });\n"
	    "  });\n"
	    "}\n";
	struct ck_kernel k;
	size_t n = 99;
	(void)state;
	/* no helpers array, as a kernel read from the fuzzer's input had */
	memset(&k, 0, sizeof k);
	{
		struct ck_lambda l;
		memset(&l, 0, sizeof l);
		assert_null(ck_lambda_helpers(&k, &l, &n));
		assert_int_equal(n, 0);
	}
	assert_int_equal(ck_lambdas_text("d.cu", one_cu, strlen(one_cu),
	                                 "dbl_kernel_cuda", 0, &k), 0);
	assert_int_equal(k.nlambdas, 1);
	assert_ptr_equal(ck_lambda_helpers(&k, &k.lambdas[0], &n),
	                 k.helpers + k.lambdas[0].helpers_from);
	assert_int_equal(n, 2); /* twice, and the kernel function itself */
	assert_string_equal(k.helpers[k.lambdas[0].helpers_from].name, "twice");
	ck_kernel_free(&k);
}

static void test_tree(void **state)
{
	struct ck_kernel k;
	size_t i;
	int smooth = 0, smooth2 = 0, mix = 0, skip = 0;
	(void)state;
	/* registered in one file, defined in another, the loop one call down */
	assert_int_equal(ck_cuda_kernel(root, "glide_stub", &k), 0);
	assert_string_equal(k.fn, "glide_kernel_cuda");
	assert_string_equal(k.reg_file, "aten/src/ATen/native/cuda/Reg.cu");
	assert_int_equal(k.reg_line, 4);
	assert_string_equal(k.def_file, "aten/src/ATen/native/cuda/Glide.cu");
	assert_int_equal(k.def_line, 11);
	assert_int_equal(k.nlambdas, 1);
	assert_int_equal(k.lambdas[0].code.line, 8);
	/* the included header's functions, also those of its jiterator strings */
	for (i = k.lambdas[0].helpers_from; i < k.lambdas[0].helpers_to; i++) {
		smooth |= !strcmp(k.helpers[i].name, "smooth");
		smooth2 |= !strcmp(k.helpers[i].name, "smooth2");
		skip |= !strcmp(k.helpers[i].name, "skip_me");
		if (!strcmp(k.helpers[i].name, "glide_mix")) {
			mix = 1;
			assert_string_equal(k.helpers[i].file, "aten/src/ATen/native/Glide.h");
			assert_int_equal(k.helpers[i].line, 3);
			assert_int_equal(k.helpers[i].nparams, 1);
			assert_true(k.helpers[i].templ);
		}
	}
	assert_true(smooth && smooth2);
	/* and those of the ATen/native headers it includes (Lerp.h's lerp),
	 * one level only (cpu/Skip.h is not read), a missing one passed over */
	assert_true(mix);
	assert_false(skip);
	ck_kernel_free(&k);
	assert_int_equal(ck_cuda_kernel(root, "macro_stub", &k), 1);
	assert_string_equal(k.why, "made_by_a_macro, registered at "
	                           "aten/src/ATen/native/cuda/Reg.cu:5, is not "
	                           "defined in a aten/src/ATen/native/cuda/*.cu "
	                           "file (a macro may write it)");
	ck_kernel_free(&k);
	assert_int_equal(ck_cuda_kernel(root, "other_stub", &k), 1);
	assert_string_equal(k.why, "no REGISTER_DISPATCH(other_stub, ...) in "
	                           "aten/src/ATen/native/cuda/*.cu");
	ck_kernel_free(&k);
}

static void test_c10_functions(void **state)
{
	char **names;
	size_t n;
	(void)state;
	assert_int_equal(ck_c10_metal_functions(root, &names, &n), 0);
	/* special_math.h then utils.h (sorted); no declaration, struct or
	 * detail function */
	assert_int_equal(n, 2);
	assert_string_equal(names[0], "i0");
	assert_string_equal(names[1], "conj");
	free(names[0]);
	free(names[1]);
	free(names);
	assert_int_equal(ck_c10_metal_functions("/nonexistent-root", &names, &n), 0);
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lambdas),
	    cmocka_unit_test(test_cpu),
	    cmocka_unit_test(test_branches),
	    cmocka_unit_test(test_lambda_helpers),
	    cmocka_unit_test(test_tree),
	    cmocka_unit_test(test_c10_functions),
	};
	diag_init("test_cudakern");
	return cmocka_run_group_tests(tests, setup, teardown);
}
