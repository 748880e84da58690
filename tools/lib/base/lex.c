/* lex.c — see lex.h. */
#include "base/lex.h"
#include "base/diag.h"

#include <stdlib.h>
#include <string.h>

/* ---------------- characters and words ---------------- */

#define I0 (LEX_ID0 | LEX_ID)
const unsigned char lex_cls[256] = {
	['\t'] = LEX_SP, ['\n'] = LEX_SP, ['\v'] = LEX_SP, ['\f'] = LEX_SP,
	['\r'] = LEX_SP, [' '] = LEX_SP,
	['"'] = LEX_QUOTE, ['\''] = LEX_QUOTE,
	['('] = LEX_PAREN, [')'] = LEX_PAREN, ['{'] = LEX_BRACE, ['}'] = LEX_BRACE,
	['['] = LEX_BRACKET, [']'] = LEX_BRACKET, [';'] = LEX_SEMI,
	['0'] = LEX_ID, ['1'] = LEX_ID, ['2'] = LEX_ID, ['3'] = LEX_ID,
	['4'] = LEX_ID, ['5'] = LEX_ID, ['6'] = LEX_ID, ['7'] = LEX_ID,
	['8'] = LEX_ID, ['9'] = LEX_ID, ['_'] = I0,
	['a'] = I0, ['b'] = I0, ['c'] = I0, ['d'] = I0, ['e'] = I0, ['f'] = I0,
	['g'] = I0, ['h'] = I0, ['i'] = I0, ['j'] = I0, ['k'] = I0, ['l'] = I0,
	['m'] = I0, ['n'] = I0, ['o'] = I0, ['p'] = I0, ['q'] = I0, ['r'] = I0,
	['s'] = I0, ['t'] = I0, ['u'] = I0, ['v'] = I0, ['w'] = I0, ['x'] = I0,
	['y'] = I0, ['z'] = I0,
	['A'] = I0, ['B'] = I0, ['C'] = I0, ['D'] = I0, ['E'] = I0, ['F'] = I0,
	['G'] = I0, ['H'] = I0, ['I'] = I0, ['J'] = I0, ['K'] = I0, ['L'] = I0,
	['M'] = I0, ['N'] = I0, ['O'] = I0, ['P'] = I0, ['Q'] = I0, ['R'] = I0,
	['S'] = I0, ['T'] = I0, ['U'] = I0, ['V'] = I0, ['W'] = I0, ['X'] = I0,
	['Y'] = I0, ['Z'] = I0,
};
#undef I0

static int id0(char c) { return lex_id0(c); }
static int idc(char c) { return lex_idc(c); }
static int sp(char c) { return lex_sp(c); }

size_t lex_skip_ws(const char *t, size_t n, size_t i)
{
	while (i < n && sp(t[i]))
		i++;
	return i;
}

size_t lex_back_ws(const char *t, size_t lo, size_t i)
{
	while (i > lo && sp(t[i - 1]))
		i--;
	return i;
}

size_t lex_ident_end(const char *t, size_t n, size_t i)
{
	while (i < n && idc(t[i]))
		i++;
	return i;
}

size_t lex_angle_open(const char *t, size_t lo, size_t e)
{
	long depth = 0;
	size_t x = e;
	while (x > lo) {
		x--;
		if (t[x] == '>')
			depth++;
		else if (t[x] == '<' && --depth == 0)
			return x;
	}
	return lo;
}

int lex_span_is(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w);
	return n == k && memcmp(s, w, k) == 0;
}

int lex_starts_with(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w);
	return n >= k && memcmp(s, w, k) == 0;
}

int lex_ends_with(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w);
	return n >= k && memcmp(s + n - k, w, k) == 0;
}

int lex_word_at(const char *t, size_t n, size_t i, const char *w)
{
	size_t k;
	if (i >= n || t[i] != w[0])
		return 0;
	k = strlen(w);
	return i + k <= n && memcmp(t + i, w, k) == 0 &&
	       (i + k == n || !idc(t[i + k])) && (i == 0 || !idc(t[i - 1]));
}

