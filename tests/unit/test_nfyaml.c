/* test_nfyaml.c — cmocka tests of tools/lib/read/nfyaml.c's schema
 * scalars (nf_schema_scalars, issue #21): the scalar arguments a kernel
 * takes besides its tensors, as torchgen's schema grammar writes them. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "read/nfyaml.h"

static void test_scalars(void **state)
{
	struct nf_scalar s[4];
	(void)state;
	/* logit: an optional float, positional */
	assert_int_equal(nf_schema_scalars("logit.out(Tensor self, float? eps=None, "
	                                   "*, Tensor(a!) out) -> Tensor(a!)", s, 4), 1);
	assert_string_equal(s[0].type, "float");
	assert_string_equal(s[0].name, "eps");
	assert_true(s[0].optional);
	assert_false(s[0].kwarg);
	assert_false(s[0].operand);
	/* add: alpha, keyword-only; a namespace is dropped */
	assert_int_equal(nf_schema_scalars("aten::add.out(Tensor self, Tensor other, *, "
	                                   "Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
	                                   s, 4), 1);
	assert_string_equal(s[0].type, "Scalar");
	assert_string_equal(s[0].name, "alpha");
	assert_true(s[0].kwarg);
	assert_false(s[0].operand);
	/* round.decimals: a keyword-only int */
	assert_int_equal(nf_schema_scalars("round.decimals_out(Tensor self, *, int "
	                                   "decimals, Tensor(a!) out) -> Tensor(a!)",
	                                   s, 4), 1);
	assert_string_equal(s[0].type, "int");
	/* a positional Scalar is an operand (TensorIterator wraps it) */
	assert_int_equal(nf_schema_scalars("pow.Tensor_Scalar(Tensor self, Scalar "
	                                   "exponent) -> Tensor", s, 4), 1);
	assert_true(s[0].operand);
	/* no scalar; the tensors, lists, strings and bools do not count */
	assert_int_equal(nf_schema_scalars("gelu(Tensor self, *, str approximate="
	                                   "'none') -> Tensor", s, 4), 0);
	assert_int_equal(nf_schema_scalars("f(Tensor self, int[] dims, bool keep, "
	                                   "Tensor? w) -> Tensor", s, 4), 0);
	/* three optional floats: counted past MAX */
	assert_int_equal(nf_schema_scalars("nan_to_num(Tensor self, float? nan=None, "
	                                   "float? posinf=None, float? neginf=None) -> "
	                                   "Tensor", s, 2), 3);
	assert_string_equal(s[1].name, "posinf");
	/* no argument list */
	assert_int_equal(nf_schema_scalars("broken", s, 4), -1);
	assert_int_equal(nf_schema_scalars("f(Tensor self) - Tensor", s, 4), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_scalars)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
