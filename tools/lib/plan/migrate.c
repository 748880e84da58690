/* migrate.c — see migrate.h. */
#include "plan/migrate.h"
#include "base/cli.h"
#include "base/diag.h"
#include "base/walk.h"
#include "base/lex.h"
#include "check/report.h"
#include "base/scan.h"
#include "check/verify.h"

#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* ---- small lists ---- */

struct strv {
	char **v;
	size_t n, cap;
};

static void strv_add(struct strv *s, const char *x)
{
	size_t i;
	for (i = 0; i < s->n; i++)
		if (strcmp(s->v[i], x) == 0)
			return;
	GROW(s->v, s->n, s->cap);
	s->v[s->n++] = xstrdup(x);
}

static void strv_free(struct strv *s)
{
	size_t i;
	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof *s);
}

static void note(struct mg_note **v, size_t *n, const char *what, char *text,
                 const char *path, unsigned long line)
{
	*v = xrealloc(*v, (*n + 1) * sizeof **v);
	(*v)[*n].what = xstrdup(what);
	(*v)[*n].text = text;
	(*v)[*n].path = path ? xstrdup(path) : NULL;
	(*v)[*n].line = line;
	(*n)++;
}

static void not_planned(struct mg_plan *p, const char *what, char *text)
{
	note(&p->notplanned, &p->nnotplanned, what, text, NULL, 0);
}

static void left(struct mg_plan *p, const char *what, char *text,
                 const char *path, unsigned long line)
{
	note(&p->left, &p->nleft, what, text, path, line);
}

/* ---- dtypes ---- */

/* the Metal token of each enum cs_dtype, via cppscan */
static const char *metal_of(int d)
{
	return cs_metal_token(d);
}

static int is_float_tok(const char *t)
{
	return !strcmp(t, "float") || !strcmp(t, "half") || !strcmp(t, "bfloat");
}

static int is_complex_tok(const char *t)
{
	return !strcmp(t, "float2") || !strcmp(t, "half2");
}

/* the interned token equal to t */
static const char *intern(const char *t)
{
	return mr_dtype(t, strlen(t));
}

/* the Metal check bits of a cppscan dtype set */
static unsigned bits_of(cs_dtset s)
{
	unsigned b = 0;
	int d;
	for (d = 0; d < CS_NDTYPES; d++)
		if ((s & CS_BIT(d)) && metal_of(d))
			b |= rg_dtype_bit(metal_of(d));
	return b;
}

unsigned mg_check_of(const struct mr_pair *pairs, size_t n, cs_dtset before,
                     cs_dtset rejects)
{
	unsigned ok = bits_of(before) | bits_of(rejects);
	size_t i;
	for (i = 0; i < n; i++)
		ok |= rg_dtype_bit(pairs[i].in);
	ok &= RG_ALL_DTYPES;
	return ok == RG_ALL_DTYPES ? 0 : ok;
}

int mg_derive_pairs(int kind, cs_dtset cpu, int rule, cs_dtset before,
                    cs_dtset rejects, struct mr_pair *out, unsigned *allowed)
{
	unsigned have = bits_of(cpu), skip = bits_of(before) | bits_of(rejects);
	size_t i;
	int n = 0;
	if (allowed)
		*allowed = 0;
	if (rule != CS_RULE_SAME && rule != CS_RULE_FLOAT && rule != CS_RULE_BOOL)
		return -1;
	for (i = 0; i < mr_ndtypes && i < 11; i++) {
		const char *t = mr_dtypes[i];
		unsigned bit = 1u << i;
		const char *o = NULL;
		if (skip & bit)
			continue;
		if (rule == CS_RULE_FLOAT && !is_float_tok(t) && !is_complex_tok(t))
			o = intern("float"); /* promoted by the meta function */
		else if (!(have & bit))
			continue;
		else if (rule == CS_RULE_BOOL)
			o = intern("bool");
		else
			o = t;
		out[n].in = t;
		out[n].out = o;
		out[n].alpha = mr_kind_alpha(kind) ? t : NULL;
		n++;
	}
	if (allowed)
		*allowed = mg_check_of(out, (size_t)n, before, rejects);
	return n;
}

/* ---- reading ---- */

struct priv {
	int have_hm;                 /* hs_load succeeded */
	struct hs_map bases;         /* the operators' base names (is_op) */
	struct strv dead, names;
	char *stub_default;          /* NAME_stub when the sources cannot tell */
	char *name_from;             /* why NAME is not the operator's name */
	unsigned long long dt_used;  /* several stubs and --dtypes: bit i for
	                                each item i of the list some kernel
	                                kept (given_filter) */
};

static int exists(const char *root, const char *rel)
{
	return walk_is_file(root, rel);
}

/* the edit-set entry of REL, loaded on first use */
static struct edit_file *load(struct mg_plan *p, const char *rel)
{
	char *path = xasprintf("%s/%s", p->root, rel);
	struct edit_file *f = edit_set_load(&p->set, path, rel);
	free(path);
	return f;
}

/* the file an rg item of P's kernel goes into */
static const char *file_rel(const struct mg_plan *p, int file)
{
	return file == RG_KERNEL ? p->kernel_rel : p->host_rel;
}

/* the kernel of K was left out: --dtypes kept none of its pairs */
static int left_out(const struct mg_plan *k)
{
	return k->npairs == 0 && k->ngiven_out > 0;
}

static struct edit_file *find_loaded(struct mg_plan *p, const char *rel)
{
	size_t i;
	for (i = 0; i < p->set.n; i++)
		if (strcmp(p->set.files[i].display, rel) == 0)
			return &p->set.files[i];
	return NULL;
}

/* ---- stubs ---- */

static void add_stub(struct mg_plan *p, const char *name, const char *where,
                     const char *by, int declared)
{
	size_t i;
	for (i = 0; i < p->nstubs; i++)
		if (strcmp(p->stubs[i].name, name) == 0)
			return;
	p->stubs = xrealloc(p->stubs, (p->nstubs + 1) * sizeof *p->stubs);
	p->stubs[p->nstubs].name = xstrdup(name);
	p->stubs[p->nstubs].where = xstrdup(where ? where : "?");
	p->stubs[p->nstubs].by = xstrdup(by ? by : "?");
	p->stubs[p->nstubs].declared = declared;
	p->nstubs++;
}

/* the shared line of a row that lists MPS (shared already) */
static const struct nf_dispatch *shared_mps_line(const struct nf_func *f)
{
	const struct nf_dispatch *d = nf_mps_dispatch(f);
	return d && d->nkeys > 1 ? d : NULL;
}

static void find_stubs(struct mg_plan *p)
{
	size_t i, j;
	int known = 1, any = 0;
	for (i = 0; i < p->fold.nrows; i++) {
		const struct fold_row *r = &p->fold.rows[i];
		if (r->action != FOLD_FOLD && r->action != FOLD_ADD)
			continue;
		any = 1;
		if (r->reach < 0 || r->reach == CS_UNKNOWN) {
			known = 0;
			continue;
		}
		for (j = 0; j < r->nstubs; j++)
			add_stub(p, r->stubs[j].name, r->stubs[j].where, r->kernel,
			         r->stubs[j].declared);
	}
	for (i = 0; i < p->nshared; i++) {
		const struct nf_dispatch *d = shared_mps_line(p->shared[i]);
		const struct cs_model *m = cs_lazy_get(&p->cs);
		struct cs_discovery disc;
		if (!d)
			continue;
		any = 1;
		if (!m || !m->have_sources) {
			known = 0;
			continue;
		}
		cs_discover(m, lex_unqualified(d->kernel), &disc);
		if (disc.kind == CS_UNKNOWN)
			known = 0;
		for (j = 0; j < disc.nstubs; j++) {
			char *w;
			if (disc.stubs[j].guard) /* only on other devices */
				continue;
			w = disc.stubs[j].at.file
			              ? xasprintf("%s:%lu", disc.stubs[j].at.file,
			                          disc.stubs[j].at.line)
			              : xstrdup("?");
			add_stub(p, disc.stubs[j].name, w, lex_unqualified(d->kernel),
			         disc.stubs[j].declared);
			free(w);
		}
		cs_discovery_free(&disc);
	}
	p->stubs_known = any && known;
}

/* the shared kernel of the out row (folded, added or shared) */
static const char *out_kernel(const struct mg_plan *p)
{
	size_t i;
	for (i = 0; i < p->fold.nrows; i++)
		if (p->fold.rows[i].f == p->out && p->fold.rows[i].kernel)
			return p->fold.rows[i].kernel;
	if (p->out) {
		const struct nf_dispatch *d = shared_mps_line(p->out);
		if (d)
			return lex_unqualified(d->kernel);
	}
	return NULL;
}

/* ---- the old kernel names ---- */

/* vf_name_fn: add NAME to the strv ARG */
static int add_name(const char *name, void *arg)
{
	strv_add(arg, name);
	return 0;
}

/* 1 when some dispatch line of the yaml, as it will be after the fold,
 * names kernel k */
static int still_named(const struct mg_plan *p, const char *k)
{
	size_t i, j, r;
	for (i = 0; i < p->ix.nentries; i++) {
		const struct nf_func *f = &p->ix.funcs[i];
		for (j = 0; j < f->ndispatch; j++) {
			const struct nf_dispatch *d = &f->dispatch[j];
			int gone = 0;
			if (strcmp(lex_unqualified(d->kernel), k) != 0)
				continue;
			for (r = 0; r < p->fold.nrows && !gone; r++)
				gone = p->fold.rows[r].f == f &&
				       p->fold.rows[r].action == FOLD_FOLD &&
				       d == nf_mps_dispatch(f) && d->nkeys == 1;
			if (!gone)
				return 1;
		}
	}
	return 0;
}

static void old_names(struct mg_plan *p)
{
	struct priv *pv = p->priv;
	struct strv cand;
	size_t i, j;
	memset(&cand, 0, sizeof cand);
	vf_old_names_spelled(p->op, "", add_name, &cand);
	for (i = 0; i < p->ix.nentries; i++) {
		const struct nf_func *f = &p->ix.funcs[i];
		const struct nf_dispatch *m;
		if (strcmp(f->base, p->op) != 0)
			continue;
		for (j = 0; j < f->ndispatch; j++)
			strv_add(&pv->names, lex_unqualified(f->dispatch[j].kernel));
		if ((m = nf_mps_dispatch(f)) && m->nkeys == 1)
			strv_add(&cand, lex_unqualified(m->kernel));
		if (f->overload[0])
			vf_old_names_spelled(p->op, f->overload, add_name, &cand);
	}
	for (i = 0; i < cand.n; i++)
		if (!still_named(p, cand.v[i]))
			strv_add(&pv->dead, cand.v[i]);
	strv_free(&cand);
}

/* ---- the plan ---- */

static void pick_out_row(struct mg_plan *p)
{
	size_t i;
	for (i = 0; i < p->fold.nrows && !p->out; i++) {
		const struct fold_row *r = &p->fold.rows[i];
		if ((r->action == FOLD_FOLD || r->action == FOLD_ADD) &&
		    r->f->kind == NF_OUT)
			p->out = r->f;
	}
	for (i = 0; i < p->nshared && !p->out; i++)
		p->out = p->shared[i];
	for (i = 0; i < p->fold.nrows && !p->out; i++) {
		const struct fold_row *r = &p->fold.rows[i];
		if (r->action == FOLD_FOLD || r->action == FOLD_ADD)
			p->out = r->f;
	}
}

/* the default the forward operator's schema gives scalar NAME, when OP
 * is X_backward (hardtanh's `Scalar min_val=-1`), else NULL (malloc'd) */
static char *forward_default(const struct mg_plan *p, const char *name)
{
	size_t i, n = strlen(p->op), nl = strlen(name);
	if (n <= 9 || strcmp(p->op + n - 9, "_backward") != 0)
		return NULL;
	for (i = 0; i < p->ix.nfuncs; i++) {
		const struct nf_func *f = &p->ix.funcs[i];
		const char *s;
		if (!f->schema || f->overload[0] || strlen(f->base) != n - 9 ||
		    strncmp(f->base, p->op, n - 9) != 0)
			continue;
		for (s = f->schema; (s = strstr(s, name)) != NULL; s += nl)
			if (s > f->schema && s[-1] == ' ' && s[nl] == '=') {
				size_t e = strcspn(s + nl + 1, ",)");
				return xstrndup(s + nl + 1, e);
			}
	}
	return NULL;
}

/* binary-params (mr_kind_params): the stub takes SIG's several Scalars
 * besides the iterator and the operator's schema reads two tensors and
 * as many scalars, named in the schema (hardtanh_backward: grad_output,
 * self; min_val, max_val).  Sets the kind, the fields and their try
 * values; 0, or -1 when the shape is another */
static int params_kind(struct mg_plan *p, const struct cs_signature *sig)
{
	struct nf_scalar sc[8];
	int nsc, i;
	size_t k;
	if (!p->out || !p->out->schema)
		return -1;
	for (k = 0; k < sig->nparams; k++)
		if (sig->params[k].kind != CS_PARAM_SCALAR)
			return -1;
	nsc = nf_schema_scalars(p->out->schema, sc, 8);
	if (nsc != (int)sig->nparams || nsc > 8 ||
	    p->out->ninputs != 2 + (unsigned)nsc)
		return -1;
	p->kind = MR_BINARY_PARAMS;
	p->fields = xcalloc((size_t)nsc, sizeof *p->fields);
	p->field_args = xcalloc((size_t)nsc, sizeof *p->field_args);
	for (i = 0; i < nsc; i++) {
		char *d = forward_default(p, sc[i].name);
		p->fields[p->nfields++] = xstrdup(sc[i].name);
		if (d)
			p->field_args[p->nfield_args++] = xasprintf("%s=%s", sc[i].name, d);
		free(d);
	}
	return 0;
}

static int plan_kind(struct mg_plan *p, const struct mg_opts *o)
{
	if (o->kind >= 0) {
		p->kind = o->kind;
		p->kind_given = 1;
		return 0;
	}
	p->kind = -1;
	if (!p->out) {
		not_planned(p, "kernel",
		            xstrdup("no row of the operator reaches MPS through a "
		                    "shared kernel: no kernel kind to read"));
		return -1;
	}
	{
		/* the returns: a kernel of the REGISTER_*_OP macros writes one
		 * output (log_sigmoid_forward, _prelu_kernel_backward return
		 * two) */
		const char *r = p->out->schema ? strstr(p->out->schema, "->") : NULL;
		unsigned nret = r ? 1 : 0;
		int depth = 0;
		for (; r && *r; r++) {
			if (*r == '(')
				depth++;
			else if (*r == ')')
				depth--;
			else if (*r == ',' && depth == 1)
				nret++;
		}
		if (nret > 1) {
			not_planned(p, "kernel",
			            xasprintf("%s returns %u tensors: the REGISTER_*_OP "
			                      "kernels write one output; write the "
			                      "kernel by hand (a functor per output, or "
			                      "one kernel writing both)",
			                      p->out->name, nret));
			return -1;
		}
	}
	if (p->out->ninputs >= 1 && p->out->ninputs <= 3)
		p->kind = mr_kind_of((int)p->out->ninputs, p->out->alpha);
	if (p->kind < 0 && p->nstubs == 1 && p->stubs_known) {
		/* the stub may take the Scalar operands as scalars: say how many
		 * (hardtanh_backward_stub: min_val and max_val) */
		const struct cs_model *m = cs_lazy_get(&p->cs);
		struct cs_signature sig;
		memset(&sig, 0, sizeof sig);
		if (m && m->have_sources &&
		    cs_stub_signature(m, p->stubs[0].name, &sig) == 0 &&
		    sig.iterator && sig.nparams > 1 && params_kind(p, &sig) == 0) {
			cs_signature_free(&sig);
			return 0;
		}
		if (m && m->have_sources && sig.found &&
		    sig.iterator && sig.nparams > 1) {
			not_planned(p, "kernel",
			            xasprintf("%s takes %zu scalars besides the iterator "
			                      "(%s, %s:%lu): the -alpha kinds carry one; "
			                      "write the kernel by hand (main passes "
			                      "several scalars as a struct through "
			                      "exec_*_kernel_with_params)",
			                      p->stubs[0].name, sig.nparams, sig.type,
			                      sig.at.file, sig.at.line));
			cs_signature_free(&sig);
			return -1;
		}
		cs_signature_free(&sig);
	}
	if (p->kind < 0) {
		not_planned(p, "kernel",
		            xasprintf("%s reads %u tensor or scalar inputs: not a "
		                      "unary, binary or ternary kernel; give --kind",
		                      p->out->name, p->out->ninputs));
		return -1;
	}
	return 0;
}

