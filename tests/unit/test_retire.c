/* test_retire.c — cmocka tests of tools/lib/plan/retire.c: what retiring an
 * operator's old MPS path deletes.  A definition with its body and the
 * comment that belongs to it, a macro line, a helper only it used (and one
 * still used elsewhere, one a dispatch row names, one another macro line
 * calls through a pasted name), an include left unused (and one still
 * needed), xfail entries as dict entries across lines, set items inline
 * and the last item of an inline set.  Every test builds its own small
 * tree (our own text, shaped like PyTorch's files). */
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
#include "plan/retire.h"
#include "tree.h"

#define OPS_MM "aten/src/ATen/native/mps/operations/Ops.mm"
#define OTHER_MM "aten/src/ATen/native/mps/operations/Other.mm"
#define COMMON "torch/testing/_internal/common_mps.py"

static char *root;
static struct hs_model m;

static void put(const char *rel, const char *s)
{
	tree_put(root, rel, s, strlen(s));
}

static const char ops_mm[] =
    "#include <ATen/ops/frac_native.h>\n"
    "#include <ATen/ops/neg_native.h>\n"
    "#include <ATen/ops/sqrt_native.h>\n"
    "namespace at::native {\n"
    "namespace mps {\n"
    "static void graph_op(const Tensor& t) {\n"
    "  MPSGraph* g = nil;\n"
    "}\n"
    "\n"
    "// only frac uses it\n"
    "static void frac_helper(const Tensor& t) {\n"
    "  graph_op(t);\n"
    "}\n"
    "\n"
    "static void binaryOpTensor(const Tensor& t) {\n"
    "  graph_op(t);\n"
    "}\n"
    "static void binaryOpScalar(const Tensor& t) {\n"
    "  binaryOpTensor(t);\n"
    "}\n"
    "} // namespace mps\n"
    "\n"
    "#define MAKE_OP(func_out, kind) \\\n"
    "  TORCH_IMPL_FUNC(func_out)(const Tensor& self) { mps::binaryOp##kind(self); }\n"
    "\n"
    "MAKE_OP(neg_out_mps, Scalar)\n"
    "MAKE_OP(sqrt_out_mps, Scalar)\n"
    "\n"
    "// frac on MPS: through MPSGraph\n"
    "TORCH_IMPL_FUNC(frac_out_mps)(const Tensor& self, const Tensor& out) {\n"
    "  mps::frac_helper(self);\n"
    "  logical_not_out_mps(self);\n"
    "}\n"
    "\n"
    "Tensor& logical_not_out_mps(const Tensor& self) {\n"
    "  mps::graph_op(self);\n"
    "  return self;\n"
    "}\n"
    "\n"
    "static void where_kernel_mps(TensorIterator& iter) {\n"
    "  MPSGraph* g = nil;\n"
    "}\n"
    "\n"
    "REGISTER_DISPATCH(where_kernel, &where_kernel_mps);\n"
    "} // namespace at::native\n";

static const char common_py[] =
    "XFAILLIST = {\n"
    "    \"sqrt\": None,\n"
    "    # frac has no MPS kernel\n"
    "    \"frac\": [\n"
    "        torch.int8,\n"
    "    ],  # trailing comment\n"
    "\n"
    "    \"neg\": None,\n"
    "}\n"
    "SKIPLIST = {\"frac\", \"neg\"}\n"
    "SKIP_TAIL = {\"neg\", \"frac\"}\n";

