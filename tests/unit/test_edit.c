/* test_edit.c — cmocka tests of tools/lib/edit/edit.c (issue #4, the edit
 * engine): exact diff bytes, atomic in-place writes (mode, CRLF, missing
 * final newline), the crc32 guard, the root guard against symlinks, and
 * the undo journal.  Every test works in its own mkdtemp folder. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/diag.h"
#include "edit/edit.h"
#include "base/scan.h"
#include "tree.h"

/* ---- helpers ---- */

static char *mktmp(void)
{
	char *d = xstrdup("/tmp/test_edit.XXXXXX");
	assert_non_null(mkdtemp(d));
	return d;
}

static void put(const char *path, const char *data, size_t len, mode_t mode)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static void puts_file(const char *path, const char *s)
{
	put(path, s, strlen(s), 0644);
}

/* The file must hold exactly want (a C string). */
static void assert_file(const char *path, const char *want)
{
	char *d;
	size_t n;
	assert_int_equal(read_file(path, &d, &n), 0);
	assert_int_equal(n, strlen(want));
	assert_memory_equal(d, want, n);
	free(d);
}

static mode_t mode_of(const char *path)
{
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	return st.st_mode & 07777;
}

/* Names in dir, sorted, joined with ' ' (caller frees). */
static char *ls(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *names[64];
	size_t n = 0, i, j;
	struct buf b = { NULL, 0, 0 };

	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		assert_true(n < 64);
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *t = names[j];
			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	buf_init(&b);
	for (i = 0; i < n; i++) {
		if (i)
			buf_puts(&b, " ");
		buf_puts(&b, names[i]);
		free(names[i]);
	}
	return b.data;
}

/* Capture what the engine prints on stderr between cap_start/cap_end. */
static int saved_err = -1;
static char cap_path[] = "/tmp/test_edit_err.XXXXXX";

static void cap_start(void)
{
	int fd;
	strcpy(cap_path, "/tmp/test_edit_err.XXXXXX");
	fd = mkstemp(cap_path);
	assert_true(fd >= 0);
	fflush(stderr);
	saved_err = dup(2);
	dup2(fd, 2);
	close(fd);
}

static char *cap_end(void)
{
	char *d;
	size_t n;
	fflush(stderr);
	dup2(saved_err, 2);
	close(saved_err);
	assert_int_equal(read_file(cap_path, &d, &n), 0);
	unlink(cap_path);
	return d;
}

/* Diff of old -> new for a file shown as "x.txt" (caller frees). */
static char *diff_of(const char *old, const char *new, int *rc)
{
	char *dir = mktmp(), *p = xasprintf("%s/x.txt", dir), *text;
	struct edit_set set = { NULL, 0, 0 };
	struct edit_opts o;
	struct edit_file *f;
	FILE *out = tmpfile();
	long n;

	assert_non_null(out);
	puts_file(p, old);
	f = edit_set_load(&set, p, "x.txt");
	assert_non_null(f);
	edit_set_replace(f, new, strlen(new));
	memset(&o, 0, sizeof o);
	o.out = out;
	*rc = edit_finish(&set, &o);
	edit_set_free(&set);
	assert_file(p, old); /* a diff writes nothing */
	n = ftell(out);
	text = xmalloc((size_t)n + 1);
	rewind(out);
	assert_int_equal(fread(text, 1, (size_t)n, out), (size_t)n);
	text[n] = '\0';
	fclose(out);
	tree_remove(dir);
	free(p);
	free(dir);
	return text;
}

static void check_diff(const char *old, const char *new, const char *want)
{
	int rc;
	char *got = diff_of(old, new, &rc);
	assert_string_equal(got, want);
	assert_int_equal(rc, want[0] ? MK_EXIT_FINDINGS : MK_EXIT_CLEAN);
	free(got);
}

#define NINE "1\n2\n3\n4\n5\n6\n7\n8\n9\n"

/* ---- diff output (expected texts checked against GNU diff -u) ---- */

