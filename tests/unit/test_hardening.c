/* test_hardening.c — regression tests for what fuzzing and the hardening
 * pass (issue #7) found in tools/lib, plus nf_parse_schema, the entry
 * point of tests/fuzz/fuzz_schema.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/diag.h"
#include "read/nfyaml.h"
#include "base/scan.h"

/* mask_code on a long run of C++14 digit separators ("1'1'1'...") walked
 * back over the whole run for every quote: quadratic, minutes for a few
 * MB.  Now linear: 128 KiB must take milliseconds (1 s allows for
 * sanitizers and valgrind). */
static void test_digit_separators_linear(void **state)
{
	size_t n = 128u << 10, i;
	char *s = malloc(n), *m;
	clock_t t0;
	double secs;

	(void)state;
	assert_non_null(s);
	for (i = 0; i < n; i += 2) {
		s[i] = '1';
		s[i + 1] = '\'';
	}
	t0 = clock();
	m = mask_code(s, n, LANG_C);
	secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	assert_true(secs < 1.0);
	assert_memory_equal(m, s, n); /* all digit separators: nothing masked */
	free(m);
	free(s);
}

/* The memo must not change what is a separator and what a literal. */
static void test_digit_separators_still_right(void **state)
{
	const char *src = "x = 1'000'000; c = 'a'; // '\ny = a'b' /* 1'2 */ 0x1'F;\n";
	const char *want = "x = 1'000'000; c = 'a';     \ny = a'b'           0x1'F;\n";
	char *m = mask_code(src, strlen(src), LANG_C);
	(void)state;
	assert_string_equal(m, want);
	free(m);
}

static void check_schema(const char *func, int ok, const char *name,
                         enum nf_kind kind, const char *why_want)
{
	char *got = (char *)"unset";
	const char *why = NULL;
	enum nf_kind k = NF_SCRATCH;
	int rc = nf_parse_schema(func, &got, &k, &why);
	if (ok) {
		assert_int_equal(rc, 0);
		assert_string_equal(got, name);
		assert_int_equal(k, kind);
		free(got);
	} else {
		assert_int_equal(rc, -1);
		assert_null(got);
		assert_string_equal(why, why_want);
	}
}

static void test_nf_parse_schema(void **state)
{
	(void)state;
	check_schema("frob(Tensor self) -> Tensor", 1, "frob", NF_FUNCTIONAL, NULL);
	check_schema("aten::frob.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
	             1, "frob.out", NF_OUT, NULL);
	check_schema("frob_(Tensor(a!) self) -> Tensor(a!)", 1, "frob_",
	             NF_INPLACE, NULL);
	check_schema("frob", 0, NULL, 0, "schema has no '(' after the operator name");
	check_schema("frob(Tensor self)", 0, NULL, 0, "schema has no ') -> RETURNS'");
	check_schema("fr/ob(Tensor self) -> Tensor", 0, NULL, 0, "bad operator name");
	check_schema("frob(Tensor(A!) self) -> Tensor", 0, NULL, 0,
	             "bad alias annotation in an argument type");
	check_schema("", 0, NULL, 0, "schema has no '(' after the operator name");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_digit_separators_linear),
		cmocka_unit_test(test_digit_separators_still_right),
		cmocka_unit_test(test_nf_parse_schema),
	};
	diag_init("test_hardening");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
