/* stubs.c — see stubs.h. */
#include "read/stubs.h"
#include "base/diag.h"
#include "base/lex.h"
#include "base/scan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---------------- A. discovery ---------------- */

const char *cs_kind_name(int kind)
{
	switch (kind) {
	case CS_STUB_BACKED: return "stubs";
	case CS_DEVICE_GENERIC: return "device-generic";
	case CS_CPU_ONLY: return "cpu-only";
	default: return "unknown";
	}
}

int cs_stub_declared(const struct cs_model *m, const char *name,
                     struct cs_loc *at)
{
	const struct cs_priv *p = P(m);
	const struct cs_ilist *l;
	size_t i;
	long best = -1;
	if (!p || !name)
		return 0;
	l = imap_get(&p->declname, name, strlen(name));
	if (!l)
		return 0;
	for (i = 0; i < l->n; i++) {
		const struct cs_sdecl *s = &p->decls[l->v[i]];
		if (best < 0 || (p->files[s->file].header &&
		                 !p->files[p->decls[best].file].header))
			best = l->v[i];
	}
	if (at)
		*at = loc_of(m, p->decls[best].file, p->decls[best].at);
	return 1;
}

/* The names of d's parameters (malloc'd vector of malloc'd strings):
 * the last identifier of each parameter, before a default value and
 * array brackets. */
static char **param_names(const struct cs_model *m, const struct cs_def *d,
                          size_t *np)
{
	char **args, **v = NULL;
	size_t na, i, n = 0;
	*np = 0;
	if (d->pe <= d->ps || d->pe >= d->tn)
		return NULL;
	args = lex_split_args(cs_def_text(m, d), d->ps, d->pe, &na);
	for (i = 0; i < na; i++) {
		const char *a = args[i];
		size_t e = strlen(a), k, s;
		long depth = 0;
		for (k = 0; k < e; k++) {
			if (a[k] == '(' || a[k] == '<' || a[k] == '[' || a[k] == '{')
				depth++;
			else if (a[k] == ')' || a[k] == '>' || a[k] == ']' || a[k] == '}')
				depth--;
			else if (a[k] == '=' && depth == 0) {
				e = k;
				break;
			}
		}
		while (e > 0 && (lex_sp(a[e - 1]) || a[e - 1] == ']')) {
			if (a[e - 1] == ']') {
				while (e > 0 && a[e - 1] != '[')
					e--;
			}
			if (e > 0)
				e--;
		}
		s = e;
		while (s > 0 && lex_idc(a[s - 1]))
			s--;
		if (s < e && lex_id0(a[s])) {
			v = xrealloc(v, (n + 1) * sizeof *v);
			v[n++] = xstrndup(a + s, e - s);
		}
	}
	lex_strv_free(args, na);
	*np = n;
	return v;
}

/* ---------------- A. device guards ---------------- */

/* Devices a condition can require: DeviceType names (c10/core/DeviceType.h)
 * in the order guards are written; the Tensor methods is_cpu() ...
 * is_maia() test them.  A set of them is a bit mask (devset, stubs.h). */

static const struct {
	const char *name;     /* DeviceType::NAME, kNAME */
	const char *method;   /* is_METHOD() */
} devices[] = {
	{"CPU", "cpu"}, {"CUDA", "cuda"}, {"HIP", "hip"}, {"XPU", "xpu"},
	{"MPS", "mps"}, {"Meta", "meta"}, {"MTIA", "mtia"}, {"HPU", "hpu"},
	{"XLA", "xla"}, {"Lazy", "lazy"}, {"IPU", "ipu"}, {"Vulkan", "vulkan"},
	{"Metal", "metal"}, {"PrivateUse1", "privateuseone"}, {"MAIA", "maia"},
	{NULL, NULL}};

static int dev_mps(void)
{
	return 4; /* devices[4] */
}

/* t[a, b) trimmed */
static void trim_span(const char *t, size_t *a, size_t *b)
{
	while (*a < *b && lex_sp(t[*a]))
		(*a)++;
	while (*b > *a && lex_sp(t[*b - 1]))
		(*b)--;
}

/* A device written as a constant: kCUDA, DeviceType::CUDA, with the
 * qualifiers ::, at::, c10::; its index, or -1. */
static int dev_const(const char *t, size_t a, size_t b)
{
	int d;
	trim_span(t, &a, &b);
	for (;;) {
		if (lex_starts_with(t + a, b - a, "::"))
			a += 2;
		else if (lex_starts_with(t + a, b - a, "at::"))
			a += 4;
		else if (lex_starts_with(t + a, b - a, "c10::"))
			a += 5;
		else
			break;
	}
	if (lex_starts_with(t + a, b - a, "DeviceType::"))
		a += 12;
	else if (b - a > 1 && t[a] == 'k')
		a++;
	else
		return -1;
	for (d = 0; devices[d].name; d++)
		if (lex_span_is(t + a, b - a, devices[d].name))
			return d;
	return -1;
}

/* t[a, b) is a device test written directly: `E.is_cuda()` (also ->, or
 * a bare is_cuda()), or `E.device().type() == kCUDA` / `E.device_type()
 * == DeviceType::CUDA` (either side; the other one ending in type()):
 * the device, else -1.  NEG: the test is `!=` instead of `==` (then the
 * result is the device compared against). */
