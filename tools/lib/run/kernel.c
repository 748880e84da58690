/* kernel.c — run.h's reading of a Metal source: its kernels, the host copy
 * and the driver unit.
 *
 * Code is told from comments by mask_code (scan.h); string and character
 * literals are skipped with lex_skip_literal.  Every edit replaces a
 * span of the text by a text with the same line breaks, so that the
 * compiler's lines and the checks' lines are the source's. */
#include "run/run.h"
#include "base/diag.h"
#include "base/lex.h"
#include "base/scan.h"
#include "check/try.h"
#include "read/metalreg.h"

#include <string.h>

struct edit {
	size_t a, b;
	char *with;
};

struct edits {
	struct edit *e;
	size_t n, cap;
};

static void edit_add(struct edits *es, size_t a, size_t b, char *with)
{
	GROW(es->e, es->n, es->cap);
	es->e[es->n].a = a;
	es->e[es->n].b = b;
	es->e[es->n].with = with;
	es->n++;
}

/* 1 when offset I lies inside a span an edit replaces */
static int in_edit(const struct edits *es, size_t i)
{
	for (size_t q = 0; q < es->n; q++)
		if (es->e[q].a <= i && i < es->e[q].b)
			return 1;
	return 0;
}

/* the line breaks of t[a, b) appended to s (which is freed) */
static char *keep_lines(char *s, const char *t, size_t a, size_t b)
{
	struct buf o;
	buf_init(&o);
	buf_puts(&o, s);
	for (size_t i = a; i < b; i++)
		if (t[i] == '\n')
			buf_add(&o, "\n", 1);
	free(s);
	return o.data;
}

static unsigned long line_of(const char *t, size_t i)
{
	unsigned long l = 1;
	for (size_t k = 0; k < i; k++)
		l += t[k] == '\n';
	return l;
}

static const char *const pos_attrs[] = {
	"thread_position_in_grid", "threadgroup_position_in_grid",
	"thread_position_in_threadgroup", "threads_per_threadgroup",
	"dispatch_threads_per_threadgroup", "threads_per_grid",
	"threadgroups_per_grid", "thread_index_in_threadgroup",
	"thread_index_in_simdgroup", "simdgroup_index_in_threadgroup",
	"threads_per_simdgroup", "simdgroups_per_threadgroup",
	"dispatch_simdgroups_per_threadgroup", "thread_index_in_quadgroup",
	"quadgroup_index_in_threadgroup", "quadgroups_per_threadgroup",
	"thread_execution_width", NULL,
};

int run_pos_attr(const char *attr, size_t len)
{
	for (size_t i = 0; pos_attrs[i]; i++)
		if (lex_span_is(attr, len, pos_attrs[i]))
			return 1;
	return 0;
}

/* the words of t[a, b) with brackets [[...]] removed, as one string with
 * single spaces ("device const float * x") */
static char *squeeze(const char *t, size_t a, size_t b)
{
	struct buf o;
	buf_init(&o);
	int sp = 0;
	for (size_t i = a; i < b; i++) {
		char c = t[i];
		if (lex_sp(c)) {
			sp = o.len > 0;
			continue;
		}
		if (sp)
			buf_add(&o, " ", 1);
		sp = 0;
		if (c == '*' || c == '&') {
			if (o.len && o.data[o.len - 1] != ' ')
				buf_add(&o, " ", 1);
			buf_add(&o, &c, 1);
			sp = 1;
			continue;
		}
		buf_add(&o, &c, 1);
	}
	return o.data ? o.data : xstrdup("");
}

/* remove the whole word W from S (in place), every occurrence; returns
 * how many */
static int drop_word(char *s, const char *w)
{
	size_t n = strlen(w);
	int k = 0;
	for (char *p = s; (p = strstr(p, w)) != NULL;) {
		int before = p == s || p[-1] == ' ';
		int after = p[n] == 0 || p[n] == ' ';
		if (before && after) {
			memmove(p, p + n + (p[n] == ' '), strlen(p + n + (p[n] == ' ')) + 1);
			k++;
		} else {
			p += n;
		}
	}
	size_t l = strlen(s);
	while (l && s[l - 1] == ' ')
		s[--l] = 0;
	return k;
}

