/* test_hostscan.c — cmocka tests of tools/lib/read/hostscan.c, the source model
 * mps-verify reads: kernel-name requests, stub registrations (also those
 * a wrapper macro expands to), definitions and whether their bodies build
 * an MPSGraph (directly, through a macro, through a callee), includes,
 * .metal registrations, functors (placeholder marker, integral
 * overloads), xfail entries (common_mps.py, else test_mps.py), the C++
 * literals that must not derail the scan (raw strings, digit separators)
 * and stray text before a namespace, DECLARE_DISPATCH stubs, the
 * identifier and string queries, line/column, errors (a NUL byte, an
 * unreadable file read last), and the string map.
 * Comments and `#if 0` blocks must never count.  Every test builds its
 * own small tree in a mkdtemp folder (our own text, shaped like PyTorch's
 * files). */
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
#include "read/hostscan.h"
#include "tree.h"

/* ---- helpers ---- */

/* Write root/rel (creating its folders) with text s. */
static void put(const char *root, const char *rel, const char *s)
{
	tree_put(root, rel, s, strlen(s));
}

/* Host code: a stub through the built-in REGISTER_UNARY_TI_DISPATCH, a
 * plain stub with its kernel, a stub registered with a qualified name, a
 * graph built through a macro and through a callee, and decoys in a
 * comment, an `#if 0` block and a `TensorIterator::unary_op(` call. */
static const char unary_mm[] =
    "// exec_unary_kernel(iter, \"commented\"); MPSGraph* g;\n"
    "// REGISTER_DISPATCH(commented_stub, &commented_kernel);\n"
    "#include <ATen/native/mps/OperationUtils.h>\n"
    "#include <ATen/ops/sqrt_native.h>\n"
    "#include <ATen/ops/cos_native.h>\n"
    "\n"
    "namespace at::native {\n"
    "#define MAKE_GRAPH_OP(func_out, method)                              \\\n"
    "  TORCH_IMPL_FUNC(func_out)(const Tensor& self, const Tensor& out) {  \\\n"
    "    mps::unary_op (self, out, #func_out, nil);                        \\\n"
    "  }\n"
    "MAKE_GRAPH_OP(exp_out_mps, exponent)\n"
    "#if 0\n"
    "static void dead_mps_kernel(TensorIteratorBase& iter) {\n"
    "  lib.exec_unary_kernel(iter, \"dead\");\n"
    "}\n"
    "REGISTER_DISPATCH(dead_stub, &dead_mps_kernel);\n"
    "#endif\n"
    "static void neg_mps_kernel(TensorIteratorBase& iter) {\n"
    "  lib.exec_unary_kernel(iter, \"neg\");\n"
    "}\n"
    "REGISTER_DISPATCH(neg_stub, &neg_mps_kernel);\n"
    "REGISTER_UNARY_TI_DISPATCH(sqrt);\n"
    "static void abs_mps_kernel(TensorIteratorBase& iter) {\n"
    "  TensorIterator::unary_op(iter); /* MPSGraph in a comment */\n"
    "  const char* name = \"abs_helper\";\n"
    "}\n"
    "REGISTER_DISPATCH(abs_stub, &at::native::abs_mps_kernel);\n"
    "} // namespace at::native\n";

static const char graphs_mm[] =
    "namespace at::native {\n"
    "#define RUN_CACHED(key) LookUpOrCreateCachedGraph<Foo>(key)\n"
    "Tensor& cos_out_mps(const Tensor& self, Tensor& out) {\n"
    "  RUN_CACHED(\"cos\");\n"
    "  return out;\n"
    "}\n"
    "static void tan_graph(const Tensor& t) {\n"
    "  MPSGraph* graph = nil;\n"
    "}\n"
    "Tensor& tan_out_mps(const Tensor& self, Tensor& out) {\n"
    "  tan_graph(self);\n"
    "  return out;\n"
    "}\n"
    "Tensor& log_out_mps(const Tensor& self, Tensor& out) {\n"
    "  mps::binaryOpTensor (self, out);\n"
    "  return out;\n"
    "}\n"
    "}\n";

static const char unary_metal[] =
    "// REGISTER_UNARY_OP(commented, float, float);\n"
    "REGISTER_UNARY_OP(neg, float, float);\n"
    "REGISTER_UNARY_OP(neg, half, half);\n"
    "#if 0\n"
    "REGISTER_UNARY_OP(gone, float, float);\n"
    "#endif\n"
    "template [[host_name(\"raw_kernel_float\")]] kernel void "
    "raw_kernel<float>(device float* x);\n";

static const char common_mps_py[] =
    "XFAILLIST = {\n"
    "    # \"commented\": None,\n"
    "    \"sqrt\": [torch.float16],\n"
    "    \"nn.functional.gelu\": None,\n"
    "    \"erf\": [\n"
    "        torch.int8, \"a, b\",  # a comment ] ,\n"
    "    ],\n"
    "    \"last\": (1, {2: 3})\n"
    "}\n"
    "SKIP_SET = {\"tan\", 'atan' }\n";

static const char unaryops_h[] =
    "// DECLARE_DISPATCH(unary_fn, commented_stub);\n"
    "DECLARE_DISPATCH(unary_fn, neg_stub);\n";

static char *root;
static struct hs_model m;