/* the row of the operator whose dispatch names the shared kernel that
 * reaches ST (lerp.Scalar_out for lerp_kernel_scalar_weight), or NULL */
static const struct nf_func *stub_row(const struct mg_plan *p,
                                      const struct mg_stub *st)
{
	size_t i, j;
	if (!st->by)
		return NULL;
	for (i = 0; i < p->ix.nfuncs; i++) {
		const struct nf_func *f = &p->ix.funcs[i];
		if (strcmp(f->base, p->op) != 0 || !f->schema)
			continue;
		for (j = 0; j < f->ndispatch; j++)
			if (!strcmp(lex_unqualified(f->dispatch[j].kernel), st->by))
				return f;
	}
	return NULL;
}

/* the kind of the kernel stub ST takes, when the operator reaches
 * several stubs (lerp: lerp_kernel_scalar_weight from lerp.Scalar_out,
 * binary-alpha; lerp_kernel_tensor_weight from lerp.Tensor_out,
 * ternary): the row whose kernel reaches it gives the inputs, the stub's
 * DECLARE_DISPATCH type the scalars it takes besides the iterator (a
 * positional Scalar operand the stub takes is no tensor); -1 when the
 * sources do not tell or the stub takes more than one scalar */
static int stub_kind(struct mg_plan *p, const struct mg_stub *st)
{
	const struct cs_model *m = cs_lazy_get(&p->cs);
	const struct nf_func *row = stub_row(p, st);
	struct cs_signature sig;
	struct nf_scalar sc[8];
	size_t i;
	int nsc, nop = 0, k = -1, tensors;
	if (!st->by || !m || !m->have_sources)
		return p->kind;
	if (!row)
		return p->kind;
	memset(&sig, 0, sizeof sig);
	if (cs_stub_signature(m, st->name, &sig) != 0 || !sig.iterator ||
	    sig.nparams > 1) {
		cs_signature_free(&sig);
		return -1;
	}
	nsc = nf_schema_scalars(row->schema, sc, 8);
	for (i = 0; i < (size_t)(nsc > 8 ? 8 : nsc); i++)
		nop += sc[i].operand;
	tensors = (int)row->ninputs - (sig.nparams == 1 && nop > 0 ? 1 : 0);
	k = mr_kind_of(tensors, sig.nparams == 1 || row->alpha);
	cs_signature_free(&sig);
	return k;
}

/* the --dtypes list of stub ST of kind K, when the operator reaches
 * several stubs: its CPU kernel's dtypes and the output rule of the
 * shared kernel that reaches it (its meta function, else its iterator),
 * as plan_dtypes derives them for one stub ("float:float,half:half");
 * NULL when the sources do not decide them (malloc'd) */
static char *stub_dtypes(struct mg_plan *p, const struct mg_stub *st, int k)
{
	const struct cs_model *m = cs_lazy_get(&p->cs);
	struct cs_dtypes cpu;
	struct cs_outrule rule;
	struct mr_pair pairs[MR_MAX_PAIRS];
	unsigned check = 0;
	int n = -1, i;
	char *r = NULL;
	if (!m || !m->have_sources || !st->by)
		return NULL;
	memset(&cpu, 0, sizeof cpu);
	memset(&rule, 0, sizeof rule);
	cs_cpu_dtypes(m, st->name, &cpu);
	cs_output_rule(m, p->op, st->by, &rule);
	if (!rule.meta) {
		struct cs_iterrule it;
		memset(&it, 0, sizeof it);
		cs_iter_rule(m, st->by, st->name, &it);
		if (it.rule != CS_RULE_UNKNOWN)
			rule.rule = it.rule;
		cs_iterrule_free(&it);
	}
	if (cpu.found)
		n = mg_derive_pairs(k, cpu.types, rule.rule, rule.before_stub,
		                    rule.rejects, pairs, &check);
	if (n > 0) {
		struct buf b;
		buf_init(&b);
		for (i = 0; i < n; i++)
			buf_printf(&b, "%s%s:%s", i ? "," : "", pairs[i].in, pairs[i].out);
		r = b.data;
	}
	cs_dtypes_free(&cpu);
	cs_outrule_free(&rule);
	return r;
}

static void plan_stub(struct mg_plan *p)
{
	struct priv *pv = p->priv;
	size_t i;
	if (!p->stubs_known) {
		pv->stub_default = xasprintf("%s_stub", p->name);
		p->stub = pv->stub_default;
		return;
	}
	if (p->nstubs == 1) {
		p->stub = p->stubs[0].name;
		return;
	}
	if (p->nstubs == 0) {
		not_planned(p, "stub",
		            xasprintf("the shared kernel%s of %s reach%s no stub "
		                      "(it calls other operators only): there is no "
		                      "Metal kernel to register",
		                      "", p->op, "es"));
		return;
	}
	{
		struct buf b;
		buf_init(&b);
		for (i = 0; i < p->nstubs; i++)
			buf_printf(&b, "%s%s", i ? ", " : "", p->stubs[i].name);
		not_planned(p, "stub",
		            xasprintf("the shared kernels of %s reach %zu stubs (%s): "
		                      "one kernel NAME each", p->op, p->nstubs, b.data));
		for (i = 0; i < p->nstubs; i++) {
			/* the NAME the stub suggests: div_true_stub -> div_true */
			const char *st = p->stubs[i].name;
			size_t n = strlen(st);
			int suffix = n > 5 && strcmp(st + n - 5, "_stub") == 0;
			int k = stub_kind(p, &p->stubs[i]);
			char *dts = k >= 0 ? stub_dtypes(p, &p->stubs[i], k) : NULL;
			left(p, "stub",
			     xasprintf("register %s: mps-register %s %.*s --stub %s "
			               "--dtypes %s --functor --host",
			               st, k >= 0 ? mr_kind_name(k) : "KIND",
			               (int)(suffix ? n - 5 : n), st, st,
			               dts ? dts : "..."),
			     NULL, 0);
			free(dts);
		}
		buf_free(&b);
	}
}

/* ---- several stubs, a kernel each ---- */

/* the kernel NAME of stub ST of kind K in a plan of several stubs: the
 * stub's name without _stub (div_true_stub -> div_true, as main names
 * div's kernels), else the operator's, with _alpha for a kind carrying a
 * scalar (lerp_kernel_scalar_weight -> lerp_alpha, as main names the
 * Scalar-weight kernel of lerp; lerp_kernel_tensor_weight -> lerp) */
static char *stub_kernel_name(const struct mg_plan *p, const char *st, int k)
{
	size_t n = strlen(st);
	if (n > 5 && strcmp(st + n - 5, "_stub") == 0)
		return xasprintf("%.*s", (int)(n - 5), st);
	return xasprintf("%s%s", p->op, mr_kind_alpha(k) ? "_alpha" : "");
}

/* 1 when the operator's stubs are planned a kernel each: several stubs,
 * known from the sources, each reached from a row of the operator and of
 * a kind stub_kind reads, and nothing given that names one kernel
 * (--kind, --name; --dtypes filters each kernel's dtypes, plan_dtypes) */
static int per_stub(struct mg_plan *p, const struct mg_opts *o)
{
	size_t i;
	if (!p->stubs_known || p->nstubs < 2 || o->kind >= 0 || o->name)
		return 0;
	for (i = 0; i < p->nstubs; i++)
		if (!stub_row(p, &p->stubs[i]) || stub_kind(p, &p->stubs[i]) < 0)
			return 0;
	return 1;
}

/* the fields of one stub's kernel, copied from SRC to DST (pointers
 * shared: the caller says which of the two owns them), name_from
 * through both privs */
static void kernel_copy(struct mg_plan *dst, const struct mg_plan *src)
{
	dst->out = src->out;
	dst->kind = src->kind;
	dst->kind_given = src->kind_given;
	dst->name = src->name;
	dst->have_sig = src->have_sig;
	dst->sig = src->sig;
	dst->alpha = src->alpha;
	dst->scalar_name = src->scalar_name;
	dst->scalar_decl = src->scalar_decl;
	dst->scalar_pass = src->scalar_pass;
	dst->scalar_dtype = src->scalar_dtype;
	dst->scalar_from = src->scalar_from;
	dst->scalar_none = src->scalar_none;
	dst->fields = src->fields;
	dst->nfields = src->nfields;
	dst->field_args = src->field_args;
	dst->nfield_args = src->nfield_args;
	dst->params_rel = src->params_rel;
	dst->stub = src->stub;
	dst->dtsource = src->dtsource;
	dst->have_cpu = src->have_cpu;
	dst->have_rule = src->have_rule;
	dst->cpu = src->cpu;
	dst->rule = src->rule;
	dst->have_iter = src->have_iter;
	dst->iter = src->iter;
	dst->cond_input = src->cond_input;
	dst->cond_at = src->cond_at;
	memcpy(dst->pairs, src->pairs, sizeof dst->pairs);
	dst->npairs = src->npairs;
	memcpy(dst->given_out, src->given_out, sizeof dst->given_out);
	dst->ngiven_out = src->ngiven_out;
	dst->dropped = src->dropped;
	dst->check = src->check;
	dst->opmath = src->opmath;
	dst->have_opmath = src->have_opmath;
	dst->om = src->om;
	dst->math = src->math;
	dst->rg_ok = src->rg_ok;
	dst->try_why = src->try_why;
	dst->rg = src->rg;
	dst->kernel_rel = src->kernel_rel;
	dst->host_rel = src->host_rel;
	((struct priv *)dst->priv)->name_from =
	    src->priv ? ((struct priv *)src->priv)->name_from : NULL;
}

/* Q: the plan P with the kernel of record R in place of its own, for the
 * writers (QPV: the private part it points to; nothing of it is owned) */
static void with_kernel(struct mg_plan *q, struct priv *qpv,
                        const struct mg_plan *p, const struct mg_plan *r)
{
	*q = *p;
	*qpv = *(struct priv *)p->priv;
	q->priv = qpv;
	kernel_copy(q, r);
}

/* free the kernel's fields of P (the stub's name is the stubs') */
static void kernel_free(struct mg_plan *p)
{
	if (p->have_cpu)
		cs_dtypes_free(&p->cpu);
	if (p->have_rule)
		cs_outrule_free(&p->rule);
	if (p->have_iter)
		cs_iterrule_free(&p->iter);
	if (p->have_opmath)
		cs_opmath_free(&p->om);
	if (p->have_sig)
		cs_signature_free(&p->sig);
	free(p->scalar_name);
	free(p->scalar_decl);
	free(p->scalar_pass);
	free(p->scalar_dtype);
	free(p->scalar_from);
	free(p->scalar_none);
	lex_strv_free(p->fields, p->nfields);
	lex_strv_free(p->field_args, p->nfield_args);
	free(p->params_rel);
	free(p->cond_at);
	tr_plan_free(&p->math);
	rg_plan_free(&p->rg);
	free(p->name);
	if (p->priv) {
		free(((struct priv *)p->priv)->name_from);
		((struct priv *)p->priv)->name_from = NULL;
	}
}

/* the Metal type of a schema scalar: float -> float, int and SymInt ->
 * long, Scalar -> NULL (the input's dtype: the host's default, the
 * iterator's common dtype) */
static const char *scalar_metal(const struct nf_scalar *s)
{
	if (strcmp(s->type, "float") == 0)
		return intern("float");
	if (strcmp(s->type, "int") == 0 || strcmp(s->type, "SymInt") == 0)
		return intern("long");
	return NULL;
}

/* The scalar of an -alpha kind: how many scalars the planned stub's
 * kernel takes besides the iterator (its DECLARE_DISPATCH type; the
 * schema's scalars when the sources cannot tell), which schema argument
 * it is, its Metal type, and the host stub's parameter and call.  May
 * turn a unary or binary kind read from the schema into its -alpha kind
 * (logit's float? eps, round's int decimals, leaky_relu's Scalar), or
 * give up on the kind when the stub takes more than one scalar. */
