/* trytol.c — the tolerances test_mps.py's TestConsistency compares an
 * operator's CPU and MPS results with (issue #25).  test_output_match
 * takes (atol, rtol) from the class's _compute_tolerances(op, dtype): a
 * chain of `if` clauses on the OpInfo name (class-level sets of names,
 * inline lists, one name) and the dtype, each returning a pair, the
 * first that holds winning; (None, None) leaves torch.testing's defaults
 * per dtype.  Read in PyTorch 2.6.0's and current main's test/test_mps.py
 * (read, not copied: the numbers are the file's, taken at run time from
 * the checkout; the words are ours). */
#include "check/try.h"
#include "base/diag.h"
#include "base/lex.h"
#include "base/scan.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- logical lines ---- */

/* one Python statement line: its text with comments dropped and line
 * breaks inside brackets made spaces (malloc'd), its indentation and
 * the line it starts on */
struct stmt {
	char *text;
	int indent;
	unsigned long line;
};

/* the statement starting at T[*I] (the start of a physical line), into
 * *S; *I moved past it.  0 blank or comment-only (no statement), 1 a
 * statement */
static int next_stmt(const char *t, size_t n, size_t *i, unsigned long *line,
                     struct stmt *s)
{
	size_t p = *i, cap = 64, len = 0;
	int indent = 0, depth = 0;
	char *buf;
	while (p < n && (t[p] == ' ' || t[p] == '\t')) {
		indent++;
		p++;
	}
	if (p >= n || t[p] == '\n' || t[p] == '#' || t[p] == '\r') {
		while (p < n && t[p] != '\n')
			p++;
		if (p < n) {
			p++;
			(*line)++;
		}
		*i = p;
		return 0;
	}
	s->indent = indent;
	s->line = *line;
	buf = xmalloc(cap);
	while (p < n) {
		char c = t[p];
		size_t from = p, k;
		if (c == '\'' || c == '"') {
			p = lex_skip_quoted(t, n, p);
		} else if (c == '#') {
			while (p < n && t[p] != '\n')
				p++;
			continue;
		} else if (c == '\\' && p + 1 < n && t[p + 1] == '\n') {
			p += 2;
			(*line)++;
			goto add_space;
		} else if (c == '\n') {
			p++;
			(*line)++;
			if (depth <= 0)
				break;
			goto add_space;
		} else {
			if (c == '(' || c == '[' || c == '{')
				depth++;
			else if (c == ')' || c == ']' || c == '}')
				depth--;
			p++;
		}
		for (k = from; k < p; k++) {
			if (t[k] == '\n')
				(*line)++;
			if (len + 2 > cap)
				buf = xrealloc(buf, cap *= 2);
			buf[len++] = t[k];
		}
		continue;
add_space:
		if (len + 2 > cap)
			buf = xrealloc(buf, cap *= 2);
		buf[len++] = ' ';
	}
	while (len && lex_sp(buf[len - 1]))
		len--;
	buf[len] = '\0';
	s->text = buf;
	*i = p;
	return 1;
}

/* ---- small readers over a statement's text ---- */

