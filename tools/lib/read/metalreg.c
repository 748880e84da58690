/* metalreg.c — see metalreg.h.
 *
 * The parser is a single forward pass over masked text (comments and
 * #if 0 blocks already blanked by mask_code), in two rounds: the first
 * collects the function-like #defines (helpers), the second the
 * top-level calls of core macros and helpers.  It never allocates per
 * byte and is linear in the file size.
 */
#include "read/metalreg.h"
#include "base/diag.h"
#include "base/scan.h"

#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {"unary", "unary-alpha", "binary",
                                         "binary-alpha"};
static const char *const kind_macros[] = {
	"REGISTER_UNARY_OP", "REGISTER_UNARY_ALPHA_OP", "REGISTER_BINARY_OP",
	"REGISTER_BINARY_ALPHA_OP"};

static const struct mr_core cores[] = {
	{"REGISTER_UNARY_OP", MR_UNARY, 3, 1, -1, 2},
	{"REGISTER_UNARY_ALPHA_OP", MR_UNARY_ALPHA, 4, 1, 2, 3},
	{"REGISTER_BINARY_OP", MR_BINARY, 3, 1, -1, 2},
	{"REGISTER_OPMATH_BINARY_OP", MR_BINARY, 3, 1, -1, 2},
	{"REGISTER_BINARY_ALPHA_OP", MR_BINARY_ALPHA, 4, 1, 2, 3},
};
#define NCORES (sizeof cores / sizeof cores[0])

const char *const mr_dtypes[] = {"float", "half",  "bfloat", "long",
                                 "int",   "short", "char",   "uchar",
                                 "bool",  "float2", "half2"};
const size_t mr_ndtypes = sizeof mr_dtypes / sizeof mr_dtypes[0];

int mr_kind_parse(const char *s)
{
	int k;
	for (k = 0; k < 4; k++)
		if (strcmp(s, kind_names[k]) == 0)
			return k;
	return -1;
}

const char *mr_kind_name(int k) { return kind_names[k]; }
const char *mr_kind_macro(int k) { return kind_macros[k]; }
int mr_kind_alpha(int k) { return k == MR_UNARY_ALPHA || k == MR_BINARY_ALPHA; }

const struct mr_core *mr_core_find(const char *s, size_t n)
{
	size_t i;
	for (i = 0; i < NCORES; i++)
		if (strlen(cores[i].macro) == n && memcmp(cores[i].macro, s, n) == 0)
			return &cores[i];
	return NULL;
}

const char *mr_dtype(const char *s, size_t n)
{
	size_t i;
	for (i = 0; i < mr_ndtypes; i++)
		if (strlen(mr_dtypes[i]) == n && memcmp(mr_dtypes[i], s, n) == 0)
			return mr_dtypes[i];
	return NULL;
}

int mr_pair_eq(const struct mr_pair *a, const struct mr_pair *b)
{
	return strcmp(a->in, b->in) == 0 && strcmp(a->out, b->out) == 0 &&
	       ((!a->alpha && !b->alpha) ||
	        (a->alpha && b->alpha && strcmp(a->alpha, b->alpha) == 0));
}

static int add_pair(struct mr_pair *out, int n, const char *in,
                    const char *alpha, const char *o)
{
	int i;
	struct mr_pair p;
	p.in = in;
	p.alpha = alpha;
	p.out = o;
	for (i = 0; i < n; i++)
		if (mr_pair_eq(&out[i], &p))
			return n;
	out[n] = p;
	return n + 1;
}

