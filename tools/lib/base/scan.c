/* scan.c — see scan.h.
 *
 * mask_code is a single forward pass with a small state machine; it never
 * changes the length of the text, so byte offsets found in the masked
 * copy are valid in the original.
 */
#include "base/scan.h"
#include "base/diag.h"
#include "base/lex.h"
#include "base/walk.h"

#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* read_with: the body of read_file and read_regular_file: open PATH with
 * O_RDONLY | FLAGS; refuse a folder (EISDIR), with REGULAR anything but a
 * regular file (EINVAL), with MAX a file of more than MAX bytes (EFBIG) */
static int read_with(const char *path, int flags, int regular, size_t max,
                     char **data, size_t *len)
{
	struct stat st;
	size_t cap, n = 0;
	char *p;
	int fd, saved;

	fd = open(path, O_RDONLY | flags);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0)
		goto fail;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		goto fail;
	}
	if (regular && !S_ISREG(st.st_mode)) {
		errno = EINVAL;
		goto fail;
	}
	if (max && st.st_size > 0 && (uintmax_t)st.st_size > max) {
		errno = EFBIG;
		goto fail;
	}
	/* the size, the NUL, and one byte more so that the read which finds
	 * the end needs no bigger buffer */
	cap = (st.st_size > 0 ? (size_t)st.st_size : 0) + 2;
	p = xmalloc(cap);
	for (;;) {
		ssize_t r;
		if (n + 1 >= cap) {
			cap = cap < 4096 ? 4096 : cap * 2;
			p = xrealloc(p, cap);
		}
		r = read(fd, p + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || (max && n + (size_t)r > max)) {
			saved = r < 0 ? errno : EFBIG;
			free(p);
			close(fd);
			errno = saved;
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	p[n] = '\0';
	*data = p;
	*len = n;
	return 0;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

int read_file(const char *path, char **data, size_t *len)
{
	return read_with(path, 0, 0, 0, data, len);
}

int read_regular_file(const char *path, size_t max, char **data, size_t *len)
{
	return read_with(path, O_NONBLOCK, 1, max, data, len);
}

int read_source_file(const char *path, char **data, size_t *len)
{
	if (read_file(path, data, len) != 0) {
		warnx_("cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (memchr(*data, '\0', *len)) {
		/* the wording of mps-register's check */
		warnx_("error: '%s' is not a text file (it holds a NUL byte)", path);
		free(*data);
		*data = NULL;
		return -1;
	}
	return 0;
}

int read_source_into(const char *path, char **buf, size_t *cap, size_t *len)
{
	struct stat st;
	size_t n = 0;
	int fd = open(path, O_RDONLY), saved;

	if (fd < 0 || fstat(fd, &st) != 0)
		goto fail;
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		goto fail;
	}
	for (;;) {
		ssize_t r;
		/* the size, the NUL, and one byte more so that the read which
		 * finds the end needs no bigger buffer; 64 KiB steps */
		size_t want = (st.st_size > 0 ? (size_t)st.st_size : 0) + 2;
		if (n + 2 > want)
			want = n + 2;
		if (want > *cap) {
			*cap = (want + 65535) & ~(size_t)65535;
			*buf = xrealloc(*buf, *cap);
		}
		r = read(fd, *buf + n, *cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto fail;
		if (r == 0)
			break;
		n += (size_t)r;
		if (n + 1 >= *cap)
			st.st_size = (off_t)(*cap * 2); /* it grew: room for more */
	}
	close(fd);
	(*buf)[n] = '\0';
	*len = n;
	if (memchr(*buf, '\0', n)) {
		/* the wording of mps-register's check */
		warnx_("error: '%s' is not a text file (it holds a NUL byte)", path);
		return -1;
	}
	return 0;
fail:
	saved = errno;
	if (fd >= 0)
		close(fd);
	warnx_("cannot open '%s': %s", path, strerror(saved));
	return -1;
}

/* the largest source file a question is asked of */
#define MAX_SOURCE ((size_t)16 << 20)

int source_file_test(const char *path, const char *needle, text_test_fn test,
                     const void *arg)
{
	char *t, *m;
	size_t len, n = strlen(needle), i;
	int r = 0;
	if (read_regular_file(path, MAX_SOURCE, &t, &len) != 0)
		return 0;
	for (i = 0; i + n <= len; i++)
		if (t[i] == needle[0] && memcmp(t + i, needle, n) == 0)
			break;
	if (i + n <= len) {
		m = mask_code(t, len, LANG_C);
		r = test(m, len, arg);
		free(m);
	}
	free(t);
	return r;
}

char *first_source_file(const char *root, const char *rel, int depth,
                        const char *const *sufs, const char *needle,
                        text_test_fn test, const void *arg)
{
	struct walk_list l;
	char *found = NULL;
	size_t i;
	if (walk_files(root, rel, depth, NULL, sufs, &l) != 0)
		return NULL;
	for (i = 0; i < l.n && !found; i++) {
		char *p = xasprintf("%s/%s", root, l.paths[i]);
		if (source_file_test(p, needle, test, arg))
			found = xstrdup(l.paths[i]);
		free(p);
	}
	walk_free(&l);
	return found;
}

/* ---- PCRE2 ---- */

/* One JIT stack shared by every pattern (the tools are single-threaded);
 * larger than PCRE2's 32 KiB default, as pcre2grep does, so long files do
 * not hit the JIT stack limit. */
static pcre2_match_context *mctx;
static pcre2_jit_stack *jstack;

void re_compile(struct mk_re *re, const char *pattern, unsigned options)
{
	int err;
	PCRE2_SIZE erroff;
	uint32_t jit = 0;

	re->code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
	                         options, &err, &erroff, NULL);
	if (!re->code) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(err, msg, sizeof msg);
		die("internal error: pattern '%s' does not compile at offset "
		    "%lu: %s", pattern, (unsigned long)erroff, (char *)msg);
	}
	/* MK_PCRE2_NO_JIT set: interpreter only (see scan.h) */
	if (pcre2_config(PCRE2_CONFIG_JIT, &jit) >= 0 && jit &&
	    !getenv("MK_PCRE2_NO_JIT") &&
	    pcre2_jit_compile(re->code, PCRE2_JIT_COMPLETE) == 0) {
		if (!mctx) {
			mctx = pcre2_match_context_create(NULL);
			jstack = pcre2_jit_stack_create(32 * 1024,
			                                4 * 1024 * 1024, NULL);
			if (!mctx)
				die("out of memory");
			if (jstack)
				pcre2_jit_stack_assign(mctx, NULL, jstack);
		}
	}
	/* else: the interpreter runs the pattern (pcre2_match picks it). */
	re->md = pcre2_match_data_create_from_pattern(re->code, NULL);
	if (!re->md)
		die("out of memory");
}

int re_match(struct mk_re *re, const char *subject, size_t len, size_t start,
             size_t *ov, size_t nov)
{
	int rc;
	size_t i, groups;
	PCRE2_SIZE *v;

	if (!subject) {
		subject = "";
		len = 0;
	}
	if (start > len)
		return 0;
	rc = pcre2_match(re->code, (PCRE2_SPTR)subject, len, start, 0, re->md,
	                 mctx);
	if (rc == PCRE2_ERROR_NOMATCH)
		return 0;
	if (rc < 0) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(rc, msg, sizeof msg);
		die("pattern match failed: %s", (char *)msg);
	}
	groups = pcre2_get_ovector_count(re->md);
	v = pcre2_get_ovector_pointer(re->md);
	for (i = 0; i < nov; i++) {
		if (i < groups && (rc == 0 || i < (size_t)rc)) {
			ov[2 * i] = v[2 * i];
			ov[2 * i + 1] = v[2 * i + 1];
		} else {
			ov[2 * i] = ov[2 * i + 1] = PCRE2_UNSET;
		}
	}
	return 1;
}

