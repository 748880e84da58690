/* edit.h — the edit engine shared by every tool that writes
 * (mps-dispatch, mps-register, ...).  Issue #4 "The edit engine".
 *
 * A tool computes, for each file it wants to change, the complete new
 * contents in memory (keeping the file's own line endings: see
 * edit_eol()), collects them in a struct edit_set, and calls
 * edit_finish().  edit_finish() either prints a unified diff (default)
 * or writes every file atomically (--in-place) and records an undo
 * journal entry.  Nothing is written when any check fails.
 *
 * Layer: edit/.  May call base/ and edit/ (calls base/ diag, scan).
 */
#ifndef MK_EDIT_H
#define MK_EDIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* One file to change. */
struct edit_file {
	char *display;     /* path shown in diffs and messages, relative to
	                      the root when the file is under it ("aten/...") */
	char *path;        /* path used to open the file */
	char *old;         /* bytes as read (owned) */
	size_t oldlen;
	uint32_t oldcrc;   /* zlib crc32 of old, taken at read time */
	mode_t mode;       /* permission bits at read time */
	char *new;         /* bytes the tool wants (owned); NULL = unchanged */
	size_t newlen;
};

struct edit_set {
	struct edit_file *files;
	size_t n, cap;
};

/* Options of edit_finish(); zero-initialise, then set. */
struct edit_opts {
	int in_place;          /* 0: print diff to out; 1: write */
	const char *root;      /* checkout root: writes must stay inside it
	                          (after resolving symlinks); NULL = no check */
	const char *journal;   /* journal folder; NULL = the checkout's own,
	                          edit_journal_dir(root) (root must then be
	                          set) */
	const char *tool;      /* tool name recorded in the journal entry */
	FILE *out;             /* where diffs go (stdout when NULL) */
	int json;              /* edit_undo only: report each restored file
	                          as one JSON Lines object (see edit_undo) */
};

/* edit_eol: the line ending a file uses: "\r\n" when its first line ends
 * in CRLF, else "\n".  data need not be NUL-terminated. */
const char *edit_eol(const char *data, size_t len);

/* edit_set_load: read PATH into a new entry of set and return it
 * (pointer valid until the next edit_set_load on the same set).
 * display: the name to show (copied).  On failure prints
 * "prog: cannot open 'DISPLAY': REASON" and returns NULL; nothing is
 * added.  The same path loaded twice returns the existing entry. */
struct edit_file *edit_set_load(struct edit_set *set, const char *path,
                                const char *display);

/* edit_set_load_text: edit_set_load, for a text file: one holding a NUL
 * byte gets "prog: error: 'DISPLAY' is not a text file (it holds a NUL
 * byte)" and NULL (it stays in set, unchanged). */
struct edit_file *edit_set_load_text(struct edit_set *set, const char *path,
                                     const char *display);

/* edit_resolve: the path and display name of a file a tool edits: REL
 * under ROOT by default, or GIVEN (a path as the user wrote it).  *path
 * and *display are malloc'd (caller frees, also on failure); display is
 * the path relative to ROOT once symbolic links are resolved, else GIVEN.
 * The file must lie under the root once links are resolved (given files
 * and defaults alike): otherwise prints "prog: error: 'DISPLAY' resolves
 * to 'REAL', outside the root 'ROOT'; nothing written" (the wording of
 * edit_finish) and returns -1 before anything is read.  A file that does
 * not exist returns 0 (the loader reports "cannot open"). */
int edit_resolve(const char *root, const char *given, const char *rel,
                 char **path, char **display);

/* edit_set_replace: give file f its new contents (copied from data,
 * len bytes).  Identical contents count as no change. */
void edit_set_replace(struct edit_file *f, const char *data, size_t len);

/* edit_set_changed: number of files whose new bytes differ from old. */
size_t edit_set_changed(const struct edit_set *set);

/* edit_finish: act on every changed file of set.
 * Without in_place: write a unified diff ("--- a/DISPLAY", "+++ b/DISPLAY",
 * 3 lines of context, "\ No newline at end of file" markers) for each
 * changed file to o->out; returns MK_EXIT_FINDINGS (1) when anything
 * changed, MK_EXIT_CLEAN (0) when nothing did.
 * With in_place: first checks every file (re-reads it: its crc32 must
 * still equal oldcrc; the resolved path must stay under root; the
 * folder must be writable), then writes each one through a temporary
 * file in the same folder (fsync, rename, same mode), then fsyncs the
 * folder; the pre-edit bytes are stored gzip-compressed in one journal
 * entry together with pre- and post-edit crc32.  Returns 0 once written,
 * MK_EXIT_ERROR (2) after printing why when a check fails (nothing is
 * written in that case). */
int edit_finish(struct edit_set *set, const struct edit_opts *o);

/* edit_undo: restore the files of the newest journal entry byte for
 * byte, only if every one still has its post-edit crc32; otherwise
 * explains which file changed since and writes nothing.  Prints
 * "restored DISPLAY" lines to o->out, or with o->json one JSON object
 * per line, {"action":"restored","path":"DISPLAY"} (jansson, compact,
 * keys in that order).  Errors go to stderr as text either way.
 * Returns 0 restored, 2 error
 * (including "nothing to undo").  The entry is removed once restored. */
int edit_undo(const struct edit_opts *o);

/* edit_journal_dir: the undo journal folder of the checkout ROOT, as a
 * malloc'd path (caller frees): ROOT/.git/metal-kernel/journal when ROOT
 * is a git work tree (every PyTorch checkout is; for a linked work tree
 * or a submodule, whose .git is a file, the folder that file names), else
 * ROOT/.metal-kernel/journal.  So the tools write nothing outside the
 * checkout unless --journal says where.  Reads ROOT/.git only. */
char *edit_journal_dir(const char *root);

/* edit_crc32: zlib's crc32 of n bytes at p (any n: fed in 1 GiB
 * pieces). */
uint32_t edit_crc32(const char *p, size_t n);

/* edit_write_file: replace TARGET with LEN bytes at DATA atomically: a
 * temporary ".NAME.mk-XXXXXX" in the same folder, written, given MODE's
 * permission bits and renamed over TARGET; with DURABLE also fsync'ed
 * (file, then folder) before and after the rename, as every edit of a
 * source file is.  A reader sees the old file or the new one, never a
 * mix.  Returns 0, or -1 with errno set (TARGET untouched, temporary
 * removed). */
int edit_write_file(const char *target, const char *data, size_t len,
                    mode_t mode, int durable);

/* edit_mkdirs: mkdir -p PATH, new folders with mode 0700.  Returns 0, or
 * -1 with errno set (ENOTDIR when PATH exists and is not a folder). */
int edit_mkdirs(const char *path);

/* edit_set_free: release every buffer of set. */
void edit_set_free(struct edit_set *set);

#endif
