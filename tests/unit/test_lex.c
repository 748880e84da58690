/* test_lex.c — cmocka tests of tools/lib/base/lex.c, the C++ text rules the
 * two C++ readers share: exact end indices of literals (raw strings,
 * digit separators, unterminated ones), argument lists, #define lines
 * and expansions (#, ##, __VA_ARGS__, pp-numbers, missing arguments). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/lex.h"

static size_t skip_at(const char *t, char q)
{
	const char *p = strchr(t, q);
	assert_non_null(p);
	return lex_skip_literal(t, strlen(t), (size_t)(p - t));
}

static void test_words(void **state)
{
	static const char t[] = "if (x) { f(\")\", '}') } ns::g(a(b)) [c[d]]";
	(void)state;
	assert_int_equal(lex_is_keyword("if", 2), 1);
	assert_int_equal(lex_is_keyword("requires", 8), 1);
	assert_int_equal(lex_is_keyword("__attribute__", 13), 1);
	assert_int_equal(lex_is_keyword("iff", 3), 0);
	assert_int_equal(lex_is_keyword("f", 1), 0);
	assert_int_equal(lex_is_keyword("sizeofx", 6), 1); /* a span: "sizeof" */
	assert_int_equal(lex_word_at(t, sizeof t - 1, 0, "if"), 1);
	assert_int_equal(lex_word_at(t, sizeof t - 1, 0, "i"), 0);
	assert_int_equal(lex_word_at("xif", 3, 1, "if"), 0);
	/* the '}' and ')' inside literals do not close */
	assert_int_equal(lex_match_close(t, sizeof t - 1, 7, '{', '}'), 21);
	assert_int_equal(lex_match_close(t, sizeof t - 1, 28, '(', ')'), 33);
	assert_int_equal(lex_match_close(t, sizeof t - 1, 35, '[', ']'), 40);
	assert_int_equal(lex_match_close(t, 20, 7, '{', '}'), 20);
	/* Python text: a quote closes at its own kind, no C++ rules */
	assert_int_equal(lex_match_close_quoted("[\"a]\", 'b']", 11, 0, '[', ']'),
	                 10);
	/* 1'2 is a digit separator in C++, a string in Python */
	assert_int_equal(lex_match_close("[1'2]'3]", 8, 0, '[', ']'), 4);
	assert_int_equal(lex_match_close_quoted("[1'2]'3]", 8, 0, '[', ']'), 7);
	assert_int_equal(lex_skip_ws(" \t\nx", 4, 0), 3);
	assert_int_equal(lex_back_ws("ab  ", 0, 4), 2);
	assert_int_equal(lex_ident_end("ab_1(", 5, 0), 4);
	assert_int_equal(lex_span_is("abc", 3, "abc"), 1);
	assert_int_equal(lex_starts_with("abc", 3, "ab"), 1);
	assert_int_equal(lex_ends_with("abc", 3, "bc"), 1);
	assert_int_equal(lex_ends_with("abc", 2, "bc"), 0);
	assert_true(lex_id0('_') && !lex_id0('1') && lex_idc('1') && lex_sp('\v'));
	assert_false(lex_idc((char)0xc3));
}

static void test_literals(void **state)
{
	const char *raw = "R\"x(a \")\" b)x\" tail";
	const char *sep = "n = 1'000'000;";
	(void)state;
	/* a raw string runs to )x" whatever quotes stand inside */
	assert_int_equal(lex_raw_string_end(raw, strlen(raw), 1), 14);
	assert_int_equal(skip_at(raw, '"'), 14);
	/* u8R and LR prefixes open one; a longer word ending in R does not */
	assert_int_equal(lex_raw_string_end("u8R\"(a)\"", 8, 3), 8);
	assert_int_equal(lex_raw_string_end("LR\"(a)\"", 7, 2), 7);
	assert_int_equal(lex_raw_string_end("FOOR\"(a)\"", 9, 4), 0);
	/* a delimiter of 17 characters is no raw string */
	assert_int_equal(lex_raw_string_end("R\"abcdefghijklmnopq(x)abcdefghijklmnopq\"",
	                                    40, 1), 0);
	/* an unterminated raw string runs to the end */
	assert_int_equal(lex_raw_string_end("R\"(abc", 6, 1), 6);
	/* digit separators are not literals; u'x' is */
	assert_true(lex_digit_separator(sep, 5));
	assert_true(lex_digit_separator(sep, 9));
	assert_false(lex_digit_separator("u'x'", 1));
	assert_false(lex_digit_separator("case'a'", 4));
	assert_true(lex_digit_separator("0xFF'FF", 4));
	assert_int_equal(lex_skip_literal(sep, strlen(sep), 5), 6);
	assert_int_equal(skip_at("c = u'\\'';", '\''), 9);
	/* escapes, and an unterminated literal ending after its newline */
	assert_int_equal(skip_at("s = \"a\\\"b\"; x", '"'), 10);
	assert_int_equal(skip_at("s = \"abc\nnext", '"'), 9);
	assert_int_equal(lex_skip_quoted("'abc", 4, 0), 4);
	/* plain quoting knows no raw strings */
	assert_int_equal(lex_skip_quoted(raw, strlen(raw), 1), 7);
}