static int dev_test(const char *t, size_t a, size_t b, int *neg)
{
	size_t i, eq = NOSZ;
	long depth = 0;
	int d;
	*neg = 0;
	trim_span(t, &a, &b);
	if (b - a > 5 && t[b - 1] == ')' && t[b - 2] == '(') {
		size_t e = b - 2, st = e;
		while (st > a && lex_idc(t[st - 1]))
			st--;
		if (lex_starts_with(t + st, e - st, "is_") &&
		    (st == a || t[st - 1] == '.' || (t[st - 1] == '>' && st - 1 > a &&
		                                     t[st - 2] == '-')))
			for (d = 0; devices[d].name; d++)
				if (lex_span_is(t + st + 3, e - st - 3, devices[d].method))
					return d;
	}
	for (i = a; i + 1 < b; i++) {
		if (t[i] == '"' || t[i] == '\'') {
			i = lex_skip_literal(t, b, i) - 1;
			continue;
		}
		if (t[i] == '(')
			depth++;
		else if (t[i] == ')')
			depth--;
		else if (depth == 0 && (t[i] == '=' || t[i] == '!') && t[i + 1] == '=') {
			eq = i;
			break;
		}
	}
	if (eq == NOSZ)
		return -1;
	*neg = t[eq] == '!';
	{
		size_t la = a, lb = eq, ra = eq + 2, rb = b;
		trim_span(t, &la, &lb);
		trim_span(t, &ra, &rb);
		if ((d = dev_const(t, ra, rb)) >= 0 && lex_ends_with(t + la, lb - la, "type()"))
			return d;
		if ((d = dev_const(t, la, lb)) >= 0 && lex_ends_with(t + ra, rb - ra, "type()"))
			return d;
	}
	return -1;
}

/* The end of the branch of an if starting at t[i] (after its condition):
 * a block, or one simple statement up to its ';'; NOSZ for a compound
 * statement (for, while, another if ...), whose end is not looked for. */
static size_t branch_end(const char *t, size_t n, size_t i)
{
	static const char *const compound[] = {"if", "for", "while", "do",
	                                      "switch", "else", "try", NULL};
	size_t k;
	i = lex_skip_ws(t, n, i);
	for (k = 0; compound[k]; k++)
		if (lex_word_at(t, n, i, compound[k]))
			return NOSZ;
	return stmt_end_or(t, n, i, NOSZ);
}

/* The branch t[a, b) is `return false;` or `{ return false; }`. */
static int returns_false(const char *t, size_t a, size_t b)
{
	trim_span(t, &a, &b);
	if (b - a >= 2 && t[a] == '{' && t[b - 1] == '}') {
		a++;
		b--;
		trim_span(t, &a, &b);
	}
	if (!lex_word_at(t, b, a, "return"))
		return 0;
	a += 6;
	trim_span(t, &a, &b);
	if (b == a || t[b - 1] != ';')
		return 0;
	b--;
	trim_span(t, &a, &b);
	return lex_span_is(t + a, b - a, "false");
}

static int has_word(const char *t, size_t a, size_t b, const char *w)
{
	size_t i;
	for (i = a; i < b; i++)
		if (lex_word_at(t, b, i, w))
			return 1;
	return 0;
}

/* A helper that returns true only on some devices: before its first
 * `return` of anything but false, a top-level `if (!DEVICE_TEST) return
 * false;` (or `if (E.device().type() != kCPU) return false;`), e.g.
 * `if (!self.device().is_cpu()) return false;`.  The devices it needs to
 * return true, or DEV_ANY. */
static devset helper_devices(const struct cs_model *m, const struct cs_def *d)
{
	const char *t = cs_def_text(m, d);
	size_t i = d->bs + 1, b = d->be < d->tn ? d->be : d->tn, e;
	int n;
	for (n = 0; n < 32; n++) {
		i = lex_skip_ws(t, b, i);
		if (i >= b)
			break;
		if (lex_word_at(t, b, i, "if")) {
			size_t o = lex_skip_ws(t, b, i + 2), c;
			int neg, dv = -1;
			if (o >= b || t[o] != '(')
				break;
			c = lex_match_close(t, b, o, '(', ')');
			if (c >= b || (e = branch_end(t, b, c + 1)) == NOSZ)
				break;
			if (returns_false(t, c + 1, e)) {
				size_t ca = o + 1, cb = c;
				trim_span(t, &ca, &cb);
				if (ca < cb && t[ca] == '!') {
					dv = dev_test(t, ca + 1, cb, &neg);
					if (neg)
						dv = -1;
				} else {
					dv = dev_test(t, ca, cb, &neg);
					if (!neg)
						dv = -1;
				}
				if (dv >= 0)
					return (devset)1 << dv;
			} else if (has_word(t, c + 1, e, "return")) {
				break;
			}
			i = e;
			continue;
		}
		if (t[i] == '{') {
			size_t c = lex_match_close(t, b, i, '{', '}');
			if (c >= b || has_word(t, i, c, "return"))
				break;
			i = c + 1;
			continue;
		}
		e = stmt_end(t, b, i);
		if (has_word(t, i, e, "return") && !returns_false(t, i, e))
			break;
		i = e;
	}
	return DEV_ANY;
}

static devset cond_devices(const struct cs_model *m, const struct cs_def *from,
                           const char *t, size_t a, size_t b);

