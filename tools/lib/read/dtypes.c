/* dtypes.c — see dtypes.h. */
#include "read/dtypes.h"
#include "base/diag.h"
#include "base/lex.h"
#include "base/scan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define B(d) CS_BIT(CS_##d)

#define DT_DEPTH 3        /* dtype reading: helper calls followed */

/* ---------------- dtypes ---------------- */

static const char *const dt_names[CS_NDTYPES] = {
    "Double", "Float", "Half", "BFloat16", "Long", "Int", "Short", "Char",
    "Byte", "Bool", "ComplexDouble", "ComplexFloat", "ComplexHalf", "UInt64",
    "UInt32", "UInt16", "Float8_e5m2", "Float8_e5m2fnuz", "Float8_e4m3fn",
    "Float8_e4m3fnuz", "QInt8", "QUInt8", "QInt32", "QUInt4x2", "QUInt2x4"};

/* Metal tokens (metalreg.h spelling); NULL: no Metal kernel takes it */
static const char *const dt_metal[CS_NDTYPES] = {
    NULL, "float", "half", "bfloat", "long", "int", "short", "char", "uchar",
    "bool", NULL, "float2", "half2", NULL, NULL, NULL, NULL, NULL, NULL,
    NULL, NULL, NULL, NULL, NULL, NULL};

const char *cs_dtype_name(int d)
{
	return d >= 0 && d < CS_NDTYPES ? dt_names[d] : NULL;
}

const char *cs_metal_token(int d)
{
	return d >= 0 && d < CS_NDTYPES ? dt_metal[d] : NULL;
}

int dtype_span(const char *s, size_t n)
{
	int d;
	while (n && lex_sp(*s)) {
		s++;
		n--;
	}
	while (n && lex_sp(s[n - 1]))
		n--;
	/* qualifiers: ::, at::, c10::, ScalarType::, at::ScalarType:: ... */
	for (;;) {
		if (lex_starts_with(s, n, "::")) {
			s += 2;
			n -= 2;
		} else if (lex_starts_with(s, n, "at::")) {
			s += 4;
			n -= 4;
		} else if (lex_starts_with(s, n, "c10::")) {
			s += 5;
			n -= 5;
		} else if (lex_starts_with(s, n, "ScalarType::")) {
			s += 12;
			n -= 12;
			for (d = 0; d < CS_NDTYPES; d++)
				if (lex_span_is(s, n, dt_names[d]))
					return d;
			return -1;
		} else {
			break;
		}
	}
	if (n > 1 && s[0] == 'k' && s[1] >= 'A' && s[1] <= 'Z') {
		for (d = 0; d < CS_NDTYPES; d++)
			if (lex_span_is(s + 1, n - 1, dt_names[d]))
				return d;
		return -1;
	}
	for (d = 0; d < CS_NDTYPES; d++)
		if (lex_span_is(s, n, dt_names[d]) ||
		    (dt_metal[d] && lex_span_is(s, n, dt_metal[d])))
			return d;
	return -1;
}

int cs_dtype_parse(const char *s)
{
	return s ? dtype_span(s, strlen(s)) : -1;
}

static char *dtset_join(cs_dtset set, const char *sep, int metal)
{
	struct buf o;
	int d;
	buf_init(&o);
	for (d = 0; d < CS_NDTYPES; d++) {
		const char *w = metal ? dt_metal[d] : dt_names[d];
		if (!(set & CS_BIT(d)) || !w)
			continue;
		if (o.len)
			buf_puts(&o, sep);
		buf_puts(&o, w);
	}
	return o.data ? o.data : xstrdup("");
}

char *cs_dtset_names(cs_dtset set, const char *sep)
{
	return dtset_join(set, sep, 0);
}

char *cs_dtset_metal(cs_dtset set, const char *sep)
{
	return dtset_join(set, sep, 1);
}

/* The type families of ATen/Dispatch.h (AT_DISPATCH_CASE_<family>...) and
 * the type lists of ATen/Dispatch_v2.h, as the 2.6.0 headers define them
 * (our own table). */