int mr_preset(const char *p, int k, struct mr_pair *out)
{
	static const char *const fl[] = {"float", "half", "bfloat"};
	static const char *const in[] = {"long", "int",  "short",
	                                 "uchar", "char", "bool"};
	static const char *const cx[] = {"float2", "half2"};
	int all = strcmp(p, "all") == 0, n = 0, a = mr_kind_alpha(k);
	size_t i;

	if (!all && strcmp(p, "float") && strcmp(p, "int2float") &&
	    strcmp(p, "integer") && strcmp(p, "complex"))
		return -1;
	if (all || strcmp(p, "float") == 0)
		for (i = 0; i < 3; i++)
			n = add_pair(out, n, mr_dtype(fl[i], strlen(fl[i])),
			             a ? mr_dtype(fl[i], strlen(fl[i])) : NULL,
			             mr_dtype(fl[i], strlen(fl[i])));
	if (strcmp(p, "int2float") == 0)
		for (i = 0; i < 6; i++)
			n = add_pair(out, n, mr_dtype(in[i], strlen(in[i])),
			             a ? mr_dtype(in[i], strlen(in[i])) : NULL,
			             mr_dtype("float", 5));
	if (all || strcmp(p, "integer") == 0)
		for (i = 0; i < 6; i++)
			n = add_pair(out, n, mr_dtype(in[i], strlen(in[i])),
			             a ? mr_dtype(in[i], strlen(in[i])) : NULL,
			             mr_dtype(in[i], strlen(in[i])));
	if (all || strcmp(p, "complex") == 0)
		for (i = 0; i < 2; i++)
			n = add_pair(out, n, mr_dtype(cx[i], strlen(cx[i])),
			             a ? mr_dtype(cx[i], strlen(cx[i])) : NULL,
			             mr_dtype(cx[i], strlen(cx[i])));
	return n;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' ||
	       c == '\v';
}

static int blank_only(const char *s, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (!is_blank(s[i]))
			return 0;
	return 1;
}

int mr_parse_dtypes(const char *list, int k, struct mr_pair *out, char **err)
{
	const char *p = list;
	int n = 0;

	*err = NULL;
	for (;;) {
		const char *e = strchr(p, ','), *tok[3], *q;
		size_t tl[3], itemlen;
		int nt = 0, i;
		const char *d[3];

		if (!e)
			e = p + strlen(p);
		itemlen = (size_t)(e - p);
		if (blank_only(p, itemlen)) {
			*err = xasprintf("empty item in '%s'", list);
			return -1;
		}
		/* split the item on ':' and trim each part */
		q = p;
		for (;;) {
			const char *c = memchr(q, ':', (size_t)(e - q));
			const char *te = c ? c : e, *ts = q;
			while (ts < te && is_blank(*ts))
				ts++;
			while (te > ts && is_blank(te[-1]))
				te--;
			if (nt == 3) {
				*err = xasprintf("'%.*s' has more than three parts",
				                 (int)itemlen, p);
				return -1;
			}
			tok[nt] = ts;
			tl[nt++] = (size_t)(te - ts);
			if (!c)
				break;
			q = c + 1;
		}
		for (i = 0; i < nt; i++) {
			if (tl[i] == 0) {
				*err = xasprintf("empty dtype in '%.*s'", (int)itemlen, p);
				return -1;
			}
			d[i] = mr_dtype(tok[i], tl[i]);
			if (!d[i]) {
				*err = xasprintf("unknown dtype '%.*s' (Metal dtypes: float "
				                 "half bfloat long int short char uchar bool "
				                 "float2 half2)",
				                 (int)tl[i], tok[i]);
				return -1;
			}
		}
		if (nt == 3 && !mr_kind_alpha(k)) {
			*err = xasprintf("'%.*s': IN:ALPHA:OUT needs an alpha kind",
			                 (int)itemlen, p);
			return -1;
		}
		{
			const char *in = d[0], *o = nt == 1 ? d[0] : d[nt - 1];
			const char *al = mr_kind_alpha(k) ? (nt == 3 ? d[1] : d[0]) : NULL;
			for (i = 0; i < n; i++)
				if (out[i].in == in && out[i].out != o) {
					*err = xasprintf("input dtype '%s' is given two outputs "
					                 "('%s' and '%s')",
					                 in, out[i].out, o);
					return -1;
				}
			if (n == MR_MAX_PAIRS) {
				*err = xasprintf("too many dtypes (at most %d)", MR_MAX_PAIRS);
				return -1;
			}
			n = add_pair(out, n, in, al, o);
		}
		if (!*e)
			break;
		p = e + 1;
	}
	return n;
}

int mr_valid_name(const char *s)
{
	size_t i;
	if (!s || !(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') ||
	            (s[0] >= 'A' && s[0] <= 'Z')))
		return 0;
	for (i = 1; s[i]; i++)
		if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return i <= 128;
}

char *mr_kernel_name(const char *name, const char *variant,
                     const struct mr_pair *p)
{
	if (p->alpha)
		return xasprintf("%s_%s_%s_%s_%s", name, variant, p->out, p->in,
		                 p->alpha);
	return xasprintf("%s_%s_%s_%s", name, variant, p->out, p->in);
}

