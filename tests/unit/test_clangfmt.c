/* test_clangfmt.c — cmocka tests of tools/lib/read/clangfmt.c: the
 * column limit and line-breaking settings of a checkout's .clang-format,
 * per language (issue #21). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/clangfmt.h"
#include "tree.h"

static char *mkroot(const char *cf)
{
	char *d = xstrdup("/tmp/test_clangfmt.XXXXXX");
	assert_non_null(mkdtemp(d));
	if (cf)
		tree_put(d, ".clang-format", cf, strlen(cf));
	return d;
}

/* PyTorch's shape: defaults, then an ObjC section */
static void test_sections(void **state)
{
	static const char cf[] =
	    "---\n"
	    "AlignAfterOpenBracket: AlwaysBreak\n"
	    "BinPackArguments: false\n"
	    "BraceWrapping:\n"
	    "  AfterClass: false\n"
	    "ColumnLimit:     80\n"
	    "ContinuationIndentWidth: 4\n"
	    "StatementMacros:\n"
	    "  - C10_DEFINE_bool\n"
	    "---\n"
	    "Language: ObjC\n"
	    "ColumnLimit: 120\n"
	    "AlignAfterOpenBracket: Align\n"
	    "...\n";
	char *d = mkroot(cf);
	struct cf_style st;
	(void)state;
	cf_style_for(d, "Cpp", &st);
	assert_int_equal(st.column, 80);
	assert_int_equal(st.align, CF_ALWAYS_BREAK);
	assert_int_equal(st.cont, 4);
	assert_false(st.binpack);
	assert_true(st.from_file);
	assert_string_equal(st.source, ".clang-format");
	cf_style_for(d, "ObjC", &st);
	assert_int_equal(st.column, 120);
	assert_int_equal(st.align, CF_ALIGN);
	assert_false(st.binpack); /* from the defaults */
	assert_string_equal(st.source, ".clang-format (Language: ObjC)");
	tree_remove(d);
	free(d);
}

static void test_defaults(void **state)
{
	struct cf_style st;
	char *d = mkroot(NULL);
	(void)state;
	/* no file: LLVM */
	cf_style_for(d, "ObjC", &st);
	assert_int_equal(st.column, 80);
	assert_int_equal(st.align, CF_ALIGN);
	assert_true(st.binpack);
	assert_false(st.from_file);
	assert_string_equal(st.source, "clang-format's default style (LLVM)");
	tree_remove(d);
	free(d);
	/* BasedOnStyle only */
	d = mkroot("BasedOnStyle: Microsoft\n");
	cf_style_for(d, "Cpp", &st);
	assert_int_equal(st.column, 120);
	assert_true(st.from_file);
	tree_remove(d);
	free(d);
	/* WebKit: no limit */
	d = mkroot("BasedOnStyle: WebKit\n");
	cf_style_for(d, "Cpp", &st);
	assert_int_equal(st.column, 0);
	tree_remove(d);
	free(d);
	/* malformed YAML, or only another language's section: the defaults */
	d = mkroot("ColumnLimit: [80\n");
	cf_style_for(d, "Cpp", &st);
	assert_int_equal(st.column, 80);
	assert_false(st.from_file);
	tree_remove(d);
	free(d);
	d = mkroot("---\nLanguage: JavaScript\nColumnLimit: 100\n");
	cf_style_for(d, "Cpp", &st);
	assert_int_equal(st.column, 80);
	assert_false(st.from_file);
	tree_remove(d);
	free(d);
	assert_string_equal(cf_lang_of("a/b/UnaryKernel.mm"), "ObjC");
	assert_string_equal(cf_lang_of("a/UnaryKernel.metal"), "Cpp");
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_sections),
	                                   cmocka_unit_test(test_defaults)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
