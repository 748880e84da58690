/* mps-verify — prove that a migration of an MPS operator from MPSGraph to
 * a native Metal kernel left no old host path behind.  Issue #3.
 *
 * The yaml index (nfyaml.h) gives the overload rows of each operator; the
 * source model (hostscan.h) gives definitions, stub registrations, kernel
 * requests, includes, .metal registrations and xfail entries, each file
 * read and scanned once for every operator.  The rules are below, in the
 * order of the table.
 */
#include "cli.h"
#include "diag.h"
#include "hostscan.h"
#include "nfyaml.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *opt_root, *opt_before;
static int opt_all, opt_json;

static const struct opt opts[] = {
	{"root", 0, OPT_STRING, &opt_root, "DIR",
	 "PyTorch checkout (default: walk up from the current folder)"},
	{"before", 0, OPT_STRING, &opt_before, "FILE",
	 "an older native_functions.yaml: more old MPS kernel names"},
	{"all", 'a', OPT_FLAG, &opt_all, NULL, "check every operator"},
	{"json", 'j', OPT_FLAG, &opt_json, NULL,
	 "JSON Lines: one object per finding"},
	{NULL, 0, OPT_END, NULL, NULL, NULL}};

static const struct tool_info info = {
	"mps-verify",
	"[--root DIR] [--before FILE] [--json] OP... | --all",
	"Check that no old MPS host path of operator OP is left behind.",
	"OP is an operator's base name (`atan2` covers atan2.out, atan2_, atan2).\n"
	"Old MPS kernel names come from the rows that still name them, from\n"
	"--before FILE (e.g. `git show HEAD~1:" NF_YAML_REL "`) and from\n"
	"PyTorch's naming patterns (OP_out_mps, OP_mps, OP_mps_out, OP_OVERLOAD_mps,\n"
	"...).  A kernel named *_mps whose body runs Metal is not an error: the\n"
	"body is read.  Comments and `#if 0` blocks are not code.\n"
	"\n"
	"Rules:\n"
	"  legacy-dispatch-row  error    a row keeps `MPS: x_mps` while other rows,\n"
	"                                or the CPU/CUDA line of the row, are shared\n"
	"  partial-migration    error    some rows of OP shared, others MPS-specific\n"
	"  mpsgraph-host-path   error    an old MPS kernel of OP is defined and its\n"
	"                                body builds an MPSGraph\n"
	"  stub-wraps-mpsgraph  error    OP's stub is registered with a function or\n"
	"                                macro whose body builds an MPSGraph\n"
	"  duplicate-stub       error    OP's stub is registered more than once\n"
	"  missing-stub         error    OP's rows are shared but MPS registers no\n"
	"                                stub of OP\n"
	"  unregistered-kernel  error    host code asks for a kernel name that no\n"
	"                                .metal file registers\n"
	"  orphan-kernel        warning  a .metal registration no host code asks for\n"
	"  stale-include        warning  #include <ATen/ops/OP_native.h> in a file\n"
	"                                that no longer refers to OP\n"
	"  xfail-leftover       note     OP still listed as expected failure or skip\n"
	"                                in common_mps.py\n"
	"\n"
	"Output: findings on stderr as `mps-verify: PATH:LINE:COL: SEVERITY: MESSAGE\n"
	"[RULE]`, sorted by path and line; a summary on stdout.  --json: one object\n"
	"per finding on stdout (path, line, column, severity, rule, op, message).\n"
	"\n"
	"Reads: ROOT/" NF_YAML_REL ", the host files under\n"
	"ROOT/" MPS_DIR_REL " (*.mm, *.h, *.cpp), the kernels under\n"
	"ROOT/" MPS_KERNELS_REL " (*.metal, *.h), ROOT/" COMMON_MPS_REL "\n"
	"when present, ROOT/aten/src/ATen/native/NAME.h (DECLARE_DISPATCH) when a\n"
	"stub must be named, and --before FILE.\n"
	"Writes: nothing.  Never uses the network, never runs other programs.\n"
	"\n"
	"Exit status: 0 clean (notes only), 1 findings of severity error or\n"
	"warning, 2 error (bad option or OP, unreadable or malformed input).\n"};