void re_free(struct mk_re *re)
{
	pcre2_match_data_free(re->md);
	pcre2_code_free(re->code);
	re->md = NULL;
	re->code = NULL;
}

/* ---- masking ---- */

static int is_ident(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
}

static int is_hspace(char c)
{
	return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r';
}

/* is_hspace as a table */
static const unsigned char hspace_byte[256] = {
	[' '] = 1, ['\t'] = 1, ['\f'] = 1, ['\v'] = 1, ['\r'] = 1};

/* Blank out [a, b) of out, keeping line ends: a line at a time, with
 * memset where the line holds no carriage return. */
static void blank(char *out, size_t a, size_t b)
{
	while (a < b) {
		const char *nl = memchr(out + a, '\n', b - a);
		size_t e = nl ? (size_t)(nl - out) : b;
		if (!memchr(out + a, '\r', e - a)) {
			memset(out + a, ' ', e - a);
		} else {
			for (; a < e; a++)
				if (out[a] != '\r')
					out[a] = ' ';
		}
		a = e + 1;
	}
}

/* Backslash-newline (LF or CRLF) at i: its length, else 0. */
static size_t splice_at(const char *s, size_t len, size_t i)
{
	if (i < len && s[i] == '\\') {
		if (i + 1 < len && s[i + 1] == '\n')
			return 2;
		if (i + 2 < len && s[i + 1] == '\r' && s[i + 2] == '\n')
			return 3;
	}
	return 0;
}

