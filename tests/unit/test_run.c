/* test_run.c — cmocka tests of mps-run's reading of a Metal source
 * (tools/lib/run/kernel.c): the kernels and their parameters, the host
 * copy (buffers as checked pointers, threadgroup arrays as checked arrays,
 * accesses carrying their line, barriers and SIMD calls wrapped with
 * their site; every line kept), the kernel table, and the kernels this
 * slice refuses, with their line. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "run/run.h"

static const char src[] =
	"#include <metal_stdlib>\n"                                          /* 1 */
	"using namespace metal;\n"                                           /* 2 */
	"// kernel void not_me(device float* x) {}\n"                        /* 3 */
	"template <typename T> kernel void tpl(device T* x) { x[0] = 1; }\n" /* 4 */
	"kernel void k(constant float* x [[buffer(0)]],\n"                   /* 5 */
	"              device float* out [[buffer(1)]],\n"                   /* 6 */
	"              constant long& n [[buffer(2)]],\n"                    /* 7 */
	"              uint2 g [[threadgroup_position_in_grid]],\n"          /* 8 */
	"              uint i [[thread_index_in_threadgroup]]) {\n"          /* 9 */
	"  threadgroup float t[64];\n"                                       /* 10 */
	"  t[i] = x[i] * 0.5;\n"                                             /* 11 */
	"  threadgroup_barrier(mem_flags::mem_threadgroup);\n"               /* 12 */
	"  out [i] = metal::simd_sum(t[63 - i]);\n"                          /* 13 */
	"  const char *s = \"x[0]\"; (void)s; float xs = n;\n"               /* 14 */
	"}\n";                                                               /* 15 */

static void test_parse_kernels(void **state)
{
	(void)state;
	struct run_kernel *k;
	char *host, *err;
	unsigned long line;
	long n = run_parse(src, strlen(src), NULL, &k, &host, &err, &line);
	assert_int_equal(n, 1); /* the comment and the template (never instantiated) are not kernels */
	assert_string_equal(k[0].name, "k");
	assert_int_equal(k[0].line, 5);
	assert_int_equal(k[0].np, 5);
	assert_int_equal(k[0].nslots, 3);
	assert_int_equal(k[0].p[0].kind, RUN_CBUF);
	assert_string_equal(k[0].p[0].type, "float");
	assert_int_equal(k[0].p[1].kind, RUN_BUF);
	assert_string_equal(k[0].p[1].name, "out");
	assert_int_equal(k[0].p[2].kind, RUN_SCALAR);
	assert_string_equal(k[0].p[2].type, "long");
	assert_int_equal(k[0].p[2].slot, 2);
	assert_int_equal(k[0].p[3].kind, RUN_POS);
	assert_string_equal(k[0].p[3].type, "uint2");
	assert_string_equal(k[0].p[3].attr, "threadgroup_position_in_grid");
	/* the host copy, line by line */
	const char *want =
		"#include <metal_stdlib>\n"
		"using namespace metal;\n"
		"// kernel void not_me(device float* x) {}\n"
		"template <typename T> kernel void tpl(::metal_host::model::dptr<T> x) { x.at(__LINE__)[0] = 1; }\n"
		"kernel void k(::metal_host::model::dptr<const float> x,\n"
		"              ::metal_host::model::dptr<float> out,\n"
		"              constant long& n [[buffer(2)]],\n"
		"              uint2 g [[threadgroup_position_in_grid]],\n"
		"              uint i [[thread_index_in_threadgroup]]) {\n"
		"  MH_TG(float, 64, t);\n"
		"  t.at(__LINE__)[i] = x.at(__LINE__)[i] * 0.5f;\n"
		"  (::metal_host::model::site(__LINE__), threadgroup_barrier(mem_flags::mem_threadgroup));\n"
		"  out.at(__LINE__) [i] = (::metal_host::model::site(__LINE__), metal::simd_sum(t.at(__LINE__)[63 - i]));\n"
		"  const char *s = \"x[0]\"; (void)s; float xs = n;\n"
		"}\n";
	assert_string_equal(host, want);
	char *tab = run_table(k, (size_t)n);
	assert_string_equal(tab, "kernel k 3\narg 0 cbuf x\narg 1 buf out\narg 2 scalar n\n");
	char *drv = run_driver(k, (size_t)n, "kernel.metal");
	assert_non_null(strstr(drv, "#include \"kernel.metal\"\n"));
	assert_non_null(strstr(drv, "\t{1, \"x\", sizeof(float)},\n\t{0, \"out\", sizeof(float)},\n"
	                            "\t{2, \"n\", sizeof(long)},\n"));
	assert_non_null(strstr(drv, "::k(dptr<const float>((const float *)d[0], b[0]),\n"
	                            "\t    dptr<float>((float *)d[1], b[1]),\n"
	                            "\t    *(long *)d[2],\n"
	                            "\t    uint2(p->tgpig[0], p->tgpig[1]),\n"
	                            "\t    uint(p->tiitg));\n"));
	assert_non_null(strstr(drv, "\t{\"k\", 5, 3, mh_a0, mh_r0},\n"));
	assert_non_null(strstr(drv, "extern const int nkernels = 1;\n"));
	free(tab);
	free(drv);
	free(host);
	run_kernels_free(k, (size_t)n);
}