/* A condition's atom: a device test, or a call of a helper that returns
 * true only on some devices (helper_devices; every definition of it, in
 * the caller's file when it has one, must agree). */
static devset atom_devices(const struct cs_model *m, const struct cs_def *from,
                           const char *t, size_t a, size_t b)
{
	const struct cs_priv *p = P(m);
	const struct cs_ilist *l;
	size_t e, o, i;
	int neg, dv, same = 0;
	devset got = 0;
	trim_span(t, &a, &b);
	if (a >= b)
		return DEV_ANY;
	dv = dev_test(t, a, b, &neg);
	if (dv >= 0)
		return neg ? DEV_ANY : (devset)1 << dv;
	/* NAME(...) or Q::NAME(...) and nothing else */
	e = a;
	for (;;) {
		size_t s0 = e;
		e = lex_ident_end(t, b, e);
		if (e == s0 || !lex_id0(t[s0]))
			return DEV_ANY;
		o = lex_skip_ws(t, b, e);
		if (o + 1 < b && t[o] == ':' && t[o + 1] == ':') {
			e = lex_skip_ws(t, b, o + 2);
			continue;
		}
		break;
	}
	if (o >= b || t[o] != '(' || lex_match_close(t, b, o, '(', ')') != b - 1)
		return DEV_ANY;
	{
		size_t ns = e;
		while (ns > a && lex_idc(t[ns - 1]))
			ns--;
		l = imap_get(&p->defname, t + ns, e - ns);
	}
	if (!l)
		return DEV_ANY;
	for (i = 0; i < l->n; i++)
		if (p->defs[l->v[i]].file == from->file)
			same = 1;
	for (i = 0; i < l->n; i++) {
		const struct cs_def *d = &p->defs[l->v[i]];
		devset h;
		if (p->files[d->file].cpu || (same && d->file != from->file))
			continue;
		h = helper_devices(m, d);
		if (h == DEV_ANY || (got && h != got))
			return DEV_ANY;
		got = h;
	}
	return got ? got : DEV_ANY;
}

/* The devices a condition t[a, b) requires: `||` joins alternatives
 * (union), `&&` terms that each must hold (intersection; a term that
 * tests no device allows any), parentheses group, `!` allows any. */
static devset cond_or(const struct cs_model *m, const struct cs_def *from,
                      const char *t, size_t *i, size_t b);

static devset cond_unary(const struct cs_model *m, const struct cs_def *from,
                         const char *t, size_t *i, size_t b)
{
	size_t a = lex_skip_ws(t, b, *i), k;
	long depth = 0;
	if (a < b && t[a] == '(') {
		size_t c = lex_match_close(t, b, a, '(', ')'), n;
		if (c < b) {
			n = lex_skip_ws(t, b, c + 1);
			if (n >= b || (n + 1 < b && ((t[n] == '&' && t[n + 1] == '&') ||
			                             (t[n] == '|' && t[n + 1] == '|')))) {
				size_t in = a + 1;
				devset r = cond_or(m, from, t, &in, c);
				*i = c + 1;
				return r;
			}
		}
	}
	/* an atom: up to a top-level && or || */
	for (k = a; k < b; k++) {
		if (t[k] == '"' || t[k] == '\'') {
			k = lex_skip_literal(t, b, k) - 1;
			continue;
		}
		if (t[k] == '(' || t[k] == '[' || t[k] == '{')
			depth++;
		else if (t[k] == ')' || t[k] == ']' || t[k] == '}')
			depth--;
		else if (depth == 0 && k + 1 < b &&
		         ((t[k] == '&' && t[k + 1] == '&') ||
		          (t[k] == '|' && t[k + 1] == '|')))
			break;
	}
	*i = k;
	if (a < b && t[a] == '!')
		return DEV_ANY;
	return atom_devices(m, from, t, a, k);
}

static devset cond_and(const struct cs_model *m, const struct cs_def *from,
                       const char *t, size_t *i, size_t b)
{
	devset r = cond_unary(m, from, t, i, b);
	for (;;) {
		size_t k = lex_skip_ws(t, b, *i);
		if (k + 1 < b && t[k] == '&' && t[k + 1] == '&') {
			*i = k + 2;
			r &= cond_unary(m, from, t, i, b);
			continue;
		}
		return r;
	}
}

static devset cond_or(const struct cs_model *m, const struct cs_def *from,
                      const char *t, size_t *i, size_t b)
{
	devset r = cond_and(m, from, t, i, b);
	for (;;) {
		size_t k = lex_skip_ws(t, b, *i);
		if (k + 1 < b && t[k] == '|' && t[k + 1] == '|') {
			*i = k + 2;
			r |= cond_and(m, from, t, i, b);
			continue;
		}
		return r;
	}
}

static devset cond_devices(const struct cs_model *m, const struct cs_def *from,
                           const char *t, size_t a, size_t b)
{
	size_t i = a;
	devset r = cond_or(m, from, t, &i, b);
	return lex_skip_ws(t, b, i) == b ? r : DEV_ANY;
}

/* A span of a body that runs only on some devices: the branch of an `if`
 * whose condition requires them. */
struct gspan {
	size_t a, b;
	devset devs;
};

/* "CUDA, XPU" for a set without MPS, NULL for one with it (MPS may take
 * that path); "" for an empty set (no device does). */
