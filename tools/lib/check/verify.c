/* verify.c — see verify.h.  The rules, in the order of enum vf_rule. */
#include "check/verify.h"
#include "base/cli.h"
#include "base/diag.h"
#include "base/lex.h"
#include "read/dtypes.h"
#include "read/stubs.h"

#include <stdio.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

const struct vf_rule_info vf_rules[VF_NRULES] = {
    {"legacy-dispatch-row", VF_ERROR, VF_DISPATCH,
     "a row keeps `MPS: x_mps` while the CPU/CUDA line of the row, or "
     "another row of the operator, is shared",
     "List MPS on the shared line of the row (mps-dispatch OP folds it) once "
     "the shared kernel's stub has an MPS registration, then delete the old "
     "MPS kernel."},
    {"partial-migration", VF_ERROR, VF_DISPATCH,
     "some rows of the operator are shared (and reach a stub or a Metal "
     "kernel) while others keep their own MPS kernel",
     "Migrate every overload row of the operator, or none: fold the "
     "remaining MPS-alone rows (mps-dispatch OP)."},
    {"no-mps-kernel", VF_WARNING, VF_DISPATCH,
     "a row of the operator has a CPU kernel and no MPS kernel",
     "The operator is not on MPS yet: list MPS on the shared line of its "
     "structured out row (mps-dispatch --add OP) and register its Metal "
     "kernel and stub (mps-migrate OP)."},
    {"mpsgraph-host-path", VF_ERROR, VF_HOST,
     "an old MPS kernel of the operator is still defined and builds an "
     "MPSGraph",
     "Delete the old MPS kernel (the function with its body, or the macro "
     "line that defines it) once the rows are shared."},
    {"graph-left-beside-metal", VF_ERROR, VF_HOST,
     "the operator's own MPS kernel launches a Metal kernel now, and a graph "
     "path is left beside it: the kernel still builds an MPSGraph (itself "
     "or through a helper), or a function of its host file builds one and "
     "nothing uses it any more",
     "Take the graph out of the kernel's body (keep a helper another "
     "operator still calls, stop calling it from this kernel), and delete "
     "the graph-building functions nothing uses."},
    {"dead-mps-definition", VF_ERROR, VF_HOST,
     "an MPS kernel of the operator is defined but no dispatch row names it "
     "and no host code calls it",
     "Delete the definition: a TORCH_IMPL_FUNC whose kernel no row names "
     "does not compile (its structured class is generated only for a "
     "kernel name some row gives), and any other such function is dead "
     "code."},
    {"undefined-call", VF_ERROR, VF_HOST,
     "host code calls a function named like an MPS kernel (*_mps, mps_*) "
     "that no file of the tree defines",
     "Call the function that replaced it (often the shared kernel or "
     "another operator), or restore the definition."},
    {"stub-wraps-mpsgraph", VF_ERROR, VF_HOST,
     "the operator's stub is registered with a function or macro whose body "
     "builds an MPSGraph",
     "Register the stub with a function that launches the Metal kernel "
     "(lib.exec_unary_kernel / exec_binary_kernel), or with "
     "REGISTER_UNARY_TI_DISPATCH(NAME)."},
    {"duplicate-stub", VF_ERROR, VF_HOST,
     "the operator's stub is registered for MPS more than once",
     "Keep one REGISTER_DISPATCH of the stub for MPS."},
    {"missing-stub", VF_ERROR, VF_HOST,
     "the operator's rows are shared but MPS registers no stub the shared "
     "kernel reaches",
     "Register each named stub for MPS (REGISTER_DISPATCH(X_stub, &fn), or "
     "a wrapper such as REGISTER_UNARY_TI_DISPATCH): without it the shared "
     "kernel fails on MPS at run time."},
    {"unregistered-path-stub", VF_NOTE, VF_HOST,
     "the shared kernel can also reach a stub that MPS does not register, "
     "while MPS registers others the kernel reaches",
     "Check that MPS never takes the path to that stub (a branch for another "
     "device, an option MPS does not use), or register it too."},
    {"unregistered-kernel", VF_ERROR, VF_KERNEL,
     "host code asks for a Metal kernel name that no .metal file registers "
     "(the whole name: with a scalar, NAME_dense_OUT_IN_ALPHA, ALPHA the "
     "dtype the call passes or else the common dtype; every kernel the "
     "macro's #define in c10/metal instantiates, dense, strided, ...)",
     "Register the kernel in the .metal file (REGISTER_UNARY_OP(NAME, IN, "
     "OUT) and friends, mps-register), or ask for the name the file "
     "registers: with a scalar, pass the dtype its registrations take "
     "(exec_unary_kernel(iter, \"NAME\", eps, ScalarType::Float))."},
    {"functor-placeholder", VF_ERROR, VF_KERNEL,
     "NAME_functor still holds the marker " HS_PLACEHOLDER
     " that mps-register --functor writes",
     "Write the math of the functor and remove the marker."},
    {"missing-overload", VF_ERROR, VF_KERNEL,
     "a registration has an integral input but every operator() of the "
     "functor is limited to floating-point or complex types",
     "Add an integral overload to the functor, or drop the integral "
     "registrations (the .metal file does not compile as it is)."},
    {"unused-kernel", VF_WARNING, VF_KERNEL,
     "a Metal kernel of the kernel files that no host code asks for (a name "
     "the host builds, op_name + \"_alpha\" beside a literal \"add\", "
     "counts as asked)",
     "Delete the kernel, or launch it from the host stub (its name, or the "
     "start the host completes with a dtype suffix, as a string literal)."},
    {"stale-include", VF_WARNING, VF_HOST,
     "#include <ATen/ops/OP_native.h> in a file that uses none of the "
     "at::native functions it declares (the kernels of OP's rows, its stubs, "
     "its old MPS kernels)",
     "Remove the #include."},
    {"xfail-leftover", VF_NOTE, VF_TEST,
     "the operator is still listed as an expected failure or skip in the "
     "MPS test lists",
     "Run the operator's tests on a Mac; remove the entry once they pass."},
};

int vf_rule_parse(const char *s)
{
	int i;
	for (i = 0; i < VF_NRULES; i++)
		if (strcmp(vf_rules[i].id, s) == 0)
			return i;
	return -1;
}

const char *vf_sev_name(enum vf_sev s)
{
	static const char *const n[] = {"error", "warning", "note"};
	return n[s];
}

const char *vf_layer_name(enum vf_layer l)
{
	static const char *const n[] = {"dispatch", "kernel", "host", "test"};
	return n[l];
}

const char *vf_family_name(enum vf_family f)
{
	static const char *const n[] = {"unary", "binary", "pointwise",
	                                "reduction", "other"};
	return n[f];
}

const char *vf_kind_name(enum vf_kind k)
{
	static const char *const n[] = {"pointwise", "reduction", "norm",
	                                "softmax", "loss", "indexing", "pooling",
	                                "linalg", "random", "fft", "shape",
	                                "other"};
	return n[k];
}

/* ---------------- the state of one run ---------------- */

struct ctx {
	const struct vf_input *in;
	const struct nf_index *ix, *bx;
	struct hs_model *hm;
	struct vf_report *r;
	struct vf_finding *f;
	size_t nf, capf;
	struct hs_map opmap;
	struct hs_map kernels;   /* every kernel name of the current yaml */
	struct hs_map called;    /* every function name host code calls or
	                            registers */
	unsigned char *def_reported;
	char **graph_names;      /* names of every definition, sorted */
	size_t ngraph_names;
	const struct cs_model *cs; /* the C++ sources: given, or read on first
	                            need through lazy */
	struct cs_lazy lazy;
	char **decl_stubs;       /* by operator: DECLARE_DISPATCH stubs */
	size_t *ndecls;
	struct hs_map reached;   /* kernel name → index into disc */
	struct cs_discovery *disc;
	size_t ndisc, capdisc;
	size_t capgraphs;        /* of r->graphs */
};

static void add_finding(struct ctx *c, const char *path, unsigned long line,
                        unsigned long col, int rule, long op, char *msg)
{
	GROW(c->f, c->nf, c->capf);
	c->f[c->nf].path = path;
	c->f[c->nf].line = line;
	c->f[c->nf].col = col;
	c->f[c->nf].rule = rule;
	c->f[c->nf].op = op;
	c->f[c->nf].defect = 1;
	c->f[c->nf].msg = msg;
	c->nf++;
}

static void add_at(struct ctx *c, struct hs_where w, int rule, long op,
                   char *msg)
{
	unsigned long line, col;
	hs_line_col(c->hm, w, &line, &col);
	add_finding(c, c->hm->files[w.file].rel, line, col, rule, op, msg);
}

static long op_get(const struct ctx *c, const char *name)
{
	return hs_map_get(&c->opmap, name);
}

static long op_add(struct ctx *c, const char *name)
{
	struct vf_report *r = c->r;
	long k = op_get(c, name);
	if (k >= 0)
		return k;
	r->ops = xrealloc(r->ops, (r->nops + 1) * sizeof *r->ops);
	memset(&r->ops[r->nops], 0, sizeof r->ops[r->nops]);
	r->ops[r->nops].name = xstrdup(name);
	hs_map_put(&c->opmap, name, (long)r->nops);
	return (long)r->nops++;
}

/* The operator a stub or kernel NAME belongs to: NAME itself, else the
 * longest operator name NAME starts with followed by '_'.  A trailing
 * "_stub" is dropped first.  -1 when none. */
static long op_of(const struct ctx *c, const char *name)
{
	char *s = xstrdup(name), *u;
	size_t n = strlen(s);
	long k = -1;
	if (n > 5 && strcmp(s + n - 5, "_stub") == 0)
		s[n - 5] = '\0';
	for (;;) {
		if ((k = op_get(c, s)) >= 0)
			break;
		u = strrchr(s, '_');
		if (!u || u == s)
			break;
		*u = '\0';
	}
	free(s);
	return k;
}

/* The OpInfo name of an xfail entry → operator ("nn.functional.gelu" →
 * gelu, "special.i0e" → special_i0e, "linalg.solve" → linalg_solve,
 * "scatter_reduceamax" → scatter_reduce): hostscan.h hs_xfail_op. */
static int is_op_cb(const char *name, int prefix, void *arg)
{
	const struct ctx *c = arg;
	return prefix ? hs_map_has_prefix(&c->opmap, name) : op_get(c, name) >= 0;
}