/* one parameter t[a, b) of kernel K; edits for a buffer.  -1 with *err */
static int param(const char *t, size_t a, size_t b, struct run_kernel *k, long *order,
                 struct edits *es, char **err, size_t *err_at)
{
	size_t i, aa = 0, ab = 0;
	long slot = -1;
	a = lex_skip_ws(t, b, a);
	b = lex_back_ws(t, a, b);
	/* the attribute [[...]] */
	for (i = a; i + 1 < b; i++)
		if (t[i] == '[' && t[i + 1] == '[') {
			aa = i;
			ab = lex_match_close(t, b, i, '[', ']');
			break;
		}
	size_t te = aa ? aa : b;
	char *decl = squeeze(t, a, te);
	char *attr = aa ? lex_trim_dup(t, aa + 2, ab > aa + 2 ? ab - 1 : aa + 2) : NULL;
	if (attr) {
		size_t l = strlen(attr);
		while (l && (attr[l - 1] == ']' || attr[l - 1] == ' '))
			attr[--l] = 0;
		if (!strncmp(attr, "buffer(", 7))
			slot = strtol(attr + 7, NULL, 10);
	}
	/* the name: the last word */
	char *sp = strrchr(decl, ' ');
	if (!sp) {
		*err = xasprintf("cannot read the parameter '%s' of kernel '%s'", decl, k->name);
		*err_at = a;
		free(decl);
		free(attr);
		return -1;
	}
	*sp = 0;
	char *name = xstrdup(sp + 1);
	char *type = decl;
	struct run_param p = {0};
	p.name = name;
	p.slot = -1;
	if (attr && run_pos_attr(attr, strlen(attr))) {
		drop_word(type, "const");
		p.kind = RUN_POS;
		p.type = type;
		p.attr = attr;
		attr = NULL;
	} else if (strstr(type, "threadgroup")) {
		*err = xasprintf("kernel '%s': threadgroup parameter '%s': torch.mps.compile_shader cannot "
		                 "size threadgroup memory (it binds buffers and bytes only); declare "
		                 "`threadgroup T %s[N];` in the kernel's body", k->name, name, name);
		*err_at = a;
		free(name);
		free(type);
		free(attr);
		return -1;
	} else {
		size_t l = strlen(type);
		int ptr = l > 1 && type[l - 1] == '*', ref = l > 1 && type[l - 1] == '&';
		if (!ptr && !ref) {
			*err = xasprintf("kernel '%s': parameter '%s' is neither a buffer (T*), a reference "
			                 "(constant T&) nor a thread-position attribute", k->name, name);
			*err_at = a;
			free(name);
			free(type);
			free(attr);
			return -1;
		}
		type[l - 1] = 0;
		int cst = drop_word(type, "constant");
		int dev = drop_word(type, "device");
		int cq = drop_word(type, "const");
		(void)dev;
		p.type = type;
		if (ref) {
			p.kind = RUN_SCALAR;
		} else {
			p.kind = (cst || cq) ? RUN_CBUF : RUN_BUF;
			char *w = xasprintf("::metal_host::model::dptr<%s%s> %s", p.kind == RUN_CBUF ? "const " : "",
			                    type, name);
			edit_add(es, a, b, keep_lines(w, t, a, b));
		}
		p.slot = slot >= 0 ? slot : *order;
		(*order)++;
	}
	free(attr);
	GROW(k->p, k->np, k->cap_);
	k->p[k->np++] = p;
	return 0;
}

