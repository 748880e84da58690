/* fold.c — see fold.h.  Works on the yaml text: libyaml's marks (through
 * nfyaml) locate the dispatch lines; only those lines change. */
#include "plan/fold.h"
#include "base/diag.h"
#include "base/lex.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static size_t line_start(const char *t, size_t off)
{
	while (off > 0 && t[off - 1] != '\n' && t[off - 1] != '\r')
		off--;
	return off;
}

/* offset just past the line break that ends the line holding off */
static size_t line_next(const char *t, size_t len, size_t off)
{
	while (off < len && t[off] != '\n' && t[off] != '\r')
		off++;
	if (off < len && t[off] == '\r')
		off++;
	if (off < len && t[off] == '\n')
		off++;
	return off;
}

/* the key text of dispatch line d ends before its ':' */
static size_t key_end(const char *t, size_t len, const struct nf_dispatch *d)
{
	size_t e = d->key_start;
	while (e < len && t[e] != ':' && t[e] != '\n')
		e++;
	while (e > d->key_start && (t[e - 1] == ' ' || t[e - 1] == '\t'))
		e--;
	return e;
}

/* 1 when the dispatch line stands alone on its text line (block style) */
static int alone_on_line(const char *t, size_t len, const struct nf_dispatch *d)
{
	size_t s = line_start(t, d->key_start), e = d->value_end;
	for (; s < d->key_start; s++)
		if (t[s] != ' ' && t[s] != '\t')
			return 0;
	while (e < len && (t[e] == ' ' || t[e] == '\t'))
		e++;
	return e >= len || t[e] == '\n' || t[e] == '\r' || t[e] == '#';
}

/* The line holding CPU or CUDA (the shared implementation MPS can join),
 * or NULL with *why set. */
static const struct nf_dispatch *shared_line(const struct nf_func *f,
                                             const char **why)
{
	const struct nf_dispatch *cpu = NULL, *cuda = NULL;
	size_t i;
	for (i = 0; i < f->ndispatch; i++) {
		if (nf_dispatch_has_key(&f->dispatch[i], "CPU"))
			cpu = &f->dispatch[i];
		if (nf_dispatch_has_key(&f->dispatch[i], "CUDA"))
			cuda = &f->dispatch[i];
	}
	if (!cpu && !cuda) {
		*why = "no CPU or CUDA line to join";
		return NULL;
	}
	if (cpu && cuda && cpu != cuda && strcmp(cpu->kernel, cuda->kernel) != 0) {
		*why = "its CPU and CUDA kernels differ";
		return NULL;
	}
	return cpu ? cpu : cuda;
}


const char *fold_row_kernel(const struct nf_func *f)
{
	const char *why;
	const struct nf_dispatch *sh;
	if (f->route == ROUTE_SHARED)
		return f->mps_kernel;
	if (f->route != ROUTE_MPS_SPECIFIC || !(sh = shared_line(f, &why)))
		return NULL;
	return lex_unqualified(sh->kernel);
}

static struct fold_row *new_row(struct fold_plan *p, const struct nf_func *f,
                                enum fold_action a, const struct nf_dispatch *at)
{
	struct fold_row *r;
	GROW(p->rows, p->nrows, p->caprows);
	r = &p->rows[p->nrows++];
	memset(r, 0, sizeof *r);
	r->f = f;
	r->action = a;
	r->at = at;
	r->reach = -1;
	if (a == FOLD_REFUSED || a == FOLD_REFUSED_ADD)
		p->nrefused++;
	else
		p->nacted++;
	return r;
}

static void refuse(struct fold_plan *p, const struct nf_func *f,
                   enum fold_action a, const struct nf_dispatch *at,
                   char *why, const char *hint)
{
	struct fold_row *r = new_row(p, f, a, at);
	r->why = why;
	r->hint = xstrdup(hint);
}

static void add_edit(struct fold_plan *p, size_t start, size_t end, char *text)
{
	GROW(p->edits, p->nedits, p->capedits);
	p->edits[p->nedits].start = start;
	p->edits[p->nedits].end = end;
	p->edits[p->nedits].text = text;
	p->nedits++;
}

/* MPS joins line sh: at its alphabetical place when the keys are in
 * alphabetical order ignoring case, else at the end (see fold.h) */
static void join_mps(struct fold_plan *p, const struct nf_index *ix,
                     const struct nf_dispatch *sh)
{
	const char *t = ix->text;
	size_t e = key_end(t, ix->len, sh), i, at = e, k;
	int sorted = 1;
	for (i = 1; i < sh->nkeys && sorted; i++)
		sorted = strcasecmp(sh->keys[i - 1], sh->keys[i]) <= 0;
	if (sorted) {
		for (i = 0; i < sh->nkeys; i++)
			if (strcasecmp("MPS", sh->keys[i]) < 0)
				break;
		if (i < sh->nkeys) {
			/* the start of key i in the text: after i commas */
			size_t commas = 0;
			for (k = sh->key_start; k < e && commas < i; k++)
				if (t[k] == ',')
					commas++;
			while (k < e && (t[k] == ' ' || t[k] == '\t'))
				k++;
			at = k;
			add_edit(p, at, at, xstrdup("MPS, "));
			return;
		}
	}
	add_edit(p, at, at, xstrdup(", MPS"));
}

