/* test_cppscan.c — cmocka tests of the C++ readers of aten/src/ATen/native
 * (tools/lib/read/cppmodel, stubs, dtypes, outrule).
 *
 * Most cases read the fixture tree tests/fixtures/cppscan/tree (our own
 * text, shaped like PyTorch's files; the tests run from the repository
 * root, as tests/run-all.sh does): stub discovery (a stub called, passed
 * as an argument, reached through a helper, from a macro-line definition,
 * through a functor given as template argument; device-generic, cpu-only,
 * unknown, an undeclared stub, a stub declared over several lines, a
 * cycle, a chain deeper than the bound, overloads, a parameter shadowing a
 * stub's name, decoys in comments, strings and `#if 0`, another namespace,
 * a device folder, a function header written twice under #if/#else, an
 * unbalanced brace, a header a macro begins, an explicit specialization,
 * a function named like a stub; stubs reached only on other devices:
 * device tests in if conditions, joined by || and &&, through helpers,
 * a predicate true only on CPU), CPU dtypes (each dispatch macro form, dtype
 * branches, file-local macros, helpers, nullptr and missing
 * registrations) and output rules.  The error cases (a NUL byte, an
 * unreadable file, a 10 MB line, trees without sources) build their own
 * tree in a mkdtemp folder. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "read/outrule.h"
#include "read/stubs.h"
#include "base/diag.h"
#include "tree.h"

#define FIXTURE "tests/fixtures/cppscan/tree"
#define NF "aten/src/ATen/native/"

static struct cs_model m;

static int setup(void **state)
{
	(void)state;
	return cs_load(&m, FIXTURE);
}

static int teardown(void **state)
{
	(void)state;
	cs_free(&m);
	return 0;
}

/* the stub named name in d, or fail */
static const struct cs_stub *stub(const struct cs_discovery *d,
                                  const char *name)
{
	size_t i;
	for (i = 0; i < d->nstubs; i++)
		if (strcmp(d->stubs[i].name, name) == 0)
			return &d->stubs[i];
	fail_msg("no stub %s (why: %s)", name, d->why);
	return NULL;
}

static void assert_loc(struct cs_loc l, const char *file, unsigned long line)
{
	assert_non_null(l.file);
	assert_string_equal(l.file, file);
	assert_int_equal(l.line, line);
}

/* ---- the model ---- */

static void test_load(void **state)
{
	(void)state;
	assert_true(m.have_native);
	assert_true(m.have_sources);
	/* the cuda/ folder is not read */
	assert_int_equal(m.nfiles, 10);
	assert_true(m.ndecls >= 20);
	assert_true(m.nregs >= 12);
	assert_true(m.nmetas >= 7);
}

/* ---- A. discovery ---- */

static void test_called(void **state)
{
	struct cs_discovery d;
	const struct cs_stub *s;
	(void)state;
	assert_int_equal(cs_discover(&m, "called_out", &d), CS_STUB_BACKED);
	assert_int_equal(d.nstubs, 1);
	assert_int_equal(d.ndefs, 1); /* not at::native::other::called_out */
	assert_loc(d.def, NF "Unary.cpp", 8);
	s = stub(&d, "called_stub");
	assert_int_equal(s->how, CS_CALLED);
	assert_int_equal(s->depth, 0);
	assert_string_equal(s->in, "called_out");
	assert_loc(s->at, NF "Unary.cpp", 10);
	assert_true(s->declared);
	assert_loc(s->decl, NF "Unary.h", 7);
	assert_true(s->defined);
	assert_null(d.cpu.file);
	cs_discovery_free(&d);
}

static void test_passed(void **state)
{
	struct cs_discovery d;
	const struct cs_stub *s;
	(void)state;
	/* the helper's `stub(...)` is its parameter, not a stub */
	assert_int_equal(cs_discover(&m, "passed_out", &d), CS_STUB_BACKED);
	assert_int_equal(d.nstubs, 1);
	s = stub(&d, "passed_stub");
	assert_int_equal(s->how, CS_PASSED);
	assert_loc(s->at, NF "Unary.cpp", 25);
	assert_true(s->defined); /* DEFINE_DISPATCH(passed_stub) */
	cs_discovery_free(&d);
	/* the helper alone reaches nothing */
	assert_int_equal(cs_discover(&m, "apply_out", &d), CS_DEVICE_GENERIC);
	cs_discovery_free(&d);
}

static void test_helper(void **state)
{
	struct cs_discovery d;
	const struct cs_stub *s;
	(void)state;
	assert_int_equal(cs_discover(&m, "through_helper_", &d), CS_STUB_BACKED);
	s = stub(&d, "helper_stub");
	assert_int_equal(s->depth, 1);
	assert_string_equal(s->in, "helper_impl");
	assert_int_equal(s->how, CS_CALLED); /* helper_stub(kCPU, iter) */
	assert_loc(s->at, NF "Unary.cpp", 31);
	assert_false(s->defined); /* no DEFINE_DISPATCH in the fixture */
	cs_discovery_free(&d);
}

static void test_macro_line(void **state)
{
	struct cs_discovery d;
	(void)state;
	/* TORCH_IMPL_FUNC(macro_out) comes from MAKE_IMPL(macro_out, macro_stub) */
	assert_int_equal(cs_discover(&m, "macro_out", &d), CS_STUB_BACKED);
	assert_loc(d.def, NF "Unary.cpp", 43);
	assert_loc(stub(&d, "macro_stub")->at, NF "Unary.cpp", 43);
	cs_discovery_free(&d);
}

static void test_decoys(void **state)
{
	struct cs_discovery d;
	(void)state;
	assert_int_equal(cs_discover(&m, "decoy_out", &d), CS_DEVICE_GENERIC);
	assert_int_equal(d.nstubs, 0);
	assert_non_null(strstr(d.why, "calls only other operators"));
	cs_discovery_free(&d);
}