static void plan_scalar(struct mg_plan *p)
{
	const struct cs_model *m;
	struct nf_scalar sc[8];
	int nsc = -1, i, nop = 0, nother = 0, pick = -1;
	unsigned tensors;
	size_t nparams = 0;
	const struct cs_param *par = NULL;
	const char *metal = NULL;
	if (p->kind_given || p->kind < 0 || !p->out || !p->out->schema ||
	    !p->stub || mr_kind_params(p->kind))
		return;
	nsc = nf_schema_scalars(p->out->schema, sc, 8);
	if (nsc > 8)
		nsc = 8;
	for (i = 0; i < nsc; i++) {
		if (sc[i].operand)
			nop++;
		else
			nother++;
	}
	tensors = p->out->ninputs - (unsigned)nop;
	m = p->stub && p->stubs_known ? cs_lazy_get(&p->cs) : NULL;
	if (m && m->have_sources && cs_stub_signature(m, p->stub, &p->sig) == 0 &&
	    !p->sig.iterator) {
		not_planned(p, "kernel",
		            xasprintf("%s's kernel takes no TensorIterator (%s, %s:%lu): "
		                      "not an elementwise kernel the REGISTER_*_OP "
		                      "macros make", p->stub, p->sig.type,
		                      p->sig.at.file, p->sig.at.line));
		cs_signature_free(&p->sig);
		p->kind = -1;
		return;
	}
	if (m && m->have_sources && !p->sig.found) {
		cs_signature_free(&p->sig);
		m = NULL; /* undeclared: the schema's scalars */
	}
	if (m && m->have_sources) {
		size_t k;
		p->have_sig = 1;
		nparams = p->sig.nparams;
		for (k = 0; k < nparams; k++)
			if (p->sig.params[k].kind == CS_PARAM_OTHER ||
			    p->sig.params[k].kind == CS_PARAM_BOOL ||
			    p->sig.params[k].kind == CS_PARAM_OPT_DOUBLE ||
			    p->sig.params[k].kind == CS_PARAM_OPT_INT) {
				not_planned(p, "kernel",
				            xasprintf("%s takes %s besides the iterator (%s, "
				                      "%s:%lu): no REGISTER_*_OP macro passes "
				                      "that; write the kernel by hand, or give "
				                      "--kind",
				                      p->stub, p->sig.params[k].type,
				                      p->sig.type, p->sig.at.file,
				                      p->sig.at.line));
				p->kind = -1;
				return;
			}
		if (nparams == 0) {
			/* the Scalar operands are tensors to the iterator: kind as
			 * read from the schema */
			if (mr_kind_alpha(p->kind) && p->out->alpha) {
				not_planned(p, "kernel",
				            xasprintf("%s takes no scalar besides the "
				                      "iterator (%s, %s:%lu), though %s has "
				                      "alpha; give --kind", p->stub,
				                      p->sig.type, p->sig.at.file,
				                      p->sig.at.line, p->out->name));
				p->kind = -1;
			}
			return;
		}
		if (nparams > 1) {
			not_planned(p, "kernel",
			            xasprintf("%s takes %zu scalars besides the iterator "
			                      "(%s, %s:%lu): the -alpha macros carry one; "
			                      "write the kernel by hand, or give --kind",
			                      p->stub, nparams, p->sig.type,
			                      p->sig.at.file, p->sig.at.line));
			p->kind = -1;
			return;
		}
		par = &p->sig.params[0];
	} else {
		/* no sources: the schema's own scalars */
		if (nother == 0)
			return;
		if (nother > 1) {
			not_planned(p, "kernel",
			            xasprintf("%s has %d scalar arguments besides its "
			                      "tensors: the -alpha macros carry one; give "
			                      "--kind", p->out->name, nother));
			p->kind = -1;
			return;
		}
	}
	/* which schema argument it is: the one that is not an operand, else
	 * the one named alpha, else the only operand */
	for (i = 0; i < nsc && pick < 0; i++)
		if (!sc[i].operand && nother == 1)
			pick = i;
	for (i = 0; i < nsc && pick < 0; i++)
		if (strcmp(sc[i].name, "alpha") == 0)
			pick = i;
	if (pick < 0 && nop == 1 && par)
		for (i = 0; i < nsc && pick < 0; i++)
			if (sc[i].operand)
				pick = i;
	if (par && pick >= 0 && sc[pick].operand)
		tensors = p->out->ninputs - 1; /* the stub takes it as a scalar */
	else if (par && pick < 0)
		tensors = p->out->ninputs - (unsigned)nop;
	if (tensors >= 1 && tensors <= 3)
		p->kind = mr_kind_of((int)tensors, 1);
	else {
		not_planned(p, "kernel",
		            xasprintf("%s reads %u tensors and a scalar: not a unary, "
		                      "binary or ternary kernel; give --kind",
		                      p->out->name, tensors));
		p->kind = -1;
		return;
	}
	/* its Metal type: the stub's parameter type, else the schema's */
	if (par && par->kind == CS_PARAM_INT)
		metal = intern("long");
	else if (par && par->kind == CS_PARAM_DOUBLE)
		metal = intern("float");
	else if (pick >= 0)
		metal = scalar_metal(&sc[pick]);
	p->alpha = metal;
	free(p->scalar_name);
	p->scalar_name = xstrdup(pick >= 0 ? sc[pick].name
	                         : par && par->name ? par->name : "alpha");
	if (par && (par->kind == CS_PARAM_INT || par->kind == CS_PARAM_DOUBLE)) {
		p->scalar_decl = xasprintf("%s %s", par->kind == CS_PARAM_INT
		                                        ? "int64_t" : "double",
		                           p->scalar_name);
		p->scalar_pass = xasprintf("Scalar(%s)", p->scalar_name);
	} else {
		p->scalar_decl = xasprintf("const Scalar& %s", p->scalar_name);
		p->scalar_pass = xstrdup(p->scalar_name);
	}
	p->scalar_dtype = !metal ? NULL
	                  : metal == intern("long") ? xstrdup("ScalarType::Long")
	                                            : xstrdup("ScalarType::Float");
	if (pick >= 0 && sc[pick].optional && m && m->have_sources) {
		/* its None: what the shared kernel passes the stub instead */
		struct cs_iterrule ir;
		const char *k = out_kernel(p);
		cs_iter_rule(m, k, p->stub, &ir);
		if (ir.stub_args)
			p->scalar_none = xasprintf("%s at %s:%lu", ir.stub_args,
			                           ir.stub_at.file, ir.stub_at.line);
		cs_iterrule_free(&ir);
	}
	{
		struct buf b;
		buf_init(&b);
		if (pick >= 0)
			buf_printf(&b, "%s%s %s in the schema", sc[pick].type,
			           sc[pick].optional ? "?" : "", sc[pick].name);
		if (par)
			buf_printf(&b, "%s%s in the type of %s (%s:%lu)", b.len ? ", " : "",
			           par->type, p->stub, p->sig.at.file, p->sig.at.line);
		p->scalar_from = b.data;
	}
}

/* the alpha of the registrations: the scalar's Metal type when it has
 * one of its own */
static void set_alpha(struct mg_plan *p)
{
	size_t i;
	if (!mr_kind_alpha(p->kind) || !p->alpha)
		return;
	for (i = 0; i < p->npairs; i++)
		p->pairs[i].alpha = p->alpha;
}

/* a condition input: the tensor input every lambda of STUB's CUDA
 * kernel takes as bool while the others are the dispatched type
 * (where_kernel: bool cond_val, scalar_t self_val, scalar_t other_val);
 * sets p->cond_input and p->cond_at */
static void find_cond_input(struct mg_plan *p)
{
	struct ck_kernel k;
	size_t i, j;
	int at = 0;
	memset(&k, 0, sizeof k);
	if (ck_cuda_kernel(p->root, p->stub, &k) != 0 || k.nlambdas == 0) {
		ck_kernel_free(&k);
		return;
	}
	for (i = 0; i < k.nlambdas && at >= 0; i++) {
		const struct ck_code *c = &k.lambdas[i].code;
		int here = 0;
		if (c->nparams < 2) {
			at = -1;
			break;
		}
		for (j = 0; j < c->nparams; j++) {
			const char *t = c->params[j].type;
			if (ck_type_is(t, "bool")) {
				if (here) {
					here = -1;
					break;
				}
				here = (int)j + 1;
			} else if (!ck_type_is(t, "scalar_t")) {
				here = -1;
				break;
			}
		}
		if (here <= 0 || (at && here != at))
			at = -1;
		else
			at = here;
	}
	if (at > 0) {
		p->cond_input = at;
		p->cond_at = xasprintf("%s:%lu", k.lambdas[0].code.file,
		                       k.lambdas[0].code.line);
	}
	ck_kernel_free(&k);
}

/* the host check of P's pairs, when the meta function or the iterator
 * tells what reaches the stub */
static void check_of_pairs(struct mg_plan *p)
{
	if (p->have_rule && (p->rule.meta || p->rule.rule != CS_RULE_UNKNOWN))
		p->check = mg_check_of(p->pairs, p->npairs, p->rule.before_stub,
		                       p->rule.rejects);
}

/* --dtypes LIST as P's pairs (one stub: instead of the CPU kernel's);
 * -1 when mr_parse_dtypes refuses it (said) */
static int given_dtypes(struct mg_plan *p, const char *list)
{
	char *err = NULL;
	int n = mr_parse_dtypes(list, p->kind >= 0 ? p->kind : MR_UNARY, p->pairs,
	                        &err);
	if (n < 0) {
		warnx_("error: --dtypes: %s", err);
		free(err);
		return -1;
	}
	p->npairs = (size_t)n;
	p->dtsource = MG_DT_GIVEN;
	{
		/* IN:OUT items: the scalar keeps its own type */
		const char *c = list;
		int three = 0, colons = 0;
		for (; *c; c++) {
			if (*c == ':')
				colons++;
			else if (*c == ',')
				colons = 0;
			if (colons == 2)
				three = 1;
		}
		if (!three)
			set_alpha(p);
	}
	check_of_pairs(p);
	return 0;
}

/* the items of --dtypes LIST, one by one: item i (of at most
 * MR_MAX_PAIRS) parsed alone as for an alpha kind (so that IN:ALPHA:OUT
 * reads for every kernel; the alpha is compared only where given), with
 * the count of its ':' */
struct given_item {
	struct mr_pair pair;
	int colons;
	char *text;                  /* the item as written, trimmed (owned) */
};

static size_t given_items(const char *list, struct given_item *it)
{
	const char *s = list;
	size_t n = 0;
	while (n < MR_MAX_PAIRS) {
		const char *e = strchr(s, ','), *a, *z;
		struct mr_pair one[MR_MAX_PAIRS];
		char *err = NULL, *t;
		size_t len = e ? (size_t)(e - s) : strlen(s);
		for (a = s; a < s + len && isspace((unsigned char)*a); a++)
			;
		for (z = s + len; z > a && isspace((unsigned char)z[-1]); z--)
			;
		t = xstrndup(a, (size_t)(z - a));
		if (mr_parse_dtypes(t, MR_BINARY_ALPHA, one, &err) == 1) {
			const char *c;
			it[n].pair = one[0];
			it[n].colons = 0;
			for (c = t; *c; c++)
				it[n].colons += *c == ':';
			it[n++].text = t;
		} else {
			free(t); /* the whole list was parsed before: not reached */
		}
		free(err);
		if (!e)
			break;
		s = e + 1;
	}
	return n;
}

static void given_items_free(struct given_item *it, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		free(it[i].text);
}

/* item G keeps pair D: the same input, and the same output (and alpha)
 * when G names them */
static int given_keeps(const struct given_item *g, const struct mr_pair *d)
{
	if (strcmp(g->pair.in, d->in) != 0)
		return 0;
	if (g->colons >= 1 && strcmp(g->pair.out, d->out) != 0)
		return 0;
	if (g->colons >= 2 && d->alpha && strcmp(g->pair.alpha, d->alpha) != 0)
		return 0;
	return 1;
}

/* several stubs: --dtypes LIST filters the pairs P's kernel derived
 * from its CPU kernel (issue #28): the pairs some item keeps stay,
 * the others go to p->given_out; the items that kept one are marked in
 * the plan's priv dt_used.  -1 when mr_parse_dtypes refuses the list
 * (said, as for one stub) */
static int given_filter(struct mg_plan *p, const char *list)
{
	struct mr_pair all[MR_MAX_PAIRS];
	struct given_item items[MR_MAX_PAIRS];
	struct priv *pv = p->priv;
	size_t ni, i, j, n = 0;
	char *err = NULL;
	if (mr_parse_dtypes(list, MR_BINARY_ALPHA, all, &err) < 0) {
		warnx_("error: --dtypes: %s", err);
		free(err);
		return -1;
	}
	ni = given_items(list, items);
	p->ngiven_out = 0;
	for (i = 0; i < p->npairs; i++) {
		int keep = 0;
		for (j = 0; j < ni; j++)
			if (given_keeps(&items[j], &p->pairs[i])) {
				keep = 1;
				pv->dt_used |= 1ULL << j;
			}
		if (keep)
			p->pairs[n++] = p->pairs[i];
		else
			p->given_out[p->ngiven_out++] = p->pairs[i];
	}
	p->npairs = n;
	given_items_free(items, ni);
	check_of_pairs(p);
	return 0;
}

/* several stubs, output dtypes not decided: the pairs given (already
 * P's) whose input the stub's CPU kernel handles; the items kept marked
 * as given_filter does */
static void given_within_cpu(struct mg_plan *p, const char *list)
{
	struct given_item items[MR_MAX_PAIRS];
	struct priv *pv = p->priv;
	size_t ni = given_items(list, items), i, j, n = 0;
	int d;
	p->ngiven_out = 0;
	for (i = 0; i < p->npairs; i++) {
		int has = 0;
		for (d = 0; d < CS_NDTYPES && !has; d++)
			has = (p->cpu.types & CS_BIT(d)) && metal_of(d) &&
			      !strcmp(metal_of(d), p->pairs[i].in);
		if (!has) {
			p->given_out[p->ngiven_out++] = p->pairs[i];
			continue;
		}
		for (j = 0; j < ni; j++)
			if (!strcmp(items[j].pair.in, p->pairs[i].in))
				pv->dt_used |= 1ULL << j;
		p->pairs[n++] = p->pairs[i];
	}
	p->npairs = n;
	p->dtsource = MG_DT_GIVEN_CPU;
	given_items_free(items, ni);
	check_of_pairs(p);
}

static int plan_dtypes(struct mg_plan *p, const struct mg_opts *o)
{
	const struct cs_model *m = cs_lazy_get(&p->cs);
	const char *kernel = out_kernel(p);
	int sources = m && m->have_sources;
	if (sources && p->stub && p->stubs_known) {
		/* a kernel per stub: the meta function of the stub's own
		 * overload (lerp.Tensor for lerp.Tensor_out) */
		const char *ov = p->kernels && p->out ? p->out->overload : "";
		size_t n = strlen(ov);
		char *op = !*ov ? xstrdup(p->op)
		           : xasprintf("%s.%.*s", p->op,
		                       (int)(n > 4 && !strcmp(ov + n - 4, "_out") ? n - 4 : n), ov);
		p->have_cpu = 1;
		cs_cpu_dtypes(m, p->stub, &p->cpu);
		p->have_rule = 1;
		cs_output_rule(m, op, kernel, &p->rule);
		if (!p->rule.meta && strcmp(op, p->op) != 0) {
			/* none of its own: the operator's (div.out: div's) */
			cs_outrule_free(&p->rule);
			memset(&p->rule, 0, sizeof p->rule);
			cs_output_rule(m, p->op, kernel, &p->rule);
		}
		free(op);
		if (!p->rule.meta && kernel) {
			/* not structured: the iterator the shared kernel builds */
			p->have_iter = 1;
			cs_iter_rule(m, kernel, p->stub, &p->iter);
			if (p->iter.rule != CS_RULE_UNKNOWN)
				p->rule.rule = p->iter.rule;
			if (p->iter.rule == CS_RULE_MIXED && p->kind >= 0 &&
			    mr_kind_arity(p->kind) == 3) {
				/* mixed by a bool condition only (where): the output
				 * is the other inputs' dtype */
				find_cond_input(p);
				if (p->cond_input)
					p->rule.rule = CS_RULE_SAME;
			}
		}
	}
	if (o->dtypes && !p->kernels)
		return given_dtypes(p, o->dtypes);
	if (!p->stub || p->kind < 0)
		return 0;
	if (o->dtypes && sources && p->stubs_known && !p->cpu.found) {
		/* a kernel of several whose CPU dtypes cannot be read: the
		 * list as given, every item kept */
		if (given_dtypes(p, o->dtypes) != 0)
			return -1;
		((struct priv *)p->priv)->dt_used = ~0ULL;
		return 0;
	}
	if (!sources) {
		not_planned(p, "dtypes",
		            xasprintf("this tree has no C++ sources under %s to read "
		                      "the CPU kernel of %s from; give --dtypes",
		                      CS_NATIVE_REL, p->stub));
		return 0;
	}
	if (!p->stubs_known) {
		not_planned(p, "dtypes",
		            xasprintf("the C++ sources do not tell which stub the "
		                      "shared kernel %s reaches (assumed %s); give "
		                      "--dtypes",
		                      kernel ? kernel : "?", p->stub));
		return 0;
	}
	if (!p->cpu.found) {
		not_planned(p, "dtypes",
		            xasprintf("the CPU kernel of %s cannot be read: %s; give "
		                      "--dtypes",
		                      p->stub, p->cpu.why ? p->cpu.why : "?"));
		return 0;
	}
	{
		int n = mg_derive_pairs(p->kind, p->cpu.types, p->rule.rule,
		                        p->rule.before_stub, p->rule.rejects, p->pairs,
		                        &p->check);
		int d;
		for (d = 0; d < CS_NDTYPES; d++)
			if ((p->cpu.types & CS_BIT(d)) && !metal_of(d))
				p->dropped |= CS_BIT(d);
		if (n < 0 && o->dtypes) {
			/* a kernel of several whose output dtype the sources do
			 * not decide (div's): the given pairs whose input the CPU
			 * kernel handles */
			if (given_dtypes(p, o->dtypes) != 0)
				return -1;
			given_within_cpu(p, o->dtypes);
			return 0;
		}
		if (n < 0) {
			char *names = cs_dtset_names(p->cpu.types, ", ");
			not_planned(p, "dtypes",
			            xasprintf("the CPU kernel handles %s, but the output "
			                      "dtype is not decided by a structured meta "
			                      "function (%s)%s%s; give --dtypes IN:OUT,...",
			                      names, p->rule.why ? p->rule.why
			                                         : cs_rule_name(p->rule.rule),
			                      p->have_iter ? ", nor by an iterator: " : "",
			                      p->have_iter ? p->iter.why : ""));
			free(names);
			return 0;
		}
		if (n == 0) {
			not_planned(p, "dtypes",
			            xasprintf("none of the dtypes of the CPU kernel of %s "
			                      "has a Metal type; give --dtypes", p->stub));
			return 0;
		}
		p->npairs = (size_t)n;
		p->dtsource = MG_DT_CPU;
		set_alpha(p);
		if (o->dtypes && given_filter(p, o->dtypes) != 0)
			return -1;
	}
	if (mr_kind_opmath_macro(p->kind)) {
		/* REGISTER_OPMATH_BINARY_OP (and the ternary ones) when the CPU
		 * kernel computes half and bfloat in float */
		p->have_opmath = 1;
		cs_cpu_opmath(m, p->stub, &p->om);
		p->opmath = p->om.opmath;
	}
	return 0;
}