/* the C++ model, read on first need; NULL when not asked for or
 * unreadable */
static const struct cs_model *sources(struct cs_lazy *cs)
{
	return cs ? cs_lazy_get(cs) : NULL;
}

/* what the C++ model says of the shared kernel of row r: r->reach, and
 * the stubs it reaches on MPS into r->stubs; *d the discovery (caller
 * frees).  0, or -1 (d zeroed) when there is no model */
static int discover(struct fold_row *r, struct cs_lazy *cs, const char *kernel,
                    struct cs_discovery *d)
{
	const struct cs_model *m = sources(cs);
	size_t i;
	memset(d, 0, sizeof *d);
	if (!m)
		return -1;
	r->reach = cs_discover(m, kernel, d);
	if (d->kind == CS_STUB_BACKED) {
		/* a stub reached only on other devices (cs_stub.guard) is not
		 * MPS's to register */
		r->stubs = xcalloc(d->nstubs + 1, sizeof *r->stubs);
		for (i = 0; i < d->nstubs; i++) {
			struct fold_stub *t = &r->stubs[r->nstubs];
			if (d->stubs[i].guard)
				continue;
			t->name = xstrdup(d->stubs[i].name);
			t->where = d->stubs[i].at.file
			               ? xasprintf("%s:%lu", d->stubs[i].at.file,
			                           d->stubs[i].at.line)
			               : xstrdup("?");
			t->declared = d->stubs[i].declared;
			r->nstubs++;
		}
	}
	return 0;
}

/* a row that is not structured: why its kernel cannot be folded, or NULL
 * when it can (stub-backed or device-generic) */
static char *not_structured_why(const struct cs_discovery *d, int asked,
                                const char *kernel)
{
	if (!asked)
		return xasprintf("the row is not structured, and the C++ sources "
		                 "that would tell whether its shared kernel `%s` "
		                 "reaches a stub were not read", kernel);
	switch (d->kind) {
	case CS_STUB_BACKED:
	case CS_DEVICE_GENERIC:
		return NULL;
	case CS_CPU_ONLY:
		return xasprintf("the row is not structured and its shared kernel "
		                 "`%s` does CPU-only work itself (%s at %s:%lu), with "
		                 "no stub for MPS to register",
		                 kernel, d->cpu_why ? d->cpu_why : "?",
		                 d->cpu.file ? d->cpu.file : "?", d->cpu.line);
	default:
		if (d->no_sources)
			return xasprintf("the row is not structured and this tree has no "
			                 "C++ sources (aten/src/ATen/native/*.cpp) to tell "
			                 "whether its shared kernel `%s` reaches a stub",
			                 kernel);
		return xasprintf("the row is not structured and no definition of its "
		                 "shared kernel `%s` was found under "
		                 "aten/src/ATen/native", kernel);
	}
}

/* A new row of ACTION for f (placed at the dispatch line AT) whose kernel
 * is the shared line sh's, with what the C++ model tells of that kernel
 * (discover).  A row that is not structured can move only when its
 * kernel is stub-backed or device-generic (not_structured_why); else the
 * row becomes REFUSED, with the reason and HINT, and 0 is returned.
 * Otherwise 1. */
static int new_shared_row(struct fold_plan *p, struct cs_lazy *cs,
                          const struct nf_func *f, int action,
                          const struct nf_dispatch *at,
                          const struct nf_dispatch *sh, int refused,
                          const char *hint)
{
	struct fold_row *r = new_row(p, f, action, at);
	struct cs_discovery d;
	int asked;
	char *w = NULL;

	r->kernel = lex_unqualified(sh->kernel);
	asked = discover(r, cs, r->kernel, &d) == 0;
	if (!f->structured)
		w = not_structured_why(&d, asked, r->kernel);
	cs_discovery_free(&d);
	if (!w)
		return 1;
	r->action = refused;
	r->why = w;
	r->hint = xstrdup(hint);
	p->nacted--;
	p->nrefused++;
	return 0;
}

static void fold_row(struct fold_plan *p, const struct nf_index *ix,
                     struct cs_lazy *cs, const struct nf_func *f)
{
	const struct nf_dispatch *mps = nf_mps_dispatch(f), *sh;
	const char *why = NULL, *t = ix->text;