static const struct family {
	const char *name;
	cs_dtset types;
} families[] = {
    {"FLOATING_AND_COMPLEX_TYPES", CS_T_FLOATING | CS_T_COMPLEX},
    {"FLOATING_TYPES_AND_HALF", CS_T_FLOATING | B(HALF)},
    {"REDUCED_FLOATING_TYPES", B(HALF) | B(BFLOAT16)},
    {"ALL_TYPES_AND_COMPLEX", CS_T_INTEGRAL | CS_T_FLOATING | CS_T_COMPLEX},
    {"ALL_TYPES_AND_HALF", CS_T_INTEGRAL | CS_T_FLOATING | B(HALF)}, /* 1.13 */
    {"QINT_AND_SUB_BYTE_TYPES", CS_T_QINT | B(QUINT4X2) | B(QUINT2X4)},
    {"QINT_BYTE_TYPES", B(QINT8) | B(QUINT8)},
    {"FLOATING_TYPES", CS_T_FLOATING},
    {"INTEGRAL_TYPES", CS_T_INTEGRAL},
    {"COMPLEX_TYPES", CS_T_COMPLEX},
    {"QINT_TYPES", CS_T_QINT},
    {"ALL_TYPES", CS_T_INTEGRAL | CS_T_FLOATING},
    {NULL, 0}};

static const struct family v2_lists[] = {
    {"AT_INTEGRAL_TYPES_V2", CS_T_INTEGRAL | CS_T_UNSIGNED},
    {"AT_INTEGRAL_TYPES", CS_T_INTEGRAL},
    {"AT_FLOATING_TYPES", CS_T_FLOATING},
    {"AT_COMPLEX_TYPES", CS_T_COMPLEX},
    {"AT_ALL_TYPES_AND_COMPLEX", CS_T_INTEGRAL | CS_T_FLOATING | CS_T_COMPLEX},
    {"AT_ALL_TYPES", CS_T_INTEGRAL | CS_T_FLOATING},
    {"AT_FLOAT8_TYPES", CS_T_FLOAT8},
    {"AT_BAREBONES_UNSIGNED_TYPES", CS_T_UNSIGNED},
    {"AT_QINT_TYPES", CS_T_QINT},
    {NULL, 0}};

/* AT_DISPATCH_[CASE_]FAMILY[_AND[n]]: the family and the count.  The lazy
 * family group leaves a trailing _AND / _ANDn to the count, and keeps an
 * _AND that a family name holds (FLOATING_TYPES_AND_HALF,
 * ALL_TYPES_AND_COMPLEX).  Compiled once, on first use. */
static struct mk_re re_family;
static int re_family_ready;

int cs_dispatch_macro_types(const char *name, cs_dtset *out, int *extra)
{
	size_t ov[6], k;
	if (!name)
		return -1;
	for (k = 0; v2_lists[k].name; k++)
		if (strcmp(name, v2_lists[k].name) == 0) {
			*out = v2_lists[k].types;
			*extra = 0;
			return 0;
		}
	if (!re_family_ready) {
		re_compile(&re_family,
		           "^AT_DISPATCH_(?:CASE_)?([A-Z0-9_]+?)(?:_AND([1-9]?))?$", 0);
		re_family_ready = 1;
	}
	if (!re_match(&re_family, name, strlen(name), 0, ov, 3))
		return -1;
	for (k = 0; families[k].name; k++)
		if (lex_span_is(name + ov[2], ov[3] - ov[2], families[k].name)) {
			*out = families[k].types;
			*extra = ov[4] == PCRE2_UNSET ? 0
			         : ov[5] == ov[4] ? 1 : name[ov[4]] - '0';
			return 0;
		}
	return -1;
}

/* A type argument of a dispatch macro: one scalar type, or
 * AT_EXPAND(list); -1 when unreadable. */
static int type_arg(const char *a, cs_dtset *out)
{
	size_t n = strlen(a);
	int d;
	while (n && lex_sp(a[n - 1]))
		n--;
	while (n && lex_sp(*a)) {
		a++;
		n--;
	}
	if (lex_starts_with(a, n, "AT_EXPAND(") && a[n - 1] == ')') {
		char *inner = lex_trim_dup(a, 10, n - 1);
		size_t k;
		for (k = 0; v2_lists[k].name; k++)
			if (strcmp(inner, v2_lists[k].name) == 0) {
				*out |= v2_lists[k].types;
				free(inner);
				return 0;
			}
		free(inner);
		return -1;
	}
	d = dtype_span(a, n);
	if (d < 0)
		return -1;
	*out |= CS_BIT(d);
	return 0;
}

