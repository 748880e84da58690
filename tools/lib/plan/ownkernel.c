/* ownkernel.c — see ownkernel.h. */
#include "plan/ownkernel.h"
#include "base/diag.h"
#include "base/lex.h"
#include "read/cudakern.h"
#include "read/outrule.h"

#include <stdlib.h>
#include <string.h>

/* the kernel of row f under KEY ("CPU", "CUDA"), unqualified, or NULL */
static const char *row_kernel(const struct nf_func *f, const char *key)
{
	size_t i;
	for (i = 0; i < f->ndispatch; i++)
		if (nf_dispatch_has_key(&f->dispatch[i], key))
			return lex_unqualified(f->dispatch[i].kernel);
	return NULL;
}

struct named_arg {
	const struct nf_index *ix;
	const char *op;
};

/* rt_request.named: a row of another operator names kernel NAME */
static int named_other(const char *name, void *arg)
{
	const struct named_arg *a = arg;
	size_t i;
	for (i = 0; i < a->ix->nfuncs; i++) {
		const struct nf_func *f = &a->ix->funcs[i];
		if (f->mps_kernel && strcmp(f->base, a->op) != 0 &&
		    strcmp(lex_unqualified(f->mps_kernel), name) == 0)
			return 1;
	}
	return 0;
}

/* the row (of another operator than OP) whose MPS kernel reaches host
 * function NAME through the host functions calling it, breadth first,
 * "row (kernel)", or NULL */
static char *reaching_row(const struct hs_model *hm, const struct nf_index *ix,
                          const char *op, const char *name)
{
	char **queue;
	size_t qn = 1, i, j, k, f;
	char *found = NULL;
	queue = xcalloc(hm->ndefs + 1, sizeof *queue);
	queue[0] = xstrdup(name);
	for (i = 0; i < qn && !found; i++) {
		for (f = 0; f < ix->nfuncs && !found; f++) {
			const struct nf_func *fn = &ix->funcs[f];
			if (i > 0 && fn->mps_kernel && strcmp(fn->base, op) != 0 &&
			    fn->route == ROUTE_MPS_SPECIFIC &&
			    strcmp(lex_unqualified(fn->mps_kernel), queue[i]) == 0)
				found = xasprintf("%s (%s)", fn->name, queue[i]);
		}
		for (j = 0; j < hm->ndefs && !found && qn < hm->ndefs + 1; j++) {
			const struct hs_def *d = &hm->defs[j];
			int seen = 0;
			for (k = 0; k < qn && !seen; k++)
				seen = strcmp(queue[k], d->name) == 0;
			if (seen)
				continue;
			for (k = 0; k < d->ncalls; k++)
				if (strcmp(lex_unqualified(d->calls[k]), queue[i]) == 0) {
					queue[qn++] = xstrdup(d->name);
					break;
				}
		}
	}
	for (i = 0; i < qn; i++)
		free(queue[i]);
	free(queue);
	return found;
}

static void find_def(struct ok_read *r, const struct cs_model *m, int added)
{
	size_t n = 0;
	const long *v;
	if (!r->fn || !m)
		return;
	v = cs_find_defs(m, r->fn, added, &n);
	if (n > 0) {
		const struct cs_def *d = cs_def_at(m, v[0]);
		r->at = loc_of(m, d->file, d->at);
	}
}