static long op_of_xfail(const struct ctx *c, const char *key)
{
	char *o = hs_xfail_op(key, is_op_cb, (void *)c);
	long k = o ? op_get(c, o) : -1;
	free(o);
	return k;
}

static struct vf_op *OP(const struct ctx *c, long o) { return &c->r->ops[o]; }

static int sel(const struct ctx *c, long op)
{
	return c->in->all || (op >= 0 && c->r->ops[op].selected);
}

static void join_keys(struct buf *b, const struct nf_dispatch *d)
{
	size_t i;
	for (i = 0; i < d->nkeys; i++)
		buf_printf(b, "%s%s", i ? ", " : "", d->keys[i]);
}

/* The dispatch line of f listing both CPU and CUDA (not MPS), or NULL. */
static const struct nf_dispatch *cpu_cuda_line(const struct nf_func *f)
{
	size_t i;
	for (i = 0; i < f->ndispatch; i++) {
		const struct nf_dispatch *d = &f->dispatch[i];
		if (nf_dispatch_has_key(d, "CPU") && nf_dispatch_has_key(d, "CUDA") &&
		    !nf_dispatch_has_key(d, "MPS"))
			return d;
	}
	return NULL;
}

/* The dispatch line of f that gives the CPU kernel (a portable dense
 * kernel: CUDA-only rows such as cuDNN's are not MPS candidates), or
 * NULL. */
static const struct nf_dispatch *cpu_line(const struct nf_func *f)
{
	size_t i;
	for (i = 0; i < f->ndispatch; i++)
		if (nf_dispatch_has_key(&f->dispatch[i], "CPU"))
			return &f->dispatch[i];
	return NULL;
}

/* MPS alone on its dispatch line (the row's own MPS kernel). */
static const struct nf_dispatch *mps_alone(const struct nf_func *f)
{
	const struct nf_dispatch *d = nf_mps_dispatch(f);
	return d && d->nkeys == 1 ? d : NULL;
}

static const struct nf_func *row(const struct ctx *c, const struct vf_op *op,
                                 size_t i)
{
	return &c->ix->funcs[op->rows[i]];
}

/* ---------------- what the shared kernels reach ---------------- */

/* How a shared row's kernel reaches the device (stubs.h cs_discover,
 * once per kernel name), or NULL when the tree's C++ sources were not
 * read. */
static const struct cs_discovery *reach(struct ctx *c, const char *kernel)
{
	long k;
	if (!c->cs && c->lazy.root) {
		/* read on first need: an operator without shared rows never
		 * pays for the C++ sources */
		c->cs = cs_lazy_get(&c->lazy);
		c->r->have_sources = c->cs->have_sources;
	}
	if (!c->cs || !c->cs->have_sources || !kernel)
		return NULL;
	k = hs_map_get(&c->reached, kernel);
	if (k < 0) {
		GROW(c->disc, c->ndisc, c->capdisc);
		k = (long)c->ndisc++;
		cs_discover(c->cs, kernel, &c->disc[k]);
		hs_map_put(&c->reached, kernel, k);
	}
	return &c->disc[k];
}

/* A shared row reaches a stub or a Metal kernel (not a wrapper that
 * calls other operators): with the C++ sources, its kernel reaches a
 * stub; without, the operator has an MPS stub registration or a Metal
 * kernel of its own. */
static int shared_reaches(struct ctx *c, const struct vf_op *op,
                          const struct nf_func *f)
{
	const struct cs_discovery *k = reach(c, f->mps_kernel);
	if (k)
		return k->kind == CS_STUB_BACKED;
	return op->nregs > 0 || op->nmetal > 0;
}

static int op_has_shared(const struct ctx *c, const struct vf_op *op)
{
	size_t i;
	for (i = 0; i < op->nrows; i++)
		if (row(c, op, i)->route == ROUTE_SHARED)
			return 1;
	return 0;
}

static int registered(const struct ctx *c, const char *stub)
{
	size_t i;
	for (i = 0; i < c->hm->nregs; i++)
		if (strcmp(c->hm->regs[i].stub, stub) == 0)
			return 1;
	return 0;
}

/* ---------------- per-operator rules ---------------- */

static void rule_rows(struct ctx *c, long o)
{
	struct vf_op *op = OP(c, o);
	size_t i, nshared = 0, nmps = 0, nreach = 0;
	const struct nf_func *first_shared = NULL, *first_mps = NULL;
	struct buf sh, ms;

	buf_init(&sh);
	buf_init(&ms);
	for (i = 0; i < op->nrows; i++) {
		const struct nf_func *f = row(c, op, i);
		if (f->route == ROUTE_SHARED) {
			if (!nshared++)
				first_shared = f;
			buf_printf(&sh, "%s%s", sh.len ? ", " : "", f->name);
		} else if (f->route == ROUTE_MPS_SPECIFIC && mps_alone(f)) {
			if (!nmps++)
				first_mps = f;
			buf_printf(&ms, "%s%s", ms.len ? ", " : "", f->name);
		}
	}
	for (i = 0; nmps && i < op->nrows; i++)
		if (row(c, op, i)->route == ROUTE_SHARED &&
		    shared_reaches(c, op, row(c, op, i)))
			nreach++;
	/* legacy-dispatch-row */
	for (i = 0; i < op->nrows; i++) {
		const struct nf_func *f = row(c, op, i);
		const struct nf_dispatch *d, *cc;
		struct buf m;
		if (f->route != ROUTE_MPS_SPECIFIC || !(d = mps_alone(f)))
			continue;
		cc = cpu_cuda_line(f);
		if (!cc && !nshared)
			continue;
		buf_init(&m);
		buf_printf(&m, "%s: `MPS: %s` is a kernel of MPS alone while ", f->name,
		           lex_unqualified(d->kernel));
		if (cc) {
			const struct cs_discovery *k = reach(c, lex_unqualified(cc->kernel));
			buf_puts(&m, "`");
			join_keys(&m, cc);
			buf_printf(&m, ": %s` in the same row is shared; list MPS on "
			           "that line", lex_unqualified(cc->kernel));
			if (k && k->kind == CS_STUB_BACKED) {
				/* the stubs the shared kernel reaches: those MPS does not
				 * register yet come first in what to do */
				size_t j, nmiss = 0, shown = 0, nneed = 0;
				for (j = 0; j < k->nstubs; j++)
					if (!k->stubs[j].guard) { /* only on other devices */
						nneed++;
						nmiss += !registered(c, k->stubs[j].name);
					}
				buf_puts(&m, !nneed ? "" : nmiss ? " once MPS registers "
				                                 : " (MPS registers ");
				for (j = 0; j < k->nstubs && nneed; j++) {
					if (k->stubs[j].guard ||
					    (nmiss && registered(c, k->stubs[j].name)))
						continue;
					buf_printf(&m, "%s%s",
					           shown ? shown + 1 == (nmiss ? nmiss : nneed)
					                       ? " and " : ", "
					                 : "",
					           k->stubs[j].name);
					shown++;
				}
				if (nneed)
					buf_printf(&m, nmiss ? ", which `%s` reaches"
					                     : ", which `%s` reaches, already)",
					           lex_unqualified(cc->kernel));
			}
		} else {
			buf_printf(&m, "%s uses the shared kernel `%s`; route this row "
			           "the same way", first_shared->name,
			           first_shared->mps_kernel);
		}
		add_finding(c, NF_YAML_REL, d->line, d->col, VF_LEGACY_ROW, o, m.data);
	}
	/* no-mps-kernel: rows with a CPU kernel and none for MPS */
	{
		const struct nf_func *first_none = NULL;
		const struct nf_dispatch *dense = NULL;
		size_t nnone = 0, nmps_rows = 0;
		for (i = 0; i < op->nrows; i++) {
			const struct nf_func *f = row(c, op, i);
			const struct nf_dispatch *d = cpu_line(f);
			if (f->route == ROUTE_SHARED || f->route == ROUTE_MPS_SPECIFIC)
				nmps_rows++;
			if (f->route != ROUTE_NONE || f->autogen || !d)
				continue;
			nnone++;
			/* the structured out row first: the one to route */
			if (!first_none || (f->kind == NF_OUT && f->structured &&
			                    !(first_none->kind == NF_OUT &&
			                      first_none->structured))) {
				first_none = f;
				dense = d;
			}
		}
		if (first_none) {
			struct buf m;
			buf_init(&m);
			buf_printf(&m, "%s has no MPS kernel (`", first_none->name);
			join_keys(&m, dense);
			buf_printf(&m, ": %s`)", lex_unqualified(dense->kernel));
			if (nnone > 1)
				buf_printf(&m, ", nor %s %zu other row%s", nnone == 2 ? "does" : "do",
				           nnone - 1, nnone == 2 ? "" : "s");
			if (nmps_rows)
				buf_printf(&m, " while %zu row%s of %s run%s on MPS", nmps_rows,
				           nmps_rows == 1 ? "" : "s", op->name,
				           nmps_rows == 1 ? "s" : "");
			else if (first_none->kind == NF_OUT && first_none->structured &&
			         nf_dispatch_has_key(dense, "CUDA"))
				buf_printf(&m, ": %s does not run on MPS yet; list MPS on that "
				           "line (mps-dispatch --add %s) and register its Metal "
				           "kernel and stub", op->name, op->name);
			else
				buf_printf(&m, ": %s does not run on MPS yet; give the row an "
				           "MPS kernel", op->name);
			add_finding(c, NF_YAML_REL, dense->line, dense->col, VF_NO_KERNEL, o,
			            m.data);
		}
	}
	/* partial-migration: only when the shared rows reach a stub or a
	 * Metal kernel, not when they are wrappers of other operators */
	if (nreach && nmps) {
		const struct nf_dispatch *d = mps_alone(first_mps);
		add_finding(c, NF_YAML_REL, d->line, d->col, VF_PARTIAL, o,
		            xasprintf("%s: %zu overload row%s shared (%s) but %zu "
		                      "MPS-specific (%s); migrate every row",
		                      op->name, nshared, nshared == 1 ? " is" : "s are",
		                      sh.data, nmps, ms.data));
	}
	buf_free(&sh);
	buf_free(&ms);
}

/* missing-stub.  With the C++ sources: for each shared row, each stub its
 * kernel reaches that MPS does not register, one finding at the row.
 * Without them: when MPS registers no stub of the operator at all and a
 * DECLARE_DISPATCH or the --before rows say it had one to register. */
