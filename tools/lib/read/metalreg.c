/* metalreg.c — see metalreg.h.
 *
 * The parser is a single forward pass over masked text (comments and
 * #if 0 blocks already blanked by mask_code), in two rounds: the first
 * collects the function-like #defines (helpers), the second the
 * top-level calls of core macros and helpers.  It never allocates per
 * byte and is linear in the file size.
 */
#include "read/metalreg.h"
#include "base/cli.h"
#include "base/diag.h"
#include "base/scan.h"
#include "base/walk.h"

#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {"unary",   "unary-alpha",
                                         "binary",  "binary-alpha",
                                         "ternary", "ternary-alpha",
                                         "binary-params"};
static const char *const kind_macros[] = {
	"REGISTER_UNARY_OP",   "REGISTER_UNARY_ALPHA_OP",
	"REGISTER_BINARY_OP",  "REGISTER_BINARY_ALPHA_OP",
	"REGISTER_TERNARY_OP", "REGISTER_TERNARY_ALPHA_OP",
	"REGISTER_BINARY_ALPHA_OP"};

static const struct mr_core cores[] = {
	{"REGISTER_UNARY_OP", MR_UNARY, 3, 1, -1, 2},
	{"REGISTER_UNARY_ALPHA_OP", MR_UNARY_ALPHA, 4, 1, 2, 3},
	{"REGISTER_BINARY_OP", MR_BINARY, 3, 1, -1, 2},
	{"REGISTER_OPMATH_BINARY_OP", MR_BINARY, 3, 1, -1, 2},
	{"REGISTER_BINARY_ALPHA_OP", MR_BINARY_ALPHA, 4, 1, 2, 3},
	{"REGISTER_TERNARY_OP", MR_TERNARY, 3, 1, -1, 2},
	{"REGISTER_OPMATH_TERNARY_OP", MR_TERNARY, 3, 1, -1, 2},
	{"REGISTER_TERNARY_ALPHA_OP", MR_TERNARY_ALPHA, 4, 1, 2, 3},
	{"REGISTER_OPMATH_TERNARY_ALPHA_OP", MR_TERNARY_ALPHA, 4, 1, 2, 3},
};
#define NCORES (sizeof cores / sizeof cores[0])

const char *const mr_dtypes[] = {"float", "half",  "bfloat", "long",
                                 "int",   "short", "char",   "uchar",
                                 "bool",  "float2", "half2"};
const size_t mr_ndtypes = sizeof mr_dtypes / sizeof mr_dtypes[0];

int mr_kind_parse(const char *s)
{
	int k;
	for (k = 0; k < MR_NKINDS; k++)
		if (strcmp(s, kind_names[k]) == 0)
			return k;
	return -1;
}

const char *mr_kind_name(int k) { return kind_names[k]; }
const char *mr_kind_macro(int k) { return kind_macros[k]; }
const char *mr_kind_opmath_macro(int k)
{
	return k == MR_BINARY          ? "REGISTER_OPMATH_BINARY_OP"
	       : k == MR_TERNARY       ? "REGISTER_OPMATH_TERNARY_OP"
	       : k == MR_TERNARY_ALPHA ? "REGISTER_OPMATH_TERNARY_ALPHA_OP"
	                               : NULL;
}
int mr_kind_alpha(int k)
{
	return k == MR_UNARY_ALPHA || k == MR_BINARY_ALPHA || k == MR_TERNARY_ALPHA;
}
int mr_kind_arity(int k)
{
	return k == MR_BINARY_PARAMS ? 2 : k >= MR_TERNARY ? 3 : k >= MR_BINARY ? 2 : 1;
}
int mr_kind_params(int k) { return k == MR_BINARY_PARAMS; }
char *mr_params_struct(const char *name)
{
	struct buf b;
	int up = 1;
	buf_init(&b);
	for (; *name; name++) {
		if (*name == '_') {
			up = 1;
			continue;
		}
		buf_printf(&b, "%c", up && *name >= 'a' && *name <= 'z'
		                         ? *name - 'a' + 'A' : *name);
		up = 0;
	}
	buf_puts(&b, "Params");
	return b.data;
}
char *mr_params_helper(const char *name)
{
	char *r = xasprintf("REGISTER_%s_OP", name), *q;
	for (q = r; *q; q++)
		if (*q >= 'a' && *q <= 'z')
			*q = (char)(*q - 'a' + 'A');
	return r;
}
char *mr_params_alpha(const char *name, const char *in)
{
	char *s = mr_params_struct(name), *r = xasprintf("%s_%s", s, in);
	free(s);
	return r;
}
int mr_kind_of(int arity, int alpha)
{
	if (arity < 1 || arity > 3)
		return -1;
	return (arity - 1) * 2 + (alpha ? 1 : 0);
}
const char *mr_kind_kernel_file(int k)
{
	static const char *const f[] = {MPS_KERNELS_REL "/UnaryKernel.metal",
	                                MPS_KERNELS_REL "/BinaryKernel.metal",
	                                MPS_KERNELS_REL "/PointwiseOps.metal"};
	if (k == MR_BINARY_PARAMS)
		return MPS_KERNELS_REL "/Activation.metal";
	return f[mr_kind_arity(k) - 1];
}
const char *mr_kind_host_file(int k)
{
	static const char *const f[] = {MPS_OPS_REL "/UnaryKernel.mm",
	                                MPS_OPS_REL "/BinaryKernel.mm",
	                                MPS_OPS_REL "/PointwiseOps.mm"};
	if (k == MR_BINARY_PARAMS)
		return MPS_OPS_REL "/Activation.mm";
	return f[mr_kind_arity(k) - 1];
}
const char *mr_kind_exec(int k)
{
	static const char *const e[] = {"exec_unary_kernel", "exec_binary_kernel",
	                                "exec_ternary_kernel"};
	if (k == MR_BINARY_PARAMS)
		return "exec_binary_kernel_with_params";
	return e[mr_kind_arity(k) - 1];
}

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