/* in the body t[a, b): threadgroup arrays, and the NAME[ of checked names */
static int body(const char *t, const char *m, size_t a, size_t b, struct run_kernel *k,
                struct edits *es, char **err, size_t *err_at)
{
	char **names = NULL, **flat = NULL;
	size_t nn = 0, cap = 0, nflat = 0, fcap = 0;
	for (size_t i = 0; i < k->np; i++)
		if (k->p[i].kind == RUN_BUF || k->p[i].kind == RUN_CBUF) {
			GROW(names, nn, cap);
			names[nn++] = k->p[i].name;
		}
	/* threadgroup declarations */
	for (size_t i = a; i < b; i++) {
		if (m[i] == '"' || m[i] == '\'') {
			i = lex_skip_literal(m, b, i) - 1;
			continue;
		}
		if (!lex_word_at(m, b, i, "threadgroup")) {
			if (lex_id0(m[i]))
				i = lex_ident_end(m, b, i) - 1;
			continue;
		}
		size_t s = i, e = s;
		while (e < b && m[e] != ';' && m[e] != '=' && m[e] != '*' && m[e] != '[' && m[e] != '&' &&
		       m[e] != ')' && m[e] != ',')
			e++;
		if (e >= b || m[e] == '*' || m[e] == '&' || m[e] == ')' || m[e] == ',') {
			i = e;
			continue; /* a pointer or reference, a cast */
		}
		if (m[e] != '[') {
			*err = xasprintf("kernel '%s': a threadgroup scalar is not supported yet by mps-run "
			                 "(use an array of one element)", k->name);
			*err_at = s;
			free(names);
			free(flat);
			return -1;
		}
		/* threadgroup TYPE NAME [N] ; */
		size_t ne = lex_back_ws(m, s, e), nb = ne;
		while (nb > s && lex_idc(m[nb - 1]))
			nb--;
		size_t cl = lex_match_close(m, b, e, '[', ']');
		size_t after = lex_skip_ws(m, b, cl + 1);
		size_t cl2 = 0;
		if (cl < b && after < b && m[after] == '[') { /* a second dimension */
			cl2 = lex_match_close(m, b, after, '[', ']');
			after = cl2 < b ? lex_skip_ws(m, b, cl2 + 1) : b;
		}
		if (cl >= b || after >= b || m[after] != ';') {
			*err = xasprintf("kernel '%s': a threadgroup array of more than two dimensions or with "
			                 "an initializer is not supported yet by mps-run", k->name);
			*err_at = s;
			free(names);
			free(flat);
			return -1;
		}
		char *ty = lex_trim_dup(t, s + strlen("threadgroup"), nb);
		char *nm = xstrndup(t + nb, ne - nb);
		char *dim = lex_trim_dup(t, e + 1, cl);
		char *w;
		if (cl2) {
			size_t o2 = lex_skip_ws(m, b, cl + 1);
			char *dim2 = lex_trim_dup(t, o2 + 1, cl2);
			w = xasprintf("MH_TG2(%s, %s, %s, %s);", ty, dim, dim2, nm);
			free(dim2);
		} else {
			w = xasprintf("MH_TG(%s, %s, %s);", ty, dim, nm);
		}
		edit_add(es, s, after + 1, keep_lines(w, t, s, after + 1));
		GROW(names, nn, cap);
		names[nn++] = nm; /* kept until the end of this function */
		if (!cl2) { /* a 1-D array, which decays as a C array does */
			GROW(flat, nflat, fcap);
			flat[nflat++] = nm;
		}
		free(ty);
		free(dim);
		i = after;
	}
	/* NAME[ -> NAME.at(__LINE__)[ */
	for (size_t i = a; i < b; i++) {
		if (m[i] == '"' || m[i] == '\'') {
			i = lex_skip_literal(m, b, i) - 1;
			continue;
		}
		if (!lex_id0(m[i]))
			continue;
		size_t e = lex_ident_end(m, b, i);
		int prev_ok = i == 0 || !(lex_idc(m[i - 1]) || m[i - 1] == '.' ||
		                          (m[i - 1] == '>' && i > 1 && m[i - 2] == '-') ||
		                          (m[i - 1] == ':' && i > 1 && m[i - 2] == ':'));
		size_t nx = lex_skip_ws(m, b, e);
		if (prev_ok && nx < b && m[nx] == '[' && !(nx + 1 < b && m[nx + 1] == '[') &&
		    !in_edit(es, i)) {
			for (size_t q = 0; q < nn; q++)
				if (lex_span_is(m + i, e - i, names[q])) {
					edit_add(es, e, e, xstrdup(".at(__LINE__)"));
					break;
				}
		} else if (prev_ok && nx < b && m[nx] != '.' && m[nx] != '[' && !in_edit(es, i)) {
			/* a 1-D threadgroup array used whole (`f(shared, v)`, `a + i`)
			 * decays to its element pointer, as a C array does: a template
			 * parameter `threadgroup T*` then deduces T (the class does not
			 * take part in deduction) */
			for (size_t q = 0; q < nflat; q++)
				if (lex_span_is(m + i, e - i, flat[q])) {
					edit_add(es, e, e, xstrdup(".data()"));
					break;
				}
		}
		i = e - 1;
	}
	/* the names added for arrays are owned here */
	size_t nparams = 0;
	for (size_t i = 0; i < k->np; i++)
		if (k->p[i].kind == RUN_BUF || k->p[i].kind == RUN_CBUF)
			nparams++;
	for (size_t q = nparams; q < nn; q++)
		free(names[q]);
	free(names);
	free(flat);
	return 0;
}

/* a barrier or a SIMD-group / quad-group function of the layer */
static int sync_name(const char *t, size_t n)
{
	if (lex_span_is(t, n, "threadgroup_barrier") || lex_span_is(t, n, "simdgroup_barrier"))
		return 1;
	if (lex_span_is(t, n, "simd_vote"))
		return 0;
	return (n > 5 && !strncmp(t, "simd_", 5)) || (n > 5 && !strncmp(t, "quad_", 5));
}

/* whether the name at m[i] is declared there, not called: a word that is
 * not a statement keyword stands before it (or, the caller's second test,
 * a body follows its parameters) (`inline T simd_shuffle(...)`,
 * `acc_t simd_scan(acc_t x)`: main's ScanKernel.metal defines its own
 * overloads and member functions with SIMD names) */
static int declared_at(const char *m, size_t i)
{
	size_t b = i;
	while (b > 0 && (m[b - 1] == ' ' || m[b - 1] == '\t' || m[b - 1] == '\n' || m[b - 1] == '\\'))
		b--;
	if (b == 0 || !lex_idc(m[b - 1]))
		return 0;
	size_t a = b;
	while (a > 0 && lex_idc(m[a - 1]))
		a--;
	static const char *const kw[] = {"return", "else", "do", "case", "throw", "co_return", NULL};
	for (size_t k = 0; kw[k]; k++)
		if (lex_span_is(m + a, b - a, kw[k]))
			return 0;
	return 1;
}

/* every call NAME(...) of sync_name in the code of m[0, n) (outside
 * directives other than #define) becomes
 * (::metal_host::model::site(__LINE__), NAME(...)), the qualifier kept */