static char *devset_guard(devset s)
{
	struct buf o;
	int d;
	if (s & ((devset)1 << dev_mps()))
		return NULL;
	buf_init(&o);
	for (d = 0; devices[d].name; d++)
		if (s & ((devset)1 << d))
			buf_printf(&o, "%s%s", o.len ? ", " : "", devices[d].name);
	return o.data ? o.data : xstrdup("");
}


/* caller's namespace is ns or nested in it */
static int ns_visible(const char *callee_ns, const char *caller_ns)
{
	size_t a = strlen(callee_ns);
	if (!a)
		return 1;
	return strncmp(caller_ns, callee_ns, a) == 0 &&
	       (caller_ns[a] == '\0' || caller_ns[a] == ':');
}

static void disc_enqueue(struct disc *x, long d, int depth)
{
	GROW2(x->q, x->qd, x->qn, x->qcap);
	x->q[x->qn] = d;
	x->qd[x->qn] = depth;
	x->qn++;
}

/* The slot of definition d in v (free or holding d). */
static size_t vis_slot(const struct visited *v, long d)
{
	size_t i = ((size_t)d * 2654435761u) & (v->cap - 1);
	while (v->def[i] >= 0 && v->def[i] != d)
		i = (i + 1) & (v->cap - 1);
	return i;
}

static size_t vis_add(struct visited *v, long d)
{
	size_t i;
	if ((v->n + 1) * 2 > v->cap) {
		struct visited o = *v;
		size_t k;
		v->cap = o.cap ? o.cap * 2 : 64;
		v->def = xmalloc(v->cap * sizeof *v->def);
		v->reach = xmalloc(v->cap * sizeof *v->reach);
		v->depth = xmalloc(v->cap * sizeof *v->depth);
		for (k = 0; k < v->cap; k++)
			v->def[k] = -1;
		for (k = 0; k < o.cap; k++)
			if (o.def[k] >= 0) {
				i = vis_slot(v, o.def[k]);
				v->def[i] = o.def[k];
				v->reach[i] = o.reach[k];
				v->depth[i] = o.depth[k];
			}
		free(o.def);
		free(o.reach);
		free(o.depth);
	}
	i = vis_slot(v, d);
	v->def[i] = d;
	v->n++;
	return i;
}

void vis_free(struct visited *v)
{
	free(v->def);
	free(v->reach);
	free(v->depth);
	memset(v, 0, sizeof *v);
}

/* Reach definition d at depth on the devices x->here.  A definition is
 * walked once; reached again on devices not counted yet, it is walked
 * again at the depth of its first reach, which finds the same stubs and
 * calls and only widens their devices. */
void disc_push(struct disc *x, long d, int depth)
{
	size_t i = x->vis.cap ? vis_slot(&x->vis, d) : 0;
	if (x->vis.cap && x->vis.def[i] == d) {
		if (x->here & ~x->vis.reach[i]) {
			x->vis.reach[i] |= x->here;
			disc_enqueue(x, d, x->vis.depth[i]);
		}
		return;
	}
	if (depth > CS_MAX_DEPTH) {
		x->out->truncated = 1;
		return;
	}
	i = vis_add(&x->vis, d);
	x->vis.reach[i] = x->here;
	x->vis.depth[i] = depth;
	disc_enqueue(x, d, depth);
}

/* Push the definitions of name reached from def `from` with qualifier q
 * (stubs.h, cs_discover). */
void disc_resolve(struct disc *x, const char *name, size_t nn,
                  const char *q)
{
	const struct cs_priv *p = P(x->m);
	const struct cs_def *from = &p->defs[x->cur];
	const struct cs_ilist *l = imap_get(&p->defname, name, nn);
	size_t i;
	int same = 0, mode;
	const char *tail = NULL;
	if (!l)
		return;
	if (!*q)
		mode = 0;
	else if (strcmp(q, "at::native") == 0 || strcmp(q, "native") == 0)
		mode = 1;
	else if (strncmp(q, "at::native::", 12) == 0) {
		mode = 2;
		tail = q + 12;
	} else if (strncmp(q, "native::", 8) == 0) {
		mode = 2;
		tail = q + 8;
	} else if (strcmp(q, "at") == 0 || strncmp(q, "at::", 4) == 0 ||
	           strcmp(q, "std") == 0 || strncmp(q, "std::", 5) == 0 ||
	           strcmp(q, "c10") == 0 || strncmp(q, "c10::", 5) == 0) {
		x->ops++;
		return;
	} else {
		mode = 3;
		tail = q;
	}
	for (i = 0; i < l->n; i++) {
		const struct cs_def *d = &p->defs[l->v[i]];
		if (d->file == from->file && !p->files[d->file].cpu)
			same = 1;
	}
	for (i = 0; i < l->n; i++) {
		const struct cs_def *d = &p->defs[l->v[i]];
		const char *last;
		if (p->files[d->file].cpu)
			continue;
		switch (mode) {
		case 0:
			if (same ? d->file != from->file
			         : (d->is_static && !p->files[d->file].header))
				continue;
			if (!same && !ns_visible(d->ns, from->ns))
				continue;
			break;
		case 1:
			if (!ns_is(d->ns, "at::native"))
				continue;
			break;
		case 2:
			if (!ns_ends(d->ns, tail))
				continue;
			break;
		default:
			last = strrchr(tail, ':');
			last = last ? last + 1 : tail;
			if (!ns_ends(d->ns, tail) &&
			    !(d->owner && strcmp(d->owner, last) == 0))
				continue;
			break;
		}
		if (d->file != from->file && d->is_static && !p->files[d->file].header)
			continue;
		disc_push(x, l->v[i], x->depth + 1);
	}
}

