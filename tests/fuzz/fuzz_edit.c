/* fuzz_edit.c — libFuzzer target: an insertion into an arbitrary file,
 * through the edit engine (edit.h).
 *
 * Input layout: 2 bytes offset seed, 1 byte text length K, then K bytes of
 * inserted text, then the file's bytes.  The file is written to a private
 * temporary folder (on /dev/shm when present, so fsync costs nothing);
 * the insertion goes in with edit_set_replace; then
 *   1. edit_finish without --in-place prints the diff into /dev/null:
 *      exit 1 when the text is not empty, 0 when it is;
 *   2. edit_finish with --in-place (root = the folder): exit 0 and the
 *      file holds exactly old[0..off) + text + old[off..), mode kept;
 *   3. edit_undo restores the old bytes exactly and empties the journal.
 * Build and run: tests/fuzz/run.sh (make fuzz).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/diag.h"
#include "edit/edit.h"
#include "base/scan.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *dir, *path, *jdir;
static FILE *devnull;
static char errbuf[1 << 14];

/* at exit: remove the scratch folder (the journal is empty by then
 * unless a check failed, and then the folder is kept for a look) */
static void cleanup(void)
{
	unlink(path);
	if (rmdir(jdir) == 0 || access(jdir, F_OK) != 0)
		rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char tmpl[64];
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	(void)argc;
	(void)argv;
	diag_init("fuzz_edit");
	setvbuf(stderr, errbuf, _IOFBF, sizeof errbuf);
	snprintf(tmpl, sizeof tmpl, "%s/fuzz_edit.XXXXXX", base);
	if (!mkdtemp(tmpl))
		abort();
	dir = xstrdup(tmpl);
	path = xasprintf("%s/file.mm", dir);
	jdir = xasprintf("%s/journal", dir);
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	atexit(cleanup);
	return 0;
}

static void put(const char *p, const char *data, size_t len)
{
	FILE *f = fopen(p, "wb");
	if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f) != 0)
		abort();
	chmod(p, 0640);
}

static void expect_file(const char *p, const char *want, size_t wantlen)
{
	char *got;
	size_t len;
	struct stat st;
	if (read_file(p, &got, &len) != 0)
		abort();
	if (len != wantlen || (len && memcmp(got, want, len) != 0))
		abort();
	free(got);
	if (stat(p, &st) != 0 || (st.st_mode & 07777) != 0640)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct edit_set set = { NULL, 0, 0 };
	struct edit_opts o;
	struct edit_file *f;
	size_t seed, k, off, oldlen, newlen;
	const char *text, *old;
	char *want;
	int rc;

	if (size < 3)
		return 0;
	seed = (size_t)data[0] << 8 | data[1];
	k = data[2];
	if (k > size - 3)
		k = size - 3;
	text = (const char *)data + 3;
	old = text + k;
	oldlen = size - 3 - k;
	off = seed % (oldlen + 1);

	newlen = oldlen + k;
	want = xmalloc(newlen + 1);
	memcpy(want, old, off);
	memcpy(want + off, text, k);
	memcpy(want + off + k, old + off, oldlen - off);

	put(path, old, oldlen);
	f = edit_set_load(&set, path, "file.mm");
	if (!f || f->oldlen != oldlen)
		abort();
	(void)edit_eol(f->old, f->oldlen);
	edit_set_replace(f, want, newlen);
	if (edit_set_changed(&set) != (k ? 1u : 0u))
		abort();

	/* 1. the diff */
	memset(&o, 0, sizeof o);
	o.out = devnull;
	o.journal = jdir;
	o.tool = "fuzz_edit";
	o.root = dir;
	rc = edit_finish(&set, &o);
	if (rc != (k ? MK_EXIT_FINDINGS : MK_EXIT_CLEAN))
		abort();
	expect_file(path, old, oldlen); /* a diff writes nothing */

	/* 2. the write */
	o.in_place = 1;
	rc = edit_finish(&set, &o);
	if (rc != MK_EXIT_CLEAN)
		abort();
	expect_file(path, want, newlen);
	edit_set_free(&set);

	/* 3. the undo */
	if (k) {
		o.out = devnull;
		if (edit_undo(&o) != MK_EXIT_CLEAN)
			abort();
		expect_file(path, old, oldlen);
		if (edit_undo(&o) != MK_EXIT_ERROR) /* nothing left to undo */
			abort();
	}
	free(want);
	return 0;
}