static const char *skip_sp(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* nothing but blanks from P to E */
static int at_end(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	return p == e;
}

/* P starts with word W followed by no identifier character: past it */
static const char *word(const char *p, const char *w)
{
	size_t l = strlen(w);
	if (strncmp(p, w, l) != 0 || isalnum((unsigned char)p[l]) || p[l] == '_')
		return NULL;
	return p + l;
}

/* a number or None at *P: 1 number (*V), 0 None, -1 neither; *P past it */
static int num_or_none(const char **p, double *v)
{
	char *end;
	const char *q = skip_sp(*p);
	if (word(q, "None")) {
		*p = q + 4;
		return 0;
	}
	*v = strtod(q, &end);
	if (end == q)
		return -1;
	*p = end;
	return 1;
}

/* a pair `(A, B)` (parentheses optional) at *P: 1 two numbers, 0 (None,
 * None), -1 anything else; *P past it */
static int pair(const char **p, double *a, double *b)
{
	const char *q = skip_sp(*p);
	int paren = *q == '(', ka, kb;
	if (paren)
		q++;
	if ((ka = num_or_none(&q, a)) < 0)
		return -1;
	q = skip_sp(q);
	if (*q++ != ',')
		return -1;
	if ((kb = num_or_none(&q, b)) < 0)
		return -1;
	q = skip_sp(q);
	if (paren && *q++ != ')')
		return -1;
	*p = q;
	if (ka != kb)
		return -1; /* one side None: torch.testing refuses it */
	return ka;
}

/* the Metal dtype token of `torch.X` at *P (*P past it), or NULL */
static const char *torch_dtype(const char **p)
{
	const char *q = skip_sp(*p), *e, *dt;
	if (strncmp(q, "torch.", 6) != 0)
		return NULL;
	q += 6;
	for (e = q; isalnum((unsigned char)*e) || *e == '_'; e++)
		;
	if ((dt = try_metal_dtype(q, (size_t)(e - q))))
		*p = e;
	return dt;
}

/* `dtype == torch.X` or `dtype in [torch.X, ...]` at P, the whole of
 * [P, E): 1 holds for DT, 0 not, -1 not this shape */
static int dtype_cond(const char *p, const char *e, const char *dt)
{
	const char *q, *d;
	int hit = 0;
	if (!(q = word(p, "dtype")))
		return -1;
	q = skip_sp(q);
	if (q[0] == '=' && q[1] == '=') {
		q += 2;
		if (!(d = torch_dtype(&q)) || !at_end(q, e))
			return -1;
		return !strcmp(d, dt);
	}
	if (!(q = word(q, "in")))
		return -1;
	q = skip_sp(q);
	if (*q != '[' && *q != '(')
		return -1;
	q++;
	for (;;) {
		q = skip_sp(q);
		if (*q == ']' || *q == ')')
			break;
		if (!(d = torch_dtype(&q)))
			return -1;
		hit |= !strcmp(d, dt);
		q = skip_sp(q);
		if (*q == ',')
			q++;
		else if (*q != ']' && *q != ')')
			return -1;
	}
	return at_end(q + 1, e) ? hit : -1;
}

/* the quoted names from Q (past an opening bracket) to the matching
 * closing one: 1 one of them is OP's OpInfo name, 0 none, -1 something
 * other than strings and commas; *END past the closing bracket */
static int names_hold(const char *q, const char *lim, const char *op, const char **end)
{
	int hit = 0;
	for (;;) {
		const char *s;
		q = skip_sp(q);
		while (q < lim && (*q == '\n' || lex_sp(*q)))
			q++;
		if (q >= lim)
			return -1;
		if (*q == '#') {
			while (q < lim && *q != '\n')
				q++;
			continue;
		}
		if (*q == ']' || *q == '}' || *q == ')') {
			*end = q + 1;
			return hit;
		}
		if (*q != '\'' && *q != '"')
			return -1;
		s = q;
		q = q + lex_skip_quoted(q, (size_t)(lim - q), 0);
		if (q - s < 2 || q[-1] != *s)
			return -1;
		hit |= try_opinfo_name_is(s + 1, (size_t)(q - s - 2), op);
		q = skip_sp(q);
		while (q < lim && (*q == '\n' || lex_sp(*q)))
			q++;
		if (*q == ',')
			q++;
	}
}

/* the class-level set literal `NAME = {'a', ...}` in TEXT: 1 it names OP,
 * 0 not, -1 no such literal */
static int set_holds(const char *text, const char *name, const char *op)
{
	size_t nl = strlen(name), n = strlen(text);
	const char *p = text;
	while ((p = strstr(p, name)) != NULL) {
		const char *q = p + nl, *ls = p, *end;
		while (ls > text && (ls[-1] == ' ' || ls[-1] == '\t'))
			ls--;
		if ((ls == text || ls[-1] == '\n') && !isalnum((unsigned char)*q) && *q != '_') {
			q = skip_sp(q);
			if (*q == '=' && q[1] != '=') {
				q = skip_sp(q + 1);
				if (*q == '{')
					return names_hold(q + 1, text + n, op, &end);
			}
		}
		p += nl;
	}
	return -1;
}

/* one conjunct of an `if` condition, [P, E): 1 holds, 0 not, -1 a shape
 * read here does not (MACOS_VERSION, a sample's kwargs, ...) */
static int conjunct(const char *text, const char *p, const char *e, const char *op,
                    const char *dt)
{
	const char *q;
	p = skip_sp(p);
	while (e > p && lex_sp(e[-1]))
		e--;
	/* (cond): parentheses around the whole */
	if (*p == '(' && e[-1] == ')') {
		int depth = 0;
		const char *k;
		for (k = p; k < e; k++) {
			if (*k == '\'' || *k == '"') {
				k += lex_skip_quoted(k, (size_t)(e - k), 0) - 1;
				continue;
			}
			if (*k == '(' || *k == '[')
				depth++;
			else if ((*k == ')' || *k == ']') && --depth == 0)
				break; /* the opening one's match */
		}
		if (k == e - 1)
			return conjunct(text, p + 1, e - 1, op, dt);
	}
	if (word(p, "dtype"))
		return dtype_cond(p, e, dt);
	if (strncmp(p, "op.name", 7) != 0)
		return -1;
	q = skip_sp(p + 7);
	if (q[0] == '=' && q[1] == '=') {
		const char *s = skip_sp(q + 2), *se;
		if (*s != '\'' && *s != '"')
			return -1;
		se = s + lex_skip_quoted(s, (size_t)(e - s), 0);
		if (!at_end(se, e) || se - s < 2)
			return -1;
		return try_opinfo_name_is(s + 1, (size_t)(se - s - 2), op);
	}
	if (!(q = word(q, "in")))
		return -1;
	q = skip_sp(q);
	if (!strncmp(q, "self.", 5)) {
		const char *ne = q + 5;
		char *name;
		int r;
		while (isalnum((unsigned char)*ne) || *ne == '_')
			ne++;
		if (ne == q + 5 || !at_end(ne, e))
			return -1;
		name = xasprintf("%.*s", (int)(ne - q - 5), q + 5);
		r = set_holds(text, name, op);
		free(name);
		return r;
	}
	if (*q == '[' || *q == '(' || *q == '{') {
		const char *end;
		int r = names_hold(q + 1, e, op, &end);
		return r >= 0 && at_end(end, e) ? r : -1;
	}
	return -1;
}

/* an `if` condition, [P, E): the conjuncts joined by `and` at the top
 * level.  1 holds, 0 not, -1 a condition not read (any `or`, `not`, or a
 * conjunct of another shape) */
static int condition(const char *text, const char *p, const char *e, const char *op,
                     const char *dt)
{
	const char *k, *from = p;
	int depth = 0, all = 1;
	for (k = p; k <= e; k++) {
		if (k < e && (*k == '\'' || *k == '"')) {
			k += lex_skip_quoted(k, (size_t)(e - k), 0) - 1;
			continue;
		}
		if (k < e && (*k == '(' || *k == '[' || *k == '{'))
			depth++;
		else if (k < e && (*k == ')' || *k == ']' || *k == '}'))
			depth--;
		else if (k < e && depth == 0 && (k == p || k[-1] == ' ') &&
		         (word(k, "or") || word(k, "not")))
			return -1;
		else if (k == e || (depth == 0 && k > p && k[-1] == ' ' && word(k, "and"))) {
			int r = conjunct(text, from, k, op, dt);
			if (r < 0)
				return -1;
			all &= r;
			if (k < e)
				from = k + 3;
		}
	}
	return all;
}

/* `return PAIR` or `return PAIR if dtype == torch.X else PAIR` (S past
 * `return`): 1 numbers (*A, *B), 0 (None, None), -1 not read */
static int return_value(const char *s, const char *dt, double *a, double *b)
{
	const char *q = s, *c, *ce;
	double a2, b2;
	int k1, k2, hold;
	if ((k1 = pair(&q, a, b)) < 0)
		return -1;
	q = skip_sp(q);
	if (!*q)
		return k1;
	if (!(q = word(q, "if")))
		return -1;
	c = skip_sp(q);
	if (!(ce = strstr(c, " else ")))
		return -1;
	hold = dtype_cond(c, ce, dt);
	if (hold < 0)
		return -1;
	q = ce + 6;
	if ((k2 = pair(&q, &a2, &b2)) < 0 || *skip_sp(q))
		return -1;
	if (!hold) {
		*a = a2;
		*b = b2;
		return k2;
	}
	return k1;
}

/* the tolerance a clause returns: (ATOL, RTOL) at LINE into TOL; 1 */
static int take(struct try_tol *tol, double atol, double rtol, unsigned long line)
{
	tol->set = 1;
	tol->atol = atol;
	tol->rtol = rtol;
	tol->line = line;
	return 1;
}

int try_test_tolerance(const char *text, const char *op, const char *dt, struct try_tol *tol)
{
	static const char def[] = "def _compute_tolerances(";
	const char *d = strstr(text, def);
	size_t n = strlen(text), i, ns = 0, cap = 0, k;
	unsigned long line;
	int def_indent = 0, body = -1, r = 0;
	struct stmt *ss = NULL, s;
	memset(tol, 0, sizeof *tol);
	if (!d)
		return 0;
	for (i = (size_t)(d - text); i > 0 && text[i - 1] == ' '; i--)
		def_indent++;
	line = 1;
	for (k = 0; k < (size_t)(d - text); k++)
		line += text[k] == '\n';
	/* past the def line (its own logical line) */
	i = (size_t)(d - text) - (size_t)def_indent;
	if (!next_stmt(text, n, &i, &line, &s))
		return 0;
	free(s.text);
	while (i < n) {
		if (!next_stmt(text, n, &i, &line, &s))
			continue;
		if (s.indent <= def_indent) {
			free(s.text);
			break;
		}
		if (ns == cap)
			ss = xrealloc(ss, (cap = cap ? 2 * cap : 32) * sizeof *ss);
		ss[ns++] = s;
	}
	if (ns)
		body = ss[0].indent;
	for (k = 0; k < ns; k++) {
		const char *t = ss[k].text, *q;
		size_t j, tl = strlen(t);
		double a, b;
		int hold, kv;
		if (ss[k].indent != body)
			continue;
		if ((q = word(t, "return"))) {
			/* the fall-through: applies to every op and dtype */
			kv = return_value(q, dt, &a, &b);
			if (kv == 1)
				r = take(tol, a, b, ss[k].line);
			break;
		}
		if (!(q = word(t, "if")) && !(q = word(t, "elif")))
			continue; /* another statement: not read */
		if (tl == 0 || t[tl - 1] != ':')
			continue; /* `if c: return x` on one line: not read */
		/* its block: one return, deeper */
		for (j = k + 1; j < ns && ss[j].indent > body; j++)
			;
		if (j != k + 2 || !word(ss[k + 1].text, "return"))
			continue;
		hold = condition(text, skip_sp(q), t + tl - 1, op, dt);
		if (hold != 1)
			continue; /* not OP's, or machine- or sample-dependent */
		kv = return_value(ss[k + 1].text + 6, dt, &a, &b);
		if (kv < 0)
			continue;
		if (kv == 1)
			r = take(tol, a, b, ss[k].line);
		break; /* (None, None): the defaults, as Python returns them */
	}
	for (k = 0; k < ns; k++)
		free(ss[k].text);
	free(ss);
	return r;
}

void try_test_tolerances(struct try_plan *pl, const char *root)
{
	char *path, *data = NULL;
	size_t len, r;
	pl->tol = xcalloc(pl->nregs ? pl->nregs : 1, sizeof *pl->tol);
	if (!root)
		return;
	path = xasprintf("%s/test/test_mps.py", root);
	if (read_file(path, &data, &len) == 0 && data && strlen(data) == len)
		for (r = 0; r < pl->nregs; r++)
			try_test_tolerance(data, pl->op_base, pl->regs[r].in, &pl->tol[r]);
	free(data);
	free(path);
}