void ok_plan_op(struct ok_plan *o, const struct nf_index *ix,
                struct cs_lazy *cs, const struct hs_model *hm, const char *op,
                int (*is_op)(const char *name, int prefix, void *op_arg),
                void *op_arg)
{
	const char **dead = NULL;
	size_t ndead = 0, i;
	struct rt_plan rt;
	struct rt_request rq;
	struct named_arg na;
	const struct cs_model *m;

	memset(o, 0, sizeof *o);
	for (i = 0; i < ix->nfuncs; i++) {
		const struct nf_func *f = &ix->funcs[i];
		if (strcmp(f->base, op) != 0)
			continue;
		if (f->kind == NF_FUNCTIONAL && !o->functional)
			o->functional = f;
		if (f->route != ROUTE_MPS_SPECIFIC || !f->mps_kernel)
			continue;
		if (!o->out || (f->kind == NF_OUT && o->out->kind != NF_OUT))
			o->out = f;
		dead = xrealloc(dead, (ndead + 1) * sizeof *dead);
		dead[ndead++] = lex_unqualified(f->mps_kernel);
	}
	if (!o->out) {
		free(dead);
		return;
	}
	o->planned = 1;

	/* the old path: the rows' definitions, their helpers */
	memset(&rq, 0, sizeof rq);
	na.ix = ix;
	na.op = op;
	rq.op = op;
	rq.dead = dead;
	rq.ndead = ndead;
	rq.names = dead;
	rq.nnames = ndead;
	rq.named = named_other;
	rq.arg = &na;
	rq.is_op = is_op;
	rq.op_arg = op_arg;
	rt_plan_op(&rt, hm, &rq);
	o->fns = xcalloc(rt.n + 1, sizeof *o->fns);
	for (i = 0; i < rt.n; i++) {
		const struct rt_item *it = &rt.items[i];
		struct ok_fn *fn;
		if (it->what != RT_DEF && it->what != RT_HELPER)
			continue;
		fn = &o->fns[o->nfns++];
		fn->what = it->what == RT_DEF ? OK_REPLACE : it->kept ? OK_KEEP
		                                                     : OK_DELETE;
		fn->name = xstrdup(it->name);
		fn->file = hm->files[it->file].rel;
		fn->line = it->line;
		fn->last = it->last;
		fn->graph = it->graph;
		if (fn->what == OK_REPLACE)
			fn->detail = xstrdup(it->detail ? it->detail : "");
		else
			fn->detail = xasprintf("%s%s",
			                       it->graph ? "builds an MPSGraph; " : "",
			                       fn->what == OK_DELETE
			                           ? "called only by the old bodies"
			                           : it->detail ? it->detail : "");
		if (fn->what == OK_KEEP)
			fn->row = reaching_row(hm, ix, op, it->name);
	}
	rt_plan_free(&rt);
	/* a replaced definition whose graph is another one's call */
	for (i = 0; i < o->nfns; i++) {
		struct ok_fn *fn = &o->fns[i];
		const long *d;
		if (fn->what != OK_REPLACE || !fn->graph)
			continue;
		for (d = hs_defs_named(hm, fn->name); *d >= 0; d++) {
			const struct hs_def *hd = &hm->defs[*d];
			const char *w = hd->why ? lex_unqualified(hd->why) : NULL;
			size_t k, n = w ? strlen(w) : 0;
			if (!w || n < 3 || strcmp(w + n - 2, "()") != 0 ||
			    strcmp(hm->files[hd->at.file].rel, fn->file) != 0)
				continue;
			for (k = 0; k < ndead && !fn->follows; k++)
				if (strcmp(dead[k], fn->name) != 0 &&
				    strlen(dead[k]) == n - 2 && !strncmp(dead[k], w, n - 2))
					fn->follows = xstrdup(dead[k]);
		}
	}
	free(dead);
	for (i = 0; i < o->nfns && o->fns[i].what != OK_REPLACE; i++)
		;
	if (i == o->nfns) {
		/* no body to replace: the MPS sources do not define the rows'
		 * kernels (a yaml-only tree) */
		ok_plan_free(o);
		return;
	}
	o->done = 1;
	for (i = 0; i < o->nfns; i++)
		if ((o->fns[i].what == OK_REPLACE && o->fns[i].graph) ||
		    o->fns[i].what == OK_DELETE)
			o->done = 0;

	/* the kernels to read */
	{
		const char *c = row_kernel(o->out, "CPU");
		const char *g = row_kernel(o->out, "CUDA");
		o->cpu.fn = c ? xstrdup(c) : NULL;
		o->cuda.fn = g ? xstrdup(g) : NULL;
	}
	m = cs_lazy_get(cs);
	if (m && m->have_sources) {
		struct cs_outrule r;
		find_def(&o->cpu, m, 0);
		if (o->cuda.fn && cs_add_folder(&cs->m, CK_CUDA_REL, NULL) == 0)
			find_def(&o->cuda, m, 1);
		cs_output_rule(m, o->out->base, NULL, &r);
		if (r.meta && r.at.file) {
			o->meta.fn = xstrdup(r.meta);
			o->meta.at = r.at;
		}
		cs_outrule_free(&r);
		if (o->cpu.fn && cs_fn_dtypes(m, o->cpu.fn, &o->dt) == 0) {
			int d;
			cs_dtset t = o->dt.types;
			o->have_dtypes = 1;
			if (o->dt.nsites > 0)
				t &= ~o->dt.branch;
			for (d = 0; d < CS_NDTYPES; d++)
				if (t & CS_BIT(d)) {
					if (cs_metal_token(d))
						o->types |= CS_BIT(d);
					else
						o->dropped |= CS_BIT(d);
				}
		} else if (o->cpu.fn) {
			o->dt_why = o->dt.why ? xstrdup(o->dt.why) : NULL;
			cs_dtypes_free(&o->dt);
		}
	}
}

