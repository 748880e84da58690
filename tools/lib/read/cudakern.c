/* cudakern.c — see cudakern.h. */
#include "read/cudakern.h"
#include "base/diag.h"
#include "base/lex.h"
#include "base/scan.h"
#include "base/walk.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- characters ---- */

static int id0(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static int idc(char c) { return id0(c) || (c >= '0' && c <= '9'); }
static int sp(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
	       c == '\v';
}
static size_t skip_ws(const char *c, size_t n, size_t i)
{
	while (i < n && sp(c[i]))
		i++;
	return i;
}
static size_t back_ws(const char *c, size_t lo, size_t i)
{
	while (i > lo && sp(c[i - 1]))
		i--;
	return i;
}
static int word_is(const char *c, size_t s, size_t e, const char *w)
{
	return e - s == strlen(w) && memcmp(c + s, w, e - s) == 0;
}

/* ---- one file ---- */

/* A definition at namespace level. */
struct def {
	int is_struct;
	size_t stmt;            /* where its statement starts */
	size_t ns, ne;          /* the name */
	size_t popen, pclose;   /* a function's parameter list */
	size_t bopen, bclose;   /* the body's braces */
	char nspath[64];        /* the namespaces around it, "c10::metal"
	                           ("" at file level; cut when longer) */
};

struct kfile {
	char *rel;
	char *raw;              /* as read */
	char *c;                /* comments and #if 0 blanked (mask_code) */
	size_t n;
	size_t *lines; size_t nlines;
	struct def *defs; size_t ndefs, capdefs;
	int indexed;
	int ready;              /* c and lines made (kfile_ready) */
};

static void kfile_free(struct kfile *f)
{
	free(f->rel);
	free(f->raw);
	free(f->c);
	free(f->lines);
	free(f->defs);
	memset(f, 0, sizeof *f);
}

static void kfile_take(struct kfile *f, const char *rel, char *raw, size_t n)
{
	memset(f, 0, sizeof *f);
	f->rel = xstrdup(rel);
	f->raw = raw;
	f->n = n;
}

/* the masked text and the line starts, made on first need: most files of
 * the folder are only searched for a name in their raw text */
static void kfile_ready(struct kfile *f)
{
	size_t i, cap = 64;
	if (f->ready)
		return;
	f->ready = 1;
	f->c = mask_code(f->raw, f->n, LANG_C);
	f->lines = xmalloc(cap * sizeof *f->lines);
	f->lines[f->nlines++] = 0;
	for (i = 0; i < f->n; i++)
		if (f->raw[i] == '\n') {
			if (f->nlines == cap) {
				cap *= 2;
				f->lines = xrealloc(f->lines, cap * sizeof *f->lines);
			}
			f->lines[f->nlines++] = i + 1;
		}
}

static unsigned long line_of(const struct kfile *f, size_t off)
{
	return (unsigned long)last_le(f->lines, f->nlines, off) + 1;
}

/* at c[i] a '#' that starts a directive (only blanks before it on its
 * line) */
static int directive_at(const char *c, size_t i)
{
	size_t j = i;
	while (j > 0 && (c[j - 1] == ' ' || c[j - 1] == '\t'))
		j--;
	return j == 0 || c[j - 1] == '\n';
}

/* the index of the closer matching the opener c[i] ('(', '[' or '{'),
 * literals and directives skipped, other brackets nested; n when it is
 * not closed */
static size_t match_close(const char *c, size_t n, size_t i)
{
	char stack[256];
	size_t depth = 0;
	for (; i < n; i++) {
		char ch = c[i];
		if (ch == '"' || ch == '\'') {
			i = lex_skip_literal(c, n, i) - 1;
			continue;
		}
		if (ch == '#' && directive_at(c, i)) {
			i = lex_directive_end(c, n, i);
			continue;
		}
		if (ch == '(' || ch == '[' || ch == '{') {
			if (depth == sizeof stack)
				return n;
			stack[depth++] = ch == '(' ? ')' : ch == '[' ? ']' : '}';
		} else if (ch == ')' || ch == ']' || ch == '}') {
			if (depth == 0 || stack[depth - 1] != ch)
				return n;
			if (--depth == 0)
				return i;
		}
	}
	return n;
}

/* template arguments: c[i] is '<': the index after the matching '>'
 * (parentheses nest; `>>` closes two), or i when they do not close
 * before a ';' or '{' */
static size_t skip_angles(const char *c, size_t n, size_t i)
{
	size_t j;
	int depth = 0;
	for (j = i; j < n; j++) {
		if (c[j] == '<')
			depth++;
		else if (c[j] == '>') {
			if (--depth == 0)
				return j + 1;
		} else if (c[j] == '(') {
			size_t k = match_close(c, n, j);
			if (k >= n)
				return i;
			j = k;
		} else if (c[j] == ';' || c[j] == '{' || c[j] == '}') {
			return i;
		}
	}
	return i;
}

static int stmt_starts(const char *c, size_t s, size_t e, const char *w)
{
	size_t l = strlen(w);
	s = skip_ws(c, e, s);
	return e - s >= l && memcmp(c + s, w, l) == 0 &&
	       (e - s == l || !idc(c[s + l]));
}

/* the word W occurs as a whole word in c[s, e) before any '(' */
static size_t word_before_paren(const char *c, size_t s, size_t e,
                                const char *w)
{
	size_t i, l = strlen(w);
	for (i = s; i + l <= e; i++) {
		if (c[i] == '(')
			return e;
		if ((i == s || !idc(c[i - 1])) && memcmp(c + i, w, l) == 0 &&
		    (i + l == e || !idc(c[i + l])))
			return i;
	}
	return e;
}

/* Index the namespace-level definitions of c[from, to): functions (a
 * parameter list, then only qualifier words before the '{') and structs. */
static void index_range(struct kfile *f, size_t from, size_t to)
{
	const char *c = f->c;
	size_t i = from, stmt = from, popen = 0, pclose = 0;
	int have_paren = 0;
	/* the open namespace blocks: their closing braces, and the path */
	size_t nsclose[16], nsdepth = 0, nslen[16];
	char path[64] = "";
	while (i < to) {
		if (nsdepth && i == nsclose[nsdepth - 1]) {
			nsdepth--;
			path[nsdepth ? nslen[nsdepth - 1] : 0] = 0;
			stmt = ++i;
			have_paren = 0;
			continue;
		}
		char ch = c[i];
		if (ch == '"' || ch == '\'') {
			i = lex_skip_literal(c, to, i);
			continue;
		}
		if (ch == '#' && directive_at(c, i)) {
			i = lex_directive_end(c, to, i);
			stmt = i;
			have_paren = 0;
			continue;
		}
		if (ch == '(' || ch == '[') {
			size_t k = match_close(c, to, i);
			if (k >= to)
				return;
			if (ch == '(') {
				size_t e = back_ws(c, from, i);
				popen = i;
				pclose = k;
				have_paren = 1;
				if (e >= from + 19 && memcmp(c + e - 19, "jiterator_stringify", 19) == 0) {
					/* the functions of a jiterator string are functions of
					 * the file too (Math.cuh writes its helpers so) */
					index_range(f, i + 1, k);
					have_paren = 0;
				}
			}
			i = k + 1;
			continue;
		}
		if (ch == ';' || ch == '}') {
			stmt = ++i;
			have_paren = 0;
			continue;
		}
		if (ch != '{') {
			i++;
			continue;
		}
		if (stmt_starts(c, stmt, i, "namespace") ||
		    stmt_starts(c, stmt, i, "inline") ||
		    stmt_starts(c, stmt, i, "extern")) {
			size_t close = match_close(c, to, i);
			if (close >= to)
				return;
			if (nsdepth < 16) {
				/* the name after `namespace`, "" for extern or anonymous */
				size_t kw = word_before_paren(c, stmt, i, "namespace");
				size_t a = kw < i ? skip_ws(c, i, kw + 9) : i, b = a;
				size_t l = strlen(path);
				while (b < i && (idc(c[b]) || c[b] == ':'))
					b++;
				if (b > a && l + 2 + (b - a) < sizeof path) {
					if (l)
						strcat(path, "::");
					strncat(path, c + a, b - a);
				}
				nslen[nsdepth] = strlen(path);
				nsclose[nsdepth++] = close;
			}
			stmt = ++i;
			have_paren = 0;
			continue;
		}
		{
			size_t close = match_close(c, to, i), kw;
			struct def d;
			memset(&d, 0, sizeof d);
			if (close >= to)
				return;
			d.stmt = skip_ws(c, i, stmt);
			d.bopen = i;
			d.bclose = close;
			kw = word_before_paren(c, stmt, i, "struct");
			if (kw == i)
				kw = word_before_paren(c, stmt, i, "class");
			if (kw < i && !stmt_starts(c, stmt, i, "enum")) {
				size_t s = skip_ws(c, i, kw + 6), e = s;
				while (e < i && idc(c[e]))
					e++;
				if (e > s) {
					d.is_struct = 1;
					d.ns = s;
					d.ne = e;
				}
			} else if (have_paren && popen >= stmt) {
				/* only qualifiers between ')' and '{' */
				size_t j = pclose + 1, ok = 1;
				while (j < i && ok) {
					if (sp(c[j]) || idc(c[j]) || c[j] == ':' || c[j] == '<' ||
					    c[j] == '>' || c[j] == '*' || c[j] == '&' || c[j] == ',')
						j++;
					else if (c[j] == '-' && c[j + 1] == '>')
						j += 2;
					else
						ok = 0;
				}
				if (ok) {
					size_t e = back_ws(c, stmt, popen), s = e;
					while (s > stmt && idc(c[s - 1]))
						s--;
					if (e > s && id0(c[s]) && !word_is(c, s, e, "operator")) {
						d.ns = s;
						d.ne = e;
						d.popen = popen;
						d.pclose = pclose;
					}
				}
			}
			if (d.ne > d.ns) {
				memcpy(d.nspath, path, sizeof d.nspath);
				GROW(f->defs, f->ndefs, f->capdefs);
				f->defs[f->ndefs++] = d;
			}
			i = close + 1;
			stmt = i;
			have_paren = 0;
		}
	}
}

static void kfile_index(struct kfile *f)
{
	kfile_ready(f);
	if (f->indexed)
		return;
	f->indexed = 1;
	index_range(f, 0, f->n);
}

static const struct def *find_def(const struct kfile *f, const char *name,
                                  int is_struct, size_t after)
{
	size_t i, l = strlen(name);
	for (i = 0; i < f->ndefs; i++) {
		const struct def *d = &f->defs[i];
		if (d->is_struct == is_struct && d->ne - d->ns == l &&
		    memcmp(f->c + d->ns, name, l) == 0 && d->ns >= after)
			return d;
	}
	return NULL;
}

/* ---- pieces of code ---- */

static char *trim_dup(const char *c, size_t s, size_t e)
{
	return lex_trim_dup(c, s, e);
}

/* split c[s, e) at top-level commas (all brackets nest, literals
 * skipped): the pieces' offsets into starts/ends (at most max); their
 * count */
static size_t split_top(const char *c, size_t s, size_t e, size_t *starts,
                        size_t *ends, size_t max)
{
	size_t i, k = 0, a = s;
	if (skip_ws(c, e, s) >= e)
		return 0;
	for (i = s; i < e; i++) {
		char ch = c[i];
		if (ch == '"' || ch == '\'') {
			i = lex_skip_literal(c, e, i) - 1;
			continue;
		}
		if (ch == '(' || ch == '[' || ch == '{') {
			size_t j = match_close(c, e, i);
			if (j >= e)
				break;
			i = j;
			continue;
		}
		if (ch == '<') {
			/* template arguments of a name (`f<a, b>(`), not a comparison */
			size_t j = skip_angles(c, e, i);
			if (j > i && i > s && idc(c[i - 1])) {
				size_t t = skip_ws(c, e, j);
				if (t < e && (c[t] == '(' || c[t] == '{' || c[t] == ':' ||
				              c[t] == ',' || idc(c[t]) || t == e)) {
					i = j - 1;
					continue;
				}
			}
		}
		if (ch == ',') {
			if (k < max) {
				starts[k] = a;
				ends[k] = i;
			}
			k++;
			a = i + 1;
		}
	}
	if (k < max) {
		starts[k] = a;
		ends[k] = e;
	}
	return k + 1;
}

static void parse_params(struct ck_code *cd, const char *c, size_t s, size_t e)
{
	size_t st[16], en[16], n, i;
	n = split_top(c, s, e, st, en, 16);
	if (n > 16)
		n = 16;
	if (n == 1) {
		size_t a = skip_ws(c, en[0], st[0]), b = back_ws(c, a, en[0]);
		if (word_is(c, a, b, "void"))
			n = 0;
	}
	cd->params = n ? xcalloc(n, sizeof *cd->params) : NULL;
	cd->nparams = n;
	for (i = 0; i < n; i++) {
		size_t a = skip_ws(c, en[i], st[i]), b = en[i], j, ns;
		for (j = a; j < b; j++)
			if (c[j] == '=') {
				b = j;
				break;
			}
		b = back_ws(c, a, b);
		ns = b;
		while (ns > a && idc(c[ns - 1]))
			ns--;
		/* one word, or a name after '*', '&' or '>': a type without a
		 * name when the words before end in '::' or nothing is left */
		if (ns == a || (ns > a && c[ns - 1] == ':')) {
			cd->params[i].type = trim_dup(c, a, b);
			cd->params[i].name = xstrdup("");
		} else {
			cd->params[i].type = trim_dup(c, a, ns);
			cd->params[i].name = xstrndup(c + ns, b - ns);
		}
	}
}

void ck_code_free(struct ck_code *cd)
{
	size_t i;
	for (i = 0; i < cd->nparams; i++) {
		free(cd->params[i].type);
		free(cd->params[i].name);
	}
	free(cd->params);
	free(cd->name);
	free(cd->file);
	free(cd->ret);
	free(cd->captures);
	free(cd->body);
	free(cd->shown);
	memset(cd, 0, sizeof *cd);
}

/* the return type of a function: the words of its statement before its
 * name, without `template <...>` and the specifiers that do not change
 * the type */
static char *ret_of(const char *c, size_t s, size_t e, int *templ)
{
	static const char *const drop[] = {
	    "static", "inline", "constexpr", "__host__", "__device__",
	    "__forceinline__", "C10_HOST_DEVICE", "C10_DEVICE", "__inline__",
	    "C10_ALWAYS_INLINE", "TORCH_API", "extern", NULL};
	struct buf b;
	size_t i = skip_ws(c, e, s);
	*templ = 0;
	buf_init(&b);
	while (i < e) {
		size_t j;
		if (word_is(c, i, i + 8 <= e ? i + 8 : e, "template") &&
		    (i + 8 == e || !idc(c[i + 8]))) {
			size_t k = skip_ws(c, e, i + 8);
			*templ = 1;
			if (k < e && c[k] == '<') {
				size_t m = skip_angles(c, e, k);
				i = skip_ws(c, e, m > k ? m : k + 1);
				continue;
			}
		}
		if (idc(c[i])) {
			size_t k;
			int dropped = 0;
			for (j = i; j < e && idc(c[j]); j++)
				;
			for (k = 0; drop[k]; k++)
				if (word_is(c, i, j, drop[k]))
					dropped = 1;
			if (!dropped) {
				if (b.len)
					buf_puts(&b, " ");
				buf_add(&b, c + i, j - i);
			}
			i = skip_ws(c, e, j);
			continue;
		}
		/* punctuation of a type: '<', '>', ':', '*', '&', ',' */
		if (b.len && (c[i] == ',' ))
			buf_puts(&b, ", ");
		else
			buf_add(&b, c + i, 1);
		i = skip_ws(c, e, i + 1);
	}
	if (b.len == 0) {
		buf_free(&b);
		return NULL;
	}
	/* "T ::x" never happens; squeeze "a :: b" written with blanks */
	return b.data;
}

static void code_body(struct ck_code *cd, const struct kfile *f, size_t bopen,
                      size_t bclose)
{
	cd->body = xstrndup(f->c + bopen + 1, bclose - bopen - 1);
	cd->shown = xstrndup(f->raw + bopen + 1, bclose - bopen - 1);
	cd->body_line = line_of(f, bopen);
}

static void code_of_def(struct ck_code *cd, const struct kfile *f,
                        const struct def *d)
{
	memset(cd, 0, sizeof *cd);
	cd->name = xstrndup(f->c + d->ns, d->ne - d->ns);
	cd->file = xstrdup(f->rel);
	cd->line = line_of(f, d->ns);
	parse_params(cd, f->c, d->popen + 1, d->pclose);
	cd->ret = ret_of(f->c, d->stmt, d->ns, &cd->templ);
	code_body(cd, f, d->bopen, d->bclose);
}

/* a lambda at c[s, e) (an argument): fills cd and returns 1 */
static int parse_lambda(struct ck_code *cd, const struct kfile *f, size_t s,
                        size_t e)
{
	const char *c = f->c;
	size_t i = skip_ws(c, e, s), k, popen, pclose, rs;
	if (i >= e || c[i] != '[')
		return 0;
	k = match_close(c, e, i);
	if (k >= e)
		return 0;
	memset(cd, 0, sizeof *cd);
	cd->captures = trim_dup(c, i + 1, k);
	cd->file = xstrdup(f->rel);
	cd->line = line_of(f, i);
	i = skip_ws(c, e, k + 1);
	while (i < e && id0(c[i])) { /* GPU_LAMBDA, __device__, __host__ */
		while (i < e && idc(c[i]))
			i++;
		i = skip_ws(c, e, i);
	}
	if (i < e && c[i] == '(') {
		popen = i;
		pclose = match_close(c, e, i);
		if (pclose >= e) {
			ck_code_free(cd);
			return 0;
		}
		parse_params(cd, c, popen + 1, pclose);
		i = skip_ws(c, e, pclose + 1);
	}
	rs = i;
	while (i < e && c[i] != '{')
		i++;
	if (i >= e) {
		ck_code_free(cd);
		return 0;
	}
	{
		/* `mutable`, `-> T` */
		size_t a = rs, b = back_ws(c, rs, i);
		while (a < b && id0(c[a])) {
			size_t w = a;
			while (w < b && idc(c[w]))
				w++;
			if (!word_is(c, a, w, "mutable") && !word_is(c, a, w, "noexcept") &&
			    !word_is(c, a, w, "constexpr"))
				break;
			a = skip_ws(c, b, w);
		}
		if (a + 1 < b && c[a] == '-' && c[a + 1] == '>')
			cd->ret = trim_dup(c, a + 2, b);
	}
	k = match_close(c, e, i);
	if (k >= e) {
		ck_code_free(cd);
		return 0;
	}
	code_body(cd, f, i, k);
	return 1;
}

/* the operator() of struct d: as a piece of code; 1 when found */
static int struct_call(struct ck_code *cd, const struct kfile *f,
                       const struct def *d)
{
	const char *c = f->c;
	size_t i;
	for (i = d->bopen + 1; i + 8 < d->bclose; i++) {
		size_t j, popen, pclose, b, e;
		if (memcmp(c + i, "operator", 8) != 0 || (i && idc(c[i - 1])))
			continue;
		j = skip_ws(c, d->bclose, i + 8);
		if (c[j] != '(')
			continue;
		j = skip_ws(c, d->bclose, j + 1);
		if (c[j] != ')')
			continue;
		popen = skip_ws(c, d->bclose, j + 1);
		if (c[popen] != '(')
			continue;
		pclose = match_close(c, d->bclose, popen);
		if (pclose >= d->bclose)
			return 0;
		b = pclose + 1;
		while (b < d->bclose && c[b] != '{' && c[b] != ';')
			b++;
		if (b >= d->bclose || c[b] != '{')
			continue;
		e = match_close(c, d->bclose, b);
		if (e >= d->bclose)
			return 0;
		memset(cd, 0, sizeof *cd);
		cd->name = xstrndup(c + d->ns, d->ne - d->ns);
		cd->file = xstrdup(f->rel);
		cd->line = line_of(f, i);
		parse_params(cd, c, popen + 1, pclose);
		{
			/* the return type: the words from the member's start */
			size_t s = i;
			while (s > d->bopen + 1 && c[s - 1] != ';' && c[s - 1] != '{' &&
			       c[s - 1] != '}' && c[s - 1] != ':')
				s--;
			cd->ret = ret_of(c, s, i, &cd->templ);
		}
		code_body(cd, f, b, e);
		return 1;
	}
	return 0;
}

/* ---- dtype branches ---- */

static int is_ident_at(const char *c, size_t lo, size_t i, const char *w,
                       size_t n)
{
	size_t l = strlen(w);
	return i + l <= n && memcmp(c + i, w, l) == 0 && (i == lo || !idc(c[i - 1])) &&
	       (i + l == n || !idc(c[i + l]));
}

/* the dtypes a condition c[s, e) tests, 0 when none is read */
static cs_dtset cond_types(const char *c, size_t s, size_t e)
{
	cs_dtset set = 0;
	size_t i;
	static const cs_dtset cplx = CS_BIT(CS_COMPLEX_HALF) |
	                             CS_BIT(CS_COMPLEX_FLOAT) |
	                             CS_BIT(CS_COMPLEX_DOUBLE);
	static const cs_dtset flt = CS_BIT(CS_DOUBLE) | CS_BIT(CS_FLOAT) |
	                            CS_BIT(CS_HALF) | CS_BIT(CS_BFLOAT16);
	static const cs_dtset ints = CS_BIT(CS_BYTE) | CS_BIT(CS_CHAR) |
	                             CS_BIT(CS_SHORT) | CS_BIT(CS_INT) |
	                             CS_BIT(CS_LONG);
	for (i = s; i < e; i++) {
		if (c[i] == '!' && c[i + 1] != '=')
			return 0; /* a negation: not read */
		if (is_ident_at(c, s, i, "isComplexType", e) ||
		    is_ident_at(c, s, i, "is_complex", e))
			set |= cplx;
		else if (is_ident_at(c, s, i, "isFloatingType", e) ||
		         is_ident_at(c, s, i, "is_floating_point", e))
			set |= flt;
		else if (is_ident_at(c, s, i, "isReducedFloatingType", e))
			set |= CS_BIT(CS_HALF) | CS_BIT(CS_BFLOAT16);
		else if (is_ident_at(c, s, i, "isIntegralType", e)) {
			size_t o = i + 14;
			o = skip_ws(c, e, o);
			set |= ints;
			if (o < e && c[o] == '(') {
				size_t k = match_close(c, e, o), t;
				for (t = o; k < e && t < k; t++)
					if (is_ident_at(c, s, t, "true", k))
						set |= CS_BIT(CS_BOOL);
			}
		} else if (c[i] == '=' && c[i + 1] == '=') {
			size_t a = skip_ws(c, e, i + 2), b = a;
			int d;
			char *w;
			while (b < e && (idc(c[b]) || c[b] == ':'))
				b++;
			w = xstrndup(c + a, b - a);
			d = cs_dtype_parse(w);
			free(w);
			if (d >= 0)
				set |= CS_BIT(d);
			i++;
		}
	}
	return set;
}

/* the n bytes at s hold w */
static int memmem_ident(const char *s, size_t n, const char *w)
{
	size_t l = strlen(w), i;
	for (i = 0; i + l <= n; i++)
		if (memcmp(s + i, w, l) == 0)
			return 1;
	return 0;
}

/* the dtypes of the dispatch call NAME(ARGS) (cs_dispatch_call_types),
 * also when NAME is a macro #defined in the file F that expands to one
 * (`#define _AT_DISPATCH_ALL_TYPES_AND_BOOL(TYPE, NAME, ...)
 * AT_DISPATCH_V2(...)`), at most DEPTH expansions deep: 0, or -1 */
static int dispatch_types(const struct kfile *f, const char *name,
                          char *const *args, size_t na, cs_dtset *out,
                          int depth)
{
	char *pat;
	struct mk_re re;
	size_t ov[2];
	int rc = -1;
	if (cs_dispatch_call_types(name, args, na, out) == 0)
		return 0;
	if (!f || depth <= 0)
		return -1;
	pat = xasprintf("^[ \\t]*#[ \\t]*define[ \\t]+%s[ \\t]*\\(", name);
	re_compile(&re, pat, PCRE2_MULTILINE);
	free(pat);
	if (re_match(&re, f->c, f->n, 0, ov, 1)) {
		size_t a = ov[0], b, ns, ne, open, close;
		while (f->c[a] != '#')
			a++;
		b = lex_directive_end(f->c, f->n, a);
		if (lex_define_head(f->c, a, b, &ns, &ne, &open, &close)) {
			struct lex_macro mc;
			char *x;
			size_t i, xn;
			memset(&mc, 0, sizeof mc);
			lex_define_take(f->c, b, ns, ne, open, close, &mc);
			x = lex_expand(&mc, args, na);
			xn = strlen(x);
			/* the first dispatch call of the expansion */
			for (i = 0; i + 11 < xn && rc != 0; i++) {
				size_t e, q, k, nxa;
				char **xa, *xname;
				if (memcmp(x + i, "AT_DISPATCH", 11) != 0 || (i && idc(x[i - 1])))
					continue;
				for (e = i; e < xn && idc(x[e]); e++)
					;
				q = skip_ws(x, xn, e);
				if (q >= xn || x[q] != '(')
					continue;
				k = match_close(x, xn, q);
				if (k >= xn)
					break;
				xname = xstrndup(x + i, e - i);
				xa = lex_split_args(x, q, k, &nxa);
				rc = dispatch_types(f, xname, xa, nxa, out, depth - 1);
				lex_strv_free(xa, nxa);
				free(xname);
				break;
			}
			free(x);
			lex_macro_free(&mc);
		}
	}
	re_free(&re);
	return rc;
}

/* the dispatch branch of c[o] inside a body c[b0, b1) of file F */
static void branch_of(const struct kfile *f, const char *c, size_t b0,
                      size_t b1, size_t o, const struct ck_code *cd,
                      cs_dtset *types, char **why)
{
	size_t i, best = 0, bclose = 0, bname = 0, bname_e = 0;
	int found = 0;
	*types = 0;
	*why = NULL;
	/* the innermost AT_DISPATCH_* call */
	for (i = b0; i + 12 < o; i++) {
		size_t e, p, k;
		/* an identifier holding AT_DISPATCH: the macros, and file-local
		 * ones such as _AT_DISPATCH_ALL_TYPES_AND_BOOL */
		if (!id0(c[i]) || (i > b0 && idc(c[i - 1])))
			continue;
		for (e = i; e < b1 && idc(c[e]); e++)
			;
		if (e - i < 11 || !memmem_ident(c + i, e - i, "AT_DISPATCH")) {
			i = e - 1;
			continue;
		}
		p = skip_ws(c, b1, e);
		if (p >= b1 || c[p] != '(')
			continue;
		k = match_close(c, b1, p);
		if (k >= b1 || !(p < o && o < k))
			continue;
		if (!found || p > best) {
			found = 1;
			best = p;
			bclose = k;
			bname = i;
			bname_e = e;
		}
	}
	if (found) {
		char *name = xstrndup(c + bname, bname_e - bname);
		size_t na;
		char **args = lex_split_args(c, best, bclose, &na);
		if (dispatch_types(f, name, args, na, types, 2) == 0 || *types) {
			*why = name;
			name = NULL;
		}
		free(name);
		lex_strv_free(args, na);
		if (*why)
			return;
	}
	/* the innermost `if (COND) {` that tests a dtype */
	found = 0;
	for (i = b0; i + 2 < o; i++) {
		size_t p, q, bb, be;
		cs_dtset s;
		if (!is_ident_at(c, b0, i, "if", b1))
			continue;
		p = skip_ws(c, b1, i + 2);
		if (p >= b1 || c[p] != '(')
			continue;
		q = match_close(c, b1, p);
		if (q >= b1)
			continue;
		bb = skip_ws(c, b1, q + 1);
		if (bb >= b1 || c[bb] != '{')
			continue;
		be = match_close(c, b1, bb);
		if (be >= b1 || !(bb < o && o < be))
			continue;
		s = cond_types(c, p + 1, q);
		if (s && (!found || bb > best)) {
			found = 1;
			best = bb;
			*types = s;
			free(*why);
			{
				char *cond = lex_trim_dup(c, p + 1, q);
				size_t l = strlen(cond);
				/* one line for people */
				for (size_t t = 0; t < l; t++)
					if (sp(cond[t]))
						cond[t] = ' ';
				*why = xasprintf("if (%s)", cond);
				free(cond);
			}
		}
	}
	if (found)
		return;
	/* a parameter written with a dtype */
	if (cd && cd->nparams > 0) {
		const char *t = cd->params[0].type;
		int d;
		if (strncmp(t, "const ", 6) == 0)
			t += 6;
		d = cs_dtype_parse(t);
		if (d < 0 && strcmp(t, "double") == 0)
			d = CS_DOUBLE;
		if (d < 0 && strcmp(t, "int64_t") == 0)
			d = CS_LONG;
		if (d >= 0) {
			*types = CS_BIT(d);
			*why = xasprintf("a %s parameter", t);
		}
	}
}

/* ---- conditions that are not the dtype choice ---- */

/* the end of the statement starting at c[s] (s < e): the index of its
 * last byte ('}' of a block, ';' otherwise); e when it does not end */
static size_t branch_stmt_end(const char *c, size_t e, size_t s)
{
	size_t i;
	s = skip_ws(c, e, s);
	if (s < e && c[s] == '{')
		return match_close(c, e, s);
	if (is_ident_at(c, s, s, "if", e)) {
		size_t p = skip_ws(c, e, s + 2), q, t, el;
		if (is_ident_at(c, s, p, "constexpr", e))
			p = skip_ws(c, e, p + 9);
		if (p >= e || c[p] != '(')
			return e;
		q = match_close(c, e, p);
		if (q >= e)
			return e;
		t = branch_stmt_end(c, e, q + 1);
		if (t >= e)
			return e;
		el = skip_ws(c, e, t + 1);
		if (is_ident_at(c, el, el, "else", e))
			return branch_stmt_end(c, e, el + 4);
		return t;
	}
	for (i = s; i < e; i++) {
		if (c[i] == '"' || c[i] == '\'') {
			i = lex_skip_literal(c, e, i) - 1;
			continue;
		}
		if (c[i] == '(' || c[i] == '[' || c[i] == '{') {
			i = match_close(c, e, i);
			if (i >= e)
				return e;
		} else if (c[i] == ';') {
			return i;
		} else if (c[i] == '}') {
			return e;
		}
	}
	return e;
}

/* Walks the code c[a, e) (literals passed over), counting the blocks it
 * opens.  Returns the index of the first `}` that closes a block open at
 * a or, when W is not NULL, of the first word W outside the blocks it
 * opens; e when there is neither. */
static size_t block_scan(const char *c, size_t a, size_t e, const char *w)
{
	size_t i;
	long depth = 0;
	for (i = a; i < e; i++) {
		if (c[i] == '"' || c[i] == '\'') {
			i = lex_skip_literal(c, e, i) - 1;
			continue;
		}
		if (c[i] == '{') {
			depth++;
		} else if (c[i] == '}') {
			if (depth == 0)
				return i;
			depth--;
		} else if (w && depth == 0 && is_ident_at(c, a, i, w, e)) {
			return i;
		}
	}
	return e;
}

/* c[s, t] (one statement) holds a `return` outside any nested block,
 * and more than that return */
static int returns_after_work(const char *c, size_t s, size_t t)
{
	size_t b = skip_ws(c, t, s), ret;
	if (b < t && c[b] == '{')
		b++;
	/* a `}` that closes no block opened after b is passed over */
	ret = block_scan(c, b, t, "return");
	while (ret < t && c[ret] == '}')
		ret = block_scan(c, ret + 1, t, "return");
	/* `if (..) return;`, `if (..) { return; }`: nothing done before */
	return ret < t && skip_ws(c, t, b) != ret;
}

/* the branch c[s, t) takes an operand out of the iterator
 * (`iter.remove_operand(3)`) before it returns: it hands the iterator to
 * another kernel (lerp's CPU-scalar weight), and the code after it is
 * the kernel's math for every input, not one branch of it */
static int hands_over(const char *c, size_t s, size_t t)
{
	static const char w[] = "remove_operand";
	size_t i, n = sizeof w - 1;
	for (i = s; i + n < t; i++)
		if (memcmp(c + i, w, n) == 0 && (i == s || !idc(c[i - 1])) &&
		    !idc(c[i + n]))
			return 1;
	return 0;
}

/* between c[a] and c[o] no block closes that was open at a */
static int same_block(const char *c, size_t a, size_t o)
{
	return block_scan(c, a, o, NULL) == o;
}

/* The statement an `if` or `switch` governs when its `(` stands at c[p],
 * within c[.., e): sets *q to the `)` and returns the statement's end
 * (branch_stmt_end); e when c[p] is not `(`, it does not close, or the
 * condition tests a dtype (cond_types). */
static size_t cond_stmt_end(const char *c, size_t e, size_t p, size_t *q)
{
	*q = e;
	if (p >= e || c[p] != '(')
		return e;
	*q = match_close(c, e, p);
	if (*q >= e || cond_types(c, p + 1, *q))
		return e;
	return branch_stmt_end(c, e, *q + 1);
}

/* the condition COND of an `if (COND)` at c[p, q] (the parentheses), one
 * line for people */
static char *cond_text(const char *c, size_t p, size_t q)
{
	char *cond = lex_trim_dup(c, p + 1, q);
	size_t t, l = strlen(cond), w = 0;
	for (t = 0; t < l; t++) {
		char ch = sp(cond[t]) ? ' ' : cond[t];
		if (ch == ' ' && w && cond[w - 1] == ' ')
			continue;
		cond[w++] = ch;
	}
	cond[w] = '\0';
	return cond;
}

/* The innermost condition of the body c[b0, b1) of file F, not a dtype
 * test (cond_types), that decides whether the code at c[o] runs: an
 * `if (COND)` / `if constexpr (COND)` whose branch or `else` holds o (or a
 * `switch (COND)` whose block does), or,
 * when there is none, the last `if (COND) { ..; return; }` before o in
 * o's block.  *cond: COND (malloc'd), *line its line; 0, or 1 when there
 * is none. */
static int guard_of(const struct kfile *f, const char *c, size_t b0,
                    size_t b1, size_t o, char **cond, unsigned long *line)
{
	size_t i, best = 0, bp = 0, bq = 0, rp = 0, rq = 0;
	int found = 0, ret = 0;
	*cond = NULL;
	*line = 0;
	for (i = b0; i < o; i++) {
		size_t p, q, t, el, ee;
		if (c[i] == '"' || c[i] == '\'') {
			i = lex_skip_literal(c, b1, i) - 1;
			continue;
		}
		if (is_ident_at(c, b0, i, "switch", b1)) {
			/* a loop under one of its cases */
			p = skip_ws(c, b1, i + 6);
			t = cond_stmt_end(c, b1, p, &q);
			if (t < b1 && q < o && o <= t && (!found || i > best)) {
				found = 1;
				best = i;
				bp = p;
				bq = q;
			}
			continue;
		}
		if (!is_ident_at(c, b0, i, "if", b1))
			continue;
		p = skip_ws(c, b1, i + 2);
		if (is_ident_at(c, b0, p, "constexpr", b1))
			p = skip_ws(c, b1, p + 9);
		t = cond_stmt_end(c, b1, p, &q);
		if (t >= b1)
			continue;
		el = skip_ws(c, b1, t + 1);
		ee = is_ident_at(c, el, el, "else", b1) ? branch_stmt_end(c, b1, el + 4) : 0;
		if ((q < o && o <= t) || (ee && el < o && o <= ee && ee < b1)) {
			if (!found || i > best) {
				found = 1;
				best = i;
				bp = p;
				bq = q;
			}
		} else if (t < o && !ee && returns_after_work(c, q + 1, t) &&
		           !hands_over(c, q + 1, t) && same_block(c, t + 1, o)) {
			ret = 1;
			rp = p;
			rq = q;
		}
	}
	if (!found && ret) {
		bp = rp;
		bq = rq;
		found = 1;
	}
	if (!found)
		return 1;
	*cond = cond_text(c, bp, bq);
	*line = line_of(f, bp);
	return 0;
}

/* ---- kernel calls ---- */

struct loop_name {
	const char *name;
	int how;
	int jit;
};

static const struct loop_name gpu_loops[] = {
    {"gpu_kernel", CK_GPU_KERNEL, 0},
    {"gpu_kernel_nocast", CK_GPU_KERNEL, 0},
    {"gpu_kernel_with_scalars", CK_WITH_SCALARS, 0},
    {"opmath_gpu_kernel_with_scalars", CK_WITH_SCALARS, 0},
    {"opmath_symmetric_gpu_kernel_with_scalars", CK_WITH_SCALARS, 0},
    {"symmetric_gpu_kernel_with_scalars", CK_WITH_SCALARS, 0},
    {"jitted_gpu_kernel", CK_JITERATOR, 1},
    {"opmath_jitted_gpu_kernel_with_scalars", CK_JITERATOR, 1},
    {NULL, 0, 0}};

static const struct loop_name cpu_loops[] = {
    {"cpu_kernel", CK_CPU_KERNEL, 0},
    {"cpu_serial_kernel", CK_CPU_KERNEL, 0},
    {"cpu_kernel_vec", CK_CPU_KERNEL_VEC, 0},
    {"cpu_serial_kernel_vec", CK_CPU_KERNEL_VEC, 0},
    {NULL, 0, 0}};

static size_t add_helpers(struct ck_kernel *out, const struct kfile *f,
                          size_t from, size_t to, size_t skip_name_s)
{
	size_t i, n0 = out->nhelpers;
	(void)from;
	(void)to;
	for (i = 0; i < f->ndefs; i++) {
		const struct def *d = &f->defs[i];
		struct ck_code cd;
		if (d->is_struct || d->ns == skip_name_s || d->ns < from || d->ns >= to)
			continue;
		code_of_def(&cd, f, d);
		out->helpers = xrealloc(out->helpers,
		                        (out->nhelpers + 1) * sizeof *out->helpers);
		out->helpers[out->nhelpers++] = cd;
	}
	return out->nhelpers - n0;
}

/* the helpers of file f, added once per kernel: their range */
struct file_range {
	const struct kfile *f;
	size_t from, to;
};

static void file_helpers(struct ck_kernel *out, struct file_range *fr,
                         size_t *nfr, const struct kfile *f, size_t *from,
                         size_t *to)
{
	size_t i;
	for (i = 0; i < *nfr; i++)
		if (fr[i].f == f) {
			*from = fr[i].from;
			*to = fr[i].to;
			return;
		}
	*from = out->nhelpers;
	add_helpers(out, f, 0, f->n, (size_t)-1);
	*to = out->nhelpers;
	if (*nfr < 32) {
		fr[*nfr].f = f;
		fr[*nfr].from = *from;
		fr[*nfr].to = *to;
		(*nfr)++;
	}
}

static void add_lambda(struct ck_kernel *out, int how, const char *call,
                       struct ck_code *cd, cs_dtset types, char *why,
                       size_t hfrom, size_t hto)
{
	struct ck_lambda *l;
	out->lambdas = xrealloc(out->lambdas,
	                        (out->nlambdas + 1) * sizeof *out->lambdas);
	l = &out->lambdas[out->nlambdas++];
	memset(l, 0, sizeof *l);
	l->how = how;
	l->call = call;
	l->code = *cd;
	l->dtypes = types;
	l->branch = why;
	l->helpers_from = hfrom;
	l->helpers_to = hto;
}

/* the lambdas out->lambdas[from..] without a condition get the one of
 * the site c[o] in the body c[b0, b1) of F (guard_of), if any */
static void guard_lambdas(struct ck_kernel *out, size_t from,
                          const struct kfile *f, size_t b0, size_t b1, size_t o)
{
	char *cond;
	unsigned long line;
	size_t i;
	if (from >= out->nlambdas || guard_of(f, f->c, b0, b1, o, &cond, &line) != 0)
		return;
	for (i = from; i < out->nlambdas; i++)
		if (!out->lambdas[i].guard) {
			out->lambdas[i].guard = xstrdup(cond);
			out->lambdas[i].guard_file = xstrdup(f->rel);
			out->lambdas[i].guard_line = line;
		}
	free(cond);
}

/* S is one whole identifier: the only names char_array and jit_lambda
 * put into a pattern (a name read from a broken call could hold PCRE2's
 * syntax, and re_compile then died: found by fuzz_translate) */
static int whole_ident(const char *s)
{
	size_t n = strlen(s);
	return n > 0 && lex_id0(s[0]) && lex_ident_end(s, n, 0) == n;
}

/* `NAME[] = "str"` in the file: the string, malloc'd; NULL when none */
static char *char_array(const struct kfile *f, const char *name)
{
	char *pat;
	if (!whole_ident(name))
		return NULL;
	pat = xasprintf("\\b%s\\s*\\[\\s*\\]\\s*=\\s*\"([A-Za-z_0-9]*)\"", name);
	struct mk_re re;
	size_t ov[4];
	char *s = NULL;
	re_compile(&re, pat, 0);
	if (re_match(&re, f->c, f->n, 0, ov, 2))
		s = xstrndup(f->c + ov[2], ov[3] - ov[2]);
	re_free(&re);
	free(pat);
	return s;
}

/* the jiterator kernel: template argument 0 names the char array, args
 * [as, ae) the call's second argument, the string variable */
static void jit_lambda(struct ck_kernel *out, struct kfile *f, size_t ta,
                       size_t tb, size_t as, size_t ae, size_t b0, size_t b1,
                       size_t site, const char *call)
{
	const char *c = f->c;
	char *var = trim_dup(c, as, ae), *fname = NULL, *pat;
	struct mk_re re;
	size_t ov[4];
	if (!whole_ident(var)) {
		free(var);
		return;
	}
	if (ta < tb) {
		size_t st[8], en[8];
		size_t n = split_top(c, ta + 1, tb - 1, st, en, 8);
		if (n >= 1) {
			char *arr = trim_dup(c, st[0], en[0]);
			fname = char_array(f, arr);
			free(arr);
		}
	}
	pat = xasprintf("\\b%s\\s*=\\s*jiterator_stringify\\s*\\(", var);
	re_compile(&re, pat, 0);
	if (re_match(&re, c, f->n, 0, ov, 2)) {
		size_t open = ov[1] - 1, close = match_close(c, f->n, open);
		if (close < f->n) {
			size_t before = f->ndefs, i, pick = (size_t)-1, hfrom;
			index_range(f, open + 1, close);
			/* the function NAME's string names, else the last one */
			for (i = before; i < f->ndefs; i++) {
				const struct def *x = &f->defs[i];
				if (x->is_struct)
					continue;
				if (fname && word_is(c, x->ns, x->ne, fname)) {
					pick = i;
					break;
				}
				pick = i;
			}
			if (pick != (size_t)-1) {
				struct ck_code cd;
				cs_dtset types;
				char *why;
				code_of_def(&cd, f, &f->defs[pick]);
				hfrom = out->nhelpers;
				add_helpers(out, f, open + 1, close, f->defs[pick].ns);
				branch_of(f, c, b0, b1, site, &cd, &types, &why);
				add_lambda(out, CK_JITERATOR, call, &cd, types, why, hfrom,
				           out->nhelpers);
				guard_lambdas(out, out->nlambdas - 1, f, b0, b1, site);
			}
			/* these definitions belong to the string, not the file */
			f->ndefs = before;
		}
	}
	re_free(&re);
	free(pat);
	free(var);
	free(fname);
}

/* `NAME = [..] (..) {..}` in c[b0, before): the lambda's extent */
static int var_lambda(const struct kfile *f, const char *name, size_t b0,
                      size_t before, struct ck_code *cd)
{
	char *pat = xasprintf("\\b%s\\s*=\\s*\\[", name);
	struct mk_re re;
	size_t ov[2], start = b0, at = (size_t)-1;
	int ok = 0;
	re_compile(&re, pat, 0);
	while (start < before && re_match(&re, f->c, before, start, ov, 1)) {
		at = ov[1] - 1;
		start = ov[1];
	}
	re_free(&re);
	free(pat);
	if (at != (size_t)-1) {
		size_t e = match_close(f->c, f->n, at);
		size_t k = e < f->n ? skip_ws(f->c, f->n, e + 1) : f->n;
		/* the lambda runs to the ';' after its body */
		while (k < f->n && f->c[k] != ';') {
			if (f->c[k] == '{' || f->c[k] == '(') {
				k = match_close(f->c, f->n, k);
				if (k >= f->n)
					break;
			}
			k++;
		}
		ok = parse_lambda(cd, f, at, k);
	}
	return ok;
}

struct folder;
static const struct def *find_struct(struct folder *fo, struct kfile *f,
                                     const char *name, struct kfile **in);
static void file_helpers_inc(struct ck_kernel *out, struct file_range *fr,
                             size_t *nfr, struct folder *fo, struct kfile *f,
                             size_t *from, size_t *to);
static void outer_decls(struct ck_lambda *l, const struct kfile *f, size_t b0,
                        size_t site);

/* `S<..> NAME;` (or `S NAME(..)`, `S NAME{..}`) in c[b0, before): S */
static char *var_struct(const struct kfile *f, const char *name, size_t b0,
                        size_t before)
{
	char *pat = xasprintf("\\b([A-Za-z_][A-Za-z_0-9:]*)\\s*(?:<[^;{}()]*>)?\\s+"
	                      "%s\\s*[;({=]", name);
	struct mk_re re;
	size_t ov[4], start = b0;
	char *s = NULL;
	re_compile(&re, pat, 0);
	while (start < before && re_match(&re, f->c, before, start, ov, 2)) {
		free(s);
		s = xstrndup(f->c + ov[2], ov[3] - ov[2]);
		start = ov[1];
	}
	re_free(&re);
	free(pat);
	return s;
}

/* every loop call in f->c[b0, b1) */
static size_t scan_body(struct ck_kernel *out, struct folder *fo,
                        struct kfile *f, size_t b0, size_t b1,
                        const struct loop_name *loops, struct file_range *fr,
                        size_t *nfr)
{
	const char *c = f->c;
	size_t i, found = 0;
	for (i = b0; i < b1; i++) {
		size_t e, k, ta = 0, tb = 0, open, close, st[4], en[4], na;
		const struct loop_name *ln;
		if (!id0(c[i]) || (i > b0 && (idc(c[i - 1]) || c[i - 1] == '.')) ||
		    (i > b0 + 1 && c[i - 1] == '>' && c[i - 2] == '-'))
			continue;
		for (e = i; e < b1 && idc(c[e]); e++)
			;
		for (ln = loops; ln->name; ln++)
			if (word_is(c, i, e, ln->name))
				break;
		if (!ln->name) {
			i = e - 1;
			continue;
		}
		k = skip_ws(c, b1, e);
		if (k < b1 && c[k] == '<') {
			ta = k;
			tb = skip_angles(c, b1, k);
			if (tb == k) {
				i = e - 1;
				continue;
			}
			k = skip_ws(c, b1, tb);
		}
		if (k >= b1 || c[k] != '(') {
			i = e - 1;
			continue;
		}
		open = k;
		close = match_close(c, b1, open);
		if (close >= b1) {
			i = e - 1;
			continue;
		}
		na = split_top(c, open + 1, close, st, en, 4);
		if (na >= 2) {
			struct ck_code cd;
			int got = 0, how = ln->how;
			size_t a = skip_ws(c, en[1], st[1]), hfrom, hto;
			if (ln->jit) {
				jit_lambda(out, f, ta, tb, st[1], en[1], b0, b1, i, ln->name);
				found++;
				i = close;
				continue;
			}
			if (a < en[1] && c[a] == '[') {
				got = parse_lambda(&cd, f, a, en[1]);
			} else if (a < en[1] && id0(c[a])) {
				size_t w = a, q;
				char *name;
				while (w < en[1] && (idc(c[w]) || c[w] == ':'))
					w++;
				name = xstrndup(c + a, w - a);
				q = skip_ws(c, en[1], w);
				if (q < en[1] && (c[q] == '<' || c[q] == '(' || c[q] == '{')) {
					struct kfile *in = f;
					const struct def *d = find_struct(fo, f, lex_unqualified(name), &in);
					if (d && struct_call(&cd, in, d)) {
						got = 1;
						how = CK_FUNCTOR;
					}
				} else if (q >= back_ws(c, a, en[1])) {
					got = var_lambda(f, name, b0, i, &cd);
					if (!got) {
						char *st = var_struct(f, name, b0, i);
						struct kfile *in = f;
						const struct def *d =
						    st ? find_struct(fo, f, lex_unqualified(st), &in) : NULL;
						if (d && struct_call(&cd, in, d)) {
							got = 1;
							how = CK_FUNCTOR;
						}
						free(st);
					}
				}
				free(name);
			}
			if (got) {
				cs_dtset types;
				char *why;
				branch_of(f, c, b0, b1, i, &cd, &types, &why);
				file_helpers_inc(out, fr, nfr, fo, f, &hfrom, &hto);
				add_lambda(out, how, ln->name, &cd, types, why, hfrom, hto);
				guard_lambdas(out, out->nlambdas - 1, f, b0, b1, i);
				if (cd.captures && *cd.captures)
					outer_decls(&out->lambdas[out->nlambdas - 1], f, b0, i);
				found++;
			}
		}
		i = close;
	}
	return found;
}

/* ---- the CUDA folder ---- */

struct folder {
	struct kfile *files;
	size_t n;
	const char *root;
	struct kfile **hdrs;    /* ATen/native headers read for their helpers
	                           (native_header), each owned */
	size_t nhdrs;
};

static void folder_free(struct folder *fo)
{
	size_t i;
	for (i = 0; i < fo->n; i++)
		kfile_free(&fo->files[i]);
	free(fo->files);
	for (i = 0; i < fo->nhdrs; i++) {
		kfile_free(fo->hdrs[i]);
		free(fo->hdrs[i]);
	}
	free(fo->hdrs);
	memset(fo, 0, sizeof *fo);
}

static int folder_load(struct folder *fo, const char *root)
{
	static const char *const sufs[] = {".cu", ".cuh", ".h", NULL};
	struct walk_list wl;
	size_t i;
	memset(fo, 0, sizeof *fo);
	fo->root = root;
	if (walk_files(root, CK_CUDA_REL, 0, NULL, sufs, &wl) != 0)
		return -1;
	fo->files = wl.n ? xcalloc(wl.n, sizeof *fo->files) : NULL;
	for (i = 0; i < wl.n; i++) {
		char *path = xasprintf("%s/%s", root, wl.paths[i]), *data;
		size_t len;
		if (read_source_file(path, &data, &len) != 0) {
			free(path);
			walk_free(&wl);
			folder_free(fo);
			return -1;
		}
		free(path);
		kfile_take(&fo->files[fo->n++], wl.paths[i], data, len);
	}
	walk_free(&wl);
	return 0;
}

/* the file and definition of function NAME: in PREFER first, then every
 * file whose text names it */
static const struct def *find_fn(struct folder *fo, struct kfile *prefer,
                                 const char *name, struct kfile **in)
{
	size_t i;
	const struct def *d;
	if (prefer) {
		kfile_index(prefer);
		if ((d = find_def(prefer, name, 0, 0))) {
			*in = prefer;
			return d;
		}
	}
	for (i = 0; i < fo->n; i++) {
		struct kfile *f = &fo->files[i];
		if (f == prefer || !strstr(f->raw, name))
			continue;
		kfile_index(f);
		if ((d = find_def(f, name, 0, 0))) {
			*in = f;
			return d;
		}
	}
	return NULL;
}

/* the struct NAME: in f first, then in every file of the folder whose
 * text names it (headers first) */
static const struct def *find_struct(struct folder *fo, struct kfile *f,
                                     const char *name, struct kfile **in)
{
	size_t i;
	int pass;
	const struct def *d;
	kfile_index(f);
	if ((d = find_def(f, name, 1, 0))) {
		*in = f;
		return d;
	}
	for (pass = 0; fo && pass < 2; pass++)
		for (i = 0; i < fo->n; i++) {
			struct kfile *g = &fo->files[i];
			int hdr = !str_ends_with(g->rel, ".cu");
			if (g == f || hdr != !pass || !strstr(g->raw, name))
				continue;
			kfile_index(g);
			if ((d = find_def(g, name, 1, 0))) {
				*in = g;
				return d;
			}
		}
	return NULL;
}

/* the header aten/src/REL (REL "ATen/native/X.h"), read once into the
 * folder; NULL when it cannot be read */
static struct kfile *native_header(struct folder *fo, const char *rel)
{
	char *frel = xasprintf("aten/src/%s", rel), *path, *data;
	size_t i, len;
	struct kfile *g;
	for (i = 0; i < fo->nhdrs; i++)
		if (!strcmp(fo->hdrs[i]->rel, frel)) {
			free(frel);
			return fo->hdrs[i];
		}
	path = xasprintf("%s/%s", fo->root, frel);
	/* a header the tree lacks (a generated one) is passed over quietly */
	if (access(path, R_OK) != 0 || read_source_file(path, &data, &len) != 0) {
		free(path);
		free(frel);
		return NULL;
	}
	free(path);
	g = xmalloc(sizeof *g);
	kfile_take(g, frel, data, len);
	free(frel);
	fo->hdrs = xrealloc(fo->hdrs, (fo->nhdrs + 1) * sizeof *fo->hdrs);
	fo->hdrs[fo->nhdrs++] = g;
	return g;
}

/* the helpers of f and of the headers f includes: the folder's, and
 * ATen/native's own (`#include <ATen/native/Lerp.h>`: lerp's helper) */
static void file_helpers_inc(struct ck_kernel *out, struct file_range *fr,
                             size_t *nfr, struct folder *fo, struct kfile *f,
                             size_t *from, size_t *to)
{
	size_t i, before = *nfr;
	file_helpers(out, fr, nfr, f, from, to);
	/* the included headers' functions follow f's own, added once, right
	 * after them */
	if (!fo || *nfr == before)
		return;
	for (i = 0; i < fo->n; i++) {
		struct kfile *g = &fo->files[i];
		const char *base = strrchr(g->rel, '/');
		char *pat;
		int inc;
		base = base ? base + 1 : g->rel;
		if (g == f || str_ends_with(g->rel, ".cu"))
			continue;
		pat = xasprintf("#include <ATen/native/cuda/%s>", base);
		inc = strstr(f->raw, pat) != NULL;
		free(pat);
		if (!inc) {
			pat = xasprintf("#include \"ATen/native/cuda/%s\"", base);
			inc = strstr(f->raw, pat) != NULL;
			free(pat);
		}
		if (!inc)
			continue;
		kfile_index(g);
		add_helpers(out, g, 0, g->n, (size_t)-1);
	}
	if (fo->root) {
		const char *p = f->raw;
		static const char inc[] = "#include <ATen/native/";
		while ((p = strstr(p, inc)) != NULL) {
			const char *b = p + 10, *e = p + strlen(inc);
			char *rel;
			struct kfile *g;
			while (*e && *e != '>' && *e != '\n' && *e != '/')
				e++;
			p = e;
			/* one level: cuda/ (the folder's), cpu/, mps/ are not read */
			if (*e != '>' || e - b < 3 || strncmp(e - 2, ".h", 2) != 0)
				continue;
			rel = xstrndup(b, (size_t)(e - b));
			g = native_header(fo, rel);
			free(rel);
			if (!g)
				continue;
			kfile_index(g);
			add_helpers(out, g, 0, g->n, (size_t)-1);
		}
	}
	*to = out->nhelpers;
	for (i = 0; i < *nfr; i++)
		if (fr[i].f == f)
			fr[i].to = *to;
}

/* the declarations in c[b0, site) a lambda's captures may name */
static void outer_decls(struct ck_lambda *l, const struct kfile *f, size_t b0,
                        size_t site)
{
	struct mk_re re;
	size_t ov[4], start = b0;
	re_compile(&re,
	           "(?:^|[;{}])\\s*((?:(?:const|constexpr|static)\\s+)*"
	           "(?:auto|opmath_t|scalar_t|accscalar_t|float|double|int|int64_t|"
	           "bool|(?:at::)?opmath_type<scalar_t>)\\s+[A-Za-z_][A-Za-z_0-9]*"
	           "\\s*[=({][^;]*;)",
	           0);
	while (start < site && re_match(&re, f->c, site, start, ov, 2)) {
		if (l->nouter < 32) {
			l->outer = xrealloc(l->outer, (l->nouter + 1) * sizeof *l->outer);
			l->outer[l->nouter++] = xstrndup(f->c + ov[2], ov[3] - ov[2]);
		}
		start = ov[3] - 1; /* its ';' may start the next one */
	}
	re_free(&re);
}

/* the loops of function d of f, following the functions of the folder
 * it calls when it has none itself (DEPTH more levels) */
static size_t scan_fn(struct ck_kernel *out, struct folder *fo, struct kfile *f,
                      const struct def *d, int depth, struct file_range *fr,
                      size_t *nfr, const struct loop_name *loops)
{
	size_t n = scan_body(out, fo, f, d->bopen + 1, d->bclose, loops, fr, nfr), i;
	const char *c = f->c;
	if (n || depth == 0 || !fo)
		return n;
	for (i = d->bopen + 1; i < d->bclose; i++) {
		size_t e, k;
		char *name;
		const struct def *cd;
		struct kfile *in = NULL;
		if (!id0(c[i]) || idc(c[i - 1]) || c[i - 1] == '.')
			continue;
		for (e = i; e < d->bclose && idc(c[e]); e++)
			;
		k = skip_ws(c, d->bclose, e);
		if (k < d->bclose && c[k] == '<') {
			size_t t = skip_angles(c, d->bclose, k);
			if (t > k)
				k = skip_ws(c, d->bclose, t);
		}
		if (k >= d->bclose || c[k] != '(' || e - i < 3 ||
		    strncmp(c + i, "AT_", 3) == 0 || strncmp(c + i, "TORCH_", 6) == 0) {
			i = e - 1;
			continue;
		}
		name = xstrndup(c + i, e - i);
		cd = find_fn(fo, f, name, &in);
		free(name);
		if (cd && cd != d) {
			/* a definition in another file: its own offsets; a call
			 * under a condition puts its lambdas under it */
			size_t from = out->nlambdas;
			n += scan_fn(out, fo, in, cd, depth - 1, fr, nfr, loops);
			guard_lambdas(out, from, f, d->bopen + 1, d->bclose, i);
		}
		i = e - 1;
	}
	return n;
}

static void kernel_done(struct ck_kernel *out, const char *kind)
{
	if (out->nlambdas == 0 && !out->why)
		out->why = xasprintf("no %s loop (gpu_kernel, jitted_gpu_kernel, "
		                     "cpu_kernel...) with a lambda was read in %s "
		                     "(%s:%lu)",
		                     kind, out->fn, out->def_file, out->def_line);
}

int ck_cuda_kernel(const char *root, const char *stub, struct ck_kernel *out)
{
	struct folder fo;
	size_t i;
	struct kfile *rf = NULL, *df = NULL;
	const struct def *d;
	struct file_range fr[32];
	size_t nfr = 0;
	char *pat;
	struct mk_re re;

	memset(out, 0, sizeof *out);
	if (folder_load(&fo, root) != 0)
		return -1;
	if (fo.n == 0) {
		out->why = xasprintf("the tree has no %s/*.cu files", CK_CUDA_REL);
		folder_free(&fo);
		return 1;
	}
	pat = xasprintf("\\bREGISTER_DISPATCH\\s*\\(\\s*%s\\s*,\\s*&?\\s*"
	                "([A-Za-z_][A-Za-z_0-9:]*)\\s*\\)", stub);
	re_compile(&re, pat, 0);
	free(pat);
	for (i = 0; i < fo.n && !rf; i++) {
		size_t ov[4];
		struct kfile *f = &fo.files[i];
		if (!str_ends_with(f->rel, ".cu") || !strstr(f->raw, stub))
			continue;
		kfile_ready(f);
		if (re_match(&re, f->c, f->n, 0, ov, 2)) {
			rf = f;
			{
				char *q = xstrndup(f->c + ov[2], ov[3] - ov[2]);
				out->fn = xstrdup(lex_unqualified(q));
				free(q);
			}
			out->reg_file = xstrdup(f->rel);
			out->reg_line = line_of(f, ov[0]);
		}
	}
	re_free(&re);
	if (!rf) {
		out->why = xasprintf("no REGISTER_DISPATCH(%s, ...) in %s/*.cu", stub,
		                     CK_CUDA_REL);
		folder_free(&fo);
		return 1;
	}
	d = find_fn(&fo, rf, out->fn, &df);
	if (!d) {
		out->why = xasprintf("%s, registered at %s:%lu, is not defined in a "
		                     "%s/*.cu file (a macro may write it)",
		                     out->fn, out->reg_file, out->reg_line, CK_CUDA_REL);
		folder_free(&fo);
		return 1;
	}
	out->found = 1;
	out->def_file = xstrdup(df->rel);
	out->def_line = line_of(df, d->ns);
	scan_fn(out, &fo, df, d, 2, fr, &nfr, gpu_loops);
	kernel_done(out, "CUDA");
	folder_free(&fo);
	return 0;
}

static int kernel_in(struct kfile *f, const char *fn, unsigned long line,
                     struct ck_kernel *out, int cpu)
{
	const struct def *d = NULL;
	struct file_range fr[32];
	size_t nfr = 0, i;
	kfile_index(f);
	for (i = 0; i < f->ndefs; i++) {
		const struct def *x = &f->defs[i];
		if (!x->is_struct && word_is(f->c, x->ns, x->ne, fn) &&
		    (!d || (line && line_of(f, x->ns) == line)))
			d = x;
	}
	if (!d)
		return 1;
	out->found = 1;
	free(out->fn);
	out->fn = xstrdup(fn);
	out->def_file = xstrdup(f->rel);
	out->def_line = line_of(f, d->ns);
	scan_fn(out, NULL, f, d, 0, fr, &nfr, cpu ? cpu_loops : gpu_loops);
	kernel_done(out, cpu ? "CPU" : "CUDA");
	return 0;
}

int ck_cpu_kernel(const char *root, const char *file, unsigned long line,
                  const char *fn, struct ck_kernel *out)
{
	char *path, *data;
	size_t len;
	struct kfile f;
	int rc;
	memset(out, 0, sizeof *out);
	path = xasprintf("%s/%s", root, file);
	if (read_source_file(path, &data, &len) != 0) {
		free(path);
		return -1;
	}
	free(path);
	kfile_take(&f, file, data, len);
	rc = kernel_in(&f, fn, line, out, 1);
	if (rc) {
		out->fn = xstrdup(fn);
		out->why = xasprintf("%s (%s:%lu) is not a function definition of its "
		                     "file as written (a macro may write it)",
		                     fn, file, line);
	}
	kfile_free(&f);
	return rc;
}

int ck_lambdas_text(const char *display, const char *text, size_t len,
                    const char *fn, int cpu, struct ck_kernel *out)
{
	struct kfile f;
	int rc;
	memset(out, 0, sizeof *out);
	kfile_take(&f, display, xstrndup(text, len), len);
	rc = kernel_in(&f, fn, 0, out, cpu);
	kfile_free(&f);
	return rc;
}

void ck_kernel_free(struct ck_kernel *k)
{
	size_t i;
	for (i = 0; i < k->nlambdas; i++) {
		ck_code_free(&k->lambdas[i].code);
		free(k->lambdas[i].branch);
		free(k->lambdas[i].guard);
		free(k->lambdas[i].guard_file);
		lex_strv_free(k->lambdas[i].outer, k->lambdas[i].nouter);
	}
	free(k->lambdas);
	for (i = 0; i < k->nhelpers; i++)
		ck_code_free(&k->helpers[i]);
	free(k->helpers);
	free(k->fn);
	free(k->reg_file);
	free(k->def_file);
	free(k->why);
	memset(k, 0, sizeof *k);
}

int ck_namespace_functions(const char *text, size_t len, const char *ns,
                           char ***names, size_t *n)
{
	struct kfile f;
	size_t i, cap = *n;
	kfile_take(&f, "", xstrndup(text, len), len);
	kfile_index(&f);
	for (i = 0; i < f.ndefs; i++) {
		const struct def *d = &f.defs[i];
		size_t k;
		int dup = 0;
		if (d->is_struct || strcmp(d->nspath, ns) != 0)
			continue;
		for (k = 0; k < *n && !dup; k++)
			dup = word_is(f.c, d->ns, d->ne, (*names)[k]);
		if (dup)
			continue;
		GROW(*names, *n, cap);
		(*names)[(*n)++] = xstrndup(f.c + d->ns, d->ne - d->ns);
	}
	kfile_free(&f);
	return 0;
}

int ck_c10_metal_functions(const char *root, char ***names, size_t *n)
{
	static const char *const sufs[] = {".h", NULL};
	struct walk_list wl;
	size_t i;
	*names = NULL;
	*n = 0;
	if (walk_files(root, "c10/metal", 0, NULL, sufs, &wl) != 0)
		return -1;
	for (i = 0; i < wl.n; i++) {
		char *path = xasprintf("%s/%s", root, wl.paths[i]), *data;
		size_t len;
		int rc = read_source_file(path, &data, &len);
		free(path);
		if (rc != 0) {
			walk_free(&wl);
			return -1;
		}
		ck_namespace_functions(data, len, "c10::metal", names, n);
		free(data);
	}
	walk_free(&wl);
	return 0;
}

const struct ck_code *ck_lambda_helpers(const struct ck_kernel *k,
                                        const struct ck_lambda *l, size_t *n)
{
	*n = l->helpers_to - l->helpers_from;
	return *n ? k->helpers + l->helpers_from : NULL;
}

int ck_type_is(const char *type, const char *base)
{
	size_t n = strlen(base);
	if (strncmp(type, "const ", 6) == 0)
		type += 6;
	return strncmp(type, base, n) == 0 && (!type[n] || !strcmp(type + n, " const"));
}
