/* test_migrate.c — cmocka tests of tools/lib/plan/migrate.c's dtype rules
 * (mg_derive_pairs, mg_check_of): which registrations the CPU facts call
 * for, and which inputs the host stub must refuse.  The whole plan is
 * tested on fixture trees by the golden cases of tests/cli/mps-migrate. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "read/metalreg.h"
#include "plan/migrate.h"
#include "plan/regplan.h"

/* "in:out,in:out" of the pairs */
static char *text(const struct mr_pair *p, int n)
{
	struct buf b;
	int i;
	buf_init(&b);
	for (i = 0; i < n; i++)
		buf_printf(&b, "%s%s:%s%s%s", i ? "," : "", p[i].in,
		           p[i].alpha ? p[i].alpha : "", p[i].alpha ? ":" : "",
		           p[i].out);
	return b.data;
}

#define F CS_BIT(CS_FLOAT)
#define H CS_BIT(CS_HALF)
#define BF CS_BIT(CS_BFLOAT16)
#define D CS_BIT(CS_DOUBLE)
#define INTS (CS_BIT(CS_LONG) | CS_BIT(CS_INT) | CS_BIT(CS_SHORT) | \
              CS_BIT(CS_CHAR) | CS_BIT(CS_BYTE))
#define B CS_BIT(CS_BOOL)
#define CX (CS_BIT(CS_COMPLEX_DOUBLE) | CS_BIT(CS_COMPLEX_FLOAT) | \
            CS_BIT(CS_COMPLEX_HALF))

static void expect_pairs(int kind, cs_dtset cpu, int rule, cs_dtset before,
                         cs_dtset rejects, const char *want, unsigned check)
{
	struct mr_pair p[MR_MAX_PAIRS];
	unsigned allowed = 99;
	int n = mg_derive_pairs(kind, cpu, rule, before, rejects, p, &allowed);
	char *t;
	if (!want) {
		assert_int_equal(n, -1);
		return;
	}
	t = text(p, n);
	assert_string_equal(t, want);
	assert_int_equal(allowed, check);
	free(t);
}

static unsigned bits(const char *list)
{
	unsigned b = 0;
	char *s = xstrdup(list), *tok, *save = NULL;
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		b |= rg_dtype_bit(tok);
	free(s);
	return b;
}

static void test_pairs(void **state)
{
	(void)state;
	/* frac: floats only, same dtype; everything else needs the check */
	expect_pairs(MR_UNARY, D | F | H | BF, CS_RULE_SAME, 0, 0,
	             "float:float,half:half,bfloat:bfloat", bits("float,half,bfloat"));
	/* signbit: integers and floats to bool; bool before the stub; complex
	 * refused by the meta function: no check */
	expect_pairs(MR_UNARY, D | F | H | BF | INTS, CS_RULE_BOOL, B, CX,
	             "float:bool,half:bool,bfloat:bool,long:bool,int:bool,"
	             "short:bool,char:bool,uchar:bool", 0);
	/* atan2: a float op: the six integral and bool inputs give float,
	 * whatever the CPU kernel lists; complex is left to the check */
	expect_pairs(MR_BINARY, D | F | H | BF, CS_RULE_FLOAT, 0, 0,
	             "float:float,half:half,bfloat:bfloat,long:float,int:float,"
	             "short:float,char:float,uchar:float,bool:float",
	             RG_ALL_DTYPES & ~bits("float2,half2"));
	/* sqrt: complex keeps its dtype (ComplexDouble has no Metal type) */
	expect_pairs(MR_UNARY, D | F | H | BF | CS_BIT(CS_COMPLEX_DOUBLE) |
	                           CS_BIT(CS_COMPLEX_FLOAT),
	             CS_RULE_FLOAT, 0, 0,
	             "float:float,half:half,bfloat:bfloat,long:float,int:float,"
	             "short:float,char:float,uchar:float,bool:float,float2:float2",
	             RG_ALL_DTYPES & ~bits("half2"));
	/* ceil: integers copied before the stub, complex refused: only bool
	 * reaches no kernel */
	expect_pairs(MR_UNARY, D | F | H | BF, CS_RULE_SAME, INTS, CX,
	             "float:float,half:half,bfloat:bfloat",
	             RG_ALL_DTYPES & ~bits("bool"));
	/* add with alpha: ALPHA = IN */
	expect_pairs(MR_BINARY_ALPHA, F | CS_BIT(CS_LONG), CS_RULE_SAME, 0, 0,
	             "float:float:float,long:long:long", bits("float,long"));
	/* the output rule does not decide */
	expect_pairs(MR_UNARY, F, CS_RULE_UNKNOWN, 0, 0, NULL, 0);
	expect_pairs(MR_UNARY, F, CS_RULE_MIXED, 0, 0, NULL, 0);
}

static void test_check_of(void **state)
{
	struct mr_pair p[MR_MAX_PAIRS];
	char *err = NULL;
	int n = mr_parse_dtypes("float,half,long:float", MR_UNARY, p, &err);
	(void)state;
	assert_int_equal(n, 3);
	assert_int_equal(mg_check_of(p, (size_t)n, 0, 0), bits("float,half,long"));
	/* what is handled before the stub or refused needs no kernel */
	assert_int_equal(mg_check_of(p, (size_t)n, CX | B | INTS | BF, 0), 0);
	assert_int_equal(mg_check_of(p, (size_t)n, B, CX | INTS | BF), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pairs), cmocka_unit_test(test_check_of),
	};
	diag_init("test_migrate");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