static void test_undeclared(void **state)
{
	struct cs_discovery d;
	const struct cs_stub *s;
	(void)state;
	assert_int_equal(cs_discover(&m, "undeclared_out", &d), CS_STUB_BACKED);
	s = stub(&d, "mystery_stub");
	assert_false(s->declared);
	assert_null(s->decl.file);
	assert_non_null(strstr(d.why, "undeclared"));
	cs_discovery_free(&d);
	/* a declaration over several lines, a stub not named *_stub */
	assert_int_equal(cs_discover(&m, "multi_line_out", &d), CS_STUB_BACKED);
	assert_int_equal(d.nstubs, 2);
	assert_loc(stub(&d, "multi_line_stub")->decl, NF "Unary.h", 17);
	assert_true(stub(&d, "padding_kernel")->declared);
	cs_discovery_free(&d);
	assert_false(cs_stub_declared(&m, "commented_stub", NULL));
	assert_true(cs_stub_declared(&m, "twin_stub", NULL));
}

/* the devices a stub is reached on: guard NULL (any, MPS too), or names */
static void assert_guard(const struct cs_discovery *d, const char *name,
                         const char *want)
{
	const struct cs_stub *s = stub(d, name);
	if (!want) {
		if (s->guard)
			fail_msg("%s: guard '%s', want none", name, s->guard);
		return;
	}
	if (!s->guard)
		fail_msg("%s: no guard, want '%s'", name, want);
	assert_string_equal(s->guard, want);
}

static void test_guards(void **state)
{
	struct cs_discovery d;
	(void)state;
	/* (CUDA || XPU) && another term: the term does not widen it */
	assert_int_equal(cs_discover(&m, "guarded_put_", &d), CS_STUB_BACKED);
	assert_int_equal(d.nstubs, 2); /* kept in the list */
	assert_guard(&d, "sorted_put_stub", "CUDA, XPU");
	assert_guard(&d, "plain_put_stub", NULL);
	assert_loc(stub(&d, "sorted_put_stub")->at, NF "Extra.cpp", 31);
	assert_non_null(strstr(d.why, "only on CUDA, XPU"));
	cs_discovery_free(&d);
	/* is_cuda(), device_type() == at::kCPU || is_xpu(); != and ! allow
	 * any device; a branch MPS may take; contradictory nested guards; a
	 * compound statement as the branch is not read */
	assert_int_equal(cs_discover(&m, "guard_forms", &d), CS_STUB_BACKED);
	assert_guard(&d, "form_a_stub", "CUDA");
	assert_guard(&d, "form_b_stub", "CPU, XPU");
	assert_guard(&d, "form_c_stub", NULL);
	assert_guard(&d, "form_d_stub", NULL);
	assert_guard(&d, "form_e_stub", NULL);
	assert_guard(&d, "form_f_stub", "");
	assert_guard(&d, "form_g_stub", NULL);
	cs_discovery_free(&d);
	/* through helpers: reached once without a guard, not guarded; under
	 * two guards, both devices */
	assert_int_equal(cs_discover(&m, "twice_reached", &d), CS_STUB_BACKED);
	assert_guard(&d, "helper_only_stub", NULL);
	assert_int_equal(stub(&d, "helper_only_stub")->depth, 1);
	cs_discovery_free(&d);
	assert_int_equal(cs_discover(&m, "two_guards", &d), CS_STUB_BACKED);
	assert_guard(&d, "union_stub", "CUDA, XPU");
	cs_discovery_free(&d);
	/* a predicate that returns false unless the tensor is on CPU (after
	 * other early `return false`s) guards its callers' branch */
	assert_int_equal(cs_discover(&m, "fast_or_slow", &d), CS_STUB_BACKED);
	assert_guard(&d, "fast_stub", "CPU");
	assert_guard(&d, "medium_stub", NULL);
	assert_guard(&d, "slow_stub", NULL);
	cs_discovery_free(&d);
}

static void test_overloads(void **state)
{
	struct cs_discovery d;
	(void)state;
	assert_int_equal(cs_discover(&m, "overloaded", &d), CS_STUB_BACKED);
	assert_int_equal(d.ndefs, 2);
	assert_loc(d.def, NF "Unary.cpp", 71);
	assert_int_equal(d.nstubs, 1);
	stub(&d, "overload_stub");
	cs_discovery_free(&d);
}

static void test_cycle_and_depth(void **state)
{
	struct cs_discovery d;
	(void)state;
	assert_int_equal(cs_discover(&m, "ping", &d), CS_STUB_BACKED);
	assert_int_equal(stub(&d, "cycle_stub")->depth, 1);
	cs_discovery_free(&d);
	assert_int_equal(cs_discover(&m, "pong", &d), CS_STUB_BACKED);
	assert_int_equal(stub(&d, "cycle_stub")->depth, 0);
	cs_discovery_free(&d);
	/* deep_stub is 8 calls away: not followed, and said so */
	assert_int_equal(cs_discover(&m, "too_deep_", &d), CS_DEVICE_GENERIC);
	assert_true(d.truncated);
	assert_non_null(strstr(d.why, "deeper than"));
	cs_discovery_free(&d);
}

static void test_shadowing(void **state)
{
	struct cs_discovery d;
	(void)state;
	assert_int_equal(cs_discover(&m, "shadowing_", &d), CS_STUB_BACKED);
	assert_int_equal(d.nstubs, 1);
	assert_int_equal(stub(&d, "twin_stub")->how, CS_PASSED);
	cs_discovery_free(&d);
}

static void test_kinds(void **state)
{
	struct cs_discovery d;
	(void)state;
	/* the cuda/ folder's stub-backed view_like is never read */
	assert_int_equal(cs_discover(&m, "view_like", &d), CS_DEVICE_GENERIC);
	assert_int_equal(d.ndefs, 1);
	cs_discovery_free(&d);
	assert_int_equal(cs_discover(&m, "count_things_cpu", &d), CS_CPU_ONLY);
	assert_loc(d.cpu, NF "Shapes.cpp", 16);
	assert_string_equal(d.cpu_why, "AT_DISPATCH_ALL_TYPES");
	assert_int_equal(d.cpu_depth, 0);
	cs_discovery_free(&d);
	assert_int_equal(cs_discover(&m, "loop_cpu_", &d), CS_CPU_ONLY);
	assert_string_equal(d.cpu_why, "cpu_kernel");
	assert_int_equal(d.cpu_depth, 1);
	cs_discovery_free(&d);
	assert_int_equal(cs_discover(&m, "no_such_kernel", &d), CS_UNKNOWN);
	assert_false(d.no_sources);
	assert_int_equal(d.ndefs, 0);
	assert_non_null(strstr(d.why, "no definition of no_such_kernel"));
	cs_discovery_free(&d);
	assert_int_equal(cs_discover(&m, "not a name", &d), CS_UNKNOWN);
	cs_discovery_free(&d);
	assert_string_equal(cs_kind_name(CS_STUB_BACKED), "stubs");
	assert_string_equal(cs_kind_name(CS_DEVICE_GENERIC), "device-generic");
	assert_string_equal(cs_kind_name(CS_CPU_ONLY), "cpu-only");
	assert_string_equal(cs_kind_name(CS_UNKNOWN), "unknown");
}