/* The directive keyword after '#' at s[i]: sets [*ks, *ke). */
static void directive_word(const char *s, size_t len, size_t i, size_t *ks,
                           size_t *ke)
{
	size_t j = i + 1;
	while (j < len && (s[j] == ' ' || s[j] == '\t'))
		j++;
	*ks = j;
	while (j < len && is_ident((unsigned char)s[j]))
		j++;
	*ke = j;
}

static int word_is(const char *s, size_t ks, size_t ke, const char *w)
{
	size_t n = strlen(w);
	return ke - ks == n && memcmp(s + ks, w, n) == 0;
}

/* Is the '#' at s[i] the start of `#if 0` (or `#if (0)`)? */
static int is_if0(const char *s, size_t len, size_t i)
{
	size_t ks, ke, j;

	directive_word(s, len, i, &ks, &ke);
	if (!word_is(s, ks, ke, "if"))
		return 0;
	j = ke;
	while (j < len && (s[j] == ' ' || s[j] == '\t'))
		j++;
	if (j + 2 < len && s[j] == '(' && s[j + 1] == '0' && s[j + 2] == ')')
		j += 3;
	else if (j > ke && j < len && s[j] == '0')
		j++;
	else
		return 0;
	return j == len || is_hspace(s[j]) || s[j] == '\n' || s[j] == '/';
}

/* Skip a literal closed on the same line in a disabled group: the index
 * just after the closing quote, or i + 1 when it is not closed there. */
static size_t skip_line_literal(const char *s, size_t len, size_t i)
{
	char q = s[i];
	size_t j = i + 1;
	while (j < len && s[j] != '\n') {
		if (s[j] == '\\' && j + 1 < len && s[j + 1] != '\n')
			j += 2;
		else if (s[j] == q)
			return j + 1;
		else
			j++;
	}
	return i + 1;
}

/* Blank the disabled group that starts at line start p (just after the
 * `#if 0` line) up to the `#else`, `#elif` or `#endif` that closes it at
 * the same nesting depth.  Returns the start of that directive's line
 * (the caller scans it as live code), or len when the file ends first. */
static size_t skip_group(const char *s, size_t len, char *out, size_t p)
{
	int depth = 0, in_block = 0, cont = 0;

	while (p < len) {
		size_t i = p, ks, ke;

		if (!in_block && !cont) {
			while (i < len && (s[i] == ' ' || s[i] == '\t'))
				i++;
			if (i < len && s[i] == '#') {
				directive_word(s, len, i, &ks, &ke);
				if (word_is(s, ks, ke, "if") ||
				    word_is(s, ks, ke, "ifdef") ||
				    word_is(s, ks, ke, "ifndef"))
					depth++;
				else if (word_is(s, ks, ke, "endif")) {
					if (depth == 0)
						return p;
					depth--;
				} else if ((word_is(s, ks, ke, "else") ||
				            word_is(s, ks, ke, "elif") ||
				            word_is(s, ks, ke, "elifdef") ||
				            word_is(s, ks, ke, "elifndef")) &&
				           depth == 0)
					return p;
			}
		}
		/* blank this physical line; a line ending in a backslash
		 * continues the logical line (no directive on the next one) */
		cont = 0;
		i = p;
		while (i < len && s[i] != '\n') {
			size_t sp = splice_at(s, len, i);
			if (sp) {
				cont = 1;
				i += sp - 1; /* stop at the newline */
				break;
			}
			if (in_block) {
				if (s[i] == '*' && i + 1 < len && s[i + 1] == '/') {
					in_block = 0;
					i += 2;
				} else
					i++;
			} else if (s[i] == '/' && i + 1 < len && s[i + 1] == '*') {
				in_block = 1;
				i += 2;
			} else if (s[i] == '/' && i + 1 < len && s[i + 1] == '/') {
				while (i < len && s[i] != '\n' &&
				       !splice_at(s, len, i))
					i++;
			} else if (s[i] == '"' || s[i] == '\'') {
				i = skip_line_literal(s, len, i);
			} else
				i++;
		}
		if (i < len)
			i++; /* the newline */
		blank(out, p, i);
		p = i;
	}
	return len;
}