/* ---------------- rules and findings ---------------- */

enum rule {
	R_LEGACY_ROW, R_PARTIAL, R_GRAPH_PATH, R_STUB_GRAPH, R_DUP_STUB,
	R_MISSING_STUB, R_UNREGISTERED, R_ORPHAN, R_STALE_INCLUDE, R_XFAIL,
	NRULES
};
static const char *const rule_id[NRULES] = {
    "legacy-dispatch-row", "partial-migration", "mpsgraph-host-path",
    "stub-wraps-mpsgraph", "duplicate-stub",    "missing-stub",
    "unregistered-kernel", "orphan-kernel",     "stale-include",
    "xfail-leftover"};
enum sev { SEV_ERROR, SEV_WARNING, SEV_NOTE };
static const int rule_sev[NRULES] = {
    SEV_ERROR, SEV_ERROR, SEV_ERROR, SEV_ERROR,   SEV_ERROR,
    SEV_ERROR, SEV_ERROR, SEV_WARNING, SEV_WARNING, SEV_NOTE};
static const char *const sev_name[] = {"error", "warning", "note"};

struct finding {
	const char *path;
	unsigned long line, col;
	int rule;
	long op;      /* index into ops, -1 none */
	char *msg;
};

static struct finding *fnd;
static size_t nfnd, capfnd;

/* ---------------- operators ---------------- */

struct op {
	char *name;
	size_t *rows, nrows;     /* indexes into ix.funcs */
	size_t *brows, nbrows;   /* indexes into bx.funcs (--before) */
	int selected;
	size_t count[3];         /* findings by severity */
	size_t ndecls;           /* DECLARE_DISPATCH stubs mapped to it */
	char *decl_stubs;        /* their names, ", "-joined (or NULL) */
	size_t nregs;            /* MPS stub registrations mapped to it */
};

static struct op *ops;
static size_t nops;
static struct hs_map opmap;
static struct nf_index ix, bx;
static int have_before;
static struct hs_model hm;

static void add_finding(const char *path, unsigned long line,
                        unsigned long col, int rule, long op, char *msg)
{
	if (nfnd == capfnd) {
		capfnd = capfnd ? capfnd * 2 : 64;
		fnd = xrealloc(fnd, capfnd * sizeof *fnd);
	}
	fnd[nfnd].path = path;
	fnd[nfnd].line = line;
	fnd[nfnd].col = col;
	fnd[nfnd].rule = rule;
	fnd[nfnd].op = op;
	fnd[nfnd].msg = msg;
	nfnd++;
}

static void add_at(struct hs_where w, int rule, long op, char *msg)
{
	unsigned long line, col;
	hs_line_col(&hm, w, &line, &col);
	add_finding(hm.files[w.file].rel, line, col, rule, op, msg);
}

static long op_get(const char *name) { return hs_map_get(&opmap, name); }

static long op_add(const char *name)
{
	long k = op_get(name);
	if (k >= 0)
		return k;
	ops = xrealloc(ops, (nops + 1) * sizeof *ops);
	memset(&ops[nops], 0, sizeof ops[nops]);
	ops[nops].name = xstrdup(name);
	hs_map_put(&opmap, name, (long)nops);
	return (long)nops++;
}

/* The operator a stub or kernel NAME belongs to: NAME itself, else the
 * longest operator name NAME starts with followed by '_'.  A trailing
 * "_stub" is dropped first.  -1 when none. */