void ok_plan_free(struct ok_plan *o)
{
	size_t i;
	for (i = 0; i < o->nfns; i++) {
		free(o->fns[i].name);
		free(o->fns[i].detail);
		free(o->fns[i].row);
		free(o->fns[i].follows);
	}
	free(o->fns);
	free(o->cpu.fn);
	free(o->cuda.fn);
	free(o->meta.fn);
	free(o->dt_why);
	if (o->have_dtypes)
		cs_dtypes_free(&o->dt);
	memset(o, 0, sizeof *o);
}

/* ---- the script ---- */

static const char *const py_keywords[] = {
	"False", "None", "True", "and", "as", "assert", "async", "await", "break",
	"class", "continue", "def", "del", "elif", "else", "except", "finally",
	"for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
	"not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
	"args", "outs", "name", "torch", "make", NULL};

/* NAME as a Python local: a keyword (or a name the script uses) gets '_' */
static char *py_name(const char *name)
{
	size_t i;
	for (i = 0; py_keywords[i]; i++)
		if (strcmp(py_keywords[i], name) == 0)
			return xasprintf("%s_", name);
	return xstrdup(name);
}

/* the torch dtype of a Metal token */
static const char *torch_dtype(int d)
{
	switch (d) {
	case CS_FLOAT: return "torch.float32";
	case CS_HALF: return "torch.float16";
	case CS_BFLOAT16: return "torch.bfloat16";
	case CS_LONG: return "torch.int64";
	case CS_INT: return "torch.int32";
	case CS_SHORT: return "torch.int16";
	case CS_CHAR: return "torch.int8";
	case CS_BYTE: return "torch.uint8";
	case CS_BOOL: return "torch.bool";
	default: return NULL;   /* complex: not in a first script */
	}
}

/* a schema default as a Python value, or NULL */
static const char *py_default(const char *def)
{
	size_t i, n;
	if (!def)
		return NULL;
	if (!strcmp(def, "True") || !strcmp(def, "False") || !strcmp(def, "None"))
		return def;
	n = strlen(def);
	if (n >= 2 && def[0] == '\'' && def[n - 1] == '\'')
		return def;
	if (n >= 2 && def[0] == '[' && def[n - 1] == ']')
		return def;
	for (i = 0; i < n; i++)
		if (!strchr("0123456789.-+eE", def[i]))
			return NULL;
	return n ? def : NULL;
}