int cs_dispatch_call_types(const char *name, char *const *args, size_t na,
                           cs_dtset *out)
{
	cs_dtset base = 0;
	int extra = 0, bad = 0;
	size_t i, from = 0, to = 0;
	*out = 0;
	if (strcmp(name, "AT_DISPATCH_CASE") == 0) {
		from = 0;
		to = na ? 1 : 0;
	} else if (strcmp(name, "AT_DISPATCH_V2") == 0) {
		from = 3;
		to = na;
	} else if (cs_dispatch_macro_types(name, &base, &extra) == 0) {
		*out = base;
		to = (size_t)extra < na ? (size_t)extra : na;
	} else {
		return -1;
	}
	for (i = from; i < to; i++)
		if (type_arg(args[i], out) != 0)
			bad = 1;
	return bad ? -1 : 0;
}

/* ---------------- B. CPU dtypes ---------------- */

struct dtx {
	const struct cs_model *m;
	struct cs_dtypes *out;
	struct buf notes;
	size_t sites;         /* dispatch macros read in this function */
	int nested;           /* a dispatch inside another one's arguments */
	unsigned long in_tid; /* the outermost dispatch being read: its text */
	size_t in_close;      /* and its ')' */
	long *calls;          /* callee definitions, for the helper fallback */
	size_t ncalls, capcalls;
	long cur;
};

static void add_note(struct buf *b, const char *fmt, const char *arg)
{
	char *s = xasprintf(fmt, arg);
	if (!b->data || !strstr(b->data, s)) {
		if (b->len)
			buf_puts(b, "; ");
		buf_puts(b, s);
	}
	free(s);
}

int dtype_after(const char *t, size_t b, size_t i)
{
	size_t r0 = lex_skip_ws(t, b, i), r1 = r0;
	while (r1 < b && (lex_idc(t[r1]) || t[r1] == ':'))
		r1++;
	return r1 > r0 ? dtype_span(t + r0, r1 - r0) : -1;
}

int dtype_before(const char *t, size_t a, size_t i)
{
	size_t l1 = lex_back_ws(t, a, i), l0 = l1;
	while (l0 > a && (lex_idc(t[l0 - 1]) || t[l0 - 1] == ':'))
		l0--;
	return l1 > l0 ? dtype_span(t + l0, l1 - l0) : -1;
}

/* `==` comparisons with a dtype in t[a, b): the dtypes compared */
cs_dtset eq_dtypes(const char *t, size_t a, size_t b)
{
	cs_dtset set = 0;
	size_t i;
	for (i = a; i + 1 < b; i++) {
		int d;
		if (t[i] == '"' || t[i] == '\'') {
			i = lex_skip_literal(t, b, i) - 1;
			continue;
		}
		if (t[i] != '=' || t[i + 1] != '=' || (i > a && (t[i - 1] == '=' ||
		    t[i - 1] == '!' || t[i - 1] == '<' || t[i - 1] == '>')))
			continue;
		if ((d = dtype_after(t, b, i + 2)) >= 0)
			set |= CS_BIT(d);
		if ((d = dtype_before(t, a, i)) >= 0)
			set |= CS_BIT(d);
		i++;
	}
	return set;
}