/* join the messages of a regplan refusal whose rule id is one of IDS */
static char *rg_reasons(const struct rg_plan *rg, const char *const *ids)
{
	struct buf b;
	size_t i, k;
	buf_init(&b);
	for (i = 0; i < rg->nmsgs; i++) {
		int hit = 0;
		if (!rg->msgs[i].error)
			continue;
		for (k = 0; ids[k] && !hit; k++)
			hit = strstr(rg->msgs[i].text, ids[k]) != NULL;
		if (hit)
			buf_printf(&b, "%s%s", b.len ? "; " : "", rg->msgs[i].text);
	}
	if (b.len == 0) {
		buf_free(&b);
		return NULL;
	}
	return b.data;
}

static int same_bytes(const struct edit_file *f, const struct hs_file *h)
{
	return f->oldlen == h->len && memcmp(f->old, h->text, h->len) == 0;
}

/* the current text of REL in the change: the new bytes when the plan
 * changed it already, else the old ones */
static void current(struct edit_file *f, struct rg_file *rf)
{
	rf->display = f->display;
	rf->text = f->new ? f->new : f->old;
	rf->len = f->new ? f->newlen : f->oldlen;
}

/* the kernel file has a functor of NAME already (hostscan's functors) */
static int functor_known(const struct mg_plan *p)
{
	size_t i;
	for (i = 0; i < p->hm.nfunctors; i++) {
		const struct hs_functor *fu = &p->hm.functors[i];
		if (strcmp(fu->kernel, p->name) == 0 &&
		    strcmp(p->hm.files[fu->at.file].rel, p->kernel_rel) == 0)
			return 1;
	}
	return 0;
}

/* the new functor's item, or NULL */
static const struct rg_item *new_functor(const struct mg_plan *p)
{
	size_t i;
	if (!p->rg_ok)
		return NULL;
	for (i = 0; i < p->rg.nitems; i++) {
		const struct rg_item *it = &p->rg.items[i];
		if (it->what == RG_FUNCTOR && !it->present && it->text)
			return it;
	}
	return NULL;
}

/* the class of a registration's input dtype, as rg_overloads sorts them */
static int cls_of(const char *in, int split_bool)
{
	if (is_complex_tok(in))
		return RG_CLS_COMPLEX;
	if (is_float_tok(in))
		return RG_CLS_FLOAT;
	if (!strcmp(in, "bool") && split_bool)
		return RG_CLS_BOOL;
	return RG_CLS_INTEGRAL;
}

/* " --kernel NAME" for the mps-try line when the kernel is not named
 * as the operator */
static const char *try_kernel_opt(const struct mg_plan *p)
{
	return strcmp(p->op, p->name) ? " --kernel " : "";
}

static const char *try_kernel_arg(const struct mg_plan *p)
{
	return strcmp(p->op, p->name) ? p->name : "";
}

/* 1 when the compiler's message MSG ("FILE:LINE:COL: error: ...") is at a
 * line of the new functor in the planned kernel file: the translation's
 * own error, not the file's or a header's */
static int in_functor(const struct mg_plan *p, const char *msg)
{
	const struct rg_item *it = new_functor(p);
	size_t l = strlen(p->kernel_rel);
	unsigned long line, first, n = 0;
	const char *c;
	if (!it || !it->text || !msg || strncmp(msg, p->kernel_rel, l) != 0 ||
	    msg[l] != ':')
		return 0;
	line = strtoul(msg + l + 1, NULL, 10);
	for (c = it->text; *c; c++)
		n += *c == '\n';
	/* it->line is the first non-blank inserted line; the text may start
	 * with blank lines */
	first = it->line > 2 ? it->line - 2 : 1;
	return line >= first && line <= it->line + n;
}

/* mps-try (check/try.h) on the planned kernel file KT: a verdict for each
 * translated overload of p->math (tr_plan_verdict).  *MISMATCH: 1 when one
 * does not match (or does not compile): the caller plans the functor
 * again, with that overload left as a comment.  A try that cannot be
 * planned or run is a note, never an error of the migration. */
static void try_math(struct mg_plan *p, const struct try_env *env,
                     const char *kt, size_t klen, int *mismatch)
{
	struct try_opts to;
	struct try_plan tp;
	struct try_outcome out;
	size_t i, k;
	*mismatch = 0;
	memset(&to, 0, sizeof to);
	to.root = p->root;
	to.op = p->op;
	to.kernel = p->name;
	to.text_rel = p->kernel_rel;
	to.text = kt;
	to.text_len = klen;
	to.bool_input = p->cond_input;
	if (mr_kind_params(p->kind)) {
		struct edit_file *pf = p->params_rel ? find_loaded(p, p->params_rel) : NULL;
		to.args = p->field_args;
		to.nargs = p->nfield_args;
		if (pf) {
			to.hdr_rel = p->params_rel;
			to.hdr_text = pf->new ? pf->new : pf->old;
			to.hdr_len = pf->new ? pf->newlen : pf->oldlen;
		}
	}
	if (try_plan_build(&tp, &to) != 0) {
		try_plan_free(&tp);
		left(p, "functor",
		     xasprintf("the translated math of %s_functor was not tried (see "
		               "the error above): run mps-try %s%s%s", p->name, p->op,
		               try_kernel_opt(p), try_kernel_arg(p)),
		     NULL, 0);
		return;
	}
	if (try_run(&tp, env, &out) != 0) {
		try_plan_free(&tp);
		return;
	}
	for (i = 0; i < p->math.nov; i++) {
		struct tr_overload *o = &p->math.ov[i];
		size_t compared = 0, ncases = 0, nround = 0, nbeyond = 0;
		double round_rel = 0;
		const struct try_result *bad = NULL, *nocomp = NULL, *notcmp = NULL;
		const char *bad_in = NULL;
		struct buf dts, kvs;
		char *kdiff = NULL;
		if (!o->translated || o->verdict != TR_VERDICT_NONE)
			continue;
		buf_init(&dts);
		buf_init(&kvs);
		for (k = 0; k < tp.ncases; k++) {
			const struct try_reg *r = &tp.regs[tp.cases[k].reg];
			const struct try_result *res = &out.res[k];
			size_t q;
			if (cls_of(r->in, p->math.math.split_bool) != o->cls)
				continue;
			ncases++;
			if (!strstr(dts.data ? dts.data : "", r->in))
				buf_printf(&dts, "%s%s", dts.len ? ", " : "", r->in);
			/* the kernels the registrations instantiate that ran (their
			 * variants, read from the macro), and one that disagreed
			 * with the first */
			for (q = 0; q < r->nrun && res->nkernels; q++) {
				const char *v = r->kernels[r->run[q]].variant;
				char *w = xasprintf(",%s,", v);
				char *have = xasprintf(",%s,", kvs.data ? kvs.data : "");
				if (!strstr(have, w))
					buf_printf(&kvs, "%s%s", kvs.len ? "," : "", v);
				free(w);
				free(have);
			}
			for (q = 1; q < res->nkernels && !kdiff; q++)
				if (res->kdiffer[q] > 0)
					kdiff = xasprintf("%s: kernel %s gives other bytes than %s "
					                  "on %ld values", r->in, res->kernels[q],
					                  res->kernels[0], res->kdiffer[q]);
			if (!res->compiled && !nocomp)
				nocomp = res;
			else if (res->verdict == 1 && !bad &&
			         (res->gross > 0 || res->mismatches * 100 > res->compared)) {
				bad = res;
				bad_in = r->in;
			} else if (res->verdict == 1) {
				/* rounding only: few values, none far off */
				nround += res->mismatches;
				if (res->max_rel > round_rel)
					round_rel = res->max_rel;
			} else if (res->verdict == 2 && !notcmp)
				notcmp = res;
			compared += res->compared;
			nbeyond += res->beyond;
		}
		if (ncases == 0) {
			buf_free(&dts);
			buf_free(&kvs);
			free(kdiff);
			continue;
		}
		if (kvs.len) {
			/* "float, half; mps-try ran dense_scalar, dense" */
			char *c;
			for (c = kvs.data; *c; c++)
				if (*c == ',')
					*c = '\x1f';
			buf_puts(&dts, "; mps-try ran ");
			for (c = kvs.data; *c; c++)
				if (*c == '\x1f')
					buf_puts(&dts, ", ");
				else
					buf_add(&dts, c, 1);
		} else {
			buf_puts(&dts, "; mps-try");
		}
		if (nocomp && in_functor(p, nocomp->compile_msg)) {
			char *t = xasprintf("does not compile on the host: %s",
			                    nocomp->compile_msg);
			char *nl = strchr(t, '\n');
			if (nl)
				*nl = '\0';
			tr_plan_verdict(&p->math, i, TR_VERDICT_MISMATCH, t);
			free(t);
			*mismatch = 1;
		} else if (nocomp) {
			/* the file or a header fails elsewhere: the math is not tried */
			char *t = xasprintf("not tried: the kernel file does not compile on "
			                    "the host (%s)",
			                    nocomp->compile_msg ? nocomp->compile_msg : "?");
			char *nl = strchr(t, '\n');
			if (nl)
				*nl = '\0';
			free(o->verdict_text);
			o->verdict_text = t;
		} else if (kdiff && !bad) {
			tr_plan_verdict(&p->math, i, TR_VERDICT_MISMATCH, kdiff);
			*mismatch = 1;
		} else if (bad) {
			char *t;
			if (bad->nshown > 0) {
				const struct try_miss *m = &bad->shown[0];
				t = xasprintf("%s: in (%s%s%s): ours %s, cpu %s", bad_in, m->a,
				              m->b[0] ? ", " : "", m->b, m->ours, m->cpu);
			} else
				t = xasprintf("%s: %zu of %zu values differ from the CPU",
				              bad_in, bad->mismatches, bad->compared);
			tr_plan_verdict(&p->math, i, TR_VERDICT_MISMATCH, t);
			free(t);
			*mismatch = 1;
		} else if (notcmp || out.no_torch) {
			char *t = xasprintf("compiles; not compared with the CPU (%s)",
			                    out.no_torch ? "no python imports torch"
			                                 : notcmp->ref_error ? notcmp->ref_error
			                                 : "no reference");
			free(o->verdict_text);
			o->verdict_text = t;
		} else {
			char *t = nround
			    ? xasprintf("matches CPU on %zu values (%s) up to "
			                "rounding: %zu within %.2g relative (fma or "
			                "cancellation; mps-try %s lists them)",
			                compared, dts.data, nround, round_rel, p->op)
			    : xasprintf("matches CPU on %zu values (%s)",
			                compared, dts.data);
			if (nbeyond) {
				/* differences only on inputs PyTorch's tests do not
				 * sample (check/try.h try_class_rules) */
				char *t2 = xasprintf("%s; %zu differ beyond what PyTorch's tests "
				                     "sample (mps-try %s shows them)", t, nbeyond, p->op);
				free(t);
				t = t2;
			}
			tr_plan_verdict(&p->math, i, TR_VERDICT_MATCH, t);
			free(t);
		}
		buf_free(&dts);
		buf_free(&kvs);
		free(kdiff);
	}
	try_outcome_free(&tp, &out);
	try_plan_free(&tp);
}

static int plan_registration(struct mg_plan *p, const struct mg_opts *o)
{
	static const char *const metal_ids[] = {"[no-c10-metal]",
	                                        "[conflicting-registration]", NULL};
	static const char *const host_ids[] = {"[no-exec-kernel]",
	                                       "[undeclared-stub]",
	                                       "[no-host-anchor]", NULL};
	struct edit_file *kf, *hf, *pf;
	struct rg_file kr, hr;
	struct rg_request rq;
	char *kt, *ht;
	size_t klen, hlen;

	p->kernel_rel = mr_kind_kernel_file(p->kind);
	p->host_rel = mr_kind_host_file(p->kind);
	if (!exists(p->root, p->kernel_rel) || !exists(p->root, p->host_rel)) {
		int k = exists(p->root, p->kernel_rel);
		not_planned(p, "metal",
		            xasprintf("the tree has no %s%s%s: no native Metal kernels "
		                      "of this kind yet (a tree before c10/metal)",
		                      k ? "" : p->kernel_rel,
		                      !k && !exists(p->root, p->host_rel) ? " and no " : "",
		                      exists(p->root, p->host_rel) ? "" : p->host_rel));
		left(p, "metal",
		     xasprintf("write the Metal kernel of %s and its host stub by hand, "
		               "in the files' own style", p->name),
		     NULL, 0);
		return 0;
	}
	if (!(kf = load(p, p->kernel_rel)) || !(hf = load(p, p->host_rel)))
		return -1;
	kf = find_loaded(p, p->kernel_rel); /* the array may have moved */
	current(kf, &kr);
	current(hf, &hr);
	if (!functor_known(p)) {
		if (tr_plan_functor(&p->math, p->root, p->stub,
		                    p->have_cpu && p->cpu.found ? &p->cpu : NULL,
		                    p->kind, p->name, p->pairs, p->npairs) != 0)
			return -1;
	}
	memset(&rq, 0, sizeof rq);
	rq.math = p->math.tried ? &p->math.math : NULL;
	rq.kind = p->kind;
	rq.name = p->name;
	rq.stub = p->stub;
	rq.op = p->op;
	rq.pairs = p->pairs;
	rq.npairs = p->npairs;
	rq.functor = 1;
	rq.host = 1;
	rq.check = p->check;
	if (mr_kind_alpha(p->kind)) {
		rq.scalar_decl = p->scalar_decl;
		rq.scalar_pass = p->scalar_pass;
		rq.scalar_dtype = p->scalar_dtype;
	}
	rq.opmath = p->opmath;
	if (mr_kind_params(p->kind) && p->nfields == 0) {
		/* --kind binary-params on a stub whose scalars were not read */
		not_planned(p, "metal",
		            xasprintf("binary-params needs the Scalars %s's stub takes "
		                      "besides its two tensors, and none were read; "
		                      "register it with mps-register binary-params %s "
		                      "--fields A,B", p->op, p->name));
		return 0;
	}
	if (mr_kind_params(p->kind)) {
		rq.fields = p->fields;
		rq.nfields = p->nfields;
		p->params_rel = rg_params_header_rel(p->kernel_rel);
		if (!exists(p->root, p->params_rel)) {
			not_planned(p, "metal",
			            xasprintf("the tree has no %s, the header of the "
			                      "params structs %s and %s include: create "
			                      "it (`#pragma once`), then plan again",
			                      p->params_rel, p->kernel_rel, p->host_rel));
			return 0;
		}
		if (!(pf = load(p, p->params_rel)))
			return -1;
	}
	if (rg_plan(&p->rg, p->root, &rq, &kr, &hr) != 0) {
		char *mr = rg_reasons(&p->rg, metal_ids), *hrs = rg_reasons(&p->rg, host_ids);
		if (mr)
			not_planned(p, "metal", mr);
		if (hrs)
			not_planned(p, "host", hrs);
		if (!mr && !hrs)
			not_planned(p, "metal", xstrdup("refused"));
		if (strstr(mr ? mr : "", "[no-c10-metal]"))
			left(p, "metal",
			     xasprintf("write the Metal kernel of %s and its host stub by "
			               "hand, in the files' own style", p->name),
			     NULL, 0);
		return 0;
	}
	p->rg_ok = 1;
	if (mr_kind_params(p->kind) && (pf = find_loaded(p, p->params_rel))) {
		/* the struct, before the try reads it */
		size_t plen;
		char *pt = rg_params_header(pf->new ? pf->new : pf->old,
		                            pf->new ? pf->newlen : pf->oldlen, p->name,
		                            p->fields, p->nfields, &plen);
		if (pt)
			edit_set_replace(pf, pt, plen);
		free(pt);
	}
	kt = rg_build(&p->rg, RG_KERNEL, &kr, &klen);
	if (kt && o->try_env && new_functor(p) && p->math.tried) {
		int mismatch;
		size_t k, ntr = 0;
		for (k = 0; k < p->math.nov; k++)
			ntr += p->math.ov[k].translated;
		if (ntr) {
			try_math(p, o->try_env, kt, klen, &mismatch);
			if (mismatch) {
				/* the functor again, the mismatching overloads left */
				free(kt);
				rg_plan_free(&p->rg);
				rq.math = &p->math.math;
				if (rg_plan(&p->rg, p->root, &rq, &kr, &hr) != 0) {
					not_planned(p, "metal", xstrdup("refused"));
					p->rg_ok = 0;
					return 0;
				}
				kt = rg_build(&p->rg, RG_KERNEL, &kr, &klen);
			}
		}
	} else if (o->try_why && new_functor(p) && p->math.tried)
		p->try_why = o->try_why;
	ht = rg_build(&p->rg, RG_HOST, &hr, &hlen);
	kf = find_loaded(p, p->kernel_rel); /* the array may have moved */
	hf = find_loaded(p, p->host_rel);
	if (kt)
		edit_set_replace(kf, kt, klen);
	if (ht)
		edit_set_replace(hf, ht, hlen);
	free(kt);
	free(ht);
	return 0;
}