/* ---- scanning ---- */

static int id_start(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int id_char(char c) { return id_start(c) || (c >= '0' && c <= '9'); }

/* skip a string or character literal starting at t[i]; stops at the end of
 * the line when unterminated */
static size_t skip_lit(const char *t, size_t len, size_t i)
{
	char q = t[i++];
	while (i < len && t[i] != q && t[i] != '\n') {
		if (t[i] == '\\' && i + 1 < len)
			i++;
		i++;
	}
	return i < len && t[i] == q ? i + 1 : i;
}

/* blanks including line continuations */
static size_t skip_blanks(const char *t, size_t len, size_t i)
{
	while (i < len) {
		if (is_blank(t[i]))
			i++;
		else if (t[i] == '\\' && i + 1 < len &&
		         (t[i + 1] == '\n' || t[i + 1] == '\r'))
			i++;
		else
			break;
	}
	return i;
}

static char *norm(const char *s, size_t n)
{
	char *o = xmalloc(n + 1);
	size_t i, k = 0;
	for (i = 0; i < n; i++) {
		if (is_blank(s[i]))
			continue;
		if (s[i] == '\\' && i + 1 < n && (s[i + 1] == '\n' || s[i + 1] == '\r'))
			continue;
		o[k++] = s[i];
	}
	o[k] = '\0';
	return o;
}

/* parse the argument list of a call whose '(' is at t[open]; fills c (macro
 * name given by the caller) and returns 1, or 0 when the parentheses do not
 * close before len. */
static int parse_args(const char *t, size_t len, size_t open, struct mr_call *c)
{
	size_t i = open + 1, a = open + 1, cap = 0;
	int depth = 0;

	c->args = NULL;
	c->nargs = 0;
	while (i < len) {
		char ch = t[i];
		if (ch == '"' || ch == '\'') {
			i = skip_lit(t, len, i);
			continue;
		}
		if (ch == '(' || ch == '[' || ch == '{')
			depth++;
		else if ((ch == ')' || ch == ']' || ch == '}') && depth > 0)
			depth--;
		else if ((ch == ',' && depth == 0) || ch == ')') {
			char *arg = norm(t + a, i - a);
			if (ch == ')' && c->nargs == 0 && arg[0] == '\0') {
				free(arg); /* MACRO() has no arguments */
			} else {
				GROW(c->args, c->nargs, cap);
				c->args[c->nargs++] = arg;
			}
			if (ch == ')') {
				size_t j = i + 1;
				while (j < len && (t[j] == ' ' || t[j] == '\t'))
					j++;
				c->semi = j < len && t[j] == ';';
				c->end = c->semi ? j + 1 : i + 1;
				return 1;
			}
			a = i + 1;
		}
		i++;
	}
	while (c->nargs > 0)
		free(c->args[--c->nargs]);
	free(c->args);
	c->args = NULL;
	return 0;
}

static void call_free(struct mr_call *c)
{
	size_t i;
	for (i = 0; i < c->nargs; i++)
		free(c->args[i]);
	free(c->args);
	free(c->macro);
}

/* end of the preprocessor directive whose '#' is at t[i]: the offset after
 * its last newline (continuations followed) or len */
static size_t directive_end(const char *t, size_t len, size_t i)
{
	while (i < len) {
		if (t[i] == '\n') {
			size_t b = i;
			if (b > 0 && t[b - 1] == '\r')
				b--;
			if (b > 0 && t[b - 1] == '\\') {
				i++;
				continue;
			}
			return i + 1;
		}
		i++;
	}
	return len;
}

/* collect the calls IDENT(...) at parenthesis depth 0 of t[a..b) */
static void body_calls(const char *t, size_t a, size_t b, struct mr_helper *h)
{
	size_t i = a, cap = 0;
	int depth = 0;
	while (i < b) {
		char ch = t[i];
		if (ch == '"' || ch == '\'') {
			i = skip_lit(t, b, i);
			continue;
		}
		if (ch == '(') {
			depth++;
		} else if (ch == ')') {
			if (depth > 0)
				depth--;
		} else if (id_start(ch) && (i == a || !id_char(t[i - 1]))) {
			size_t e = i, p;
			while (e < b && id_char(t[e]))
				e++;
			p = skip_blanks(t, b, e);
			if (depth == 0 && p < b && t[p] == '(') {
				struct mr_call c;
				memset(&c, 0, sizeof c);
				if (parse_args(t, b, p, &c)) {
					c.macro = xstrndup(t + i, e - i);
					c.start = i;
					GROW(h->body, h->nbody, cap);
					h->body[h->nbody++] = c;
					i = c.end;
					continue;
				}
			}
			i = e;
			continue;
		}
		i++;
	}
}

/* #define at t[hash]; adds a helper when it is function-like, not a core
 * macro, and its body calls something */
static void parse_define(struct mr_file *f, const char *t, size_t linestart,
                         size_t hash, size_t end, size_t *cap)
{
	size_t i = skip_blanks(t, end, hash + 1), ns, ne, pcap = 0;
	struct mr_helper h;

	if (end - i < 6 || memcmp(t + i, "define", 6) != 0)
		return;
	i = skip_blanks(t, end, i + 6);
	ns = i;
	while (i < end && id_char(t[i]))
		i++;
	ne = i;
	if (ne == ns || i >= end || t[i] != '(' || mr_core_find(t + ns, ne - ns))
		return;
	memset(&h, 0, sizeof h);
	i++;
	for (;;) {
		size_t ps;
		i = skip_blanks(t, end, i);
		ps = i;
		while (i < end && (id_char(t[i]) || t[i] == '.'))
			i++;
		if (i > ps) {
			GROW(h.params, h.nparams, pcap);
			h.params[h.nparams++] = xstrndup(t + ps, i - ps);
		}
		i = skip_blanks(t, end, i);
		if (i < end && t[i] == ',') {
			i++;
			continue;
		}
		break;
	}
	if (i >= end || t[i] != ')')
		goto drop;
	body_calls(t, i + 1, end, &h);
	if (h.nbody == 0)
		goto drop;
	h.name = xstrndup(t + ns, ne - ns);
	h.start = linestart;
	h.end = end;
	GROW(f->helpers, f->nhelpers, *cap);
	f->helpers[f->nhelpers++] = h;
	return;
drop:
	while (h.nparams > 0)
		free(h.params[--h.nparams]);
	free(h.params);
	while (h.nbody > 0)
		call_free(&h.body[--h.nbody]);
	free(h.body);
}

const struct mr_helper *mr_helper_find(const struct mr_file *f, const char *s,
                                       size_t n)
{
	size_t i;
	for (i = 0; i < f->nhelpers; i++)
		if (strlen(f->helpers[i].name) == n &&
		    memcmp(f->helpers[i].name, s, n) == 0)
			return &f->helpers[i];
	return NULL;
}

/* ---- expansion ---- */

#define MR_EXPAND_STEPS 4096

struct expand_ctx {
	struct mr_file *f;
	size_t call;
	size_t regcap;
	/* generator mode (mr_helper_pairs) when gen_kind >= 0 */
	int gen_kind;
	const char *gen_macro; /* the core macro it must call */
	const char *placeholder;
	struct mr_pair *pairs;
	size_t npairs;
	int impure;
	size_t steps;   /* expansions left for this call (a bound against
	                   helpers that call themselves several times) */
};

/* substitute params by args in s, then paste (remove "##") */
static char *subst(const char *s, char *const *params, size_t np,
                   char *const *args, size_t na)
{
	struct buf b;
	size_t i = 0, k;
	char *r, *w;
	buf_init(&b);
	while (s[i]) {
		if (id_start(s[i])) {
			size_t e = i;
			int done = 0;
			while (id_char(s[e]))
				e++;
			for (k = 0; k < np && k < na; k++)
				if (strlen(params[k]) == e - i &&
				    memcmp(params[k], s + i, e - i) == 0) {
					buf_puts(&b, args[k]);
					done = 1;
					break;
				}
			if (!done)
				buf_add(&b, s + i, e - i);
			i = e;
		} else {
			buf_add(&b, s + i, 1);
			i++;
		}
	}
	r = b.data ? b.data : xstrdup("");
	for (w = r, i = 0; r[i]; i++) {
		if (r[i] == '#' && r[i + 1] == '#') {
			i++;
			continue;
		}
		*w++ = r[i];
	}
	*w = '\0';
	return r;
}

static void expand(struct expand_ctx *x, const char *macro, char *const *args,
                   size_t nargs, int depth)
{
	const struct mr_core *core = mr_core_find(macro, strlen(macro));
	const struct mr_helper *h;
	size_t i, j;

	if (x->steps == 0) {
		x->impure = 1;
		return;
	}
	x->steps--;
	if (core) {
		if ((int)nargs != core->nargs) {
			x->impure = 1;
			return;
		}
		if (x->gen_kind >= 0) {
			struct mr_pair p;
			if (strcmp(core->macro, x->gen_macro) != 0 ||
			    strcmp(args[0], x->placeholder) != 0) {
				x->impure = 1;
				return;
			}
			p.in = mr_dtype(args[core->i_in], strlen(args[core->i_in]));
			p.out = mr_dtype(args[core->i_out], strlen(args[core->i_out]));
			p.alpha = core->i_alpha >= 0
			              ? mr_dtype(args[core->i_alpha],
			                         strlen(args[core->i_alpha]))
			              : NULL;
			if (!p.in || !p.out || (core->i_alpha >= 0 && !p.alpha) ||
			    x->npairs == MR_MAX_PAIRS) {
				x->impure = 1;
				return;
			}
			for (i = 0; i < x->npairs; i++)
				if (mr_pair_eq(&x->pairs[i], &p))
					return;
			x->pairs[x->npairs++] = p;
		} else {
			struct mr_reg r;
			struct mr_file *f = x->f;
			r.core = core;
			r.name = xstrdup(args[0]);
			r.in = xstrdup(args[core->i_in]);
			r.out = xstrdup(args[core->i_out]);
			r.alpha =
			    core->i_alpha >= 0 ? xstrdup(args[core->i_alpha]) : NULL;
			r.call = x->call;
			GROW(f->regs, f->nregs, x->regcap);
			f->regs[f->nregs++] = r;
		}
		return;
	}
	h = mr_helper_find(x->f, macro, strlen(macro));
	if (!h || depth >= 16 || nargs != h->nparams) {
		x->impure = 1;
		return;
	}
	for (i = 0; i < h->nbody; i++) {
		const struct mr_call *c = &h->body[i];
		char **sub = xcalloc(c->nargs + 1, sizeof *sub);
		for (j = 0; j < c->nargs; j++)
			sub[j] = subst(c->args[j], h->params, h->nparams, args, nargs);
		expand(x, c->macro, sub, c->nargs, depth + 1);
		for (j = 0; j < c->nargs; j++)
			free(sub[j]);
		free(sub);
	}
}

size_t mr_helper_pairs(const struct mr_file *f, const struct mr_helper *h,
                       int k, struct mr_pair *out)
{
	return mr_helper_pairs_via(f, h, k, mr_kind_macro(k), out);
}

size_t mr_helper_pairs_via(const struct mr_file *f, const struct mr_helper *h,
                           int k, const char *macro, struct mr_pair *out)
{
	struct expand_ctx x;
	char argbuf[] = "@NAME@";
	char *arg = argbuf;
	memset(&x, 0, sizeof x);
	x.f = (struct mr_file *)f;
	x.gen_kind = k;
	x.gen_macro = macro;
	x.placeholder = arg;
	x.pairs = out;
	x.steps = MR_EXPAND_STEPS;
	if (h->nparams != 1)
		return 0;
	expand(&x, h->name, &arg, 1, 0);
	return x.impure ? 0 : x.npairs;
}

void mr_file_parse(struct mr_file *f, const char *t, size_t len)
{
	size_t i, hcap = 0, ccap = 0, k;
	int round;
	struct expand_ctx x;

	for (round = 0; round < 2; round++) {
		int bol = 1;
		size_t linestart = 0;
		i = 0;
		while (i < len) {
			char c = t[i];
			if (bol) {
				size_t j = i;
				linestart = i;
				while (j < len && (t[j] == ' ' || t[j] == '\t'))
					j++;
				bol = 0;
				if (j < len && t[j] == '#') {
					size_t e = directive_end(t, len, j);
					if (round == 0)
						parse_define(f, t, linestart, j, e, &hcap);
					i = e;
					bol = 1;
					continue;
				}
				i = j;
				continue;
			}
			if (c == '\n') {
				bol = 1;
				i++;
				continue;
			}
			if (c == '"' || c == '\'') {
				i = skip_lit(t, len, i);
				continue;
			}
			if (id_start(c) && (i == 0 || !id_char(t[i - 1]))) {
				size_t e = i, p;
				while (e < len && id_char(t[e]))
					e++;
				if (round == 1 && c >= 'A' && c <= 'Z' &&
				    (mr_core_find(t + i, e - i) ||
				     mr_helper_find(f, t + i, e - i))) {
					p = skip_blanks(t, len, e);
					if (p < len && t[p] == '(') {
						struct mr_call cl;
						memset(&cl, 0, sizeof cl);
						if (parse_args(t, len, p, &cl)) {
							size_t q;
							cl.macro = xstrndup(t + i, e - i);
							cl.start = i;
							if (f->ncalls == ccap) {
								ccap = ccap ? ccap * 2 : 64;
								f->calls =
								    xrealloc(f->calls, ccap * sizeof *f->calls);
							}
							f->calls[f->ncalls++] = cl;
							/* a call may span lines: keep bol right */
							for (q = p; q < cl.end; q++)
								if (t[q] == '\n')
									linestart = q + 1;
							i = cl.end;
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
	memset(&x, 0, sizeof x);
	x.f = f;
	x.gen_kind = -1;
	for (k = 0; k < f->ncalls; k++) {
		x.call = k;
		x.steps = MR_EXPAND_STEPS;
		expand(&x, f->calls[k].macro, f->calls[k].args, f->calls[k].nargs, 0);
	}
}

void mr_file_free(struct mr_file *f)
{
	size_t i, j;
	for (i = 0; i < f->nhelpers; i++) {
		struct mr_helper *h = &f->helpers[i];
		free(h->name);
		for (j = 0; j < h->nparams; j++)
			free(h->params[j]);
		free(h->params);
		for (j = 0; j < h->nbody; j++)
			call_free(&h->body[j]);
		free(h->body);
	}
	free(f->helpers);
	for (i = 0; i < f->ncalls; i++)
		call_free(&f->calls[i]);
	free(f->calls);
	for (i = 0; i < f->nregs; i++) {
		free(f->regs[i].name);
		free(f->regs[i].in);
		free(f->regs[i].out);
		free(f->regs[i].alpha);
	}
	free(f->regs);
	memset(f, 0, sizeof *f);
}

/* ---- the c10/metal infrastructure ---- */

/* callers pass identifiers only (checked here: anything else would be
 * a pattern) */
static int ident(const char *s)
{
	size_t i;
	if (!s || !id_start(s[0]))
		return 0;
	for (i = 1; s[i]; i++)
		if (!id_char(s[i]))
			return 0;
	return 1;
}

int mr_text_uses_macro(const char *t, size_t len, const char *macro)
{
	char *p;
	int r;
	if (!ident(macro))
		return 0;
	p = xasprintf("\\b%s\\s*\\(", macro);
	r = re_has_match(p, PCRE2_MULTILINE, t, len);
	free(p);
	return r;
}

int mr_text_defines_macro(const char *t, size_t len, const char *macro)
{
	char *p;
	int r;
	if (!ident(macro))
		return 0;
	p = xasprintf("^[ \\t]*#[ \\t]*define[ \\t]+%s\\(", macro);
	r = re_has_match(p, PCRE2_MULTILINE, t, len);
	free(p);
	return r;
}

int mr_text_has_exec(const char *t, size_t len, int binary)
{
	const char *k = binary ? "exec_binary_kernel" : "exec_unary_kernel";
	char *p = xasprintf("(?:\\.|->)\\s*%s\\s*\\(|"
	                    "\\b%s\\s*\\(\\s*(?:const\\s+)?"
	                    "(?:(?:::)?at::)?TensorIteratorBase\\b",
	                    k, k);
	int r = re_has_match(p, PCRE2_MULTILINE, t, len);
	free(p);
	return r;
}

int mr_text_declares_stub(const char *t, size_t len, const char *stub)
{
	char *p;
	int r;
	if (!ident(stub))
		return 0;
	p = xasprintf("\\bDECLARE_DISPATCH\\s*\\([^;()]*(?:\\([^;()]*\\)"
	              "[^;()]*)*,\\s*%s\\s*\\)",
	              stub);
	r = re_has_match(p, PCRE2_MULTILINE, t, len);
	free(p);
	return r;
}