/* C++ raw string starting with the '"' at s[i] (prefix R already seen):
 * the index after its closing quote, or len when unterminated. */
static size_t skip_raw_string(const char *s, size_t len, size_t i)
{
	size_t d = i + 1, dl, j;

	while (d < len && s[d] != '(' && s[d] != '"' && s[d] != '\n' &&
	       d - (i + 1) <= 16)
		d++;
	if (d >= len || s[d] != '(')
		return i + 1; /* not a valid raw string: treat '"' as ordinary */
	dl = d - (i + 1);
	for (j = d + 1; j < len; j++) {
		if (s[j] == ')' && j + 1 + dl < len &&
		    memcmp(s + j + 1, s + i + 1, dl) == 0 &&
		    s[j + 1 + dl] == '"')
			return j + 2 + dl;
	}
	return len;
}

/* Is the '"' at s[i] the opening quote of a raw string (R, LR, uR, UR,
 * u8R prefix forming a whole token)? */
static int raw_prefix(const char *s, size_t i)
{
	size_t k;

	if (i == 0 || s[i - 1] != 'R')
		return 0;
	k = i - 1; /* at 'R' */
	if (k >= 2 && s[k - 2] == 'u' && s[k - 1] == '8')
		k -= 2;
	else if (k >= 1 && (s[k - 1] == 'L' || s[k - 1] == 'u' ||
	                    s[k - 1] == 'U'))
		k -= 1;
	return k == 0 || !is_ident((unsigned char)s[k - 1]);
}

/* Is the '\'' at s[i] a C++14 digit separator (inside a number)?
 * *memo_at / *memo_from: the previous call walked back from *memo_at to
 * *memo_from; a walk reaching *memo_at jumps there, so a long run like
 * 1'1'1'... costs linear, not quadratic, time (found while fuzzing mask_code). */
static int digit_sep(const char *s, size_t i, size_t *memo_at,
                     size_t *memo_from)
{
	size_t k = i;

	if (i == 0 || !is_ident((unsigned char)s[i - 1]))
		return 0;
	while (k > 0 && (is_ident((unsigned char)s[k - 1]) ||
	                 s[k - 1] == '\'' || s[k - 1] == '.')) {
		if (k - 1 == *memo_at) {
			k = *memo_from;
			break;
		}
		k--;
	}
	*memo_at = i;
	*memo_from = k;
	return s[k] >= '0' && s[k] <= '9';
}

/* Quoted literal at s[i] (quote q): index after its closing quote; stops
 * at an unescaped newline (unterminated literal) without consuming it.
 * *edge (when EDGE is not NULL) is set when a backslash before a line
 * end continues the literal on the next line. */
static size_t skip_literal(const char *s, size_t len, size_t i, int *edge)
{
	char q = s[i];
	size_t j = i + 1;

	while (j < len) {
		if (s[j] == '\\' && j + 1 < len) {
			if (edge && (s[j + 1] == '\n' || s[j + 1] == '\r'))
				*edge = 1;
			j += 2;
			if (s[j - 1] == '\r' && j < len && s[j] == '\n')
				j++;
		} else if (s[j] == q)
			return j + 1;
		else if (s[j] == '\n')
			return j;
		else
			j++;
	}
	return len;
}

/* The bytes mask_c looks at: those that may start a comment, a literal,
 * a splice or a directive, and the NUL that ends the copy being written
 * (a NUL inside the text is passed over as any other byte); with braces
 * to list, the braces too.  Line ends are not among them: whether a '#'
 * begins its line is found looking back from it (line_start). */
static const unsigned char mask_stop[256] = {
	['\\'] = 1, ['#'] = 1, ['/'] = 1, ['"'] = 1, ['\''] = 1, ['\0'] = 1};
