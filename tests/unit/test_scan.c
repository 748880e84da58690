/* test_scan.c — cmocka tests of tools/lib/base/scan.c: mask_code (exact masked
 * bytes; mask_code_in_place gives the same bytes and lists the braces),
 * line_col, read_file, and the PCRE2 wrapper including the "internal
 * error exits 2" rule. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/scan.h"

#include <jansson.h>

/* mask src (a C string) and compare with want byte for byte; the length
 * must never change. */
static void check_mask(const char *src, enum scan_lang lang, const char *want)
{
	size_t n = strlen(src);
	char *got = mask_code(src, n, lang);

	assert_int_equal(strlen(want), n);
	assert_string_equal(got, want);
	free(got);
	if (lang == LANG_C) {
		struct mask_braces br;
		char *t = xstrdup(src);
		mask_code_in_place(t, n, &br);
		assert_string_equal(t, want);
		mask_braces_free(&br);
		free(t);
	}
}

/* mask_code_in_place on src: the offsets of the braces it lists, as a
 * string of offsets "3 9" (into got), and its edge flag */
static int in_place_braces(const char *src, char *got, size_t cap)
{
	struct mask_braces br;
	char *t = xstrdup(src);
	size_t k, o = 0;
	int edge;
	mask_code_in_place(t, strlen(t), &br);
	got[0] = '\0';
	for (k = 0; k < br.n; k++)
		o += (size_t)snprintf(got + o, cap - o, "%s%lu", k ? " " : "",
		                      (unsigned long)br.pos[k]);
	edge = br.edge;
	mask_braces_free(&br);
	free(t);
	return edge;
}

static void test_c_in_place_braces(void **state)
{
	char got[256];
	(void)state;
	/* braces in code only: not in comments, literals or #if 0 groups */
	assert_int_equal(in_place_braces("f() { g(\"{\", '}'); } // {\n/* } */ {", got,
	                                 sizeof got), 0);
	assert_string_equal(got, "4 19 34");
	assert_int_equal(in_place_braces("{\n#if 0\n}\n#endif\n}", got, sizeof got), 0);
	assert_string_equal(got, "0 17");
	/* a brace first on its line (read one byte at a time) counts */
	assert_int_equal(in_place_braces("  {\n\t}", got, sizeof got), 0);
	assert_string_equal(got, "2 5");
	/* literals whose extent readers may judge differently: edge */
	assert_int_equal(in_place_braces("s = R\"({)\";", got, sizeof got), 1);
	assert_int_equal(in_place_braces("n = 1'000; {", got, sizeof got), 1);
	assert_int_equal(in_place_braces("c = u8'x';", got, sizeof got), 1);
	assert_int_equal(in_place_braces("s = \"a\\\nb\";", got, sizeof got), 1);
	assert_int_equal(in_place_braces("s = \"a\\\"b\"; c = '\\'';", got, sizeof got), 0);
}

static void test_c_line_comment(void **state)
{
	(void)state;
	check_mask("int a; // x y\nint b;\n", LANG_C,
	           "int a;       \nint b;\n");
	check_mask("a//\n", LANG_C, "a  \n");
	/* no final newline */
	check_mask("a // b", LANG_C, "a     ");
}

static void test_c_block_comment(void **state)
{
	(void)state;
	check_mask("a /* x\ny */ b\n", LANG_C, "a     \n     b\n");
	check_mask("/**/x/* // */y\n", LANG_C, "    x        y\n");
	/* unterminated block comment runs to the end */
	check_mask("a /* b\nc", LANG_C, "a     \n ");
	/* a block-comment opener inside a line comment starts nothing */
	check_mask("// /*\nx\n", LANG_C, "     \nx\n");
}