static void load_decls(struct ctx *c);

/* a stub passed on in the same call as one MPS registers (the same
 * function, at most 3 lines apart): alternatives the callee chooses from,
 * as scatter_impl(..., scatter_reduce_two_stub, scatter_stub, ...) does
 * by whether a reduction is given */
static int passed_beside_registered(const struct ctx *c,
                                    const struct cs_discovery *k,
                                    const struct cs_stub *s)
{
	size_t j;
	if (s->how != CS_PASSED || !s->at.file || !s->in)
		return 0;
	for (j = 0; j < k->nstubs; j++) {
		const struct cs_stub *t = &k->stubs[j];
		unsigned long d;
		if (t == s || t->how != CS_PASSED || !t->at.file || !t->in ||
		    strcmp(t->at.file, s->at.file) != 0 || strcmp(t->in, s->in) != 0 ||
		    !registered(c, t->name))
			continue;
		d = t->at.line > s->at.line ? t->at.line - s->at.line
		                            : s->at.line - t->at.line;
		if (d <= 3)
			return 1;
	}
	return 0;
}

static void rule_missing_stub(struct ctx *c, long o)
{
	struct vf_op *op = OP(c, o);
	const struct nf_func *first_shared = NULL;
	const char *decl_stubs;
	size_t i, j, nreg;
	int evidence;
	if (!op_has_shared(c, op))
		return;
	reach(c, NULL); /* the C++ sources, when there are any */
	if (c->cs && c->cs->have_sources) {
		struct hs_map seen;
		memset(&seen, 0, sizeof seen);
		for (i = 0; i < op->nrows; i++) {
			const struct nf_func *f = row(c, op, i);
			const struct cs_discovery *k;
			const struct nf_dispatch *d;
			if (f->route != ROUTE_SHARED || !(k = reach(c, f->mps_kernel)) ||
			    k->kind != CS_STUB_BACKED)
				continue;
			d = nf_mps_dispatch(f);
			/* none registered: each is missing (the kernel cannot run on
			 * MPS at all); some registered: the others may lie on paths
			 * MPS does not take (a branch for another device, an option
			 * it does not use), a note each */
			nreg = 0;
			for (j = 0; j < k->nstubs; j++)
				nreg += registered(c, k->stubs[j].name);
			for (j = 0; j < k->nstubs; j++) {
				const struct cs_stub *s = &k->stubs[j];
				char *key;
				/* s->guard: reached only on other devices, MPS never
				 * runs it */
				if (registered(c, s->name) || s->guard ||
				    (nreg && passed_beside_registered(c, k, s)))
					continue;
				key = xasprintf("%s %s", f->name, s->name);
				if (hs_map_get(&seen, key) < 0) {
					hs_map_put(&seen, key, 1);
					if (!nreg)
						add_finding(c, NF_YAML_REL, d->line, d->col,
						            VF_MISSING_STUB, o,
						            xasprintf("%s: MPS must register %s (reached "
						                      "at %s:%lu by the shared kernel `%s`) "
						                      "but no MPS registration of it "
						                      "exists (REGISTER_DISPATCH or a "
						                      "wrapper such as "
						                      "REGISTER_UNARY_TI_DISPATCH)",
						                      f->name, s->name, s->at.file,
						                      s->at.line, f->mps_kernel));
					else
						add_finding(c, NF_YAML_REL, d->line, d->col,
						            VF_OTHER_STUB, o,
						            xasprintf("%s: the shared kernel `%s` can also "
						                      "reach %s (at %s:%lu), which MPS "
						                      "does not register; MPS registers "
						                      "%zu of the %zu stubs it reaches: "
						                      "check that MPS never takes that "
						                      "path", f->name, f->mps_kernel,
						                      s->name, s->at.file, s->at.line,
						                      nreg, k->nstubs));
				}
				free(key);
			}
		}
		hs_map_free(&seen);
		return;
	}
	/* without the C++ sources: when MPS registers no stub of the
	 * operator and a DECLARE_DISPATCH or the --before rows say it had
	 * one to register */
	if (op->nregs)
		return;
	load_decls(c);
	decl_stubs = c->decl_stubs[o];
	for (i = 0; i < op->nrows && !first_shared; i++)
		if (row(c, op, i)->route == ROUTE_SHARED)
			first_shared = row(c, op, i);
	evidence = c->ndecls[o] > 0;
	for (i = 0; i < op->nbrows && !evidence; i++)
		if (c->bx->funcs[op->brows[i]].route == ROUTE_MPS_SPECIFIC)
			evidence = 1;
	if (evidence) {
		const struct nf_dispatch *d = nf_mps_dispatch(first_shared);
		char *stubs = decl_stubs ? xstrdup(decl_stubs)
		                         : xasprintf("%s_stub", op->name);
		add_finding(c, NF_YAML_REL, d->line, d->col, VF_MISSING_STUB, o,
		            xasprintf("%s routes MPS to the shared kernel `%s` but "
		                      "no MPS registration of %s exists "
		                      "(REGISTER_DISPATCH or a wrapper such as "
		                      "REGISTER_UNARY_TI_DISPATCH)",
		                      first_shared->name, first_shared->mps_kernel,
		                      stubs));
		free(stubs);
	}
}

static char *graph_detail(const struct hs_def *d)
{
	if (d->macro)
		return xasprintf("%s, through %s", d->why ? d->why : "?", d->macro);
	return xstrdup(d->why ? d->why : "?");
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return x < y ? -1 : x > y;
}

/* The old MPS kernel names of an operator, handed one at a time to a
 * callback; a nonzero return stops the walk (and is returned). */
typedef vf_name_fn name_fn;

/* OP{,_}OVL{,_out}{_mps,_mps_out} for one overload spelling ovl[0, novl) */
static int spelled_with(const char *op, const char *ovl, size_t novl,
                        struct buf *b, name_fn fn, void *arg)
{
	static const char *const ins[] = {"", "_"};
	static const char *const outs[] = {"", "_out"};
	static const char *const tails[] = {"_mps", "_mps_out"};
	size_t j, k, l;
	int r;
	for (j = 0; j < 2; j++)
		for (k = 0; k < 2; k++)
			for (l = 0; l < 2; l++) {
				b->len = 0;
				buf_puts(b, op);
				buf_puts(b, ins[j]);
				buf_add(b, ovl, novl);
				buf_puts(b, outs[k]);
				buf_puts(b, tails[l]);
				if ((r = fn(b->data, arg)) != 0)
					return r;
			}
	return 0;
}

int vf_old_names_spelled(const char *op, const char *overload, vf_name_fn fn,
                         void *arg)
{
	struct buf b, ovl;
	const char *s;
	int r;
	buf_init(&b);
	buf_init(&ovl);
	if (overload[0])
		buf_puts(&ovl, "_");
	for (s = overload; *s; s++) {
		char c = *s >= 'A' && *s <= 'Z' ? (char)(*s - 'A' + 'a') : *s;
		buf_add(&ovl, &c, 1);
	}
	r = spelled_with(op, ovl.data, ovl.len, &b, fn, arg);
	if (!r && ovl.len > 5 && strcmp(ovl.data + ovl.len - 4, "_out") == 0)
		r = spelled_with(op, ovl.data, ovl.len - 4, &b, fn, arg);
	buf_free(&b);
	buf_free(&ovl);
	return r;
}

/* Rows' MPS-alone kernels and, when spelled, the names built from their
 * overload spellings (vf_old_names_spelled). */
static int old_names_rows(const struct vf_op *op, int spelled,
                          const struct nf_index *x, const size_t *rows,
                          size_t n, name_fn fn, void *arg)
{
	size_t i;
	int r;
	for (i = 0; i < n; i++) {
		const struct nf_func *f = &x->funcs[rows[i]];
		const struct nf_dispatch *d = mps_alone(f);
		if (d && !f->autogen && (r = fn(lex_unqualified(d->kernel), arg)) != 0)
			return r;
		if (spelled && f->overload[0] &&
		    (r = vf_old_names_spelled(op->name, f->overload, fn, arg)) != 0)
			return r;
	}
	return 0;
}

/* Every old MPS kernel name of op: the MPS-alone kernels of its rows (and
 * of its --before rows) and, when spelled, PyTorch's naming patterns.
 * The same name may come more than once. */
static int old_names(const struct ctx *c, const struct vf_op *op, int spelled,
                     name_fn fn, void *arg)
{
	int r = 0;
	if (spelled)
		r = vf_old_names_spelled(op->name, "", fn, arg);
	if (!r)
		r = old_names_rows(op, spelled, c->ix, op->rows, op->nrows, fn, arg);
	if (!r && c->bx)
		r = old_names_rows(op, spelled, c->bx, op->brows, op->nbrows, fn, arg);
	return r;
}

struct found {
	struct ctx *c;
	long *v;
	size_t n, cap;
	int dead;      /* 1: collect dead definitions; 0: MPSGraph ones */
};

/* dead: no row of the yaml names it, and no host code calls it (for a
 * TORCH_IMPL_FUNC, which nothing calls, only the rows count) */
static int def_dead(const struct ctx *c, const struct hs_def *d)
{
	if (hs_map_get(&c->kernels, d->name) >= 0)
		return 0;
	return d->impl || hs_map_get(&c->called, d->name) < 0;
}

/* name_fn: the definitions named NAME not reported yet that are dead
 * (fd->dead) or build an MPSGraph and are alive, appended to fd */