int lex_is_keyword(const char *s, size_t n)
{
	static const char *const kw[] = {
	    "if", "for", "while", "switch", "return", "sizeof", "catch",
	    "decltype", "alignof", "alignas", "static_assert", "defined", "do",
	    "else", "case", "new", "delete", "throw", "typeid", "noexcept",
	    "__attribute__", "using", "typedef", "co_return", "requires", NULL};
	static const unsigned char len[] = {2, 3, 5, 6, 6, 6, 5, 8, 7, 7, 13, 7,
	                                    2, 4, 4, 3, 6, 5, 6, 8, 13, 5, 7, 9,
	                                    8};
	size_t i;
	if (n < 2 || n > 13 || s[0] < '_' || s[0] > 'w')
		return 0; /* every keyword is 2 to 13 bytes, from '_' to 'w' */
	for (i = 0; kw[i]; i++)
		if (len[i] == n && kw[i][0] == s[0] && memcmp(s, kw[i], n) == 0)
			return 1;
	return 0;
}

/* The bytes lex_match_close stops at for each kind of bracket: the
 * quotes and the bracket pair ([ ] and < > share one table). */
static const unsigned char stop_paren[256] = {
	['"'] = 1, ['\''] = 1, ['('] = 1, [')'] = 1};
static const unsigned char stop_brace[256] = {
	['"'] = 1, ['\''] = 1, ['{'] = 1, ['}'] = 1};
static const unsigned char stop_other[256] = {
	['"'] = 1, ['\''] = 1, ['['] = 1, [']'] = 1, ['<'] = 1, ['>'] = 1};

/* lex_match_close and lex_match_close_quoted: LIT skips a literal */
static size_t match_with(const char *t, size_t n, size_t i, char open,
                         char close,
                         size_t (*lit)(const char *, size_t, size_t))
{
	const unsigned char *stop = open == '(' ? stop_paren
	                            : open == '{' ? stop_brace : stop_other;
	long depth = 0;
	while (i < n) {
		char c;
		/* four bytes a step while four remain, then one */
		while (i + 4 <= n && !stop[(unsigned char)t[i]] &&
		       !stop[(unsigned char)t[i + 1]] &&
		       !stop[(unsigned char)t[i + 2]] &&
		       !stop[(unsigned char)t[i + 3]])
			i += 4;
		while (i < n && !stop[(unsigned char)t[i]])
			i++;
		if (i >= n)
			break;
		c = t[i];
		if (c == '"' || c == '\'') {
			i = lit(t, n, i);
			continue;
		}
		if (c == open)
			depth++;
		else if (c == close && --depth == 0)
			return i;
		i++;
	}
	return n;
}

size_t lex_match_close(const char *t, size_t n, size_t i, char open,
                       char close)
{
	return match_with(t, n, i, open, close, lex_skip_literal);
}

size_t lex_match_close_quoted(const char *t, size_t n, size_t i, char open,
                              char close)
{
	return match_with(t, n, i, open, close, lex_skip_quoted);
}

/* ---------------- literals ---------------- */

size_t lex_raw_string_end(const char *t, size_t n, size_t i)
{
	size_t k, d, dl, j;
	if (i == 0 || t[i - 1] != 'R')
		return 0;
	k = i - 1;
	if (k >= 2 && t[k - 2] == 'u' && t[k - 1] == '8')
		k -= 2;
	else if (k >= 1 && (t[k - 1] == 'L' || t[k - 1] == 'u' || t[k - 1] == 'U'))
		k--;
	if (k > 0 && idc(t[k - 1]))
		return 0;
	for (d = i + 1; d < n && d - (i + 1) <= 16; d++)
		if (t[d] == '(' || t[d] == '"' || t[d] == '\n' || t[d] == ')' ||
		    t[d] == '\\' || sp(t[d]))
			break;
	if (d >= n || t[d] != '(' || d - (i + 1) > 16)
		return 0;
	dl = d - (i + 1);
	for (j = d + 1; j < n; j++)
		if (t[j] == ')' && j + 1 + dl < n &&
		    memcmp(t + j + 1, t + i + 1, dl) == 0 && t[j + 1 + dl] == '"')
			return j + 2 + dl;
	return n;
}

int lex_digit_separator(const char *t, size_t i)
{
	size_t s = i;
	while (s > 0 && idc(t[s - 1]))
		s--;
	if (s == i)
		return 0;
	if (t[s] >= '0' && t[s] <= '9')
		return 1;
	return s > 0 && (t[s - 1] == '\'' || t[s - 1] == '.');
}