static int setup(void **state)
{
	(void)state;
	root = xstrdup("/tmp/test_hostscan.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	put(root, "aten/src/ATen/native/mps/operations/Unary.mm", unary_mm);
	put(root, "aten/src/ATen/native/mps/operations/Graphs.mm", graphs_mm);
	put(root, "aten/src/ATen/native/mps/kernels/Unary.metal", unary_metal);
	put(root, "aten/src/ATen/native/UnaryOps.h", unaryops_h);
	put(root, "torch/testing/_internal/common_mps.py", common_mps_py);
	return hs_load(&m, root);
}

static int teardown(void **state)
{
	(void)state;
	hs_free(&m);
	tree_remove(root);
	free(root);
	return 0;
}

static size_t file_named(const char *rel)
{
	size_t i;
	for (i = 0; i < m.nfiles; i++)
		if (strcmp(m.files[i].rel, rel) == 0)
			return i;
	fail_msg("no file %s", rel);
	return 0;
}

/* The one definition named name. */
static const struct hs_def *def(const char *name)
{
	const long *d = hs_defs_named(&m, name);
	assert_true(d[0] >= 0);
	assert_int_equal(d[1], -1);
	return &m.defs[d[0]];
}

static void assert_at_in(const struct hs_model *mm, struct hs_where w,
                         const char *rel, unsigned long line, unsigned long col)
{
	unsigned long l, c;
	assert_string_equal(mm->files[w.file].rel, rel);
	hs_line_col(mm, w, &l, &c);
	assert_int_equal(l, line);
	assert_int_equal(c, col);
}

static void assert_at(struct hs_where w, const char *rel, unsigned long line,
                      unsigned long col)
{
	assert_at_in(&m, w, rel, line, col);
}

#define UNARY_MM "aten/src/ATen/native/mps/operations/Unary.mm"
#define GRAPHS_MM "aten/src/ATen/native/mps/operations/Graphs.mm"

/* ---- tests ---- */

static void test_files(void **state)
{
	(void)state;
	assert_int_equal(m.nfiles, 4);
	/* host files sorted, then kernels, then the test lists */
	assert_string_equal(m.files[0].rel, GRAPHS_MM);
	assert_int_equal(m.files[0].kind, HS_HOST);
	assert_string_equal(m.files[1].rel, UNARY_MM);
	assert_string_equal(m.files[2].rel,
	                    "aten/src/ATen/native/mps/kernels/Unary.metal");
	assert_int_equal(m.files[2].kind, HS_KERNEL);
	assert_int_equal(m.files[3].kind, HS_PYTHON);
	assert_int_equal(m.have_common_mps, 1);
	assert_int_equal(m.files[1].len, strlen(unary_mm));
	assert_memory_equal(m.files[1].text, unary_mm, strlen(unary_mm));
}

static void test_requests(void **state)
{
	(void)state;
	/* "commented" (comment) and "dead" (#if 0) never count; the macro
	 * expansion's request comes first (it is scanned at the call) */
	assert_int_equal(m.nreqs, 2);
	assert_string_equal(m.reqs[0].kernel, "sqrt");
	assert_int_equal(m.reqs[0].binary, 0);
	assert_string_equal(m.reqs[0].macro, "REGISTER_UNARY_TI_DISPATCH");
	assert_at(m.reqs[0].at, UNARY_MM, 23, 1);
	assert_ptr_equal(&m.defs[m.reqs[0].in_def], def("sqrt_kernel_mps"));
	assert_string_equal(m.reqs[1].kernel, "neg");
	assert_null(m.reqs[1].macro);
	assert_at(m.reqs[1].at, UNARY_MM, 20, 7);
	assert_ptr_equal(&m.defs[m.reqs[1].in_def], def("neg_mps_kernel"));
}

static void test_registrations(void **state)
{
	(void)state;
	assert_int_equal(m.nregs, 3);
	assert_string_equal(m.regs[0].stub, "sqrt_stub");
	assert_string_equal(m.regs[0].fn, "sqrt_kernel_mps");
	assert_string_equal(m.regs[0].macro, "REGISTER_UNARY_TI_DISPATCH");
	assert_at(m.regs[0].at, UNARY_MM, 23, 1);
	assert_ptr_equal(&m.defs[m.regs[0].def], def("sqrt_kernel_mps"));
	assert_string_equal(m.regs[1].stub, "neg_stub");
	assert_string_equal(m.regs[1].fn, "neg_mps_kernel");
	assert_null(m.regs[1].macro);
	assert_at(m.regs[1].at, UNARY_MM, 22, 1);
	assert_ptr_equal(&m.defs[m.regs[1].def], def("neg_mps_kernel"));
	/* qualified and with '&': the unqualified name */
	assert_string_equal(m.regs[2].stub, "abs_stub");
	assert_string_equal(m.regs[2].fn, "abs_mps_kernel");
	assert_at(m.regs[2].at, UNARY_MM, 28, 1);
}

static void test_definitions(void **state)
{
	const struct hs_def *d;
	(void)state;
	/* a macro-generated definition builds a graph through its body */
	d = def("exp_out_mps");
	assert_true(d->graph);
	assert_string_equal(d->why, "unary_op()");
	assert_string_equal(d->macro, "MAKE_GRAPH_OP");
	assert_at(d->at, UNARY_MM, 12, 1);
	/* through a macro called in the body */
	d = def("cos_out_mps");
	assert_true(d->graph);
	assert_string_equal(d->why, "LookUpOrCreateCachedGraph");
	assert_null(d->macro);
	assert_at(d->at, GRAPHS_MM, 3, 9);
	/* through a callee that builds one */
	assert_true(def("tan_graph")->graph);
	assert_string_equal(def("tan_graph")->why, "MPSGraph");
	d = def("tan_out_mps");
	assert_true(d->graph);
	assert_string_equal(d->why, "tan_graph()");
	d = def("log_out_mps");
	assert_true(d->graph);
	assert_string_equal(d->why, "binaryOpTensor()");
	/* Metal bodies; TensorIterator::unary_op and a comment are not graphs */
	assert_false(def("neg_mps_kernel")->graph);
	assert_null(def("neg_mps_kernel")->why);
	assert_false(def("sqrt_kernel_mps")->graph);
	assert_string_equal(def("sqrt_kernel_mps")->macro,
	                    "REGISTER_UNARY_TI_DISPATCH");
	assert_false(def("abs_mps_kernel")->graph);
	/* #if 0 */
	assert_int_equal(hs_defs_named(&m, "dead_mps_kernel")[0], -1);
	assert_int_equal(hs_defs_named(&m, "")[0], -1);
	assert_int_equal(m.ndefs, 8);
}

static void test_includes(void **state)
{
	(void)state;
	assert_int_equal(m.nincs, 2);
	assert_string_equal(m.incs[0].op, "sqrt");
	assert_at(m.incs[0].at, UNARY_MM, 4, 1);
	assert_string_equal(m.incs[1].op, "cos");
	assert_at(m.incs[1].at, UNARY_MM, 5, 1);
}

static void test_idents(void **state)
{
	size_t u = file_named(UNARY_MM), g = file_named(GRAPHS_MM);
	(void)state;
	assert_int_equal(hs_file_has_ident(&m, u, "neg_mps_kernel"), 1);
	assert_int_equal(hs_file_has_ident(&m, u, "func_out"), 1); /* #define */
	assert_int_equal(hs_file_has_ident(&m, u, "sqrt_native"), 0); /* #include */
	assert_int_equal(hs_file_has_ident(&m, u, "dead_mps_kernel"), 0);
	assert_int_equal(hs_file_has_ident(&m, u, "commented_kernel"), 0);
	assert_int_equal(hs_file_has_ident(&m, u, "abs_helper"), 0); /* string */
	assert_int_equal(hs_file_has_ident(&m, u, "neg_mps"), 0);
	assert_int_equal(hs_file_has_ident(&m, u, ""), 0);
	assert_int_equal(hs_file_has_ident(&m, g, "neg_mps_kernel"), 0);
	assert_int_equal(hs_file_has_ident(&m, g, "tan_graph"), 1);
	/* not a host file */
	assert_int_equal(hs_file_has_ident(&m, file_named(
	                     "aten/src/ATen/native/mps/kernels/Unary.metal"),
	                 "neg"), 0);
	/* asked again: the same answers */
	assert_int_equal(hs_file_has_ident(&m, u, "neg_mps_kernel"), 1);
	assert_int_equal(hs_file_has_ident(&m, u, "dead_mps_kernel"), 0);
}

static void test_kernels(void **state)
{
	(void)state;
	assert_int_equal(m.nmetals, 2);
	assert_string_equal(m.metals[0].name, "neg");
	assert_string_equal(m.metals[0].kernel, "neg_dense_float_float");
	assert_string_equal(m.metals[0].call, "REGISTER_UNARY_OP(neg, float, float)");
	assert_null(m.metals[0].via);
	assert_at(m.metals[0].at, "aten/src/ATen/native/mps/kernels/Unary.metal",
	          2, 1);
	assert_string_equal(m.metals[1].kernel, "neg_dense_half_half");
	assert_int_equal(m.nraws, 1);
	assert_string_equal(m.raws[0].name, "raw_kernel_float");
	assert_int_equal(m.raws[0].prefix, 0);
	assert_int_equal(m.raws[0].host_name, 1);

	assert_int_equal(hs_kernel_registered(&m, "neg"), 1);
	assert_int_equal(hs_kernel_registered(&m, "raw_kernel"), 1);
	assert_int_equal(hs_kernel_registered(&m, "raw_kernel_float"), 1);
	assert_int_equal(hs_kernel_registered(&m, "raw_kern"), 0);
	assert_int_equal(hs_kernel_registered(&m, "gone"), 0);
	assert_int_equal(hs_kernel_registered(&m, "commented"), 0);

	assert_int_equal(hs_kernel_requested(&m, "neg"), 1);
	assert_int_equal(hs_kernel_requested(&m, "sqrt"), 1);
	assert_int_equal(hs_kernel_requested(&m, "abs_helper"), 1); /* literal */
	assert_int_equal(hs_kernel_requested(&m, "cos"), 1); /* literal */
	assert_int_equal(hs_kernel_requested(&m, "dead"), 0);
	assert_int_equal(hs_kernel_requested(&m, "commented"), 0);
	assert_int_equal(hs_kernel_requested(&m, "gone"), 0);
}

/* the text of xfail entry i, from its quote to its end */
static char *xfail_text(size_t i)
{
	const struct hs_xfail *x = &m.xfails[i];
	return xstrndup(m.files[x->at.file].text + x->at.off, x->end - x->at.off);
}

static void test_xfails(void **state)
{
	static const char *const want[] = {
	    "\"sqrt\": [torch.float16]", "\"nn.functional.gelu\": None",
	    "\"erf\": [\n        torch.int8, \"a, b\",  # a comment ] ,\n    ]",
	    "\"last\": (1, {2: 3})", "\"tan\"", "'atan'"};
	size_t i;
	(void)state;
	assert_int_equal(m.nxfails, 6);
	assert_string_equal(m.xfails[0].key, "sqrt");
	assert_string_equal(m.xfails[0].list, "XFAILLIST");
	assert_at(m.xfails[0].at, "torch/testing/_internal/common_mps.py", 3, 5);
	assert_string_equal(m.xfails[1].key, "nn.functional.gelu");
	assert_string_equal(m.xfails[5].key, "atan");
	assert_string_equal(m.xfails[5].list, "SKIP_SET");
	/* extents: a dict entry runs to the end of its value (across lines,
	 * past a comment and a string holding ", "), a set item is its string */
	for (i = 0; i < 6; i++) {
		char *t = xfail_text(i);
		assert_string_equal(t, want[i]);
		assert_int_equal(m.xfails[i].dict, i < 4);
		free(t);
	}
	assert_true(hs_xfail_names_op("sqrt", "sqrt"));
	assert_true(hs_xfail_names_op("nn.functional.gelu", "gelu"));
	assert_true(hs_xfail_names_op("special.i0e", "special_i0e"));
	assert_false(hs_xfail_names_op("special_i0e", "special.i0e"));
	assert_false(hs_xfail_names_op("sqrt", "sqr"));
	assert_false(hs_xfail_names_op("nn.functional.gelu", "nn_functional"));
	assert_false(hs_xfail_names_op("divno_rounding_mode", "div"));
}

/* the text [ext_start, ext_end) of the one definition named name */
static char *def_text(const char *name)
{
	const struct hs_def *d = def(name);
	return xstrndup(m.files[d->at.file].text + d->ext_start,
	                d->ext_end - d->ext_start);
}

static void test_extents(void **state)
{
	char *t;
	(void)state;
	/* a macro line: the call and nothing after it (no ';' here) */
	t = def_text("exp_out_mps");
	assert_string_equal(t, "MAKE_GRAPH_OP(exp_out_mps, exponent)");
	free(t);
	/* a macro call with its ';' */
	t = def_text("sqrt_kernel_mps");
	assert_string_equal(t, "REGISTER_UNARY_TI_DISPATCH(sqrt);");
	free(t);
	/* a function: from its header (after the #endif line) to its '}' */
	t = def_text("neg_mps_kernel");
	assert_string_equal(t, "static void neg_mps_kernel(TensorIteratorBase& "
	                       "iter) {\n  lib.exec_unary_kernel(iter, \"neg\");\n}");
	free(t);
	t = def_text("cos_out_mps");
	assert_string_equal(t, "Tensor& cos_out_mps(const Tensor& self, Tensor& "
	                       "out) {\n  RUN_CACHED(\"cos\");\n  return out;\n}");
	free(t);
}

static void test_decls(void **state)
{
	(void)state;
	assert_int_equal(m.decls_loaded, 0);
	assert_int_equal(hs_load_decls(&m), 0);
	assert_int_equal(m.decls_loaded, 1);
	assert_int_equal(m.ndecls, 1);
	assert_string_equal(m.decls[0].stub, "neg_stub");
	assert_at(m.decls[0].at, "aten/src/ATen/native/UnaryOps.h", 2, 1);
	/* once */
	assert_int_equal(hs_load_decls(&m), 0);
	assert_int_equal(m.ndecls, 1);
}

static void test_empty_root(void **state)
{
	struct hs_model e;
	char *d = xstrdup("/tmp/test_hostscan_empty.XXXXXX");
	(void)state;
	assert_non_null(mkdtemp(d));
	assert_int_equal(hs_load(&e, d), 0);
	assert_int_equal(e.nfiles, 0);
	assert_int_equal(e.ndefs, 0);
	assert_int_equal(e.have_common_mps, 0);
	assert_int_equal(hs_kernel_requested(&e, "neg"), 0);
	assert_int_equal(hs_kernel_registered(&e, "neg"), 0);
	assert_int_equal(hs_defs_named(&e, "x")[0], -1);
	hs_free(&e);
	rmdir(d);
	free(d);
}

/* Errors: hs_load returns -1 (after a diagnostic) and leaves the model
 * released: a host file holding a NUL byte, a test list that is a folder
 * (read after every other file). */
static void test_errors(void **state)
{
	struct hs_model e;
	char *d = xstrdup("/tmp/test_hostscan_err.XXXXXX"), *p;
	FILE *f;
	(void)state;
	assert_non_null(mkdtemp(d));
	put(d, "aten/src/ATen/native/mps/kernels/Unary.metal", unary_metal);
	p = xasprintf("%s/torch/testing/_internal/common_mps.py", d);
	put(d, "torch/testing/_internal/x", "");
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(hs_load(&e, d), -1);
	assert_null(e.files);
	assert_null(e.priv);
	assert_int_equal(rmdir(p), 0);
	free(p);
	p = xasprintf("%s/torch/testing/_internal/x", d);
	unlink(p);
	free(p);
	/* a NUL byte in a host file */
	p = xasprintf("%s/aten/src/ATen/native/mps/operations/Unary.mm", d);
	put(d, "aten/src/ATen/native/mps/operations/Unary.mm", "");
	f = fopen(p, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite("int x;\n\0\n", 1, 9, f), 9);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(hs_load(&e, d), -1);
	assert_int_equal(e.nfiles, 0);
	free(p);
	tree_remove(d);
	free(d);
}

/* A fresh tree in a mkdtemp folder with the given (path, text) pairs,
 * loaded into *e; the folder name is returned (caller: tree_remove, free). */
static char *load_tree(struct hs_model *e, const char *const *files)
{
	char *d = xstrdup("/tmp/test_hostscan_x.XXXXXX");
	size_t i;
	assert_non_null(mkdtemp(d));
	for (i = 0; files[i]; i += 2)
		put(d, files[i], files[i + 1]);
	assert_int_equal(hs_load(e, d), 0);
	return d;
}

/* A quote inside a raw string, a digit separator, and a character
 * literal with a prefix must not hide the definitions after them
 * (defect #5 of the tester's report); nor must a stray token at the top
 * of a file, or Objective-C text before the namespace. */
static void test_lexing(void **state)
{
	static const char lex_mm[] =
	    "namespace at::native {\n"
	    "static const char* q = R\"(\")\";\n"
	    "static const char* q2 = R\"x(\")\" still )x\";\n"
	    "static const char16_t c16 = u'\"';\n"
	    "static int thousand() { return 1'000; }\n"
	    "static long big() { return 0xFF'FF'FFL; }\n"
	    "static double tiny = 0.000'5;\n"
	    "static int sw(int c) { switch (c) { case'{': return 1; } return 0; }\n"
	    "static const wchar_t wq = L'\"';\n"
	    "TORCH_IMPL_FUNC(atan2_out_mps)(const Tensor& a, const Tensor& out) {\n"
	    "  mps::binaryOpTensor(a, out);\n"
	    "}\n"
	    "} // namespace at::native\n";
	static const char stray_mm[] =
	    "x\n"
	    "#include <ATen/ops/hypot_native.h>\n"
	    "@implementation Foo\n"
	    "- (id)bar { return self; }\n"
	    "@end\n"
	    "namespace at::native {\n"
	    "Tensor& hypot_out_mps(const Tensor& a, Tensor& out) {\n"
	    "  MPSGraph* g = nil;\n"
	    "  return out;\n"
	    "}\n"
	    "}\n"
	    "junk extern \"C\" {\n"
	    "void exp2_mps(int x) { mpsGraph = 0; }\n"
	    "}\n";
	static const char *const files[] = {
	    "aten/src/ATen/native/mps/operations/Lex.mm", lex_mm,
	    "aten/src/ATen/native/mps/operations/Stray.mm", stray_mm, NULL};
	struct hs_model e;
	char *d;
	const long *k;
	(void)state;
	d = load_tree(&e, files);
	k = hs_defs_named(&e, "atan2_out_mps");
	assert_true(k[0] >= 0);
	assert_true(e.defs[k[0]].graph);
	assert_true(hs_defs_named(&e, "thousand")[0] >= 0);
	assert_true(hs_defs_named(&e, "big")[0] >= 0);
	assert_true(hs_defs_named(&e, "sw")[0] >= 0);
	k = hs_defs_named(&e, "hypot_out_mps");
	assert_true(k[0] >= 0);
	assert_true(e.defs[k[0]].graph);
	k = hs_defs_named(&e, "exp2_mps");
	assert_true(k[0] >= 0);
	assert_true(e.defs[k[0]].graph);
	hs_free(&e);
	tree_remove(d);
	free(d);
}

/* Functors of the kernel files: mps-register's placeholder marker, and
 * whether every operator() is limited to non-integral types. */
static void test_functors(void **state)
{
	static const char metal[] =
	    "struct i0_functor {\n"
	    "  template <typename T, enable_if_t<is_scalar_floating_point_v<T>, "
	    "bool> = true>\n"
	    "  inline T operator()(const T x) {\n"
	    "    // " HS_PLACEHOLDER ": the math of i0 goes here\n"
	    "    return x;\n"
	    "  }\n"
	    "  template <typename T, ::metal::enable_if_t<::c10::metal::is_complex_v<T>, "
	    "bool> = true>\n"
	    "  inline T operator()(const T x) { return x; }\n"
	    "};\n"
	    "struct both_functor {\n"
	    "  template <typename T, enable_if_t<is_scalar_floating_point_v<T>, "
	    "bool> = true>\n"
	    "  inline T operator()(const T x) { return x; }\n"
	    "  template <typename T, enable_if_t<is_scalar_integral_v<T>, bool> = true>\n"
	    "  inline float operator()(const T x) { return float(x); }\n"
	    "};\n"
	    "struct any_functor {\n"
	    "  template <typename T>\n"
	    "  inline T operator() (const T a, const T b) { return a; }\n"
	    "};\n"
	    "struct not_functor {\n"
	    "  template <typename T, enable_if_t<!is_complex_v<T>, bool> = true>\n"
	    "  inline T operator()(const T x) { return x; }\n"
	    "};\n"
	    "struct plain_functor {\n"
	    "  inline float operator()(const float x) { return x; }\n"
	    "};\n"
	    "struct empty_functor {\n"
	    "  int unused;\n"
	    "};\n"
	    "#if 0\n"
	    "struct dead_functor { /* " HS_PLACEHOLDER " */ };\n"
	    "#endif\n"
	    "REGISTER_UNARY_OP(i0, long, float);\n";
	static const char *const files[] = {
	    "aten/src/ATen/native/mps/kernels/Functors.metal", metal, NULL};
	static const char *const names[] = {"i0",  "both",  "any",
	                                    "not", "plain", "empty"};
	static const int no_int[] = {1, 0, 0, 0, 0, 0};
	struct hs_model e;
	char *d;
	size_t i;
	(void)state;
	d = load_tree(&e, files);
	assert_int_equal(e.nfunctors, 6);
	for (i = 0; i < 6; i++) {
		char *n = xasprintf("%s_functor", names[i]);
		assert_string_equal(e.functors[i].name, n);
		assert_string_equal(e.functors[i].kernel, names[i]);
		assert_int_equal(e.functors[i].no_integral, no_int[i]);
		assert_int_equal(e.functors[i].placeholder, i == 0);
		free(n);
	}
	assert_string_equal(e.functors[0].limits,
	                    "is_scalar_floating_point_v, is_complex_v");
	assert_null(e.functors[1].limits);
	assert_at_in(&e, e.functors[0].at, "aten/src/ATen/native/mps/kernels/Functors.metal",
	          1, 8);
	assert_at_in(&e, e.functors[0].marker,
	          "aten/src/ATen/native/mps/kernels/Functors.metal", 4, 8);
	assert_int_equal(e.nmetals, 1);
	assert_string_equal(e.metals[0].in, "long");
	hs_free(&e);
	tree_remove(d);
	free(d);
}

/* Older releases keep the lists in test/test_mps.py: upper-case names
 * holding XFAIL, SKIP or BLOCKLIST; a local variable of a test, an
 * allow-list and a comment do not count; common_mps.py wins when both
 * exist. */
static void test_test_mps(void **state)
{
	static const char py[] =
	    "class TestConsistency(TestCase):\n"
	    "    ALLOWLIST_OP = {\n"
	    "        'abs': ['f32'],\n"
	    "    }\n"
	    "    BLOCKLIST = {\n"
	    "        # 'commented': None,\n"
	    "        'masked_fill': [torch.bool], 'where': [torch.bool],\n"
	    "    }\n"
	    "def mps_ops_modifier(ops):\n"
	    "    UNIMPLEMENTED_XFAILLIST = {\n"
	    "        'sinc': None,\n"
	    "    }\n"
	    "    UNIMPLEMENTED_XFAILLIST.update({\n"
	    "        'atan2': [torch.int64],\n"
	    "    })\n"
	    "    skip_list = ['local']\n"
	    "    SKIPLIST = {'nn.functional.conv3d'}\n";
	static const char *const files[] = {"test/test_mps.py", py, NULL};
	static const char *const both[] = {
	    "test/test_mps.py", py, "torch/testing/_internal/common_mps.py",
	    common_mps_py, NULL};
	static const char *const keys[] = {"masked_fill", "where", "sinc", "atan2",
	                                   "nn.functional.conv3d"};
	static const char *const lists[] = {"BLOCKLIST", "BLOCKLIST",
	                                    "UNIMPLEMENTED_XFAILLIST",
	                                    "UNIMPLEMENTED_XFAILLIST", "SKIPLIST"};
	struct hs_model e;
	char *d;
	size_t i;
	(void)state;
	d = load_tree(&e, files);
	assert_int_equal(e.have_common_mps, 0);
	assert_int_equal(e.have_test_mps, 1);
	assert_int_equal(e.nxfails, 5);
	for (i = 0; i < 5; i++) {
		assert_string_equal(e.xfails[i].key, keys[i]);
		assert_string_equal(e.xfails[i].list, lists[i]);
	}
	assert_at_in(&e, e.xfails[3].at, "test/test_mps.py", 14, 9);
	hs_free(&e);
	tree_remove(d);
	free(d);
	/* a tree with both: each is read, common_mps.py first */
	d = load_tree(&e, both);
	assert_int_equal(e.have_common_mps, 1);
	assert_int_equal(e.have_test_mps, 1);
	assert_int_equal(e.nxfails, 11);
	assert_string_equal(e.xfails[0].key, "sqrt");
	assert_string_equal(e.xfails[1].key, "nn.functional.gelu");
	for (i = 0; i < 5; i++) {
		assert_string_equal(e.xfails[6 + i].key, keys[i]);
		assert_string_equal(e.xfails[6 + i].list, lists[i]);
	}
	hs_free(&e);
	tree_remove(d);
	free(d);
}

static int is_op_test(const char *name, int prefix, void *arg)
{
	static const char *const ops[] = {"div", "scatter_reduce", "logit",
	                                  "special_i0e", "gelu", "log", "sign",
	                                  "linalg_norm", "fft_fft", "amax",
	                                  "sum", "mul", "multilabel_margin_loss",
	                                  "max", "max_unpool2d", "svd", "dropout",
	                                  "resize", NULL};
	size_t i;
	(void)arg;
	for (i = 0; ops[i]; i++)
		if (prefix ? strncmp(ops[i], name, strlen(name)) == 0
		           : strcmp(ops[i], name) == 0)
			return 1;
	return 0;
}

/* issue #21: the list forms of current main (annotated assignments, a
 * dict across lines, a set across lines), entries named OpInfo name +
 * variant, kernel names the host builds, the scalar and dtype of a
 * request */
static void test_main_forms(void **state)
{
	static const char py[] =
	    "def f(ops):\n"
	    "    UNIMPLEMENTED_XFAILLIST: dict[str, list | None] = {\n"
	    "        \"logit\": [\n"
	    "            torch.float16,\n"
	    "        ],\n"
	    "        \"divno_rounding_mode\": None,\n"
	    "    }\n"
	    "    ON_MPS_XFAILLIST: dict[str, list | None] = {\"exp\": None}\n"
	    "    if skip_me: table = [\"not_a_list\"]\n"
	    "    SKIPLIST = {\n"
	    "        \"tanh_backward\",\n"
	    "    }\n"
	    "    UNIMPLEMENTED_XFAILLIST.update(OTHER)\n";
	static const char mm[] =
	    "namespace at::native {\n"
	    "static void add_sub_alpha_kernel(TensorIteratorBase& iter, const Scalar& alpha,\n"
	    "                                 const std::string& op_name) {\n"
	    "  lib.exec_binary_kernel(iter, op_name + \"_alpha\", alpha);\n"
	    "}\n"
	    "static void add_mps_kernel(TensorIteratorBase& iter, const Scalar& alpha) {\n"
	    "  add_sub_alpha_kernel(iter, alpha, \"add\");\n"
	    "}\n"
	    "static void logit_kernel(TensorIteratorBase& iter, const Scalar& eps) {\n"
	    "  lib.exec_unary_kernel(iter, \"logit\", eps, ScalarType::Float);\n"
	    "  lib.exec_unary_kernel(iter, \"logit\", eps);\n"
	    "  lib.exec_unary_kernel(iter, \"pow\", eps, at::toOpMathType(iter.common_dtype()));\n"
	    "}\n"
	    "static void band_kernel(TensorIteratorBase& iter, const Scalar& lo) {\n"
	    "  BandParams<float> params{lo.to<float>()};\n"
	    "  lib.exec_binary_kernel_with_params(iter, \"band\", params,\n"
	    "      fmt::format(\"BandParams_{}\", scalarToMetalTypeString(iter.common_dtype())));\n"
	    "}\n"
	    "}\n";
	static const char metal[] =
	    "REGISTER_BINARY_ALPHA_OP(add_alpha, float, float, float);\n"
	    "REGISTER_BINARY_ALPHA_OP(sub_alpha, float, float, float);\n"
	    "REGISTER_UNARY_ALPHA_OP(logit, half, float, half);\n";
	const char *files[] = {"torch/testing/_internal/common_mps.py", py,
	                       "aten/src/ATen/native/mps/operations/K.mm", mm,
	                       "aten/src/ATen/native/mps/kernels/K.metal", metal,
	                       NULL};
	struct hs_model e;
	char *d = load_tree(&e, files), *o;
	size_t i, nreq = 0;
	(void)state;
	assert_int_equal(e.nxfails, 4);
	assert_string_equal(e.xfails[0].key, "logit");
	assert_string_equal(e.xfails[0].list, "UNIMPLEMENTED_XFAILLIST");
	assert_true(e.xfails[0].dict);
	assert_string_equal(e.xfails[1].key, "divno_rounding_mode");
	assert_string_equal(e.xfails[2].key, "exp");
	assert_string_equal(e.xfails[2].list, "ON_MPS_XFAILLIST");
	assert_string_equal(e.xfails[3].key, "tanh_backward");
	assert_string_equal(e.xfails[3].list, "SKIPLIST");
	assert_false(e.xfails[3].dict);
	/* variants: the longest start that is an operator */
	o = hs_xfail_op("divno_rounding_mode", is_op_test, NULL);
	assert_string_equal(o, "div");
	free(o);
	o = hs_xfail_op("scatter_reduceamax", is_op_test, NULL);
	assert_string_equal(o, "scatter_reduce");
	free(o);
	o = hs_xfail_op("nn.functional.gelu", is_op_test, NULL);
	assert_string_equal(o, "gelu");
	free(o);
	o = hs_xfail_op("logit", is_op_test, NULL);
	assert_string_equal(o, "logit"); /* itself, not its start "log" */
	free(o);
	assert_null(hs_xfail_op("xy", is_op_test, NULL));
	/* issue #25: a key of another dotted namespace is an OpInfo name of
	 * its own, not sign + "al_windows_hann" (mps-migrate sign deleted 22
	 * entries of signal.windows.* from 2.14.1's lists) */
	assert_null(hs_xfail_op("signal.windows.hann", is_op_test, NULL));
	assert_null(hs_xfail_op("signal.windows.bartlett", is_op_test, NULL));
	assert_null(hs_xfail_op("masked.amax", is_op_test, NULL));
	assert_null(hs_xfail_op("masked.sum", is_op_test, NULL));
	o = hs_xfail_op("sign", is_op_test, NULL);
	assert_string_equal(o, "sign");
	free(o);
	o = hs_xfail_op("signsome_variant", is_op_test, NULL);
	assert_string_equal(o, "sign");
	free(o);
	/* the four namespaces of aten operators, with variants */
	o = hs_xfail_op("special.i0e", is_op_test, NULL);
	assert_string_equal(o, "special_i0e");
	free(o);
	o = hs_xfail_op("linalg.normsubgradients_at_zero", is_op_test, NULL);
	assert_string_equal(o, "linalg_norm");
	free(o);
	o = hs_xfail_op("fft.fftfoo", is_op_test, NULL);
	assert_string_equal(o, "fft_fft");
	free(o);
	o = hs_xfail_op("nn.functional.gelutanh", is_op_test, NULL);
	assert_string_equal(o, "gelu");
	free(o);
	/* never the namespace alone: "fft." + a name that is no operator */
	assert_null(hs_xfail_op("fft.ihfft2", is_op_test, NULL));
	assert_null(hs_xfail_op("linalg.x", is_op_test, NULL));
	/* names that go on past an operator's: other OpInfo names (the
	 * 2.14.1 keys that read as max, svd, dropout, mul + a variant) */
	assert_null(hs_xfail_op("nn.functional.max_unpool1d", is_op_test, NULL));
	assert_null(hs_xfail_op("svd_lowrank", is_op_test, NULL));
	assert_null(hs_xfail_op("nn.functional.dropout2d", is_op_test, NULL));
	assert_null(hs_xfail_op("nn.functional.multilabel_soft_margin_loss",
	                        is_op_test, NULL));
	o = hs_xfail_op("nn.functional.max_unpool2dgrad", is_op_test, NULL);
	assert_string_equal(o, "max_unpool2d");
	free(o);
	o = hs_xfail_op("mulscalar", is_op_test, NULL);
	assert_string_equal(o, "mul");
	free(o);
	o = hs_xfail_op("resize_", is_op_test, NULL); /* the in-place form */
	assert_string_equal(o, "resize");
	free(o);
	/* built names: "add" + "_alpha"; no literal sub */
	assert_true(hs_kernel_built(&e, "add_alpha"));
	assert_false(hs_kernel_built(&e, "sub_alpha"));
	assert_false(hs_kernel_requested(&e, "add_alpha"));
	/* the scalar and its dtype */
	for (i = 0; i < e.nreqs; i++) {
		const struct hs_req *q = &e.reqs[i];
		if (strcmp(q->kernel, "logit") == 0 && nreq++ == 0) {
			assert_true(q->scalar);
			assert_string_equal(q->scalar_dtype, "float");
		} else if (strcmp(q->kernel, "logit") == 0) {
			assert_true(q->scalar);
			assert_null(q->scalar_dtype);
		} else if (strcmp(q->kernel, "pow") == 0) {
			assert_string_equal(q->scalar_dtype, "?");
		} else if (strcmp(q->kernel, "band") == 0) {
			/* a params struct (binary-params): the kernel asked for,
			 * its typedef's name not a dtype */
			assert_true(q->binary);
			assert_true(q->scalar);
			assert_string_equal(q->scalar_dtype, "?");
			nreq += 10;
		}
	}
	assert_int_equal(nreq, 12);
	for (i = 0; i < e.nmetals; i++)
		if (strcmp(e.metals[i].name, "logit") == 0) {
			assert_string_equal(e.metals[i].alpha, "float");
			assert_string_equal(e.metals[i].out, "half");
			assert_string_equal(e.metals[i].kernel, "logit_dense_half_half_float");
		}
	hs_free(&e);
	tree_remove(d);
	free(d);
}

static void test_map(void **state)
{
	struct hs_map mp;
	char key[32];
	int i;
	(void)state;
	memset(&mp, 0, sizeof mp);
	assert_int_equal(hs_map_get(&mp, "a"), -1);
	hs_map_put(&mp, "a", 1);
	hs_map_put(&mp, "a", 7); /* replaced */
	assert_int_equal(hs_map_get(&mp, "a"), 7);
	for (i = 0; i < 1000; i++) { /* grows */
		snprintf(key, sizeof key, "k%d", i);
		hs_map_put(&mp, key, i);
	}
	assert_int_equal(mp.n, 1001);
	assert_int_equal(hs_map_get(&mp, "k999"), 999);
	assert_int_equal(hs_map_get(&mp, "k0"), 0);
	assert_int_equal(hs_map_get(&mp, "a"), 7);
	assert_int_equal(hs_map_get(&mp, "k1000"), -1);
	hs_map_free(&mp);
	assert_int_equal(mp.n, 0);
	assert_int_equal(hs_map_get(&mp, "a"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_files),       cmocka_unit_test(test_requests),
	    cmocka_unit_test(test_registrations),
	    cmocka_unit_test(test_definitions), cmocka_unit_test(test_includes),
	    cmocka_unit_test(test_idents),      cmocka_unit_test(test_kernels),
	    cmocka_unit_test(test_xfails),      cmocka_unit_test(test_extents),
	    cmocka_unit_test(test_decls),
	    cmocka_unit_test(test_empty_root),  cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_map),         cmocka_unit_test(test_lexing),
	    cmocka_unit_test(test_functors),    cmocka_unit_test(test_test_mps),
	    cmocka_unit_test(test_main_forms),
	};
	diag_init("test_hostscan");
	return cmocka_run_group_tests(tests, setup, teardown);
}