static void refused(const char *text, unsigned long want_line, const char *want)
{
	struct run_kernel *k;
	char *host, *err;
	unsigned long line = 0;
	assert_int_equal(run_parse(text, strlen(text), NULL, &k, &host, &err, &line), -1);
	assert_int_equal(line, want_line);
	assert_string_equal(err, want);
	free(err);
}

static void test_refused(void **state)
{
	(void)state;
	refused("\nkernel void a(device float* x,\n  threadgroup float* t [[threadgroup(0)]]) {}\n", 3,
	        "kernel 'a': threadgroup parameter 't': torch.mps.compile_shader cannot size threadgroup "
	        "memory (it binds buffers and bytes only); declare `threadgroup T t[N];` in the kernel's "
	        "body");
	refused("kernel void b(device float* x) {\n  threadgroup float t[4][4][2];\n}\n", 2,
	        "kernel 'b': a threadgroup array of more than two dimensions or with an initializer is "
	        "not supported yet by mps-run");
	refused("kernel void c(device float* x) {\n\n  threadgroup float s;\n}\n", 3,
	        "kernel 'c': a threadgroup scalar is not supported yet by mps-run (use an array of one "
	        "element)");
	refused("kernel void d(float v [[buffer(0)]]) {}\n", 1,
	        "kernel 'd': parameter 'v' is neither a buffer (T*), a reference (constant T&) nor a "
	        "thread-position attribute");
}

static void test_no_kernel(void **state)
{
	(void)state;
	struct run_kernel *k;
	char *host, *err;
	unsigned long line;
	const char *t = "inline float f(float x) { return simd_sum(x); }\n";
	assert_int_equal(run_parse(t, strlen(t), NULL, &k, &host, &err, &line), 0);
	/* a helper's SIMD call gets its site too */
	assert_string_equal(host, "inline float f(float x) { return (::metal_host::model::site(__LINE__), "
	                          "simd_sum(x)); }\n");
	free(host);
	free(k);
	/* a qualified call keeps its whole qualifier inside the wrap */
	t = "float g(float x) { return c10::metal::simd_max(x) + ::metal::simd_sum(x); }\n";
	assert_int_equal(run_parse(t, strlen(t), NULL, &k, &host, &err, &line), 0);
	assert_string_equal(host, "float g(float x) { return (::metal_host::model::site(__LINE__), "
	                          "c10::metal::simd_max(x)) + (::metal_host::model::site(__LINE__), "
	                          "::metal::simd_sum(x)); }\n");
	free(host);
	free(k);
}

/* template kernels: instantiations written out and through a macro of the
 * source, each a kernel named by its [[host_name]]; the source's own
 * instantiations are blanked in the host copy (lines and the backslashes
 * of the #define kept), the template rewritten as a plain kernel */