/* The member functions of struct name (same file first). */
static void disc_struct(struct disc *x, const char *name, size_t nn)
{
	const struct cs_priv *p = P(x->m);
	const struct cs_def *from = &p->defs[x->cur];
	const struct cs_ilist *l = imap_get(&p->owners, name, nn);
	size_t i;
	int same = 0;
	if (!l)
		return;
	for (i = 0; i < l->n; i++)
		if (p->defs[l->v[i]].file == from->file)
			same = 1;
	for (i = 0; i < l->n; i++) {
		const struct cs_def *d = &p->defs[l->v[i]];
		if (p->files[d->file].cpu || d->kind == D_META)
			continue;
		if (same && d->file != from->file)
			continue;
		disc_push(x, l->v[i], x->depth + 1);
	}
}

static int strstr_n(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w), i;
	for (i = 0; i + k <= n; i++)
		if (memcmp(s + i, w, k) == 0)
			return 1;
	return 0;
}

/* A stub: declared by DECLARE_DISPATCH, or named *_stub and not a
 * function defined under CS_NATIVE_REL (2.6.0 has kernels named
 * empty_affine_quantized_other_backends_stub). */
int is_stub_name(const struct cs_priv *p, const char *s, size_t n)
{
	if (imap_get(&p->declname, s, n))
		return 1;
	return n > 5 && lex_ends_with(s, n, "_stub") && !imap_get(&p->defname, s, n);
}

static void disc_stub(struct disc *x, const struct cs_tok *k)
{
	const struct cs_priv *p = P(x->m);
	const struct cs_def *from = &p->defs[x->cur];
	struct cs_discovery *o = x->out;
	struct cs_stub *s;
	size_t i, n = k->e - k->s;
	for (i = 0; i < o->nstubs; i++)
		if (lex_span_is(k->t + k->s, n, o->stubs[i].name)) {
			x->sdevs[i] |= x->here;
			return;
		}
	if (o->nstubs == x->cap_stubs) {
		x->cap_stubs = x->cap_stubs ? x->cap_stubs * 2 : 16;
		o->stubs = xrealloc(o->stubs, x->cap_stubs * sizeof *o->stubs);
		x->sdevs = xrealloc(x->sdevs, x->cap_stubs * sizeof *x->sdevs);
	}
	x->sdevs[o->nstubs] = x->here;
	s = &o->stubs[o->nstubs++];
	memset(s, 0, sizeof *s);
	s->name = xstrndup(k->t + k->s, n);
	s->at = loc_of(x->m, k->file, k->loc);
	s->in = from->owner ? xasprintf("%s::%s", from->owner, from->name)
	                    : xstrdup(from->name);
	s->how = k->call ? CS_CALLED : CS_PASSED;
	s->depth = x->depth;
	s->declared = cs_stub_declared(x->m, s->name, &s->decl);
	s->defined = imap_get(&p->defined, s->name, n) != NULL;
}

static void disc_cpu(struct disc *x, const struct cs_tok *k, const char *what)
{
	if (x->out->cpu.file || x->depth > CS_CPU_DEPTH)
		return;
	x->out->cpu = loc_of(x->m, k->file, k->loc);
	x->out->cpu_why = xstrdup(what);
	x->out->cpu_depth = x->depth;
}

/* An `if` written in the body being walked (not in a macro expansion):
 * when its condition requires some devices, its branch is guarded. */
static void disc_if(struct disc *x, const struct cs_tok *k)
{
	const struct cs_def *d = &P(x->m)->defs[x->cur];
	const char *t = k->t;
	size_t o = k->open, c = k->close, e;
	devset dv;
	if (!k->call) { /* if constexpr (...) */
		o = lex_skip_ws(t, k->tn, k->e);
		if (!lex_word_at(t, k->tn, o, "constexpr"))
			return;
		o = lex_skip_ws(t, k->tn, o + 9);
		if (o >= k->tn || t[o] != '(')
			return;
		c = lex_match_close(t, k->tn, o, '(', ')');
	}
	if (c >= k->tn)
		return;
	dv = cond_devices(x->m, d, t, o + 1, c);
	if (dv == DEV_ANY || (e = branch_end(t, k->tn, c + 1)) == NOSZ)
		return;
	GROW(x->spans, x->nspans, x->cap_spans);
	x->spans[x->nspans].a = c + 1;
	x->spans[x->nspans].b = e;
	x->spans[x->nspans].devs = dv;
	x->nspans++;
}

