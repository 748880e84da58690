/* diag.h — diagnostics, exit codes and allocators shared by every tool.
 *
 * Model: sbase's eprintf/enprintf and git's "error: ..." style.  Every
 * message goes to stderr, starts with the program name set by
 * diag_init(), is lower-case and has no full stop.
 *
 * Layer: base/ (the first: calls no other layer).  Calls nothing of the
 * library.
 */
#ifndef MK_DIAG_H
#define MK_DIAG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* Exit status shared by all tools (GUIDE.md "Conventions"). */
enum mk_exit {
	MK_EXIT_CLEAN = 0,    /* clean, nothing to change, or written */
	MK_EXIT_FINDINGS = 1, /* findings reported or a change proposed */
	MK_EXIT_ERROR = 2     /* bad input, usage error, I/O error */
};

/* diag_init: remember the program name used as message prefix, and set
 * up the allocator for a short run that reads a whole tree (on Linux with
 * glibc: one heap step backed by huge pages, see heap_init in diag.c;
 * elsewhere nothing).  prog: a string that must outlive every later call
 * (argv[0]'s basename is taken).  Call it first in main, once. */
void diag_init(const char *prog);

/* diag_prog: the name given to diag_init ("metal-kernel" before it). */
const char *diag_prog(void);

/* die: print "prog: MESSAGE" and exit(MK_EXIT_ERROR).  When fmt ends in
 * ':' the text of strerror(errno) is appended, as sbase's eprintf does. */
void die(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((noreturn, format(printf, 1, 2)))
#endif
	;

/* warnx_: print "prog: MESSAGE" (same ':' rule as die) and return. */
void warnx_(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;

/* diag_at: print "prog: PATH:LINE:COL: MESSAGE" to stderr.
 * line and col are 1-based; col 0 omits the column, line 0 omits both.
 * The message is printed as given (callers add "error: " etc. when the
 * tool's format wants a severity). */
void diag_at(const char *path, unsigned long line, unsigned long col,
             const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

/* Allocators that die (exit 2, "out of memory") instead of returning NULL,
 * so callers never check.  Ownership passes to the caller: free(). */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* str_ends_with: 1 when the string s ends with suf (both NUL-terminated;
 * every string ends with ""), else 0. */
int str_ends_with(const char *s, const char *suf);
/* xvasprintf: the one formatting routine behind xasprintf, buf_printf
 * and cli_error: a malloc'd formatted string (caller frees), its length
 * in *len; dies when vsnprintf fails.  AP is consumed (va_end is the
 * caller's). */
char *xvasprintf(const char *fmt, va_list ap, size_t *len);

/* xasprintf: malloc'd formatted string (caller frees). */
char *xasprintf(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;

/* GROW: make room for one more element of the array ARR holding N of CAP
 * (both lvalues of type size_t): when it is full, CAP doubles (16 at
 * first) and ARR is reallocated (xrealloc: dies when out of memory).
 * The caller then stores arr[n] and increments n. */
#define GROW(arr, n, cap)                                                      \
	do {                                                                       \
		if ((n) == (cap)) {                                                    \
			(cap) = (cap) ? (cap) * 2 : 16;                                    \
			(arr) = xrealloc((arr), (cap) * sizeof *(arr));                    \
		}                                                                      \
	} while (0)

/* GROW2: GROW for two parallel arrays A and B sharing N and CAP. */
#define GROW2(a, b, n, cap)                                                    \
	do {                                                                       \
		if ((n) == (cap)) {                                                    \
			(cap) = (cap) ? (cap) * 2 : 16;                                    \
			(a) = xrealloc((a), (cap) * sizeof *(a));                          \
			(b) = xrealloc((b), (cap) * sizeof *(b));                          \
		}                                                                      \
	} while (0)

/* Growable byte buffer.  data is always NUL-terminated (len excludes it);
 * owned by the struct: buf_free() releases it. */
struct buf {
	char *data;
	size_t len, cap;
};
void buf_init(struct buf *b);
void buf_add(struct buf *b, const void *p, size_t n);
void buf_puts(struct buf *b, const char *s);
void buf_printf(struct buf *b, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

/* buf_json_str: append S as a JSON string literal, with the escapes
 * jansson's compact dump writes: \" \\ \b \f \n \r \t, other bytes
 * below 0x20 as \u00XX (upper-case hex), everything else as it is (S is
 * UTF-8).  For writers of many JSON rows (jansson's dump costs more
 * than the rest of such a tool; mps-overloads --json). */
void buf_json_str(struct buf *b, const char *s);
void buf_free(struct buf *b);

/* close_stdout: flush and close stdout; on failure (e.g. a full disk,
 * `> /dev/full`) print "prog: write error: REASON" and return
 * MK_EXIT_ERROR, else return status unchanged.  Call it last in main,
 * as jq and sbase do, so truncated output is never reported as success. */
int close_stdout(int status);

#endif
