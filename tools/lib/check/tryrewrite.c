/* tryrewrite.c — try.h's try_rewrite: the four textual rewrites of the
 * Metal host layer's REWRITES.md, applied to every Metal source mps-try
 * copies before the host compiler reads it.  All keep every line break.
 *
 * Code is told from comments by mask_code (scan.h: comments become
 * spaces, literals are kept); literals are skipped with lex_skip_literal
 * (lex.h: a quote right after a number's digits is a digit separator, not
 * a literal), as REWRITES.md asks. */
#include "check/try.h"
#include "base/diag.h"
#include "base/lex.h"
#include "base/scan.h"

#include <ctype.h>
#include <string.h>

static int idc(int c) { return isalnum(c) || c == '_'; }

/* t[i] starts the `#` of a directive line: is it #include?  Sets *end to
 * the directive's end. */
static int include_line(const char *m, size_t n, size_t i, size_t *end)
{
	size_t j = i + 1;
	while (j < n && (m[j] == ' ' || m[j] == '\t'))
		j++;
	*end = lex_directive_end(m, n, i);
	return n - j >= 7 && strncmp(m + j, "include", 7) == 0 &&
	       (j + 7 == n || !idc((unsigned char)m[j + 7]));
}

/* m[i..]: the index after whitespace and backslash-newlines */
static size_t skip_blanks(const char *m, size_t n, size_t i)
{
	for (;;) {
		if (i < n && isspace((unsigned char)m[i]))
			i++;
		else if (i + 1 < n && m[i] == '\\' &&
		         (m[i + 1] == '\n' || (m[i + 1] == '\r' && i + 2 < n && m[i + 2] == '\n')))
			i += 2;
		else
			return i;
	}
}

/* is the whole word W at m[i] (i < n)? */
static int word_at(const char *m, size_t n, size_t i, const char *w)
{
	size_t k = strlen(w);
	return n - i >= k && strncmp(m + i, w, k) == 0 && (i + k == n || !idc((unsigned char)m[i + k])) &&
	       (i == 0 || !idc((unsigned char)m[i - 1]));
}

/* rule 3: the word at m[i..i+k) has the word W right before or right
 * after it (only whitespace and backslash-newlines between) */
static int beside(const char *m, size_t n, size_t i, size_t k, const char *w)
{
	size_t a = skip_blanks(m, n, i + k), b = i, wl = strlen(w);
	if (a < n && word_at(m, n, a, w))
		return 1;
	/* backwards: blanks, and a backslash before a newline */
	while (b > 0) {
		unsigned char c = (unsigned char)m[b - 1];
		if (isspace(c))
			b--;
		else if (c == '\\' && b < i && (m[b] == '\n' || m[b] == '\r'))
			b--;
		else
			break;
	}
	return b >= wl && word_at(m, n, b - wl, w);
}

/* rule 4: the word at m[i..i+k) is a swizzle (2 to 4 letters, all of
 * "xyzw" or all of "rgba") right after a member access `.` or `->`
 * (blanks between allowed): writes its component indices to idx and
 * returns 1 */
static int swizzle_at(const char *m, size_t n, size_t i, size_t k, int *idx)
{
	static const char *const sets[2] = {"xyzw", "rgba"};
	size_t b = i, q;
	int s;
	(void)n;
	if (k < 2 || k > 4)
		return 0;
	for (s = 0; s < 2; s++) {
		for (q = 0; q < k; q++) {
			const char *p = strchr(sets[s], m[i + q]);
			if (!p || !m[i + q])
				break;
			idx[q] = (int)(p - sets[s]);
		}
		if (q == k)
			break;
	}
	if (s == 2)
		return 0;
	while (b > 0 && isspace((unsigned char)m[b - 1]))
		b--;
	if (b >= 1 && m[b - 1] == '.')
		return !(b >= 2 && (m[b - 2] == '.' || isdigit((unsigned char)m[b - 2])));
	return b >= 2 && m[b - 1] == '>' && m[b - 2] == '-';
}

/* rule 4: m[e..] (after a swizzle) starts an assignment: `=` (not `==`)
 * or a compound assignment */
static int assigned_at(const char *m, size_t n, size_t e)
{
	static const char *const ops[] = {"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="};
	size_t j = skip_blanks(m, n, e), q;
	if (j < n && m[j] == '=')
		return !(j + 1 < n && m[j + 1] == '=');
	for (q = 0; q < sizeof ops / sizeof *ops; q++)
		if (n - j >= strlen(ops[q]) && !strncmp(m + j, ops[q], strlen(ops[q])))
			return 1;
	return 0;
}