static void test_functor(void **state)
{
	struct cs_discovery d;
	const struct cs_stub *s;
	(void)state;
	/* the struct named in templates::fill_random_<TwoStub, ...>: both of
	 * its operator()s are reached; the template's own AT_DISPATCH is a
	 * CPU marker, but a stub is reached, so the kernel is stub-backed */
	assert_int_equal(cs_discover(&m, "random_thing_", &d), CS_STUB_BACKED);
	assert_int_equal(d.nstubs, 2);
	s = stub(&d, "functor_a_stub");
	assert_string_equal(s->in, "TwoStub::operator()");
	assert_int_equal(s->depth, 1);
	stub(&d, "functor_b_stub");
	assert_loc(d.cpu, NF "Templates.h", 12);
	cs_discovery_free(&d);
}

static void test_bad_structure(void **state)
{
	struct cs_discovery d;
	(void)state;
	/* #if/#else around two headers of one function: the first is kept */
	assert_int_equal(cs_discover(&m, "branchy_", &d), CS_STUB_BACKED);
	assert_int_equal(d.ndefs, 1);
	assert_loc(stub(&d, "branchy_stub")->at, NF "Shapes.cpp", 55);
	cs_discovery_free(&d);
	/* a function that never closes: read to the end of its file */
	assert_int_equal(cs_discover(&m, "unclosed_", &d), CS_STUB_BACKED);
	assert_loc(stub(&d, "called_stub")->at, NF "Zbroken.cpp", 5);
	cs_discovery_free(&d);
}

static void test_header_forms(void **state)
{
	struct cs_discovery d;
	(void)state;
	/* KERNEL_HEAD(headed_out) (...) {: a macro that begins a header */
	assert_int_equal(cs_discover(&m, "headed_out", &d), CS_STUB_BACKED);
	assert_loc(d.def, NF "Extra.cpp", 7);
	stub(&d, "called_stub");
	cs_discovery_free(&d);
	/* template <> void special_fill<float>(...) { */
	assert_int_equal(cs_discover(&m, "special_fill", &d), CS_STUB_BACKED);
	assert_int_equal(d.ndefs, 1);
	assert_loc(d.def, NF "Extra.cpp", 14);
	cs_discovery_free(&d);
	/* a function named *_stub is a call, not a stub */
	assert_int_equal(cs_discover(&m, "make_other", &d), CS_DEVICE_GENERIC);
	cs_discovery_free(&d);
}

/* ---- B. dtypes ---- */

#define DT(x) CS_BIT(CS_##x)
#define FL4 (DT(DOUBLE) | DT(FLOAT) | DT(HALF) | DT(BFLOAT16))
#define INT5 (DT(LONG) | DT(INT) | DT(SHORT) | DT(CHAR) | DT(BYTE))
#define CX2 (DT(COMPLEX_DOUBLE) | DT(COMPLEX_FLOAT))

static cs_dtset dtypes_of(const char *stub_name, struct cs_dtypes *d)
{
	int rc = cs_cpu_dtypes(&m, stub_name, d);
	assert_int_equal(rc, d->found ? 0 : 1);
	return d->types;
}

static void test_dtype_forms(void **state)
{
	struct cs_dtypes d;
	(void)state;
	assert_int_equal(dtypes_of("fl_stub", &d), FL4);
	assert_true(d.found);
	assert_string_equal(d.fn, "fl_kernel");
	assert_string_equal(d.macro, "REGISTER_DISPATCH");
	assert_loc(d.reg, NF "cpu/UnaryKernel.cpp", 97);
	assert_loc(d.def, NF "cpu/UnaryKernel.cpp", 8);
	assert_int_equal(d.nsites, 1);
	assert_int_equal(d.branch, 0);
	assert_string_equal(d.notes, "");
	cs_dtypes_free(&d);
	/* SWITCH with CASE_INTEGRAL_TYPES and CASE_FLOATING_TYPES_AND2 */
	assert_int_equal(dtypes_of("sw_stub", &d), FL4 | INT5);
	cs_dtypes_free(&d);
	/* V2: AT_EXPAND(AT_ALL_TYPES), kHalf, c10::kComplexHalf */
	assert_int_equal(dtypes_of("v2_stub", &d),
	                 DT(DOUBLE) | DT(FLOAT) | INT5 | DT(HALF) | DT(COMPLEX_HALF));
	assert_string_equal(d.macro, "ALSO_REGISTER_AVX512_DISPATCH");
	cs_dtypes_free(&d);
	/* AT_DISPATCH_CASE(kFloat, ...) / (at::ScalarType::Short, ...) */
	assert_int_equal(dtypes_of("case_stub", &d), DT(FLOAT) | DT(SHORT));
	cs_dtypes_free(&d);
	assert_int_equal(dtypes_of("arch_stub", &d), DT(HALF) | DT(BFLOAT16));
	assert_string_equal(d.macro, "REGISTER_ARCH_DISPATCH");
	cs_dtypes_free(&d);
}

static void test_dtype_branches(void **state)
{
	struct cs_dtypes d;
	(void)state;
	assert_int_equal(dtypes_of("br_stub", &d), INT5 | DT(BOOL));
	assert_int_equal(d.branch, DT(BOOL));
	assert_non_null(strstr(d.notes, "a dtype branch handles Bool"));
	cs_dtypes_free(&d);
	/* ComplexHalf branch, then a file-local wrapper of a dispatch macro */
	assert_int_equal(dtypes_of("wrap_stub", &d),
	                 FL4 | INT5 | CX2 | DT(COMPLEX_HALF));
	assert_int_equal(d.branch, DT(COMPLEX_HALF));
	cs_dtypes_free(&d);
	/* two nested dispatches: the union, noted */
	assert_int_equal(dtypes_of("nested_stub", &d), FL4 | INT5 | CX2 | DT(BOOL));
	assert_int_equal(d.nsites, 2);
	assert_non_null(strstr(d.notes, "nested dispatch"));
	cs_dtypes_free(&d);
}

