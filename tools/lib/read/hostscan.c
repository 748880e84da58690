/* hostscan.c — see hostscan.h.
 *
 * Every file is read once, masked once (scan.h mask_code) and scanned in
 * one forward pass for structure (namespace-level definitions and macro
 * calls: the C++ model's parser, cppmodel.h cs_parse_scope, with this
 * file's hooks) plus a few PCRE2 passes over the same text for
 * registrations and kernel requests.  Function-like macros of the host files are expanded
 * (arguments substituted, # and ## applied) and the expansion is scanned
 * like code written at the call.
 *
 * Speed: the loops that touch every byte (bodies, MPSGraph markers,
 * brace matching, identifiers) use one character-class table and skip
 * uninteresting bytes; the MPSGraph markers are found by a hand-written
 * scanner instead of a PCRE2 pattern; the identifier index of a host file
 * (hs_file_has_ident) and the string literals (hs_kernel_requested) are
 * built from a kept copy of the masked text the first time they are asked
 * for, so a run that never asks pays nothing for them.
 */
#include "read/hostscan.h"
#include "read/cppmodel.h"
#include "base/cli.h"
#include "base/diag.h"
#include "base/lex.h"
#include "read/dtypes.h"
#include "read/metalreg.h"
#include "base/walk.h"
#include "base/scan.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NOSZ ((size_t)-1)

/* ---------------- string map ---------------- */