int mr_text_has_exec(const char *t, size_t len, int which)
{
	const char *k = mr_kind_exec(mr_kind_of(which + 1, 0));
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

/* ---- the kernels a registration instantiates ---- */

static void strdef_take(struct mr_defs *d, const char *m, size_t a, size_t e)
{
	/* #define NAME "..." ["..."]: an object-like macro that is a string */
	size_t i = skip_blanks(m, e, a + 1), ns, ne;
	struct buf v;
	if (e - i < 6 || memcmp(m + i, "define", 6) != 0)
		return;
	i = skip_blanks(m, e, i + 6);
	ns = i;
	while (i < e && id_char(m[i]))
		i++;
	ne = i;
	if (ne == ns || (i < e && m[i] == '('))
		return;
	buf_init(&v);
	for (;;) {
		size_t q;
		i = skip_blanks(m, e, i);
		if (i >= e)
			break;
		if (m[i] != '"') {
			buf_free(&v);
			return;
		}
		q = skip_lit(m, e, i);
		if (q - i < 2 || m[q - 1] != '"') {
			buf_free(&v);
			return;
		}
		buf_add(&v, m + i + 1, q - i - 2);
		i = q;
	}
	if (!v.data) /* no literal at all */
		return;
	GROW(d->str, d->nstr, d->capstr);
	d->str[d->nstr].name = xstrndup(m + ns, ne - ns);
	d->str[d->nstr].value = v.data;
	d->nstr++;
}

void mr_defs_add(struct mr_defs *d, const char *text, size_t len)
{
	char *m = mask_code(text, len, LANG_C);
	size_t i = 0;
	while (i < len) {
		size_t j = i;
		while (j < len && (m[j] == ' ' || m[j] == '\t'))
			j++;
		if (j < len && m[j] == '#') {
			size_t e = lex_directive_end(m, len, j), ns, ne, op, cl;
			if (lex_define_head(m, j, e, &ns, &ne, &op, &cl)) {
				GROW(d->fn, d->nfn, d->capfn);
				memset(&d->fn[d->nfn], 0, sizeof d->fn[d->nfn]);
				lex_define_take(m, e, ns, ne, op, cl, &d->fn[d->nfn]);
				d->nfn++;
			} else {
				strdef_take(d, m, j, e);
			}
			i = e;
		}
		while (i < len && m[i] != '\n')
			i++;
		i++;
	}
	free(m);
}

int mr_defs_load(struct mr_defs *d, const char *root)
{
	struct walk_list l;
	char *dir = xasprintf("%s/c10/metal", root);
	size_t i;
	int n = 0;
	walk_dir(dir, 0, &l);
	for (i = 0; i < l.n; i++) {
		size_t k = strlen(l.paths[i]), len;
		char *p, *data;
		if (k < 3 || strcmp(l.paths[i] + k - 2, ".h") != 0)
			continue;
		p = xasprintf("%s/%s", dir, l.paths[i]);
		if (read_regular_file(p, 16u << 20, &data, &len) == 0) {
			mr_defs_add(d, data, len);
			free(data);
			n++;
		}
		free(p);
	}
	walk_free(&l);
	free(dir);
	return n;
}

void mr_defs_free(struct mr_defs *d)
{
	size_t i;
	for (i = 0; i < d->nfn; i++)
		lex_macro_free(&d->fn[i]);
	free(d->fn);
	for (i = 0; i < d->nstr; i++) {
		free(d->str[i].name);
		free(d->str[i].value);
	}
	free(d->str);
	memset(d, 0, sizeof *d);
}

static const struct lex_macro *defs_fn(const struct mr_defs *d, const char *s,
                                       size_t n)
{
	size_t i;
	for (i = d->nfn; i-- > 0;)
		if (strlen(d->fn[i].name) == n && memcmp(d->fn[i].name, s, n) == 0)
			return &d->fn[i];
	return NULL;
}

const struct lex_macro *mr_defs_find(const struct mr_defs *d, const char *name)
{
	return defs_fn(d, name, strlen(name));
}

static const char *defs_str(const struct mr_defs *d, const char *s, size_t n)
{
	size_t i;
	for (i = d->nstr; i-- > 0;)
		if (strlen(d->str[i].name) == n && memcmp(d->str[i].name, s, n) == 0)
			return d->str[i].value;
	return NULL;
}

/* TEXT with every call of a function-like macro of d expanded, the
 * result rescanned, DEPTH levels at most */
static char *expand_text(const struct mr_defs *d, const char *text, int depth)
{
	struct buf o;
	size_t n = strlen(text), i = 0;
	int changed = 0;
	buf_init(&o);
	while (i < n) {
		if (text[i] == '"' || text[i] == '\'') {
			size_t e = lex_skip_literal(text, n, i);
			buf_add(&o, text + i, e - i);
			i = e;
			continue;
		}
		if (id_start(text[i]) && (i == 0 || !id_char(text[i - 1]))) {
			size_t e = i, p;
			const struct lex_macro *mc;
			while (e < n && id_char(text[e]))
				e++;
			p = skip_blanks(text, n, e);
			mc = p < n && text[p] == '(' ? defs_fn(d, text + i, e - i) : NULL;
			if (mc) {
				size_t q = lex_match_close(text, n, p, '(', ')');
				if (q < n) {
					size_t na;
					char **args = lex_split_args(text, p, q, &na);
					char *x = lex_expand(mc, args, na);
					buf_puts(&o, x);
					free(x);
					lex_strv_free(args, na);
					i = q + 1;
					changed = 1;
					continue;
				}
			}
			buf_add(&o, text + i, e - i);
			i = e;
			continue;
		}
		buf_add(&o, text + i, 1);
		i++;
	}
	if (!o.data)
		return xstrdup("");
	if (changed && depth > 1) {
		char *again = expand_text(d, o.data, depth - 1);
		buf_free(&o);
		return again;
	}
	return o.data;
}

/* s[a, b) with blanks squeezed: one space kept only between two
 * identifier bytes */
static char *squeeze(const char *s, size_t a, size_t b)
{
	struct buf o;
	size_t i;
	buf_init(&o);
	for (i = a; i < b; i++) {
		if (is_blank(s[i])) {
			size_t j = i;
			while (j < b && is_blank(s[j]))
				j++;
			if (o.len && id_char(o.data[o.len - 1]) && j < b && id_char(s[j]))
				buf_add(&o, " ", 1);
			i = j - 1;
			continue;
		}
		buf_add(&o, s + i, 1);
	}
	return o.data ? o.data : xstrdup("");
}

/* split s[a, b) at commas outside (), [], {}, <> into squeezed parts */
static char **split_top(const char *s, size_t a, size_t b, size_t *n)
{
	char **v = NULL;
	size_t cap = 0, i, st = a;
	int depth = 0;
	*n = 0;
	for (i = a; i <= b; i++) {
		char c = i < b ? s[i] : ',';
		if (i < b && (c == '"' || c == '\'')) {
			i = skip_lit(s, b, i) - 1;
			continue;
		}
		if (c == '(' || c == '[' || c == '{' || c == '<')
			depth++;
		else if ((c == ')' || c == ']' || c == '}' || c == '>') && depth > 0)
			depth--;
		else if (c == ',' && (depth == 0 || i == b)) {
			char *p = squeeze(s, st, i);
			if (p[0] || i < b || *n > 0) {
				GROW(v, *n, cap);
				v[(*n)++] = p;
			} else {
				free(p);
			}
			st = i + 1;
		}
	}
	return v;
}

/* the instantiations of expansion x: fills names (the host_name strings),
 * templates, their arguments and parameters */
static size_t scan_insts(const struct mr_defs *d, const char *x,
                         struct mr_inst **out)
{
	size_t n = strlen(x), i = 0, cnt = 0, cap = 0;
	struct mr_inst *v = NULL;
	while (i < n) {
		size_t p, q, k, ts, te, ae, pe;
		struct buf name;
		int ok = 1;
		if (x[i] == '"' || x[i] == '\'') {
			i = skip_lit(x, n, i);
			continue;
		}
		if (!(id_start(x[i]) && (i == 0 || !id_char(x[i - 1])) &&
		      n - i >= 9 && memcmp(x + i, "host_name", 9) == 0 &&
		      !id_char(x[i + 9]))) {
			i++;
			continue;
		}
		p = skip_blanks(x, n, i + 9);
		if (p >= n || x[p] != '(') {
			i += 9;
			continue;
		}
		q = lex_match_close(x, n, p, '(', ')');
		if (q >= n) {
			i += 9;
			continue;
		}
		/* the name: string literals and string macros */
		buf_init(&name);
		for (k = skip_blanks(x, q, p + 1); k < q && ok;
		     k = skip_blanks(x, q, k)) {
			if (x[k] == '"') {
				size_t e = skip_lit(x, q, k);
				if (e - k < 2 || x[e - 1] != '"')
					ok = 0;
				else
					buf_add(&name, x + k + 1, e - k - 2);
				k = e;
			} else if (id_start(x[k])) {
				size_t e = k;
				const char *sv;
				while (e < q && id_char(x[e]))
					e++;
				sv = defs_str(d, x + k, e - k);
				if (sv)
					buf_puts(&name, sv);
				else
					ok = 0;
				k = e;
			} else {
				ok = 0;
			}
		}
		/* ]] kernel void QUAL<TARGS>(PARAMS) */
		k = skip_blanks(x, n, q + 1);
		if (ok && k + 1 < n && x[k] == ']' && x[k + 1] == ']')
			k = skip_blanks(x, n, k + 2);
		else
			ok = 0;
		if (ok && n - k > 6 && !memcmp(x + k, "kernel", 6) && !id_char(x[k + 6])) {
			k = skip_blanks(x, n, k + 6);
		} else if (ok && k + 1 < n && x[k] == '[' && x[k + 1] == '[') {
			/* the attribute form, [[kernel]] (current main's .metal files) */
			size_t w = skip_blanks(x, n, k + 2);
			if (n - w > 6 && !memcmp(x + w, "kernel", 6) && !id_char(x[w + 6])) {
				w = skip_blanks(x, n, w + 6);
				if (w + 1 < n && x[w] == ']' && x[w + 1] == ']')
					k = skip_blanks(x, n, w + 2);
			}
		}
		if (ok && n - k > 4 && !memcmp(x + k, "void", 4) && !id_char(x[k + 4]))
			k = skip_blanks(x, n, k + 4);
		else
			ok = 0;
		ts = k;
		while (ok && k < n && (id_char(x[k]) || x[k] == ':' || is_blank(x[k])))
			k++;
		te = k;
		if (!ok || te == ts || k >= n || x[k] != '<') {
			buf_free(&name);
			i = q + 1;
			continue;
		}
		{
			int depth = 0;
			for (ae = k; ae < n; ae++) {
				if (x[ae] == '<' || x[ae] == '(')
					depth++;
				else if ((x[ae] == '>' || x[ae] == ')') && --depth == 0)
					break;
			}
		}
		p = ae < n ? skip_blanks(x, n, ae + 1) : n;
		pe = p < n && x[p] == '(' ? lex_match_close(x, n, p, '(', ')') : n;
		if (ae >= n || pe >= n || !name.data) {
			buf_free(&name);
			i = q + 1;
			continue;
		}
		GROW(v, cnt, cap);
		memset(&v[cnt], 0, sizeof v[cnt]);
		v[cnt].name = name.data;
		v[cnt].templ = squeeze(x, ts, te);
		v[cnt].targs = split_top(x, k + 1, ae, &v[cnt].ntargs);
		v[cnt].params = split_top(x, p + 1, pe, &v[cnt].nparams);
		cnt++;
		i = pe + 1;
	}
	*out = v;
	return cnt;
}

/* a marker argument, "@K@": survives # (as "@K@") and ## (pasted) */
static char *marker(size_t k) { return xasprintf("@%zu@", k); }

/* the pattern (markers replaced by PARAMS' names) and the variant (the
 * pattern's literal parts, '_' trimmed around the parameters) of NAME */
static void pattern_of(const char *name, const struct lex_macro *mc,
                       char **pattern, char **variant)
{
	struct buf p, v;
	size_t i = 0, n = strlen(name);
	buf_init(&p);
	buf_init(&v);
	while (i < n) {
		if (name[i] == '@') {
			size_t e = i + 1, k = 0;
			while (e < n && name[e] >= '0' && name[e] <= '9')
				k = k * 10 + (size_t)(name[e++] - '0');
			if (e < n && name[e] == '@' && e > i + 1 && k < mc->np) {
				buf_puts(&p, mc->params[k]);
				buf_add(&v, "\n", 1); /* a parameter: a separator */
				i = e + 1;
				continue;
			}
		}
		buf_add(&p, name + i, 1);
		buf_add(&v, name + i, 1);
		i++;
	}
	*pattern = p.data ? p.data : xstrdup("");
	/* the literal parts, each without leading and trailing '_', joined
	 * with '_' */
	{
		struct buf o;
		const char *s = v.data ? v.data : "";
		buf_init(&o);
		while (*s) {
			size_t l = strcspn(s, "\n"), a = 0, b = l;
			while (a < b && s[a] == '_')
				a++;
			while (b > a && s[b - 1] == '_')
				b--;
			if (b > a) {
				if (o.len)
					buf_add(&o, "_", 1);
				buf_add(&o, s + a, b - a);
			}
			s += l;
			if (*s)
				s++;
		}
		*variant = o.data ? o.data : xstrdup("");
	}
	buf_free(&v);
}

size_t mr_instantiate(const struct mr_defs *d, const char *macro,
                      char *const *args, size_t nargs, struct mr_inst **out)
{
	const struct lex_macro *mc = defs_fn(d, macro, strlen(macro));
	struct mr_inst *real = NULL, *pat = NULL;
	size_t nreal, npat, i;
	char **marks;
	struct buf call;

	*out = NULL;
	if (!mc || mc->variadic || mc->np != nargs)
		return 0;
	/* the call with its real arguments */
	buf_init(&call);
	buf_printf(&call, "%s(", macro);
	for (i = 0; i < nargs; i++)
		buf_printf(&call, "%s%s", i ? ", " : "", args[i]);
	buf_puts(&call, ")");
	{
		char *x = expand_text(d, call.data, 8);
		nreal = scan_insts(d, x, &real);
		free(x);
	}
	buf_free(&call);
	/* and with markers, for the patterns */
	marks = xcalloc(nargs + 1, sizeof *marks);
	buf_init(&call);
	buf_printf(&call, "%s(", macro);
	for (i = 0; i < nargs; i++) {
		marks[i] = marker(i);
		buf_printf(&call, "%s%s", i ? ", " : "", marks[i]);
	}
	buf_puts(&call, ")");
	{
		char *x = expand_text(d, call.data, 8);
		npat = scan_insts(d, x, &pat);
		free(x);
	}
	buf_free(&call);
	lex_strv_free(marks, nargs);
	for (i = 0; i < nreal; i++) {
		if (i < npat && npat == nreal) {
			pattern_of(pat[i].name, mc, &real[i].pattern, &real[i].variant);
		} else {
			real[i].pattern = xstrdup(real[i].name);
			real[i].variant = xstrdup(real[i].name);
		}
	}
	mr_insts_free(pat, npat);
	*out = real;
	return nreal;
}

size_t mr_text_insts(const struct mr_defs *d, const char *text, struct mr_inst **out)
{
	char *x = expand_text(d, text, 8);
	size_t n = scan_insts(d, x, out), i;
	free(x);
	for (i = 0; i < n; i++) {
		(*out)[i].pattern = xstrdup((*out)[i].name);
		(*out)[i].variant = xstrdup((*out)[i].name);
	}
	return n;
}

void mr_insts_free(struct mr_inst *v, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].pattern);
		free(v[i].variant);
		free(v[i].templ);
		lex_strv_free(v[i].targs, v[i].ntargs);
		lex_strv_free(v[i].params, v[i].nparams);
	}
	free(v);
}

const struct mr_inst *mr_inst_find(const struct mr_inst *v, size_t n,
                                   const char *variant)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (strcmp(v[i].variant, variant) == 0)
			return &v[i];
	return NULL;
}

char *mr_inst_call(const struct mr_inst *k)
{
	struct buf b;
	size_t i;
	buf_init(&b);
	buf_printf(&b, "%s<", k->templ);
	for (i = 0; i < k->ntargs; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", k->targs[i]);
	buf_puts(&b, ">");
	return b.data;
}