/* When MPS registers the stub already, the kernel NAME is the one its host
 * stub asks for (add_stub's asks for "add_alpha"), unless --name says
 * otherwise. */
static void name_from_host(struct mg_plan *p)
{
	struct priv *pv = p->priv;
	size_t i, j;
	if (!p->stub || !p->stubs_known)
		return;
	for (i = 0; i < p->hm.nregs; i++) {
		const struct hs_reg *r = &p->hm.regs[i];
		const char *asked = NULL;
		int n = 0;
		if (strcmp(r->stub, p->stub) != 0 || r->def < 0)
			continue;
		for (j = 0; j < p->hm.nreqs; j++)
			if (p->hm.reqs[j].in_def == r->def &&
			    (!asked || strcmp(asked, p->hm.reqs[j].kernel) != 0)) {
				asked = p->hm.reqs[j].kernel;
				n++;
			}
		if (n == 1 && strcmp(asked, p->name) != 0) {
			unsigned long line, col;
			hs_line_col(&p->hm, r->at, &line, &col);
			free(p->name);
			p->name = xstrdup(asked);
			free(pv->name_from);
			pv->name_from = xasprintf("the name the host stub of %s asks for, "
			                          "%s:%lu", p->stub,
			                          p->hm.files[r->at.file].rel, line);
		}
		return;
	}
}

static int named_cb(const char *name, void *arg)
{
	return still_named(arg, name);
}

/* rt_request.is_op: NAME is an operator's base name in the yaml (or,
 * with PREFIX, the start of one) */
static int is_op_cb(const char *name, int prefix, void *arg)
{
	struct mg_plan *p = arg;
	struct priv *pv = p->priv;
	size_t i;
	if (pv->bases.n == 0)
		for (i = 0; i < p->ix.nfuncs; i++)
			hs_map_put(&pv->bases, p->ix.funcs[i].base, 1);
	return prefix ? hs_map_has_prefix(&pv->bases, name)
	              : hs_map_get(&pv->bases, name) >= 0;
}

static int plan_retire(struct mg_plan *p, int replace)
{
	struct priv *pv = p->priv;
	struct rt_request rq;
	size_t f;
	memset(&rq, 0, sizeof rq);
	rq.op = p->op;
	rq.dead = (const char *const *)pv->dead.v;
	rq.ndead = pv->dead.n;
	rq.names = (const char *const *)pv->names.v;
	rq.nnames = pv->names.n;
	rq.named = named_cb;
	rq.arg = p;
	rq.is_op = is_op_cb;
	rq.op_arg = p;
	/* the stub gets a new host stub: an MPSGraph one registered for it
	 * goes (where_kernel in 2.6.0) */
	if (replace && p->kind >= 0 && p->stub && p->npairs > 0 && p->stubs_known)
		rq.replaced_stub = p->stub;
	rt_plan_op(&p->rt, &p->hm, &rq);
	for (f = 0; f < p->hm.nfiles; f++) {
		struct edit_file *ef;
		char *t;
		size_t len;
		if (!rt_deletes_in(&p->rt, f))
			continue;
		if (!(ef = load(p, p->hm.files[f].rel)))
			return -1;
		if (!same_bytes(ef, &p->hm.files[f])) {
			warnx_("error: '%s' changed while it was read; nothing written",
			       p->hm.files[f].rel);
			return -1;
		}
		t = rt_apply(&p->rt, &p->hm, f, &len);
		edit_set_replace(ef, t, len);
		free(t);
	}
	return 0;
}


/* "CUDA", "CPU" or "CUDA and CPU": the kernels the translations come from */
static const char *translated_side(const struct mg_plan *p)
{
	size_t k;
	int cuda = 0, cpu = 0;
	for (k = 0; k < p->math.nov; k++)
		if (p->math.ov[k].translated && p->math.ov[k].side) {
			cuda |= !strcmp(p->math.ov[k].side, "CUDA");
			cpu |= !strcmp(p->math.ov[k].side, "CPU");
		}
	return cuda && cpu ? "CUDA and CPU" : cpu ? "CPU" : "CUDA";
}

/* every overload of the translated functor matches the CPU (mps-try) */
static int all_match(const struct mg_plan *p)
{
	size_t k;
	for (k = 0; k < p->math.nov; k++)
		if (p->math.ov[k].verdict != TR_VERDICT_MATCH)
			return 0;
	return p->math.nov > 0;
}

/* what is left to do for an operator whose MPS kernel stays its own */
static void own_left(struct mg_plan *p)
{
	const struct ok_plan *o = &p->own;
	size_t i;
	int any_keep = 0;
	left(p, "kernel",
	     xasprintf("write the Metal kernel of %s (read the CPU and CUDA "
	               "kernels above) and check it against the CPU with an "
	               "mps-run script: mps-migrate --script FILE %s starts one",
	               p->op, p->op),
	     NULL, 0);
	for (i = 0; i < o->nfns; i++) {
		const struct ok_fn *f = &o->fns[i];
		if (f->what == OK_REPLACE && !f->follows && f->graph)
			left(p, "host",
			     xasprintf("give %s a body that runs the kernel (pipeline, "
			               "arguments, dispatch; empty and non-contiguous "
			               "inputs)%s", f->name,
			               f->graph ? ", in place of its MPSGraph" : ""),
			     f->file, f->line);
		any_keep |= f->what == OK_KEEP;
	}
	for (i = 0; i < o->nfns; i++) {
		const struct ok_fn *f = &o->fns[i];
		if (f->what == OK_DELETE)
			left(p, "host",
			     xasprintf("then delete helper %s: nothing else uses it",
			               f->name),
			     f->file, f->line);
		else if (f->what == OK_KEEP)
			left(p, "host",
			     xasprintf("keep helper %s: %s%s%s", f->name, f->detail,
			               f->row ? ", for " : "", f->row ? f->row : ""),
			     f->file, f->line);
	}
	left(p, "tests",
	     xasprintf("mps-verify %s; on a Mac: the same script on the GPU "
	               "(python FILE), then python test/test_mps.py -k %s",
	               p->op, p->op),
	     NULL, 0);
	(void)any_keep;
}

/* what is left to do for the kernel of the plan (the functor's math, an
 * optional scalar) */
static void kernel_left(struct mg_plan *p)
{
	size_t i;
	if (p->rg_ok) {
		int added = 0;
		const struct rg_item *it = new_functor(p);
		if (it) {
			struct buf b;
			size_t k, nleft = 0;
			added = 1;
			buf_init(&b);
			for (k = 0; k < p->math.nov; k++)
				if (!p->math.ov[k].translated)
					buf_printf(&b, "%s%s", nleft++ ? ", " : "",
					           tr_cls_name(p->math.ov[k].cls));
			if (!p->math.tried)
				left(p, "functor",
				     xasprintf("write the math of %s_functor (each "
				               "TODO(mps-register) line), then run mps-try "
				               "%s%s%s until it matches the CPU",
				               p->name, p->op, try_kernel_opt(p), try_kernel_arg(p)),
				     p->kernel_rel, it->line);
			else if (nleft)
				left(p, "functor",
				     xasprintf("write the math of %s_functor's %s overload%s "
				               "(each TODO(mps-register) line; the CUDA and CPU "
				               "bodies are in the comment above it), then run "
				               "mps-try %s%s%s until it matches the CPU",
				               p->name, b.data, nleft > 1 ? "s" : "", p->op,
				               try_kernel_opt(p), try_kernel_arg(p)),
				     p->kernel_rel, it->line);
			else if (!all_match(p))
				left(p, "functor",
				     xasprintf("the math of %s_functor is translated from the "
				               "%s kernel%s%s%s: run mps-try %s%s%s to check it "
				               "against the CPU",
				               p->name, translated_side(p),
				               p->try_why ? " (not tried here: " : "",
				               p->try_why ? p->try_why : "", p->try_why ? ")" : "",
				               p->op, try_kernel_opt(p), try_kernel_arg(p)),
				     p->kernel_rel, it->line);
			buf_free(&b);
		}
		/* a skeleton written before and not filled in yet */
		for (i = 0; i < p->hm.nfunctors && !added; i++) {
			const struct hs_functor *fu = &p->hm.functors[i];
			unsigned long line, col;
			if (!fu->placeholder || strcmp(fu->kernel, p->name) != 0 ||
			    strcmp(p->hm.files[fu->at.file].rel, p->kernel_rel) != 0)
				continue;
			hs_line_col(&p->hm, fu->marker, &line, &col);
			left(p, "functor",
			     xasprintf("write the math of %s_functor: it still holds "
			               "the TODO(mps-register) placeholder; then run "
			               "mps-try %s%s%s until it matches the CPU",
			               p->name, p->op, try_kernel_opt(p), try_kernel_arg(p)),
			     p->kernel_rel, line);
		}
	}
	if (p->scalar_none && p->rg_ok)
		left(p, "functor",
		     xasprintf("%s is optional: the stub gets what the shared kernel "
		               "passes, %s, and %s's alpha is that value; treat it as "
		               "the CPU kernel %s does (%s:%lu)",
		               p->scalar_name, p->scalar_none, p->name,
		               p->have_cpu && p->cpu.fn ? p->cpu.fn : "?",
		               p->have_cpu && p->cpu.def.file ? p->cpu.def.file : "?",
		               p->have_cpu ? p->cpu.def.line : 0UL),
		     NULL, 0);
}

static void plan_left(struct mg_plan *p)
{
	size_t i;
	for (i = 0; i < p->fold.nrows; i++) {
		const struct fold_row *r = &p->fold.rows[i];
		if (r->why)
			left(p, "rows",
			     xasprintf("%s stays on its own MPS kernel: %s; %s", r->f->name,
			               r->why, r->hint),
			     NF_YAML_REL, r->at ? r->at->line : r->f->line);
	}
	kernel_left(p);
	if (p->stuck && p->own.planned)
		own_left(p);
	if (p->stuck)
		return;
	left(p, "tests",
	     xasprintf("on a Mac: build, then python test/test_mps.py -k %s "
	               "(test_output_match, and _grad_ for an op with a "
	               "derivative)", p->op),
	     NULL, 0);
}

/* several stubs and --dtypes LIST: an item no kernel kept is an error
 * (said, with each kernel's dtypes); 0 when every item was kept */
static int given_unused(struct mg_plan *p, const char *list)
{
	struct given_item items[MR_MAX_PAIRS];
	const struct priv *pv = p->priv;
	size_t ni = given_items(list, items), i, j, k;
	int bad = 0;
	for (i = 0; i < ni && !bad; i++) {
		struct buf b;
		if (pv->dt_used & (1ULL << i))
			continue;
		bad = 1;
		buf_init(&b);
		for (k = 0; k <= p->nkernels; k++) {
			const struct mg_plan *q = k < p->nkernels ? &p->kernels[k] : p;
			size_t n = 0;
			buf_printf(&b, "%s%s:", k ? "; " : "", q->name);
			if (q->dtsource == MG_DT_GIVEN_CPU) {
				int d;
				for (d = 0; d < CS_NDTYPES; d++)
					if ((q->cpu.types & CS_BIT(d)) && metal_of(d))
						buf_printf(&b, "%s %s", n++ ? "," : "", metal_of(d));
			} else {
				for (j = 0; j < q->npairs; j++)
					buf_printf(&b, "%s %s", n++ ? "," : "", q->pairs[j].in);
				for (j = 0; j < q->ngiven_out; j++)
					buf_printf(&b, "%s %s", n++ ? "," : "",
					           q->given_out[j].in);
			}
			if (!n)
				buf_puts(&b, " none read");
		}
		warnx_("error: --dtypes: no kernel of %s has '%s' (%s)", p->op,
		       items[i].text, b.data);
		buf_free(&b);
	}
	given_items_free(items, ni);
	return bad ? -1 : 0;
}

/* several stubs: the kernel just planned (P's own) inserted its items
 * into files the earlier kernels inserted into too; where one of its
 * items went before an earlier item, that item moved down.  Each
 * earlier item's newoff and line are made those of the file as P's
 * insertions leave it, so that every kernel's lines are the new file's,
 * as the diff shows them (issue #28) */
static void shift_earlier(struct mg_plan *p)
{
	size_t k, i, j;
	for (k = 0; k < p->nkernels; k++) {
		struct mg_plan *r = &p->kernels[k];
		if (!r->rg_ok)
			continue;
		for (i = 0; i < r->rg.nitems; i++) {
			struct rg_item *e = &r->rg.items[i];
			const char *rel = file_rel(r, e->file);
			const struct edit_file *ef;
			size_t lead = 0, at, delta = 0;
			unsigned long col;
			if (e->present || !e->text)
				continue;
			while (e->text[lead] == '\n' || e->text[lead] == '\r')
				lead++;
			at = e->newoff + lead;
			for (j = 0; j < p->rg.nitems; j++) {
				const struct rg_item *x = &p->rg.items[j];
				if (!x->present && x->text && x->off <= at &&
				    !strcmp(file_rel(p, x->file), rel))
					delta += x->addlen;
			}
			if (!delta || !(ef = find_loaded(p, rel)) || !ef->new)
				continue;
			e->newoff += delta;
			line_col(ef->new, e->newoff + lead, &e->line, &col);
		}
	}
}

/* the operator's stubs a kernel each (per_stub): the files of their
 * kinds loaded (after the yaml in the diff), the old path retired once,
 * then for each stub its row, kind, NAME, scalar, dtypes, functor and
 * host stub, planned on the files as the previous stubs left them; every
 * kernel but the last moved to p->kernels */