static uint64_t fnv(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static size_t map_slot(const struct hs_map *mp, const char *key)
{
	size_t i = (size_t)fnv(key) & (mp->cap - 1);
	while (mp->keys[i] && strcmp(mp->keys[i], key) != 0)
		i = (i + 1) & (mp->cap - 1);
	return i;
}

long hs_map_get(const struct hs_map *mp, const char *key)
{
	size_t i;
	if (!mp->cap)
		return -1;
	i = map_slot(mp, key);
	return mp->keys[i] ? mp->vals[i] : -1;
}

int hs_map_has_prefix(const struct hs_map *mp, const char *start)
{
	size_t i, l = strlen(start);
	for (i = 0; i < mp->cap; i++)
		if (mp->keys[i] && strncmp(mp->keys[i], start, l) == 0)
			return 1;
	return 0;
}

void hs_map_put(struct hs_map *mp, const char *key, long val)
{
	size_t i;
	if ((mp->n + 1) * 2 > mp->cap) {
		struct hs_map nm;
		size_t j;
		nm.cap = mp->cap ? mp->cap * 2 : 64;
		nm.n = mp->n;
		nm.keys = xcalloc(nm.cap, sizeof *nm.keys);
		nm.vals = xcalloc(nm.cap, sizeof *nm.vals);
		for (j = 0; j < mp->cap; j++)
			if (mp->keys[j]) {
				size_t k = map_slot(&nm, mp->keys[j]);
				nm.keys[k] = mp->keys[j];
				nm.vals[k] = mp->vals[j];
			}
		free(mp->keys);
		free(mp->vals);
		*mp = nm;
	}
	i = map_slot(mp, key);
	if (!mp->keys[i]) {
		mp->keys[i] = xstrdup(key);
		mp->n++;
	}
	mp->vals[i] = val;
}

void hs_map_free(struct hs_map *mp)
{
	size_t i;
	for (i = 0; i < mp->cap; i++)
		free(mp->keys[i]);
	free(mp->keys);
	free(mp->vals);
	memset(mp, 0, sizeof *mp);
}

/* ---------------- private state ---------------- */

struct list { long *v; size_t n, cap; };

static void list_add(struct list *l, long x)
{
	if (l->n + 2 > l->cap) {
		l->cap = l->cap ? l->cap * 2 : 4;
		l->v = xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n++] = x;
	l->v[l->n] = -1;
}

struct macro {
	struct lex_macro m;
	int graph;
	char *why;
	char **calls;
	size_t ncalls;
};

/* capacities of the model's arrays (the counts live in hs_model) */
struct caps {
	size_t files, defs, regs, reqs, incs, metals, raws, xfails, decls,
	    functors;
};

/* A set of identifiers, each with the files it stands in: open
 * addressing over slots whose keys are spans of one arena of bytes, and
 * for each a list of files, newest first. */
struct idslot {
	uint32_t key, len;       /* the name: keys[key, key + len); len 0: empty */
	uint32_t hash;
	uint32_t files;          /* its newest node + 1 */
};

struct idnode {
	uint32_t file, next;     /* next: the older node + 1, 0 at the end */
};

struct ids {
	struct idslot *slot;
	size_t cap, n;
	char *keys;
	size_t nkeys, capkeys;
	struct idnode *node;
	size_t nnode, capnode;
};

struct priv {
	struct hs_map defname;   /* name → index into lists */
	struct list *lists;
	size_t nlists, caplists;
	struct hs_map macros;    /* host macro name → index */
	unsigned char macfirst[256]; /* first bytes of the macro names */
	struct macro *mac;
	size_t nmac;
	struct hs_map metalnames;/* registered kernel NAMEs */
	struct hs_map kernelnames;/* every kernel name the registrations
	                            instantiate (read from the macros) */
	struct mr_defs defs;     /* the #defines of ROOT/c10/metal/ *.h */
	struct hs_map reqnames;  /* requested kernel names + host strings */
	struct hs_map namespaces;/* namespace names declared in host code */
	struct mk_re re_reg, re_req, re_hostname, re_xlist, re_decl,
	    re_functor, re_tlist, re_kvoid;
	int re_ready;
	size_t **linetab, *nlines, nlinetab; /* line starts per file */
	/* the identifiers of the host files [idfirst, idfirst + nidfiles)
	 * (#include lines excluded, #define bodies included), each once with
	 * the files it stands in, for hs_file_has_ident; built as the files
	 * are read */
	struct ids ids;
	size_t idfirst, nidfiles;
	char **lits;             /* host string literals cut at '{', without a
	                            trailing '_', 3 bytes or more; sorted */
	size_t nlits, caplits;
	char **sufs;             /* literals the host appends to a name it
	                            builds ("_alpha" of op_name + "_alpha",
	                            of fmt::format("{}_alpha", op_name)) */
	size_t nsufs, capsufs;
	struct caps cap;         /* per model: two models may coexist */
	struct dspan {           /* the directives of the host files, found in
	                            pass 1, blanked in pass 2 */
		size_t a, b;         /* '#' to the end of its last line */
		int include;
	} *spans;
	size_t nspans, capspans;
	size_t *span0;           /* per host file: its first span */
	struct mask_braces br;   /* the braces of the text masked last */
	char *scratch;           /* the text being masked (scratch_mask) */
	size_t cap_scratch;      /* the largest file's size + 1 */
	size_t have_scratch;     /* scratch's size */
};

#define CAP(m) (((struct priv *)(m)->priv)->cap)

static const long no_defs[1] = {-1};

static struct list *list_for(struct priv *p, struct hs_map *mp,
                             const char *key)
{
	long i = hs_map_get(mp, key);
	if (i < 0) {
		GROW(p->lists, p->nlists, p->caplists);
		i = (long)p->nlists++;
		memset(&p->lists[i], 0, sizeof p->lists[i]);
		hs_map_put(mp, key, i);
	}
	return &p->lists[i];
}


/* ---------------- files ---------------- */

static long add_file(struct hs_model *m, const char *rel, int kind)
{
	char *path = strcmp(m->root, ".") == 0 ? xstrdup(rel)
	                                       : xasprintf("%s/%s", m->root, rel),
	     *data;
	size_t len;
	struct hs_file *f;
	struct priv *p = m->priv;
	if (read_source_file(path, &data, &len) != 0) {
		free(path);
		return -1;
	}
	free(path);
	GROW(m->files, m->nfiles, CAP(m).files);
	f = &m->files[m->nfiles];
	memset(f, 0, sizeof *f);
	f->rel = xstrdup(rel);
	f->text = data;
	f->len = len;
	f->kind = kind;
	if (f->len + 1 > p->cap_scratch)
		p->cap_scratch = f->len + 1;
	return (long)m->nfiles++;
}

/* scratch_mask: the masked text of file i (scan.h mask_code) in the one
 * buffer every file is masked into in turn (valid until the next call) */
static char *scratch(struct priv *p)
{
	if (p->cap_scratch > p->have_scratch) {
		free(p->scratch);
		p->scratch = xmalloc(p->cap_scratch);
		p->have_scratch = p->cap_scratch;
	}
	return p->scratch;
}

static char *scratch_mask(struct hs_model *m, size_t i, enum scan_lang lang)
{
	char *c = scratch(m->priv);
	mask_code_into(c, m->files[i].text, m->files[i].len, lang);
	return c;
}

/* scratch_mask_braces: scratch_mask (LANG_C) with the braces of the
 * masked text listed in p->br */
static char *scratch_mask_braces(struct hs_model *m, size_t i)
{
	struct priv *p = m->priv;
	char *c = scratch(p);
	memcpy(c, m->files[i].text, m->files[i].len + 1);
	mask_code_again(c, m->files[i].len, &p->br);
	return c;
}

/* Blank c[a, b) but its newlines. */
static void blank_span(char *c, size_t a, size_t b)
{
	for (; a < b; a++)
		if (c[a] != '\n')
			c[a] = ' ';
}

/* ---------------- preprocessor lines ---------------- */

/* Hand every preprocessor directive of masked text c to fn(ctx, text,
 * start, end) (when fn is not NULL), and with BLANK blank it (in place)
 * after; [start, end) spans the directive with its continuation lines. */
typedef void (*directive_fn)(void *ctx, const char *c, size_t a, size_t b);

static void blank_directives(char *c, size_t n, directive_fn fn, void *ctx,
                             int blank)
{
	size_t i = 0;
	while (i < n) {
		size_t j = i, e;
		while (j < n && (c[j] == ' ' || c[j] == '\t'))
			j++;
		e = j;
		if (j < n && c[j] == '#') {
			size_t k;
			e = lex_directive_end(c, n, j);
			if (fn)
				fn(ctx, c, j, e);
			for (k = j; blank && k < e; k++)
				if (c[k] != '\n')
					c[k] = ' ';
		} else {
			const char *nl = memchr(c + e, '\n', n - e);
			e = nl ? (size_t)(nl - c) : n;
		}
		i = e < n ? e + 1 : n;
	}
}

struct dctx {
	struct hs_model *m;
	size_t file;
	int collect_macros;
	int ids_only;            /* only blank #include lines in idtext */
	char *idtext;            /* #include lines are blanked here (NULL:
	                            nowhere) */
};

/* "#define NAME(params) body": add a host macro. */
static void take_define(struct hs_model *m, const char *c, size_t a, size_t b)
{
	struct priv *p = m->priv;
	size_t ns, ne, open, close;
	struct macro *mc;
	char *name;

	if (!lex_define_head(c, a, b, &ns, &ne, &open, &close))
		return;
	name = xstrndup(c + ns, ne - ns);
	if (hs_map_get(&p->macros, name) >= 0) {
		free(name);
		return; /* first definition wins */
	}
	free(name);
	p->mac = xrealloc(p->mac, (p->nmac + 1) * sizeof *p->mac);
	mc = &p->mac[p->nmac];
	memset(mc, 0, sizeof *mc);
	lex_define_take(c, b, ns, ne, open, close, &mc->m);
	hs_map_put(&p->macros, mc->m.name, (long)p->nmac);
	p->macfirst[(unsigned char)mc->m.name[0]] = 1;
	p->nmac++;
}

static void on_directive(void *vctx, const char *c, size_t a, size_t b)
{
	struct dctx *x = vctx;
	struct hs_model *m = x->m;
	struct priv *p = m->priv;
	size_t i = lex_skip_ws(c, b, a + 1);
	int include = b - i >= 7 && memcmp(c + i, "include", 7) == 0;
	if (x->collect_macros) {
		GROW(p->spans, p->nspans, p->capspans);
		p->spans[p->nspans].a = a;
		p->spans[p->nspans].b = b;
		p->spans[p->nspans].include = include;
		p->nspans++;
	}
	if (include) {
		static const char pre[] = "<ATen/ops/", suf[] = "_native.h>";
		size_t s, e;
		for (s = a; x->idtext && s < b; s++)
			if (x->idtext[s] != '\n')
				x->idtext[s] = ' ';
		if (x->ids_only)
			return;
		i = lex_skip_ws(c, b, i + 7);
		if (b - i < sizeof pre - 1 || memcmp(c + i, pre, sizeof pre - 1))
			return;
		s = i + sizeof pre - 1;
		e = s;
		while (e < b && lex_idc(c[e]))
			e++;
		/* the name ends before "_native.h>": back up over it */
		while (e > s && !(e + sizeof suf - 1 <= b &&
		                  memcmp(c + e, suf, sizeof suf - 1) == 0))
			e--;
		if (e <= s || memcmp(c + e, suf, sizeof suf - 1) != 0)
			return;
		GROW(m->incs, m->nincs, CAP(m).incs);
		m->incs[m->nincs].op = xstrndup(c + s, e - s);
		m->incs[m->nincs].at.file = x->file;
		m->incs[m->nincs].at.off = a;
		m->nincs++;
	} else {
		if (x->collect_macros)
			take_define(m, c, a, b);
	}
}

/* ---------------- macro expansion ---------------- */

static const struct macro *find_macro(const struct priv *p, const char *s,
                                      size_t n)
{
	char tmp[128];
	long k;
	if (n >= sizeof tmp || !p->macfirst[(unsigned char)s[0]])
		return NULL;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	k = hs_map_get(&p->macros, tmp);
	return k < 0 ? NULL : &p->mac[k];
}

/* ---------------- scanning units ---------------- */

struct unit {
	struct cs_unit cu;   /* the text, its file, the call it comes from
	                        (cu.inv), the macros being expanded (cu.depth,
	                        cu.stack; cu.outer the outermost), for the
	                        structure parser (cppmodel.h); first, so that
	                        its hooks find the rest */
	size_t inv_end;      /* with cu.inv: just past the call written in the
	                        file (its ')' and a ';' that follows) */
	long parent;         /* enclosing definition, -1 at namespace level */
	/* definitions found in this unit: body ranges */
	size_t *bs, *be;
	long *di;
	size_t nd, capd;
};

static struct hs_where where(const struct unit *u, size_t off)
{
	struct hs_where w;
	w.file = u->cu.file;
	w.off = u->cu.inv == NOSZ ? off : u->cu.inv;
	return w;
}

static void scan_unit(struct hs_model *m, struct unit *u);

/* Expand the call of mc whose name starts at t[a], '(' at t[open] and ')'
 * at t[close], and scan the expansion as a child of u. */
static void expand_call(struct hs_model *m, struct unit *u,
                        const struct macro *mc, size_t a, size_t open,
                        size_t close, long parent)
{
	struct unit c;
	char **args;
	size_t na;
	int k;
	char *x;

	if (u->cu.depth >= CS_MACRO_DEPTH)
		return;
	for (k = 0; k < u->cu.depth; k++)
		if (strcmp(u->cu.stack[k], mc->m.name) == 0)
			return; /* a macro does not expand inside itself */
	args = lex_split_args(u->cu.t, open, close, &na);
	x = lex_expand(&mc->m, args, na);
	lex_strv_free(args, na);
	memset(&c, 0, sizeof c);
	c.cu.t = x;
	c.cu.n = strlen(x);
	c.cu.file = u->cu.file;
	c.cu.inv = u->cu.inv == NOSZ ? a : u->cu.inv;
	if (u->cu.inv == NOSZ) {
		size_t e = lex_skip_ws(u->cu.t, u->cu.n, close + 1);
		c.inv_end = e < u->cu.n && u->cu.t[e] == ';' ? e + 1 : close + 1;
	} else {
		c.inv_end = u->inv_end;
	}
	c.parent = parent;
	c.cu.depth = u->cu.depth + 1;
	c.cu.outer = u->cu.outer ? u->cu.outer : mc->m.name;
	memcpy(c.cu.stack, u->cu.stack, sizeof c.cu.stack);
	c.cu.stack[u->cu.depth] = mc->m.name;
	scan_unit(m, &c);
	free(c.bs);
	free(c.be);
	free(c.di);
	free(x);
}

static void add_call(char ***calls, size_t *nc, const char *s, size_t n)
{
	size_t i;
	for (i = 0; i < *nc; i++)
		if ((*calls)[i][0] == s[0] && strncmp((*calls)[i], s, n) == 0 &&
		    (*calls)[i][n] == '\0')
			return;
	*calls = xrealloc(*calls, (*nc + 1) * sizeof **calls);
	(*calls)[(*nc)++] = xstrndup(s, n);
}

/* Is the identifier at t[a] a member access (., ->)?  Otherwise set
 * [*qs, *qe) to its last qualifier ("mps" in mps::f, empty when none). */
static int member_call(const char *t, size_t a, size_t *qs, size_t *qe)
{
	size_t i = a;
	*qs = *qe = a;
	while (i > 0 && (t[i - 1] == ' ' || t[i - 1] == '\t'))
		i--;
	if (i >= 1 && t[i - 1] == '.')
		return 1;
	if (i >= 2 && t[i - 2] == '-' && t[i - 1] == '>')
		return 1;
	if (i >= 2 && t[i - 1] == ':' && t[i - 2] == ':') {
		size_t e = i - 2, s = e;
		while (s > 0 && lex_idc(t[s - 1]))
			s--;
		*qs = s;
		*qe = e;
	}
	return 0;
}

/* Record a call of t[a, e): "Q::name" when qualified by Q, else "name".
 * Whether Q is a namespace of the host files is decided later. */
static void note_call(char ***calls, size_t *nc, const char *t, size_t a,
                      size_t e)
{
	size_t qs, qe;
	if (member_call(t, a, &qs, &qe))
		return;
	if (qe > qs) {
		char q[256];
		size_t nq = qe - qs + 2 + (e - a);
		char *h = nq < sizeof q ? q : xmalloc(nq + 1);
		memcpy(h, t + qs, qe - qs);
		memcpy(h + (qe - qs), "::", 2);
		memcpy(h + (qe - qs) + 2, t + a, e - a);
		h[nq] = '\0';
		add_call(calls, nc, h, nq);
		if (h != q)
			free(h);
	} else {
		add_call(calls, nc, t + a, e - a);
	}
}

/* The first MPSGraph marker in t[bs, be): sets [*ms, *me) and returns 1,
 * else 0.  A hand-written scanner for what used to be one PCRE2 pattern
 * (\b-delimited words MPSGraph, mpsGraph, MPSGraphTensor, runMPSGraph,
 * LookUpOrCreateCachedGraph, any word ending in CachedGraph; `unary_op(`
 * and `unary_op_noresize(` unless written `Iterator::unary_op`;
 * `binaryOpTensor(`, `binaryOpScalar(`, `binaryOp ##`; blanks allowed
 * before the `(` or `##`), with the same leftmost match: words are runs
 * of [A-Za-z0-9_], the text before bs counts for the word boundary and
 * the look-behind, nothing at or after be is seen.  It runs over every
 * byte of every body, so it avoids PCRE2's per-position cost. */
static int graph_marker(const char *t, size_t bs, size_t be, size_t *ms,
                        size_t *me)
{
	size_t i = bs;
	if (i > 0 && i < be && lex_idc(t[i - 1]))
		while (i < be && lex_idc(t[i]))
			i++; /* inside a word that started before bs */
	while (i < be) {
		size_t s, e, n, q;
		if (!lex_idc(t[i])) {
			i++;
			continue;
		}
		s = i;
		while (i < be && lex_idc(t[i]))
			i++;
		e = i;
		n = e - s;
		if (n < 8)
			continue;
		switch (t[e - 1]) {
		case 'h': /* ...Graph */
			if ((n == 8 && (memcmp(t + s, "MPSGraph", 8) == 0 ||
			                memcmp(t + s, "mpsGraph", 8) == 0)) ||
			    (n == 11 && memcmp(t + s, "runMPSGraph", 11) == 0) ||
			    (n >= 11 && memcmp(t + e - 11, "CachedGraph", 11) == 0)) {
				*ms = s;
				*me = e;
				return 1;
			}
			continue;
		case 'r': /* MPSGraphTensor, binaryOpTensor, binaryOpScalar */
			if (n != 14)
				continue;
			if (memcmp(t + s, "MPSGraphTensor", 14) == 0) {
				*ms = s;
				*me = e;
				return 1;
			}
			if (memcmp(t + s, "binaryOpTensor", 14) != 0 &&
			    memcmp(t + s, "binaryOpScalar", 14) != 0)
				continue;
			break;
		case 'p': /* unary_op, binaryOp */
			if (n != 8 || (memcmp(t + s, "unary_op", 8) != 0 &&
			               memcmp(t + s, "binaryOp", 8) != 0))
				continue;
			break;
		case 'e': /* unary_op_noresize */
			if (n != 17 || memcmp(t + s, "unary_op_noresize", 17) != 0)
				continue;
			break;
		default:
			continue;
		}
		/* a call: blanks, then '(' (or "##" after binaryOp) */
		if (t[s] == 'u' && s >= 10 && memcmp(t + s - 10, "Iterator::", 10) == 0)
			continue;
		q = e;
		while (q < be && lex_sp(t[q]))
			q++;
		if (n == 8 && t[s] == 'b') {
			if (q + 1 < be && t[q] == '#' && t[q + 1] == '#') {
				*ms = s;
				*me = q + 2;
				return 1;
			}
			continue;
		}
		if (q < be && t[q] == '(') {
			*ms = s;
			*me = q + 1;
			return 1;
		}
	}
	return 0;
}

/* def->why / mc->why from the marker t[a, b): blanks removed, and "()"
 * for a call ("unary_op (" → "unary_op()"). */
static char *marker_why(const char *t, size_t a, size_t b)
{
	char *why = lex_trim_dup(t, a, b), *w = why, *q = why;
	for (; *w; w++)
		if (!lex_sp(*w))
			*q++ = *w;
	*q = '\0';
	if (q > why && q[-1] == '(') {
		char *w2 = xasprintf("%s)", why);
		free(why);
		why = w2;
	}
	return why;
}

/* Body analysis of t[bs, be) for definition d: the MPSGraph marker,
 * the calls, and the macros called inside (expanded, events kept). */
static void analyze_body(struct hs_model *m, struct unit *u, size_t bs,
                         size_t be, long d)
{
	struct priv *p = m->priv;
	struct hs_def *def = &m->defs[d];
	size_t ov[2], i;

	if (!def->graph && graph_marker(u->cu.t, bs, be, &ov[0], &ov[1])) {
		def->graph = 1;
		def->why = marker_why(u->cu.t, ov[0], ov[1]);
	}
	i = bs;
	while (i < be) {
		char c = u->cu.t[i];
		if (!(lex_cls[(unsigned char)c] & (LEX_QUOTE | LEX_ID))) {
			i++;
			continue;
		}
		if (c == '"' || c == '\'') {
			i = lex_skip_literal(u->cu.t, be, i);
			continue;
		}
		if (lex_id0(c) && (i == 0 || !lex_idc(u->cu.t[i - 1]))) {
			size_t e = i, q;
			while (e < be && lex_idc(u->cu.t[e]))
				e++;
			q = lex_skip_ws(u->cu.t, be, e);
			if (q < be && u->cu.t[q] == '(' && !lex_is_keyword(u->cu.t + i, e - i)) {
				const struct macro *mc = find_macro(p, u->cu.t + i, e - i);
				note_call(&m->defs[d].calls, &m->defs[d].ncalls, u->cu.t, i, e);
				if (mc) {
					size_t close = lex_match_close(u->cu.t, be, q, '(', ')');
					if (close < be) {
						expand_call(m, u, mc, i, q, close, d);
						def = &m->defs[d];
						i = close + 1;
						continue;
					}
				}
			}
			i = e;
			continue;
		}
		i++;
	}
}

/* ns, ne: the name; hs, close: the header's start and the body's '}'
 * (close == u->cu.n when unbalanced) */
static long add_def(struct hs_model *m, struct unit *u, size_t ns, size_t ne,
                    size_t hs, size_t close)
{
	struct priv *p = m->priv;
	struct hs_def *d;
	long i;
	GROW(m->defs, m->ndefs, CAP(m).defs);
	i = (long)m->ndefs++;
	d = &m->defs[i];
	memset(d, 0, sizeof *d);
	d->name = xstrndup(u->cu.t + ns, ne - ns);
	d->at = where(u, ns);
	if (u->cu.inv == NOSZ) {
		d->ext_start = lex_skip_ws(u->cu.t, ns, hs);
		d->ext_end = close < u->cu.n ? close + 1 : u->cu.n;
	} else {
		d->ext_start = u->cu.inv;
		d->ext_end = u->inv_end;
	}
	{
		/* TORCH_IMPL_FUNC(name): the word before the '(' before name */
		size_t k = ns, e;
		while (k > 0 && lex_sp(u->cu.t[k - 1]))
			k--;
		if (k > 0 && u->cu.t[k - 1] == '(') {
			k--;
			while (k > 0 && lex_sp(u->cu.t[k - 1]))
				k--;
			e = k;
			while (k > 0 && lex_idc(u->cu.t[k - 1]))
				k--;
			d->impl = e - k == 15 && memcmp(u->cu.t + k, "TORCH_IMPL_FUNC", 15) == 0;
		}
	}
	d->macro = u->cu.outer ? xstrdup(u->cu.outer) : NULL;
	list_add(list_for(p, &p->defname, d->name), i);
	return i;
}

/* The structure parser's hooks (cppmodel.h cs_parse_scope): a host
 * macro called at the start of a header is expanded and its expansion
 * scanned as a child unit; a function definition is added and its body
 * analyzed; scopes need nothing. */
static size_t host_call(struct cs_unit *cu, size_t i, size_t e, size_t q,
                        size_t to, int at_head, const void *scope)
{
	struct unit *u = (struct unit *)cu;
	struct hs_model *m = cu->ctx;
	const char *t = cu->t;
	size_t n = cu->n;
	const struct macro *mc;
	(void)to;
	(void)scope;
	if (at_head && (mc = find_macro(m->priv, t + i, e - i))) {
		size_t close = lex_match_close(t, n, q, '(', ')');
		if (close < n) {
			expand_call(m, u, mc, i, q, close, -1);
			i = lex_skip_ws(t, n, close + 1);
			if (i < n && t[i] == ';')
				i++;
			return i;
		}
	}
	return 0;
}

static const void *host_brace(struct cs_unit *cu, int kind,
                              const struct cs_header *h, size_t hs,
                              size_t brace, size_t close, const void *scope)
{
	struct unit *u = (struct unit *)cu;
	struct hs_model *m = cu->ctx;
	long d;
	(void)scope;
	if (kind == CS_H_SCOPE_NS && cu->inv == NOSZ) {
		/* the names of `namespace a::b {` written in a file */
		size_t a = h->ns;
		while (a < h->ne) {
			size_t e = lex_ident_end(cu->t, h->ne, a);
			if (e > a) {
				char *nm = xstrndup(cu->t + a, e - a);
				hs_map_put(&((struct priv *)m->priv)->namespaces, nm, 1);
				free(nm);
			}
			a = e + 1;
		}
	}
	if (kind != CS_H_FUNC)
		return NULL;
	d = add_def(m, u, h->ns, h->ne, hs, close);
	GROW(u->bs, u->nd, u->capd);
	u->be = xrealloc(u->be, u->capd * sizeof *u->be);
	u->di = xrealloc(u->di, u->capd * sizeof *u->di);
	u->bs[u->nd] = brace;
	u->be[u->nd] = close;
	u->di[u->nd] = d;
	u->nd++;
	analyze_body(m, u, brace + 1, close < cu->n ? close : cu->n, d);
	return NULL;
}

static const struct cs_parse_ops host_ops = {host_call, host_brace};

/* Namespace-level structure of a unit: definitions and macro calls. */
static void parse_scope(struct hs_model *m, struct unit *u)
{
	struct priv *p = m->priv;
	u->cu.ops = &host_ops;
	u->cu.ctx = m;
	/* a file's text: the braces its masking listed (cppmodel.h) */
	if (u->cu.inv == NOSZ && u->cu.t == p->scratch && !p->br.edge)
		cs_pairs_from(&u->cu.bp, u->cu.t, &p->br);
	else
		cs_pairs_build(&u->cu.bp, u->cu.t, u->cu.n);
	cs_parse_scope(&u->cu, 0, u->cu.n, NULL);
	cs_pairs_free(&u->cu.bp);
}

static long containing_def(const struct unit *u, size_t off)
{
	size_t k;
	for (k = 0; k < u->nd; k++)
		if (off > u->bs[k] && off < u->be[k])
			return u->di[k];
	return u->parent;
}

static char *unqualify(const char *s, size_t a, size_t b)
{
	size_t k;
	for (k = b; k > a; k--)
		if (s[k - 1] == ':' || s[k - 1] == '&' || lex_sp(s[k - 1]))
			break;
	return xstrndup(s + k, b - k);
}

static void scan_events(struct hs_model *m, struct unit *u)
{
	struct priv *p = m->priv;
	size_t ov[6], at = 0;

	while (re_match(&p->re_reg, u->cu.t, u->cu.n, at, ov, 3)) {
		struct hs_reg *r;
		GROW(m->regs, m->nregs, CAP(m).regs);
		r = &m->regs[m->nregs++];
		r->stub = xstrndup(u->cu.t + ov[2], ov[3] - ov[2]);
		r->fn = unqualify(u->cu.t, ov[4], ov[5]);
		r->macro = u->cu.outer ? xstrdup(u->cu.outer) : NULL;
		r->at = where(u, ov[0]);
		r->def = -1;
		at = ov[1];
	}
	at = 0;
	while (re_match(&p->re_req, u->cu.t, u->cu.n, at, ov, 3)) {
		struct hs_req *r;
		GROW(m->reqs, m->nreqs, CAP(m).reqs);
		r = &m->reqs[m->nreqs++];
		r->binary = u->cu.t[ov[2]] == 'b';
		r->ternary = u->cu.t[ov[2]] == 't';
		r->kernel = xstrndup(u->cu.t + ov[4], ov[5] - ov[4]);
		r->macro = u->cu.outer ? xstrdup(u->cu.outer) : NULL;
		r->args = NULL;
		r->nargs = 0;
		r->scalar = 0;
		r->scalar_dtype = NULL;
		{
			/* the arguments after the name as written; the scalar after
			   the name, and its dtype argument */
			const char *o = memchr(u->cu.t + ov[0], '(', ov[1] - ov[0]);
			size_t open = o ? (size_t)(o - u->cu.t) : ov[1], close, na, k;
			close = lex_match_close(u->cu.t, u->cu.n, open, '(', ')');
			if (o && close < u->cu.n) {
				char **a = lex_split_args(u->cu.t, open, close, &na);
				if (na >= 3)
					r->scalar = 1;
				if (na >= 4) {
					int d = cs_dtype_parse(a[3]);
					const char *tok = d >= 0 ? cs_metal_token(d) : NULL;
					r->scalar_dtype = xstrdup(tok ? tok : "?");
				}
				for (k = 2; k < na; k++) {
					r->args = xrealloc(r->args, (r->nargs + 1) * sizeof *r->args);
					r->args[r->nargs++] = a[k];
					a[k] = NULL;
				}
				lex_strv_free(a, na);
			}
		}
		r->at = where(u, ov[0]);
		r->in_def = containing_def(u, ov[0]);
		hs_map_put(&p->reqnames, r->kernel, 1);
		at = ov[1];
	}
}

static void scan_unit(struct hs_model *m, struct unit *u)
{
	if (u->parent < 0)
		parse_scope(m, u);
	else
		analyze_body(m, u, 0, u->cu.n, u->parent);
	scan_events(m, u);
}

/* ---------------- identifiers and strings of a host file ---------------- */

/* The tokens of host code t[0, n): each identifier [a, b) shorter than
 * 256 bytes goes to on_id(ctx, t, a, b, h) when on_id is not NULL (h: its
 * fnv_n hash), the
 * contents [a, b) of each string literal that is one identifier shorter
 * than 254 bytes to on_str(ctx, t, a, b) likewise.  Character literals
 * and numbers are skipped. */
typedef void (*token_fn)(void *ctx, const char *t, size_t a, size_t b,
                         int whole);
typedef void (*ident_fn)(void *ctx, const char *t, size_t a, size_t b,
                         uint64_t h);

#define FNV_BASIS 1469598103934665603ULL
#define FNV_PRIME 1099511628211ULL

static void scan_tokens(const char *t, size_t n, ident_fn on_id,
                        token_fn on_str, void *ctx)
{
	size_t i = 0;
	while (i < n) {
		char c = t[i];
		if (!(lex_cls[(unsigned char)c] & (LEX_QUOTE | LEX_ID))) {
			i++;
			continue;
		}
		if (c == '"') {
			size_t e = lex_skip_literal(t, n, i), k;
			/* a literal that starts with an identifier: its identifier
			 * part, and whether that is the whole literal */
			if (on_str && e - i >= 3 && t[e - 1] == '"' && lex_id0(t[i + 1])) {
				for (k = i + 1; k < e - 1 && lex_idc(t[k]); k++)
					;
				if (k - i - 1 < 256)
					on_str(ctx, t, i + 1, k, k == e - 1);
			}
			i = e;
			continue;
		}
		if (c == '\'') {
			i = lex_skip_literal(t, n, i);
			continue;
		}
		if (lex_id0(c)) {
			size_t e = i;
			if (on_id) {
				uint64_t h = FNV_BASIS;
				while (e < n && lex_idc(t[e]))
					h = (h ^ (unsigned char)t[e++]) * FNV_PRIME;
				if (e - i < 256)
					on_id(ctx, t, i, e, h);
			} else {
				while (e < n && lex_idc(t[e]))
					e++;
			}
			i = e;
			continue;
		}
		if (c >= '0' && c <= '9') {
			while (i < n && lex_idc(t[i]))
				i++;
			continue;
		}
		i++;
	}
}

/* the tokens of a host file being read: its identifiers and string
 * literals go to the indexes */
struct tokctx {
	struct priv *p;
	uint32_t file;
};

static void put_string(void *ctx, const char *t, size_t a, size_t b, int whole)
{
	struct priv *p = ((struct tokctx *)ctx)->p;
	char tmp[256];
	size_t n = b - a, c = n;
	memcpy(tmp, t + a, n);
	tmp[n] = '\0';
	if (whole)
		hs_map_put(&p->reqnames, tmp, 1);
	/* the start the host may complete (the identifier part, before a
	 * '{' of fmt::format or any other character), no trailing '_' */
	while (c > 0 && tmp[c - 1] == '_')
		c--;
	if (c >= 2) {
		GROW(p->lits, p->nlits, p->caplits);
		p->lits[p->nlits++] = xstrndup(tmp, c);
	}
}

/* The literals of host code that end a name the host builds: a literal
 * written after '+' ("op_name + \"_alpha\""), or a format string starting
 * with "{}" ("{}_alpha"), taken without the "{}".  Found in t[0, n), a
 * host file's masked text with its #include lines blanked, as pass 2
 * reads it. */
static void index_suffixes(struct priv *p, const char *t, size_t n)
{
	size_t i = 0;
	while (i < n) {
		size_t e, a, b, q;
		if (t[i] != '"' && t[i] != '\'') {
			i++;
			continue;
		}
		e = lex_skip_literal(t, n, i);
		if (t[i] != '"' || e - i < 3 || t[e - 1] != '"') {
			i = e;
			continue;
		}
		a = i + 1;
		b = e - 1;
		q = i;
		while (q > 0 && lex_sp(t[q - 1]))
			q--;
		if (b - a > 2 && t[a] == '{' && t[a + 1] == '}')
			a += 2;
		else if (!(q > 0 && t[q - 1] == '+'))
			a = b;
		if (b > a && b - a < 128) {
			size_t k;
			int ok = 1;
			for (k = a; k < b && ok; k++)
				ok = lex_idc(t[k]);
			if (ok) {
				GROW(p->sufs, p->nsufs, p->capsufs);
				p->sufs[p->nsufs++] = xstrndup(t + a, b - a);
			}
		}
		i = e;
	}
}

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the first literal >= key, by binary search */
static size_t lit_lower(const struct priv *p, const char *key)
{
	size_t lo = 0, hi = p->nlits;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(p->lits[mid], key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int lit_is(const struct priv *p, const char *s, size_t n)
{
	char tmp[256];
	size_t k;
	if (n >= sizeof tmp)
		return 0;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	k = lit_lower(p, tmp);
	return k < p->nlits && strcmp(p->lits[k], tmp) == 0;
}

static uint64_t fnv_n(const char *s, size_t n)
{
	uint64_t h = FNV_BASIS;
	size_t i;
	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * FNV_PRIME;
	return h;
}

/* The slot of the name s[0, n) of hash h in ids (empty or holding it). */
static struct idslot *ids_slot(const struct ids *x, const char *s, size_t n,
                               uint32_t h)
{
	size_t i = (size_t)h & (x->cap - 1);
	for (;;) {
		struct idslot *e = &x->slot[i];
		if (!e->len || (e->hash == h && e->len == n &&
		                memcmp(x->keys + e->key, s, n) == 0))
			return e;
		i = (i + 1) & (x->cap - 1);
	}
}

/* ids_add: name s[0, n) stands in FILE (files come in ascending order) */
static void ids_add(struct ids *x, const char *s, size_t n, uint32_t h,
                    uint32_t file)
{
	struct idslot *e;
	if ((x->n + 1) * 2 > x->cap) {
		struct ids nx = *x;
		size_t j;
		nx.cap = x->cap ? x->cap * 2 : 4096;
		nx.slot = xcalloc(nx.cap, sizeof *nx.slot);
		for (j = 0; j < x->cap; j++)
			if (x->slot[j].len)
				*ids_slot(&nx, x->keys + x->slot[j].key, x->slot[j].len,
				          x->slot[j].hash) = x->slot[j];
		free(x->slot);
		*x = nx;
	}
	e = ids_slot(x, s, n, h);
	if (!e->len) {
		while (x->nkeys + n > x->capkeys) {
			x->capkeys = x->capkeys ? x->capkeys * 2 : 65536;
			x->keys = xrealloc(x->keys, x->capkeys);
		}
		memcpy(x->keys + x->nkeys, s, n);
		e->key = (uint32_t)x->nkeys;
		e->len = (uint32_t)n;
		e->hash = h;
		e->files = 0;
		x->nkeys += n;
		x->n++;
	} else if (e->files && x->node[e->files - 1].file == file) {
		return; /* this file has it already */
	}
	GROW(x->node, x->nnode, x->capnode);
	x->node[x->nnode].file = file;
	x->node[x->nnode].next = e->files;
	e->files = (uint32_t)++x->nnode;
}

/* ids_has: name s[0, n) stands in FILE */
static int ids_has(const struct ids *x, const char *s, size_t n, uint32_t file)
{
	const struct idslot *e;
	uint32_t k;
	if (!x->cap || n == 0)
		return 0;
	e = ids_slot(x, s, n, (uint32_t)fnv_n(s, n));
	for (k = e->len ? e->files : 0; k; k = x->node[k - 1].next)
		if (x->node[k - 1].file == file)
			return 1;
	return 0;
}

static void ids_free(struct ids *x)
{
	free(x->slot);
	free(x->keys);
	free(x->node);
	memset(x, 0, sizeof *x);
}

static void put_ident(void *vctx, const char *t, size_t a, size_t b,
                      uint64_t h)
{
	struct tokctx *x = vctx;
	ids_add(&x->p->ids, t + a, b - a, (uint32_t)h, x->file);
}

/* ---------------- graph propagation ---------------- */

static void macro_analyze(struct macro *mc)
{
	const char *t = mc->m.body;
	size_t n = strlen(t), ov[2], i = 0;
	if (graph_marker(t, 0, n, &ov[0], &ov[1])) {
		mc->graph = 1;
		mc->why = lex_trim_dup(t, ov[0], ov[1]);
	}
	while (i < n) {
		if (t[i] == '"' || t[i] == '\'') {
			i = lex_skip_literal(t, n, i);
			continue;
		}
		if (lex_id0(t[i]) && (i == 0 || !lex_idc(t[i - 1]))) {
			size_t e = i, q;
			while (e < n && lex_idc(t[e]))
				e++;
			q = lex_skip_ws(t, n, e);
			if (q < n && t[q] == '(' && !lex_is_keyword(t + i, e - i))
				note_call(&mc->calls, &mc->ncalls, t, i, e);
			i = e;
			continue;
		}
		i++;
	}
}

/* The graph flag of callee NAME: a host macro or any definition named so. */
static int callee_graph(struct hs_model *m, const char *name)
{
	struct priv *p = m->priv;
	const char *sep = strstr(name, "::");
	long k;
	const long *d;
	if (sep) {
		char q[128];
		size_t n = (size_t)(sep - name);
		if (n >= sizeof q)
			return 0;
		memcpy(q, name, n);
		q[n] = '\0';
		if (hs_map_get(&p->namespaces, q) < 0)
			return 0; /* TensorIterator::, at::, std::: not host code */
		name = sep + 2;
	}
	k = hs_map_get(&p->macros, name);
	if (k >= 0 && p->mac[k].graph)
		return 1;
	for (d = hs_defs_named(m, name); *d >= 0; d++)
		if (m->defs[*d].graph)
			return 1;
	return 0;
}

static void propagate(struct hs_model *m)
{
	struct priv *p = m->priv;
	int changed = 1;
	size_t i, j;
	while (changed) {
		changed = 0;
		for (i = 0; i < p->nmac; i++) {
			struct macro *mc = &p->mac[i];
			if (mc->graph)
				continue;
			for (j = 0; j < mc->ncalls; j++)
				if (strcmp(mc->calls[j], mc->m.name) != 0 &&
				    callee_graph(m, mc->calls[j])) {
					mc->graph = 1;
					mc->why = xasprintf("%s()", mc->calls[j]);
					changed = 1;
					break;
				}
		}
		for (i = 0; i < m->ndefs; i++) {
			struct hs_def *d = &m->defs[i];
			if (d->graph)
				continue;
			for (j = 0; j < d->ncalls; j++)
				if (strcmp(d->calls[j], d->name) != 0 &&
				    callee_graph(m, d->calls[j])) {
					d->graph = 1;
					d->why = xasprintf("%s()", d->calls[j]);
					changed = 1;
					break;
				}
		}
	}
}

/* ---------------- kernels ---------------- */

/* The traits that limit an operator() to floating-point or complex
 * types (c10/metal/utils.h and Metal's own <metal_type_traits>). */
static int non_integral_trait(const char *s, size_t n)
{
	static const char *const tr[] = {"is_scalar_floating_point_v",
	                                 "is_floating_point_v", "is_complex_v",
	                                 NULL};
	size_t k;
	for (k = 0; tr[k]; k++)
		if (strlen(tr[k]) == n && memcmp(tr[k], s, n) == 0)
			return 1;
	return 0;
}

/* One member header t[a, b) of a functor body (up to its '{' or ';').
 * Returns -1 when it does not declare operator(), 1 when it is a template
 * limited to non-integral types (traits appended to *lim), 0 otherwise. */
static int functor_member(const char *t, size_t a, size_t b, struct buf *lim)
{
	size_t i, lt, gt, k;
	int depth = 0, found = 0, limited = 0;
	for (i = a; i + 8 <= b && !found; i++)
		if (lex_word_at(t, b, i, "operator")) {
			k = lex_skip_ws(t, b, i + 8);
			if (k < b && t[k] == '(') {
				k = lex_skip_ws(t, b, k + 1);
				found = k < b && t[k] == ')';
			}
		}
	if (!found)
		return -1;
	i = lex_skip_ws(t, b, a);
	if (!lex_word_at(t, b, i, "template"))
		return 0; /* a plain operator(): converts any argument */
	lt = lex_skip_ws(t, b, i + 8);
	if (lt >= b || t[lt] != '<')
		return 0;
	for (gt = lt; gt < b; gt++) {
		if (t[gt] == '<')
			depth++;
		else if (t[gt] == '>' && --depth == 0)
			break;
		else if (t[gt] == '!')
			return 0; /* a negated trait: unsure */
	}
	if (gt >= b)
		return 0;
	for (k = lt; k < gt;) {
		size_t e = k;
		if (!lex_id0(t[k]) || (k > 0 && lex_idc(t[k - 1]))) {
			k++;
			continue;
		}
		while (e < gt && lex_idc(t[e]))
			e++;
		if (e - k > 3 && memcmp(t + k, "is_", 3) == 0) {
			char *w;
			if (!non_integral_trait(t + k, e - k))
				return 0; /* another trait: unsure */
			limited = 1;
			w = xstrndup(t + k, e - k);
			if (!lim->data || !strstr(lim->data, w))
				buf_printf(lim, "%s%s", lim->len ? ", " : "", w);
			free(w);
		}
		k = e;
	}
	return limited;
}

/* The functors `struct NAME_functor {...}` of kernel file FILE (masked
 * text t): the placeholder marker (searched in the file's own text, as
 * it sits in a comment) and the operator() overloads. */
static void scan_functors(struct hs_model *m, size_t file, const char *t)
{
	struct priv *p = m->priv;
	const struct hs_file *f = &m->files[file];
	size_t n = f->len, ov[4], at = 0;
	/* most files hold no marker: one search decides */
	int any_marker = strstr(f->text, HS_PLACEHOLDER) != NULL;
	while (re_match(&p->re_functor, t, n, at, ov, 2)) {
		size_t open = ov[1] - 1, close = lex_match_close(t, n, open, '{', '}');
		size_t i, mstart;
		int nop = 0, nlimited = 0;
		struct hs_functor *fu;
		struct buf lim;
		const char *mk;
		GROW(m->functors, m->nfunctors, CAP(m).functors);
		fu = &m->functors[m->nfunctors++];
		memset(fu, 0, sizeof *fu);
		fu->name = xstrndup(t + ov[2], ov[3] - ov[2]);
		fu->kernel = xstrndup(t + ov[2], ov[3] - ov[2] - 8); /* "_functor" */
		fu->at.file = file;
		fu->at.off = ov[2];
		mk = any_marker ? strstr(f->text + open, HS_PLACEHOLDER) : NULL;
		if (mk && (size_t)(mk - f->text) < close) {
			fu->placeholder = 1;
			fu->marker.file = file;
			fu->marker.off = (size_t)(mk - f->text);
		}
		/* members: headers end at ';' or at a '{' (a body, skipped) */
		buf_init(&lim);
		mstart = open + 1;
		for (i = open + 1; i < close;) {
			char c = t[i];
			int r;
			if (c == '"' || c == '\'') {
				i = lex_skip_literal(t, close, i);
				continue;
			}
			if (c == '(' || c == '[') {
				i = lex_match_close(t, close, i, c, c == '(' ? ')' : ']') + 1;
				continue;
			}
			if (c != ';' && c != '{') {
				i++;
				continue;
			}
			r = functor_member(t, mstart, i, &lim);
			if (r >= 0) {
				nop++;
				nlimited += r;
			}
			if (c == '{')
				i = lex_match_close(t, close, i, '{', '}');
			i++;
			mstart = i;
		}
		if (nop > 0 && nlimited == nop) {
			fu->no_integral = 1;
			fu->limits = lim.data ? lim.data : xstrdup("");
		} else {
			buf_free(&lim);
		}
		at = close < n ? close : ov[1];
	}
}

static void scan_metal(struct hs_model *m, size_t file, const char *masked)
{
	struct priv *p = m->priv;
	struct hs_file *f = &m->files[file];
	struct mr_file mf;
	size_t i, ov[4], at = 0;

	memset(&mf, 0, sizeof mf);
	mr_file_parse(&mf, masked, f->len);
	for (i = 0; i < mf.nregs; i++) {
		const struct mr_reg *r = &mf.regs[i];
		const struct mr_call *c = &mf.calls[r->call];
		struct hs_metal *h;
		struct mr_pair pr;
		GROW(m->metals, m->nmetals, CAP(m).metals);
		h = &m->metals[m->nmetals++];
		pr.in = r->in;
		pr.alpha = r->alpha;
		pr.out = r->out;
		h->name = xstrdup(r->name);
		h->in = xstrdup(r->in);
		h->out = xstrdup(r->out);
		h->alpha = r->alpha ? xstrdup(r->alpha) : NULL;
		h->macro = xstrdup(r->core->macro);
		{
			/* every kernel the registration instantiates, from the
			 * macro's #define in the checkout's c10/metal headers */
			char *args[4] = {NULL, NULL, NULL, NULL};
			struct mr_inst *v = NULL;
			size_t nv, j;
			args[0] = r->name;
			args[r->core->i_in] = r->in;
			args[r->core->i_out] = r->out;
			if (r->core->i_alpha >= 0)
				args[r->core->i_alpha] = r->alpha;
			nv = mr_instantiate(&p->defs, r->core->macro, args,
			                    (size_t)r->core->nargs, &v);
			h->kernels = nv ? xcalloc(nv, sizeof *h->kernels) : NULL;
			for (j = 0; j < nv; j++) {
				h->kernels[j] = xstrdup(v[j].name);
				hs_map_put(&p->kernelnames, v[j].name, 1);
			}
			h->nkernels = nv;
			{
				const struct mr_inst *d = mr_inst_find(v, nv, "dense");
				h->kernel = d ? xstrdup(d->name)
				        : nv ? xstrdup(v[0].name)
				             : mr_kernel_name(r->name, "dense", &pr);
			}
			mr_insts_free(v, nv);
		}
		if (r->alpha)
			h->call = xasprintf("%s(%s, %s, %s, %s)", r->core->macro, r->name,
			                    r->in, r->alpha, r->out);
		else
			h->call = xasprintf("%s(%s, %s, %s)", r->core->macro, r->name,
			                    r->in, r->out);
		h->via = strcmp(c->macro, r->core->macro) != 0 ? xstrdup(c->macro)
		                                                 : NULL;
		h->at.file = file;
		h->at.off = c->start;
		hs_map_put(&p->metalnames, r->name, 1);
	}
	mr_file_free(&mf);
	/* host_name("NAME") and host_name("PREFIX" #T ...) */
	while (re_match(&p->re_hostname, masked, f->len, at, ov, 2)) {
		struct hs_rawkernel *k;
		size_t q = lex_skip_ws(masked, f->len, ov[3] + 1);
		GROW(m->raws, m->nraws, CAP(m).raws);
		k = &m->raws[m->nraws++];
		k->name = xstrndup(masked + ov[2], ov[3] - ov[2]);
		k->prefix = !(q < f->len && masked[q] == ')');
		k->host_name = 1;
		k->at.file = file;
		k->at.off = ov[2] - 1;
		at = ov[1];
	}
	/* kernel void NAME( / void kernel NAME(, not a template */
	at = 0;
	while (re_match(&p->re_kvoid, masked, f->len, at, ov, 2)) {
		size_t b = ov[0];
		struct hs_rawkernel *k;
		at = ov[1];
		/* a `template <...>` right before it: a template, whose
		 * instantiations carry the names */
		while (b > 0 && lex_sp(masked[b - 1]))
			b--;
		if (b > 0 && masked[b - 1] == '>') {
			size_t k2 = lex_angle_open(masked, 0, b);
			while (k2 > 0 && lex_sp(masked[k2 - 1]))
				k2--;
			if (k2 >= 8 && memcmp(masked + k2 - 8, "template", 8) == 0)
				continue;
		}
		/* after ]] (an attribute such as host_name): named there */
		if (b >= 2 && masked[b - 1] == ']' && masked[b - 2] == ']')
			continue;
		GROW(m->raws, m->nraws, CAP(m).raws);
		k = &m->raws[m->nraws++];
		k->name = xstrndup(masked + ov[2], ov[3] - ov[2]);
		k->prefix = 0;
		k->host_name = 0;
		k->at.file = file;
		k->at.off = ov[2];
	}
	scan_functors(m, file, masked);
}

/* ---------------- common_mps.py, test_mps.py ---------------- */

/* the end of the dict value that starts after the ':' at t[from]: the
 * last non-blank byte before the ',' or closing bracket that ends it at
 * its own level (brackets and string literals skipped), plus one; close:
 * the literal's closing bracket */
static size_t value_end(const char *t, size_t n, size_t from, size_t close)
{
	size_t i = from, last = from;
	int depth = 0;
	if (close > n)
		close = n;
	while (i < close) {
		char c = t[i];
		if (c == '"' || c == '\'') {
			i = lex_skip_quoted(t, n, i);
			last = i;
			continue;
		}
		if (c == '(' || c == '[' || c == '{')
			depth++;
		else if (c == ')' || c == ']' || c == '}')
			depth--;
		else if (c == ',' && depth == 0)
			break;
		if (depth < 0)
			break;
		if (!lex_sp(c))
			last = i + 1;
		i++;
	}
	return last;
}

int hs_xfail_names_op(const char *key, const char *op)
{
	static const char nnf[] = "nn.functional.";
	size_t i;
	if (strcmp(key, op) == 0)
		return 1;
	if (strncmp(key, nnf, sizeof nnf - 1) == 0 &&
	    strcmp(key + sizeof nnf - 1, op) == 0)
		return 1;
	for (i = 0; key[i] && op[i]; i++)
		if (key[i] != op[i] && !(key[i] == '.' && op[i] == '_'))
			return 0;
	return key[i] == '\0' && op[i] == '\0' && strchr(key, '.') != NULL;
}

/* the namespaces of OpInfo names that name an aten operator: the key's
 * operator is the rest ("nn.functional.gelu" → gelu) or the namespace
 * joined with '_' ("special.i0e" → special_i0e) */
static const struct {
	const char *ns;   /* with its final '.' */
	int keep;         /* 1: namespace_ + rest; 0: rest alone */
} xfail_ns[] = {
	{"nn.functional.", 0}, {"special.", 1}, {"linalg.", 1}, {"fft.", 1},
};

char *hs_xfail_op(const char *key,
                  int (*is_op)(const char *name, int prefix, void *arg),
                  void *arg)
{
	const char *rest = key;
	char *s, *p, *v, *w;
	size_t i, n, pre = 0;
	int found = 0;
	/* the exact forms */
	if (is_op(key, 0, arg))
		return xstrdup(key);
	for (i = 0; i < sizeof xfail_ns / sizeof *xfail_ns; i++) {
		size_t l = strlen(xfail_ns[i].ns);
		if (strncmp(key, xfail_ns[i].ns, l) == 0) {
			rest = key + l;
			pre = xfail_ns[i].keep ? l : 0;
			break;
		}
	}
	if (rest != key && !pre && is_op(rest, 0, arg))
		return xstrdup(rest);
	s = xstrdup(key);
	for (p = s; *p; p++)
		if (*p == '.')
			*p = '_';
	if (is_op(s, 0, arg))
		return s;
	free(s);
	/* OpInfo name + variant: a dotted name of any other namespace
	 * ("signal.windows.hann", "masked.amax") is an OpInfo name of its
	 * own, never an operator's plus a variant */
	if (strchr(rest, '.'))
		return NULL;
	s = pre ? xasprintf("%.*s_%s", (int)pre - 1, key, rest) : xstrdup(rest);
	/* the longest start, at least 3 characters and at least one of the
	 * name after its namespace */
	for (n = strlen(s); n-- > (pre ? pre + 1 : 3);) {
		char c = s[n];
		s[n] = '\0';
		if (!is_op(s, 0, arg)) {
			s[n] = c;
			continue;
		}
		s[n] = c;
		v = s + n;
		/* "resize_": the in-place form of the operator */
		if (strcmp(v, "_") == 0) {
			found = 1;
			break;
		}
		/* a variant name starts with a letter: "max_unpool1d",
		 * "svd_lowrank", "nn.functional.dropout2d" continue the
		 * operator's name into another OpInfo name */
		if (!((*v >= 'a' && *v <= 'z') || (*v >= 'A' && *v <= 'Z')))
			goto none;
		/* a start that ends inside a word the operators go on with:
		 * "multilabel_soft_margin_loss" is not mul + a variant while
		 * multilabel_margin_loss is an operator */
		w = xstrndup(s, n + strcspn(v, "_"));
		p = xasprintf("%s_", w);
		free(w);
		i = (size_t)is_op(p, 1, arg);
		free(p);
		if (i)
			goto none;
		found = 1;
		break;
	}
	if (found) {
		s[n] = '\0';
		return s;
	}
none:
	free(s);
	return NULL;
}

static void scan_python(struct hs_model *m, size_t file, const char *t,
                        size_t n, struct mk_re *re)
{
	size_t ov[6], at = 0;
	while (re_match(re, t, n, at, ov, 3)) {
		size_t open = ov[4], close, i;
		char o = t[open], cl = o == '[' ? ']' : o == '{' ? '}' : ')';
		int depth = 0;
		char *list = xstrndup(t + ov[2], ov[3] - ov[2]);
		close = lex_match_close_quoted(t, n, open, o, cl);
		for (i = open; i < close && i < n;) {
			char c = t[i];
			if (c == '"' || c == '\'') {
				size_t e = lex_skip_quoted(t, n, i), q = lex_skip_ws(t, n, e);
				if (depth == 1 && e - i >= 2 && t[e - 1] == c &&
				    q < n && (t[q] == ':' || t[q] == ',' || q == close)) {
					struct hs_xfail *x;
					GROW(m->xfails, m->nxfails, CAP(m).xfails);
					x = &m->xfails[m->nxfails++];
					x->key = xstrndup(t + i + 1, e - i - 2);
					x->list = xstrdup(list);
					x->at.file = file;
					x->at.off = i;
					x->end = e;
					x->dict = t[q] == ':';
					if (x->dict)
						x->end = value_end(t, n, q + 1, close);
				}
				i = e;
				continue;
			}
			if (c == '(' || c == '[' || c == '{')
				depth++;
			else if (c == ')' || c == ']' || c == '}')
				depth--;
			i++;
		}
		free(list);
		at = close < n ? close : ov[1];
		if (at < ov[1])
			at = ov[1];
	}
}

/* ---------------- loading ---------------- */

static const char builtin_ti_dispatch[] =
    "static void NAME##_kernel_mps(TensorIteratorBase& iter) { "
    "lib.exec_unary_kernel(iter, #NAME); } "
    "REGISTER_DISPATCH(NAME##_stub, NAME##_kernel_mps)";

static void compile_patterns(struct priv *p)
{
	re_compile(&p->re_reg,
	           "\\bREGISTER_(?:MPS_)?DISPATCH\\s*\\(\\s*(\\w+)\\s*,\\s*"
	           "((?:&\\s*)?(?:\\w+\\s*::\\s*)*\\w+)\\s*\\)",
	           0);
	re_compile(&p->re_req,
	           "\\bexec_(unary|binary|ternary)_kernel(?:_with_params)?\\s*\\("
	           "\\s*[\\w.>-]+\\s*,\\s*"
	           "\"(\\w+)\"",
	           0);
	re_compile(&p->re_hostname, "\\bhost_name\\s*\\(\\s*\"(\\w+)\"", 0);
	re_compile(&p->re_kvoid,
	           "\\b(?:kernel\\s+void|void\\s+kernel)\\s+(\\w+)\\s*\\(", 0);
	/* NAME = {, NAME |= {, NAME.update({, and the annotated assignment
	 * NAME: dict[str, list | None] = { (a statement of its own line) */
	re_compile(&p->re_xlist,
	           "(?|^[ \\t]*(\\w*(?i:xfail|skip)\\w*)\\s*:[^=\\n]*[^=\\n|+<>!]="
	           "\\s*|\\b(\\w*(?i:xfail|skip)\\w*)\\s*(?:\\.\\s*update\\s*\\(\\s*|"
	           "[|+]?=\\s*))([\\[{(])",
	           PCRE2_MULTILINE);
	/* the stub is the last argument: the ')' that ends the line */
	re_compile(&p->re_decl,
	           "\\bDECLARE_DISPATCH\\s*\\([^;]*?,\\s*(\\w+)\\s*\\)[ \\t\\r]*;?"
	           "[ \\t\\r]*$",
	           PCRE2_MULTILINE);
	re_compile(&p->re_functor,
	           "\\bstruct\\s+(\\w+_functor)\\s*(?:final\\s*)?(?::[^{;]*)?\\{", 0);
	/* test_mps.py: upper-case constants only (see hostscan.h) */
	re_compile(&p->re_tlist,
	           "(?|^[ \\t]*([A-Z0-9_]*(?:XFAIL|SKIP|BLOCKLIST)[A-Z0-9_]*)\\s*:"
	           "[^=\\n]*[^=\\n|+<>!]=\\s*|"
	           "\\b([A-Z0-9_]*(?:XFAIL|SKIP|BLOCKLIST)[A-Z0-9_]*)\\s*"
	           "(?:\\.\\s*update\\s*\\(\\s*|[|+]?=\\s*))([\\[{(])",
	           PCRE2_MULTILINE);
	p->re_ready = 1;
}

/* scan_host: passes 1 and 2 over host files [first, first + nhost).  Each
 * pass masks a file into the scratch buffer again (masking costs less
 * than keeping every masked text). */
static void scan_host(struct hs_model *m, size_t first_host, size_t nhost)
{
	struct priv *p = m->priv;
	size_t i;

	/* pass 1: collect macros and includes, find the directives */
	p->span0 = xcalloc(nhost + 1, sizeof *p->span0);
	for (i = 0; i < nhost; i++) {
		struct dctx x;
		char *c = scratch_mask(m, first_host + i, LANG_C);
		p->span0[i] = p->nspans;
		x.m = m;
		x.file = first_host + i;
		x.collect_macros = 1;
		x.ids_only = 0;
		x.idtext = NULL;
		blank_directives(c, m->files[first_host + i].len, on_directive, &x, 0);
	}
	p->span0[nhost] = p->nspans;
	for (i = 0; i < p->nmac; i++) {
		/* define bodies: which file?  Index them for every file that
		 * defines them is not tracked; macros are indexed by name only. */
		macro_analyze(&p->mac[i]);
	}
	if (hs_map_get(&p->macros, "REGISTER_UNARY_TI_DISPATCH") < 0) {
		struct macro *mc;
		p->mac = xrealloc(p->mac, (p->nmac + 1) * sizeof *p->mac);
		mc = &p->mac[p->nmac];
		memset(mc, 0, sizeof *mc);
		mc->m.name = xstrdup("REGISTER_UNARY_TI_DISPATCH");
		mc->m.params = xmalloc(sizeof *mc->m.params);
		mc->m.params[0] = xstrdup("NAME");
		mc->m.np = 1;
		mc->m.body = xstrdup(builtin_ti_dispatch);
		macro_analyze(mc);
		hs_map_put(&p->macros, mc->m.name, (long)p->nmac);
		p->macfirst[(unsigned char)mc->m.name[0]] = 1;
		p->nmac++;
	}
	/* pass 2: the identifiers and strings (#include lines blanked,
	 * #define bodies kept), then structure and events (every directive
	 * blanked; the directives are those pass 1 found) */
	p->idfirst = first_host;
	p->nidfiles = nhost;
	for (i = 0; i < nhost; i++) {
		size_t n = m->files[first_host + i].len, k;
		char *c = scratch_mask_braces(m, first_host + i);
		struct tokctx tx;
		struct unit u;
		for (k = p->span0[i]; k < p->span0[i + 1]; k++)
			if (p->spans[k].include)
				blank_span(c, p->spans[k].a, p->spans[k].b);
		tx.p = p;
		tx.file = (uint32_t)(first_host + i);
		scan_tokens(c, n, put_ident, put_string, &tx);
		index_suffixes(p, c, n);
		for (k = p->span0[i]; k < p->span0[i + 1]; k++)
			if (!p->spans[k].include)
				blank_span(c, p->spans[k].a, p->spans[k].b);
		memset(&u, 0, sizeof u);
		u.cu.t = c;
		u.cu.n = n;
		u.cu.file = first_host + i;
		u.cu.inv = NOSZ;
		u.parent = -1;
		scan_unit(m, &u);
		free(u.bs);
		free(u.be);
		free(u.di);
	}
	if (p->nlits > 1)
		qsort(p->lits, p->nlits, sizeof *p->lits, cmp_cstr);
	propagate(m);
	for (i = 0; i < m->nregs; i++) {
		const long *d = hs_defs_named(m, m->regs[i].fn);
		long best = -1;
		for (; *d >= 0; d++)
			if (best < 0 || m->defs[*d].at.file == m->regs[i].at.file)
				best = *d;
		m->regs[i].def = best;
	}
}

/* add_files: read the files walk_files lists under REL as KIND */
static int add_files(struct hs_model *m, const char *rel, int depth,
                     const char *skip, const char *const *sufs, int kind)
{
	struct walk_list l;
	size_t i;
	if (walk_files(m->root, rel, depth, skip, sufs, &l) != 0)
		return -1;
	for (i = 0; i < l.n; i++)
		if (add_file(m, l.paths[i], kind) < 0) {
			walk_free(&l);
			return -1;
		}
	walk_free(&l);
	return 0;
}

int hs_load(struct hs_model *m, const char *root)
{
	static const char *const host_sufs[] = {".mm", ".h", ".cpp", NULL};
	static const char *const kern_sufs[] = {".metal", ".h", NULL};
	static const char *const lists[] = {COMMON_MPS_REL, TEST_MPS_REL};
	struct priv *p;
	size_t i, first_host, nhost, first_kern, end_kern;
	long py[2] = {-1, -1};
	struct stat st;

	memset(m, 0, sizeof *m);
	m->root = xstrdup(root);
	m->priv = p = xcalloc(1, sizeof *p);
	compile_patterns(p);

	/* read: host files, kernel files, the test lists */
	first_host = m->nfiles;
	if (add_files(m, MPS_DIR_REL, WALK_MAX_DEPTH, MPS_KERNELS_REL, host_sufs,
	              HS_HOST) != 0)
		goto fail;
	nhost = m->nfiles - first_host;
	first_kern = m->nfiles;
	if (add_files(m, MPS_KERNELS_REL, 0, NULL, kern_sufs, HS_KERNEL) != 0)
		goto fail;
	end_kern = m->nfiles;
	/* the test lists: common_mps.py and test_mps.py, each when present
	 * (older releases keep them in test_mps.py alone) */
	for (i = 0; i < 2; i++) {
		char *path = strcmp(root, ".") == 0 ? xstrdup(lists[i])
		                                    : xasprintf("%s/%s", root, lists[i]);
		int ok = stat(path, &st) == 0;
		free(path);
		if (!ok)
			continue;
		if ((py[i] = add_file(m, lists[i], HS_PYTHON)) < 0)
			goto fail;
		if (i == 0)
			m->have_common_mps = 1;
		else
			m->have_test_mps = 1;
	}

	scan_host(m, first_host, nhost);
	mr_defs_load(&((struct priv *)m->priv)->defs, m->root);
	for (i = first_kern; i < end_kern; i++)
		scan_metal(m, i, scratch_mask(m, i, LANG_C));
	for (i = 0; i < 2; i++) {
		if (py[i] < 0)
			continue;
		scan_python(m, (size_t)py[i], scratch_mask(m, (size_t)py[i], LANG_PYTHON),
		            m->files[py[i]].len, i == 0 ? &p->re_xlist : &p->re_tlist);
	}
	free(p->scratch);
	p->scratch = NULL;
	p->have_scratch = 0;
	return 0;
fail:
	hs_free(m);
	return -1;
}

int hs_load_decls(struct hs_model *m)
{
	static const char *const sufs[] = {".h", NULL};
	struct priv *p = m->priv;
	struct walk_list l;
	size_t i;
	if (m->decls_loaded)
		return 0;
	m->decls_loaded = 1;
	if (walk_files(m->root, "aten/src/ATen/native", 0, NULL, sufs, &l) != 0)
		return -1;
	for (i = 0; i < l.n; i++) {
		long k = add_file(m, l.paths[i], HS_DECL);
		char *masked;
		size_t ov[4], at = 0;
		if (k < 0) {
			walk_free(&l);
			return -1;
		}
		if (!strstr(m->files[k].text, "DECLARE_DISPATCH"))
			continue;
		masked = mask_code(m->files[k].text, m->files[k].len, LANG_C);
		while (re_match(&p->re_decl, masked, m->files[k].len, at, ov, 2)) {
			GROW(m->decls, m->ndecls, CAP(m).decls);
			m->decls[m->ndecls].stub = xstrndup(masked + ov[2], ov[3] - ov[2]);
			m->decls[m->ndecls].at.file = (size_t)k;
			m->decls[m->ndecls].at.off = ov[0];
			m->ndecls++;
			at = ov[1];
		}
		free(masked);
	}
	walk_free(&l);
	return 0;
}

/* ---------------- queries ---------------- */

const long *hs_defs_named(const struct hs_model *m, const char *name)
{
	const struct priv *p = m->priv;
	long k = hs_map_get(&p->defname, name);
	return k < 0 ? no_defs : p->lists[k].v;
}

int hs_file_has_ident(const struct hs_model *m, size_t file, const char *name)
{
	const struct priv *p = m->priv;
	if (file < p->idfirst || file - p->idfirst >= p->nidfiles)
		return 0;
	return ids_has(&p->ids, name, strlen(name), (uint32_t)file);
}

int hs_kernel_registered(const struct hs_model *m, const char *name)
{
	const struct priv *p = m->priv;
	size_t i, n = strlen(name);
	if (hs_map_get(&p->metalnames, name) >= 0 ||
	    hs_map_get(&p->kernelnames, name) >= 0)
		return 1;
	for (i = 0; i < m->nraws; i++)
		if (strncmp(m->raws[i].name, name, n) == 0 &&
		    (m->raws[i].name[n] == '_' || m->raws[i].name[n] == '\0'))
			return 1;
	return 0;
}

size_t hs_metal_variants(const struct hs_model *m, const struct hs_metal *k,
                         const char *alpha, char ***names)
{
	const struct priv *p = m->priv;
	const struct mr_core *core = mr_core_find(k->macro, strlen(k->macro));
	char *args[4] = {NULL, NULL, NULL, NULL};
	struct mr_inst *v = NULL;
	size_t nv, j;
	*names = NULL;
	if (!core)
		return 0;
	args[0] = k->name;
	args[core->i_in] = k->in;
	args[core->i_out] = k->out;
	if (core->i_alpha >= 0)
		args[core->i_alpha] = alpha ? (char *)alpha : k->alpha;
	nv = mr_instantiate(&p->defs, core->macro, args, (size_t)core->nargs, &v);
	*names = nv ? xcalloc(nv, sizeof **names) : NULL;
	for (j = 0; j < nv; j++)
		(*names)[j] = xstrdup(v[j].name);
	mr_insts_free(v, nv);
	return nv;
}

int hs_kernel_produced(const struct hs_model *m, const char *name)
{
	const struct priv *p = m->priv;
	return hs_map_get(&p->kernelnames, name) >= 0;
}

int hs_kernel_requested(const struct hs_model *m, const char *name)
{
	struct priv *p = m->priv;
	return hs_map_get(&p->reqnames, name) >= 0;
}

int hs_kernel_asked(const struct hs_model *m, const char *name, int prefix)
{
	struct priv *p = m->priv;
	size_t n = strlen(name), i;
	if (hs_map_get(&p->reqnames, name) >= 0)
		return 1;
	while (n > 0 && name[n - 1] == '_')
		n--;
	/* a literal that is NAME, or its start up to a '_' */
	if (lit_is(p, name, n))
		return 1;
	for (i = n; i-- > 0;)
		if (name[i] == '_' && lit_is(p, name, i))
			return 1;
	/* a PREFIX: a literal that starts with it */
	if (prefix && n > 0) {
		char *key = xstrndup(name, n);
		size_t k = lit_lower(p, key);
		int hit = k < p->nlits && strncmp(p->lits[k], key, n) == 0;
		free(key);
		if (hit)
			return 1;
	}
	return 0;
}

int hs_kernel_built(const struct hs_model *m, const char *name)
{
	struct priv *p = m->priv;
	size_t n = strlen(name), i;
	for (i = 0; i < p->nsufs; i++) {
		size_t k = strlen(p->sufs[i]);
		char *head;
		int hit;
		if (k >= n || strcmp(name + n - k, p->sufs[i]) != 0)
			continue;
		head = xstrndup(name, n - k);
		hit = hs_map_get(&p->reqnames, head) >= 0;
		free(head);
		if (hit)
			return 1;
	}
	return 0;
}

int hs_defined(const struct hs_model *m, const char *name)
{
	const struct priv *p = m->priv;
	return hs_map_get(&p->defname, name) >= 0 ||
	       hs_map_get(&p->macros, name) >= 0;
}

void hs_line_col(const struct hs_model *m, struct hs_where w,
                 unsigned long *line, unsigned long *col)
{
	struct priv *p = m->priv;
	const struct hs_file *f = &m->files[w.file];
	size_t lo, *ls;
	if (!p) {
		line_col(f->text, w.off, line, col);
		return;
	}
	if (p->nlinetab < m->nfiles) {
		p->linetab = xrealloc(p->linetab, m->nfiles * sizeof *p->linetab);
		p->nlines = xrealloc(p->nlines, m->nfiles * sizeof *p->nlines);
		memset(p->linetab + p->nlinetab, 0,
		       (m->nfiles - p->nlinetab) * sizeof *p->linetab);
		p->nlinetab = m->nfiles;
	}
	if (!p->linetab[w.file]) {
		size_t n = 1, cap = 64;
		const char *q = f->text, *end = f->text + f->len;
		ls = xmalloc(cap * sizeof *ls);
		ls[0] = 0;
		while (q < end && (q = memchr(q, '\n', (size_t)(end - q)))) {
			q++;
			if (n == cap) {
				cap *= 2;
				ls = xrealloc(ls, cap * sizeof *ls);
			}
			ls[n++] = (size_t)(q - f->text);
		}
		p->linetab[w.file] = ls;
		p->nlines[w.file] = n;
	}
	ls = p->linetab[w.file];
	lo = last_le(ls, p->nlines[w.file], w.off);
	*line = (unsigned long)lo + 1;
	*col = (unsigned long)(w.off - ls[lo]) + 1;
}

void hs_free(struct hs_model *m)
{
	struct priv *p = m->priv;
	size_t i;
	for (i = 0; i < m->nfiles; i++) {
		free(m->files[i].rel);
		free(m->files[i].text);
	}
	free(m->files);
	for (i = 0; i < m->ndefs; i++) {
		free(m->defs[i].name);
		free(m->defs[i].macro);
		free(m->defs[i].why);
		lex_strv_free(m->defs[i].calls, m->defs[i].ncalls);
	}
	free(m->defs);
	for (i = 0; i < m->nregs; i++) {
		free(m->regs[i].stub);
		free(m->regs[i].fn);
		free(m->regs[i].macro);
	}
	free(m->regs);
	for (i = 0; i < m->nreqs; i++) {
		free(m->reqs[i].kernel);
		free(m->reqs[i].macro);
		lex_strv_free(m->reqs[i].args, m->reqs[i].nargs);
		free(m->reqs[i].scalar_dtype);
	}
	free(m->reqs);
	for (i = 0; i < m->nincs; i++)
		free(m->incs[i].op);
	free(m->incs);
	for (i = 0; i < m->nmetals; i++) {
		free(m->metals[i].name);
		free(m->metals[i].in);
		free(m->metals[i].out);
		free(m->metals[i].alpha);
		free(m->metals[i].kernel);
		free(m->metals[i].macro);
		lex_strv_free(m->metals[i].kernels, m->metals[i].nkernels);
		free(m->metals[i].call);
		free(m->metals[i].via);
	}
	free(m->metals);
	for (i = 0; i < m->nraws; i++)
		free(m->raws[i].name);
	free(m->raws);
	for (i = 0; i < m->nxfails; i++) {
		free(m->xfails[i].key);
		free(m->xfails[i].list);
	}
	free(m->xfails);
	for (i = 0; i < m->ndecls; i++)
		free(m->decls[i].stub);
	free(m->decls);
	for (i = 0; i < m->nfunctors; i++) {
		free(m->functors[i].name);
		free(m->functors[i].kernel);
		free(m->functors[i].limits);
	}
	free(m->functors);
	if (p) {
		hs_map_free(&p->defname);
		ids_free(&p->ids);
		free(p->scratch);
		free(p->spans);
		free(p->span0);
		mask_braces_free(&p->br);
		hs_map_free(&p->macros);
		hs_map_free(&p->metalnames);
		hs_map_free(&p->kernelnames);
		mr_defs_free(&p->defs);
		hs_map_free(&p->reqnames);
		hs_map_free(&p->namespaces);
		for (i = 0; i < p->nlists; i++)
			free(p->lists[i].v);
		free(p->lists);
		for (i = 0; i < p->nmac; i++) {
			struct macro *mc = &p->mac[i];
			lex_macro_free(&mc->m);
			free(mc->why);
			lex_strv_free(mc->calls, mc->ncalls);
		}
		free(p->mac);
		for (i = 0; i < p->nlinetab; i++)
			free(p->linetab[i]);
		free(p->linetab);
		free(p->nlines);
		if (p->re_ready) {
			re_free(&p->re_reg);
			re_free(&p->re_req);
			re_free(&p->re_hostname);
			re_free(&p->re_xlist);
			re_free(&p->re_decl);
			re_free(&p->re_functor);
			re_free(&p->re_tlist);
			re_free(&p->re_kvoid);
		}
		lex_strv_free(p->lits, p->nlits);
		lex_strv_free(p->sufs, p->nsufs);
		free(p);
	}
	free(m->root);
	memset(m, 0, sizeof *m);
}