static void sites(const char *m, size_t n, struct edits *es)
{
	for (size_t i = 0; i < n; i++) {
		char c = m[i];
		if (c == '"' || c == '\'') {
			i = lex_skip_literal(m, n, i) - 1;
			continue;
		}
		if (c == '#' && !lex_word_at(m, n, lex_skip_ws(m, n, i + 1), "define")) {
			i = lex_directive_end(m, n, i) - 1;
			continue;
		}
		if (!lex_id0(c))
			continue;
		size_t e = lex_ident_end(m, n, i);
		if ((i > 0 && (lex_idc(m[i - 1]) || m[i - 1] == '.' || m[i - 1] == '>')) ||
		    !sync_name(m + i, e - i)) {
			i = e - 1;
			continue;
		}
		size_t st = i, q = lex_skip_ws(m, n, e);
		if (q < n && m[q] == '<')
			q = lex_skip_ws(m, n, lex_match_close(m, n, q, '<', '>') + 1);
		if (q >= n || m[q] != '(') {
			i = e - 1;
			continue;
		}
		size_t cl = lex_match_close(m, n, q, '(', ')');
		size_t body = lex_skip_ws(m, n, cl + 1);
		if (body < n && lex_word_at(m, n, body, "const"))
			body = lex_skip_ws(m, n, body + 5);
		if (cl >= n || declared_at(m, i) || (body < n && m[body] == '{')) {
			i = e - 1;
			continue;
		}
		/* the whole qualified name: metal::NAME, ::metal::NAME,
		 * c10::metal::NAME */
		while (st >= 2 && m[st - 1] == ':' && m[st - 2] == ':') {
			size_t b = st - 2, id = b;
			while (id > 0 && lex_idc(m[id - 1]))
				id--;
			st = id;
			if (id == b)
				break; /* a leading :: */
		}
		edit_add(es, st, st, xstrdup("(::metal_host::model::site(__LINE__), "));
		edit_add(es, cl + 1, cl + 1, xstrdup(")"));
		i = e - 1;
	}
}

static int cmp_edit(const void *x, const void *y)
{
	const struct edit *a = x, *b = y;
	return a->a < b->a ? -1 : a->a > b->a;
}

static void run_kernels_free_one(struct run_kernel *k)
{
	for (size_t j = 0; j < k->np; j++) {
		free(k->p[j].name);
		free(k->p[j].type);
		free(k->p[j].attr);
	}
	free(k->p);
	free(k->name);
	free(k->call);
}

void run_kernels_free(struct run_kernel *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		run_kernels_free_one(&k[i]);
	free(k);
}

/* the word `kernel` at m[*st, e): written as the attribute [[kernel]]
 * (blanks inside allowed), *st moves to its `[[`; returns where the
 * declaration goes on (blanks skipped) */
static size_t kernel_attr(const char *m, size_t n, size_t *st, size_t e)
{
	size_t b = lex_back_ws(m, 0, *st), a = lex_skip_ws(m, n, e);
	if (b >= 2 && m[b - 1] == '[' && m[b - 2] == '[' && a + 1 < n && m[a] == ']' &&
	    m[a + 1] == ']') {
		*st = b - 2;
		return lex_skip_ws(m, n, a + 2);
	}
	return a;
}

/* back from i over blanks and attribute lists [[...]]: the offset after
 * what comes before them */
static size_t attrs_back(const char *m, size_t i)
{
	size_t b = lex_back_ws(m, 0, i);
	while (b >= 2 && m[b - 1] == ']' && m[b - 2] == ']') {
		size_t q = b - 2;
		int depth = 2;
		while (q > 0 && depth > 0) {
			q--;
			if (m[q] == ']')
				depth++;
			else if (m[q] == '[')
				depth--;
		}
		if (depth != 0)
			break;
		b = lex_back_ws(m, 0, q);
	}
	return b;
}

/* the last component of a qualified name s ("c10::metal::f" -> "f") */
static const char *base_name(const char *s)
{
	const char *c = strrchr(s, ':');
	return c ? c + 1 : s;
}

static int is_template_of(const struct run_kernel *ks, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (ks[i].templ && !strcmp(ks[i].name, name))
			return 1;
	return 0;
}

/* t[a, b) as blanks: every byte a space but newlines and the backslash
 * right before one (a #define body goes on) */
static char *blanked(const char *t, size_t a, size_t b)
{
	char *o = xstrndup(t + a, b - a);
	for (size_t i = 0; i < b - a; i++)
		if (o[i] != '\n' && !(o[i] == '\\' && i + 1 < b - a && o[i + 1] == '\n'))
			o[i] = ' ';
	return o;
}

/* blanks and backslash-newlines from i */
static size_t skip_bl(const char *m, size_t n, size_t i)
{
	for (;;) {
		i = lex_skip_ws(m, n, i);
		if (i + 1 < n && m[i] == '\\' && m[i + 1] == '\n')
			i += 2;
		else
			return i;
	}
}