static void disc_tok(void *ctx, const struct cs_tok *k)
{
	struct disc *x = ctx;
	const struct cs_priv *p = P(x->m);
	const char *s = k->t + k->s;
	size_t n = k->e - k->s;
	char *q;

	if (n == 2 && s[0] == 'i' && s[1] == 'f') {
		if (k->t == cs_def_text(x->m, &p->defs[x->cur]) && k->qs == k->qe &&
		    !k->member)
			disc_if(x, k);
		return;
	}

	if (k->member) {
		if (k->call)
			x->ops++;
		return;
	}
	if (k->scope)
		return;
	if (k->qs == k->qe) {
		size_t i;
		for (i = 0; i < x->nparams; i++)
			if (lex_span_is(s, n, x->params[i]))
				return; /* a parameter: `stub(iter.device_type(), iter)` */
	}
	{
		/* the devices this token runs on: those of the paths to this
		 * definition, within the guarded branches around it */
		size_t i;
		x->here = x->cur_reach;
		for (i = 0; i < x->nspans; i++)
			if (x->spans[i].a <= k->site && k->site < x->spans[i].b)
				x->here &= x->spans[i].devs;
	}
	if (is_stub_name(p, s, n)) {
		disc_stub(x, k);
		return;
	}
	if (!k->call) {
		return;
	}
	if (lex_starts_with(s, n, "AT_DISPATCH_") && !strstr_n(s, n, "LAYOUTS")) {
		char *w = xstrndup(s, n);
		disc_cpu(x, k, w);
		free(w);
		return;
	}
	if (lex_is_keyword(s, n))
		return;
	q = tok_qual(k);
	if (lex_starts_with(s, n, "cpu_") ||
	    (strlen(q) >= 3 && strcmp(q + strlen(q) - 3, "cpu") == 0 &&
	     (strlen(q) == 3 || q[strlen(q) - 4] == ':'))) {
		char *w = *q ? xasprintf("%s::%.*s", q, (int)n, s)
		             : xstrndup(s, n);
		disc_cpu(x, k, w);
		free(w);
		free(q);
		return;
	}
	/* functors named in the template arguments, or constructed */
	if (k->tb > k->ta) {
		size_t i = k->ta;
		while (i < k->tb) {
			if (lex_id0(k->t[i]) && (i == 0 || !lex_idc(k->t[i - 1]))) {
				size_t e = lex_ident_end(k->t, k->tb, i);
				disc_struct(x, k->t + i, e - i);
				i = e;
			} else {
				i++;
			}
		}
	}
	disc_struct(x, s, n);
	disc_resolve(x, s, n, q);
	free(q);
}

int cs_discover(const struct cs_model *m, const char *kernel,
                struct cs_discovery *out)
{
	const struct cs_priv *p = P(m);
	const struct cs_ilist *l;
	struct disc x;
	size_t i, n;
	struct buf why;

	memset(out, 0, sizeof *out);
	n = kernel ? strlen(kernel) : 0;
	for (i = 0; i < n; i++)
		if (!lex_idc(kernel[i]))
			break;
	if (!n || i < n || !lex_id0(kernel[0])) {
		out->why = xasprintf("'%s' is not a kernel name", kernel ? kernel : "");
		return out->kind;
	}
	if (!m->have_sources) {
		out->no_sources = 1;
		out->why = xstrdup("no C++ sources in this tree (" CS_NATIVE_REL
		                   " holds no .cpp file)");
		return out->kind;
	}
	memset(&x, 0, sizeof x);
	x.m = m;
	x.out = out;
	x.here = DEV_ANY;
	l = imap_get(&p->defname, kernel, n);
	for (i = 0; l && i < l->n; i++) {
		const struct cs_def *d = &p->defs[l->v[i]];
		if (p->files[d->file].cpu || !ns_is(d->ns, "at::native") || d->owner)
			continue;
		if (!out->ndefs)
			out->def = loc_of(m, d->file, d->at);
		out->ndefs++;
		disc_push(&x, l->v[i], 0);
	}
	if (!out->ndefs) {
		vis_free(&x.vis);
		out->why = xasprintf("no definition of %s in namespace at::native under "
		                     CS_NATIVE_REL " (%lu files read)",
		                     kernel, (unsigned long)m->nfiles);
		return out->kind;
	}
	for (i = 0; i < x.qn; i++) {
		x.cur = x.q[i];
		x.depth = x.qd[i];
		x.cur_reach = x.vis.reach[vis_slot(&x.vis, x.cur)];
		x.params = param_names(m, &p->defs[x.cur], &x.nparams);
		x.nspans = 0;
		walk_def(m, &p->defs[x.cur], disc_tok, &x);
		lex_strv_free(x.params, x.nparams);
		x.params = NULL;
		x.nparams = 0;
	}
	for (i = 0; i < out->nstubs; i++)
		out->stubs[i].guard = devset_guard(x.sdevs[i]);
	free(x.q);
	free(x.qd);
	vis_free(&x.vis);
	free(x.sdevs);
	free(x.spans);
	buf_init(&why);
	if (out->nstubs) {
		out->kind = CS_STUB_BACKED;
		buf_printf(&why, "%s reaches ", kernel);
		for (i = 0; i < out->nstubs; i++) {
			const struct cs_stub *s = &out->stubs[i];
			buf_printf(&why, "%s%s (%s %s:%lu%s%s%s%s%s)", i ? ", " : "",
			           s->name,
			           s->how == CS_CALLED ? "called at" : "passed at",
			           s->at.file, s->at.line, s->depth ? ", in " : "",
			           s->depth ? s->in : "", s->declared ? "" : ", undeclared",
			           s->guard ? ", only on " : "", s->guard ? s->guard : "");
		}
	} else if (out->cpu.file) {
		out->kind = CS_CPU_ONLY;
		buf_printf(&why, "%s reaches no stub and runs CPU code itself: %s at %s:%lu",
		           kernel, out->cpu_why, out->cpu.file, out->cpu.line);
	} else {
		out->kind = CS_DEVICE_GENERIC;
		buf_printf(&why, "%s (%s:%lu) reaches no stub and dispatches no dtype: "
		           "it calls only other operators", kernel, out->def.file,
		           out->def.line);
	}
	if (out->truncated && out->kind != CS_STUB_BACKED)
		buf_printf(&why, " (calls deeper than %d not followed)", CS_MAX_DEPTH);
	out->why = why.data;
	return out->kind;
}