static void test_dtype_registration_forms(void **state)
{
	struct cs_dtypes d;
	(void)state;
	/* IMPLEMENT_FLOATISH_REG(ceilish): the kernel and its registration
	 * both come from file-local macros */
	assert_int_equal(dtypes_of("ceilish_stub", &d), FL4);
	assert_string_equal(d.fn, "ceilish_kernel");
	assert_string_equal(d.macro, "IMPLEMENT_FLOATISH_REG");
	assert_loc(d.reg, NF "cpu/UnaryKernel.cpp", 108);
	assert_loc(d.def, NF "cpu/UnaryKernel.cpp", 108);
	cs_dtypes_free(&d);
	/* the registered function dispatches nothing itself: its helper */
	assert_int_equal(dtypes_of("helped_stub", &d), CX2);
	assert_non_null(strstr(d.notes, "helper helped_impl"));
	cs_dtypes_free(&d);
	/* nothing to read */
	assert_int_equal(dtypes_of("plain_stub", &d), 0);
	assert_false(d.found);
	assert_true(d.registered);
	assert_non_null(strstr(d.why, "no dtype dispatch could be read in plain_kernel"));
	cs_dtypes_free(&d);
	assert_int_equal(dtypes_of("none_stub", &d), 0);
	assert_true(d.null_kernel);
	assert_non_null(strstr(d.why, "nullptr"));
	cs_dtypes_free(&d);
	assert_int_equal(dtypes_of("missing_stub", &d), 0);
	assert_false(d.registered);
	assert_non_null(strstr(d.why, "no CPU registration of missing_stub"));
	cs_dtypes_free(&d);
}

static void test_dtype_names(void **state)
{
	char *s;
	cs_dtset set;
	int extra;
	(void)state;
	assert_int_equal(cs_dtype_parse("kHalf"), CS_HALF);
	assert_int_equal(cs_dtype_parse("at::kBFloat16"), CS_BFLOAT16);
	assert_int_equal(cs_dtype_parse("c10::kComplexHalf"), CS_COMPLEX_HALF);
	assert_int_equal(cs_dtype_parse("ScalarType::Bool"), CS_BOOL);
	assert_int_equal(cs_dtype_parse("at::ScalarType::Long"), CS_LONG);
	assert_int_equal(cs_dtype_parse("c10::ScalarType::Byte"), CS_BYTE);
	assert_int_equal(cs_dtype_parse("Float8_e4m3fn"), CS_FLOAT8_E4M3FN);
	assert_int_equal(cs_dtype_parse("uchar"), CS_BYTE);
	assert_int_equal(cs_dtype_parse("float2"), CS_COMPLEX_FLOAT);
	assert_int_equal(cs_dtype_parse("kNothing"), -1);
	assert_int_equal(cs_dtype_parse("SCALARTYPE1"), -1);
	assert_int_equal(cs_dtype_parse(NULL), -1);
	assert_string_equal(cs_dtype_name(CS_COMPLEX_DOUBLE), "ComplexDouble");
	assert_null(cs_dtype_name(CS_NDTYPES));
	assert_null(cs_metal_token(CS_DOUBLE));
	assert_null(cs_metal_token(CS_COMPLEX_DOUBLE));
	assert_null(cs_metal_token(CS_UINT32));
	assert_string_equal(cs_metal_token(CS_COMPLEX_HALF), "half2");
	s = cs_dtset_names(FL4 | DT(BOOL), ", ");
	assert_string_equal(s, "Double, Float, Half, BFloat16, Bool");
	free(s);
	s = cs_dtset_metal(FL4 | CX2 | DT(BYTE), " ");
	assert_string_equal(s, "float half bfloat uchar float2");
	free(s);
	s = cs_dtset_names(0, ", ");
	assert_string_equal(s, "");
	free(s);
	assert_int_equal(cs_dispatch_macro_types("AT_DISPATCH_FLOATING_TYPES_AND_HALF", &set, &extra), 0);
	assert_int_equal(set, DT(DOUBLE) | DT(FLOAT) | DT(HALF));
	assert_int_equal(extra, 0);
	assert_int_equal(cs_dispatch_macro_types("AT_DISPATCH_CASE_ALL_TYPES_AND_COMPLEX_AND3", &set, &extra), 0);
	assert_int_equal(set, DT(DOUBLE) | DT(FLOAT) | INT5 | CX2);
	assert_int_equal(extra, 3);
	assert_int_equal(cs_dispatch_macro_types("AT_DISPATCH_COMPLEX_TYPES_AND", &set, &extra), 0);
	assert_int_equal(extra, 1);
	assert_int_equal(cs_dispatch_macro_types("AT_INTEGRAL_TYPES_V2", &set, &extra), 0);
	assert_int_equal(set, INT5 | DT(UINT16) | DT(UINT32) | DT(UINT64));
	assert_int_equal(cs_dispatch_macro_types("AT_DISPATCH_SWITCH", &set, &extra), -1);
	assert_int_equal(cs_dispatch_macro_types("AT_DISPATCH_INDEX_TYPES", &set, &extra), -1);
	assert_int_equal(cs_dispatch_macro_types("AT_DISPATCH_FLOATING_TYPES_AND22", &set, &extra), -1);
	assert_int_equal(cs_dispatch_macro_types("AT_DISPATCH_FLOATING_TYPESX", &set, &extra), -1);
}

/* ---- B. output rules ---- */