/* whether NAME (of length len) at m[i] is a parameter of the #define whose
 * body holds i: `#define REG(DTYPE, NAME) template kernel void NAME<DTYPE>(...)`
 * instantiates the template its caller names */
static int macro_param_at(const char *m, size_t i, const char *name, size_t len)
{
	size_t ls = i;
	for (;;) { /* back to the start of the logical line */
		while (ls > 0 && m[ls - 1] != '\n')
			ls--;
		if (ls < 2 || m[ls - 2] != '\\')
			break;
		ls--;
	}
	size_t n = i, q = lex_skip_ws(m, n, ls);
	if (q >= n || m[q] != '#')
		return 0;
	q = lex_skip_ws(m, n, q + 1);
	if (!lex_word_at(m, n, q, "define"))
		return 0;
	q = lex_ident_end(m, n, lex_skip_ws(m, n, q + 6));
	if (q >= n || m[q] != '(')
		return 0;
	for (q++; q < n && m[q] != ')';) {
		q = skip_bl(m, n, q);
		size_t e = lex_ident_end(m, n, q);
		if (e > q && lex_span_is(m + q, e - q, name) && e - q == len)
			return 1;
		q = e > q ? e : q + 1;
		q = skip_bl(m, n, q);
		if (q < n && m[q] == ',')
			q++;
	}
	return 0;
}

/* the explicit instantiations (`template kernel void F<...>(...);`, the
 * [[host_name]] already taken out by try_rewrite) of the templates of KS
 * in m[0, n), blanked */
static void blank_insts(const char *t, const char *m, size_t n, const struct run_kernel *ks,
                        size_t nk, struct edits *es)
{
	for (size_t i = 0; i < n; i++) {
		if (m[i] == '"' || m[i] == '\'') {
			i = lex_skip_literal(m, n, i) - 1;
			continue;
		}
		if (!lex_id0(m[i]))
			continue;
		size_t e = lex_ident_end(m, n, i);
		if ((i > 0 && lex_idc(m[i - 1])) || !lex_span_is(m + i, e - i, "template")) {
			i = e - 1;
			continue;
		}
		size_t k = skip_bl(m, n, e);
		size_t after = 0;
		if (k + 1 < n && m[k] == '[' && m[k + 1] == '[') { /* [[kernel]] */
			size_t w = skip_bl(m, n, k + 2);
			if (lex_word_at(m, n, w, "kernel")) {
				w = skip_bl(m, n, w + 6);
				if (w + 1 < n && m[w] == ']' && m[w + 1] == ']')
					after = w + 2;
			}
		} else if (lex_word_at(m, n, k, "kernel")) {
			after = k + 6;
		}
		if (!after) {
			i = e - 1;
			continue;
		}
		k = skip_bl(m, n, after);
		if (!lex_word_at(m, n, k, "void")) {
			i = e - 1;
			continue;
		}
		k = skip_bl(m, n, k + 4);
		size_t qs = k;
		while (k < n && (lex_idc(m[k]) || m[k] == ':'))
			k++;
		size_t qe = k;
		k = skip_bl(m, n, k);
		if (qe == qs || k >= n || m[k] != '<') {
			i = e - 1;
			continue;
		}
		size_t ae = lex_match_close(m, n, k, '<', '>');
		size_t po = ae < n ? skip_bl(m, n, ae + 1) : n;
		size_t pc = po < n && m[po] == '(' ? lex_match_close(m, n, po, '(', ')') : n;
		if (pc >= n) {
			i = e - 1;
			continue;
		}
		char *q = xstrndup(m + qs, qe - qs);
		int mine = is_template_of(ks, nk, base_name(q)) ||
		           macro_param_at(m, qs, q, qe - qs);
		free(q);
		size_t end = skip_bl(m, n, pc + 1);
		end = end < n && m[end] == ';' ? end + 1 : pc + 1;
		if (mine)
			edit_add(es, i, end, blanked(t, i, end));
		i = end - 1;
	}
}

/* TEXT masked, its preprocessor lines blanked (newlines kept) */
static char *code_only(const char *text, size_t len)
{
	char *m = mask_code(text, len, LANG_C);
	for (size_t i = 0; i < len;) {
		size_t j = i;
		while (j < len && (m[j] == ' ' || m[j] == '\t'))
			j++;
		if (j < len && m[j] == '#') {
			size_t e = lex_directive_end(m, len, j);
			for (size_t q = j; q < e; q++)
				if (m[q] != '\n')
					m[q] = ' ';
			i = e;
		}
		i = text_next_line(m, len, i);
	}
	return m;
}

/* whether the parameter PS of an instantiation has no name: one word
 * (`uint3`), or a declarator ending in `*` or `&` (`constant int&`) */