static const char tsrc[] =
	"template <typename T, int N>\n"                                     /* 1 */
	"kernel void fill(device T* out [[buffer(0)]],\n"                    /* 2 */
	"                 constant T& v [[buffer(1)]],\n"                    /* 3 */
	"                 uint i [[thread_position_in_grid]]) {\n"           /* 4 */
	"  out[i] = v * N;\n"                                                /* 5 */
	"}\n"                                                                /* 6 */
	"#define INST(T) \\\n"                                                /* 7 */
	"  template [[host_name(\"fill_\" #T)]] kernel void fill<T, 2>( \\\n"  /* 8 */
	"      device T* out [[buffer(0)]], constant T& v [[buffer(1)]], \\\n" /* 9 */
	"      uint i [[thread_position_in_grid]]);\n"                       /* 10 */
	"INST(float);\n"                                                     /* 11 */
	"INST(int);\n"                                                       /* 12 */
	"template [[host_name(\"fill3\")]] kernel void fill<half, 3>(device half* out,\n" /* 13 */
	"    constant half& v, uint i [[thread_position_in_grid]]);\n";       /* 14 */

static void test_templates(void **state)
{
	(void)state;
	struct run_kernel *k;
	char *host, *err;
	unsigned long line;
	long n = run_parse(tsrc, strlen(tsrc), NULL, &k, &host, &err, &line);
	assert_int_equal(n, 3);
	assert_string_equal(k[0].name, "fill_float");
	assert_string_equal(k[0].call, "fill<float, 2>");
	assert_int_equal(k[0].line, 2); /* its template's `kernel` */
	assert_int_equal(k[0].nslots, 2);
	assert_int_equal(k[0].p[0].kind, RUN_BUF);
	assert_string_equal(k[0].p[0].type, "float");
	assert_int_equal(k[0].p[1].kind, RUN_SCALAR);
	assert_string_equal(k[1].name, "fill_int");
	assert_string_equal(k[1].call, "fill<int, 2>");
	assert_string_equal(k[2].name, "fill3");
	assert_string_equal(k[2].call, "fill<half, 3>");
	assert_string_equal(k[2].p[0].type, "half");
	const char *want =
		"template <typename T, int N>\n"
		"kernel void fill(::metal_host::model::dptr<T> out,\n"
		"                 constant T& v [[buffer(1)]],\n"
		"                 uint i [[thread_position_in_grid]]) {\n"
		"  out.at(__LINE__)[i] = v * N;\n"
		"}\n"
		"#define INST(T) \\\n"
		"%61s\\\n"
		"%64s\\\n"
		"%42s\n"
		"INST(float);\n"
		"INST(int);\n"
		"%75s\n"
		"%58s\n";
	char *wanted = xasprintf(want, "", "", "", "", "");
	assert_string_equal(host, wanted);
	free(wanted);
	char *drv = run_driver(k, (size_t)n, "kernel.metal");
	assert_non_null(strstr(drv, "::fill<float, 2>(dptr<float>((float *)d[0], b[0]),\n"
	                            "\t    *(float *)d[1],\n"));
	assert_non_null(strstr(drv, "\t{\"fill3\", 2, 2, mh_a2, mh_r2},\n"));
	free(drv);
	free(host);
	run_kernels_free(k, (size_t)n);
}