static void test_rules(void **state)
{
	struct cs_outrule r;
	(void)state;
	/* from a macro line */
	assert_int_equal(cs_output_rule(&m, "soft", NULL, &r), CS_RULE_FLOAT);
	assert_string_equal(r.meta, "TORCH_META_FUNC(soft)");
	assert_string_equal(r.builder, "build_borrowing_unary_float_op");
	assert_loc(r.at, NF "Meta.cpp", 9);
	assert_non_null(strstr(r.why, "from MAKE_FLOAT_META"));
	cs_outrule_free(&r);
	/* bool output; complex rejected; bool input handled before the stub */
	assert_int_equal(cs_output_rule(&m, "sbit", NULL, &r), CS_RULE_BOOL);
	assert_int_equal(r.rejects, DT(COMPLEX_DOUBLE) | DT(COMPLEX_FLOAT) | DT(COMPLEX_HALF));
	assert_loc(r.reject_at, NF "Meta.cpp", 12);
	assert_int_equal(r.before_stub, DT(BOOL));
	assert_string_equal(r.impl, "sbit_out");
	assert_loc(r.before_at, NF "Meta.cpp", 50);
	cs_outrule_free(&r);
	assert_int_equal(cs_output_rule(&m, "negish", NULL, &r), CS_RULE_SAME);
	assert_int_equal(r.rejects, DT(BOOL));
	assert_int_equal(r.before_stub, 0);
	cs_outrule_free(&r);
	/* overloads: FUNC2 per overload, all of them when none is named */
	assert_int_equal(cs_output_rule(&m, "dv.Tensor", NULL, &r), CS_RULE_FLOAT);
	assert_string_equal(r.meta, "TORCH_META_FUNC2(dv, Tensor)");
	cs_outrule_free(&r);
	assert_int_equal(cs_output_rule(&m, "dv.Tensor_mode", NULL, &r), CS_RULE_MIXED);
	cs_outrule_free(&r);
	assert_int_equal(cs_output_rule(&m, "dv", NULL, &r), CS_RULE_MIXED);
	cs_outrule_free(&r);
	/* TORCH_META_FUNC(mixy_Tensor) with a TensorIteratorConfig */
	assert_int_equal(cs_output_rule(&m, "mixy.Tensor", NULL, &r), CS_RULE_FLOAT);
	assert_string_equal(r.builder, "build(TensorIteratorConfig())");
	cs_outrule_free(&r);
	assert_int_equal(cs_output_rule(&m, "mixy", NULL, &r), CS_RULE_FLOAT);
	cs_outrule_free(&r);
	/* integers copied by a macro-made implementation */
	assert_int_equal(cs_output_rule(&m, "ceilish", NULL, &r), CS_RULE_SAME);
	assert_int_equal(r.before_stub, INT5 | DT(UINT16) | DT(UINT32) | DT(UINT64));
	assert_loc(r.before_at, NF "Meta.cpp", 65);
	cs_outrule_free(&r);
	/* not structured: no rule, but the early return still counts */
	assert_int_equal(cs_output_rule(&m, "clean", NULL, &r), CS_RULE_UNKNOWN);
	assert_null(r.meta);
	assert_int_equal(r.before_stub,
	                 INT5 | DT(BOOL) | DT(UINT16) | DT(UINT32) | DT(UINT64));
	cs_outrule_free(&r);
	/* an explicit implementation name */
	assert_int_equal(cs_output_rule(&m, "soft", "sbit_out", &r), CS_RULE_FLOAT);
	assert_int_equal(r.before_stub, DT(BOOL));
	cs_outrule_free(&r);
	assert_int_equal(cs_output_rule(&m, "nothing", NULL, &r), CS_RULE_UNKNOWN);
	assert_non_null(strstr(r.why, "no structured meta function of nothing"));
	cs_outrule_free(&r);
	assert_string_equal(cs_rule_name(CS_RULE_MIXED), "mixed");
	assert_string_equal(cs_rule_name(CS_RULE_UNKNOWN), "unknown");
}

/* ---- trees of our own: errors and edge cases ---- */

static char *tmp_root(void)
{
	char *r = xstrdup("/tmp/test_cppscan.XXXXXX");
	assert_non_null(mkdtemp(r));
	return r;
}

static void test_no_sources(void **state)
{
	struct cs_model t;
	struct cs_discovery d;
	struct cs_dtypes dt;
	struct cs_outrule r;
	char *root = tmp_root();
	(void)state;
	/* no folder at all */
	assert_int_equal(cs_load(&t, root), 0);
	assert_false(t.have_native);
	assert_false(t.have_sources);
	cs_free(&t);
	/* a folder with only the yaml and a header (the 2.14.1 tree's shape) */
	tree_put(root, NF "native_functions.yaml", "- func: x\n", 10);
	tree_put(root, NF "Decl.h", "DECLARE_DISPATCH(fn, x_stub)\n", 29);
	assert_int_equal(cs_load(&t, root), 0);
	assert_true(t.have_native);
	assert_false(t.have_sources);
	assert_int_equal(cs_discover(&t, "abs_out", &d), CS_UNKNOWN);
	assert_true(d.no_sources);
	assert_non_null(strstr(d.why, "no C++ sources in this tree"));
	cs_discovery_free(&d);
	assert_int_equal(cs_cpu_dtypes(&t, "abs_stub", &dt), 1);
	assert_non_null(strstr(dt.why, "no C++ sources"));
	cs_dtypes_free(&dt);
	assert_int_equal(cs_output_rule(&t, "abs", NULL, &r), CS_RULE_UNKNOWN);
	assert_non_null(strstr(r.why, "no C++ sources"));
	cs_outrule_free(&r);
	cs_free(&t);
	tree_remove(root);
	free(root);
}

static void test_nul_byte(void **state)
{
	struct cs_model t;
	char *root = tmp_root();
	static const char bad[] = "namespace at::native {\0 }\n";
	(void)state;
	tree_put(root, NF "Bad.cpp", bad, sizeof bad - 1);
	assert_int_equal(cs_load(&t, root), -1);
	assert_null(t.priv); /* released */
	tree_remove(root);
	free(root);
}

/* As root, permission bits do not stop a read: the file becomes a symlink
 * to /proc/self/mem, which opens but fails to read (Linux), as
 * tests/hardening/t-unreadable.sh does; elsewhere the case is skipped. */
static void test_unreadable(void **state)
{
	struct cs_model t;
	char *root = tmp_root(), *p;
	int can = 1;
	(void)state;
	tree_put(root, NF "Fine.cpp", "namespace at::native {}\n", 24);
	tree_put(root, NF "Locked.cpp", "namespace at::native {}\n", 24);
	p = xasprintf("%s/" NF "Locked.cpp", root);
	if (geteuid() != 0) {
		assert_int_equal(chmod(p, 0), 0);
	} else if (access("/proc/self/mem", R_OK) == 0) {
		assert_int_equal(unlink(p), 0);
		assert_int_equal(symlink("/proc/self/mem", p), 0);
	} else {
		can = 0;
	}
	if (can) {
		memset(&t, 0xff, sizeof t);
		assert_int_equal(cs_load(&t, root), -1);
		assert_null(t.priv);
	}
	free(p);
	tree_remove(root);
	free(root);
}