size_t lex_skip_quoted(const char *t, size_t n, size_t i)
{
	char q = t[i++];
	while (i < n && t[i] != q && t[i] != '\n') {
		if (t[i] == '\\' && i + 1 < n)
			i++;
		i++;
	}
	return i < n ? i + 1 : n;
}

size_t lex_skip_literal(const char *t, size_t n, size_t i)
{
	if (t[i] == '"') {
		size_t e = lex_raw_string_end(t, n, i);
		if (e)
			return e;
	} else if (lex_digit_separator(t, i)) {
		return i + 1;
	}
	return lex_skip_quoted(t, n, i);
}

/* ---------------- names and argument lists ---------------- */

const char *lex_unqualified(const char *name)
{
	const char *c = strrchr(name, ':');
	return c ? c + 1 : name;
}

char *lex_trim_dup(const char *s, size_t a, size_t b)
{
	while (a < b && sp(s[a]))
		a++;
	while (b > a && sp(s[b - 1]))
		b--;
	return xstrndup(s + a, b - a);
}

char **lex_split_args(const char *t, size_t open, size_t close, size_t *na)
{
	char **v = NULL;
	size_t n = 0, cap = 0, a = open + 1, i = open + 1;
	long depth = 0;
	while (i <= close) {
		char c = t[i];
		if ((c == '"' || c == '\'') && i < close) {
			i = lex_skip_literal(t, close, i);
			continue;
		}
		if (c == '(')
			depth++;
		else if (c == ')' && depth > 0 && i < close)
			depth--;
		else if ((c == ',' && depth == 0) || i == close) {
			GROW(v, n, cap);
			v[n++] = lex_trim_dup(t, a, i);
			a = i + 1;
		}
		i++;
	}
	if (n == 1 && v[0][0] == '\0') {
		free(v[0]);
		free(v);
		v = NULL;
		n = 0;
	}
	*na = n;
	return v;
}