void cs_discovery_free(struct cs_discovery *d)
{
	size_t i;
	for (i = 0; i < d->nstubs; i++) {
		free(d->stubs[i].name);
		free(d->stubs[i].in);
		free(d->stubs[i].guard);
	}
	free(d->stubs);
	free(d->cpu_why);
	free(d->why);
	memset(d, 0, sizeof *d);
}

/* ---------------- B. the stub's function type ---------------- */

/* the kind of a parameter type written t (blanks removed) */
static int param_kind(const char *t)
{
	static const struct {
		const char *w;
		int k;
	} tab[] = {{"constScalar&", CS_PARAM_SCALAR}, {"constc10::Scalar&", CS_PARAM_SCALAR},
	           {"constat::Scalar&", CS_PARAM_SCALAR}, {"Scalar", CS_PARAM_SCALAR},
	           {"c10::Scalar", CS_PARAM_SCALAR}, {"at::Scalar", CS_PARAM_SCALAR},
	           {"int64_t", CS_PARAM_INT}, {"constint64_t", CS_PARAM_INT},
	           {"long", CS_PARAM_INT}, {"int", CS_PARAM_INT},
	           {"double", CS_PARAM_DOUBLE}, {"constdouble", CS_PARAM_DOUBLE},
	           {"float", CS_PARAM_DOUBLE}, {"bool", CS_PARAM_BOOL},
	           {"constbool", CS_PARAM_BOOL},
	           {"std::optional<double>", CS_PARAM_OPT_DOUBLE},
	           {"conststd::optional<double>", CS_PARAM_OPT_DOUBLE},
	           {"c10::optional<double>", CS_PARAM_OPT_DOUBLE},
	           {"std::optional<int64_t>", CS_PARAM_OPT_INT},
	           {"c10::optional<int64_t>", CS_PARAM_OPT_INT},
	           {NULL, 0}};
	size_t i;
	for (i = 0; tab[i].w; i++)
		if (strcmp(t, tab[i].w) == 0)
			return tab[i].k;
	return CS_PARAM_OTHER;
}

/* s without blanks, malloc'd */
static char *no_blanks(const char *s, size_t n)
{
	char *o = xmalloc(n + 1), *w = o;
	size_t i;
	for (i = 0; i < n; i++)
		if (!lex_sp(s[i]))
			*w++ = s[i];
	*w = '\0';
	return o;
}

/* the parameter list of a function pointer type "void(*)(A, B)" or
 * "void (*NAME)(A, B)" in t[a, b): offsets of its '(' and ')' */
static int fnptr_params(const char *t, size_t a, size_t b, size_t *po,
                        size_t *pc)
{
	size_t i;
	for (i = a; i + 1 < b; i++)
		if (t[i] == '(' && t[lex_skip_ws(t, b, i + 1)] == '*') {
			size_t c = lex_match_close(t, b, i, '(', ')'), o;
			if (c >= b)
				return -1;
			o = lex_skip_ws(t, b, c + 1);
			if (o >= b || t[o] != '(')
				return -1;
			*pc = lex_match_close(t, b, o, '(', ')');
			if (*pc >= b)
				return -1;
			*po = o;
			return 0;
		}
	return -1;
}

/* the type an alias NAME stands for: `using NAME = T;` or `typedef R
 * (*NAME)(...)`, in file f first, then every header; fills the span of
 * the whole declaration in *file, [*a, *b) */
static int find_alias(const struct cs_model *m, size_t f0, const char *name,
                      size_t *file, size_t *a, size_t *b)
{
	const struct cs_priv *p = P(m);
	size_t k, nl = strlen(name);
	for (k = 0; k <= m->nfiles; k++) {
			size_t f = k == 0 ? f0 : k - 1;
			const struct cs_file *cf = &p->files[f];
			const char *t;
			size_t n = cf->len, i;
			if (k > 0 && (!cf->header || cf->added || f == f0))
				continue;
			t = cs_file_text(m, f);
			for (i = 0; t && i + nl < n; i++) {
				size_t e, s0;
				if (!(lex_word_at(t, n, i, "using") || lex_word_at(t, n, i, "typedef")))
					continue;
				s0 = i;
				e = i;
				while (e < n && t[e] != ';')
					e++;
				if (t[i] == 'u') {
					size_t q = lex_skip_ws(t, n, i + 5);
					if (lex_word_at(t, n, q, name) &&
					    t[lex_skip_ws(t, n, q + nl)] == '=') {
						*file = f;
						*a = lex_skip_ws(t, n, lex_skip_ws(t, n, q + nl) + 1);
						*b = e;
						return 0;
					}
				} else {
					size_t k;
					for (k = s0; k + nl <= e; k++)
						if (lex_word_at(t, e, k, name) && k > 0 &&
						    t[lex_back_ws(t, s0, k) - 1] == '*') {
							*file = f;
							*a = lex_skip_ws(t, n, s0 + 7);
							*b = e;
							return 0;
						}
				}
				i = e;
			}
		}
	return -1;
}