static int unnamed(const char *ps)
{
	char *d = squeeze(ps, 0, strlen(ps));
	char *br = strstr(d, "[[");
	if (br)
		*br = 0;
	size_t l = strlen(d);
	while (l && d[l - 1] == ' ')
		d[--l] = 0;
	int r = l == 0 || d[l - 1] == '*' || d[l - 1] == '&' || !strchr(d, ' ');
	free(d);
	return r;
}

/* the kernels the instantiations of TEXT make (see run_parse); -1 with
 * *err and *err_line */
static int add_insts(const char *text, size_t len, const struct mr_defs *defs,
                     struct run_kernel **ks, size_t *nk, size_t *cap, char **err,
                     unsigned long *err_line)
{
	struct mr_defs own;
	memset(&own, 0, sizeof own);
	if (!defs) {
		mr_defs_add(&own, text, len);
		defs = &own;
	}
	char *code = code_only(text, len);
	struct mr_inst *iv = NULL;
	size_t ni = mr_text_insts(defs, code, &iv);
	free(code);
	int rc = 0;
	for (size_t i = 0; i < ni && rc == 0; i++) {
		int dup = 0;
		for (size_t q = 0; q < *nk; q++)
			if (!(*ks)[q].templ && !strcmp((*ks)[q].name, iv[i].name))
				dup = 1;
		if (dup)
			continue;
		unsigned long line = 1;
		long def = -1;
		for (size_t q = 0; q < *nk; q++)
			if ((*ks)[q].templ && !strcmp((*ks)[q].name, base_name(iv[i].templ))) {
				line = (*ks)[q].line;
				def = (long)q;
			}
		GROW(*ks, *nk, *cap);
		struct run_kernel *k = &(*ks)[(*nk)++];
		memset(k, 0, sizeof *k);
		k->name = xstrdup(iv[i].name);
		k->call = mr_inst_call(&iv[i]);
		k->line = line;
		long order = 0;
		struct edits none = {0};
		for (size_t a = 0; a < iv[i].nparams && rc == 0; a++) {
			size_t at = 0;
			const char *ps = iv[i].params[a];
			char *named = NULL;
			if (def >= 0 && a < (*ks)[def].np && unnamed(ps)) {
				/* `uint3,` or `const device T*,`: main's Sort.metal
				 * instantiates without names; the definition names
				 * the parameter and gives its attribute */
				const struct run_param *dp = &(*ks)[def].p[a];
				named = dp->kind == RUN_POS
				                ? xasprintf("%s %s [[%s]]", ps, dp->name, dp->attr)
				                : xasprintf("%s %s", ps, dp->name);
				ps = named;
			}
			if (param(ps, 0, strlen(ps), k, &order, &none, err, &at) != 0) {
				*err_line = line;
				rc = -1;
			}
			free(named);
		}
		for (size_t q = 0; q < none.n; q++)
			free(none.e[q].with);
		free(none.e);
		k->nslots = (size_t)order;
		/* a thread-position parameter takes the template definition's
		 * attribute: the Metal compiler reads the definition's, whatever
		 * the instantiation repeats (main's RMSNorm.metal instantiates
		 * `uint gid [[thread_position_in_grid]]` for a definition's
		 * [[threadgroup_position_in_grid]], and its kernels run by groups) */
		if (rc == 0 && def >= 0) {
			const struct run_kernel *d = &(*ks)[def];
			for (size_t a = 0; a < k->np && a < d->np; a++)
				if (k->p[a].kind == RUN_POS && d->p[a].kind == RUN_POS &&
				    strcmp(k->p[a].attr, d->p[a].attr) != 0) {
					free(k->p[a].attr);
					k->p[a].attr = xstrdup(d->p[a].attr);
				}
		}
	}
	mr_insts_free(iv, ni);
	mr_defs_free(&own);
	return rc;
}