void lex_strv_free(char **v, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* ---------------- directives and function-like macros ---------------- */

size_t lex_directive_end(const char *c, size_t n, size_t j)
{
	size_t e = j, k;
	for (;;) {
		const char *nl = memchr(c + e, '\n', n - e);
		e = nl ? (size_t)(nl - c) : n;
		k = e;
		while (k > j && (c[k - 1] == ' ' || c[k - 1] == '\t' ||
		                 c[k - 1] == '\r'))
			k--;
		if (e < n && k > j && c[k - 1] == '\\') {
			e++;
			continue;
		}
		return e;
	}
}

/* The ')' closing the '(' at t[i] (literals skipped), or n. */
static size_t paren_close(const char *t, size_t n, size_t i)
{
	long depth = 0;
	while (i < n) {
		char c = t[i];
		if (c == '"' || c == '\'') {
			i = lex_skip_literal(t, n, i);
			continue;
		}
		if (c == '(')
			depth++;
		else if (c == ')' && --depth == 0)
			return i;
		i++;
	}
	return n;
}

int lex_define_head(const char *c, size_t a, size_t b, size_t *ns, size_t *ne,
                    size_t *open, size_t *close)
{
	size_t i = lex_skip_ws(c, b, a + 1), s, e, cl;
	if (b - i < 6 || memcmp(c + i, "define", 6) != 0 ||
	    (i + 6 < b && idc(c[i + 6])))
		return 0;
	s = lex_skip_ws(c, b, i + 6);
	e = lex_ident_end(c, b, s);
	if (e == s || !id0(c[s]) || e >= b || c[e] != '(')
		return 0; /* object-like */
	cl = paren_close(c, b, e);
	if (cl >= b)
		return 0;
	*ns = s;
	*ne = e;
	*open = e;
	*close = cl;
	return 1;
}

void lex_define_take(const char *c, size_t b, size_t ns, size_t ne,
                     size_t open, size_t close, struct lex_macro *mc)
{
	struct buf body;
	size_t k;

	memset(mc, 0, sizeof *mc);
	mc->name = xstrndup(c + ns, ne - ns);
	mc->params = lex_split_args(c, open, close, &mc->np);
	if (mc->np && strcmp(mc->params[mc->np - 1], "...") == 0) {
		mc->variadic = 1;
		free(mc->params[mc->np - 1]);
		mc->params[mc->np - 1] = xstrdup("__VA_ARGS__");
	}
	/* the body: a continuation backslash and its line end become one
	 * blank; the bytes between are copied a run at a time */
	buf_init(&body);
	for (k = close + 1; k < b;) {
		size_t r = k, q;
		while (r < b && c[r] != '\\' && c[r] != '\n')
			r++;
		buf_add(&body, c + k, r - k);
		if (r >= b)
			break;
		k = r + 1;
		if (c[r] == '\\') {
			q = r + 1;
			while (q < b && (c[q] == ' ' || c[q] == '\t' || c[q] == '\r'))
				q++;
			if (q == b || c[q] == '\n') {
				buf_add(&body, " ", 1);
				k = q + 1;
			} else {
				buf_add(&body, c + r, 1);
			}
		} else {
			buf_add(&body, " ", 1);
		}
	}
	mc->body = lex_trim_dup(body.data ? body.data : "", 0, body.len);
	buf_free(&body);
}

void lex_macro_free(struct lex_macro *mc)
{
	free(mc->name);
	lex_strv_free(mc->params, mc->np);
	free(mc->body);
	memset(mc, 0, sizeof *mc);
}

long lex_param_index(const struct lex_macro *mc, const char *s, size_t n)
{
	size_t i, k;
	for (i = 0; i < mc->np; i++) {
		k = strlen(mc->params[i]);
		if (k == n && memcmp(mc->params[i], s, n) == 0)
			return (long)i;
	}
	return -1;
}

/* the text an argument reference k stands for */
static const char *arg_text(const struct lex_macro *mc, char *const *args,
                            size_t na, const char *va, long k)
{
	if (mc->variadic && (size_t)k == mc->np - 1)
		return va;
	return (size_t)k < na ? args[k] : "";
}

char *lex_expand(const struct lex_macro *mc, char *const *args, size_t na)
{
	struct buf o;
	const char *b = mc->body;
	size_t n = strlen(b), i = 0;
	char *va = NULL;

	if (mc->variadic) {
		struct buf v;
		size_t k;
		buf_init(&v);
		for (k = mc->np - 1; k < na; k++) {
			if (k > mc->np - 1)
				buf_puts(&v, ", ");
			buf_puts(&v, args[k]);
		}
		va = v.data ? v.data : xstrdup("");
	}
	buf_init(&o);
	while (i < n) {
		char c = b[i];
		if (c == '"' || c == '\'') {
			size_t e = lex_skip_literal(b, n, i);
			buf_add(&o, b + i, e - i);
			i = e;
			continue;
		}
		if (c == '#' && i + 1 < n && b[i + 1] == '#') {
			while (o.len && sp(o.data[o.len - 1]))
				o.data[--o.len] = '\0';
			i = lex_skip_ws(b, n, i + 2);
			continue;
		}
		if (c == '#') {
			size_t s = lex_skip_ws(b, n, i + 1), e = lex_ident_end(b, n, s);
			long k = lex_param_index(mc, b + s, e - s);
			if (k >= 0) {
				const char *a = arg_text(mc, args, na, va, k);
				buf_add(&o, "\"", 1);
				for (; *a; a++) {
					if (*a == '"' || *a == '\\')
						buf_add(&o, "\\", 1);
					buf_add(&o, a, 1);
				}
				buf_add(&o, "\"", 1);
				i = e;
				continue;
			}
			buf_add(&o, "#", 1);
			i++;
			continue;
		}
		if (id0(c)) {
			size_t e = lex_ident_end(b, n, i);
			long k = lex_param_index(mc, b + i, e - i);
			if (k >= 0)
				buf_puts(&o, arg_text(mc, args, na, va, k));
			else
				buf_add(&o, b + i, e - i);
			i = e;
			continue;
		}
		if (c >= '0' && c <= '9') { /* a pp-number is one token */
			size_t e = lex_ident_end(b, n, i);
			buf_add(&o, b + i, e - i);
			i = e;
			continue;
		}
		{ /* a run of other bytes, copied at once */
			size_t r = i + 1;
			while (r < n && b[r] != '"' && b[r] != '\'' && b[r] != '#' &&
			       !idc(b[r]))
				r++;
			buf_add(&o, b + i, r - i);
			i = r;
		}
	}
	free(va);
	return o.data ? o.data : xstrdup("");
}