static int plan_stubs(struct mg_plan *p, const struct mg_opts *o)
{
	size_t i;
	for (i = 0; i < p->nstubs; i++) {
		int k = stub_kind(p, &p->stubs[i]);
		const char *kf = mr_kind_kernel_file(k), *hf = mr_kind_host_file(k);
		if ((exists(p->root, kf) && !load(p, kf)) ||
		    (exists(p->root, hf) && !load(p, hf)))
			return -1;
	}
	if (plan_retire(p, 0) != 0)
		return -1;
	free(p->name);
	p->name = NULL;
	p->kernels = xcalloc(p->nstubs - 1, sizeof *p->kernels);
	for (i = 0; i < p->nstubs; i++) {
		const struct mg_stub *st = &p->stubs[i];
		if (i > 0) {
			/* the previous stub's kernel, done: into p->kernels */
			static const struct mg_plan none;
			struct mg_plan *r = &p->kernels[p->nkernels++];
			r->priv = xcalloc(1, sizeof(struct priv));
			kernel_copy(r, p);
			((struct priv *)p->priv)->name_from = NULL;
			kernel_copy(p, &none);
			p->kind = -1;
		}
		p->out = stub_row(p, st);
		p->kind = stub_kind(p, st);
		p->stub = st->name;
		p->name = stub_kernel_name(p, st->name, p->kind);
		plan_scalar(p);
		if (plan_dtypes(p, o) != 0)
			return -1;
		name_from_host(p);
		if (o->dtypes && p->npairs == 0 && p->ngiven_out > 0) {
			/* --dtypes keeps none of this kernel's pairs: left out */
			struct buf b;
			size_t j;
			buf_init(&b);
			for (j = 0; j < p->ngiven_out; j++)
				buf_printf(&b, "%s%s", j ? ", " : "", p->given_out[j].in);
			not_planned(p, "dtypes",
			            xasprintf(p->dtsource == MG_DT_GIVEN_CPU
			                      ? "%s: the CPU kernel of %s handles none of "
			                        "the dtypes --dtypes gives (%s): the "
			                        "kernel is left out, and %s has no MPS "
			                        "kernel"
			                      : "%s: --dtypes keeps none of the dtypes of "
			                        "%s (%s): the kernel is left out, and %s "
			                        "has no MPS kernel", p->name, st->name,
			                      b.data, st->name));
			buf_free(&b);
			continue;
		}
		if (p->kind >= 0 && p->npairs > 0 && plan_registration(p, o) != 0)
			return -1;
		if (p->rg_ok)
			shift_earlier(p);
	}
	if (o->dtypes && given_unused(p, o->dtypes) != 0)
		return -1;
	/* what is left to do, kernel by kernel, once every line is the new
	 * files' (the last kernel's functor: plan_left) */
	for (i = 0; i < p->nstubs; i++) {
		const struct mg_stub *st = &p->stubs[i];
		struct mg_plan q, *r = p;
		struct priv qpv;
		if (i < p->nkernels) {
			with_kernel(&q, &qpv, p, &p->kernels[i]);
			kernel_left(&q);
			p->left = q.left;
			p->nleft = q.nleft;
			r = &q;
		}
		if (!r->rg_ok && !left_out(r)) {
			/* this stub's kernel by hand: the command that starts it,
			 * with the dtypes --dtypes kept, else the sources' */
			char *dts = NULL;
			if (o->dtypes && r->npairs > 0) {
				struct buf b;
				size_t j;
				buf_init(&b);
				for (j = 0; j < r->npairs; j++)
					buf_printf(&b, "%s%s:%s", j ? "," : "", r->pairs[j].in,
					           r->pairs[j].out);
				dts = b.data;
			} else if (r->kind >= 0)
				dts = stub_dtypes(p, st, r->kind);
			left(p, "stub",
			     xasprintf("register %s: mps-register %s %s --stub %s "
			               "--dtypes %s --functor --host", st->name,
			               r->kind >= 0 ? mr_kind_name(r->kind) : "KIND",
			               r->name, st->name, dts ? dts : "..."),
			     NULL, 0);
			free(dts);
		}
	}
	return 0;
}

int mg_plan(struct mg_plan *p, const char *root, const struct mg_opts *o)
{
	struct edit_file *yf;
	size_t i, nfound = 0;
	int any_specific = 0, any_none = 0, several;
	struct priv *pv;

	memset(p, 0, sizeof *p);
	p->root = xstrdup(root);
	p->op = o->op;
	p->kind = -1;
	p->priv = pv = xcalloc(1, sizeof *pv);
	p->cs.root = p->root;

	{
		char *path = xasprintf("%s/%s", root, NF_YAML_REL);
		yf = edit_set_load(&p->set, path, NF_YAML_REL);
		free(path);
	}
	if (!yf || nf_load_buffer(&p->ix, NF_YAML_REL, yf->old, yf->oldlen) != 0) {
		memset(&p->ix, 0, sizeof p->ix);
		return -1;
	}
	for (i = 0; i < p->ix.nentries; i++) {
		const struct nf_func *f = &p->ix.funcs[i];
		if (strcmp(f->base, o->op) != 0)
			continue;
		nfound++;
		if (f->route == ROUTE_MPS_SPECIFIC)
			any_specific = 1;
		if (f->kind == NF_OUT && !f->mps_kernel)
			any_none = 1;
		if (f->kind == NF_OUT && f->route == ROUTE_SHARED) {
			p->shared = xrealloc(p->shared, (p->nshared + 1) * sizeof *p->shared);
			p->shared[p->nshared++] = f;
		}
	}
	if (nfound == 0) {
		warnx_("error: no operator '%s' in %s (see mps-overloads)", o->op,
		       NF_YAML_REL);
		return -1;
	}
	p->mode = any_specific ? MG_FOLD : any_none ? MG_ADD : MG_SHARED;
	if (p->mode != MG_SHARED) {
		fold_plan_op(&p->fold, &p->ix, &p->cs, o->op, p->mode == MG_ADD);
		if (p->fold.nacted == 0 && p->fold.nrefused > 0 && p->nshared == 0) {
			/* the old path stays whole: nothing else to plan */
			p->stuck = 1;
			p->name = xstrdup(o->name ? o->name : o->op);
			not_planned(p, "rows",
			            xasprintf("no row of %s can move to a shared kernel, "
			                      "so its own MPS kernel stays and nothing "
			                      "else changes", o->op));
			/* the test lists are read all the same, so that the plan
			 * says what they hold of OP (issue #25) */
			if (hs_load(&p->hm, root) != 0) {
				memset(&p->hm, 0, sizeof p->hm);
				return -1;
			}
			pv->have_hm = 1;
			{
				struct rt_request rq;
				memset(&rq, 0, sizeof rq);
				rq.op = p->op;
				rq.is_op = is_op_cb;
				rq.op_arg = p;
				for (i = 0; i < p->hm.nxfails; i++)
					p->xfail_stay += rt_xfail_of_op(p->hm.xfails[i].key, &rq);
			}
			/* the body behind the rows that stay (issue #27) */
			ok_plan_op(&p->own, &p->ix, &p->cs, &p->hm, o->op, is_op_cb, p);
			if (p->own.planned) {
				free(p->notplanned[p->nnotplanned - 1].text);
				p->notplanned[p->nnotplanned - 1].text =
				    p->own.done
				        ? xasprintf("no row of %s can move to a shared "
				                    "kernel, and what is behind them builds "
				                    "no MPSGraph: nothing to do", o->op)
				        : xasprintf("no row of %s can move to a shared "
				                    "kernel: its rows stay and nothing in "
				                    "the tree changes; the own-kernel part "
				                    "above is yours to carry out", o->op);
			}
			if (p->own.planned && p->own.done)
				return 0;
			plan_left(p);
			return 0;
		}
	}
	{
		size_t n;
		char *t = fold_apply(&p->ix, &p->fold, &n);
		edit_set_replace(&p->set.files[0], t, n);
		free(t);
	}
	find_stubs(p);
	pick_out_row(p);
	p->name = xstrdup(o->name ? o->name : o->op);
	several = per_stub(p, o);
	if (!several) {
		plan_kind(p, o);
		plan_stub(p);
		plan_scalar(p);
		if (plan_dtypes(p, o) != 0)
			return -1;
	}

	if (hs_load(&p->hm, root) != 0) {
		memset(&p->hm, 0, sizeof p->hm);
		return -1;
	}
	pv->have_hm = 1;
	if (!o->name && !several)
		name_from_host(p);
	old_names(p);
	if (several) {
		if (plan_stubs(p, o) != 0)
			return -1;
		plan_left(p);
		return 0;
	}
	if (p->kind >= 0 && p->stub && p->npairs > 0) {
		/* the new code's files come right after the yaml in the diff */
		const char *k = mr_kind_kernel_file(p->kind);
		const char *h = mr_kind_host_file(p->kind);
		if ((exists(root, k) && !load(p, k)) || (exists(root, h) && !load(p, h)))
			return -1;
	}
	if (plan_retire(p, 1) != 0)
		return -1;
	if (p->kind >= 0 && p->stub && p->npairs > 0 && plan_registration(p, o) != 0)
		return -1;
	if (!p->rg_ok) {
		/* no new host stub: the old registration of the stub stays */
		size_t i, f;
		int any = 0;
		for (i = 0; i < p->rt.n; i++)
			any |= p->rt.items[i].what == RT_REG && !p->rt.items[i].kept;
		if (any) {
			for (f = 0; f < p->hm.nfiles; f++) {
				struct edit_file *ef;
				if (!rt_deletes_in(&p->rt, f) ||
				    !(ef = find_loaded(p, p->hm.files[f].rel)))
					continue;
				edit_set_replace(ef, ef->old, ef->oldlen);
			}
			rt_plan_free(&p->rt);
			if (plan_retire(p, 0) != 0)
				return -1;
		}
	}
	plan_left(p);
	return 0;
}

size_t mg_changed(const struct mg_plan *p)
{
	return edit_set_changed(&p->set);
}

void mg_plan_free(struct mg_plan *p)
{
	struct priv *pv = p->priv;
	size_t i;
	if (pv && pv->have_hm)
		hs_free(&p->hm);
	kernel_free(p);
	for (i = 0; i < p->nkernels; i++) {
		kernel_free(&p->kernels[i]);
		free(p->kernels[i].priv);
	}
	free(p->kernels);
	if (pv) {
		strv_free(&pv->dead);
		strv_free(&pv->names);
		hs_map_free(&pv->bases);
		free(pv->stub_default);
		free(pv->name_from);
		free(pv);
	}
	for (i = 0; i < p->nstubs; i++) {
		free(p->stubs[i].name);
		free(p->stubs[i].where);
		free(p->stubs[i].by);
	}
	free(p->stubs);
	for (i = 0; i < p->nnotplanned; i++) {
		free(p->notplanned[i].what);
		free(p->notplanned[i].text);
		free(p->notplanned[i].path);
	}
	free(p->notplanned);
	for (i = 0; i < p->nleft; i++) {
		free(p->left[i].what);
		free(p->left[i].text);
		free(p->left[i].path);
	}
	free(p->left);
	ok_plan_free(&p->own);
	rt_plan_free(&p->rt);
	fold_plan_free(&p->fold);
	if (p->ix.funcs || p->ix.text)
		nf_free(&p->ix);
	cs_lazy_free(&p->cs);
	edit_set_free(&p->set);
	free(p->shared);
	free(p->root);
	memset(p, 0, sizeof *p);
}

/* ---- writing the plan ---- */

static const char *fold_words(const struct fold_row *r)
{
	switch (r->action) {
	case FOLD_FOLD: return "fold";
	case FOLD_ADD: return "gets MPS:";
	default: return "not folded";
	}
}

static void keys_text(struct buf *b, const struct nf_dispatch *d)
{
	size_t k;
	for (k = 0; k < d->nkeys; k++)
		buf_printf(b, "%s%s", k ? ", " : "", d->keys[k]);
}

/* "`MPS: x_mps` into `CPU, CUDA, MPS: x`": the row's change, with the
 * keys in the order fold.h puts them */
static char *row_change(const struct fold_row *r)
{
	const struct nf_func *f = r->f;
	const struct nf_dispatch *sh = NULL, *mps = nf_mps_dispatch(f);
	struct buf b;
	size_t i, at;
	int sorted = 1;
	for (i = 0; i < f->ndispatch && !sh; i++) {
		const struct nf_dispatch *d = &f->dispatch[i];
		if (d != mps && r->kernel && strcmp(lex_unqualified(d->kernel), r->kernel) == 0 &&
		    (nf_dispatch_has_key(d, "CPU") || nf_dispatch_has_key(d, "CUDA")))
			sh = d;
	}
	buf_init(&b);
	if (r->action == FOLD_FOLD && mps) {
		buf_puts(&b, "`");
		keys_text(&b, mps);
		buf_printf(&b, ": %s` into ", mps->kernel);
	}
	if (!sh) {
		buf_printf(&b, "`%s`", r->kernel ? r->kernel : "?");
		return b.data;
	}
	for (i = 1; i < sh->nkeys && sorted; i++)
		sorted = strcasecmp(sh->keys[i - 1], sh->keys[i]) <= 0;
	at = sh->nkeys;
	if (sorted)
		for (i = 0; i < sh->nkeys; i++)
			if (strcasecmp("MPS", sh->keys[i]) < 0) {
				at = i;
				break;
			}
	buf_puts(&b, "`");
	for (i = 0; i <= sh->nkeys; i++) {
		if (i == at)
			buf_printf(&b, "%sMPS", i ? ", " : "");
		if (i < sh->nkeys)
			buf_printf(&b, "%s%s", i || at == 0 ? ", " : "", sh->keys[i]);
	}
	buf_printf(&b, ": %s`", sh->kernel);
	return b.data;
}

static void pairs_text(FILE *out, const struct mr_pair *v, size_t n)
{
	size_t i, j;
	int first = 1, same = 0;
	for (i = 0; i < n; i++)
		if (v[i].in == v[i].out)
			same = 1;
	if (same) {
		int k = 0;
		for (i = 0; i < n; i++)
			if (v[i].in == v[i].out)
				fprintf(out, "%s%s", k++ ? ", " : "", v[i].in);
		fputs(" (same dtype)", out);
		first = 0;
	}
	for (i = 0; i < n; i++) {
		int seen = 0, k = 0;
		if (v[i].in == v[i].out)
			continue;
		for (j = 0; j < i && !seen; j++)
			seen = v[j].in != v[j].out && v[j].out == v[i].out;
		if (seen)
			continue;
		fputs(first ? "" : "; ", out);
		first = 0;
		for (j = i; j < n; j++)
			if (v[j].in != v[j].out && v[j].out == v[i].out)
				fprintf(out, "%s%s", k++ ? ", " : "", v[j].in);
		fprintf(out, " -> %s", v[i].out);
	}
}

static void set_line(FILE *out, const char *label, cs_dtset s)
{
	char *names;
	if (!s)
		return;
	names = cs_dtset_names(s, ", ");
	fprintf(out, "  %s: %s\n", label, names);
	free(names);
}

static void check_words(FILE *out, unsigned allowed, const char *who)
{
	static const char *const st[] = {"Float", "Half", "BFloat16", "Long",
	                                 "Int", "Short", "Char", "Byte", "Bool",
	                                 "ComplexFloat", "ComplexHalf"};
	size_t i;
	int k = 0;
	fputs("  host check: TORCH_CHECK_TYPE lets through only ", out);
	for (i = 0; i < 11; i++)
		if (allowed & (1u << i))
			fprintf(out, "%s%s", k++ ? ", " : "", st[i]);
	fprintf(out, " (%s lets other dtypes through, and no kernel is "
	        "registered for them: ", who);
	k = 0;
	for (i = 0; i < 11; i++)
		if (!(allowed & (1u << i)))
			fprintf(out, "%s%s", k++ ? ", " : "", st[i]);
	fputs(", ...)\n", out);
}

static void own_read(FILE *out, const char *what, const struct ok_read *r)
{
	if (!r->fn)
		fprintf(out, "  %s: the row names none\n", what);
	else if (r->at.file)
		fprintf(out, "  %s: %s at %s:%lu\n", what, r->fn, r->at.file,
		        r->at.line);
	else
		fprintf(out, "  %s: %s (no definition found)\n", what, r->fn);
}