static void test_c_literals_kept(void **state)
{
	(void)state;
	check_mask("s = \"// no /* no\"; // yes\n", LANG_C,
	           "s = \"// no /* no\";       \n");
	check_mask("c = '\"'; /* q */ d = '\\''; // e\n", LANG_C,
	           "c = '\"';         d = '\\'';     \n");
	check_mask("\"a\\\"//b\" // c\n", LANG_C, "\"a\\\"//b\"     \n");
	/* Objective-C string */
	check_mask("@\"x//y\" // z\n", LANG_C, "@\"x//y\"     \n");
	/* an unterminated string stops at the end of its line */
	check_mask("\"abc\n// d\n", LANG_C, "\"abc\n    \n");
}

static void test_c_raw_string_and_digit_sep(void **state)
{
	(void)state;
	check_mask("k = R\"M(// a\n/* b */)M\"; // c\n", LANG_C,
	           "k = R\"M(// a\n/* b */)M\";     \n");
	check_mask("k = R\"(x)\" /* y */;\n", LANG_C,
	           "k = R\"(x)\"        ;\n");
	/* an identifier ending in R is not a raw-string prefix */
	check_mask("FOOR\"a\" // b\n", LANG_C, "FOOR\"a\"     \n");
	/* C++14 digit separators are not character literals */
	check_mask("n = 1'000'000; // m\n", LANG_C, "n = 1'000'000;     \n");
	check_mask("u = u8'a'; // m\n", LANG_C, "u = u8'a';     \n");
}

static void test_c_line_continuation(void **state)
{
	(void)state;
	/* a backslash-newline continues a line comment */
	check_mask("// a \\\nb\nc\n", LANG_C, "      \n \nc\n");
	/* and a string */
	check_mask("\"a\\\n//b\" x\n", LANG_C, "\"a\\\n//b\" x\n");
	/* CRLF: the \r is kept, the comment text blanked */
	check_mask("a // b\r\nc /* d\r\n*/ e\r\n", LANG_C,
	           "a     \r\nc     \r\n   e\r\n");
	check_mask("// x \\\r\ny\r\nz\r\n", LANG_C, "      \r\n \r\nz\r\n");
}

static void test_c_if0(void **state)
{
	(void)state;
	check_mask("a\n#if 0\ndead();\n#else\nlive(); // c\n#endif\nb\n",
	           LANG_C,
	           "a\n#if 0\n       \n#else\nlive();     \n#endif\nb\n");
	/* no #else; blanks and indentation; a trailing comment on #if 0 */
	check_mask("  #  if 0 // off\n  x = 1;\n  # endif\ny\n", LANG_C,
	           "  #  if 0       \n        \n  # endif\ny\n");
	/* #if (0) counts too */
	check_mask("#if (0)\nx\n#endif\n", LANG_C, "#if (0)\n \n#endif\n");
	/* #if 0x1, #if 01 and #ifdef 0 are not `#if 0` */
	check_mask("#if 0x1\nx\n#endif\n", LANG_C, "#if 0x1\nx\n#endif\n");
	check_mask("#if 01\nx\n#endif\n", LANG_C, "#if 01\nx\n#endif\n");
	/* `#if 0` not at the start of a line is not a directive */
	check_mask("x #if 0\ny\n#endif\n", LANG_C, "x #if 0\ny\n#endif\n");
	/* inside a comment it is nothing either */
	check_mask("/*\n#if 0\n*/\ny\n#endif\n", LANG_C,
	           "  \n     \n  \ny\n#endif\n");
	/* unterminated: blanked to the end */
	check_mask("#if 0\nx\ny", LANG_C, "#if 0\n \n ");
	/* the line start is found looking back from the '#': a splice joins
	 * the lines (x comes first), a comment before it is a token even
	 * once blanked, an escaped backslash before a line end is no splice */
	check_mask("x \\\n#if 0\ny\n#endif\n", LANG_C,
	           "x \\\n#if 0\ny\n#endif\n");
	check_mask("  \\\n#if 0\ny\n#endif\n", LANG_C,
	           "  \\\n#if 0\n \n#endif\n");
	check_mask("/* a\nb */ #if 0\ny\n#endif\n", LANG_C,
	           "    \n     #if 0\ny\n#endif\n");
	check_mask("s = \"a\\\\\r\n#if 0\nx\n#endif\n", LANG_C,
	           "s = \"a\\\\\r\n#if 0\n \n#endif\n");
	check_mask("// c\n#if 0\nx\n#endif\n", LANG_C,
	           "    \n#if 0\n \n#endif\n");
}