/* m[i..] after the word `template`: the index of `[[` when whitespace and
 * backslash-newlines, then `[[`, blanks, and the word host_name follow
 * (rule 1), else 0 */
static size_t host_name_after(const char *m, size_t n, size_t i)
{
	size_t j;
	i = skip_blanks(m, n, i);
	if (i + 1 >= n || m[i] != '[' || m[i + 1] != '[')
		return 0;
	j = i + 2;
	while (j < n && isspace((unsigned char)m[j]))
		j++;
	if (n - j < 9 || strncmp(m + j, "host_name", 9) != 0 ||
	    (j + 9 < n && idc((unsigned char)m[j + 9])))
		return 0;
	return i;
}

/* the index after the `]]` matching the `[[` at m[i] (parentheses
 * balanced, literals skipped), or 0 when there is none */
static size_t attribute_end(const char *m, size_t n, size_t i)
{
	size_t k = i + 2;
	long depth = 0;
	while (k < n) {
		if (m[k] == '"' || m[k] == '\'') {
			k = lex_skip_literal(m, n, k);
			continue;
		}
		if (m[k] == '(')
			depth++;
		else if (m[k] == ')')
			depth--;
		else if (depth <= 0 && m[k] == ']' && k + 1 < n && m[k + 1] == ']')
			return k + 2;
		k++;
	}
	return 0;
}

/* digits of base HEX (or decimal) with C++14 separators between them,
 * from t[i]: the index after them */
static size_t digits(const char *t, size_t n, size_t i, int hex)
{
	while (i < n) {
		int c = (unsigned char)t[i];
		if (hex ? isxdigit(c) : isdigit(c))
			i++;
		else if (c == '\'' && i > 0 && i + 1 < n &&
		         (hex ? isxdigit((unsigned char)t[i - 1]) && isxdigit((unsigned char)t[i + 1])
		              : isdigit((unsigned char)t[i - 1]) && isdigit((unsigned char)t[i + 1])))
			i++;
		else
			break;
	}
	return i;
}

/* an exponent (e/E or p/P, optional sign, decimal digits) at t[i]: the
 * index after it, or i when there is none */
static size_t exponent(const char *t, size_t n, size_t i, int hex)
{
	size_t j = i, d;
	if (j >= n || (hex ? (t[j] != 'p' && t[j] != 'P') : (t[j] != 'e' && t[j] != 'E')))
		return i;
	j++;
	if (j < n && (t[j] == '+' || t[j] == '-'))
		j++;
	d = digits(t, n, j, 0);
	return d > j ? d : i;
}

/* t[i] is a digit, or '.' before a digit, not preceded by an identifier
 * character or '.': the end of the floating literal starting there (rule
 * 2's grammar), or 0 when what starts there is no floating literal */
static size_t float_literal_end(const char *t, size_t n, size_t i)
{
	size_t j;
	if (t[i] == '0' && i + 1 < n && (t[i + 1] == 'x' || t[i + 1] == 'X')) {
		size_t s = i + 2, e;
		j = digits(t, n, s, 1);
		if (j < n && t[j] == '.')
			j = digits(t, n, j + 1, 1);
		if (j == s || (j == s + 1 && t[s] == '.'))
			return 0;
		e = exponent(t, n, j, 1);
		return e > j ? e : 0; /* the binary exponent is mandatory */
	}
	{
		size_t s = i, e;
		int dot = 0;
		j = digits(t, n, s, 0);
		if (j < n && t[j] == '.') {
			size_t a = j + 1;
			dot = 1;
			j = digits(t, n, a, 0);
			if (j == a && a - 1 == s)
				return 0; /* a '.' alone */
		}
		e = exponent(t, n, j, 0);
		if (!dot && e == j)
			return 0; /* an integer */
		return e;
	}
}

/* the text and its code mask (comments as spaces), for the range pass */
struct rw {
	const char *text, *m;
	size_t len;
};

/* copy text[i, i + n) to O; flat (the copy inside rule 5's decltype): from
 * the mask, so no comment comes along, with every line break and the
 * backslash before it made a space, so that no line is added */
static void emit(const struct rw *r, struct buf *o, size_t i, size_t n, int flat)
{
	size_t q;
	if (!flat) {
		buf_add(o, r->text + i, n);
		return;
	}
	for (q = i; q < i + n; q++) {
		char ch = r->m[q];
		if (ch == '\n' || ch == '\r' ||
		    (ch == '\\' && q + 1 < r->len && (r->m[q + 1] == '\n' || r->m[q + 1] == '\r')))
			ch = ' ';
		buf_add(o, &ch, 1);
	}
}