static void test_diff_middle(void **state)
{
	(void)state;
	check_diff(NINE, "1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
	           "--- a/x.txt\n+++ b/x.txt\n"
	           "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
	/* an insertion and a deletion */
	check_diff(NINE, "1\n2\n3\n4\n4.5\n5\n6\n7\n8\n9\n",
	           "--- a/x.txt\n+++ b/x.txt\n"
	           "@@ -2,6 +2,7 @@\n 2\n 3\n 4\n+4.5\n 5\n 6\n 7\n");
	check_diff(NINE, "1\n2\n3\n4\n6\n7\n8\n9\n",
	           "--- a/x.txt\n+++ b/x.txt\n"
	           "@@ -2,7 +2,6 @@\n 2\n 3\n 4\n-5\n 6\n 7\n 8\n");
	/* nothing changed: no output at all */
	check_diff(NINE, NINE, "");
}

static void test_diff_start_end(void **state)
{
	(void)state;
	/* 7 unchanged lines between the changes: two hunks */
	check_diff(NINE, "one\n2\n3\n4\n5\n6\n7\n8\nnine\n",
	           "--- a/x.txt\n+++ b/x.txt\n"
	           "@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n"
	           "@@ -6,4 +6,4 @@\n 6\n 7\n 8\n-9\n+nine\n");
	/* 6 unchanged lines between them: one merged hunk */
	check_diff(NINE "10\n", "1\nb\n3\n4\n5\n6\n7\n8\ni\n10\n",
	           "--- a/x.txt\n+++ b/x.txt\n"
	           "@@ -1,10 +1,10 @@\n 1\n-2\n+b\n 3\n 4\n 5\n 6\n 7\n 8\n"
	           "-9\n+i\n 10\n");
	/* from nothing, and to nothing */
	check_diff("", "x\ny\n",
	           "--- a/x.txt\n+++ b/x.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n");
	check_diff("x\n", "",
	           "--- a/x.txt\n+++ b/x.txt\n@@ -1 +0,0 @@\n-x\n");
	/* one-line ranges print without ",1" */
	check_diff("a\n", "b\n",
	           "--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-a\n+b\n");
}

static void test_diff_no_final_newline(void **state)
{
	(void)state;
	/* neither side ends in a newline */
	check_diff("a\nb", "a\nc",
	           "--- a/x.txt\n+++ b/x.txt\n@@ -1,2 +1,2 @@\n a\n-b\n"
	           "\\ No newline at end of file\n+c\n"
	           "\\ No newline at end of file\n");
	/* a newline added at the end */
	check_diff("a\nb", "a\nb\n",
	           "--- a/x.txt\n+++ b/x.txt\n@@ -1,2 +1,2 @@\n a\n-b\n"
	           "\\ No newline at end of file\n+b\n");
	/* a change above an unchanged last line without newline */
	check_diff("a\nb\nc", "A\nb\nc",
	           "--- a/x.txt\n+++ b/x.txt\n@@ -1,3 +1,3 @@\n-a\n+A\n b\n c\n"
	           "\\ No newline at end of file\n");
	/* the newline removed */
	check_diff("a\n", "a",
	           "--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-a\n+a\n"
	           "\\ No newline at end of file\n");
}

static void test_diff_crlf(void **state)
{
	(void)state;
	/* CRLF lines are shown as they are */
	check_diff("a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n",
	           "--- a/x.txt\n+++ b/x.txt\n@@ -1,3 +1,3 @@\n a\r\n-b\r\n"
	           "+B\r\n c\r\n");
	/* only the line ending changed: still a change */
	check_diff("a\nb\n", "a\r\nb\n",
	           "--- a/x.txt\n+++ b/x.txt\n@@ -1,2 +1,2 @@\n-a\n+a\r\n b\n");
}

static void test_diff_two_files(void **state)
{
	char *dir = mktmp(), *p1 = xasprintf("%s/a", dir),
	     *p2 = xasprintf("%s/b", dir), *p3 = xasprintf("%s/c", dir), *text;
	struct edit_set set = { NULL, 0, 0 };
	struct edit_opts o;
	struct edit_file *f;
	FILE *out = tmpfile();
	long n;
	(void)state;

	puts_file(p1, "x\n");
	puts_file(p2, "y\n");
	puts_file(p3, "z\n");
	f = edit_set_load(&set, p1, "dir/a");
	edit_set_replace(f, "X\n", 2);
	f = edit_set_load(&set, p2, "dir/b");
	edit_set_replace(f, "y\n", 2); /* identical: no change */
	f = edit_set_load(&set, p3, "dir/c");
	edit_set_replace(f, "Z\n", 2);
	assert_int_equal(edit_set_changed(&set), 2);
	memset(&o, 0, sizeof o);
	o.out = out;
	assert_int_equal(edit_finish(&set, &o), MK_EXIT_FINDINGS);
	n = ftell(out);
	text = xmalloc((size_t)n + 1);
	rewind(out);
	assert_int_equal(fread(text, 1, (size_t)n, out), (size_t)n);
	text[n] = '\0';
	assert_string_equal(text,
	                    "--- a/dir/a\n+++ b/dir/a\n@@ -1 +1 @@\n-x\n+X\n"
	                    "--- a/dir/c\n+++ b/dir/c\n@@ -1 +1 @@\n-z\n+Z\n");
	free(text);
	fclose(out);
	edit_set_free(&set);
	tree_remove(dir);
	free(p1);
	free(p2);
	free(p3);
	free(dir);
}

/* ---- the set ---- */

static void test_eol(void **state)
{
	(void)state;
	assert_string_equal(edit_eol("a\r\nb\n", 5), "\r\n");
	assert_string_equal(edit_eol("a\nb\r\n", 5), "\n");
	assert_string_equal(edit_eol("abc", 3), "\n");
	assert_string_equal(edit_eol("", 0), "\n");
	assert_string_equal(edit_eol("\n", 1), "\n");
	/* len is honoured: the CRLF lies beyond it */
	assert_string_equal(edit_eol("ab\r\n", 2), "\n");
}

static void test_load(void **state)
{
	char *dir = mktmp(), *p = xasprintf("%s/f", dir),
	     *q = xasprintf("%s/missing", dir), *err;
	struct edit_set set = { NULL, 0, 0 };
	struct edit_file *f, *g;
	(void)state;

	put(p, "a\nb", 3, 0640);
	f = edit_set_load(&set, p, "f");
	assert_non_null(f);
	assert_int_equal(f->oldlen, 3);
	assert_int_equal(f->oldcrc, 0xef0790fbu); /* zlib crc32 of "a\nb" */
	assert_int_equal(f->mode, 0640);
	assert_null(f->new);
	g = edit_set_load(&set, p, "other name");
	assert_ptr_equal(f, g);
	assert_int_equal(set.n, 1);
	edit_set_replace(f, "a\nb", 3);
	assert_null(f->new);
	assert_int_equal(edit_set_changed(&set), 0);
	edit_set_replace(f, "a\nc", 3);
	assert_int_equal(edit_set_changed(&set), 1);
	assert_memory_equal(f->new, "a\nc", 3);

	diag_init("test_edit");
	cap_start();
	g = edit_set_load(&set, q, "sub/missing");
	err = cap_end();
	assert_null(g);
	assert_int_equal(set.n, 1);
	assert_string_equal(err, "test_edit: cannot open 'sub/missing': "
	                         "No such file or directory\n");
	free(err);
	edit_set_free(&set);
	tree_remove(dir);
	free(p);
	free(q);
	free(dir);
}

/* ---- in-place writes ---- */

struct fx {
	char *dir, *root, *journal, *file;
};

static void fx_init(struct fx *x, const char *name, const char *data,
                    size_t len, mode_t mode)
{
	x->dir = mktmp();
	x->root = xasprintf("%s/root", x->dir);
	x->journal = xasprintf("%s/state/journal", x->dir);
	x->file = xasprintf("%s/%s", x->root, name);
	assert_int_equal(mkdir(x->root, 0755), 0);
	put(x->file, data, len, mode);
}

static void fx_free(struct fx *x)
{
	tree_remove(x->dir);
	free(x->dir);
	free(x->root);
	free(x->journal);
	free(x->file);
}

/* Load path, give it new bytes, run edit_finish in place. */
static int edit_in_place(struct fx *x, const char *path, const char *display,
                         const char *new, size_t len)
{
	struct edit_set set = { NULL, 0, 0 };
	struct edit_opts o;
	struct edit_file *f;
	int rc;

	f = edit_set_load(&set, path, display);
	assert_non_null(f);
	edit_set_replace(f, new, len);
	memset(&o, 0, sizeof o);
	o.in_place = 1;
	o.root = x->root;
	o.journal = x->journal;
	o.tool = "test-tool";
	rc = edit_finish(&set, &o);
	edit_set_free(&set);
	return rc;
}

static void test_write_keeps_mode_crlf_no_newline(void **state)
{
	struct fx x;
	char *names;
	const char *old = "a: 1\r\nb: 2\r\nc: 3";
	const char *new = "a: 1\r\nb: 22\r\nc: 3";
	(void)state;

	fx_init(&x, "f.yaml", old, strlen(old), 0640);
	assert_int_equal(edit_in_place(&x, x.file, "f.yaml", new, strlen(new)),
	                 MK_EXIT_CLEAN);
	assert_file(x.file, new);
	assert_int_equal(mode_of(x.file), 0640);
	/* no temporary file left beside it */
	names = ls(x.root);
	assert_string_equal(names, "f.yaml");
	free(names);
	names = ls(x.journal);
	assert_string_equal(names, "0000000001.mkj");
	free(names);
	fx_free(&x);

	/* an executable script keeps 0755 */
	fx_init(&x, "s.sh", "echo a\n", 7, 0755);
	assert_int_equal(edit_in_place(&x, x.file, "s.sh", "echo b\n", 7), 0);
	assert_int_equal(mode_of(x.file), 0755);
	assert_file(x.file, "echo b\n");
	fx_free(&x);
}

static void test_write_nothing_changed(void **state)
{
	struct fx x;
	char *names;
	(void)state;

	fx_init(&x, "f", "a\n", 2, 0644);
	assert_int_equal(edit_in_place(&x, x.file, "f", "a\n", 2),
	                 MK_EXIT_CLEAN);
	/* no journal entry for an edit that changed nothing */
	assert_int_equal(access(x.journal, F_OK), -1);
	names = ls(x.root);
	assert_string_equal(names, "f");
	free(names);
	fx_free(&x);
}

static void test_crc_refusal(void **state)
{
	struct fx x;
	struct edit_set set = { NULL, 0, 0 };
	struct edit_opts o;
	struct edit_file *f, *g;
	char *other, *err, *names;
	(void)state;

	fx_init(&x, "f.yaml", "a\nb\n", 4, 0644);
	other = xasprintf("%s/g.yaml", x.root);
	puts_file(other, "g\n");
	g = edit_set_load(&set, other, "g.yaml");
	edit_set_replace(g, "G\n", 2);
	f = edit_set_load(&set, x.file, "f.yaml");
	edit_set_replace(f, "a\nB\n", 4);
	/* someone changes f.yaml after it was read (same length) */
	puts_file(x.file, "a\nc\n");
	memset(&o, 0, sizeof o);
	o.in_place = 1;
	o.root = x.root;
	o.journal = x.journal;
	diag_init("test_edit");
	cap_start();
	assert_int_equal(edit_finish(&set, &o), MK_EXIT_ERROR);
	err = cap_end();
	assert_string_equal(err, "test_edit: error: 'f.yaml' changed since it "
	                         "was read; nothing written\n");
	free(err);
	/* nothing written: neither file, nor a journal entry */
	assert_file(x.file, "a\nc\n");
	assert_file(other, "g\n");
	assert_int_equal(access(x.journal, F_OK), -1);
	names = ls(x.root);
	assert_string_equal(names, "f.yaml g.yaml");
	free(names);
	edit_set_free(&set);
	free(other);
	fx_free(&x);
}

static void test_symlink_outside_root(void **state)
{
	struct fx x;
	char *outside, *link, *err, *want, *rdir, *rroot;
	(void)state;

	fx_init(&x, "inside.txt", "in\n", 3, 0644);
	outside = xasprintf("%s/outside.txt", x.dir);
	link = xasprintf("%s/link.txt", x.root);
	puts_file(outside, "out\n");
	assert_int_equal(symlink(outside, link), 0);
	diag_init("test_edit");
	cap_start();
	assert_int_equal(edit_in_place(&x, link, "link.txt", "OUT\n", 4),
	                 MK_EXIT_ERROR);
	err = cap_end();
	rdir = realpath(x.dir, NULL);
	rroot = realpath(x.root, NULL);
	want = xasprintf("test_edit: error: 'link.txt' resolves to "
	                 "'%s/outside.txt', outside the root '%s'; nothing "
	                 "written\n", rdir, rroot);
	assert_string_equal(err, want);
	assert_file(outside, "out\n");
	assert_int_equal(access(x.journal, F_OK), -1);
	free(want);
	free(err);

	/* a symlink inside the root: the target is written, the link kept */
	unlink(link);
	assert_int_equal(symlink("inside.txt", link), 0);
	assert_int_equal(edit_in_place(&x, link, "link.txt", "IN\n", 3),
	                 MK_EXIT_CLEAN);
	assert_file(x.file, "IN\n");
	{
		struct stat st;
		assert_int_equal(lstat(link, &st), 0);
		assert_true(S_ISLNK(st.st_mode));
	}
	free(rdir);
	free(rroot);
	free(outside);
	free(link);
	fx_free(&x);
}

/* ---- undo ---- */

static int undo(struct fx *x, char **out_text)
{
	struct edit_opts o;
	FILE *out = tmpfile();
	long n;
	int rc;

	memset(&o, 0, sizeof o);
	o.root = x->root;
	o.journal = x->journal;
	o.out = out;
	rc = edit_undo(&o);
	n = ftell(out);
	*out_text = xmalloc((size_t)n + 1);
	rewind(out);
	assert_int_equal(fread(*out_text, 1, (size_t)n, out), (size_t)n);
	(*out_text)[n] = '\0';
	fclose(out);
	return rc;
}

static void test_undo_round_trip(void **state)
{
	struct fx x;
	struct edit_set set = { NULL, 0, 0 };
	struct edit_opts o;
	struct edit_file *f;
	char *second, *text, *err, *names;
	/* bytes a text diff would mangle: CRLF, NUL, no final newline */
	static const char orig[] = "x\r\ny\0z\r\nlast";
	size_t origlen = sizeof orig - 1;
	(void)state;

	fx_init(&x, "f.mm", orig, origlen, 0600);
	second = xasprintf("%s/sub/g.metal", x.root);
	{
		char *sub = xasprintf("%s/sub", x.root);
		assert_int_equal(mkdir(sub, 0755), 0);
		free(sub);
	}
	put(second, "g\n", 2, 0644);

	/* edit 1: both files in one entry */
	f = edit_set_load(&set, x.file, "f.mm");
	edit_set_replace(f, "new f\n", 6);
	f = edit_set_load(&set, second, "sub/g.metal");
	edit_set_replace(f, "new g\n", 6);
	memset(&o, 0, sizeof o);
	o.in_place = 1;
	o.root = x.root;
	o.journal = x.journal;
	o.tool = "test-tool";
	assert_int_equal(edit_finish(&set, &o), 0);
	edit_set_free(&set);
	/* edit 2: f.mm again */
	assert_int_equal(edit_in_place(&x, x.file, "f.mm", "newer f\n", 8), 0);
	names = ls(x.journal);
	assert_string_equal(names, "0000000001.mkj 0000000002.mkj");
	free(names);

	/* undo edit 2 */
	assert_int_equal(undo(&x, &text), 0);
	assert_string_equal(text, "restored f.mm\n");
	free(text);
	assert_file(x.file, "new f\n");
	names = ls(x.journal);
	assert_string_equal(names, "0000000001.mkj");
	free(names);
	/* undo edit 1: byte for byte, mode too */
	assert_int_equal(undo(&x, &text), 0);
	assert_string_equal(text, "restored f.mm\nrestored sub/g.metal\n");
	free(text);
	{
		char *d;
		size_t n;
		assert_int_equal(read_file(x.file, &d, &n), 0);
		assert_int_equal(n, origlen);
		assert_memory_equal(d, orig, origlen);
		free(d);
	}
	assert_int_equal(mode_of(x.file), 0600);
	assert_file(second, "g\n");
	names = ls(x.journal);
	assert_string_equal(names, "");
	free(names);
	/* nothing left */
	diag_init("test_edit");
	cap_start();
	assert_int_equal(undo(&x, &text), MK_EXIT_ERROR);
	err = cap_end();
	assert_string_equal(text, "");
	{
		char *rroot = realpath(x.root, NULL);
		char *want = xasprintf("test_edit: error: nothing to undo under "
		                       "'%s' (journal '%s'); nothing restored\n",
		                       rroot, x.journal);
		assert_string_equal(err, want);
		free(want);
		free(rroot);
	}
	free(text);
	free(err);
	free(second);
	fx_free(&x);
}

static void test_undo_refused_after_later_edit(void **state)
{
	struct fx x;
	char *text, *err, *names;
	(void)state;

	fx_init(&x, "f.py", "a = 1\n", 6, 0644);
	assert_int_equal(edit_in_place(&x, x.file, "f.py", "a = 2\n", 6), 0);
	/* someone else edits the file afterwards */
	puts_file(x.file, "a = 3\n");
	diag_init("test_edit");
	cap_start();
	assert_int_equal(undo(&x, &text), MK_EXIT_ERROR);
	err = cap_end();
	assert_string_equal(text, "");
	/* crc32("a = 3\n") = 9d19b8ea, crc32("a = 2\n") = 840289ab */
	assert_string_equal(err, "test_edit: error: 'f.py' changed after the "
	                         "edit (crc32 now 9d19b8ea, the edit left "
	                         "840289ab); nothing restored\n");
	assert_file(x.file, "a = 3\n");
	names = ls(x.journal);
	assert_string_equal(names, "0000000001.mkj"); /* entry kept */
	free(names);
	free(text);
	free(err);
	/* once the edit's bytes are back, undo works */
	puts_file(x.file, "a = 2\n");
	assert_int_equal(undo(&x, &text), 0);
	assert_string_equal(text, "restored f.py\n");
	assert_file(x.file, "a = 1\n");
	free(text);
	fx_free(&x);
}

/* one in-place edit of x's file with the default journal; returns the
 * exit status */
static int edit_default(struct fx *x, const char *root, const char *newtext)
{
	struct edit_set set = { NULL, 0, 0 };
	struct edit_opts o;
	struct edit_file *f;
	int rc;
	f = edit_set_load(&set, x->file, "f");
	edit_set_replace(f, newtext, strlen(newtext));
	memset(&o, 0, sizeof o);
	o.in_place = 1;
	o.tool = "mps-x";
	o.root = root;
	rc = edit_finish(&set, &o);
	edit_set_free(&set);
	return rc;
}

/* The default journal is the checkout's own: ROOT/.metal-kernel/journal,
 * ROOT/.git/metal-kernel/journal in a git work tree, or the folder a .git
 * file names; HOME and XDG_STATE_HOME play no part. */
static void test_journal_default_folder(void **state)
{
	struct fx x;
	char *xdg, *jdir, *names, *entry, *d, *p;
	size_t n;
	const char *hdr = "metal-kernel journal 1\ntool mps-x\nfiles 1\n";
	(void)state;

	fx_init(&x, "f", "old\n", 4, 0644);
	xdg = xasprintf("%s/xdg", x.dir);
	setenv("XDG_STATE_HOME", xdg, 1);
	setenv("HOME", xdg, 1);
	/* no root, no --journal: refused, nothing written */
	assert_int_equal(edit_default(&x, NULL, "new\n"), 2);
	/* plain folder */
	assert_int_equal(edit_default(&x, x.root, "new\n"), 0);
	jdir = xasprintf("%s/.metal-kernel/journal", x.root);
	names = ls(jdir);
	assert_string_equal(names, "0000000001.mkj");
	free(names);
	/* the entry: header, then the file line, then a gzip member */
	entry = xasprintf("%s/0000000001.mkj", jdir);
	assert_int_equal(read_file(entry, &d, &n), 0);
	assert_true(n > strlen(hdr));
	assert_memory_equal(d, hdr, strlen(hdr));
	{
		/* crc32("old\n") = e2884db0, crc32("new\n") = 340a50c8 */
		const char *fl = "file 644 e2884db0 340a50c8 4 ";
		char *rf = realpath(x.file, NULL);
		char *q = d + strlen(hdr), *nl;
		assert_memory_equal(q, fl, strlen(fl));
		nl = strchr(q, '\n');
		assert_non_null(nl);
		assert_memory_equal(nl + 1, rf, strlen(rf));
		q = nl + 1 + strlen(rf) + 1 + 2; /* path \n "f" \n */
		assert_int_equal((unsigned char)q[0], 0x1f);
		assert_int_equal((unsigned char)q[1], 0x8b);
		free(rf);
	}
	free(d);
	free(entry);
	free(jdir);
	/* a git work tree */
	p = xasprintf("%s/.git", x.root);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(edit_default(&x, x.root, "newer\n"), 0);
	jdir = xasprintf("%s/metal-kernel/journal", p);
	names = ls(jdir);
	assert_string_equal(names, "0000000001.mkj");
	free(names);
	free(jdir);
	tree_remove(p);
	/* a linked work tree: .git is a file naming the git folder */
	{
		char *gd = xasprintf("%s/gitdirs/wt", x.dir);
		assert_int_equal(edit_mkdirs(gd), 0);
		put(p, "gitdir: ../gitdirs/wt\n", 22, 0644);
		assert_int_equal(edit_default(&x, x.root, "newest\n"), 0);
		jdir = xasprintf("%s/metal-kernel/journal", gd);
		names = ls(jdir);
		assert_string_equal(names, "0000000001.mkj");
		free(names);
		free(jdir);
		free(gd);
	}
	free(p);
	/* nothing went to HOME or XDG_STATE_HOME */
	assert_int_equal(access(xdg, F_OK), -1);
	unsetenv("XDG_STATE_HOME");
	free(xdg);
	fx_free(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff_middle),
		cmocka_unit_test(test_diff_start_end),
		cmocka_unit_test(test_diff_no_final_newline),
		cmocka_unit_test(test_diff_crlf),
		cmocka_unit_test(test_diff_two_files),
		cmocka_unit_test(test_eol),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_write_keeps_mode_crlf_no_newline),
		cmocka_unit_test(test_write_nothing_changed),
		cmocka_unit_test(test_crc_refusal),
		cmocka_unit_test(test_symlink_outside_root),
		cmocka_unit_test(test_undo_round_trip),
		cmocka_unit_test(test_undo_refused_after_later_edit),
		cmocka_unit_test(test_journal_default_folder),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