static const unsigned char mask_stop_br[256] = {
	['\\'] = 1, ['#'] = 1, ['/'] = 1, ['"'] = 1, ['\''] = 1, ['\0'] = 1,
	['{'] = 1, ['}'] = 1};
/* the same while an `#if 0` line is read: its end starts the group */
static const unsigned char mask_stop_nl[256] = {
	['\\'] = 1, ['\n'] = 1, ['/'] = 1, ['"'] = 1, ['\''] = 1, ['\0'] = 1};
static const unsigned char mask_stop_nl_br[256] = {
	['\\'] = 1, ['\n'] = 1, ['/'] = 1, ['"'] = 1, ['\''] = 1, ['\0'] = 1,
	['{'] = 1, ['}'] = 1};

/* The end of the line comment starting at s[i]: the first newline that
 * is not spliced by a backslash (LF or CRLF) before it, or len. */
static size_t line_comment_end(const char *s, size_t len, size_t i)
{
	for (;;) {
		const char *nl = memchr(s + i, '\n', len - i);
		size_t k;
		if (!nl)
			return len;
		k = (size_t)(nl - s);
		if (s[k - 1] == '\\' || (s[k - 1] == '\r' && s[k - 2] == '\\')) {
			i = k + 1;
			continue;
		}
		return k;
	}
}

/* Does s[i] begin its logical line: only blanks before it since the
 * line's start (splices joining physical lines count as blanks)?  TOK:
 * the end of the last comment, literal or other token mask_c read; the
 * bytes before it are not looked at (a comment may be blanked already). */
static int line_start(const char *s, size_t i, size_t tok)
{
	size_t k = i;
	for (;;) {
		char c;
		if (k == 0)
			return 1;
		if (k <= tok)
			return 0;
		c = s[k - 1];
		if (hspace_byte[(unsigned char)c]) {
			k--;
			continue;
		}
		if (c != '\n')
			return 0;
		/* a splice (its backslash not the end of a token read, such as
		 * an escape in a literal): the line goes on before it */
		if (k >= 2 && k - 2 >= tok && s[k - 2] == '\\')
			k -= 2;
		else if (k >= 3 && k - 3 >= tok && s[k - 2] == '\r' && s[k - 3] == '\\')
			k -= 3;
		else
			return 1;
	}
}

/* Mask s into out (a copy of s, or s itself: every byte is read before
 * it is blanked, and the look-backs of raw_prefix and digit_sep stop at
 * a blanked byte as at the comment's last byte it replaced).  out[len]
 * is a NUL.  BR (may be NULL): the braces met in code are listed there. */
static void mask_c(const char *s, size_t len, char *out, struct mask_braces *br)
{
	size_t i = 0;
	size_t tok = 0;     /* just past the last token read (line_start) */
	int pending = 0;    /* an `#if 0` line is being read */
	size_t memo_at = (size_t)-1, memo_from = 0; /* see digit_sep */
	const unsigned char *stop = br ? mask_stop_br : mask_stop;
	const unsigned char *stop_nl = br ? mask_stop_nl_br : mask_stop_nl;
	int *edge = br ? &br->edge : NULL;

	while (i < len) {
		char c;
		size_t sp;

		/* only the stop bytes matter; out equals s from i on and ends
		 * with a NUL, which stops the scan */
		i = lex_next_stop(out, i, pending ? stop_nl : stop);
		if (i >= len)
			break;
		c = s[i];
		if (c == '\0') {
			i++;
			continue;
		}
		sp = splice_at(s, len, i);
		if (sp) {
			i += sp;
			continue;
		}
		if (c == '\n') { /* the end of an `#if 0` line */
			pending = 0;
			i = skip_group(s, len, out, i + 1);
			continue;
		}
		if (c == '#') {
			if (line_start(s, i, tok) && is_if0(s, len, i))
				pending = 1;
			tok = ++i;
			continue;
		}
		if (br && (c == '{' || c == '}')) {
			if (br->n == br->cap) {
				/* C++ has about one brace in 40 bytes */
				br->cap = br->cap ? br->cap * 2 : len / 32 + 64;
				br->pos = xrealloc(br->pos, br->cap * sizeof *br->pos);
			}
			br->pos[br->n++] = i++;
			tok = i;
			continue;
		}
		if (c == '/' && i + 1 < len && s[i + 1] == '/') {
			size_t j = line_comment_end(s, len, i + 2);
			blank(out, i, j);
			i = j;
		} else if (c == '/' && i + 1 < len && s[i + 1] == '*') {
			size_t j = i + 2;
			for (;;) {
				const char *st = j < len ? memchr(s + j, '*', len - j) : NULL;
				if (!st) {
					j = len;
					break;
				}
				j = (size_t)(st - s);
				if (j + 1 < len && s[j + 1] == '/') {
					j += 2;
					break;
				}
				j++;
			}
			blank(out, i, j);
			i = j;
		} else if (c == '"') {
			if (edge && i > 0 && s[i - 1] == 'R')
				*edge = 1;
			i = raw_prefix(s, i) ? skip_raw_string(s, len, i)
			                     : skip_literal(s, len, i, edge);
		} else if (c == '\'') {
			if (edge && i > 0 && is_ident((unsigned char)s[i - 1]))
				*edge = 1;
			i = digit_sep(s, i, &memo_at, &memo_from)
			        ? i + 1
			        : skip_literal(s, len, i, edge);
		} else
			i++;
		tok = i;
	}
}