static int setup(void **state)
{
	(void)state;
	root = xstrdup("/tmp/test_retire.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	put(OPS_MM, ops_mm);
	put(OTHER_MM, "namespace at::native {\nvoid user() { frac_out(); }\n}\n");
	put(COMMON, common_py);
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

static int named(const char *name, void *arg)
{
	(void)arg;
	return strcmp(name, "logical_not_out_mps") == 0;
}

static const struct rt_item *item(const struct rt_plan *p, enum rt_what w,
                                  const char *name)
{
	size_t i;
	for (i = 0; i < p->n; i++)
		if (p->items[i].what == w && strcmp(p->items[i].name, name) == 0)
			return &p->items[i];
	return NULL;
}

static void test_frac(void **state)
{
	static const char *const dead[] = {"frac_out_mps", "frac_mps"};
	static const char *const names[] = {"frac_out", "frac_out_mps"};
	struct rt_request rq = {"frac", dead, 2, names, 2, named, NULL, NULL, NULL, NULL};
	struct rt_plan p;
	const struct rt_item *it;
	char *t;
	size_t len;
	(void)state;
	rt_plan_op(&p, &m, &rq);
	/* the definition, with the comment right above it */
	it = item(&p, RT_DEF, "frac_out_mps");
	assert_non_null(it);
	assert_false(it->kept);
	assert_int_equal(it->line, 30);
	assert_int_equal(it->last, 33);
	/* its helper, used by nothing else; a helper still used stays; a
	 * function a row names is no helper */
	it = item(&p, RT_HELPER, "frac_helper");
	assert_non_null(it);
	assert_false(it->kept);
	it = item(&p, RT_HELPER, "graph_op");
	assert_non_null(it);
	assert_true(it->kept);
	assert_non_null(strstr(it->detail, "still called by"));
	assert_null(item(&p, RT_HELPER, "logical_not_out_mps"));
	assert_non_null(item(&p, RT_INCLUDE, "frac"));

	t = rt_apply(&p, &m, file_named(OPS_MM), &len);
	assert_non_null(t);
	assert_null(strstr(t, "frac_native.h"));
	assert_null(strstr(t, "frac_helper"));
	assert_null(strstr(t, "only frac uses it"));
	assert_null(strstr(t, "frac on MPS"));
	assert_non_null(strstr(t, "static void graph_op(const Tensor& t) {\n  MPSGraph* g = nil;\n}\n"
	                          "\nstatic void binaryOpTensor"));
	assert_non_null(strstr(t, "MAKE_OP(sqrt_out_mps, Scalar)\n\nTensor& logical_not_out_mps"));
	free(t);

	/* test lists: a dict entry across lines with its comment (the blank
	 * line that ends its paragraph stays), an inline set item, the last
	 * item of an inline set */
	t = rt_apply(&p, &m, file_named(COMMON), &len);
	assert_non_null(t);
	assert_string_equal(t,
	    "XFAILLIST = {\n"
	    "    \"sqrt\": None,\n"
	    "\n"
	    "    \"neg\": None,\n"
	    "}\n"
	    "SKIPLIST = {\"neg\"}\n"
	    "SKIP_TAIL = {\"neg\"}\n");
	free(t);
	assert_null(rt_apply(&p, &m, file_named(OTHER_MM), &len));
	rt_plan_free(&p);
}

static int is_op_frac(const char *name, int prefix, void *arg)
{
	(void)arg;
	if (prefix)
		return strncmp("frac", name, strlen(name)) == 0 ||
		       strncmp("fraction", name, strlen(name)) == 0;
	return strcmp(name, "frac") == 0 || strcmp(name, "fraction") == 0;
}

/* issue #21: an annotated list across lines, an entry named OpInfo name +
 * variant (deleted with is_op), one naming another operator (kept) */
static void test_variants(void **state)
{
	static const char py[] =
	    "def f():\n"
	    "    UNIMPLEMENTED_XFAILLIST: dict[str, list | None] = {\n"
	    "        \"fracno_mode\": None,\n"
	    "        \"fraction\": None,\n"
	    "        \"frac\": [\n"
	    "            torch.int8,\n"
	    "        ],\n"
	    "    }\n";
	char *d = xstrdup("/tmp/test_retire_v.XXXXXX");
	struct hs_model e;
	struct rt_request rq;
	struct rt_plan p;
	char *t;
	size_t len, i, f = 0;
	(void)state;
	assert_non_null(mkdtemp(d));
	tree_put(d, COMMON, py, strlen(py));
	assert_int_equal(hs_load(&e, d), 0);
	memset(&rq, 0, sizeof rq);
	rq.op = "frac";
	rq.is_op = is_op_frac;
	rt_plan_op(&p, &e, &rq);
	for (i = 0; i < e.nfiles; i++)
		if (strcmp(e.files[i].rel, COMMON) == 0)
			f = i;
	t = rt_apply(&p, &e, f, &len);
	assert_string_equal(t,
	    "def f():\n"
	    "    UNIMPLEMENTED_XFAILLIST: dict[str, list | None] = {\n"
	    "        \"fraction\": None,\n"
	    "    }\n");
	free(t);
	rt_plan_free(&p);
	/* without is_op: the exact forms only, the variant stays */
	rq.is_op = NULL;
	rt_plan_op(&p, &e, &rq);
	t = rt_apply(&p, &e, f, &len);
	assert_non_null(strstr(t, "fracno_mode"));
	assert_null(strstr(t, "int8"));
	free(t);
	rt_plan_free(&p);
	hs_free(&e);
	tree_remove(d);
	free(d);
}

static int is_op_sign(const char *name, int prefix, void *arg)
{
	static const char *const ops[] = {"sign", "signbit", "sgn", NULL};
	size_t i;
	(void)arg;
	for (i = 0; ops[i]; i++)
		if (prefix ? strncmp(ops[i], name, strlen(name)) == 0
		           : strcmp(ops[i], name) == 0)
			return 1;
	return 0;
}

/* issue #25: mps-migrate sign deleted the signal.windows.* entries (read
 * as sign + a variant); they are OpInfo names of their own and stay, as
 * do signbit's, while sign's own entries in both lists go */
static void test_dotted_other_op(void **state)
{
	static const char py[] =
	    "def f():\n"
	    "    XFAILLIST_GRAD = {\n"
	    "        \"signal.windows.bartlett\": [torch.float16],\n"
	    "        \"signal.windows.hann\": [torch.float16],\n"
	    "        \"sign\": [torch.bfloat16],\n"
	    "        \"signbit\": None,\n"
	    "    }\n"
	    "    SKIPLIST = {\"signal.windows.hann\", \"sign\"}\n";
	char *d = xstrdup("/tmp/test_retire_s.XXXXXX");
	struct hs_model e;
	struct rt_request rq;
	struct rt_plan p;
	char *t;
	size_t len, i, f = 0, nx = 0;
	(void)state;
	assert_non_null(mkdtemp(d));
	tree_put(d, COMMON, py, strlen(py));
	assert_int_equal(hs_load(&e, d), 0);
	memset(&rq, 0, sizeof rq);
	rq.op = "sign";
	rq.is_op = is_op_sign;
	rt_plan_op(&p, &e, &rq);
	for (i = 0; i < p.n; i++)
		if (p.items[i].what == RT_XFAIL) {
			assert_string_equal(p.items[i].name, "sign");
			nx++;
		}
	assert_int_equal(nx, 2);
	for (i = 0; i < e.nfiles; i++)
		if (strcmp(e.files[i].rel, COMMON) == 0)
			f = i;
	t = rt_apply(&p, &e, f, &len);
	assert_string_equal(t,
	    "def f():\n"
	    "    XFAILLIST_GRAD = {\n"
	    "        \"signal.windows.bartlett\": [torch.float16],\n"
	    "        \"signal.windows.hann\": [torch.float16],\n"
	    "        \"signbit\": None,\n"
	    "    }\n"
	    "    SKIPLIST = {\"signal.windows.hann\"}\n");
	free(t);
	rt_plan_free(&p);
	hs_free(&e);
	tree_remove(d);
	free(d);
}

/* a macro line; the helper another macro line calls through a pasted name
 * stays, though no identifier names it */
static void test_macro_line(void **state)
{
	static const char *const dead[] = {"neg_out_mps"};
	static const char *const names[] = {"neg_out", "neg_out_mps"};
	struct rt_request rq = {"neg", dead, 1, names, 2, named, NULL, NULL, NULL, NULL};
	struct rt_plan p;
	const struct rt_item *it;
	char *t;
	size_t len;
	(void)state;
	rt_plan_op(&p, &m, &rq);
	it = item(&p, RT_DEF, "neg_out_mps");
	assert_non_null(it);
	assert_non_null(strstr(it->detail, "macro line MAKE_OP(neg_out_mps, Scalar)"));
	it = item(&p, RT_HELPER, "binaryOpScalar");
	assert_non_null(it);
	assert_true(it->kept);
	assert_non_null(strstr(it->detail, "sqrt_out_mps"));
	t = rt_apply(&p, &m, file_named(OPS_MM), &len);
	assert_non_null(strstr(t, "\n\nMAKE_OP(sqrt_out_mps, Scalar)\n"));
	assert_null(strstr(t, "neg_out_mps"));
	assert_null(strstr(t, "neg_native.h"));
	free(t);
	rt_plan_free(&p);
}

/* the stub a migration registers anew: its MPSGraph registration and the
 * function it registers go (issue #28: 2.6.0's where_kernel); without
 * replaced_stub both stay */
static void test_replaced_stub(void **state)
{
	static const char *const names[] = {"where_self_out"};
	struct rt_request rq = {"where", NULL, 0, names, 1, NULL, NULL, NULL, NULL, "where_kernel"};
	struct rt_plan p;
	const struct rt_item *it;
	char *t;
	size_t len;
	(void)state;
	rt_plan_op(&p, &m, &rq);
	it = item(&p, RT_REG, "where_kernel");
	assert_non_null(it);
	assert_false(it->kept);
	assert_string_equal(it->detail, "registers where_kernel_mps, whose body builds an MPSGraph");
	it = item(&p, RT_DEF, "where_kernel_mps");
	assert_non_null(it);
	assert_false(it->kept);
	t = rt_apply(&p, &m, file_named(OPS_MM), &len);
	assert_null(strstr(t, "where_kernel"));
	assert_non_null(strstr(t, "  return self;\n}\n\n} // namespace at::native\n"));
	free(t);
	rt_plan_free(&p);
	rq.replaced_stub = NULL;
	rt_plan_op(&p, &m, &rq);
	assert_null(item(&p, RT_REG, "where_kernel"));
	assert_null(item(&p, RT_DEF, "where_kernel_mps"));
	rt_plan_free(&p);
}

/* an include still needed: the file names a kernel of the operator */
static void test_include_kept(void **state)
{
	static const char *const names[] = {"sqrt_out", "sqrt_out_mps"};
	struct rt_request rq = {"sqrt", NULL, 0, names, 2, NULL, NULL, NULL, NULL, NULL};
	struct rt_plan p;
	(void)state;
	rt_plan_op(&p, &m, &rq);
	assert_null(item(&p, RT_INCLUDE, "sqrt"));
	assert_non_null(item(&p, RT_XFAIL, "sqrt"));
	rt_plan_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_frac), cmocka_unit_test(test_macro_line),
	    cmocka_unit_test(test_include_kept),
	    cmocka_unit_test(test_replaced_stub), cmocka_unit_test(test_variants),
		cmocka_unit_test(test_dotted_other_op),
	};
	diag_init("test_retire");
	return cmocka_run_group_tests(tests, setup, teardown);
}