static void dt_site(struct dtx *x, const struct cs_tok *k, const char *name)
{
	struct cs_dtypes *o = x->out;
	char **args;
	size_t na, i, first = 0, last = 0;
	cs_dtset base = 0;
	int extra = 0;

	if (k->close >= k->tn)
		return;
	args = lex_split_args(k->t, k->open, k->close, &na);
	if (x->in_tid == k->tid && k->s < x->in_close &&
	    strcmp(name, "AT_DISPATCH_SWITCH") != 0 &&
	    strncmp(name, "AT_DISPATCH_CASE", 16) != 0)
		x->nested = 1;
	if (strcmp(name, "AT_DISPATCH_SWITCH") == 0) {
		x->sites++;
	} else if (strcmp(name, "AT_DISPATCH_CASE") == 0) {
		if (na >= 1 && type_arg(args[0], &o->types) != 0)
			add_note(&x->notes, "cannot read the type '%s' of AT_DISPATCH_CASE",
			         args[0]);
	} else if (strcmp(name, "AT_DISPATCH_V2") == 0) {
		x->sites++;
		for (i = 3; i < na; i++)
			if (type_arg(args[i], &o->types) != 0)
				add_note(&x->notes, "cannot read the type '%s' of AT_DISPATCH_V2",
				         args[i]);
	} else if (strcmp(name, "AT_DISPATCH_INDEX_TYPES") == 0) {
		add_note(&x->notes, "%s (index tensors) left out", name);
	} else if (cs_dispatch_macro_types(name, &base, &extra) == 0) {
		o->types |= base;
		if (strncmp(name, "AT_DISPATCH_CASE_", 17) != 0)
			x->sites++;
		first = 0;
		last = (size_t)extra < na ? (size_t)extra : na;
		for (i = first; i < last; i++)
			if (type_arg(args[i], &o->types) != 0)
				add_note(&x->notes, "cannot read a type argument of %s", name);
	} else {
		add_note(&x->notes, "cannot read the dispatch macro %s", name);
	}
	if (strncmp(name, "AT_DISPATCH_CASE", 16) != 0 &&
	    strcmp(name, "AT_DISPATCH_SWITCH") != 0 &&
	    (x->in_tid != k->tid || k->s >= x->in_close)) {
		x->in_tid = k->tid;
		x->in_close = k->close;
	}
	lex_strv_free(args, na);
}

static void dt_tok(void *ctx, const struct cs_tok *k)
{
	struct dtx *x = ctx;
	const struct cs_priv *p = P(x->m);
	const char *s = k->t + k->s;
	size_t n = k->e - k->s;
	if (k->member || k->scope || !k->call)
		return;
	if (lex_starts_with(s, n, "AT_DISPATCH")) {
		char *name = xstrndup(s, n);
		dt_site(x, k, name);
		free(name);
		return;
	}
	if (lex_span_is(s, n, "if") && k->close < k->tn) {
		cs_dtset b = eq_dtypes(k->t, k->open + 1, k->close);
		if (b) {
			char *names = cs_dtset_names(b, ", ");
			x->out->branch |= b;
			x->out->types |= b;
			add_note(&x->notes, "a dtype branch handles %s", names);
			free(names);
		}
		return;
	}
	if (lex_is_keyword(s, n))
		return;
	/* calls, for the helper fallback: a qualified name in a namespace
	 * ending in its qualifier; else the same file, then the cpu/ folder;
	 * a struct's name: its member functions (a functor called) */
	{
		const struct cs_def *from = &p->defs[x->cur];
		char *q = tok_qual(k);
		int pass;
		for (pass = 0; pass < 2; pass++) {
			const struct cs_ilist *l = pass == 0 ? imap_get(&p->defname, s, n)
			                                  : imap_get(&p->owners, s, n);
			size_t i;
			int same = 0, qual = 0;
			if (!l)
				continue;
			for (i = 0; i < l->n; i++) {
				const struct cs_def *d = &p->defs[l->v[i]];
				if (l->v[i] == x->cur || d->kind == D_META)
					continue;
				if (*q && pass == 0 && ns_ends(d->ns, q))
					qual = 1;
				if (d->file == from->file)
					same = 1;
			}
			for (i = 0; i < l->n; i++) {
				const struct cs_def *d = &p->defs[l->v[i]];
				if (l->v[i] == x->cur || d->kind == D_META)
					continue;
				if (qual ? !ns_ends(d->ns, q)
				         : same ? d->file != from->file
				                : !p->files[d->file].cpu)
					continue;
				GROW(x->calls, x->ncalls, x->capcalls);
				x->calls[x->ncalls++] = l->v[i];
			}
		}
		free(q);
	}
}

/* The definitions of the registered function fn: in the registering file
 * first, else in the cpu/ folder, else anywhere. */
