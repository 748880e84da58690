/* scan.h — reading source files and matching patterns in them (PCRE2).
 * Shared by mps-verify and mps-register.
 *
 * Layer: base/ (the first: calls no other layer).  Calls base/ (diag, lex,
 * walk).
 */
#ifndef MK_SCAN_H
#define MK_SCAN_H

#include <stddef.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

/* read_file: read the whole file PATH into a malloc'd, NUL-terminated
 * buffer (*data, caller frees) of *len bytes.  Returns 0, or -1 with
 * errno set (nothing allocated).  A folder gives -1 with EISDIR. */
int read_file(const char *path, char **data, size_t *len);

/* read_regular_file: as read_file, but only a regular file of at most
 * MAX bytes, opened without blocking, so that a FIFO or a device at PATH
 * is an error (EINVAL) and not a hang; more than MAX bytes: EFBIG. */
int read_regular_file(const char *path, size_t max, char **data, size_t *len);

/* read_source_file: as read_file, for a source file a scanner models:
 * one that cannot be read gets "prog: cannot open 'PATH': REASON", one
 * holding a NUL byte "prog: error: 'PATH' is not a text file (it holds a
 * NUL byte)" (nothing allocated); both return -1. */
int read_source_file(const char *path, char **data, size_t *len);

/* read_source_into: read_source_file into a buffer the caller keeps for
 * reading many files in turn: *buf (NULL at first) of *cap bytes is
 * grown (xrealloc) when the file needs more; the file's *len bytes are
 * followed by a NUL.  Diagnostics and -1 as read_source_file (the buffer
 * is kept). */
int read_source_into(const char *path, char **buf, size_t *cap, size_t *len);

/* A question asked of a masked source text (mask_code, LANG_C) of len
 * bytes, with the caller's ARG: 1 yes, 0 no. */
typedef int (*text_test_fn)(const char *masked, size_t len, const void *arg);

/* source_file_test: TEST on the masked text of the regular file PATH
 * (at most 16 MiB), asked only when the raw text holds NEEDLE (a cheap
 * filter; NEEDLE must be a part of every text TEST accepts).  A file that
 * cannot be read, is not regular or is larger counts as 0. */
int source_file_test(const char *path, const char *needle, text_test_fn test,
                     const void *arg);

/* first_source_file: the first file, in walk_files' order, under
 * ROOT/REL (DEPTH levels of subfolders, walk.h's rules) whose name ends
 * in one of SUFS (NULL-terminated) and that passes source_file_test:
 * its path relative to ROOT, malloc'd (caller frees); NULL when none
 * does or REL cannot be listed. */
char *first_source_file(const char *root, const char *rel, int depth,
                        const char *const *sufs, const char *needle,
                        text_test_fn test, const void *arg);

/* A compiled pattern: PCRE2, JIT-compiled with PCRE2_JIT_COMPLETE when
 * the library supports it, interpreter otherwise (as pcre2grep does).
 * The environment variable MK_PCRE2_NO_JIT (any value) forces the
 * interpreter, like pcre2grep --no-jit: JIT code reads past the subject
 * in 16-byte steps, which valgrind reports as errors
 * (tests/hardening/valgrind.sh sets it).  Results are the same. */
struct mk_re {
	pcre2_code *code;
	pcre2_match_data *md;
};

/* re_compile: compile PATTERN with pcre2 OPTIONS (e.g. PCRE2_MULTILINE).
 * A pattern that does not compile is a programming error: dies. */
void re_compile(struct mk_re *re, const char *pattern, unsigned options);

/* re_match: match re against subject[0..len) from byte offset start.
 * Returns 1 on a match (ov[0..2*n) filled with group offsets, unset
 * groups as PCRE2_UNSET; n = min(nov, groups)), 0 on no match.  Any other
 * negative PCRE2 code (match limit, JIT stack limit, bad UTF) prints
 * "prog: pattern match failed: REASON" and exits 2: an internal error is
 * never reported as "not found". */
int re_match(struct mk_re *re, const char *subject, size_t len, size_t start,
             size_t *ov, size_t nov);

void re_free(struct mk_re *re);

/* re_has_match: compile PATTERN with OPTIONS, report whether it matches
 * anywhere in t[0..len) (1 or 0), free it.  For one-off questions; a
 * pattern used in a loop is compiled once with re_compile instead.
 * Errors as re_compile / re_match (exit 2). */
int re_has_match(const char *pattern, unsigned options, const char *t,
                 size_t len);

/* Languages known to mask_code(). */
enum scan_lang { LANG_C = 0 /* .mm .h .cpp .metal */, LANG_PYTHON };

/* mask_code: a copy of src (len bytes, caller frees, NUL-terminated)
 * where comments (// and block comments for LANG_C, # for LANG_PYTHON)
 * and the bodies of `#if 0` ... `#endif` / `#else` blocks are replaced
 * by spaces, newlines kept, so that byte offsets and line numbers of
 * the copy equal those of the original.  String and character literals
 * are kept (comment markers inside them are not comments). */
char *mask_code(const char *src, size_t len, enum scan_lang lang);

/* mask_code_into: the same bytes written to OUT (len + 1 bytes, the last
 * a NUL; OUT and SRC do not overlap), for a reader that masks many texts
 * in turn into one buffer. */
void mask_code_into(char *out, const char *src, size_t len,
                    enum scan_lang lang);

/* The braces a C-family masking pass met in code (outside comments,
 * `#if 0` groups and literals), for a reader that pairs them without a
 * second pass over the text (cppscan). */
struct mask_braces {
	size_t *pos;      /* byte offsets of '{' and '}', ascending (owned) */
	size_t n, cap;
	int edge;         /* a literal whose extent another reader may judge
	                     differently was met: a quote after 'R' (a raw
	                     string), a quote right after an identifier
	                     character (a digit separator or an encoding
	                     prefix), a backslash before a line end inside a
	                     literal.  Such a reader should pair its braces
	                     itself. */
};

/* mask_code_in_place: mask_code(text, len, LANG_C) written over text
 * itself (the same bytes as the copy mask_code returns).  text[len] must
 * be readable and '\0' (read_file's buffers are).  BR (may be NULL) is
 * zeroed and filled; free it with mask_braces_free.  No errors. */
void mask_code_in_place(char *text, size_t len, struct mask_braces *br);

/* mask_code_again: mask_code_in_place with a BR that keeps the storage
 * of an earlier call (zero it before the first), for a reader that masks
 * many texts in turn. */
void mask_code_again(char *text, size_t len, struct mask_braces *br);

/* mask_braces_free: release br->pos and zero br (a zeroed br is fine). */
void mask_braces_free(struct mask_braces *br);

/* last_le: the index of the last of the n ascending values v[] that is
 * at most x (0 when none is, or n is 0): with v the byte offsets where
 * lines start, the 0-based line holding byte x.  Binary search. */
size_t last_le(const size_t *v, size_t n, size_t x);

/* Lines of a source text t (len bytes; lines end at '\n').
 * text_line_start: the offset where the line holding off starts.
 * text_next_line: the offset just after the '\n' ending the line holding
 * off (len when that line is the last).
 * text_blank: 1 when t[a, b) is only spaces, tabs, '\r' and '\n'. */
size_t text_line_start(const char *t, size_t off);
size_t text_next_line(const char *t, size_t len, size_t off);
int text_blank(const char *t, size_t a, size_t b);

/* line_col: 1-based line and column (in bytes) of byte offset off. */
void line_col(const char *src, size_t off, unsigned long *line,
              unsigned long *col);

#endif