/* Python for one argument of the reference call, and its comment */
static void arg_line(struct buf *b, const struct nf_arg *a, const char *var,
                     int first_tensor)
{
	const char *t = a->type, *dv = py_default(a->def);
	int opt = t[strlen(t) - 1] == '?';
	if (!strncmp(t, "Tensor", 6) && !strchr(t, '[')) {
		if (opt)
			buf_printf(b, "    %s = None  # %s %s (also try a tensor)\n", var,
			           t, a->name);
		else if (first_tensor)
			buf_printf(b, "    %s = make(shape, dtype, non_contiguous)  # %s "
			           "%s: the dtype under test\n", var, t, a->name);
		else
			buf_printf(b, "    %s = make(shape, dtype, non_contiguous)  # %s "
			           "%s: made like the first\n", var, t, a->name);
		return;
	}
	if (!strncmp(t, "Tensor", 6)) {
		buf_printf(b, "    %s = [make(shape, dtype, non_contiguous)]  # %s %s\n",
		           var, t, a->name);
		return;
	}
	if (dv) {
		buf_printf(b, "    %s = %s  # %s %s (its default)\n", var, dv, t,
		           a->name);
		return;
	}
	if (opt)
		buf_printf(b, "    %s = None  # %s %s%s%s\n", var, t, a->name,
		           a->def ? ", default " : "", a->def ? a->def : "");
	else if (!strncmp(t, "float", 5) || !strncmp(t, "Scalar", 6))
		buf_printf(b, "    %s = 1.0  # %s %s%s%s\n", var, t, a->name,
		           a->def ? ", default " : "", a->def ? a->def : "");
	else if (!strncmp(t, "bool", 4))
		buf_printf(b, "    %s = False  # %s %s%s%s\n", var, t, a->name,
		           a->def ? ", default " : "", a->def ? a->def : "");
	else if (strchr(t, '['))
		buf_printf(b, "    %s = []  # %s %s%s%s\n", var, t, a->name,
		           a->def ? ", default " : "", a->def ? a->def : "");
	else if (!strncmp(t, "int", 3) || !strncmp(t, "SymInt", 6))
		buf_printf(b, "    %s = 0  # %s %s%s%s (try every value it takes)\n",
		           var, t, a->name, a->def ? ", default " : "",
		           a->def ? a->def : "");
	else
		buf_printf(b, "    %s = None  # %s %s: TODO(mps-run script)\n", var, t,
		           a->name);
}

/* the reference operator: torch.ops.aten.NAME[.OVERLOAD] */
static char *aten_call(const struct ok_plan *o, const char *op)
{
	const struct nf_func *f = o->functional ? o->functional : o->out;
	if (f->overload && *f->overload)
		return xasprintf("torch.ops.aten.%s.%s", f->base, f->overload);
	return xasprintf("torch.ops.aten.%s", op);
}

static void loc_words(struct buf *b, const struct ok_read *r, const char *what)
{
	if (!r->fn)
		buf_printf(b, "# %s: the row names none.\n", what);
	else if (r->at.file)
		buf_printf(b, "# %s %s (%s:%lu).\n", what, r->fn, r->at.file,
		           r->at.line);
	else
		buf_printf(b, "# %s %s (not found under the sources).\n", what, r->fn);
}