static void mask_python(const char *s, size_t len, char *out)
{
	size_t i = 0;

	while (i < len) {
		char c = s[i];

		if (c == '#') {
			size_t j = i;
			while (j < len && s[j] != '\n')
				j++;
			blank(out, i, j);
			i = j;
		} else if (c == '"' || c == '\'') {
			if (i + 2 < len && s[i + 1] == c && s[i + 2] == c) {
				size_t j = i + 3;
				while (j < len) {
					if (s[j] == '\\' && j + 1 < len)
						j += 2;
					else if (s[j] == c && j + 2 < len &&
					         s[j + 1] == c && s[j + 2] == c) {
						j += 3;
						break;
					} else
						j++;
				}
				i = j < len ? j : len;
			} else
				i = skip_literal(s, len, i, NULL);
		} else
			i++;
	}
}

void mask_code_into(char *out, const char *src, size_t len,
                    enum scan_lang lang)
{
	memcpy(out, src, len);
	out[len] = '\0';
	if (lang == LANG_PYTHON)
		mask_python(src, len, out);
	else
		mask_c(src, len, out, NULL);
}

char *mask_code(const char *src, size_t len, enum scan_lang lang)
{
	char *out = xmalloc(len + 1);
	mask_code_into(out, src, len, lang);
	return out;
}

void mask_code_in_place(char *text, size_t len, struct mask_braces *br)
{
	if (br)
		memset(br, 0, sizeof *br);
	mask_c(text, len, text, br);
}

void mask_code_again(char *text, size_t len, struct mask_braces *br)
{
	br->n = 0;
	br->edge = 0;
	mask_c(text, len, text, br);
}

void mask_braces_free(struct mask_braces *br)
{
	free(br->pos);
	memset(br, 0, sizeof *br);
}

size_t last_le(const size_t *v, size_t n, size_t x)
{
	size_t lo = 0, hi = n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

size_t text_line_start(const char *t, size_t off)
{
	while (off > 0 && t[off - 1] != '\n')
		off--;
	return off;
}

size_t text_next_line(const char *t, size_t len, size_t off)
{
	const char *nl = off < len ? memchr(t + off, '\n', len - off) : NULL;
	return nl ? (size_t)(nl - t) + 1 : len;
}

int text_blank(const char *t, size_t a, size_t b)
{
	for (; a < b; a++)
		if (t[a] != ' ' && t[a] != '\t' && t[a] != '\r' && t[a] != '\n')
			return 0;
	return 1;
}

void line_col(const char *src, size_t off, unsigned long *line,
              unsigned long *col)
{
	unsigned long l = 1;
	size_t i, bol = 0;

	for (i = 0; i < off; i++)
		if (src[i] == '\n') {
			l++;
			bol = i + 1;
		}
	*line = l;
	*col = (unsigned long)(off - bol) + 1;
}

int re_has_match(const char *pattern, unsigned options, const char *t,
                 size_t len)
{
	struct mk_re re;
	size_t ov[2];
	int r;
	re_compile(&re, pattern, options);
	r = re_match(&re, t, len, 0, ov, 1);
	re_free(&re);
	return r;
}