static void test_long_line(void **state)
{
	struct cs_model t;
	struct cs_discovery d;
	char *root = tmp_root(), *big;
	size_t n = 10u << 20, i;
	static const char head[] =
	    "namespace at::native {\nTensor& huge_(Tensor& self) {\n  auto x = ";
	static const char tail[] =
	    ";\n  huge_stub(self.device().type(), self);\n  return self;\n}\n}\n";
	clock_t c0;
	(void)state;
	big = xmalloc(n + sizeof head + sizeof tail);
	memcpy(big, head, sizeof head - 1);
	for (i = 0; i < n; i++)
		big[sizeof head - 1 + i] = "a+(b)*c "[i % 8];
	memcpy(big + sizeof head - 1 + n, tail, sizeof tail - 1);
	tree_put(root, NF "Huge.cpp", big, sizeof head - 1 + n + sizeof tail - 1);
	free(big);
	c0 = clock();
	assert_int_equal(cs_load(&t, root), 0);
	assert_int_equal(cs_discover(&t, "huge_", &d), CS_STUB_BACKED);
	assert_loc(stub(&d, "huge_stub")->at, NF "Huge.cpp", 4);
	/* linear: well under the time a quadratic scan would take */
	assert_true((double)(clock() - c0) / CLOCKS_PER_SEC < 5.0);
	cs_discovery_free(&d);
	cs_free(&t);
	tree_remove(root);
	free(root);
}

/* A folder added to the model (cs_add_folder, as a reader of the CUDA
 * kernels does): its definitions are found by cs_find_defs, their bodies
 * with the macros of the folder expanded (cs_expand_body); the readers
 * of stubs and dtypes answer as before. */
static void test_added_folder(void **state)
{
	struct cs_model t;
	struct cs_discovery d;
	struct cs_dtypes dt;
	char *root = tmp_root(), *x;
	const long *v;
	size_t n;
	static const char shared[] =
	    "namespace at::native {\n"
	    "Tensor& frac_out(const Tensor& s, Tensor& r) {\n"
	    "  frac_stub(r.device().type(), r); return r; }\n"
	    "}\n";
	static const char cpu[] =
	    "namespace at::native {\n"
	    "static void frac_kernel(TensorIteratorBase& iter) {\n"
	    "  AT_DISPATCH_FLOATING_TYPES(iter.dtype(), \"frac\", [&] {});\n}\n"
	    "REGISTER_DISPATCH(frac_stub, &frac_kernel);\n}\n";
	static const char cuh[] =
	    "#define FRAC_OF(a) (a - ::trunc(a))\n"
	    "#define LAMBDA(T) [] GPU_LAMBDA(T a) -> T { return FRAC_OF(a); }\n";
	static const char cu[] =
	    "#include <ATen/native/cuda/Frac.cuh>\n"
	    "namespace at::native {\n"
	    "void frac_kernel_cuda(TensorIteratorBase& iter) {\n"
	    "  AT_DISPATCH_FLOATING_TYPES(iter.dtype(), \"frac_cuda\", [&]() {\n"
	    "    gpu_kernel(iter, LAMBDA(scalar_t));\n  });\n}\n"
	    "Tensor& frac_out(const Tensor& s, Tensor& r) { return r; }\n"
	    "REGISTER_DISPATCH(frac_stub, &frac_kernel_cuda);\n}\n";
	(void)state;
	tree_put(root, NF "Frac.cpp", shared, sizeof shared - 1);
	tree_put(root, NF "cpu/FracKernel.cpp", cpu, sizeof cpu - 1);
	tree_put(root, NF "cuda/Frac.cuh", cuh, sizeof cuh - 1);
	tree_put(root, NF "cuda/Frac.cu", cu, sizeof cu - 1);
	assert_int_equal(cs_load(&t, root), 0);
	assert_null(cs_find_defs(&t, "frac_kernel_cuda", 1, &n));
	assert_int_equal(cs_add_folder(&t, NF "cuda", NULL), 0);
	v = cs_find_defs(&t, "frac_kernel_cuda", 1, &n);
	assert_int_equal(n, 1);
	assert_loc(loc_of(&t, cs_def_at(&t, v[0])->file, cs_def_at(&t, v[0])->at),
	           NF "cuda/Frac.cu", 3);
	x = cs_expand_body(&t, cs_def_at(&t, v[0]));
	assert_non_null(strstr(x, "gpu_kernel(iter, [] GPU_LAMBDA(scalar_t a) -> "
	                          "scalar_t { return (a - ::trunc(a)); })"));
	free(x);
	/* not seen by the readers: one frac_out, one registration */
	assert_null(cs_find_defs(&t, "frac_kernel_cuda", 0, &n));
	cs_find_defs(&t, "frac_out", 0, &n);
	assert_int_equal(n, 1);
	assert_int_equal(cs_discover(&t, "frac_out", &d), CS_STUB_BACKED);
	assert_int_equal(d.ndefs, 1);
	cs_discovery_free(&d);
	assert_int_equal(cs_cpu_dtypes(&t, "frac_stub", &dt), 0);
	assert_string_equal(dt.fn, "frac_kernel");
	cs_dtypes_free(&dt);
	cs_free(&t);
	tree_remove(root);
	free(root);
}

/* issue #27: the dtypes of a row's own CPU kernel (no stub): read through
 * the helper it calls; a dtype branch about another tensor is a branch */