char *ok_script(const struct ok_plan *o, const char *op, const char *script)
{
	struct buf b;
	struct nf_arg *args = NULL, *oargs = NULL;
	long na = -1, noa = -1, k;
	const struct nf_func *ref = o->functional ? o->functional : o->out;
	char **vars = NULL, **outs = NULL;
	size_t nvars = 0, nouts = 0;
	const char *first = NULL, *out0 = NULL;
	char *call = aten_call(o, op);
	int d, any = 0;

	buf_init(&b);
	if (ref->schema)
		na = nf_schema_args(ref->schema, &args);
	if (o->out->schema)
		noa = nf_schema_args(o->out->schema, &oargs);
	for (k = 0; k < na; k++) {
		if (args[k].write)
			continue;
		vars = xrealloc(vars, (nvars + 1) * sizeof *vars);
		vars[nvars] = py_name(args[k].name);
		if (!first && !strncmp(args[k].type, "Tensor", 6) &&
		    !strchr(args[k].type, '[') &&
		    args[k].type[strlen(args[k].type) - 1] != '?')
			first = vars[nvars];
		nvars++;
	}
	for (k = 0; k < noa; k++)
		if (oargs[k].write && oargs[k].kwarg) {
			outs = xrealloc(outs, (nouts + 1) * sizeof *outs);
			outs[nouts++] = py_name(oargs[k].name);
		}
	if (!first)
		first = nvars ? vars[0] : "x";
	out0 = nouts ? outs[0] : "out";

	buf_printf(&b,
	    "# An mps-run script for %s, started by mps-migrate --script: fill\n"
	    "# in each TODO(mps-run script), in the parts between the \">>>\" and\n"
	    "# \"<<<\" lines.  It runs the operator's Metal kernel as\n"
	    "# torch.mps.compile_shader runs it and compares it with PyTorch's CPU:\n"
	    "#   mps-run %s    on any machine, under mps-run's model (bounds,\n"
	    "#                 races and barriers checked)\n"
	    "#   python %s     on a Mac: the same script on the GPU\n",
	    op, script, script);
	loc_words(&b, &o->cpu, "Read first: the CPU kernel");
	loc_words(&b, &o->cuda, "The CUDA kernel");
	if (o->meta.fn)
		loc_words(&b, &o->meta, "Output sizes and checks: the meta function");
	buf_puts(&b, "import sys\n\nimport torch\n\n");
	if (o->have_dtypes) {
		char *names = cs_dtset_names(o->dt.types & ~(o->dt.nsites ? o->dt.branch : 0), ", ");
		buf_printf(&b, "# The dtypes of the CPU kernel that Metal has (%s read at "
		           "%s:%lu%s).\n", names, o->dt.def.file ? o->dt.def.file : "?",
		           o->dt.def.line, o->dropped ? "; no double on MPS" : "");
		free(names);
	} else {
		buf_puts(&b, "# The dtypes: the CPU kernel's could not be read; "
		         "TODO(mps-run script): list them.\n");
	}
	buf_puts(&b, "DTYPES = {");
	for (d = 0; d < CS_NDTYPES; d++)
		if ((o->types & CS_BIT(d)) && torch_dtype(d))
			buf_printf(&b, "%s\"%s\": %s", any++ ? ", " : "",
			           cs_metal_token(d), torch_dtype(d));
	if (!any)
		buf_puts(&b, "\"float\": torch.float32");
	buf_puts(&b, "}\n\n");
	buf_puts(&b,
	    "# (atol, rtol) per dtype: what test_mps.py's test_output_match compares\n"
	    "# with for most operators (torch.testing's defaults; operators in its\n"
	    "# low-precision lists get looser half and bfloat tolerances).  Other\n"
	    "# dtypes: exact.\n"
	    "TOLERANCES = {\n"
	    "    torch.float32: (1e-5, 1.3e-6),\n"
	    "    torch.float16: (1e-5, 1e-3),\n"
	    "    torch.bfloat16: (1e-5, 1.6e-2),\n"
	    "}\n\n"
	    "# Threads per group, as the host code will dispatch them.\n"
	    "GROUP = 256\n\n");
	buf_printf(&b,
	    "# >>> kernel\n"
	    "# TODO(mps-run script): the kernel(s).  DTYPE stands for each key of\n"
	    "# DTYPES: one kernel per dtype, compiled together.  Check each stage of\n"
	    "# a multi-kernel pipeline as a kernel of its own.\n"
	    "KERNEL = \"\"\"\n"
	    "kernel void %s_DTYPE(constant DTYPE* %s [[buffer(0)]],\n"
	    "    device DTYPE* %s [[buffer(1)]],\n"
	    "    constant long& numel [[buffer(2)]],\n"
	    "    uint tid [[thread_position_in_grid]]) {\n"
	    "  // TODO(mps-run script): the body\n"
	    "}\n"
	    "\"\"\"\n"
	    "# <<< kernel\n\n",
	    op, first, out0);
	buf_puts(&b,
	    "SOURCE = \"#include <metal_stdlib>\\nusing namespace metal;\\n\" + \"\".join(\n"
	    "    KERNEL.replace(\"DTYPE\", name) for name in DTYPES)\n\n"
	    "device = \"mps\" if torch.backends.mps.is_available() else \"cpu\"\n"
	    "lib = torch.mps.compile_shader(SOURCE)\n"
	    "torch.manual_seed(0)\n\n\n"
	    "def make(shape, dtype, non_contiguous=False):\n"
	    "    \"\"\"A CPU tensor of SHAPE and DTYPE; NON_CONTIGUOUS: a view with strides.\"\"\"\n"
	    "    if non_contiguous:\n"
	    "        if len(shape) >= 2:\n"
	    "            flip = (shape[-1],) + tuple(shape[1:-1]) + (shape[0],)\n"
	    "            return make(flip, dtype).transpose(0, -1)\n"
	    "        n = shape[0] if shape else 1\n"
	    "        return make((2 * n,), dtype)[::2]\n"
	    "    if dtype.is_floating_point:\n"
	    "        return torch.randn(shape).to(dtype)\n"
	    "    if dtype == torch.bool:\n"
	    "        return torch.randint(0, 2, shape).bool()\n"
	    "    low = 0 if dtype == torch.uint8 else -8\n"
	    "    return torch.randint(low, 8, shape).to(dtype)\n\n\n");
	buf_printf(&b,
	    "# >>> inputs\n"
	    "def inputs(shape, dtype, non_contiguous):\n"
	    "    \"\"\"The arguments of %s, in schema order, on the CPU.\"\"\"\n"
	    "    # TODO(mps-run script): make each argument as the operator takes it\n"
	    "    # (indices, other dtypes, every value of an int argument).\n",
	    call + strlen("torch.ops."));
	{
		size_t v = 0;
		int seen_first = 0;
		for (k = 0; k < na; k++) {
			int is_first;
			if (args[k].write)
				continue;
			is_first = !seen_first && vars[v] == first;
			seen_first |= is_first;
			arg_line(&b, &args[k], vars[v], is_first);
			v++;
		}
	}
	buf_puts(&b, "    return [");
	for (k = 0; k < (long)nvars; k++)
		buf_printf(&b, "%s%s", k ? ", " : "", vars[k]);
	buf_puts(&b, "]\n# <<< inputs\n\n\n");
	buf_puts(&b,
	    "# >>> run\n"
	    "def run(name, args, outs):\n"
	    "    \"\"\"What the host code will do: its checks first (raise RuntimeError\n"
	    "    where it would TORCH_CHECK; OUTS is None when the CPU refused the\n"
	    "    inputs), then bind ARGS and the outputs OUTS (on DEVICE, sized as\n"
	    "    the CPU's) to the kernel's buffers and dispatch; NAME is the dtype's\n"
	    "    key in DTYPES.\"\"\"\n    ");
	for (k = 0; k < (long)nvars; k++)
		buf_printf(&b, "%s%s", k ? ", " : "", vars[k]);
	buf_printf(&b, "%s = args\n", nvars == 1 ? "," : "");
	buf_puts(&b, "    # TODO(mps-run script): the host code's checks\n");
	if (nouts) {
		buf_puts(&b, "    ");
		for (k = 0; k < (long)nouts; k++)
			buf_printf(&b, "%s%s", k ? ", " : "", outs[k]);
		buf_printf(&b, "%s = outs\n", nouts == 1 ? "," : "");
	} else {
		buf_printf(&b, "    %s = outs[0]\n", out0);
	}
	buf_printf(&b,
	    "    if %s.numel() == 0:\n"
	    "        return  # TODO(mps-run script): what the operator gives for empty inputs\n"
	    "    # TODO(mps-run script): the buffers in order, threads (the whole grid)\n"
	    "    # and group_size (threads per group), as the host code passes them\n"
	    "    getattr(lib, \"%s_\" + name)(%s, %s, %s.numel(),\n"
	    "        threads=%s.numel(), group_size=GROUP)\n"
	    "# <<< run\n\n\n",
	    first, op, first, out0, first, first);
	buf_puts(&b,
	    "# >>> cases\n"
	    "# (what, shape of the first tensor, non-contiguous): partial groups,\n"
	    "# one element, empty, non-contiguous\n"
	    "CASES = [\n"
	    "    (\"partial groups\", (3, GROUP + 5), False),\n"
	    "    (\"several groups\", (2, 3 * GROUP), False),\n"
	    "    (\"one element\", (1, 1), False),\n"
	    "    (\"empty\", (0, 4), False),\n"
	    "    (\"non-contiguous\", (5, GROUP + 3), True),\n"
	    "]\n"
	    "# <<< cases\n\n\n");
	buf_printf(&b,
	    "def reference(args, dtype):\n"
	    "    \"\"\"%s on the CPU, as a tuple; in float32 when this\n"
	    "    torch's CPU lacks DTYPE (then said).\"\"\"\n"
	    "    note = \"\"\n"
	    "    try:\n"
	    "        r = %s(*args)\n"
	    "    except RuntimeError as e:\n"
	    "        if \"not implemented for\" not in str(e):\n"
	    "            raise\n"
	    "        up = [a.float() if isinstance(a, torch.Tensor) and a.dtype == dtype else a\n"
	    "              for a in args]\n"
	    "        r = %s(*up)\n"
	    "        note = \" (CPU reference in float32: this torch lacks it)\"\n"
	    "    r = tuple(r) if isinstance(r, (tuple, list)) else (r,)\n"
	    "    if note:\n"
	    "        r = tuple(x.to(dtype) if x.dtype == torch.float32 else x for x in r)\n"
	    "    return r, note\n\n\n",
	    call + strlen("torch.ops."), call, call);
	buf_puts(&b,
	    "def compare(got, ref, dtype):\n"
	    "    \"\"\"'' when every output matches, else what differs.\"\"\"\n"
	    "    atol, rtol = TOLERANCES.get(dtype, (0, 0))\n"
	    "    for k, (g, r) in enumerate(zip(got, ref)):\n"
	    "        g = g.cpu()\n"
	    "        if g.shape != r.shape:\n"
	    "            return \"output %d: shape %s, CPU %s\" % (k, tuple(g.shape), tuple(r.shape))\n"
	    "        if r.is_floating_point():\n"
	    "            ok = torch.isclose(g.float(), r.float(), rtol=rtol, atol=atol, equal_nan=True)\n"
	    "        else:\n"
	    "            ok = g == r\n"
	    "        if not bool(ok.all()):\n"
	    "            i = int((~ok).flatten().nonzero()[0])\n"
	    "            return \"output %d at %d: %s, CPU %s\" % (\n"
	    "                k, i, g.flatten()[i].item(), r.flatten()[i].item())\n"
	    "    return \"\"\n\n\n"
	    "bad = 0\n"
	    "for what, shape, non_contiguous in CASES:\n"
	    "    for name, dtype in DTYPES.items():\n"
	    "        args = inputs(shape, dtype, non_contiguous)\n"
	    "        on_device = [a.to(device) if isinstance(a, torch.Tensor) else a for a in args]\n"
	    "        try:\n"
	    "            ref, note = reference(args, dtype)\n"
	    "        except RuntimeError as e:\n"
	    "            # the CPU refuses these inputs: the host code must refuse them too\n"
	    "            cpu = str(e).splitlines()[0]\n"
	    "            try:\n"
	    "                run(name, on_device, None)\n"
	    "                why = \"the CPU refused the inputs, run() did not: \" + cpu\n"
	    "            except RuntimeError:\n"
	    "                why = \"\"\n"
	    "            except Exception as e2:\n"
	    "                why = \"the CPU refused the inputs (%s), run() failed: %r\" % (cpu, e2)\n"
	    "            bad += why != \"\"\n"
	    "            print(\"%-16s %-7s %s\" % (what, name, \"ok (refused, as the CPU: %s)\" % cpu\n"
	    "                                      if not why else \"MISMATCH \" + why))\n"
	    "            continue\n"
	    "        outs = [torch.full_like(r, 77, device=device) for r in ref]\n"
	    "        run(name, on_device, outs)\n"
	    "        why = compare(outs, ref, dtype)\n"
	    "        bad += why != \"\"\n"
	    "        print(\"%-16s %-7s %s%s\" % (what, name, \"ok\" if not why else \"MISMATCH \" + why, note))\n"
	    "sys.exit(1 if bad else 0)\n");
	for (k = 0; k < (long)nvars; k++)
		free(vars[k]);
	for (k = 0; k < (long)nouts; k++)
		free(outs[k]);
	free(vars);
	free(outs);
	if (na >= 0)
		nf_args_free(args, (size_t)na);
	if (noa >= 0)
		nf_args_free(oargs, (size_t)noa);
	free(call);
	return b.data;
}
