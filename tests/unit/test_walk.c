/* test_walk.c — cmocka tests of tools/lib/base/walk.c, the one folder walker:
 * exact lists (sorted, relative to the root) for regular files, links,
 * FIFOs, dot names, depth, a skipped folder and a missing folder. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "base/diag.h"
#include "base/walk.h"
#include "tree.h"

static char root[] = "/tmp/mk-walk-XXXXXX";

static void put(const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs("x\n", f);
	fclose(f);
	free(p);
}

static void dir(const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
}

static void link_to(const char *target, const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);
	assert_int_equal(symlink(target, p), 0);
	free(p);
}

static int setup(void **state)
{
	char *p;
	(void)state;
	if (!mkdtemp(root))
		return -1;
	/* t/a.h t/b.mm t/.hidden.h t/.NAME.h.mk-Ab12Cd t/sub/c.h
	 * t/sub/deep/d.h t/skip/e.h t/link.h -> a.h t/dangling.h -> nowhere
	 * t/loop -> . (a folder link) t/fifo.h (a FIFO) t/dir.h/ (a folder) */
	dir("t");
	put("t/a.h");
	put("t/b.mm");
	put("t/.hidden.h");
	put("t/.NAME.h.mk-Ab12Cd");
	dir("t/sub");
	put("t/sub/c.h");
	dir("t/sub/deep");
	put("t/sub/deep/d.h");
	dir("t/skip");
	put("t/skip/e.h");
	dir("t/dir.h");
	link_to("a.h", "t/link.h");
	link_to("nowhere.h", "t/dangling.h");
	link_to(".", "t/loop");
	p = xasprintf("%s/t/fifo.h", root);
	assert_int_equal(mkfifo(p, 0644), 0);
	free(p);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tree_remove(root);
	return 0;
}

/* the list as one string, paths joined by ' ' */
static char *joined(const struct walk_list *l)
{
	struct buf b;
	size_t i;
	buf_init(&b);
	for (i = 0; i < l->n; i++)
		buf_printf(&b, "%s%s", i ? " " : "", l->paths[i]);
	return b.data;
}

static void check(const char *rel, int depth, const char *skip,
                  const char *const *sufs, const char *want)
{
	struct walk_list l;
	char *got;
	assert_int_equal(walk_files(root, rel, depth, skip, sufs, &l), 0);
	got = joined(&l);
	assert_string_equal(got, want);
	free(got);
	walk_free(&l);
	assert_null(l.paths);
	assert_int_equal(l.n, 0);
}

static void test_headers_all_depths(void **state)
{
	static const char *const h[] = {".h", NULL};
	(void)state;
	/* sorted; the link to a file counts; the dangling link, the folder
	 * link, the FIFO, the folder named dir.h and dot names do not */
	check("t", WALK_MAX_DEPTH, NULL, h,
	      "t/a.h t/link.h t/skip/e.h t/sub/c.h t/sub/deep/d.h");
}

static void test_depth_and_skip(void **state)
{
	static const char *const h[] = {".h", NULL};
	(void)state;
	check("t", 0, NULL, h, "t/a.h t/link.h");
	check("t", 1, NULL, h, "t/a.h t/link.h t/skip/e.h t/sub/c.h");
	check("t", WALK_MAX_DEPTH, "t/skip", h, "t/a.h t/link.h t/sub/c.h t/sub/deep/d.h");
	check("t", 999, "t/sub", h, "t/a.h t/link.h t/skip/e.h");
}

/* walk_is_file: regular files and links to them; not folders, FIFOs,
 * dangling links or missing names */
static void test_is_file(void **state)
{
	char *a = xasprintf("%s/t/a.h", root);
	(void)state;
	assert_int_equal(walk_is_file(root, "t/a.h"), 1);
	assert_int_equal(walk_is_file(a, NULL), 1);
	assert_int_equal(walk_is_file(root, "t/link.h"), 1);
	assert_int_equal(walk_is_file(root, "t/dir.h"), 0);
	assert_int_equal(walk_is_file(root, "t/fifo.h"), 0);
	assert_int_equal(walk_is_file(root, "t/dangling.h"), 0);
	assert_int_equal(walk_is_file(root, "t/none.h"), 0);
	free(a);
}

static void test_suffixes(void **state)
{
	static const char *const mm[] = {".mm", ".cpp", NULL};
	(void)state;
	check("t", 1, NULL, mm, "t/b.mm");
	check("t/sub", 0, NULL, NULL, "t/sub/c.h");
}

static void test_missing(void **state)
{
	(void)state;
	check("nope", 3, NULL, NULL, "");
	check("t/a.h", 3, NULL, NULL, ""); /* not a folder */
}

static void test_skip_names(void **state)
{
	static const char *const h[] = {".h", NULL};
	static const char *const skip[] = {"deep", "skip", NULL};
	struct walk_list l;
	char *got;
	(void)state;
	/* "deep" is skipped below t/sub, "skip" below t */
	assert_int_equal(walk_tree(root, "t", WALK_MAX_DEPTH, NULL, skip, h, &l), 0);
	got = joined(&l);
	assert_string_equal(got, "t/a.h t/link.h t/sub/c.h");
	free(got);
	walk_free(&l);
}

static void test_dir_entries(void **state)
{
	struct walk_list l;
	char *got, *d = xasprintf("%s/t", root);
	(void)state;
	/* files: regular ones and links to them; the FIFO, dot names and the
	 * dangling link are not listed */
	assert_int_equal(walk_dir(d, 0, &l), 0);
	got = joined(&l);
	assert_string_equal(got, "a.h b.mm link.h");
	free(got);
	walk_free(&l);
	/* folders: a link to a folder is listed as a name */
	assert_int_equal(walk_dir(d, 1, &l), 0);
	got = joined(&l);
	assert_string_equal(got, "dir.h loop skip sub");
	free(got);
	walk_free(&l);
	free(d);
	d = xasprintf("%s/nope", root);
	assert_int_equal(walk_dir(d, 0, &l), 0);
	assert_int_equal(l.n, 0);
	free(d);
}

static void test_dot_root(void **state)
{
	static const char *const h[] = {".h", NULL};
	char *cwd = getcwd(NULL, 4096);
	struct walk_list l;
	char *got;
	(void)state;
	assert_int_equal(chdir(root), 0);
	assert_int_equal(walk_files(".", "t/sub", 1, NULL, h, &l), 0);
	got = joined(&l);
	assert_string_equal(got, "t/sub/c.h t/sub/deep/d.h");
	free(got);
	walk_free(&l);
	assert_int_equal(chdir(cwd), 0);
	free(cwd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_headers_all_depths),
	    cmocka_unit_test(test_depth_and_skip),
	    cmocka_unit_test(test_suffixes),
	    cmocka_unit_test(test_is_file),
	    cmocka_unit_test(test_missing),
	    cmocka_unit_test(test_skip_names),
	    cmocka_unit_test(test_dir_entries),
	    cmocka_unit_test(test_dot_root),
	};
	diag_init("test_walk");
	return cmocka_run_group_tests(tests, setup, teardown);
}