/* the own-kernel part of the plan (ownkernel.h) */
static void own_text(FILE *out, const struct ok_plan *o)
{
	size_t i;
	if (o->done)
		fprintf(out, "own kernel: the rows stay MPS-specific; nothing behind "
		        "%s builds an MPSGraph\n", o->out->name);
	else
		fprintf(out, "own kernel: the rows stay MPS-specific; a Metal kernel "
		        "replaces what is behind %s\n", o->out->name);
	for (i = 0; i < o->nfns; i++) {
		const struct ok_fn *f = &o->fns[i];
		if (f->follows) {
			fprintf(out, "  follows %s: %s:%lu-%lu: %s (its MPSGraph is %s's: "
			        "nothing to change once that body is replaced)\n",
			        f->follows, f->file, f->line, f->last, f->name, f->follows);
			continue;
		}
		fprintf(out, "  %s %s:%lu-%lu: %s%s (%s)%s%s\n",
		        f->what == OK_REPLACE && !f->graph ? "no MPSGraph in"
		        : f->what == OK_REPLACE ? "replace the body of"
		        : f->what == OK_DELETE ? "delete once the new body lands:"
		                               : "keep:",
		        f->file, f->line, f->last,
		        f->what == OK_REPLACE ? "" : "helper ", f->name, f->detail,
		        f->row ? ", for " : "", f->row ? f->row : "");
	}
	fputs("read:\n", out);
	own_read(out, "CPU kernel", &o->cpu);
	own_read(out, "CUDA kernel", &o->cuda);
	if (o->meta.fn)
		own_read(out, "meta function (output sizes, checks)", &o->meta);
	if (o->have_dtypes) {
		char *all = cs_dtset_names(o->dt.types, ", ");
		char *metal = cs_dtset_metal(o->types, ", ");
		fprintf(out, "  dtypes: %s (%s:%lu", all, o->dt.def.file,
		        o->dt.def.line);
		if (o->dt.notes && *o->dt.notes)
			fprintf(out, "; %s", o->dt.notes);
		fprintf(out, "); the Metal kernel's: %s\n", *metal ? metal : "none");
		free(all);
		free(metal);
	} else if (o->cpu.fn) {
		fprintf(out, "  dtypes: not read from %s: %s\n", o->cpu.fn,
		        o->dt_why ? o->dt_why : "no C++ sources in the tree");
	}
}

/* the kernel part of the plan for people: kind, scalar, dtypes,
 * insertions, the functor's math */
static void text_kernel(FILE *out, const struct mg_plan *p)
{
	size_t i;

	/* kernel */
	if (p->kind >= 0 && ((struct priv *)p->priv)->name_from)
		fprintf(out, "kernel: %s %s (%s)\n", mr_kind_name(p->kind), p->name,
		        ((struct priv *)p->priv)->name_from);
	else if (p->kind >= 0 && p->scalar_from && !(p->out->alpha && !p->alpha))
		fprintf(out, "kernel: %s %s (%s input%s and a scalar: %s)\n",
		        mr_kind_name(p->kind), p->name,
		        mr_kind_arity(p->kind) == 1   ? "one"
		        : mr_kind_arity(p->kind) == 2 ? "two"
		                                      : "three",
		        mr_kind_arity(p->kind) == 1 ? "" : "s", p->scalar_from);
	else if (p->kind >= 0 && mr_kind_params(p->kind) && !p->kind_given) {
		fprintf(out, "kernel: %s %s (two inputs and %zu scalars the stub "
		        "takes: %s", mr_kind_name(p->kind), p->name, p->nfields,
		        p->nfields ? p->fields[0] : "");
		for (i = 1; i < p->nfields; i++)
			fprintf(out, ", %s", p->fields[i]);
		fputs(")\n", out);
		if (p->params_rel) {
			char *st = mr_params_struct(p->name);
			fprintf(out, "  params: %s<float> in %s (the stub's scalars at "
			        "float, the CUDA kernel's opmath)", st, p->params_rel);
			for (i = 0; i < p->nfield_args; i++)
				fprintf(out, "%s%s", i ? ", " : "; tried with ",
				        p->field_args[i]);
			if (p->nfield_args)
				fputs(" (the forward operator's defaults)", out);
			fputc('\n', out);
			free(st);
		}
	} else if (p->kind >= 0)
		fprintf(out, "kernel: %s %s (%s)\n", mr_kind_name(p->kind), p->name,
		        p->kind_given ? "--kind"
		        : p->out->ninputs == 1
		            ? p->out->alpha ? "one input and alpha in the schema"
		                            : "one input in the schema"
		        : p->out->ninputs == 3
		            ? p->out->alpha ? "three inputs and alpha in the schema"
		                            : "three inputs in the schema"
		        : p->out->alpha ? "two inputs and alpha in the schema"
		                        : "two inputs in the schema");
	if (p->kind >= 0 && mr_kind_alpha(p->kind) && p->scalar_decl &&
	    !(p->out && p->out->alpha && !p->alpha))
		fprintf(out, "  scalar: %s, Metal type %s; the host stub takes %s "
		        "and passes %s%s%s\n", p->scalar_name,
		        p->alpha ? p->alpha : "of the input",
		        p->scalar_decl, p->scalar_pass, p->scalar_dtype ? ", " : "",
		        p->scalar_dtype ? p->scalar_dtype : "");
	/* dtypes */
	if (p->dtsource == MG_DT_CPU) {
		char *names = cs_dtset_names(p->cpu.types, ", ");
		fprintf(out, "dtypes: from the CPU kernel %s of %s (%s:%lu): %s\n",
		        p->cpu.fn, p->stub, p->cpu.def.file ? p->cpu.def.file : "?",
		        p->cpu.def.line, names);
		free(names);
		if (p->cpu.notes && *p->cpu.notes)
			fprintf(out, "  read: %s\n", p->cpu.notes);
		if (p->have_iter && p->iter.builder)
			fprintf(out, "  output: %s (not structured: %s builds its "
			        "iterator%s%s with %s, %s:%lu)\n",
			        p->rule.rule == CS_RULE_SAME    ? "the input's dtype"
			        : p->rule.rule == CS_RULE_FLOAT ? "float for integral and bool inputs"
			                                        : "bool",
			        out_kernel(p) ? out_kernel(p) : "?",
			        strcmp(p->iter.in, out_kernel(p) ? out_kernel(p) : "") ? " in " : "",
			        strcmp(p->iter.in, out_kernel(p) ? out_kernel(p) : "") ? p->iter.in : "",
			        p->iter.builder, p->iter.at.file, p->iter.at.line);
		else
		fprintf(out, "  output: %s (%s%s%s)\n",
		        p->rule.rule == CS_RULE_SAME    ? "the input's dtype"
		        : p->rule.rule == CS_RULE_FLOAT ? "float for integral and bool inputs"
		                                        : "bool",
		        p->rule.meta ? p->rule.meta : "?",
		        p->rule.builder && *p->rule.builder ? ": " : "",
		        p->rule.builder ? p->rule.builder : "");
		if (p->cond_input)
			fprintf(out, "  condition: input %d is read as bool (%s): the "
			        "kernel gets it in the other inputs' dtype, nonzero "
			        "true; the output has theirs\n", p->cond_input, p->cond_at);
		set_line(out, "handled before the stub", p->rule.before_stub);
		set_line(out, "refused by the meta function", p->rule.rejects);
		set_line(out, "no Metal type", p->dropped);
	} else if (p->dtsource == MG_DT_GIVEN) {
		fputs("dtypes: given (--dtypes)\n", out);
	} else if (p->dtsource == MG_DT_GIVEN_CPU) {
		char *names = cs_dtset_names(p->cpu.types, ", ");
		fprintf(out, "dtypes: given (--dtypes), where the CPU kernel %s of %s "
		        "(%s:%lu) handles the input: %s\n", p->cpu.fn, p->stub,
		        p->cpu.def.file ? p->cpu.def.file : "?", p->cpu.def.line, names);
		free(names);
	}
	if (p->have_opmath && p->om.opmath)
		fprintf(out, "  computed in float for half and bfloat, as the CPU "
		        "kernel does (%s at %s:%lu)%s%s\n", p->om.marker,
		        p->om.marker_at.file, p->om.marker_at.line,
		        p->rg_ok && p->rg.opmath ? ": " : p->rg_ok
		                   ? "; the kernel file has no " : "",
		        p->rg_ok ? mr_kind_opmath_macro(p->kind) : "");
	if (p->ngiven_out) {
		fputs(p->dtsource == MG_DT_GIVEN_CPU ? "  given, the CPU kernel lacks: "
		                                     : "  left out by --dtypes: ", out);
		pairs_text(out, p->given_out, p->ngiven_out);
		fputc('\n', out);
	}
	if (p->npairs) {
		fputs("  registered: ", out);
		pairs_text(out, p->pairs, p->npairs);
		fputc('\n', out);
		if (p->check)
			check_words(out, p->check,
			            p->have_iter && p->iter.builder ? "the shared kernel's iterator"
			                                            : "the meta function");
	}
	/* insertions */
	if (p->rg_ok) {
		fputs("insert (lines of the new files):\n", out);
		for (i = 0; i < p->rg.nitems; i++) {
			const struct rg_item *it = &p->rg.items[i];
			const char *rel = file_rel(p, it->file);
			if (it->present)
				fprintf(out, "  %s:%lu: present: %s\n", rel, it->line,
				        it->what == RG_REG ? "registrations"
				        : it->what == RG_FUNCTOR ? "functor"
				        : it->what == RG_INCLUDE ? it->label
				                                 : "host stub");
			else if (!it->text)
				continue;
			else if (it->what == RG_REG)
				fprintf(out, "  %s:%lu: %s%s\n", rel, it->line, it->calls[0],
				        it->ncalls > 1 ? " ..." : "");
			else
				fprintf(out, "  %s:%lu: %s%s\n", rel, it->line, it->label,
				        it->check ? ", with the dtype check" : "");
		}
	}
	/* the functor's math */
	if (new_functor(p) && p->math.tried) {
		fprintf(out, "functor math (%s_functor, from the kernels of %s):\n",
		        p->name, p->stub);
		for (i = 0; i < p->math.nov; i++) {
			const struct tr_overload *o = &p->math.ov[i];
			fprintf(out, "  %s (%s -> %s): ", tr_cls_name(o->cls), o->in, o->out);
			if (o->translated)
				fprintf(out, "translated from %s:%lu (%s)%s%s\n", o->file,
				        o->line, o->side, o->verdict_text ? "; " : "",
				        o->verdict_text ? o->verdict_text : "");
			else if (o->file)
				fprintf(out, "left to you: %s at %s:%lu\n", o->construct,
				        o->file, o->line);
			else
				fprintf(out, "left to you: %s\n", o->construct);
		}
	}
}

void mg_write_text(FILE *out, const struct mg_plan *p)
{
	size_t i;
	int any;

	fprintf(out, "%s: migration plan\n", p->op);
	/* rows */
	fprintf(out, "rows (%s):\n", NF_YAML_REL);
	for (i = 0; i < p->fold.nrows; i++) {
		const struct fold_row *r = &p->fold.rows[i];
		unsigned long line = r->at ? r->at->line : r->f->line;
		if (r->why) {
			fprintf(out, "  %s:%lu %s: %s; %s\n", r->f->name, line,
			        fold_words(r), r->why, r->hint);
		} else {
			char *s = row_change(r);
			fprintf(out, "  %s:%lu %s %s\n", r->f->name, line, fold_words(r),
			        s);
			free(s);
		}
	}
	for (i = 0; i < p->nshared; i++) {
		const struct nf_dispatch *d = shared_mps_line(p->shared[i]);
		struct buf b;
		buf_init(&b);
		if (d)
			keys_text(&b, d);
		fprintf(out, "  %s:%lu shared already: `%s: %s`\n", p->shared[i]->name,
		        d ? d->line : p->shared[i]->line, b.data, d ? d->kernel : "?");
		buf_free(&b);
	}
	if (p->own.planned)
		own_text(out, &p->own);
	/* stubs */
	if (p->nstubs) {
		fputs("stubs MPS registers:", out);
		for (i = 0; i < p->nstubs; i++)
			fprintf(out, "%s %s (reached by %s at %s%s)", i ? "," : "",
			        p->stubs[i].name, p->stubs[i].by, p->stubs[i].where,
			        p->stubs[i].declared ? "" : "; no DECLARE_DISPATCH");
		fputc('\n', out);
	} else if (!p->stubs_known && p->stub) {
		fprintf(out, "stub: %s (assumed: the C++ sources do not say)\n",
		        p->stub);
	}
	/* kernel: one per stub when the stubs have one each */
	for (i = 0; i < p->nkernels; i++) {
		struct mg_plan q;
		struct priv qpv;
		with_kernel(&q, &qpv, p, &p->kernels[i]);
		fprintf(out, "for %s:\n", q.stub);
		text_kernel(out, &q);
	}
	if (p->nkernels)
		fprintf(out, "for %s:\n", p->stub);
	text_kernel(out, p);
	/* deletions */
	any = 0;
	for (i = 0; i < p->rt.n; i++) {
		const struct rt_item *it = &p->rt.items[i];
		const char *rel = p->hm.files[it->file].rel;
		if (it->kept)
			continue;
		if (!any++)
			fputs("delete (lines of the files as they are):\n", out);
		if (it->line == it->last)
			fprintf(out, "  %s:%lu: ", rel, it->line);
		else
			fprintf(out, "  %s:%lu-%lu: ", rel, it->line, it->last);
		switch (it->what) {
		case RT_DEF:
			fprintf(out, "%s (%s)\n", it->name, it->detail);
			break;
		case RT_HELPER:
			fprintf(out, "helper %s (%s)\n", it->name, it->detail);
			break;
		case RT_INCLUDE:
			fprintf(out, "%s (nothing else in the file needs it)\n", it->detail);
			break;
		case RT_REG:
			fprintf(out, "REGISTER_DISPATCH(%s, ...) (%s)\n", it->name, it->detail);
			break;
		default:
			fprintf(out, "\"%s\" in %s\n", it->name, it->detail);
		}
	}
	/* the test lists: say so when they hold nothing of OP */
	{
		size_t nx = 0;
		for (i = 0; i < p->rt.n; i++)
			nx += p->rt.items[i].what == RT_XFAIL;
		if (p->stuck && p->xfail_stay)
			fprintf(out, "test lists: %zu expected-failure or skip entr%s of %s "
			        "in %s%s%s: not deleted by this plan; remove %s once %s's "
			        "tests pass on a Mac (mps-verify notes %s)\n", p->xfail_stay,
			        p->xfail_stay == 1 ? "y" : "ies", p->op,
			        p->hm.have_common_mps ? COMMON_MPS_REL : "",
			        p->hm.have_common_mps && p->hm.have_test_mps ? " and " : "",
			        p->hm.have_test_mps ? TEST_MPS_REL : "",
			        p->xfail_stay == 1 ? "it" : "them", p->op,
			        p->xfail_stay == 1 ? "it" : "each");
		else if (nx == 0 && (p->hm.have_common_mps || p->hm.have_test_mps))
			fprintf(out, "test lists: no expected-failure or skip entry of %s "
			        "in %s%s%s\n", p->op,
			        p->hm.have_common_mps ? COMMON_MPS_REL : "",
			        p->hm.have_common_mps && p->hm.have_test_mps ? " or " : "",
			        p->hm.have_test_mps ? TEST_MPS_REL : "");
		else if (nx == 0)
			fprintf(out, "test lists: neither %s nor %s exists: not checked\n",
			        COMMON_MPS_REL, TEST_MPS_REL);
	}
	any = 0;
	for (i = 0; i < p->rt.n; i++) {
		const struct rt_item *it = &p->rt.items[i];
		if (!it->kept)
			continue;
		if (!any++)
			fputs("keep:\n", out);
		fprintf(out, "  %s:%lu: %s%s: %s\n", p->hm.files[it->file].rel,
		        it->line, it->what == RT_HELPER ? "helper " : "", it->name,
		        it->detail);
	}
	if (p->nnotplanned) {
		fputs("not planned:\n", out);
		for (i = 0; i < p->nnotplanned; i++)
			fprintf(out, "  %s: %s\n", p->notplanned[i].what,
			        p->notplanned[i].text);
	}
	if (p->nleft) {
		fputs("left to you:\n", out);
		for (i = 0; i < p->nleft; i++) {
			const struct mg_note *n = &p->left[i];
			if (n->path)
				fprintf(out, "  %s:%lu: %s\n", n->path, n->line, n->text);
			else
				fprintf(out, "  %s\n", n->text);
		}
	}
}

