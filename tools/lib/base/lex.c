/* lex.c — see lex.h. */
#include "base/lex.h"
#include "base/diag.h"

#include <stdlib.h>
#include <string.h>

enum { L_ID0 = 1, L_ID = 2, L_SP = 4 };

/* ASCII classes; bytes >= 0x80 are none of them */
static const unsigned char lcls[256] = {
	['\t'] = L_SP, ['\n'] = L_SP, ['\v'] = L_SP, ['\f'] = L_SP,
	['\r'] = L_SP, [' '] = L_SP,
	['0'] = L_ID, ['1'] = L_ID, ['2'] = L_ID, ['3'] = L_ID, ['4'] = L_ID,
	['5'] = L_ID, ['6'] = L_ID, ['7'] = L_ID, ['8'] = L_ID, ['9'] = L_ID,
	['_'] = L_ID0 | L_ID,
#define L2(c) [c] = L_ID0 | L_ID
	L2('a'), L2('b'), L2('c'), L2('d'), L2('e'), L2('f'), L2('g'), L2('h'),
	L2('i'), L2('j'), L2('k'), L2('l'), L2('m'), L2('n'), L2('o'), L2('p'),
	L2('q'), L2('r'), L2('s'), L2('t'), L2('u'), L2('v'), L2('w'), L2('x'),
	L2('y'), L2('z'),
	L2('A'), L2('B'), L2('C'), L2('D'), L2('E'), L2('F'), L2('G'), L2('H'),
	L2('I'), L2('J'), L2('K'), L2('L'), L2('M'), L2('N'), L2('O'), L2('P'),
	L2('Q'), L2('R'), L2('S'), L2('T'), L2('U'), L2('V'), L2('W'), L2('X'),
	L2('Y'), L2('Z'),
#undef L2
};

static int id0(char c) { return lcls[(unsigned char)c] & L_ID0; }
static int idc(char c) { return lcls[(unsigned char)c] & L_ID; }
static int sp(char c) { return lcls[(unsigned char)c] & L_SP; }

static size_t skip_ws(const char *t, size_t n, size_t i)
{
	while (i < n && sp(t[i]))
		i++;
	return i;
}

static size_t ident_end(const char *t, size_t n, size_t i)
{
	while (i < n && idc(t[i]))
		i++;
	return i;
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

size_t lex_match_close(const char *t, size_t n, size_t open)
{
	size_t q;
	long d = 0;
	for (q = open; q < n; q++) {
		if (t[q] == '"' || t[q] == '\'') {
			q = lex_skip_literal(t, n, q) - 1;
			continue;
		}
		if (t[q] == '(')
			d++;
		else if (t[q] == ')' && --d == 0)
			return q;
	}
	return n;
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
	size_t i = skip_ws(c, b, a + 1), s, e, cl;
	if (b - i < 6 || memcmp(c + i, "define", 6) != 0 ||
	    (i + 6 < b && idc(c[i + 6])))
		return 0;
	s = skip_ws(c, b, i + 6);
	e = ident_end(c, b, s);
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
			i = skip_ws(b, n, i + 2);
			continue;
		}
		if (c == '#') {
			size_t s = skip_ws(b, n, i + 1), e = ident_end(b, n, s);
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
			size_t e = ident_end(b, n, i);
			long k = lex_param_index(mc, b + i, e - i);
			if (k >= 0)
				buf_puts(&o, arg_text(mc, args, na, va, k));
			else
				buf_add(&o, b + i, e - i);
			i = e;
			continue;
		}
		if (c >= '0' && c <= '9') { /* a pp-number is one token */
			size_t e = ident_end(b, n, i);
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