static size_t reg_fn_defs(const struct cs_model *m, const struct cs_reg *r,
                          long *v, size_t max)
{
	const struct cs_priv *p = P(m);
	const struct cs_ilist *l = imap_get(&p->defname, r->fn, strlen(r->fn));
	size_t i, n = 0;
	int pass;
	if (!l)
		return 0;
	for (pass = 0; pass < 3 && n == 0; pass++)
		for (i = 0; i < l->n && n < max; i++) {
			const struct cs_def *d = &p->defs[l->v[i]];
			if ((pass == 0 && d->file == r->file) ||
			    (pass == 1 && p->files[d->file].cpu) || pass == 2)
				v[n++] = l->v[i];
		}
	return n;
}

/* the dtypes read from definitions DEFS (nd of them) of function FN
 * and, while nothing dispatches, the functions they call: the walk of
 * cs_cpu_dtypes and cs_fn_dtypes */
static int read_defs(const struct cs_model *m, const long *defs, size_t nd,
                     const char *fn, struct cs_dtypes *out)
{
	const struct cs_priv *p = P(m);
	struct dtx x;
	long *queue = NULL;
	int *qdepth = NULL;
	unsigned char *seen;
	size_t i, qn = 0, qcap = 0;
	int depth_used = 0;

	out->def = loc_of(m, p->defs[defs[0]].file, p->defs[defs[0]].at);
	memset(&x, 0, sizeof x);
	x.m = m;
	x.out = out;
	buf_init(&x.notes);
	seen = xcalloc(m->ndefs, 1);
	for (i = 0; i < nd; i++) {
		GROW(queue, qn, qcap);
		qdepth = xrealloc(qdepth, qcap * sizeof *qdepth);
		queue[qn] = defs[i];
		qdepth[qn++] = 0;
		seen[defs[i]] = 1;
	}
	/* breadth first: the function itself; its callees only while nothing
	 * dispatches */
	for (i = 0; i < qn; i++) {
		size_t k, before = x.sites;
		int d = qdepth[i];
		if (d > 0 && out->nsites + x.sites > 0 && d > depth_used)
			break;
		x.cur = queue[i];
		x.ncalls = 0;
		x.in_tid = 0;
		walk_def(m, &p->defs[queue[i]], dt_tok, &x);
		if (x.sites > before && d > 0) {
			add_note(&x.notes, "read through the helper %s",
			         p->defs[queue[i]].name);
			depth_used = d;
		}
		if (d < DT_DEPTH)
			for (k = 0; k < x.ncalls; k++)
				if (!seen[x.calls[k]]) {
					seen[x.calls[k]] = 1;
					GROW(queue, qn, qcap);
					qdepth = xrealloc(qdepth, qcap * sizeof *qdepth);
					queue[qn] = x.calls[k];
					qdepth[qn++] = d + 1;
				}
		if (d == 0 && i + 1 < qn && qdepth[i + 1] > 0 && x.sites > 0)
			break; /* the function itself dispatches: callees not read */
	}
	out->nsites = x.sites;
	if (x.nested)
		add_note(&x.notes, "%s", "nested dispatch (union of all levels)");
	if (x.sites > 1)
		add_note(&x.notes, "%s", "several dispatch sites (union)");
	free(queue);
	free(qdepth);
	free(x.calls);
	free(seen);
	out->notes = x.notes.data ? x.notes.data : xstrdup("");
	if (!out->types) {
		out->why = xasprintf("no dtype dispatch could be read in %s (%s:%lu)",
		                     fn, out->def.file, out->def.line);
		return 1;
	}
	out->found = 1;
	return 0;
}

int cs_cpu_dtypes(const struct cs_model *m, const char *stub,
                  struct cs_dtypes *out)
{
	const struct cs_priv *p = P(m);
	const struct cs_ilist *l;
	const struct cs_reg *r = NULL;
	long defs[16];
	size_t nd, i;