static void test_fn_dtypes(void **state)
{
	struct cs_model t;
	struct cs_dtypes dt;
	char *root = tmp_root();
	static const char src[] =
	    "namespace at::native {\n"
	    "void loss_template(const Tensor& out, const Tensor& in, const Tensor& target) {\n"
	    "  AT_DISPATCH_FLOATING_TYPES_AND2(ScalarType::BFloat16, ScalarType::Half,\n"
	    "      in.scalar_type(), \"loss\", [&] {\n"
	    "        if (target.scalar_type() == kByte) { frame<scalar_t, uint8_t>(out); }\n"
	    "        else { frame<scalar_t, int64_t>(out); }\n"
	    "      });\n"
	    "}\n"
	    "TORCH_IMPL_FUNC(loss_out_cpu)(const Tensor& in, const Tensor& target, const Tensor& out) {\n"
	    "  loss_template(out, in, target);\n"
	    "}\n"
	    "Tensor plain_cpu(const Tensor& in) { return in; }\n"
	    "}\n";
	(void)state;
	tree_put(root, NF "Loss.cpp", src, sizeof src - 1);
	assert_int_equal(cs_load(&t, root), 0);
	assert_int_equal(cs_fn_dtypes(&t, "loss_out_cpu", &dt), 0);
	assert_string_equal(dt.fn, "loss_out_cpu");
	assert_int_equal(dt.registered, 0);
	assert_loc(dt.def, NF "Loss.cpp", 9);
	assert_int_equal(dt.types, CS_BIT(CS_DOUBLE) | CS_BIT(CS_FLOAT) |
	                 CS_BIT(CS_HALF) | CS_BIT(CS_BFLOAT16) | CS_BIT(CS_BYTE));
	assert_int_equal(dt.branch, CS_BIT(CS_BYTE));
	assert_int_equal(dt.nsites, 1);
	assert_non_null(strstr(dt.notes, "read through the helper loss_template"));
	cs_dtypes_free(&dt);
	assert_int_equal(cs_fn_dtypes(&t, "plain_cpu", &dt), 1);
	assert_string_equal(dt.why, "no dtype dispatch could be read in plain_cpu "
	                            "(" NF "Loss.cpp:12)");
	cs_dtypes_free(&dt);
	assert_int_equal(cs_fn_dtypes(&t, "missing_cpu", &dt), 1);
	assert_string_equal(dt.why, "no definition of missing_cpu under aten/src/ATen/native");
	cs_dtypes_free(&dt);
	cs_free(&t);
	tree_remove(root);
	free(root);
}

static void test_recursive_macros(void **state)
{
	struct cs_model t;
	struct cs_discovery d;
	char *root = tmp_root();
	/* macros that expand to each other, a macro calling itself, and a
	 * definition a two-level macro produces */
	static const char src[] =
	    "namespace at::native {\n"
	    "#define SELF(x) SELF(x) x##_stub(kCPU, x)\n"
	    "#define PING(x) PONG(x)\n"
	    "#define PONG(x) PING(x)\n"
	    "#define INNER(name) Tensor& name(Tensor& s) { SELF(s); PING(s); return s; }\n"
	    "#define OUTER(name) INNER(name)\n"
	    "OUTER(loopy_)\n"
	    "}\n";
	(void)state;
	tree_put(root, NF "Loops.cpp", src, sizeof src - 1);
	assert_int_equal(cs_load(&t, root), 0);
	assert_int_equal(cs_discover(&t, "loopy_", &d), CS_STUB_BACKED);
	assert_loc(d.def, NF "Loops.cpp", 7);
	stub(&d, "s_stub");
	cs_discovery_free(&d);
	cs_free(&t);
	tree_remove(root);
	free(root);
}

/* issue #21, on the tree shaped like main (tests/fixtures/migrate-main):
 * the iterator of a shared kernel that is not structured, a stub's
 * function type, and whether the CPU kernel computes half in float; then
 * the forms on a tree of its own */
static void test_main_shapes(void **state)
{
	struct cs_model mm;
	struct cs_iterrule ir;
	struct cs_signature sg;
	struct cs_opmath om;
	(void)state;
	assert_int_equal(cs_load(&mm, "tests/fixtures/migrate-main/tree"), 0);
	/* logit_out -> unary_op_impl_float_out -> TensorIterator::unary_float_op;
	 * the stub gets the Scalar passed after it */
	assert_int_equal(cs_iter_rule(&mm, "logit_out", "logit_stub", &ir), CS_RULE_FLOAT);
	assert_string_equal(ir.builder, "TensorIterator::unary_float_op");
	assert_string_equal(ir.in, "unary_op_impl_float_out");
	assert_string_equal(ir.stub_args, "Scalar(eps ? eps.value() : -1.0)");
	assert_string_equal(ir.stub_at.file, NF "UnaryOps.cpp");
	cs_iterrule_free(&ir);
	/* a structured kernel builds no iterator of its own */
	assert_int_equal(cs_iter_rule(&mm, "tanh_backward_out", NULL, &ir), CS_RULE_UNKNOWN);
	cs_iterrule_free(&ir);
	/* the alias of the stub's type, resolved; the parameter's name */
	assert_int_equal(cs_stub_signature(&mm, "logit_stub", &sg), 0);
	assert_true(sg.iterator);
	assert_string_equal(sg.type, "void (*)(TensorIteratorBase&, const Scalar& a)");
	assert_int_equal(sg.nparams, 1);
	assert_string_equal(sg.params[0].type, "const Scalar&");
	assert_string_equal(sg.params[0].name, "a");
	assert_int_equal(sg.params[0].kind, CS_PARAM_SCALAR);
	cs_signature_free(&sg);
	assert_int_equal(cs_stub_signature(&mm, "heaviside_stub", &sg), 0);
	assert_int_equal(sg.nparams, 0);
	cs_signature_free(&sg);
	assert_int_equal(cs_stub_signature(&mm, "nothing_stub", &sg), -1);
	assert_non_null(sg.why);
	cs_signature_free(&sg);
	/* tanh_backward's reduced-float branch converts; heaviside and logit
	 * compute in the type itself */
	assert_int_equal(cs_cpu_opmath(&mm, "tanh_backward_stub", &om), 1);
	assert_string_equal(om.marker, "float(...)");
	assert_int_equal(om.nsites, 1);
	cs_opmath_free(&om);
	assert_int_equal(cs_cpu_opmath(&mm, "heaviside_stub", &om), 0);
	assert_true(om.found);
	cs_opmath_free(&om);
	assert_int_equal(cs_cpu_opmath(&mm, "logit_stub", &om), 0);
	cs_opmath_free(&om);
	assert_int_equal(cs_cpu_opmath(&mm, "nothing_stub", &om), 0);
	assert_false(om.found);
	cs_opmath_free(&om);
	cs_free(&mm);
}

