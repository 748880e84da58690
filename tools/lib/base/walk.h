/* walk.h — the one folder walker of the tools.
 *
 * Every tool that looks for files under a checkout (hostscan's host,
 * kernel and header files; mps-register's c10/metal headers, host files
 * and stub declarations) lists them through walk_files, so that one set
 * of rules holds everywhere:
 *   - only regular files are listed (a symbolic link to a regular file
 *     counts: it is read through the link); FIFOs, devices and sockets
 *     never are, so no read can block;
 *   - symbolic links to folders are not followed (no cycles, no leaving
 *     the tree through a link);
 *   - names starting with '.' are skipped (.git, editor temporaries, the
 *     .NAME.mk-XXXXXX temporaries of edit.h);
 *   - at most WALK_MAX_DEPTH levels of subfolders below the start;
 *   - the result is sorted with strcmp, so no output depends on the order
 *     readdir returns.
 *
 * Layer: base/ (the first: calls no other layer).  Calls base/ (diag).
 */
#ifndef MK_WALK_H
#define MK_WALK_H

#include <stddef.h>

#define WALK_MAX_DEPTH 8

/* walk_is_file: 1 when DIR/REL (REL NULL: DIR itself) is a regular file
 * (stat: a symbolic link to one counts), else 0. */
int walk_is_file(const char *dir, const char *rel);

struct walk_list {
	char **paths;  /* relative to the root given to walk_files, "REL/x/y.h"
	                  (owned) */
	size_t n;
	size_t largest; /* the size in bytes of the largest file listed (for a
	                   reader that reads every file into one buffer) */
};

/* walk_files: the regular files under ROOT/REL (ROOT "." means the
 * current folder and paths are then "REL/...") whose names end in one of
 * the NULL-terminated suffixes SUFS (NULL: every name), descending DEPTH
 * levels of subfolders (0: REL itself only; capped at WALK_MAX_DEPTH),
 * never into the folder SKIP (a path relative to ROOT, or NULL).
 * Fills *out (zeroed first; caller frees with walk_free).  A missing REL
 * (or one that is not a folder) gives an empty list.  Returns 0, or -1
 * after printing "prog: cannot open 'PATH': REASON" when a folder that
 * exists cannot be read (out is then empty). */
int walk_files(const char *root, const char *rel, int depth, const char *skip,
               const char *const *sufs, struct walk_list *out);

/* walk_tree: walk_files, also never entering a folder whose own name is
 * one of the NULL-terminated SKIP_NAMES (at any depth: "cuda" skips
 * native/cuda and native/sparse/cuda), NULL for none. */
int walk_tree(const char *root, const char *rel, int depth, const char *skip,
              const char *const *skip_names, const char *const *sufs,
              struct walk_list *out);

/* walk_dir: the entries of the one folder DIR as names (not paths), the
 * same rules for names (none starting with '.'; sorted), regular files
 * (or links to them) when FOLDERS is 0, folders (also through a link: a
 * name, not a descent) when FOLDERS is 1.  A missing DIR gives an empty
 * list; one that cannot be read too (the callers describe what is
 * there).  Returns 0. */
int walk_dir(const char *dir, int folders, struct walk_list *out);

/* walk_free: release what walk_files, walk_tree or walk_dir put in l. */
void walk_free(struct walk_list *l);

#endif