	memset(out, 0, sizeof *out);
	if (!m->have_sources) {
		out->why = xstrdup("no C++ sources in this tree (" CS_NATIVE_REL
		                   " holds no .cpp file)");
		out->notes = xstrdup("");
		return 1;
	}
	l = stub ? imap_get(&p->regname, stub, strlen(stub)) : NULL;
	for (i = 0; l && i < l->n; i++) {
		const struct cs_reg *c = &p->regs[l->v[i]];
		if (!r || (p->files[c->file].cpu && !p->files[r->file].cpu))
			r = c;
	}
	if (!r) {
		out->why = xasprintf("no CPU registration of %s under " CS_NATIVE_REL
		                     " (REGISTER_DISPATCH and friends)", stub ? stub : "");
		out->notes = xstrdup("");
		return 1;
	}
	out->registered = 1;
	out->reg = loc_of(m, r->file, r->at);
	out->macro = xstrdup(r->macro);
	if (!r->fn) {
		out->null_kernel = 1;
		out->why = xasprintf("%s registers no CPU kernel (nullptr) at %s:%lu",
		                     stub, out->reg.file, out->reg.line);
		out->notes = xstrdup("");
		return 1;
	}
	out->fn = xstrdup(r->fn);
	nd = reg_fn_defs(m, r, defs, sizeof defs / sizeof *defs);
	if (!nd) {
		out->why = xasprintf("%s registers %s (%s:%lu), whose definition was "
		                     "not found", stub, r->fn, out->reg.file,
		                     out->reg.line);
		out->notes = xstrdup("");
		return 1;
	}
	return read_defs(m, defs, nd, r->fn, out);
}

int cs_fn_dtypes(const struct cs_model *m, const char *fn,
                 struct cs_dtypes *out)
{
	const struct cs_priv *p = P(m);
	const struct cs_ilist *l;
	long defs[16];
	size_t nd = 0, i;

	memset(out, 0, sizeof *out);
	if (!m->have_sources) {
		out->why = xstrdup("no C++ sources in this tree (" CS_NATIVE_REL
		                   " holds no .cpp file)");
		out->notes = xstrdup("");
		return 1;
	}
	out->fn = xstrdup(fn);
	l = imap_get(&p->defname, fn, strlen(fn));
	for (i = 0; l && i < l->n && nd < sizeof defs / sizeof *defs; i++)
		if (p->defs[l->v[i]].kind != D_META)
			defs[nd++] = l->v[i];
	if (!nd) {
		out->why = xasprintf("no definition of %s under " CS_NATIVE_REL, fn);
		out->notes = xstrdup("");
		return 1;
	}
	return read_defs(m, defs, nd, fn, out);
}

void cs_dtypes_free(struct cs_dtypes *d)
{
	free(d->fn);
	free(d->macro);
	free(d->notes);
	free(d->why);
	memset(d, 0, sizeof *d);
}

/* ---------------- B. half and bfloat computed in float ---------------- */

struct omx {
	const struct cs_model *m;
	struct cs_opmath *out;
	size_t converts;      /* reduced-float sites that convert */
};

/* the conversion to float a dispatch site's text t[a, b) makes: a
 * static string naming it, or NULL */
static const char *float_marker(const char *t, size_t a, size_t b)
{
	size_t i;
	for (i = a; i < b; i++) {
		if (t[i] == '"' || t[i] == '\'') {
			i = lex_skip_literal(t, b, i) - 1;
			continue;
		}
		if (!lex_id0(t[i]) || (i > a && (lex_idc(t[i - 1]) || t[i - 1] == ':')))
			continue;
		if (lex_word_at(t, b, i, "opmath_type") || lex_word_at(t, b, i, "opmath_t"))
			return "opmath_type";
		if (lex_word_at(t, b, i, "acc_type"))
			return "acc_type";
		if (lex_word_at(t, b, i, "convert_to_float"))
			return "convert_to_float";
		if (lex_word_at(t, b, i, "static_cast")) {
			size_t q = lex_skip_ws(t, b, i + 11);
			if (q < b && t[q] == '<' &&
			    lex_word_at(t, b, lex_skip_ws(t, b, q + 1), "float"))
				return "static_cast<float>";
		}
		if (lex_word_at(t, b, i, "float")) {
			size_t q = lex_skip_ws(t, b, i + 5);
			if (q < b && t[q] == '(' && (i == a || t[i - 1] != '<'))
				return "float(...)";
		}
	}
	return NULL;
}