/* the start of the logical line holding m[i] (lines continued by a
 * backslash belong to the line they continue) */
static size_t logical_line_start(const char *m, size_t i)
{
	size_t s = text_line_start(m, i);
	while (s >= 2) {
		size_t b = s - 1; /* the '\n' ending the previous line */
		if (b > 0 && m[b - 1] == '\r')
			b--;
		if (b == 0 || m[b - 1] != '\\')
			break;
		s = text_line_start(m, b - 1);
	}
	return s;
}

/* rule 5: is m[i] in a preprocessor directive, and is it #define? */
static int in_directive(const char *m, size_t i, int *is_define)
{
	size_t s = logical_line_start(m, i), j;
	while (s < i && (m[s] == ' ' || m[s] == '\t'))
		s++;
	if (s >= i || m[s] != '#')
		return 0;
	j = s + 1;
	while (j < i && (m[j] == ' ' || m[j] == '\t'))
		j++;
	*is_define = i - j >= 6 && strncmp(m + j, "define", 6) == 0;
	return 1;
}

/* rule 5: scan m[i, b) for the end of a ternary operand: for the middle
 * operand (mid) the index of its `:`, for the third the index after it:
 * stops at a `)`, `]`, `}`, `;` (and `,`, or a `:` of an enclosing `?`,
 * for the third) outside brackets, or at the end of a directive line (dir);
 * returns 0 when the middle operand has no `:` */
static size_t operand_end(const char *m, size_t n, size_t i, size_t b, int mid, int dir)
{
	long depth = 0, nested = 0;
	(void)n;
	while (i < b) {
		char c = m[i];
		if (c == '"' || c == '\'') {
			size_t e = lex_skip_literal(m, b, i);
			i = e > i ? e : i + 1;
			continue;
		}
		if (c == ':' && i + 1 < b && m[i + 1] == ':') {
			i += 2;
			continue;
		}
		if (c == '\n' && dir && !(i > 0 && (m[i - 1] == '\\' || (m[i - 1] == '\r' && i > 1 && m[i - 2] == '\\'))))
			return mid ? 0 : i;
		if (c == '(' || c == '[' || c == '{')
			depth++;
		else if (c == ')' || c == ']' || c == '}') {
			if (depth == 0)
				return mid ? 0 : i;
			depth--;
		} else if (depth == 0) {
			if (c == ';')
				return mid ? 0 : i;
			if (c == '?')
				nested++;
			else if (c == ':') {
				if (nested == 0)
					return i; /* mid: its colon; third: an enclosing one's */
				nested--;
			} else if (c == ',' && !mid)
				return i;
		}
		i++;
	}
	return mid ? 0 : b;
}

static void rw_range(const struct rw *r, size_t a, size_t b, struct buf *o, int flat, int nest);

/* rule 5 at the `?` m[i] (range end b): writes the rewritten ternary
 * operands and returns the index after the third, or 0 when the ternary
 * is not rewritten */
static size_t ternary(const struct rw *r, size_t i, size_t b, struct buf *o, int flat, int nest)
{
	int dir = 0, def = 0;
	size_t colon, end;
	if (nest >= 3)
		return 0;
	dir = in_directive(r->m, i, &def);
	if (dir && !def)
		return 0;
	colon = operand_end(r->m, r->len, i + 1, b, 1, dir);
	if (!colon)
		return 0;
	end = operand_end(r->m, r->len, colon + 1, b, 0, dir);
	buf_puts(o, "? ::metal_host::tern_a<decltype((");
	rw_range(r, colon + 1, end, o, 1, nest + 1);
	buf_puts(o, "))>((");
	rw_range(r, i + 1, colon, o, flat, nest + 1);
	buf_puts(o, ")) : ::metal_host::tern_b<decltype((");
	rw_range(r, i + 1, colon, o, 1, nest + 1);
	buf_puts(o, "))>((");
	rw_range(r, colon + 1, end, o, flat, nest + 1);
	buf_puts(o, "))");
	return end;
}