long run_parse(const char *text, size_t len, const struct mr_defs *defs, struct run_kernel **out,
               char **host, char **err, unsigned long *err_line)
{
	size_t n;
	char *t = try_rewrite(text, len, &n);
	char *m = mask_code(t, n, LANG_C);
	struct run_kernel *ks = NULL;
	size_t nk = 0, cap = 0;
	struct edits es = {0};
	size_t err_at = 0;
	*err = NULL;
	*out = NULL;
	*host = NULL;
	int depth = 0;
	for (size_t i = 0; i < n; i++) {
		char c = m[i];
		if (c == '"' || c == '\'') {
			i = lex_skip_literal(m, n, i) - 1;
			continue;
		}
		if (c == '#') { /* a directive: to its end */
			i = lex_directive_end(m, n, i) - 1;
			continue;
		}
		if (c == '{') {
			depth++;
			continue;
		}
		if (c == '}') {
			depth--;
			continue;
		}
		if (!lex_id0(c))
			continue;
		size_t e = lex_ident_end(m, n, i);
		if (depth != 0 && !lex_span_is(m + i, e - i, "namespace")) {
			i = e - 1;
			continue;
		}
		if (!lex_span_is(m + i, e - i, "kernel")) {
			i = e - 1;
			continue;
		}
		/* kernel void NAME ( ... ) {, or [[kernel]] void NAME ... */
		size_t ks0 = i;
		size_t j = kernel_attr(m, n, &ks0, e);
		if (!lex_word_at(m, n, j, "void")) {
			i = e - 1;
			continue;
		}
		j = lex_skip_ws(m, n, j + 4);
		size_t ne = lex_ident_end(m, n, j);
		size_t po = lex_skip_ws(m, n, ne);
		if (ne == j || po >= n || m[po] != '(') {
			i = e - 1;
			continue; /* a template instantiation (NAME<...>) or something else */
		}
		/* a template kernel (template <...> before): rewritten as a plain
		 * one, run through its instantiations */
		size_t back = attrs_back(m, ks0);
		int templ = back > 0 && m[back - 1] == '>';
		size_t pc = lex_match_close(m, n, po, '(', ')');
		size_t ob = lex_skip_ws(m, n, pc + 1);
		if (pc >= n || ob >= n || m[ob] != '{') {
			i = e - 1;
			continue; /* a declaration */
		}
		size_t cb = lex_match_close(m, n, ob, '{', '}');
		GROW(ks, nk, cap);
		struct run_kernel *k = &ks[nk++];
		memset(k, 0, sizeof *k);
		k->name = xstrndup(t + j, ne - j);
		k->templ = templ;
		k->line = line_of(t, i);
		long order = 0;
		size_t s = po + 1;
		int nest = 0;
		for (size_t q = po + 1; q <= pc; q++) {
			char d = m[q];
			if (d == '"' || d == '\'') {
				q = lex_skip_literal(m, pc, q) - 1;
				continue;
			}
			if (d == '(' || d == '[' || d == '<')
				nest++;
			else if ((d == ')' || d == ']' || d == '>') && q < pc)
				nest--;
			if ((d == ',' && nest == 0) || q == pc) {
				if (!text_blank(m, s, q) &&
				    param(m, s, q, k, &order, &es, err, &err_at) != 0)
					goto fail;
				s = q + 1;
			}
		}
		k->nslots = (size_t)order;
		if (body(t, m, ob, cb, k, &es, err, &err_at) != 0)
			goto fail;
		i = cb;
	}
	blank_insts(t, m, n, ks, nk, &es);
	if (add_insts(text, len, defs, &ks, &nk, &cap, err, err_line) != 0) {
		for (size_t q = 0; q < es.n; q++)
			free(es.e[q].with);
		free(es.e);
		run_kernels_free(ks, nk);
		free(t);
		free(m);
		return -1;
	}
	/* the templates themselves are no kernels of the table */
	{
		size_t w = 0;
		for (size_t q = 0; q < nk; q++) {
			if (ks[q].templ) {
				run_kernels_free_one(&ks[q]);
				continue;
			}
			ks[w++] = ks[q];
		}
		nk = w;
	}
	sites(m, n, &es);
	/* apply the edits */
	qsort(es.e, es.n, sizeof *es.e, cmp_edit);
	struct buf o;
	buf_init(&o);
	size_t at = 0;
	for (size_t q = 0; q < es.n; q++) {
		buf_add(&o, t + at, es.e[q].a - at);
		buf_puts(&o, es.e[q].with);
		at = es.e[q].b;
	}
	buf_add(&o, t + at, n - at);
	*host = o.data;
	for (size_t q = 0; q < es.n; q++)
		free(es.e[q].with);
	free(es.e);
	free(t);
	free(m);
	*out = ks;
	return (long)nk;
fail:
	*err_line = line_of(t, err_at);
	for (size_t q = 0; q < es.n; q++)
		free(es.e[q].with);
	free(es.e);
	run_kernels_free(ks, nk);
	free(t);
	free(m);
	return -1;
}

/* the field of metal_host::exec::pos an attribute reads, and how many
 * components it has (1: a scalar field) */
static const char *pos_expr(const char *attr, int *vec)
{
	static const struct { const char *a, *f; int v; } map[] = {
		{"thread_position_in_grid", "tpig", 3},
		{"threadgroup_position_in_grid", "tgpig", 3},
		{"thread_position_in_threadgroup", "tptg", 3},
		{"threads_per_threadgroup", "tptg_n", 3},
		{"dispatch_threads_per_threadgroup", "dtptg", 3},
		{"threads_per_grid", "tpg", 3},
		{"threadgroups_per_grid", "tgpg", 3},
		{"thread_index_in_threadgroup", "tiitg", 1},
		{"thread_index_in_simdgroup", "tiisg", 1},
		{"simdgroup_index_in_threadgroup", "sgitg", 1},
		{"threads_per_simdgroup", "tpsg", 1},
		{"thread_execution_width", "tpsg", 1},
		{"simdgroups_per_threadgroup", "sgptg", 1},
		{"dispatch_simdgroups_per_threadgroup", "sgptg", 1},
		{"thread_index_in_quadgroup", "tiitg % 4", 1},
		{"quadgroup_index_in_threadgroup", "tiitg / 4", 1},
		{"quadgroups_per_threadgroup", "sgptg * p->tpsg / 4", 1},
	};
	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (!strcmp(attr, map[i].a)) {
			*vec = map[i].v;
			return map[i].f;
		}
	*vec = 1;
	return "tiitg";
}