static void test_c_if0_nested(void **state)
{
	(void)state;
	check_mask("#if 0\n#ifdef X\na\n#else\nb\n#endif\nc\n#else\nd\n"
	           "#endif\ne\n",
	           LANG_C,
	           "#if 0\n        \n \n     \n \n      \n \n#else\nd\n"
	           "#endif\ne\n");
	/* #elif at depth 0 ends the disabled group; nested #if 0 in a live
	 * #else branch is a new group */
	check_mask("#if 0\na\n#elif X\nb\n#if 0\nc\n#endif\n#endif\n", LANG_C,
	           "#if 0\n \n#elif X\nb\n#if 0\n \n#endif\n#endif\n");
	/* #if 0 inside #if 0 */
	check_mask("#if 0\n#if 0\na\n#endif\nb\n#endif\nc\n", LANG_C,
	           "#if 0\n     \n \n      \n \n#endif\nc\n");
}

static void test_c_if0_body_text(void **state)
{
	(void)state;
	/* prose with an apostrophe; an #endif inside a block comment and one
	 * in a string do not end the group; a spliced line is no directive */
	check_mask("#if 0\ndon't\n/*\n#endif\n*/\ns = \"#endif\";\n"
	           "#define A \\\n#endif\n#endif\nz\n",
	           LANG_C,
	           "#if 0\n     \n  \n      \n  \n             \n"
	           "           \n      \n#endif\nz\n");
	/* CRLF body */
	check_mask("#if 0\r\nx\r\n#endif\r\n", LANG_C,
	           "#if 0\r\n \r\n#endif\r\n");
}

static void test_python(void **state)
{
	(void)state;
	check_mask("# c\nx = '#' # y\n", LANG_PYTHON, "   \nx = '#'    \n");
	check_mask("s = \"\"\"a # b\n'''\n\"\"\" # z\n", LANG_PYTHON,
	           "s = \"\"\"a # b\n'''\n\"\"\"    \n");
	check_mask("t = '''x \"\"\" # y\n''' # w\n", LANG_PYTHON,
	           "t = '''x \"\"\" # y\n'''    \n");
	check_mask("r = r'\\'#' # q\n", LANG_PYTHON, "r = r'\\'#'    \n");
	check_mask("e = \"a\\\"#\" # q\n", LANG_PYTHON, "e = \"a\\\"#\"    \n");
	/* an escaped quote does not close a triple-quoted string */
	check_mask("s = \"\"\"x\\\"\"\" # y\"\"\" # z\n", LANG_PYTHON,
	           "s = \"\"\"x\\\"\"\" # y\"\"\"    \n");
	/* empty strings, then a comment */
	check_mask("x = '' + \"\" # c\n", LANG_PYTHON, "x = '' + \"\"    \n");
	/* C comment syntax means nothing in Python */
	check_mask("a // b /* c */\n", LANG_PYTHON, "a // b /* c */\n");
	/* an unterminated quote stops at the line end */
	check_mask("x = 'a\n# c\n", LANG_PYTHON, "x = 'a\n   \n");
}

static void test_line_col(void **state)
{
	const char *s = "ab\ncd\n\nx";
	unsigned long l, c;
	(void)state;

	line_col(s, 0, &l, &c);
	assert_int_equal(l, 1);
	assert_int_equal(c, 1);
	line_col(s, 2, &l, &c); /* the first newline */
	assert_int_equal(l, 1);
	assert_int_equal(c, 3);
	line_col(s, 4, &l, &c);
	assert_int_equal(l, 2);
	assert_int_equal(c, 2);
	line_col(s, 6, &l, &c);
	assert_int_equal(l, 3);
	assert_int_equal(c, 1);
	line_col(s, 7, &l, &c);
	assert_int_equal(l, 4);
	assert_int_equal(c, 1);
}