/* every rule on text[a, b), appended to O (flat: see emit) */
static void rw_range(const struct rw *r, size_t a, size_t b, struct buf *o, int flat, int nest)
{
	const char *m = r->m;
	const size_t len = b;
	size_t i = a;

	while (i < len) {
		unsigned char c = (unsigned char)m[i];
		if (c == '"' || c == '\'') {
			size_t e = lex_skip_literal(m, len, i);
			if (e <= i)
				e = i + 1;
			emit(r, o, i, e - i, flat);
			i = e;
			continue;
		}
		if (c == '#' && text_blank(m, text_line_start(m, i), i)) {
			size_t e;
			if (include_line(m, len, i, &e)) {
				emit(r, o, i, e - i, flat);
				i = e;
				continue;
			}
		}
		if (c == '?') {
			size_t e = ternary(r, i, b, o, flat, nest);
			if (e) {
				i = e;
				continue;
			}
		}
		if (isalpha(c) || c == '_') {
			size_t e = i, at, end;
			int idx[4];
			while (e < len && idc((unsigned char)m[e]))
				e++;
			if (swizzle_at(m, len, i, e - i, idx)) {
				/* rule 4: `.zw` becomes `.template mh_swizzle<123>()`
				 * (read) or `.template mh_swizzle_ref<123>()` (assigned):
				 * 1, then the component indices */
				size_t q;
				buf_puts(o, assigned_at(m, len, e) ? "template mh_swizzle_ref<1" : "template mh_swizzle<1");
				for (q = 0; q < e - i; q++)
					buf_printf(o, "%d", idx[q]);
				buf_puts(o, ">()");
				i = e;
				continue;
			}
			if (e - i == 8 && !strncmp(m + i, "template", 8) &&
			    (at = host_name_after(m, len, e)) != 0 &&
			    (end = attribute_end(m, len, at)) != 0) {
				/* rule 1: the attribute becomes spaces; each newline and
				 * the backslash that continues its line stay */
				size_t q;
				emit(r, o, i, at - i, flat);
				for (q = at; q < end; q++) {
					char ch = r->text[q];
					if (ch == '\n')
						buf_add(o, flat ? " " : "\n", 1);
					else if (ch == '\\') {
						size_t t = q + 1;
						while (t < end && (r->text[t] == ' ' || r->text[t] == '\t' || r->text[t] == '\r'))
							t++;
						buf_add(o, !flat && t < end && r->text[t] == '\n' ? "\\" : " ", 1);
					} else if (ch == '\r' && q + 1 < end && r->text[q + 1] == '\n')
						buf_add(o, flat ? " " : "\r", 1);
					else
						buf_add(o, " ", 1);
				}
				i = end;
				continue;
			}
			if ((e - i == 8 && !strncmp(m + i, "constant", 8) &&
			     beside(m, r->len, i, 8, "constexpr")) ||
			    (e - i == 5 && !strncmp(m + i, "const", 5) &&
			     beside(m, r->len, i, 5, "constant"))) {
				/* rule 3: `constant` beside `constexpr`, and `const`
				 * beside `constant`, become spaces */
				buf_add(o, "        ", e - i);
			} else
				emit(r, o, i, e - i, flat);
			i = e;
			continue;
		}
		if ((isdigit(c) || (c == '.' && i + 1 < len && isdigit((unsigned char)m[i + 1]))) &&
		    (i == 0 || !(idc((unsigned char)m[i - 1]) || m[i - 1] == '.'))) {
			/* rule 2: a floating literal with no suffix gets an 'f'; the
			 * whole preprocessing number is copied as it is */
			size_t e = float_literal_end(m, len, i), p = i;
			while (p < len && (idc((unsigned char)m[p]) || m[p] == '.' ||
			                   (m[p] == '\'' && p + 1 < len && idc((unsigned char)m[p + 1])) ||
			                   ((m[p] == '+' || m[p] == '-') && p > i &&
			                    strchr("eEpP", m[p - 1]))))
				p++;
			if (e) {
				emit(r, o, i, e - i, flat);
				if (!(e < len && (idc((unsigned char)m[e]) || m[e] == '.' || m[e] == '\'')))
					buf_add(o, "f", 1);
				if (p < e)
					p = e;
				emit(r, o, e, p - e, flat);
			} else
				emit(r, o, i, p - i, flat);
			i = p;
			continue;
		}
		emit(r, o, i, 1, flat);
		i++;
	}
}

char *try_rewrite(const char *text, size_t len, size_t *out_len)
{
	struct rw r;
	struct buf o;
	r.text = text;
	r.len = len;
	r.m = mask_code(text, len, LANG_C);
	buf_init(&o);
	rw_range(&r, 0, len, &o, 0, 0);
	free((char *)r.m);
	*out_len = o.len;
	return o.data;
}