int cs_stub_signature(const struct cs_model *m, const char *stub,
                      struct cs_signature *out)
{
	const struct cs_priv *p = P(m);
	const struct cs_ilist *l;
	const struct cs_sdecl *sd = NULL;
	const struct cs_file *cf;
	size_t i, open, close, na, file, a, b, po, pc;
	char **args;

	memset(out, 0, sizeof *out);
	l = stub ? imap_get(&p->declname, stub, strlen(stub)) : NULL;
	for (i = 0; l && i < l->n; i++) {
		const struct cs_sdecl *s = &p->decls[l->v[i]];
		if (!sd || (p->files[s->file].header && !p->files[sd->file].header))
			sd = s;
	}
	if (!sd) {
		out->why = xasprintf("no DECLARE_DISPATCH of %s", stub ? stub : "");
		return -1;
	}
	cf = &p->files[sd->file];
	cs_file_text(m, sd->file);
	out->at = loc_of(m, sd->file, sd->at);
	open = sd->at;
	while (open < cf->len && cf->code[open] != '(')
		open++;
	close = open < cf->len ? lex_match_close(cf->code, cf->len, open, '(', ')')
	                       : cf->len;
	if (close >= cf->len) {
		out->why = xasprintf("the DECLARE_DISPATCH of %s cannot be read", stub);
		return -1;
	}
	args = lex_split_args(cf->code, open, close, &na);
	if (na < 2) {
		lex_strv_free(args, na);
		out->why = xasprintf("the DECLARE_DISPATCH of %s cannot be read", stub);
		return -1;
	}
	out->type = xstrdup(args[0]);
	lex_strv_free(args, na);
	file = sd->file;
	{
		/* the type written there, or the alias it names */
		size_t ta = open + 1, tb = ta;
		long depth = 0;
		while (tb < close && !(cf->code[tb] == ',' && depth == 0)) {
			if (cf->code[tb] == '(' || cf->code[tb] == '<')
				depth++;
			else if (cf->code[tb] == ')' || cf->code[tb] == '>')
				depth--;
			tb++;
		}
		a = ta;
		b = tb;
		if (fnptr_params(cf->code, a, b, &po, &pc) != 0) {
			char *name = no_blanks(cf->code + a, b - a);
			if (find_alias(m, sd->file, name, &file, &a, &b) != 0) {
				out->why = xasprintf("the function type %s of %s is not "
				                     "found", name, stub);
				free(name);
				return -1;
			}
			free(name);
			cf = &p->files[file];
			cs_file_text(m, file);
			if (fnptr_params(cf->code, a, b, &po, &pc) != 0) {
				out->why = xasprintf("the function type %s of %s is not a "
				                     "function pointer", out->type, stub);
				return -1;
			}
			free(out->type);
			out->type = lex_trim_dup(cf->code, a, b);
		}
	}
	{
		/* one line: blank runs made one space, none inside parentheses'
		 * edges */
		char *w = out->type, *r = out->type;
		int blank = 0;
		for (; *r; r++) {
			if (lex_sp(*r)) {
				blank = 1;
				continue;
			}
			if (blank && w > out->type && w[-1] != '(' && *r != ')' &&
			    *r != ',')
				*w++ = ' ';
			blank = 0;
			*w++ = *r;
		}
		*w = '\0';
	}
	args = lex_split_args(cf->code, po, pc, &na);
	out->found = 1;
	out->iterator = na > 0 && strstr(args[0], "TensorIterator") != NULL;
	for (i = 1; i < na; i++) {
		struct cs_param *pr;
		size_t e = strlen(args[i]), nb;
		out->params = xrealloc(out->params, (out->nparams + 1) * sizeof *out->params);
		pr = &out->params[out->nparams++];
		/* a trailing identifier after the type is the parameter's name */
		while (e > 0 && lex_sp(args[i][e - 1]))
			e--;
		nb = e;
		while (nb > 0 && lex_idc(args[i][nb - 1]))
			nb--;
		pr->name = NULL;
		if (nb < e && nb > 0 && !lex_span_is(args[i] + nb, e - nb, "int64_t") &&
		    (lex_sp(args[i][nb - 1]) || args[i][nb - 1] == '&' ||
		     args[i][nb - 1] == '*')) {
			pr->name = xstrndup(args[i] + nb, e - nb);
			e = nb;
		}
		pr->type = lex_trim_dup(args[i], 0, e);
		{
			char *nbk = no_blanks(pr->type, strlen(pr->type));
			pr->kind = param_kind(nbk);
			free(nbk);
		}
	}
	lex_strv_free(args, na);
	return 0;
}

void cs_signature_free(struct cs_signature *s)
{
	size_t i;
	for (i = 0; i < s->nparams; i++) {
		free(s->params[i].type);
		free(s->params[i].name);
	}
	free(s->params);
	free(s->type);
	free(s->why);
	memset(s, 0, sizeof *s);
}