/* read_regular_file: a regular file within the bound comes back byte for
 * byte; over the bound is EFBIG, a device EINVAL, a folder EISDIR, and a
 * FIFO with no writer is refused at once instead of blocking */
static void test_read_regular_file(void **state)
{
	char dir[] = "/tmp/mk-test-rrf.XXXXXX", *p, *f, *data = NULL;
	size_t len = 0;
	FILE *fp;
	(void)state;
	assert_non_null(mkdtemp(dir));
	p = xasprintf("%s/ten", dir);
	fp = fopen(p, "wb");
	fputs("0123456789", fp);
	fclose(fp);
	assert_int_equal(read_regular_file(p, 10, &data, &len), 0);
	assert_int_equal(len, 10);
	assert_string_equal(data, "0123456789");
	free(data);
	errno = 0;
	assert_int_equal(read_regular_file(p, 9, &data, &len), -1);
	assert_int_equal(errno, EFBIG);
	errno = 0;
	assert_int_equal(read_regular_file("/dev/null", 100, &data, &len), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(read_regular_file(dir, 100, &data, &len), -1);
	assert_int_equal(errno, EISDIR);
	f = xasprintf("%s/fifo", dir);
	assert_int_equal(mkfifo(f, 0600), 0);
	errno = 0;
	assert_int_equal(read_regular_file(f, 100, &data, &len), -1);
	assert_int_equal(errno, EINVAL);
	unlink(f);
	unlink(p);
	rmdir(dir);
	free(f);
	free(p);
}

static void test_read_file(void **state)
{
	char dir[] = "/tmp/test_scan.XXXXXX";
	char *path, *data = NULL;
	size_t len = 99;
	FILE *f;
	(void)state;

	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/f", dir);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite("a\0b\r\n", 1, 5, f), 5);
	fclose(f);
	assert_int_equal(read_file(path, &data, &len), 0);
	assert_int_equal(len, 5);
	assert_memory_equal(data, "a\0b\r\n", 6); /* NUL-terminated */
	free(data);

	/* empty file */
	f = fopen(path, "wb");
	fclose(f);
	data = NULL;
	assert_int_equal(read_file(path, &data, &len), 0);
	assert_int_equal(len, 0);
	assert_string_equal(data, "");
	free(data);

	data = NULL;
	errno = 0;
	assert_int_equal(read_file(dir, &data, &len), -1);
	assert_int_equal(errno, EISDIR);
	assert_null(data);
	unlink(path);
	assert_int_equal(read_file(path, &data, &len), -1);
	assert_int_equal(errno, ENOENT);
	assert_null(data);
	rmdir(dir);
	free(path);
}

static void test_re_match(void **state)
{
	struct mk_re re;
	size_t ov[8];
	const char *s = "xx REGISTER_UNARY_OP(abs, float, half);";
	(void)state;

	re_compile(&re, "REGISTER_(UNARY|BINARY)_OP\\((\\w+)(?:, (zz))?",
	           0);
	assert_int_equal(re_match(&re, s, strlen(s), 0, ov, 4), 1);
	assert_int_equal(ov[0], 3);
	assert_int_equal(ov[1], 24);
	assert_int_equal(ov[2], 12);
	assert_int_equal(ov[3], 17);
	assert_int_equal(ov[4], 21);
	assert_int_equal(ov[5], 24);
	assert_true(ov[6] == PCRE2_UNSET && ov[7] == PCRE2_UNSET);
	/* fewer pairs asked for than there are groups */
	ov[2] = 77;
	assert_int_equal(re_match(&re, s, strlen(s), 0, ov, 1), 1);
	assert_int_equal(ov[0], 3);
	assert_int_equal(ov[2], 77);
	/* from an offset past the match */
	assert_int_equal(re_match(&re, s, strlen(s), 4, ov, 4), 0);
	/* the subject length is honoured (no match inside a prefix) */
	assert_int_equal(re_match(&re, s, 20, 0, ov, 4), 0);
	/* start beyond the end */
	assert_int_equal(re_match(&re, s, 3, 10, ov, 4), 0);
	re_free(&re);
	assert_null(re.code);

	re_compile(&re, "^#endif", PCRE2_MULTILINE);
	assert_int_equal(re_match(&re, "a\n#endif\n", 9, 0, ov, 1), 1);
	assert_int_equal(ov[0], 2);
	re_free(&re);
}

/* Run fn in a child with stderr captured; return its exit status and the
 * text it printed (caller frees). */
static int run_child(void (*fn)(void), char **err)
{
	char tmpl[] = "/tmp/test_scan_err.XXXXXX";
	int fd = mkstemp(tmpl), st;
	size_t n;
	pid_t pid;

	assert_true(fd >= 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fd, 2);
		fn();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	close(fd);
	assert_int_equal(read_file(tmpl, err, &n), 0);
	unlink(tmpl);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void child_match_limit(void)
{
	struct mk_re re;
	size_t ov[2];
	char s[64];

	memset(s, 'a', 40);
	s[40] = 'b';
	re_compile(&re, "^(a+)+$", 0);
	re_match(&re, s, 41, 0, ov, 1);
}

static void child_bad_utf(void)
{
	struct mk_re re;
	size_t ov[2];

	re_compile(&re, "x", PCRE2_UTF);
	re_match(&re, "a\xff", 2, 0, ov, 1);
}

static void child_bad_pattern(void)
{
	struct mk_re re;
	re_compile(&re, "a(", 0);
}

static void test_re_errors_exit_2(void **state)
{
	char *err;
	(void)state;

	diag_init("test_scan");
	assert_int_equal(run_child(child_match_limit, &err), 2);
	assert_string_equal(err, "test_scan: pattern match failed: "
	                         "match limit exceeded\n");
	free(err);
	assert_int_equal(run_child(child_bad_utf, &err), 2);
	{
		const char *want = "test_scan: pattern match failed: UTF-8 "
		                   "error: ";
		assert_true(strncmp(err, want, strlen(want)) == 0);
	}
	free(err);
	assert_int_equal(run_child(child_bad_pattern, &err), 2);
	assert_string_equal(err, "test_scan: internal error: pattern 'a(' "
	                         "does not compile at offset 2: missing "
	                         "closing parenthesis\n");
	free(err);
}

/* buf_json_str (diag.h) writes what jansson's compact dump writes: every
 * ASCII byte alone and in a row, and UTF-8 text */
static void test_json_str(void **state)
{
	char s[256];
	int c;
	(void)state;
	for (c = 0; c <= 128; c++) {
		struct buf b;
		json_t *j;
		char *want;
		if (c < 128) {
			s[0] = (char)(c ? c : 'x');
			s[1] = 'a';
			s[2] = '\0';
		} else {
			for (c = 1; c < 128; c++)
				s[c - 1] = (char)c;
			strcpy(s + 127, "\xc3\xa9\xe2\x88\x91 \"q\" \\");
		}
		buf_init(&b);
		buf_json_str(&b, s);
		j = json_string(s);
		want = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
		assert_string_equal(b.data, want);
		free(want);
		json_decref(j);
		buf_free(&b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_c_line_comment),
		cmocka_unit_test(test_c_block_comment),
		cmocka_unit_test(test_c_literals_kept),
		cmocka_unit_test(test_c_raw_string_and_digit_sep),
		cmocka_unit_test(test_c_line_continuation),
		cmocka_unit_test(test_c_if0),
		cmocka_unit_test(test_c_if0_nested),
		cmocka_unit_test(test_c_if0_body_text),
		cmocka_unit_test(test_c_in_place_braces),
		cmocka_unit_test(test_python),
		cmocka_unit_test(test_line_col),
		cmocka_unit_test(test_json_str),
		cmocka_unit_test(test_read_file),
		cmocka_unit_test(test_read_regular_file),
		cmocka_unit_test(test_re_match),
		cmocka_unit_test(test_re_errors_exit_2),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