/* current main's spelling: [[kernel]] void, after other attributes */
static void test_kernel_attribute(void **state)
{
	(void)state;
	const char *src =
		"template <typename T>\n"
		"[[max_total_threads_per_threadgroup(256)]] [[kernel]] void\n"
		"neg(device T* out, constant T* in, uint i [[thread_position_in_grid]]) {\n"
		"  out[i] = -in[i];\n"
		"}\n"
		"template [[host_name(\"neg_float\")]] [[kernel]] void neg<float>(\n"
		"    device float* out, constant float* in, uint i [[thread_position_in_grid]]);\n"
		"[[kernel]] void plain(device int* o) { o[0] = 1; }\n";
	struct run_kernel *k;
	char *host, *err;
	unsigned long line;
	long n = run_parse(src, strlen(src), NULL, &k, &host, &err, &line);
	assert_int_equal(n, 2);
	assert_string_equal(k[0].name, "plain");
	assert_string_equal(k[1].name, "neg_float");
	assert_string_equal(k[1].call, "neg<float>");
	assert_int_equal(k[1].line, 2);
	assert_int_equal(k[1].p[1].kind, RUN_CBUF);
	/* the instantiation blanked, the template's buffers checked */
	assert_non_null(strstr(host, "neg(::metal_host::model::dptr<T> out, "
	                             "::metal_host::model::dptr<const T> in,"));
	assert_null(strstr(host, "neg<float>"));
	free(host);
	run_kernels_free(k, (size_t)n);
	/* a two-dimensional threadgroup array: MH_TG2, accesses as any */
	src = "kernel void c(uint2 t [[thread_position_in_threadgroup]]) {\n"
	      "  threadgroup float s[4][8];\n  s[t.y][t.x] = 1;\n}\n";
	n = run_parse(src, strlen(src), NULL, &k, &host, &err, &line);
	assert_int_equal(n, 1);
	assert_non_null(strstr(host, "  MH_TG2(float, 4, 8, s);\n  s.at(__LINE__)[t.y][t.x] = 1;\n"));
	free(host);
	run_kernels_free(k, (size_t)n);
}

/* forms of main's kernels (SoftMax, RMSNorm, Sort, ScanKernel .metal):
 * a template named by a macro parameter, an instantiation repeating a
 * position parameter with another attribute, unnamed parameters, a 1-D
 * threadgroup array passed whole, the source's own simd_* functions */
static const char msrc[] =
	"inline float simd_total(float v) { return simd_sum(v); }\n"
	"template <typename T>\n"
	"kernel void k(device T* out, uint g [[threadgroup_position_in_grid]],\n"
	"              uint t [[thread_position_in_threadgroup]]) {\n"
	"  threadgroup T sh[4];\n"
	"  helper(sh, t);\n"
	"  out[g] = simd_total(sh[t]);\n"
	"}\n"
	"#define REG(DTYPE, NAME) template [[host_name(#NAME \"_\" #DTYPE)]] kernel void \\\n"
	"  NAME<DTYPE>(device DTYPE* out, uint g [[thread_position_in_grid]], uint t [[thread_position_in_threadgroup]]);\n"
	"REG(float, k)\n"
	"template [[host_name(\"k_int\")]] kernel void k<int>(device int*, uint, uint);\n";

static void test_main_forms(void **state)
{
	(void)state;
	struct run_kernel *k;
	char *host, *err;
	unsigned long line;
	long n = run_parse(msrc, strlen(msrc), NULL, &k, &host, &err, &line);
	assert_int_equal(n, 2);
	assert_string_equal(k[0].name, "k_float");
	assert_string_equal(k[0].call, "k<float>");
	/* the definition's attribute, not the instantiation's */
	assert_string_equal(k[0].p[1].attr, "threadgroup_position_in_grid");
	assert_string_equal(k[1].name, "k_int");
	assert_string_equal(k[1].p[0].name, "out");
	assert_int_equal(k[1].p[0].kind, RUN_BUF);
	assert_string_equal(k[1].p[1].name, "g");
	assert_string_equal(k[1].p[2].attr, "thread_position_in_threadgroup");
	/* the definition of simd_total is no call site; its call is */
	assert_non_null(strstr(host, "inline float simd_total(float v) { return "
	                             "(::metal_host::model::site(__LINE__), simd_sum(v)); }\n"));
	assert_non_null(strstr(host, "= (::metal_host::model::site(__LINE__), simd_total(sh.at(__LINE__)[t]));"));
	/* the array passed whole decays; the macro's instantiation is blanked */
	assert_non_null(strstr(host, "  helper(sh.data(), t);\n"));
	assert_null(strstr(host, "NAME<DTYPE>"));
	free(host);
	run_kernels_free(k, (size_t)n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_kernels),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_no_kernel),
		cmocka_unit_test(test_templates),
		cmocka_unit_test(test_kernel_attribute),
		cmocka_unit_test(test_main_forms),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