static void test_match_close(void **state)
{
	const char *t = "f(a, g(b), \")\", ')', h(c)) tail";
	const char *u = "f(a, (b)";
	(void)state;
	/* nested parentheses counted, literals skipped */
	assert_int_equal(lex_match_close(t, strlen(t), 1, '(', ')'), strlen(t) - 6);
	assert_int_equal(lex_match_close(t, strlen(t), 6, '(', ')'), 8);
	/* unbalanced: n */
	assert_int_equal(lex_match_close(u, strlen(u), 1, '(', ')'), strlen(u));
}

static void test_unqualified(void **state)
{
	(void)state;
	assert_string_equal(lex_unqualified("at::native::abs_out"), "abs_out");
	assert_string_equal(lex_unqualified("abs_out"), "abs_out");
	assert_string_equal(lex_unqualified("x::"), "");
}

static void test_split_args(void **state)
{
	const char *t = "f( a , g(b, c), \"x,y\", ')' ,d )";
	size_t na, i;
	char **v;
	(void)state;
	v = lex_split_args(t, 1, strlen(t) - 1, &na);
	assert_int_equal(na, 5);
	assert_string_equal(v[0], "a");
	assert_string_equal(v[1], "g(b, c)");
	assert_string_equal(v[2], "\"x,y\"");
	assert_string_equal(v[3], "')'");
	assert_string_equal(v[4], "d");
	lex_strv_free(v, na);
	v = lex_split_args("f( )", 1, 3, &na);
	assert_int_equal(na, 0);
	assert_null(v);
	v = lex_split_args("f(,)", 1, 3, &na);
	assert_int_equal(na, 2);
	for (i = 0; i < na; i++)
		assert_string_equal(v[i], "");
	lex_strv_free(v, na);
}

/* parse the one directive TEXT (all of it) into *mc; 0 when it is no
 * function-like #define */
static int define(const char *text, struct lex_macro *mc)
{
	size_t ns, ne, open, close, n = strlen(text);
	if (!lex_define_head(text, 0, n, &ns, &ne, &open, &close))
		return 0;
	lex_define_take(text, n, ns, ne, open, close, mc);
	return 1;
}

static void test_define(void **state)
{
	struct lex_macro mc;
	(void)state;
	assert_true(define("#  define REG(op, ...) \\\n  a(op) \\  \n b(__VA_ARGS__)",
	                   &mc));
	assert_string_equal(mc.name, "REG");
	assert_int_equal(mc.np, 2);
	assert_string_equal(mc.params[0], "op");
	assert_string_equal(mc.params[1], "__VA_ARGS__");
	assert_int_equal(mc.variadic, 1);
	assert_string_equal(mc.body, "a(op)   b(__VA_ARGS__)");
	assert_int_equal(lex_param_index(&mc, "op", 2), 0);
	assert_int_equal(lex_param_index(&mc, "o", 1), -1);
	lex_macro_free(&mc);
	assert_null(mc.name);
	/* object-like, another directive, a word starting with define,
	 * parameters not closed */
	assert_false(define("#define ONE 1", &mc));
	assert_false(define("#include <x.h>", &mc));
	assert_false(define("#defined(x) y", &mc));
	assert_false(define("#define F(a, b", &mc));
	assert_false(define("#define 1F(a) a", &mc));
}

static void test_directive_end(void **state)
{
	const char *t = "#define A(x) \\ \t\n  x \\\r\n y\nint z;\n";
	const char *u = "#if 0 \\";
	(void)state;
	/* two continuations (blanks after the backslash allowed), then the
	 * newline before "int" */
	assert_int_equal(lex_directive_end(t, strlen(t), 0),
	                 (size_t)(strstr(t, "\nint") - t));
	/* a backslash at the very end: the directive runs to n */
	assert_int_equal(lex_directive_end(u, strlen(u), 0), strlen(u));
	assert_int_equal(lex_directive_end("#x\n#y", 5, 0), 2);
}

static char *expand1(const char *text, char **args, size_t na)
{
	struct lex_macro mc;
	char *r;
	assert_true(define(text, &mc));
	r = lex_expand(&mc, args, na);
	lex_macro_free(&mc);
	return r;
}

static void test_expand(void **state)
{
	char *a2[] = {"sqrt", "float, half"}, *a3[] = {"x", "1", "2"};
	char *r;
	(void)state;
	r = expand1("#define K(op, T) op##_kernel<T> #op", a2, 2);
	assert_string_equal(r, "sqrt_kernel<float, half> \"sqrt\"");
	free(r);
	r = expand1("#define V(f, ...) f(__VA_ARGS__); \"f\" 'f'", a3, 3);
	assert_string_equal(r, "x(1, 2); \"f\" 'f'");
	free(r);
	/* a pp-number is one token: 1f and 0xf are not the parameter f */
	r = expand1("#define N(f) 1f 0xf f", a3, 1);
	assert_string_equal(r, "1f 0xf x");
	free(r);
	/* a missing argument expands to nothing; #x quotes " and \ */
	{
		char *q[] = {"\"a\\b\""};
		r = expand1("#define S(s, t) #s [t]", q, 1);
		assert_string_equal(r, "\"\\\"a\\\\b\\\"\" []");
		free(r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_literals),
		cmocka_unit_test(test_match_close),
		cmocka_unit_test(test_unqualified),
		cmocka_unit_test(test_split_args),
		cmocka_unit_test(test_define),
		cmocka_unit_test(test_directive_end),
		cmocka_unit_test(test_expand),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