	if (!(sh = shared_line(f, &why))) {
		refuse(p, f, FOLD_REFUSED, mps, xstrdup(why),
		       "keep the MPS-specific row, or register the existing stub "
		       "for MPS with REGISTER_MPS_DISPATCH");
		return;
	}
	if (!alone_on_line(t, ix->len, mps) || !alone_on_line(t, ix->len, sh)) {
		refuse(p, f, FOLD_REFUSED, mps,
		       xstrdup("the dispatch map is not in block style"),
		       "fold it by hand");
		return;
	}
	if (!new_shared_row(p, cs, f, FOLD_FOLD, mps, sh, FOLD_REFUSED,
	                    "keep the MPS-specific row"))
		return;
	/* MPS joins the shared line */
	join_mps(p, ix, sh);
	if (mps->nkeys == 1) {
		size_t s = line_start(t, mps->key_start);
		add_edit(p, s, line_next(t, ix->len, mps->value_end), xstrdup(""));
	} else {
		/* "MPS, X: k" keeps X alone */
		struct buf b;
		size_t i;
		buf_init(&b);
		for (i = 0; i < mps->nkeys; i++)
			if (strcmp(mps->keys[i], "MPS") != 0)
				buf_printf(&b, "%s%s", b.len ? ", " : "", mps->keys[i]);
		add_edit(p, mps->key_start, key_end(t, ix->len, mps), b.data);
	}
}

static void add_row(struct fold_plan *p, const struct nf_index *ix,
                    struct cs_lazy *cs, const struct nf_func *f)
{
	const struct nf_dispatch *sh;
	const char *why = NULL;

	if (!(sh = shared_line(f, &why))) {
		refuse(p, f, FOLD_REFUSED_ADD, NULL, xstrdup(why),
		       "write an MPS-specific kernel, or add a shared CPU/CUDA kernel "
		       "first");
		return;
	}
	if (!alone_on_line(ix->text, ix->len, sh)) {
		refuse(p, f, FOLD_REFUSED_ADD, sh,
		       xstrdup("the dispatch map is not in block style"),
		       "add MPS by hand");
		return;
	}
	if (!new_shared_row(p, cs, f, FOLD_ADD, sh, sh, FOLD_REFUSED_ADD,
	                    "write an MPS-specific kernel for it"))
		return;
	join_mps(p, ix, sh);
}

size_t fold_plan_op(struct fold_plan *p, const struct nf_index *ix,
                    struct cs_lazy *cs, const char *op, int add)
{
	size_t i, found = 0, outs = 0;
	int one = strchr(op, '.') != NULL; /* a function, "pow.Scalar_out" */
	for (i = 0; i < ix->nentries; i++) {
		const struct nf_func *f = &ix->funcs[i];
		if (strcmp(one ? f->name : f->base, op) != 0)
			continue;
		found++;
		if (add) {
			if (f->kind != NF_OUT)
				continue;
			outs++;
			if (f->route == ROUTE_MPS_SPECIFIC)
				refuse(p, f, FOLD_REFUSED_ADD, nf_mps_dispatch(f),
				       xstrdup("it has an MPS-specific kernel already"),
				       "fold it: run mps-dispatch without --add");
			else if (!f->mps_kernel)
				add_row(p, ix, cs, f);
		} else if (f->route == ROUTE_MPS_SPECIFIC) {
			fold_row(p, ix, cs, f);
		}
	}
	if (found && add && outs == 0) {
		/* no out= row: named by the operator's first entry */
		for (i = 0; i < ix->nentries; i++)
			if (strcmp(one ? ix->funcs[i].name : ix->funcs[i].base, op) == 0)
				break;
		refuse(p, &ix->funcs[i], FOLD_REFUSED_ADD, NULL,
		       xstrdup("it has no out= row to add MPS to (composite, or not "
		               "TensorIterator-shaped)"),
		       "see mps-overloads");
		p->rows[p->nrows - 1].no_out = 1;
	}
	return found;
}

static int cmp_edit(const void *a, const void *b)
{
	const struct fold_edit *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

char *fold_apply(const struct nf_index *ix, const struct fold_plan *p,
                 size_t *len)
{
	struct fold_edit *e = xcalloc(p->nedits + 1, sizeof *e);
	struct buf out;
	size_t i, pos = 0;
	if (p->nedits) /* edits is NULL when there are none */
		memcpy(e, p->edits, p->nedits * sizeof *e);
	if (p->nedits > 1)
		qsort(e, p->nedits, sizeof *e, cmp_edit);
	buf_init(&out);
	for (i = 0; i < p->nedits; i++) {
		buf_add(&out, ix->text + pos, e[i].start - pos);
		buf_puts(&out, e[i].text);
		pos = e[i].end;
	}
	buf_add(&out, ix->text + pos, ix->len - pos);
	free(e);
	*len = out.len;
	return out.data;
}

const char *fold_action_name(enum fold_action a, int done)
{
	switch (a) {
	case FOLD_FOLD:
		return done ? "folded" : "fold";
	case FOLD_ADD:
		return done ? "added" : "add";
	case FOLD_REFUSED:
		return "refused";
	default:
		return "refused-add";
	}
}

void fold_plan_free(struct fold_plan *p)
{
	size_t i, j;
	for (i = 0; i < p->nrows; i++) {
		for (j = 0; j < p->rows[i].nstubs; j++) {
			free(p->rows[i].stubs[j].name);
			free(p->rows[i].stubs[j].where);
		}
		free(p->rows[i].stubs);
		free(p->rows[i].why);
		free(p->rows[i].hint);
	}
	free(p->rows);
	for (i = 0; i < p->nedits; i++)
		free(p->edits[i].text);
	free(p->edits);
	memset(p, 0, sizeof *p);
}