static long op_of(const char *name)
{
	char *s = xstrdup(name), *u;
	size_t n = strlen(s);
	long k = -1;
	if (n > 5 && strcmp(s + n - 5, "_stub") == 0)
		s[n - 5] = '\0';
	for (;;) {
		if ((k = op_get(s)) >= 0)
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
 * gelu, "special.i0e" → special_i0e, "linalg.solve" → linalg_solve). */
static long op_of_xfail(const char *key)
{
	static const char nnf[] = "nn.functional.";
	char *s;
	long k = op_get(key);
	if (k >= 0)
		return k;
	if (strncmp(key, nnf, sizeof nnf - 1) == 0 &&
	    (k = op_get(key + sizeof nnf - 1)) >= 0)
		return k;
	s = xstrdup(key);
	for (char *p = s; *p; p++)
		if (*p == '.')
			*p = '_';
	k = op_get(s);
	free(s);
	return k;
}

static int sel(long op) { return opt_all || (op >= 0 && ops[op].selected); }

/* The kernel name of a dispatch value, namespace removed. */
static const char *entity(const char *k)
{
	const char *p = strrchr(k, ':');
	return p ? p + 1 : k;
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

/* MPS alone on its dispatch line (the row's own MPS kernel). */
static const struct nf_dispatch *mps_alone(const struct nf_func *f)
{
	const struct nf_dispatch *d = nf_mps_dispatch(f);
	return d && d->nkeys == 1 ? d : NULL;
}

/* ---------------- per-operator rules ---------------- */

static void rule_rows(long o)
{
	struct op *op = &ops[o];
	size_t i, nshared = 0, nmps = 0;
	const struct nf_func *first_shared = NULL, *first_mps = NULL;
	struct buf sh, ms;

	buf_init(&sh);
	buf_init(&ms);
	for (i = 0; i < op->nrows; i++) {
		const struct nf_func *f = &ix.funcs[op->rows[i]];
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
	/* legacy-dispatch-row */
	for (i = 0; i < op->nrows; i++) {
		const struct nf_func *f = &ix.funcs[op->rows[i]];
		const struct nf_dispatch *d, *cc;
		struct buf m;
		if (f->route != ROUTE_MPS_SPECIFIC || !(d = mps_alone(f)))
			continue;
		cc = cpu_cuda_line(f);
		if (!cc && !nshared)
			continue;
		buf_init(&m);
		buf_printf(&m, "%s: `MPS: %s` is a kernel of MPS alone while ", f->name,
		           entity(d->kernel));
		if (cc) {
			buf_puts(&m, "`");
			join_keys(&m, cc);
			buf_printf(&m, ": %s` in the same row is shared; list MPS on "
			           "that line", entity(cc->kernel));
		} else {
			buf_printf(&m, "%s uses the shared kernel `%s`; route this row "
			           "the same way", first_shared->name,
			           first_shared->mps_kernel);
		}
		add_finding(NF_YAML_REL, d->line, d->col, R_LEGACY_ROW, o, m.data);
	}
	/* partial-migration */
	if (nshared && nmps) {
		const struct nf_dispatch *d = mps_alone(first_mps);
		add_finding(NF_YAML_REL, d->line, d->col, R_PARTIAL, o,
		            xasprintf("%s: %zu overload row%s shared (%s) but %zu "
		                      "MPS-specific (%s); migrate every row",
		                      op->name, nshared, nshared == 1 ? " is" : "s are",
		                      sh.data, nmps, ms.data));
	}
	/* missing-stub */
	if (nshared && op->nregs == 0) {
		int evidence = op->ndecls > 0;
		for (i = 0; i < op->nbrows && !evidence; i++)
			if (bx.funcs[op->brows[i]].route == ROUTE_MPS_SPECIFIC)
				evidence = 1;
		if (evidence) {
			const struct nf_dispatch *d = nf_mps_dispatch(first_shared);
			char *stubs = op->decl_stubs ? xstrdup(op->decl_stubs)
			                             : xasprintf("%s_stub", op->name);
			add_finding(NF_YAML_REL, d->line, d->col, R_MISSING_STUB, o,
			            xasprintf("%s routes MPS to the shared kernel `%s` but "
			                      "no MPS registration of %s exists "
			                      "(REGISTER_DISPATCH or a wrapper such as "
			                      "REGISTER_UNARY_TI_DISPATCH)",
			                      first_shared->name, first_shared->mps_kernel,
			                      stubs));
			free(stubs);
		}
	}
	buf_free(&sh);
	buf_free(&ms);
}

static void lower_into(struct buf *b, const char *s)
{
	for (; *s; s++) {
		char c = *s;
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		buf_add(b, &c, 1);
	}
}

static char *graph_detail(const struct hs_def *d)
{
	if (d->macro)
		return xasprintf("%s, through %s", d->why ? d->why : "?", d->macro);
	return xstrdup(d->why ? d->why : "?");
}

static unsigned char *def_reported;

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return x < y ? -1 : x > y;
}

/* The definitions named NAME that build an MPSGraph and were not
 * reported yet: marked reported and appended to *found. */
static void graph_defs_named(const char *name, long **found, size_t *nf,
                             size_t *capf)
{
	const long *d;
	for (d = hs_defs_named(&hm, name); *d >= 0; d++) {
		if (def_reported[*d] || !hm.defs[*d].graph)
			continue;
		def_reported[*d] = 1;
		if (*nf == *capf) {
			*capf = *capf ? *capf * 2 : 8;
			*found = xrealloc(*found, *capf * sizeof **found);
		}
		(*found)[(*nf)++] = *d;
	}
}

/* The old kernel names of OP built from one overload spelling ovl ("",
 * "_out", "_scalar", ...): OP{,_}OVL{,_out}{_mps,_mps_out}. */
static void graph_defs_spelled(const struct op *op, const char *ovl,
                               size_t novl, struct buf *b, long **found,
                               size_t *nf, size_t *capf)
{
	static const char *const ins[] = {"", "_"};
	static const char *const outs[] = {"", "_out"};
	static const char *const tails[] = {"_mps", "_mps_out"};
	size_t j, k, l;
	for (j = 0; j < 2; j++)
		for (k = 0; k < 2; k++)
			for (l = 0; l < 2; l++) {
				b->len = 0;
				buf_puts(b, op->name);
				buf_puts(b, ins[j]);
				buf_add(b, ovl, novl);
				buf_puts(b, outs[k]);
				buf_puts(b, tails[l]);
				graph_defs_named(b->data, found, nf, capf);
			}
}

/* Rows' MPS-alone kernels and the names built from their overload
 * spellings ("_" + lower-cased overload, and without a trailing "_out"). */
static void graph_defs_rows(const struct op *op, int spelled,
                            const struct nf_index *x,
                            const size_t *rows, size_t n, struct buf *b,
                            struct buf *ovl, long **found, size_t *nf,
                            size_t *capf)
{
	size_t i;
	for (i = 0; i < n; i++) {
		const struct nf_func *f = &x->funcs[rows[i]];
		const struct nf_dispatch *d = mps_alone(f);
		if (d && !f->autogen)
			graph_defs_named(entity(d->kernel), found, nf, capf);
		if (spelled && f->overload[0]) {
			size_t len;
			ovl->len = 0;
			buf_puts(ovl, "_");
			lower_into(ovl, f->overload);
			len = ovl->len;
			graph_defs_spelled(op, ovl->data, len, b, found, nf, capf);
			if (len > 5 && strcmp(ovl->data + len - 4, "_out") == 0)
				graph_defs_spelled(op, ovl->data, len - 4, b, found, nf,
				                   capf);
		}
	}
}

/* The names of the definitions that build an MPSGraph, sorted: an
 * operator none of whose names starts with needs no spelled lookups. */
static char **graph_names;
static size_t ngraph_names;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void index_graph_names(void)
{
	size_t i;
	graph_names = xcalloc(hm.ndefs + 1, sizeof *graph_names);
	for (i = 0; i < hm.ndefs; i++)
		if (hm.defs[i].graph)
			graph_names[ngraph_names++] = hm.defs[i].name;
	if (ngraph_names > 1)
		qsort(graph_names, ngraph_names, sizeof *graph_names, cmp_str);
}

static int graph_name_with_prefix(const char *pre)
{
	size_t lo = 0, hi = ngraph_names, n = strlen(pre);
	while (lo < hi) { /* the first name >= pre */
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(graph_names[mid], pre) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ngraph_names && strncmp(graph_names[lo], pre, n) == 0;
}

static void rule_graph_path(long o)
{
	struct op *op = &ops[o];
	struct buf b, ovl;
	long *found = NULL;
	size_t i, nf = 0, capf = 0;
	/* the spelled names all start with the operator's name */
	int spelled = graph_name_with_prefix(op->name);

	/* every candidate name is looked up directly (a definition found
	 * twice is reported once); reported in definition order */
	buf_init(&b);
	buf_init(&ovl);
	if (spelled)
		graph_defs_spelled(op, "", 0, &b, &found, &nf, &capf);
	graph_defs_rows(op, spelled, &ix, op->rows, op->nrows, &b, &ovl, &found,
	                &nf, &capf);
	if (have_before)
		graph_defs_rows(op, spelled, &bx, op->brows, op->nbrows, &b, &ovl,
		                &found, &nf, &capf);
	buf_free(&b);
	buf_free(&ovl);
	if (nf > 1)
		qsort(found, nf, sizeof *found, cmp_long);
	for (i = 0; i < nf; i++) {
		const struct hs_def *d = &hm.defs[found[i]];
		char *why = graph_detail(d);
		add_at(d->at, R_GRAPH_PATH, o,
		       xasprintf("old MPS kernel `%s` of %s is still defined and "
		                 "builds an MPSGraph (%s)",
		                 d->name, op->name, why));
		free(why);
	}
	free(found);
}

/* ---------------- entity rules ---------------- */

static void rule_entities(void)
{
	struct hs_map first, seen;
	size_t i;

	/* stubs: duplicate-stub, stub-wraps-mpsgraph */
	memset(&first, 0, sizeof first);
	for (i = 0; i < hm.nregs; i++) {
		const struct hs_reg *r = &hm.regs[i];
		long o = op_of(r->stub), f = hs_map_get(&first, r->stub);
		if (!sel(o))
			continue;
		if (f < 0) {
			hs_map_put(&first, r->stub, (long)i);
		} else {
			const struct hs_reg *a = &hm.regs[f];
			unsigned long line, col;
			if (a->at.file == r->at.file && a->at.off == r->at.off)
				continue;
			hs_line_col(&hm, a->at, &line, &col);
			add_at(r->at, R_DUP_STUB, o,
			       xasprintf("%s is registered for MPS more than once "
			                 "(also at %s:%lu)",
			                 r->stub, hm.files[a->at.file].rel, line));
		}
		if (r->def >= 0 && hm.defs[r->def].graph) {
			const struct hs_def *d = &hm.defs[r->def];
			add_at(r->at, R_STUB_GRAPH, o,
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
	for (i = 0; i < hm.nreqs; i++) {
		const struct hs_req *q = &hm.reqs[i];
		long o = op_of(q->kernel);
		char *key;
		if (o < 0 && q->in_def >= 0) {
			size_t k;
			for (k = 0; k < hm.nregs; k++)
				if (hm.regs[k].def == q->in_def &&
				    (o = op_of(hm.regs[k].stub)) >= 0)
					break;
		}
		if (!sel(o) || hs_kernel_registered(&hm, q->kernel))
			continue;
		key = xasprintf("%zu:%zu:%s", q->at.file, q->at.off, q->kernel);
		if (hs_map_get(&seen, key) < 0) {
			hs_map_put(&seen, key, 1);
			add_at(q->at, R_UNREGISTERED, o,
			       xasprintf("host code asks for Metal kernel \"%s\" but no "
			                 ".metal file registers it (%s(%s, ...))",
			                 q->kernel,
			                 q->binary ? "REGISTER_BINARY_OP"
			                           : "REGISTER_UNARY_OP",
			                 q->kernel));
		}
		free(key);
	}
	hs_map_free(&seen);

	/* orphan-kernel: one finding per kernel NAME, at its first call */
	memset(&seen, 0, sizeof seen);
	for (i = 0; i < hm.nmetals; i++) {
		const struct hs_metal *k = &hm.metals[i];
		long o = op_of(k->name);
		if (hs_map_get(&seen, k->name) >= 0)
			continue;
		hs_map_put(&seen, k->name, 1);
		if (!sel(o) || hs_kernel_requested(&hm, k->name))
			continue;
		add_at(k->at, R_ORPHAN, o,
		       xasprintf("Metal kernel %s (%s%s%s) is registered but no host "
		                 "code asks for it (exec_%s_kernel(iter, \"%s\"))",
		                 k->name, k->call, k->via ? " via " : "",
		                 k->via ? k->via : "",
		                 strstr(k->call, "BINARY") ? "binary" : "unary",
		                 k->name));
	}
	hs_map_free(&seen);

	/* stale-include */
	for (i = 0; i < hm.nincs; i++) {
		const struct hs_include *in = &hm.incs[i];
		long o = op_get(in->op);
		struct op *op;
		struct buf names;
		size_t r, k, shown = 0;
		int refers = 0;
		if (o < 0 || !sel(o))
			continue;
		op = &ops[o];
		/* a file that registers a stub of the operator implements it */
		for (r = 0; r < hm.nregs && !refers; r++)
			if (hm.regs[r].at.file == in->at.file &&
			    op_of(hm.regs[r].stub) == o)
				refers = 1;
		buf_init(&names);
		for (r = 0; r < op->nrows + op->nbrows && !refers; r++) {
			const struct nf_func *f = r < op->nrows
			                              ? &ix.funcs[op->rows[r]]
			                              : &bx.funcs[op->brows[r - op->nrows]];
			for (k = 0; k < f->ndispatch && !refers; k++) {
				const char *kn = entity(f->dispatch[k].kernel);
				if (hs_file_has_ident(&hm, in->at.file, kn))
					refers = 1;
				else if (shown < 3 && !strstr(names.data ? names.data : "", kn)) {
					buf_printf(&names, "%s%s", shown ? ", " : "", kn);
					shown++;
				}
			}
		}
		if (!refers && (op->nrows || op->nbrows))
			add_at(in->at, R_STALE_INCLUDE, o,
			       xasprintf("#include <ATen/ops/%s_native.h> is left but the "
			                 "file no longer refers to %s (looked for %s and its stubs)",
			                 in->op, in->op,
			                 names.data ? names.data : "no kernel names"));
		buf_free(&names);
	}

	/* xfail-leftover */
	for (i = 0; i < hm.nxfails; i++) {
		const struct hs_xfail *x = &hm.xfails[i];
		long o = op_of_xfail(x->key);
		if (o < 0 || !sel(o))
			continue;
		add_at(x->at, R_XFAIL, o,
		       xasprintf("'%s' is still listed in %s: an expected failure or "
		                 "skip of %s on MPS; remove it once the Metal kernel "
		                 "passes", x->key, x->list, ops[o].name));
	}
}

/* ---------------- output ---------------- */

static int cmp_finding(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	if (c)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	if (x->rule != y->rule)
		return x->rule - y->rule;
	return strcmp(x->msg, y->msg);
}

static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static void print_counts(const char *label, const size_t c[3])
{
	printf("%s: %zu %s, %zu %s, %zu %s\n", label, c[0],
	       plural(c[0], "error", "errors"), c[1],
	       plural(c[1], "warning", "warnings"), c[2],
	       plural(c[2], "note", "notes"));
}

static void load_decls(void)
{
	size_t i;
	if (hs_load_decls(&hm) != 0)
		exit(MK_EXIT_ERROR);
	for (i = 0; i < hm.ndecls; i++) {
		long o = op_of(hm.decls[i].stub);
		struct op *op;
		if (o < 0)
			continue;
		op = &ops[o];
		if (op->decl_stubs && strstr(op->decl_stubs, hm.decls[i].stub))
			continue;
		op->ndecls++;
		if (op->decl_stubs) {
			char *s = xasprintf("%s / %s", op->decl_stubs, hm.decls[i].stub);
			free(op->decl_stubs);
			op->decl_stubs = s;
		} else {
			op->decl_stubs = xstrdup(hm.decls[i].stub);
		}
	}
}

int main(int argc, char **argv)
{
	char *root;
	int nargs, k, status;
	size_t i, total[3] = {0, 0, 0}, rules[NRULES], nhost = 0, nkern = 0;
	int need_decls = 0;

	diag_init("mps-verify");
	nargs = cli_parse(&info, opts, argc, argv);
	if (opt_all && nargs > 0) {
		warnx_("error: give either OP names or --all, not both");
		cli_usage(&info, opts);
	}
	if (!opt_all && nargs == 0) {
		warnx_("error: no operator given");
		cli_usage(&info, opts);
	}
	for (k = 0; k < nargs; k++)
		if (!nf_valid_op_arg(argv[k])) {
			warnx_("error: '%s' is not an operator name", argv[k]);
			return MK_EXIT_ERROR;
		}
	if (!(root = find_root(opt_root)))
		return MK_EXIT_ERROR;
	if (opt_before) {
		if (nf_load(&bx, opt_before) != 0)
			return MK_EXIT_ERROR;
		have_before = 1;
	}
	/* from here on every path is relative to the root, as in the output */
	if (chdir(root) != 0)
		die("cannot enter '%s':", root);
	if (nf_load(&ix, NF_YAML_REL) != 0)
		return MK_EXIT_ERROR;

	/* operators: every base name of both yamls, in file order */
	for (i = 0; i < ix.nfuncs; i++) {
		long o = op_add(ix.funcs[i].base);
		struct op *op = &ops[o];
		op->rows = xrealloc(op->rows, (op->nrows + 1) * sizeof *op->rows);
		op->rows[op->nrows++] = i;
	}
	for (i = 0; have_before && i < bx.nfuncs; i++) {
		long o = op_add(bx.funcs[i].base);
		struct op *op = &ops[o];
		op->brows = xrealloc(op->brows, (op->nbrows + 1) * sizeof *op->brows);
		op->brows[op->nbrows++] = i;
	}
	for (k = 0; k < nargs; k++) {
		char *base, *ovl;
		int inplace;
		long o;
		if (nf_parse_opname(argv[k], &base, &ovl, &inplace) != 0) {
			warnx_("error: '%s' is not an operator name", argv[k]);
			return MK_EXIT_ERROR;
		}
		o = op_get(base);
		if (o < 0) {
			warnx_("error: no operator '%s' in %s%s%s", base, NF_YAML_REL,
			       have_before ? " or " : "", have_before ? opt_before : "");
			return MK_EXIT_ERROR;
		}
		ops[o].selected = 1;
		free(base);
		free(ovl);
	}

	if (hs_load(&hm, ".") != 0)
		return MK_EXIT_ERROR;
	free(root);
	for (i = 0; i < hm.nfiles; i++) {
		if (hm.files[i].kind == HS_HOST)
			nhost++;
		else if (hm.files[i].kind == HS_KERNEL)
			nkern++;
	}
	for (i = 0; i < hm.nregs; i++) {
		long o = op_of(hm.regs[i].stub);
		if (o >= 0)
			ops[o].nregs++;
	}
	/* DECLARE_DISPATCH is read only when some operator needs its stub
	 * named: shared rows and no MPS registration */
	for (i = 0; i < nops && !need_decls; i++) {
		size_t r;
		if (!sel((long)i) || ops[i].nregs)
			continue;
		for (r = 0; r < ops[i].nrows; r++)
			if (ix.funcs[ops[i].rows[r]].route == ROUTE_SHARED)
				need_decls = 1;
	}
	if (need_decls)
		load_decls();

	def_reported = xcalloc(hm.ndefs + 1, 1);
	index_graph_names();
	for (i = 0; i < nops; i++)
		if (sel((long)i)) {
			rule_rows((long)i);
			rule_graph_path((long)i);
		}
	rule_entities();

	if (nfnd > 1)
		qsort(fnd, nfnd, sizeof *fnd, cmp_finding);
	memset(rules, 0, sizeof rules);
	for (i = 0; i < nfnd; i++) {
		const struct finding *f = &fnd[i];
		int sv = rule_sev[f->rule];
		total[sv]++;
		rules[f->rule]++;
		if (f->op >= 0)
			ops[f->op].count[sv]++;
		if (opt_json) {
			json_t *o = json_object();
			json_object_set_new(o, "path", json_string(f->path));
			json_object_set_new(o, "line", json_integer((json_int_t)f->line));
			json_object_set_new(o, "column", json_integer((json_int_t)f->col));
			json_object_set_new(o, "severity", json_string(sev_name[sv]));
			json_object_set_new(o, "rule", json_string(rule_id[f->rule]));
			json_object_set_new(o, "op", f->op >= 0 ? json_string(ops[f->op].name)
			                                        : json_null());
			json_object_set_new(o, "message", json_string(f->msg));
			json_dumpf(o, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
			putchar('\n');
			json_decref(o);
		} else {
			fprintf(stderr, "mps-verify: %s:%lu:%lu: %s: %s [%s]\n", f->path,
			        f->line, f->col, sev_name[sv], f->msg, rule_id[f->rule]);
		}
	}
	if (!opt_json) {
		if (opt_all) {
			size_t withf = 0, r;
			for (i = 0; i < nops; i++)
				if (ops[i].count[0] + ops[i].count[1] + ops[i].count[2])
					withf++;
			printf("%zu operators, %zu host files, %zu kernel files; %zu "
			       "%s with findings\n",
			       nops, nhost, nkern, withf,
			       plural(withf, "operator", "operators"));
			for (r = 0; r < NRULES; r++)
				printf("  %-20s %-7s %zu\n", rule_id[r], sev_name[rule_sev[r]],
				       rules[r]);
			print_counts("total", total);
		} else {
			for (k = 0; k < nargs; k++) {
				char *base, *ovl;
				int inplace;
				long o;
				nf_parse_opname(argv[k], &base, &ovl, &inplace);
				o = op_get(base);
				print_counts(ops[o].name, ops[o].count);
				free(base);
				free(ovl);
			}
			if (nargs > 1)
				print_counts("total", total);
		}
	}
	status = total[0] + total[1] ? MK_EXIT_FINDINGS : MK_EXIT_CLEAN;

	for (i = 0; i < nfnd; i++)
		free(fnd[i].msg);
	free(fnd);
	for (i = 0; i < nops; i++) {
		free(ops[i].name);
		free(ops[i].rows);
		free(ops[i].brows);
		free(ops[i].decl_stubs);
	}
	free(ops);
	free(def_reported);
	free(graph_names);
	hs_map_free(&opmap);
	hs_free(&hm);
	nf_free(&ix);
	if (have_before)
		nf_free(&bx);
	return close_stdout(status);
}