static int defs_named(const char *name, void *arg)
{
	struct found *fd = arg;
	struct ctx *c = fd->c;
	const long *d;
	for (d = hs_defs_named(c->hm, name); *d >= 0; d++) {
		const struct hs_def *def = &c->hm->defs[*d];
		int dead;
		if (c->def_reported[*d])
			continue;
		dead = def_dead(c, def);
		if (fd->dead ? !dead : (dead || !def->graph))
			continue;
		c->def_reported[*d] = 1;
		GROW(fd->v, fd->n, fd->cap);
		fd->v[fd->n++] = *d;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of every definition, sorted: an operator none of whose names
 * starts with needs no spelled lookups. */
static void index_def_names(struct ctx *c)
{
	size_t i;
	c->graph_names = xcalloc(c->hm->ndefs + 1, sizeof *c->graph_names);
	for (i = 0; i < c->hm->ndefs; i++)
		c->graph_names[c->ngraph_names++] = c->hm->defs[i].name;
	if (c->ngraph_names > 1)
		qsort(c->graph_names, c->ngraph_names, sizeof *c->graph_names, cmp_str);
}

static int def_name_with_prefix(const struct ctx *c, const char *pre)
{
	size_t lo = 0, hi = c->ngraph_names, n = strlen(pre);
	while (lo < hi) { /* the first name >= pre */
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(c->graph_names[mid], pre) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->ngraph_names && strncmp(c->graph_names[lo], pre, n) == 0;
}

static const struct nf_func *own_kernel_row(const struct ctx *c,
                                            const struct vf_op *op,
                                            const char *name);
static void graph_left_in_kernel(struct ctx *c, long o, long di);

/* mpsgraph-host-path and dead-mps-definition: the definitions named as
 * old MPS kernels of op (graph-left-beside-metal (a) for op's own kernel
 * when it has a Metal path) */
static void rule_definitions(struct ctx *c, long o)
{
	struct vf_op *op = OP(c, o);
	struct found fd;
	size_t i;
	int pass;
	/* the spelled names all start with the operator's name */
	int spelled = def_name_with_prefix(c, op->name);

	for (pass = 0; pass < 2; pass++) {
		memset(&fd, 0, sizeof fd);
		fd.c = c;
		fd.dead = pass == 0;
		old_names(c, op, spelled, defs_named, &fd);
		if (fd.n > 1)
			qsort(fd.v, fd.n, sizeof *fd.v, cmp_long);
		for (i = 0; i < fd.n; i++) {
			const struct hs_def *d = &c->hm->defs[fd.v[i]];
			if (fd.dead) {
				add_at(c, d->at, VF_DEAD_DEF, o,
				       xasprintf("%s%s%s%s of %s is defined but no dispatch row "
				                 "names it%s%s%s",
				                 d->impl ? "TORCH_IMPL_FUNC(" : "`", d->name,
				                 d->impl ? ")" : "`",
				                 d->macro ? " (through a macro line)" : "",
				                 op->name,
				                 d->impl ? ": its structured class no longer "
				                           "exists and the file does not compile"
				                         : " and no host code calls it",
				                 d->graph ? "; it builds an MPSGraph: " : "",
				                 d->graph ? d->why ? d->why : "?" : ""));
			} else if (op->own_metal && own_kernel_row(c, op, d->name)) {
				graph_left_in_kernel(c, o, fd.v[i]);
			} else {
				char *why = graph_detail(d);
				add_at(c, d->at, VF_GRAPH_PATH, o,
				       xasprintf("old MPS kernel `%s` of %s is still defined and "
				                 "builds an MPSGraph (%s)",
				                 d->name, op->name, why));
				free(why);
			}
		}
		free(fd.v);
	}
}

/* ---------------- graph-left-beside-metal (see verify.h) ---------------- */

/* 1 when TEXT[s, e) calls NAME: the identifier followed by '(' */
static int call_in(const char *text, size_t s, size_t e, const char *name)
{
	size_t n = strlen(name);
	const char *p = text + s;
	while ((p = strstr(p, name)) != NULL && (size_t)(p - text) + n <= e) {
		const char *q = p + n;
		if ((p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
		    !(isalnum((unsigned char)*q) || *q == '_')) {
			while (*q == ' ' || *q == '\t' || *q == '\n')
				q++;
			if (*q == '(')
				return 1;
		}
		p += n;
	}
	return 0;
}

const char *const vf_metal_calls[] = {
	"getPipelineStateForFunc", "mtl_dispatch1DJob", "exec_unary_kernel",
	"exec_binary_kernel", "exec_ternary_kernel", NULL};

/* the first call of vf_metal_calls that definition d makes, in its body or
 * through the definitions of host file FILE it calls (seen: one byte per
 * definition), or NULL.  Only FILE's: every graph helper reaches the
 * shared gather/scatter kernels of non-contiguous views (View.mm). */
static const char *launch_of(const struct hs_model *hm, long d, size_t file,
                             unsigned char *seen)
{
	const struct hs_def *def = &hm->defs[d];
	size_t k, j;
	if (seen[d])
		return NULL;
	seen[d] = 1;
	/* in the text: member calls (lib.getPipelineStateForFunc) are no
	 * hs_def.calls */
	for (j = 0; vf_metal_calls[j]; j++)
		if (call_in(hm->files[def->at.file].text, def->ext_start, def->ext_end,
		            vf_metal_calls[j]))
			return vf_metal_calls[j];
	for (k = 0; k < def->ncalls; k++) {
		const char *q = strstr(def->calls[k], "::");
		const long *e;
		for (e = hs_defs_named(hm, q ? q + 2 : def->calls[k]); *e >= 0; e++) {
			const char *r = hm->defs[*e].at.file == file
			                    ? launch_of(hm, *e, file, seen) : NULL;
			if (r)
				return r;
		}
	}
	return NULL;
}

static const char *launches_metal(const struct ctx *c, long d)
{
	unsigned char *seen = xcalloc(c->hm->ndefs + 1, 1);
	const char *r = launch_of(c->hm, d, c->hm->defs[d].at.file, seen);
	free(seen);
	return r;
}

/* the row of op whose own MPS kernel (MPS alone on its line) is NAME */
static const struct nf_func *own_kernel_row(const struct ctx *c,
                                            const struct vf_op *op,
                                            const char *name)
{
	size_t i;
	for (i = 0; i < op->nrows; i++) {
		const struct nf_func *f = row(c, op, i);
		const struct nf_dispatch *d = mps_alone(f);
		if (f->route == ROUTE_MPS_SPECIFIC && d &&
		    strcmp(lex_unqualified(d->kernel), name) == 0)
			return f;
	}
	return NULL;
}

/* (a): definition d of op's own kernel builds an MPSGraph while op has a
 * Metal path.  When the graph comes from a helper, the other definitions
 * calling that helper are named (it stays for them). */
static void graph_left_in_kernel(struct ctx *c, long o, long di)
{
	const struct hs_def *d = &c->hm->defs[di];
	const struct vf_op *op = OP(c, o);
	const struct nf_func *f = own_kernel_row(c, op, d->name);
	const char *launch = launches_metal(c, di);
	char *why = graph_detail(d);
	struct buf m;
	buf_init(&m);
	buf_printf(&m, "`%s`, the own MPS kernel of %s (%s), ", d->name, op->name,
	           f->name);
	if (launch)
		buf_printf(&m, "launches a Metal kernel (%s) and ", launch);
	else
		buf_printf(&m, "beside a definition of it that launches a Metal "
		           "kernel, ");
	buf_printf(&m, "still builds an MPSGraph (%s): the graph path is left "
	           "beside the Metal one", why);
	if (d->why && !d->macro) {
		size_t n = strlen(d->why), k, j, shown = 0;
		if (n > 2 && strcmp(d->why + n - 2, "()") == 0) {
			const char *q = strstr(d->why, "::");
			char *helper = xstrdup(q ? q + 2 : d->why);
			struct buf who;
			const long *h;
			int both = 0;
			helper[strlen(helper) - 2] = '\0';
			for (h = hs_defs_named(c->hm, helper); *h >= 0 && !both; h++)
				both = c->hm->defs[*h].graph && c->hm->defs[*h].at.file == d->at.file &&
				       launches_metal(c, *h) != NULL;
			if (both) {
				buf_printf(&m, "; `%s` builds the graph and launches the Metal "
				           "kernel: take the graph path out of it", helper);
				add_at(c, d->at, VF_GRAPH_LEFT, o, m.data);
				free(helper);
				free(why);
				return;
			}
			buf_init(&who);
			for (k = 0; k < c->hm->ndefs; k++) {
				const struct hs_def *e = &c->hm->defs[k];
				if (strcmp(e->name, d->name) == 0)
					continue;
				for (j = 0; j < e->ncalls; j++) {
					const char *q = strstr(e->calls[j], "::");
					if (strcmp(q ? q + 2 : e->calls[j], helper) == 0)
						break;
				}
				if (j == e->ncalls)
					continue;
				{
					char *tick = xasprintf("`%s`", e->name);
					int dup = who.len && strstr(who.data, tick) != NULL;
					free(tick);
					if (dup) /* overloads of one name */
						continue;
				}
				if (shown < 3)
					buf_printf(&who, "%s`%s`", shown ? ", " : "", e->name);
				shown++;
			}
			if (shown)
				buf_printf(&m, "; stop calling `%s` from it (it stays: %s%s "
				           "call%s it too)", helper, who.data,
				           shown > 3 ? " and others" : "", shown == 1 ? "s" : "");
			else
				buf_printf(&m, "; stop calling `%s` from it, then delete it: "
				           "nothing else calls it", helper);
			buf_free(&who);
			free(helper);
		}
	}
	add_at(c, d->at, VF_GRAPH_LEFT, o, m.data);
	free(why);
}

/* 1 when identifier NAME occurs in TEXT[0, len) outside [skip0, skip1) */
static int ident_outside(const char *text, size_t len, const char *name,
                         size_t skip0, size_t skip1)
{
	size_t n = strlen(name);
	const char *p = text;
	while ((p = strstr(p, name)) != NULL && (size_t)(p - text) < len) {
		size_t at = (size_t)(p - text);
		int before = at > 0 && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
		int after = isalnum((unsigned char)p[n]) || p[n] == '_';
		if (!before && !after && (at < skip0 || at >= skip1))
			return 1;
		p += n;
	}
	return 0;
}

/* (b): graph-building definitions nothing uses, in the host files of op's
 * own kernels, when op has a Metal path */
static void rule_graph_left(struct ctx *c, long o)
{
	const struct vf_op *op = OP(c, o);
	struct hs_model *hm = c->hm;
	unsigned char *file = NULL;
	size_t i, k;
	if (!op->own_metal)
		return;
	file = xcalloc(hm->nfiles + 1, 1);
	for (i = 0; i < op->nrows; i++) {
		const struct nf_func *f = row(c, op, i);
		const long *d;
		if (f->route != ROUTE_MPS_SPECIFIC || !mps_alone(f))
			continue;
		for (d = hs_defs_named(hm, lex_unqualified(mps_alone(f)->kernel)); *d >= 0; d++)
			file[hm->defs[*d].at.file] = 1;
	}
	for (i = 0; i < hm->ndefs; i++) {
		const struct hs_def *d = &hm->defs[i];
		const char *why;
		int used = 0;
		if (!file[d->at.file] || !d->graph || c->def_reported[i] || d->macro ||
		    hs_map_get(&c->kernels, d->name) >= 0)
			continue;
		for (k = 0; k < hm->nfiles && !used; k++) {
			if (hm->files[k].kind != HS_HOST)
				continue;
			if (k == d->at.file)
				used = ident_outside(hm->files[k].text, hm->files[k].len, d->name,
				                     d->ext_start, d->ext_end);
			else
				used = hs_file_has_ident(hm, k, d->name);
		}
		if (used)
			continue;
		c->def_reported[i] = 1;
		why = d->why ? d->why : "?";
		add_at(c, d->at, VF_GRAPH_LEFT, o,
		       xasprintf("`%s` builds an MPSGraph (%s) and nothing uses it any "
		                 "more: a graph path left in %s beside the Metal path of "
		                 "%s; delete it", d->name, why,
		                 hm->files[d->at.file].rel, op->name));
	}
	free(file);
}

/* ---------------- entity rules ---------------- */

struct in_file {
	const struct ctx *c;
	size_t file;
};

/* name_fn: 1 when host file arg->file names identifier NAME. */
static int file_names(const char *name, void *arg)
{
	const struct in_file *inf = arg;
	return hs_file_has_ident(inf->c->hm, inf->file, name);
}

static int integral_dtype(const char *t)
{
	static const char *const ints[] = {"long",  "int",  "short", "char",
	                                   "uchar", "bool", "ushort", "uint",
	                                   "ulong", NULL};
	size_t k;
	for (k = 0; ints[k]; k++)
		if (strcmp(t, ints[k]) == 0)
			return 1;
	return 0;
}

/* The functor a registration r of kernel NAME instantiates: NAME_functor
 * in r's own file, else the only NAME_functor of the kernel files; -1
 * when there is none or more than one elsewhere. */
static long functor_of(const struct hs_model *hm, const struct hs_metal *r)
{
	size_t i;
	long other = -1;
	int nother = 0;
	for (i = 0; i < hm->nfunctors; i++) {
		if (strcmp(hm->functors[i].kernel, r->name) != 0)
			continue;
		if (hm->functors[i].at.file == r->at.file)
			return (long)i;
		other = (long)i;
		nother++;
	}
	return nother == 1 ? other : -1;
}

/* functor-placeholder, missing-overload */
static void rule_functors(struct ctx *c)
{
	const struct hs_model *hm = c->hm;
	size_t i, *nint, *first;
	for (i = 0; i < hm->nfunctors; i++) {
		const struct hs_functor *fu = &hm->functors[i];
		long o = op_of(c, fu->kernel);
		if (!fu->placeholder || o < 0 || !sel(c, o))
			continue;
		add_at(c, fu->marker, VF_PLACEHOLDER, o,
		       xasprintf("%s still holds the placeholder that mps-register "
		                 "--functor writes (%s): write the math of %s and "
		                 "remove the marker",
		                 fu->name, HS_PLACEHOLDER, OP(c, o)->name));
	}
	/* registrations with an integral input whose functor has no
	 * overload for it: one finding per functor, at the first */
	nint = xcalloc(hm->nfunctors + 1, sizeof *nint);
	first = xcalloc(hm->nfunctors + 1, sizeof *first);
	for (i = 0; i < hm->nmetals; i++) {
		const struct hs_metal *r = &hm->metals[i];
		long f;
		if (!integral_dtype(r->in) || (f = functor_of(hm, r)) < 0 ||
		    !hm->functors[f].no_integral)
			continue;
		if (!nint[f]++)
			first[f] = i;
	}
	for (i = 0; i < hm->nfunctors; i++) {
		const struct hs_functor *fu = &hm->functors[i];
		const struct hs_metal *r;
		char more[32];
		long o = op_of(c, fu->kernel);
		if (!nint[i] || o < 0 || !sel(c, o))
			continue;
		r = &hm->metals[first[i]];
		snprintf(more, sizeof more, "%zu", nint[i] - 1);
		add_at(c, r->at, VF_NO_OVERLOAD, o,
		       xasprintf("%s%s%s%s gives %s an integral input (%s)%s%s%s but "
		                 "every operator() of %s is limited to %s: the .metal "
		                 "file will not compile; add an integral overload or "
		                 "drop the integral registrations",
		                 r->call, r->via ? " (via " : "", r->via ? r->via : "",
		                 r->via ? ")" : "", fu->name, r->in,
		                 nint[i] > 2 ? ", as do " : nint[i] > 1 ? ", as does " : "",
		                 nint[i] > 1 ? more : "",
		                 nint[i] > 2 ? " more registrations,"
		                             : nint[i] > 1 ? " more registration," : "",
		                 fu->name, fu->limits));
	}
	free(nint);
	free(first);
}

/* A call of host code, "Q::name" or "name", as the name it calls: NULL
 * when qualified by something that is not a namespace of the host files
 * (at::cpu::, at::_ops::, ...: not this tree's MPS code) */
static const char *callee(const char *call, const struct hs_map *hostns)
{
	const char *p = strstr(call, "::");
	char q[128];
	size_t n;
	if (!p)
		return call;
	n = (size_t)(p - call);
	if (n >= sizeof q)
		return NULL;
	memcpy(q, call, n);
	q[n] = '\0';
	if (strcmp(q, "at") != 0 && strcmp(q, "native") != 0 &&
	    hs_map_get(hostns, q) < 0)
		return NULL;
	return p + 2;
}

static int mps_named(const char *s)
{
	size_t n = strlen(s);
	return (n > 4 && strcmp(s + n - 4, "_mps") == 0) ||
	       (n > 5 && strcmp(s + n - 5, "_mps_") == 0) ||
	       (n > 4 && strncmp(s, "mps_", 4) == 0);
}

/* The offset of the first call "NAME(" in file f at or after off, or off
 * when none is found */
static size_t call_site(const struct hs_model *hm, size_t file, size_t off,
                        const char *name)
{
	const char *t = hm->files[file].text, *p = t + off;
	size_t n = strlen(name);
	while ((p = strstr(p, name)) != NULL) {
		const char *q = p + n;
		int before = p == t || !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') ||
		                         (p[-1] >= 'A' && p[-1] <= 'Z') ||
		                         (p[-1] >= '0' && p[-1] <= '9'));
		while (*q == ' ' || *q == '\t' || *q == '\n')
			q++;
		if (before && *q == '(')
			return (size_t)(p - t);
		p += n;
	}
	return off;
}

/* undefined-call */
static void rule_undefined_calls(struct ctx *c, const struct hs_map *hostns)
{
	const struct hs_model *hm = c->hm;
	struct hs_map seen;
	size_t i, j;
	memset(&seen, 0, sizeof seen);
	for (i = 0; i < hm->ndefs; i++) {
		const struct hs_def *d = &hm->defs[i];
		if (hm->files[d->at.file].kind != HS_HOST)
			continue;
		for (j = 0; j < d->ncalls; j++) {
			const char *name = callee(d->calls[j], hostns);
			long o;
			char *key;
			struct hs_where w;
			if (!name || !mps_named(name) || hs_defined(hm, name))
				continue;
			o = op_of(c, name);
			if (o < 0)
				o = op_of(c, d->name);
			if (!sel(c, o))
				continue;
			key = xasprintf("%s %s", d->name, name);
			if (hs_map_get(&seen, key) < 0) {
				hs_map_put(&seen, key, 1);
				w = d->at;
				if (!d->macro)
					w.off = call_site(hm, d->at.file, d->at.off, name);
				add_at(c, w, VF_UNDEFINED_CALL, o,
				       xasprintf("`%s` calls `%s`, which no file of the tree "
				                 "defines", d->name, name));
			}
			free(key);
		}
	}
	hs_map_free(&seen);
}

static int float_tok(const char *t)
{
	return !strcmp(t, "float") || !strcmp(t, "half") || !strcmp(t, "bfloat") ||
	       !strcmp(t, "float2") || !strcmp(t, "half2");
}

/* The kernel a request asks for given input IN of a registration of its
 * NAME: NAME_dense_OUT_IN, and with a scalar _ALPHA, ALPHA the dtype the
 * call passes (ScalarType::Float) or, without one, the iterator's common
 * dtype (OperationUtils.mm's exec_*_kernel): the input's, or the output's
 * when an integral input is promoted to a floating output. */
static char *asked_alpha(const struct hs_req *q, const struct hs_metal *k)
{
	if (!q->scalar)
		return NULL;
	if (q->scalar_dtype)
		return xstrdup(q->scalar_dtype);
	if (!float_tok(k->in) && float_tok(k->out))
		return xstrdup(k->out);
	return xstrdup(k->in);
}

/* unregistered-kernel, the full name: each input dtype a NAME is
 * registered for must be reached by one of the host's requests of NAME
 * with the kernel it registers: with a scalar of the registered alpha
 * type when the kernels take one (REGISTER_UNARY_ALPHA_OP(logit, half,
 * float, half) makes logit_dense_half_half_float, which
 * exec_unary_kernel(iter, "logit", eps) does not ask for: its alpha is
 * the common dtype, half), without one when they do not.  A request
 * whose dtype argument is not a literal tells nothing and is left out. */
static void rule_kernel_names(struct ctx *c)
{
	struct hs_model *hm = c->hm;
	struct hs_map done;
	size_t i, j, r;
	memset(&done, 0, sizeof done);
	for (i = 0; i < hm->nreqs; i++) {
		const struct hs_req *q0 = &hm->reqs[i];
		long o = op_of(c, q0->kernel);
		int unknown = 0;
		if (hs_map_get(&done, q0->kernel) >= 0)
			continue;
		hs_map_put(&done, q0->kernel, 1);
		if (o < 0 && q0->in_def >= 0)
			for (j = 0; j < hm->nregs; j++)
				if (hm->regs[j].def == q0->in_def &&
				    (o = op_of(c, hm->regs[j].stub)) >= 0)
					break;
		if (!sel(c, o))
			continue;
		for (j = i; j < hm->nreqs; j++)
			if (strcmp(hm->reqs[j].kernel, q0->kernel) == 0 &&
			    hm->reqs[j].scalar_dtype &&
			    strcmp(hm->reqs[j].scalar_dtype, "?") == 0)
				unknown = 1;
		if (unknown)
			continue;
		for (r = 0; r < hm->nmetals; r++) {
			const struct hs_metal *k = &hm->metals[r];
			int reached = 0;
			size_t x;
			char *want = NULL;
			if (strcmp(k->name, q0->kernel) != 0)
				continue;
			/* once per input dtype: the first registration of it */
			for (x = 0; x < r; x++)
				if (!strcmp(hm->metals[x].name, k->name) &&
				    !strcmp(hm->metals[x].in, k->in))
					break;
			if (x < r)
				continue;
			for (j = i; j < hm->nreqs && !reached; j++) {
				const struct hs_req *q = &hm->reqs[j];
				char *a;
				if (strcmp(q->kernel, q0->kernel) != 0)
					continue;
				a = asked_alpha(q, k);
				if (k->nkernels && (a != NULL) == (k->alpha != NULL)) {
					/* every kernel the host may ask for (each variant
					 * the macro's #define instantiates, with the alpha
					 * asked) must be one some registration makes */
					char **nm;
					size_t nn = hs_metal_variants(hm, k, a, &nm), y, miss = 0;
					const char *first = NULL;
					for (y = 0; y < nn; y++)
						if (!hs_kernel_produced(hm, nm[y])) {
							size_t l = strlen(k->name);
							if (!first || (!strncmp(nm[y], k->name, l) &&
							               !strncmp(nm[y] + l, "_dense_", 7) &&
							               strncmp(first + l, "_dense_", 7)))
								first = nm[y];
							miss++;
						}
					reached = nn > 0 && miss == 0;
					if (!reached && !want && first)
						want = miss > 1 ? xasprintf("%s (and %zu more of the %zu "
						                            "kernels %s instantiates)",
						                            first, miss - 1, nn, k->macro)
						                : xstrdup(first);
					lex_strv_free(nm, nn);
					free(a);
					if (nn > 0)
						continue;
					a = asked_alpha(q, k);
				}
				for (x = 0; x < hm->nmetals && !reached; x++) {
					const struct hs_metal *h = &hm->metals[x];
					reached = !strcmp(h->name, k->name) && !strcmp(h->in, k->in) &&
					          ((!a && !h->alpha) ||
					           (a && h->alpha && !strcmp(a, h->alpha)));
				}
				if (!reached && !want)
					want = a ? xasprintf("%s_dense_%s_%s_%s", k->name, k->out,
					                     k->in, a)
					         : xasprintf("%s_dense_%s_%s", k->name, k->out, k->in);
				free(a);
			}
			if (!reached) {
				int d = k->alpha ? cs_dtype_parse(k->alpha) : -1;
				add_at(c, q0->at, VF_UNREGISTERED, o,
				       xasprintf("for %s input the host asks for Metal kernel "
				                 "%s, which no .metal file registers: %s makes "
				                 "%s%s%s%s",
				                 k->in, want ? want : "?", k->call, k->kernel,
				                 k->alpha && !q0->scalar
				                     ? "; pass the scalar" : "",
				                 k->alpha && q0->scalar && d >= 0
				                     ? "; pass the scalar's dtype, ScalarType::"
				                     : "",
				                 k->alpha && q0->scalar && d >= 0
				                     ? cs_dtype_name(d) : ""));
			}
			free(want);
		}
	}
	hs_map_free(&done);
}

static void rule_entities(struct ctx *c)
{
	struct hs_model *hm = c->hm;
	struct hs_map first, seen;
	size_t i;

	/* stubs: duplicate-stub, stub-wraps-mpsgraph */
	memset(&first, 0, sizeof first);
	for (i = 0; i < hm->nregs; i++) {
		const struct hs_reg *r = &hm->regs[i];
		long o = op_of(c, r->stub), f = hs_map_get(&first, r->stub);
		if (!sel(c, o))
			continue;
		if (f < 0) {
			hs_map_put(&first, r->stub, (long)i);
		} else {
			const struct hs_reg *a = &hm->regs[f];
			unsigned long line, col;
			if (a->at.file == r->at.file && a->at.off == r->at.off)
				continue;
			hs_line_col(hm, a->at, &line, &col);
			add_at(c, r->at, VF_DUP_STUB, o,
			       xasprintf("%s is registered for MPS more than once "
			                 "(also at %s:%lu)",
			                 r->stub, hm->files[a->at.file].rel, line));
		}
		if (r->def >= 0 && hm->defs[r->def].graph) {
			const struct hs_def *d = &hm->defs[r->def];
			add_at(c, r->at, VF_STUB_GRAPH, o,
			       xasprintf("%s is registered with %s(), whose body builds "
			                 "an MPSGraph (%s)%s%s",
			                 r->stub, r->fn, d->why ? d->why : "?",
			                 r->macro ? "; registered through " : "",
			                 r->macro ? r->macro : ""));
		}
	}
	hs_map_free(&first);

	/* unregistered-kernel */
	memset(&seen, 0, sizeof seen);
	for (i = 0; i < hm->nreqs; i++) {
		const struct hs_req *q = &hm->reqs[i];
		long o = op_of(c, q->kernel);
		char *key;
		if (o < 0 && q->in_def >= 0) {
			size_t k;
			for (k = 0; k < hm->nregs; k++)
				if (hm->regs[k].def == q->in_def &&
				    (o = op_of(c, hm->regs[k].stub)) >= 0)
					break;
		}
		if (!sel(c, o) || hs_kernel_registered(hm, q->kernel))
			continue;
		key = xasprintf("%zu:%zu:%s", q->at.file, q->at.off, q->kernel);
		if (hs_map_get(&seen, key) < 0) {
			hs_map_put(&seen, key, 1);
			add_at(c, q->at, VF_UNREGISTERED, o,
			       xasprintf("host code asks for Metal kernel \"%s\" but no "
			                 ".metal file registers it (%s(%s, ...))",
			                 q->kernel,
			                 q->ternary  ? "REGISTER_TERNARY_OP"
			                 : q->binary ? "REGISTER_BINARY_OP"
			                             : "REGISTER_UNARY_OP",
			                 q->kernel));
		}
		free(key);
	}
	hs_map_free(&seen);
	rule_kernel_names(c);

	/* unused-kernel: the REGISTER_*_OP kernels, one finding per NAME at
	 * its first registration; then the other kernels of the files */
	memset(&seen, 0, sizeof seen);
	for (i = 0; i < hm->nmetals; i++) {
		const struct hs_metal *k = &hm->metals[i];
		long o = op_of(c, k->name);
		if (hs_map_get(&seen, k->name) >= 0)
			continue;
		hs_map_put(&seen, k->name, 1);
		/* exec_*_kernel(iter, "NAME") asks for exactly NAME */
		if (!sel(c, o) || hs_kernel_requested(hm, k->name) ||
		    hs_kernel_built(hm, k->name))
			continue;
		add_at(c, k->at, VF_UNUSED_KERNEL, o,
		       xasprintf("Metal kernel %s (%s%s%s) is registered but no host "
		                 "code asks for it (exec_%s_kernel(iter, \"%s\"))",
		                 k->name, k->call, k->via ? " via " : "",
		                 k->via ? k->via : "",
		                 strstr(k->call, "TERNARY")  ? "ternary"
		                 : strstr(k->call, "BINARY") ? "binary"
		                                             : "unary",
		                 k->name));
	}
	for (i = 0; i < hm->nraws; i++) {
		const struct hs_rawkernel *k = &hm->raws[i];
		long o = op_of(c, k->name);
		if (hs_map_get(&seen, k->name) >= 0)
			continue;
		hs_map_put(&seen, k->name, 1);
		if (!sel(c, o) || hs_kernel_asked(hm, k->name, k->prefix) ||
		    hs_kernel_built(hm, k->name))
			continue;
		add_at(c, k->at, VF_UNUSED_KERNEL, o,
		       xasprintf("Metal kernel%s %s%s (%s) is defined but no host code "
		                 "asks for %s",
		                 k->prefix ? "s" : "", k->name, k->prefix ? "*" : "",
		                 k->host_name ? "[[host_name]]" : "kernel void",
		                 k->prefix ? "them (no string literal starts them)"
		                           : "it (no string literal names it)"));
	}
	hs_map_free(&seen);

	/* stale-include */
	for (i = 0; i < hm->nincs; i++) {
		const struct hs_include *in = &hm->incs[i];
		long o = op_get(c, in->op);
		struct vf_op *op;
		struct buf names;
		size_t r, k, shown = 0;
		int refers = 0;
		if (o < 0 || !sel(c, o))
			continue;
		op = OP(c, o);
		/* a file that registers a stub of the operator implements it */
		for (r = 0; r < hm->nregs && !refers; r++)
			if (hm->regs[r].at.file == in->at.file &&
			    op_of(c, hm->regs[r].stub) == o)
				refers = 1;
		buf_init(&names);
		for (r = 0; r < op->nrows + op->nbrows && !refers; r++) {
			const struct nf_func *f = r < op->nrows
			                              ? row(c, op, r)
			                              : &c->bx->funcs[op->brows[r - op->nrows]];
			for (k = 0; k < f->ndispatch && !refers; k++) {
				const char *kn = lex_unqualified(f->dispatch[k].kernel);
				if (hs_file_has_ident(hm, in->at.file, kn))
					refers = 1;
				else if (shown < 3 && !strstr(names.data, kn)) {
					buf_printf(&names, "%s%s", shown ? ", " : "", kn);
					shown++;
				}
			}
		}
		/* a file that still defines or names an old MPS kernel of the
		 * operator refers to it (mpsgraph-host-path reports that) */
		if (!refers) {
			struct in_file inf;
			inf.c = c;
			inf.file = in->at.file;
			refers = old_names(c, op, 1, file_names, &inf);
		}
		if (!refers && (op->nrows || op->nbrows)) {
			char *also = hs_file_has_ident(hm, in->at.file, in->op)
			                 ? xasprintf("; it uses at::%s, which <ATen/ops/%s.h> "
			                             "declares", in->op, in->op)
			                 : xstrdup("");
			add_at(c, in->at, VF_STALE_INCLUDE, o,
			       xasprintf("#include <ATen/ops/%s_native.h> is not used: the "
			                 "file names none of the at::native functions it "
			                 "declares (looked for %s, the stubs and the old MPS "
			                 "kernels of %s)%s",
			                 in->op, names.len ? names.data : "no kernel names",
			                 in->op, also));
			free(also);
		}
		buf_free(&names);
	}

	/* xfail-leftover */
	for (i = 0; i < hm->nxfails; i++) {
		const struct hs_xfail *x = &hm->xfails[i];
		long o = op_of_xfail(c, x->key);
		if (o < 0 || !sel(c, o))
			continue;
		add_at(c, x->at, VF_XFAIL, o,
		       xasprintf("'%s' is still listed in %s: an expected failure or "
		                 "skip of %s on MPS; run its tests on a Mac and remove "
		                 "the entry once they pass", x->key, x->list,
		                 OP(c, o)->name));
	}
}

/* ---------------- operators: family, state ---------------- */

static enum vf_family family_of(const struct ctx *c, const struct vf_op *op)
{
	const struct nf_func *pick = NULL;
	size_t i;
	int pointwise = 0, reduction = 0;
	for (i = 0; i < op->nrows; i++) {
		const struct nf_func *f = row(c, op, i);
		pointwise |= f->pointwise || f->iterator;
		reduction |= f->reduction;
		if (f->autogen)
			continue;
		if (!pick || (f->kind == NF_OUT && f->structured &&
		              !(pick->kind == NF_OUT && pick->structured)))
			pick = f;
	}
	if (pointwise && pick)
		return pick->ninputs == 1 ? VF_FAM_UNARY
		       : pick->ninputs == 2 ? VF_FAM_BINARY : VF_FAM_POINTWISE;
	if (pointwise)
		return VF_FAM_POINTWISE;
	return reduction ? VF_FAM_REDUCTION : VF_FAM_OTHER;
}

/* ---------------- the MPSGraph to-do list ---------------- */

/* Rule 3 of enum vf_kind: PyTorch's host files under operations/ by base
 * name (without .mm/.cpp) */
static const struct {
	const char *file;
	enum vf_kind kind;
} kind_files[] = {
	{"ReduceOps", VF_KIND_REDUCTION}, {"SummaryOps", VF_KIND_REDUCTION},
	{"HistogramKernel", VF_KIND_REDUCTION},
	{"Normalization", VF_KIND_NORM}, {"WeightNorm", VF_KIND_NORM},
	{"RenormKernel", VF_KIND_NORM},
	{"SoftMax", VF_KIND_SOFTMAX},
	{"LossOps", VF_KIND_LOSS},
	{"Indexing", VF_KIND_INDEXING}, {"ScatterGather", VF_KIND_INDEXING},
	{"Bucketization", VF_KIND_INDEXING},
	{"Pooling", VF_KIND_POOLING}, {"AdaptivePooling", VF_KIND_POOLING},
	{"Pad", VF_KIND_POOLING}, {"UpSample", VF_KIND_POOLING},
	{"GridSampler", VF_KIND_POOLING}, {"Im2Col", VF_KIND_POOLING},
	{"LinearAlgebra", VF_KIND_LINALG}, {"Linear", VF_KIND_LINALG},
	{"Blas", VF_KIND_LINALG}, {"Inverse", VF_KIND_LINALG},
	{"CrossKernel", VF_KIND_LINALG}, {"TriangularOps", VF_KIND_LINALG},
	{"Distributions", VF_KIND_RANDOM},
	{"FastFourierTransform", VF_KIND_FFT},
	{"Shape", VF_KIND_SHAPE}, {"View", VF_KIND_SHAPE},
	{"Repeat", VF_KIND_SHAPE}, {"PixelShuffle", VF_KIND_SHAPE},
	{"UnfoldBackward", VF_KIND_SHAPE}, {"RangeFactories", VF_KIND_SHAPE},
	{"Eye", VF_KIND_SHAPE}, {"Copy", VF_KIND_SHAPE},
	{"UnaryOps", VF_KIND_POINTWISE}, {"BinaryOps", VF_KIND_POINTWISE},
	{"BitwiseOps", VF_KIND_POINTWISE}, {"PointwiseOps", VF_KIND_POINTWISE},
	{"Activation", VF_KIND_POINTWISE}, {"TensorCompare", VF_KIND_POINTWISE},
	{"Lerp", VF_KIND_POINTWISE}, {"Gamma", VF_KIND_POINTWISE},
	{"SpecialOps", VF_KIND_POINTWISE}, {"ConstantOps", VF_KIND_POINTWISE},
	{"Convolution", VF_KIND_OTHER}, {"RnnOps", VF_KIND_OTHER},
	{"Attention", VF_KIND_OTHER}, {"Quantized", VF_KIND_OTHER},
	{"Sort", VF_KIND_OTHER}, {"Unique", VF_KIND_OTHER},
	{"Scalar", VF_KIND_OTHER},
};

/* the kind the host file REL stands for, or -1 */
static int kind_of_file(const char *rel)
{
	const char *b = strrchr(rel, '/');
	size_t i, n;
	b = b ? b + 1 : rel;
	n = strcspn(b, ".");
	for (i = 0; i < sizeof kind_files / sizeof *kind_files; i++)
		if (strlen(kind_files[i].file) == n &&
		    strncmp(kind_files[i].file, b, n) == 0)
			return (int)kind_files[i].kind;
	return -1;
}

/* enum vf_kind's rules for definition d reached from row f (NULL: from a
 * stub: every row of op counts) */
static enum vf_kind kind_of(const struct ctx *c, const struct vf_op *op,
                            const struct nf_func *f, const struct hs_def *d)
{
	static const char *const others[] = {"sort", "argsort", "msort", "topk",
	                                     "kthvalue"};
	size_t i;
	int pointwise = 0, seeded = 0, reduction = 0, k;
	if (strstr(op->name, "loss"))
		return VF_KIND_LOSS;
	if (strstr(op->name, "softmax"))
		return VF_KIND_SOFTMAX;
	if (strstr(op->name, "fft"))
		return VF_KIND_FFT;
	if (strncmp(op->name, "cum", 3) == 0 || strcmp(op->name, "logcumsumexp") == 0)
		return VF_KIND_REDUCTION;
	for (i = 0; i < sizeof others / sizeof *others; i++)
		if (strcmp(op->name, others[i]) == 0)
			return VF_KIND_OTHER;
	for (i = 0; i < (f ? 1 : op->nrows); i++) {
		const struct nf_func *g = f ? f : row(c, op, i);
		pointwise |= g->pointwise || g->iterator;
		seeded |= g->seeded;
		reduction |= g->reduction;
	}
	if (pointwise)
		return VF_KIND_POINTWISE;
	if ((k = kind_of_file(c->hm->files[d->at.file].rel)) >= 0)
		return (enum vf_kind)k;
	if (seeded)
		return VF_KIND_RANDOM;
	if (reduction)
		return VF_KIND_REDUCTION;
	if (strncmp(op->name, "linalg_", 7) == 0)
		return VF_KIND_LINALG;
	return VF_KIND_OTHER;
}

/* one entry (op o, definition d, reached from row f or stub) unless the
 * op has it already */
static void add_graph(struct ctx *c, long o, long d, const struct nf_func *f,
                      const char *stub)
{
	struct vf_report *r = c->r;
	struct vf_graph *g;
	size_t i;
	for (i = 0; i < r->ngraphs; i++) /* a few hundred at most */
		if (r->graphs[i].op == o && r->graphs[i].def == d)
			return;
	GROW(r->graphs, r->ngraphs, c->capgraphs);
	g = &r->graphs[r->ngraphs++];
	memset(g, 0, sizeof *g);
	g->op = o;
	g->def = d;
	g->row = f ? f->name : NULL;
	g->stub = stub;
	g->kind = kind_of(c, OP(c, o), f, &c->hm->defs[d]);
	OP(c, o)->ngraphs++;
}

static const struct ctx *sort_ctx; /* for cmp_graph (qsort has no arg) */

static int cmp_graph(const void *a, const void *b)
{
	const struct vf_graph *x = a, *y = b;
	const struct ctx *c = sort_ctx;
	const struct vf_op *ox = OP(c, x->op), *oy = OP(c, y->op);
	const struct hs_def *dx = &c->hm->defs[x->def], *dy = &c->hm->defs[y->def];
	int k;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if ((k = strcmp(ox->name, oy->name)) != 0)
		return k;
	if ((k = strcmp(c->hm->files[dx->at.file].rel, c->hm->files[dy->at.file].rel)) != 0)
		return k;
	if (dx->at.off != dy->at.off)
		return dx->at.off < dy->at.off ? -1 : 1;
	return x->def < y->def ? -1 : x->def > y->def;
}

/* Which findings are to-do, in --all (see verify.h) */
static int is_defect(const struct ctx *c, const struct vf_finding *f)
{
	const struct vf_op *op = f->op >= 0 ? OP(c, f->op) : NULL;
	size_t i;
	if (!c->in->all)
		return 1;
	switch (f->rule) {
	case VF_LEGACY_ROW:
		/* a Metal kernel beside rows whose own MPS kernel is MPSGraph;
		 * an own kernel that launches Metal itself (complex_out_mps in
		 * 2.6.0) is a refactoring still to do, not an old path left */
		return op && op->started && op->old_graph;
	case VF_GRAPH_PATH:
		return op && op->started;
	case VF_GRAPH_LEFT:
		/* an own kernel still building a graph: not migrated yet */
		return !(op && op->old_graph);
	case VF_NO_KERNEL:
		return 0;
	case VF_STUB_GRAPH:
		return op && hs_kernel_registered(c->hm, op->name);
	case VF_XFAIL:
		/* every row on the shared path: the entry may be stale; with a
		 * row still on its own MPS kernel (remainder.Tensor_out beside a
		 * shared wrapper overload) the test may exercise that one, and
		 * with its stub registered through an MPSGraph body (acosh in a
		 * tree shaped like main) the operator is not migrated yet */
		if (op && !op->old_path && !op->stub_graph)
			for (i = 0; i < op->nrows; i++)
				if (row(c, op, i)->route == ROUTE_SHARED)
					return 1;
		return 0;
	default:
		return 1;
	}
}

static int cmp_finding(const void *a, const void *b)
{
	const struct vf_finding *x = a, *y = b;
	int k = strcmp(x->path, y->path);
	if (k)
		return k;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	if (x->rule != y->rule)
		return x->rule - y->rule;
	return strcmp(x->msg, y->msg);
}

/* ---------------- the run ---------------- */

/* DECLARE_DISPATCH stubs by operator (for missing-stub without the C++
 * sources), read once on first need */
static void load_decls(struct ctx *c)
{
	struct hs_model *hm = c->hm;
	size_t i;
	if (c->decl_stubs)
		return;
	c->decl_stubs = xcalloc(c->r->nops + 1, sizeof *c->decl_stubs);
	c->ndecls = xcalloc(c->r->nops + 1, sizeof *c->ndecls);
	if (hs_load_decls(hm) != 0)
		exit(MK_EXIT_ERROR);
	for (i = 0; i < hm->ndecls; i++) {
		long o = op_of(c, hm->decls[i].stub);
		char **s;
		if (o < 0)
			continue;
		s = &c->decl_stubs[o];
		if (*s && strstr(*s, hm->decls[i].stub))
			continue;
		c->ndecls[o]++;
		if (*s) {
			char *t = xasprintf("%s / %s", *s, hm->decls[i].stub);
			free(*s);
			*s = t;
		} else {
			*s = xstrdup(hm->decls[i].stub);
		}
	}
}

int vf_run(const struct vf_input *in, struct vf_report *r)
{
	struct ctx c;
	struct hs_model *hm = in->hm;
	struct hs_map hostns;
	size_t i, k;

	memset(r, 0, sizeof *r);
	memset(&c, 0, sizeof c);
	c.in = in;
	c.ix = in->ix;
	c.bx = in->before;
	c.hm = hm;
	c.r = r;
	r->all = in->all;

	/* operators: every base name of both yamls, in file order */
	for (i = 0; i < c.ix->nfuncs; i++) {
		const struct nf_func *f = &c.ix->funcs[i];
		struct vf_op *op = OP(&c, op_add(&c, f->base));
		op->rows = xrealloc(op->rows, (op->nrows + 1) * sizeof *op->rows);
		op->rows[op->nrows++] = i;
		for (k = 0; k < f->ndispatch; k++)
			hs_map_put(&c.kernels, lex_unqualified(f->dispatch[k].kernel), 1);
	}
	for (i = 0; c.bx && i < c.bx->nfuncs; i++) {
		struct vf_op *op = OP(&c, op_add(&c, c.bx->funcs[i].base));
		op->brows = xrealloc(op->brows, (op->nbrows + 1) * sizeof *op->brows);
		op->brows[op->nbrows++] = i;
	}
	for (k = 0; k < in->nops; k++) {
		char *base, *ovl;
		int inplace;
		long o;
		if (nf_parse_opname(in->ops[k], &base, &ovl, &inplace) != 0) {
			warnx_("error: '%s' is not an operator name", in->ops[k]);
			vf_report_free(r);
			hs_map_free(&c.opmap);
			hs_map_free(&c.kernels);
			return -1;
		}
		o = op_get(&c, base);
		if (o < 0) {
			warnx_("error: no operator '%s' in %s%s%s", base, NF_YAML_REL,
			       c.bx ? " or " : "", c.bx ? c.bx->path : "");
			free(base);
			free(ovl);
			vf_report_free(r);
			hs_map_free(&c.opmap);
			hs_map_free(&c.kernels);
			return -1;
		}
		OP(&c, o)->selected = 1;
		free(base);
		free(ovl);
	}

	for (i = 0; i < hm->nfiles; i++) {
		if (hm->files[i].kind == HS_HOST)
			r->nhost++;
		else if (hm->files[i].kind == HS_KERNEL)
			r->nkern++;
	}
	r->lists_checked = hm->have_common_mps || hm->have_test_mps;
	c.cs = in->cs;
	c.lazy.root = in->cs ? NULL : in->root;
	r->have_sources = in->cs && in->cs->have_sources;
	/* what host code calls or registers, and its namespaces */
	memset(&hostns, 0, sizeof hostns);
	hs_map_put(&hostns, "mps", 1);
	for (i = 0; i < hm->ndefs; i++) {
		const struct hs_def *d = &hm->defs[i];
		for (k = 0; k < d->ncalls; k++) {
			const char *s = strstr(d->calls[k], "::");
			const char *nm = s ? s + 2 : d->calls[k];
			if (strcmp(nm, d->name) != 0)
				hs_map_put(&c.called, nm, 1);
		}
	}
	for (i = 0; i < hm->nregs; i++) {
		long o = op_of(&c, hm->regs[i].stub);
		hs_map_put(&c.called, hm->regs[i].fn, 1);
		if (o >= 0)
			OP(&c, o)->nregs++;
	}
	for (i = 0; i < hm->nmetals; i++) {
		long o = op_of(&c, hm->metals[i].name);
		if (o >= 0)
			OP(&c, o)->nmetal++;
	}
	for (i = 0; i < hm->nraws; i++) {
		long o = op_of(&c, hm->raws[i].name);
		if (o >= 0) {
			OP(&c, o)->nmetal++;
			OP(&c, o)->nraw++;
		}
	}
	/* a function named in a file other than the one defining it counts
	 * as called (a declaration in a header, a pointer in a table) */
	for (i = 0; i < hm->ndefs; i++) {
		const struct hs_def *d = &hm->defs[i];
		if (hs_map_get(&c.called, d->name) >= 0 || d->impl)
			continue;
		for (k = 0; k < hm->nfiles; k++)
			if (hm->files[k].kind == HS_HOST && k != d->at.file &&
			    hs_file_has_ident(hm, k, d->name)) {
				hs_map_put(&c.called, d->name, 1);
				break;
			}
	}

	/* per operator: what it has; the graph-building functions its MPS
	 * dispatch reaches (rows, then stubs: the to-do list) */
	for (i = 0; i < r->nops; i++) {
		struct vf_op *op = &r->ops[i];
		op->family = family_of(&c, op);
		for (k = 0; k < op->nrows; k++) {
			const struct nf_func *f = row(&c, op, k);
			if (f->route == ROUTE_SHARED || f->route == ROUTE_MPS_SPECIFIC)
				op->on_mps = 1;
			if (f->route == ROUTE_MPS_SPECIFIC && mps_alone(f)) {
				const long *d = hs_defs_named(hm, lex_unqualified(mps_alone(f)->kernel));
				op->old_path = 1;
				for (; *d >= 0; d++) {
					if (!op->own_metal && launches_metal(&c, *d))
						op->own_metal = 1;
					if (hm->defs[*d].graph) {
						op->old_graph = 1;
						add_graph(&c, (long)i, *d, f, NULL);
					}
				}
			}
			if (cpu_line(f) && !f->autogen)
				op->cpu = 1;
			/* (only --all tells defects from to-do) */
			if (in->all && f->route == ROUTE_SHARED && !op->started) {
				const struct cs_discovery *d = reach(&c, f->mps_kernel);
				op->started = d && d->kind == CS_STUB_BACKED;
			}
		}
		/* an operator's own Metal kernels (not REGISTER_*_OP ones)
		 * are no piece of the shared path: its own MPS kernel may
		 * launch them while it still builds an MPSGraph (issue #25) */
		if (op->nregs || op->nmetal > op->nraw)
			op->started = 1;
	}
	/* stubs registered through an MPSGraph body */
	for (i = 0; i < hm->nregs; i++) {
		const struct hs_reg *rg = &hm->regs[i];
		long o = op_of(&c, rg->stub);
		if (o >= 0 && rg->def >= 0 && hm->defs[rg->def].graph) {
			OP(&c, o)->stub_graph = 1;
			add_graph(&c, o, rg->def, NULL, rg->stub);
		}
	}
	/* the to-do list, in its order */
	{
		sort_ctx = &c;
		if (r->ngraphs > 1)
			qsort(r->graphs, r->ngraphs, sizeof *r->graphs, cmp_graph);
		sort_ctx = NULL;
		for (i = 0; i < r->ngraphs; i++) {
			struct vf_graph *g = &r->graphs[i];
			const struct hs_def *d = &hm->defs[g->def];
			g->function = d->name;
			g->path = hm->files[d->at.file].rel;
			hs_line_col(hm, d->at, &g->line, &g->col);
			g->why = d->why ? d->why : "?";
			g->macro = d->macro;
		}
	}

	c.def_reported = xcalloc(hm->ndefs + 1, 1);
	index_def_names(&c);
	for (i = 0; i < r->nops; i++)
		if (sel(&c, (long)i)) {
			rule_rows(&c, (long)i);
			rule_missing_stub(&c, (long)i);
			rule_definitions(&c, (long)i);
		}
	for (i = 0; i < r->nops; i++)
		if (sel(&c, (long)i))
			rule_graph_left(&c, (long)i);
	rule_undefined_calls(&c, &hostns);
	rule_entities(&c);
	rule_functors(&c);

	/* classes, counts, states */
	for (i = 0; i < c.nf; i++) {
		struct vf_finding *f = &c.f[i];
		f->defect = is_defect(&c, f);
		if (f->op >= 0) {
			struct vf_op *op = OP(&c, f->op);
			op->count[vf_rules[f->rule].sev]++;
			if (f->defect)
				op->ndefects++;
			else
				op->ntodo++;
		}
	}
	for (i = 0; i < r->nops; i++) {
		struct vf_op *op = &r->ops[i];
		if (op->ndefects)
			op->state = VF_STATE_DEFECT;
		else if (op->ntodo)
			op->state = VF_STATE_TODO;
		else if (op->on_mps)
			op->state = VF_STATE_DONE;
		else
			op->state = VF_STATE_NONE;
	}
	if (c.nf > 1)
		qsort(c.f, c.nf, sizeof *c.f, cmp_finding);
	r->f = c.f;
	r->n = c.nf;

	for (i = 0; c.decl_stubs && i < r->nops; i++)
		free(c.decl_stubs[i]);
	free(c.decl_stubs);
	free(c.ndecls);
	free(c.def_reported);
	free(c.graph_names);
	hs_map_free(&hostns);
	hs_map_free(&c.opmap);
	hs_map_free(&c.kernels);
	hs_map_free(&c.called);
	for (i = 0; i < c.ndisc; i++)
		cs_discovery_free(&c.disc[i]);
	free(c.disc);
	hs_map_free(&c.reached);
	cs_lazy_free(&c.lazy);
	return 0;
}

void vf_report_free(struct vf_report *r)
{
	size_t i;
	for (i = 0; i < r->n; i++)
		free(r->f[i].msg);
	free(r->f);
	for (i = 0; i < r->nops; i++) {
		free(r->ops[i].name);
		free(r->ops[i].rows);
		free(r->ops[i].brows);
	}
	free(r->ops);
	free(r->graphs);
	memset(r, 0, sizeof *r);
}