static void test_iter_forms(void **state)
{
	static const char h[] =
	    "typedef void (*int_fn)(TensorIteratorBase&, int64_t decimals);\n"
	    "DECLARE_DISPATCH(int_fn, round_decimals_stub);\n"
	    "DECLARE_DISPATCH(void (*)(TensorIteratorBase&, double, std::optional<Generator>), bern_stub);\n"
	    "DECLARE_DISPATCH(void(*)(const TensorBase&, double), norm_stub);\n"
	    "DECLARE_DISPATCH(void(*)(TensorIteratorBase&), cmp_stub);\n"
	    "DECLARE_DISPATCH(void(*)(TensorIteratorBase&), not_stub);\n"
	    "DECLARE_DISPATCH(void(*)(TensorIteratorBase&), h_stub);\n";
	static const char c[] =
	    "#include \"Ops.h\"\n"
	    "namespace at::native {\n"
	    "DEFINE_DISPATCH(round_decimals_stub);\n"
	    "Tensor& cmp_out(const Tensor& a, const Tensor& b, Tensor& r) {\n"
	    "  auto iter = TensorIterator::comparison_op(r, a, b);\n"
	    "  cmp_stub(iter.device_type(), iter);\n"
	    "  return r;\n"
	    "}\n"
	    "Tensor& not_out(const Tensor& a, Tensor& r) {\n"
	    "  auto iter = TensorIteratorConfig()\n"
	    "      .check_all_same_dtype(false)\n"
	    "      .add_output(r)\n"
	    "      .add_const_input(a)\n"
	    "      .build();\n"
	    "  not_stub(iter.device_type(), iter);\n"
	    "  return r;\n"
	    "}\n"
	    "Tensor& h_out(const Tensor& a, Tensor& r) {\n"
	    "  auto iter = TensorIteratorConfig().add_output(r).add_const_input(a)\n"
	    "      .promote_integer_inputs_to_float(true).build();\n"
	    "  h_stub(iter.device_type(), iter);\n"
	    "  return r;\n"
	    "}\n"
	    "Tensor& round_out(const Tensor& a, int64_t decimals, Tensor& r) {\n"
	    "  auto iter = TensorIterator::unary_op(r, a);\n"
	    "  round_decimals_stub(iter.device_type(), iter, decimals);\n"
	    "  return r;\n"
	    "}\n"
	    "}\n";
	char *d = xstrdup("/tmp/test_cppscan_iter.XXXXXX");
	struct cs_model mm;
	struct cs_iterrule ir;
	struct cs_signature sg;
	(void)state;
	assert_non_null(mkdtemp(d));
	tree_put(d, NF "Ops.h", h, strlen(h));
	tree_put(d, NF "Ops.cpp", c, strlen(c));
	assert_int_equal(cs_load(&mm, d), 0);
	assert_int_equal(cs_iter_rule(&mm, "cmp_out", NULL, &ir), CS_RULE_BOOL);
	cs_iterrule_free(&ir);
	/* the out tensor decides: mixed */
	assert_int_equal(cs_iter_rule(&mm, "not_out", NULL, &ir), CS_RULE_MIXED);
	assert_string_equal(ir.builder, "TensorIteratorConfig()...build()");
	cs_iterrule_free(&ir);
	assert_int_equal(cs_iter_rule(&mm, "h_out", NULL, &ir), CS_RULE_FLOAT);
	cs_iterrule_free(&ir);
	assert_int_equal(cs_iter_rule(&mm, "round_out", "round_decimals_stub", &ir),
	                 CS_RULE_SAME);
	assert_string_equal(ir.stub_args, "decimals");
	cs_iterrule_free(&ir);
	/* typedef'd; a Generator; no iterator */
	assert_int_equal(cs_stub_signature(&mm, "round_decimals_stub", &sg), 0);
	assert_int_equal(sg.params[0].kind, CS_PARAM_INT);
	assert_string_equal(sg.params[0].name, "decimals");
	cs_signature_free(&sg);
	assert_int_equal(cs_stub_signature(&mm, "bern_stub", &sg), 0);
	assert_int_equal(sg.nparams, 2);
	assert_int_equal(sg.params[0].kind, CS_PARAM_DOUBLE);
	assert_int_equal(sg.params[1].kind, CS_PARAM_OTHER);
	cs_signature_free(&sg);
	assert_int_equal(cs_stub_signature(&mm, "norm_stub", &sg), 0);
	assert_false(sg.iterator);
	cs_signature_free(&sg);
	cs_free(&mm);
	tree_remove(d);
	free(d);
}

int main(void)
{
	const struct CMUnitTest with_fixture[] = {
	    cmocka_unit_test(test_load),
	    cmocka_unit_test(test_added_folder),
	    cmocka_unit_test(test_called),
	    cmocka_unit_test(test_passed),
	    cmocka_unit_test(test_helper),
	    cmocka_unit_test(test_macro_line),
	    cmocka_unit_test(test_decoys),
	    cmocka_unit_test(test_undeclared),
	    cmocka_unit_test(test_overloads),
	    cmocka_unit_test(test_guards),
	    cmocka_unit_test(test_cycle_and_depth),
	    cmocka_unit_test(test_shadowing),
	    cmocka_unit_test(test_kinds),
	    cmocka_unit_test(test_functor),
	    cmocka_unit_test(test_bad_structure),
	    cmocka_unit_test(test_header_forms),
	    cmocka_unit_test(test_dtype_forms),
	    cmocka_unit_test(test_dtype_branches),
	    cmocka_unit_test(test_dtype_registration_forms),
	    cmocka_unit_test(test_dtype_names),
	    cmocka_unit_test(test_rules),
	};
	const struct CMUnitTest own_trees[] = {
	    cmocka_unit_test(test_main_shapes),
	    cmocka_unit_test(test_iter_forms),
	    cmocka_unit_test(test_no_sources),
	    cmocka_unit_test(test_nul_byte),
	    cmocka_unit_test(test_unreadable),
	    cmocka_unit_test(test_long_line),
	    cmocka_unit_test(test_recursive_macros),
	    cmocka_unit_test(test_fn_dtypes),
	};
	int rc;
	diag_init("test_cppscan");
	rc = cmocka_run_group_tests(with_fixture, setup, teardown);
	rc += cmocka_run_group_tests(own_trees, NULL, NULL);
	return rc;
}