static void om_tok(void *ctx, const struct cs_tok *k)
{
	struct omx *x = ctx;
	struct cs_opmath *o = x->out;
	const char *s = k->t + k->s;
	size_t n = k->e - k->s, na, i;
	char **args;
	char *name;
	cs_dtset types = 0, base = 0;
	int extra = 0;
	const char *mk;
	if (k->member || k->scope || !k->call || k->close >= k->tn ||
	    !lex_starts_with(s, n, "AT_DISPATCH") || lex_span_is(s, n, "AT_DISPATCH_SWITCH"))
		return;
	name = xstrndup(s, n);
	args = lex_split_args(k->t, k->open, k->close, &na);
	if (strcmp(name, "AT_DISPATCH_V2") == 0) {
		for (i = 3; i < na; i++)
			type_arg(args[i], &types);
	} else if (strcmp(name, "AT_DISPATCH_CASE") == 0) {
		if (na >= 1)
			type_arg(args[0], &types);
	} else if (cs_dispatch_macro_types(name, &base, &extra) == 0) {
		types = base;
		for (i = 0; i < (size_t)extra && i < na; i++)
			type_arg(args[i], &types);
	}
	lex_strv_free(args, na);
	free(name);
	if (!(types & (CS_BIT(CS_HALF) | CS_BIT(CS_BFLOAT16))))
		return;
	/* the scalar-operand special case (iter.is_scalar(2): the scalar kept
	 * in opmath_t, removed from the iterator) is not the kernel's math */
	for (i = k->open; i < k->close; i++)
		if (lex_word_at(k->t, k->close, i, "remove_operand") ||
		    lex_word_at(k->t, k->close, i, "original_scalar_value"))
			return;
	mk = float_marker(k->t, k->open, k->close);
	if (!o->nsites)
		o->at = loc_of(x->m, k->file, k->loc);
	o->nsites++;
	if (mk) {
		x->converts++;
		if (!o->marker) {
			o->marker = xstrdup(mk);
			o->marker_at = loc_of(x->m, k->file, k->loc);
		}
	}
}

int cs_cpu_opmath(const struct cs_model *m, const char *stub,
                  struct cs_opmath *out)
{
	const struct cs_priv *p = P(m);
	const struct cs_ilist *l;
	const struct cs_reg *r = NULL;
	struct omx x;
	long defs[16];
	size_t nd, i;

	memset(out, 0, sizeof *out);
	l = m->have_sources && stub ? imap_get(&p->regname, stub, strlen(stub))
	                            : NULL;
	for (i = 0; l && i < l->n; i++) {
		const struct cs_reg *c = &p->regs[l->v[i]];
		if (!r || (p->files[c->file].cpu && !p->files[r->file].cpu))
			r = c;
	}
	if (!r || !r->fn) {
		out->why = xasprintf("no CPU kernel of %s to read", stub ? stub : "");
		return 0;
	}
	nd = reg_fn_defs(m, r, defs, sizeof defs / sizeof *defs);
	if (!nd) {
		out->why = xasprintf("the CPU kernel %s of %s is not found", r->fn, stub);
		return 0;
	}
	out->found = 1;
	memset(&x, 0, sizeof x);
	x.m = m;
	x.out = out;
	for (i = 0; i < nd; i++)
		walk_def(m, &p->defs[defs[i]], om_tok, &x);
	out->opmath = out->nsites > 0 && x.converts == out->nsites;
	if (!out->nsites)
		out->why = xasprintf("%s dispatches no Half or BFloat16 of its own",
		                     r->fn);
	else if (out->opmath)
		out->why = xasprintf("%s computes Half and BFloat16 in float (%s, "
		                     "%s:%lu)", r->fn, out->marker, out->marker_at.file,
		                     out->marker_at.line);
	else
		out->why = xasprintf("%s computes Half and BFloat16 in their own type "
		                     "(%s:%lu)%s", r->fn, out->at.file, out->at.line,
		                     x.converts ? " in some of its dispatch sites" : "");
	return out->opmath;
}

void cs_opmath_free(struct cs_opmath *o)
{
	free(o->marker);
	free(o->why);
	memset(o, 0, sizeof *o);
}