char *run_driver(const struct run_kernel *ks, size_t n, const char *host_name)
{
	struct buf o;
	buf_init(&o);
	buf_printf(&o, "/* mps-run's driver: the kernel table of metal_host_exec.h */\n"
	               "#include <metal_stdlib>\n#include \"metal_host_exec.h\"\n"
	               "#include \"%s\"\n\nnamespace metal_host {\nnamespace model {\n", host_name);
	for (size_t i = 0; i < n; i++) {
		const struct run_kernel *k = &ks[i];
		/* the slots in order */
		buf_printf(&o, "\nstatic const arg_desc mh_a%zu[] = {\n", i);
		for (size_t s = 0; s < k->nslots; s++)
			for (size_t j = 0; j < k->np; j++) {
				const struct run_param *p = &k->p[j];
				if (p->kind == RUN_POS || p->slot != (long)s)
					continue;
				int kind = p->kind == RUN_BUF ? (strstr(p->type, "atomic") || strstr(p->type, "Atomic") ? 3 : 0)
				           : p->kind == RUN_CBUF ? 1 : 2;
				buf_printf(&o, "\t{%d, \"%s\", sizeof(%s)},\n", kind, p->name, p->type);
			}
		if (k->nslots == 0)
			buf_puts(&o, "\t{2, \"\", 1},\n");
		buf_printf(&o, "};\nstatic void mh_r%zu(void *const *d, buffer *const *b) {\n"
		               "\tMH_ENTER();\n\tconst pos *p = cur();\n\t(void)p;\n\t(void)d;\n\t(void)b;\n\t%s%s(",
		           i, k->call && !strncmp(k->call, "::", 2) ? "" : "::", k->call ? k->call : k->name);
		for (size_t j = 0; j < k->np; j++) {
			const struct run_param *p = &k->p[j];
			if (j)
				buf_puts(&o, ",\n\t    ");
			switch (p->kind) {
			case RUN_BUF:
				buf_printf(&o, "dptr<%s>((%s *)d[%ld], b[%ld])", p->type, p->type, p->slot, p->slot);
				break;
			case RUN_CBUF:
				buf_printf(&o, "dptr<const %s>((const %s *)d[%ld], b[%ld])", p->type, p->type,
				           p->slot, p->slot);
				break;
			case RUN_SCALAR:
				buf_printf(&o, "*(%s *)d[%ld]", p->type, p->slot);
				break;
			default: {
				int v;
				const char *f = pos_expr(p->attr, &v);
				size_t tl = strlen(p->type);
				int comps = tl && (p->type[tl - 1] == '2' || p->type[tl - 1] == '3')
				                    ? p->type[tl - 1] - '0' : 1;
				if (v == 1)
					buf_printf(&o, "%s(p->%s)", p->type, f);
				else if (comps == 1)
					buf_printf(&o, "%s(p->%s[0])", p->type, f);
				else if (comps == 2)
					buf_printf(&o, "%s(p->%s[0], p->%s[1])", p->type, f, f);
				else
					buf_printf(&o, "%s(p->%s[0], p->%s[1], p->%s[2])", p->type, f, f, f);
			}
			}
		}
		buf_puts(&o, ");\n}\n");
	}
	buf_puts(&o, "\nextern const kernel_desc kernels[] = {\n");
	for (size_t i = 0; i < n; i++)
		buf_printf(&o, "\t{\"%s\", %lu, %zu, mh_a%zu, mh_r%zu},\n", ks[i].name, ks[i].line,
		           ks[i].nslots, i, i);
	if (n == 0)
		buf_puts(&o, "\t{\"\", 0, 0, nullptr, nullptr},\n");
	buf_printf(&o, "};\nextern const int nkernels = %zu;\n\n} /* namespace model */\n"
	               "} /* namespace metal_host */\n", n);
	return o.data;
}

char *run_table(const struct run_kernel *ks, size_t n)
{
	struct buf o;
	buf_init(&o);
	for (size_t i = 0; i < n; i++) {
		buf_printf(&o, "kernel %s %zu\n", ks[i].name, ks[i].nslots);
		for (size_t s = 0; s < ks[i].nslots; s++)
			for (size_t j = 0; j < ks[i].np; j++) {
				const struct run_param *p = &ks[i].p[j];
				if (p->kind != RUN_POS && p->slot == (long)s)
					buf_printf(&o, "arg %zu %s %s\n", s,
					           p->kind == RUN_BUF ? "buf" : p->kind == RUN_CBUF ? "cbuf" : "scalar",
					           p->name);
			}
	}
	return o.data ? o.data : xstrdup("");
}