static json_t *names_json(cs_dtset s)
{
	json_t *a = json_array();
	int d;
	for (d = 0; d < CS_NDTYPES; d++)
		if (s & CS_BIT(d))
			json_array_append_new(a, json_string(cs_dtype_name(d)));
	return a;
}

static json_t *check_json(unsigned allowed)
{
	json_t *a;
	size_t i;
	if (!allowed)
		return json_null();
	a = json_array();
	for (i = 0; i < 11; i++)
		if (allowed & (1u << i))
			json_array_append_new(a, json_string(mr_dtypes[i]));
	return a;
}

static void emit(FILE *out, json_t *o)
{
	json_dumpf(o, out, JSON_COMPACT | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	json_decref(o);
}

static json_t *part(const char *name)
{
	json_t *o = json_object();
	json_object_set_new(o, "part", json_string(name));
	return o;
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static void own_read_json(FILE *out, const char *side, const struct ok_read *r)
{
	json_t *o = part("read");
	json_object_set_new(o, "side", json_string(side));
	json_object_set_new(o, "function", str_or_null(r->fn));
	json_object_set_new(o, "file", str_or_null(r->at.file));
	json_object_set_new(o, "line", r->at.file ? json_integer((json_int_t)r->at.line)
	                                          : json_null());
	emit(out, o);
}

/* the own-kernel parts: "own" (what: replace, delete, keep), "read"
 * (side: CPU, CUDA, meta) and "own-dtypes" */
static void own_json(FILE *out, const struct ok_plan *ok)
{
	size_t i;
	for (i = 0; i < ok->nfns; i++) {
		const struct ok_fn *f = &ok->fns[i];
		json_t *o = part("own");
		json_object_set_new(o, "what", json_string(
		    f->what == OK_REPLACE ? "replace" : f->what == OK_DELETE ? "delete"
		                                                             : "keep"));
		json_object_set_new(o, "name", json_string(f->name));
		json_object_set_new(o, "file", json_string(f->file));
		json_object_set_new(o, "line", json_integer((json_int_t)f->line));
		json_object_set_new(o, "last", json_integer((json_int_t)f->last));
		json_object_set_new(o, "graph", json_boolean(f->graph));
		json_object_set_new(o, "detail", json_string(f->detail));
		json_object_set_new(o, "row", str_or_null(f->row));
		json_object_set_new(o, "follows", str_or_null(f->follows));
		emit(out, o);
	}
	own_read_json(out, "CPU", &ok->cpu);
	own_read_json(out, "CUDA", &ok->cuda);
	if (ok->meta.fn)
		own_read_json(out, "meta", &ok->meta);
	if (ok->have_dtypes) {
		json_t *o = part("own-dtypes"), *a = json_array();
		int d;
		json_object_set_new(o, "cpu", names_json(ok->dt.types));
		for (d = 0; d < CS_NDTYPES; d++)
			if (ok->types & CS_BIT(d))
				json_array_append_new(a, json_string(cs_metal_token(d)));
		json_object_set_new(o, "metal", a);
		json_object_set_new(o, "file", str_or_null(ok->dt.def.file));
		json_object_set_new(o, "line", json_integer((json_int_t)ok->dt.def.line));
		emit(out, o);
	}
}

/* the kernel parts of the plan as JSON: kernel, dtypes, insert, math */
static void json_kernel(FILE *out, const struct mg_plan *p, int written)
{
	size_t i, j;

	{
		json_t *o = part("kernel");
		json_object_set_new(o, "kind",
		                    p->kind >= 0 ? json_string(mr_kind_name(p->kind))
		                                 : json_null());
		json_object_set_new(o, "name", json_string(p->name));
		json_object_set_new(o, "from",
		                    p->kind_given ? json_string("--kind")
		                    : p->out      ? json_string(p->out->name)
		                                  : json_null());
		json_object_set_new(o, "stub", str_or_null(p->stub));
		if (p->kind >= 0 && mr_kind_alpha(p->kind) && p->scalar_decl) {
			json_t *sc = json_object();
			json_object_set_new(sc, "name", json_string(p->scalar_name));
			json_object_set_new(sc, "metal", str_or_null(p->alpha));
			json_object_set_new(sc, "parameter", json_string(p->scalar_decl));
			json_object_set_new(sc, "passed", json_string(p->scalar_pass));
			json_object_set_new(sc, "dtype", str_or_null(p->scalar_dtype));
			json_object_set_new(sc, "from", str_or_null(p->scalar_from));
			json_object_set_new(sc, "none", str_or_null(p->scalar_none));
			json_object_set_new(o, "scalar", sc);
		} else {
			json_object_set_new(o, "scalar", json_null());
		}
		emit(out, o);
	}
	{
		json_t *o = part("dtypes");
		json_object_set_new(o, "source",
		                    json_string(p->dtsource == MG_DT_CPU ? "cpu"
		                                : p->dtsource == MG_DT_GIVEN ||
		                                  p->dtsource == MG_DT_GIVEN_CPU
		                                    ? "given"
		                                    : "none"));
		if (p->have_cpu && p->cpu.found) {
			json_object_set_new(o, "cpu_function", json_string(p->cpu.fn));
			json_object_set_new(o, "cpu_at",
			                    p->cpu.def.file
			                        ? json_string(p->cpu.def.file)
			                        : json_null());
			json_object_set_new(o, "cpu_line",
			                    json_integer((json_int_t)p->cpu.def.line));
			json_object_set_new(o, "cpu_dtypes", names_json(p->cpu.types));
		} else {
			json_object_set_new(o, "cpu_function", json_null());
			json_object_set_new(o, "cpu_dtypes", json_null());
		}
		if (p->have_rule) {
			json_object_set_new(o, "rule", json_string(cs_rule_name(p->rule.rule)));
			json_object_set_new(o, "meta", str_or_null(p->rule.meta));
			json_object_set_new(o, "before_stub", names_json(p->rule.before_stub));
			json_object_set_new(o, "rejects", names_json(p->rule.rejects));
		} else {
			json_object_set_new(o, "rule", json_null());
		}
		json_object_set_new(o, "iterator",
		                    p->have_iter && p->iter.builder
		                        ? json_string(p->iter.builder) : json_null());
		json_object_set_new(o, "opmath", json_boolean(p->opmath));
		if (p->cond_input) {
			json_object_set_new(o, "condition", json_integer(p->cond_input));
			json_object_set_new(o, "condition_at", json_string(p->cond_at));
		}
		json_object_set_new(o, "dropped", names_json(p->dropped));
		json_object_set_new(o, "pairs", rg_pairs_json(p->pairs, p->npairs));
		if (p->ngiven_out) /* several stubs: what --dtypes left out */
			json_object_set_new(o, "given_out",
			                    rg_pairs_json(p->given_out, p->ngiven_out));
		json_object_set_new(o, "check", check_json(p->check));
		emit(out, o);
	}
	if (p->rg_ok)
		for (i = 0; i < p->rg.nitems; i++) {
			const struct rg_item *it = &p->rg.items[i];
			json_t *o;
			if (!it->present && !it->text)
				continue;
			o = part("insert");
			json_object_set_new(o, "what", json_string(rg_what_name(it->what)));
			json_object_set_new(o, "file", json_string(file_rel(p, it->file)));
			json_object_set_new(o, "line", json_integer((json_int_t)it->line));
			json_object_set_new(o, "action",
			                    json_string(it->present ? "present"
			                                : written   ? "inserted"
			                                            : "insert"));
			if (it->what == RG_REG) {
				json_t *c = json_array();
				for (j = 0; j < it->ncalls; j++)
					json_array_append_new(c, json_string(it->calls[j]));
				json_object_set_new(o, "calls", c);
				json_object_set_new(o, "dtypes", rg_pairs_json(it->pairs, it->npairs));
			} else {
				json_object_set_new(o, "label", str_or_null(it->label));
			}
			if (it->what == RG_HOST_STUB)
				json_object_set_new(o, "check", json_boolean(it->check));
			if (!it->present)
				json_object_set_new(o, "text", json_string(it->text));
			emit(out, o);
		}
	if (new_functor(p) && p->math.tried)
		for (i = 0; i < p->math.nov; i++) {
			const struct tr_overload *ov = &p->math.ov[i];
			json_t *o = part("math");
			char *fn = xasprintf("%s_functor", p->name);
			json_object_set_new(o, "functor", json_string(fn));
			free(fn);
			json_object_set_new(o, "overload", json_string(tr_cls_name(ov->cls)));
			json_object_set_new(o, "in", json_string(ov->in));
			json_object_set_new(o, "out", json_string(ov->out));
			json_object_set_new(o, "status",
			                    json_string(ov->translated ? "translated" : "left"));
			json_object_set_new(o, "side", str_or_null(ov->side));
			json_object_set_new(o, "file", str_or_null(ov->file));
			json_object_set_new(o, "line", ov->file
			                                   ? json_integer((json_int_t)ov->line)
			                                   : json_null());
			json_object_set_new(o, "construct", str_or_null(ov->construct));
			json_object_set_new(o, "verdict", str_or_null(ov->verdict_text));
			if (p->math.cuda_fn) {
				char *k = xasprintf("%s:%lu: %s", p->math.cuda_file,
				                    p->math.cuda_line, p->math.cuda_fn);
				json_object_set_new(o, "cuda_kernel", json_string(k));
				free(k);
			} else {
				json_object_set_new(o, "cuda_kernel", json_null());
			}
			json_object_set_new(o, "cuda_lambdas",
			                    json_integer((json_int_t)p->math.cuda_lambdas));
			json_object_set_new(o, "text", json_string(ov->body));
			emit(out, o);
		}
}

void mg_write_json(FILE *out, const struct mg_plan *p, int written)
{
	size_t i, j;
	for (i = 0; i < p->fold.nrows; i++) {
		const struct fold_row *r = &p->fold.rows[i];
		json_t *o = part("row"), *st;
		json_object_set_new(o, "op", json_string(p->op));
		json_object_set_new(o, "function", json_string(r->f->name));
		json_object_set_new(o, "line", json_integer((json_int_t)(
		                                   r->at ? r->at->line : r->f->line)));
		json_object_set_new(o, "action",
		                    json_string(fold_action_name(r->action, written)));
		json_object_set_new(o, "kernel", str_or_null(r->kernel));
		json_object_set_new(o, "reason", str_or_null(r->why));
		st = json_array();
		for (j = 0; j < r->nstubs; j++)
			json_array_append_new(st, json_string(r->stubs[j].name));
		json_object_set_new(o, "stubs", st);
		emit(out, o);
	}
	for (i = 0; i < p->nshared; i++) {
		const struct nf_dispatch *d = shared_mps_line(p->shared[i]);
		json_t *o = part("row");
		json_object_set_new(o, "op", json_string(p->op));
		json_object_set_new(o, "function", json_string(p->shared[i]->name));
		json_object_set_new(o, "line", json_integer((json_int_t)(
		                                   d ? d->line : p->shared[i]->line)));
		json_object_set_new(o, "action", json_string("shared"));
		json_object_set_new(o, "kernel",
		                    str_or_null(d ? lex_unqualified(d->kernel) : NULL));
		json_object_set_new(o, "reason", json_null());
		json_object_set_new(o, "stubs", json_array());
		emit(out, o);
	}
	if (p->own.planned)
		own_json(out, &p->own);
	for (i = 0; i < p->nstubs; i++) {
		json_t *o = part("stub");
		int planned;
		json_object_set_new(o, "name", json_string(p->stubs[i].name));
		json_object_set_new(o, "reached_by", json_string(p->stubs[i].by));
		json_object_set_new(o, "reached_at", json_string(p->stubs[i].where));
		json_object_set_new(o, "declared", json_boolean(p->stubs[i].declared));
		for (j = 0, planned = p->stub && !strcmp(p->stub, p->stubs[i].name) &&
		                      !left_out(p);
		     j < p->nkernels && !planned; j++)
			planned = !strcmp(p->kernels[j].stub, p->stubs[i].name) &&
			          !left_out(&p->kernels[j]);
		json_object_set_new(o, "planned", json_boolean(planned));
		emit(out, o);
	}
	for (i = 0; i < p->nkernels; i++) {
		struct mg_plan q;
		struct priv qpv;
		with_kernel(&q, &qpv, p, &p->kernels[i]);
		json_kernel(out, &q, written);
	}
	json_kernel(out, p, written);
	for (i = 0; i < p->rt.n; i++) {
		const struct rt_item *it = &p->rt.items[i];
		json_t *o = part(it->kept ? "keep" : "delete");
		json_object_set_new(o, "what", json_string(rt_what_name(it->what)));
		json_object_set_new(o, "file", json_string(p->hm.files[it->file].rel));
		json_object_set_new(o, "line", json_integer((json_int_t)it->line));
		json_object_set_new(o, "last", json_integer((json_int_t)it->last));
		json_object_set_new(o, "name", json_string(it->name));
		json_object_set_new(o, "detail", str_or_null(it->detail));
		if (!it->kept)
			json_object_set_new(o, "action",
			                    json_string(written ? "deleted" : "delete"));
		emit(out, o);
	}
	for (i = 0; i < p->nnotplanned; i++) {
		json_t *o = part("not-planned");
		json_object_set_new(o, "what", json_string(p->notplanned[i].what));
		json_object_set_new(o, "why", json_string(p->notplanned[i].text));
		emit(out, o);
	}
	for (i = 0; i < p->nleft; i++) {
		json_t *o = part("left");
		json_object_set_new(o, "what", json_string(p->left[i].what));
		json_object_set_new(o, "text", json_string(p->left[i].text));
		json_object_set_new(o, "file", str_or_null(p->left[i].path));
		json_object_set_new(o, "line", p->left[i].path
		                                   ? json_integer((json_int_t)p->left[i].line)
		                                   : json_null());
		emit(out, o);
	}
	{
		json_t *o = part("summary");
		size_t n = mg_changed(p);
		json_object_set_new(o, "op", json_string(p->op));
		json_object_set_new(o, "files", json_integer((json_int_t)n));
		json_object_set_new(o, "action",
		                    json_string(n == 0 ? "nothing"
		                                : written ? "written"
		                                          : "plan"));
		emit(out, o);
	}
}

/* ---- after writing ---- */

int mg_verify_written(const char *root, const char *op,
                      const struct nf_index *old, struct cs_lazy *cs, int json)
{
	struct nf_index ix;
	struct hs_model hm;
	struct vf_input in;
	struct vf_report r;
	struct rp_filter flt;
	const char *ops[1];
	char *path = xasprintf("%s/%s", root, NF_YAML_REL);
	int rc;

	if (nf_load(&ix, path, NF_YAML_REL) != 0) {
		free(path);
		return MK_EXIT_ERROR;
	}
	free(path);
	if (hs_load(&hm, root) != 0) {
		nf_free(&ix);
		return MK_EXIT_ERROR;
	}
	ops[0] = op;
	memset(&in, 0, sizeof in);
	in.ix = &ix;
	in.before = old;
	in.hm = &hm;
	in.cs = cs->ok ? &cs->m : NULL;
	in.root = root;
	in.ops = ops;
	in.nops = 1;
	if (vf_run(&in, &r) != 0) {
		hs_free(&hm);
		nf_free(&ix);
		return MK_EXIT_ERROR;
	}
	memset(&flt, 0, sizeof flt);
	if (!json)
		printf("verify (mps-verify's rules on %s as written):\n", op);
	fflush(stdout);
	rc = rp_write(stdout, stderr, "mps-migrate", &r, &flt,
	              json ? RP_JSON : RP_TEXT, ops, 1);
	vf_report_free(&r);
	hs_free(&hm);
	nf_free(&ix);
	return rc;
}
