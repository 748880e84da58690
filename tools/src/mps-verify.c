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

#include <errno.h>
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
	"body is read.  Comments and `#if 0` blocks are not code.  --root and\n"
	"--before may be given once each.\n"
	"\n"
	"Rules:\n"
	"  legacy-dispatch-row  error    a row keeps `MPS: x_mps` while other rows,\n"
	"                                or the CPU/CUDA line of the row, are shared\n"
	"  partial-migration    error    some rows of OP shared, others MPS-specific\n"
	"  no-mps-kernel        warning  a row of OP has a CPU kernel and no MPS\n"
	"                                kernel (not composite, not autogen'd, not\n"
	"                                a delegate): OP is not on MPS yet; one\n"
	"                                finding per operator, at the structured\n"
	"                                out row when there is one\n"
	"  mpsgraph-host-path   error    an old MPS kernel of OP is defined and its\n"
	"                                body builds an MPSGraph\n"
	"  stub-wraps-mpsgraph  error    OP's stub is registered with a function or\n"
	"                                macro whose body builds an MPSGraph\n"
	"  duplicate-stub       error    OP's stub is registered more than once\n"
	"  missing-stub         error    OP's rows are shared but MPS registers no\n"
	"                                stub of OP\n"
	"  unregistered-kernel  error    host code asks for a kernel name that no\n"
	"                                .metal file registers\n"
	"  functor-placeholder  error    NAME_functor of a kernel NAME of OP, in a\n"
	"                                kernel file, still holds the marker\n"
	"                                " HS_PLACEHOLDER " that mps-register --functor\n"
	"                                writes\n"
	"  missing-overload     error    a registration of NAME has an integral input\n"
	"                                (long, int, short, char, uchar, bool, ...)\n"
	"                                but every operator() of NAME_functor is a\n"
	"                                template limited to floating-point or\n"
	"                                complex types (is_scalar_floating_point_v,\n"
	"                                is_floating_point_v, is_complex_v); a\n"
	"                                functor it cannot read is not reported\n"
	"  orphan-kernel        warning  a .metal registration no host code asks for\n"
	"  stale-include        warning  #include <ATen/ops/OP_native.h> in a file\n"
	"                                that no longer refers to OP\n"
	"  xfail-leftover       note     OP still listed as expected failure or skip\n"
	"                                in the test lists (below)\n"
	"\n"
	"Output: findings on stderr as `mps-verify: PATH:LINE:COL: SEVERITY: MESSAGE\n"
	"[RULE]`, sorted by path and line; a summary on stdout.  --json: one object\n"
	"per finding on stdout (path, line, column, severity, rule, op, message).\n"
	"\n"
	"Reads: ROOT/" NF_YAML_REL ", the host files under\n"
	"ROOT/" MPS_DIR_REL " (*.mm, *.h, *.cpp), the kernels under\n"
	"ROOT/" MPS_KERNELS_REL " (*.metal, *.h), the test lists,\n"
	"ROOT/aten/src/ATen/native/NAME.h (DECLARE_DISPATCH) when a stub must be\n"
	"named, and --before FILE.\n"
	"Test lists: ROOT/" COMMON_MPS_REL " when present: variables\n"
	"named *xfail* or *skip* (any case); else ROOT/" TEST_MPS_REL " (releases\n"
	"before common_mps.py, e.g. 1.13, 2.6): upper-case names holding XFAIL,\n"
	"SKIP or BLOCKLIST.  Each is a dict, set, list or tuple literal (or\n"
	"NAME.update(...)); its first-level quoted keys are the OpInfo names.\n"
	"When neither file exists a note says the lists were not checked.\n"
	"Writes: nothing.  Never uses the network, never runs other programs.\n"
	"\n"
	"Exit status: 0 clean (notes only), 1 findings of severity error or\n"
	"warning, 2 error (bad option or OP, unreadable or malformed input).\n"};

/* A value option (--root, --before) given twice is an error, not "the
 * last one wins": the walk mirrors cli_parse (operands, "--", "--name
 * value", "--name=value"). */
static void once_each(int argc, char **argv)
{
	size_t seen[8] = {0};
	int i;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		size_t k, len;
		if (strcmp(a, "--") == 0)
			return;
		if (a[0] != '-' || a[1] != '-')
			continue;
		a += 2;
		len = strcspn(a, "=");
		for (k = 0; opts[k].type != OPT_END && k < 8; k++) {
			if (opts[k].type != OPT_STRING || strlen(opts[k].name) != len ||
			    strncmp(opts[k].name, a, len) != 0)
				continue;
			if (seen[k]++) {
				warnx_("error: option '--%s' given more than once", opts[k].name);
				cli_usage(&info, opts);
			}
			if (!a[len])
				i++; /* its value */
		}
	}
}

/* ---------------- rules and findings ---------------- */

enum rule {
	R_LEGACY_ROW, R_PARTIAL, R_NO_KERNEL, R_GRAPH_PATH, R_STUB_GRAPH,
	R_DUP_STUB, R_MISSING_STUB, R_UNREGISTERED, R_PLACEHOLDER,
	R_NO_OVERLOAD, R_ORPHAN, R_STALE_INCLUDE, R_XFAIL, NRULES
};
static const char *const rule_id[NRULES] = {
    "legacy-dispatch-row", "partial-migration",   "no-mps-kernel",
    "mpsgraph-host-path",  "stub-wraps-mpsgraph", "duplicate-stub",
    "missing-stub",        "unregistered-kernel", "functor-placeholder",
    "missing-overload",    "orphan-kernel",       "stale-include",
    "xfail-leftover"};
enum sev { SEV_ERROR, SEV_WARNING, SEV_NOTE };
static const int rule_sev[NRULES] = {
    SEV_ERROR, SEV_ERROR,   SEV_WARNING, SEV_ERROR, SEV_ERROR,
    SEV_ERROR, SEV_ERROR,   SEV_ERROR,   SEV_ERROR, SEV_ERROR,
    SEV_WARNING, SEV_WARNING, SEV_NOTE};
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
	/* no-mps-kernel: rows with a CPU kernel and none for MPS */
	{
		const struct nf_func *first_none = NULL;
		const struct nf_dispatch *dense = NULL;
		size_t nnone = 0, nmps_rows = 0;
		for (i = 0; i < op->nrows; i++) {
			const struct nf_func *f = &ix.funcs[op->rows[i]];
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
			buf_printf(&m, ": %s`)", entity(dense->kernel));
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
			add_finding(NF_YAML_REL, dense->line, dense->col, R_NO_KERNEL, o,
			            m.data);
		}
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

/* The old MPS kernel names of an operator, handed one at a time to a
 * callback; a nonzero return stops the walk (and is returned). */
typedef int (*name_fn)(const char *name, void *ctx);

/* The names built from one overload spelling ovl ("", "_out", "_scalar",
 * ...): OP{,_}OVL{,_out}{_mps,_mps_out}. */
static int old_names_spelled(const struct op *op, const char *ovl,
                             size_t novl, struct buf *b, name_fn fn, void *ctx)
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
				buf_puts(b, op->name);
				buf_puts(b, ins[j]);
				buf_add(b, ovl, novl);
				buf_puts(b, outs[k]);
				buf_puts(b, tails[l]);
				if ((r = fn(b->data, ctx)) != 0)
					return r;
			}
	return 0;
}

/* Rows' MPS-alone kernels and, when spelled, the names built from their
 * overload spellings ("_" + lower-cased overload, and without a trailing
 * "_out"). */
static int old_names_rows(const struct op *op, int spelled,
                          const struct nf_index *x, const size_t *rows,
                          size_t n, struct buf *b, struct buf *ovl, name_fn fn,
                          void *ctx)
{
	size_t i;
	int r;
	for (i = 0; i < n; i++) {
		const struct nf_func *f = &x->funcs[rows[i]];
		const struct nf_dispatch *d = mps_alone(f);
		if (d && !f->autogen && (r = fn(entity(d->kernel), ctx)) != 0)
			return r;
		if (spelled && f->overload[0]) {
			size_t len;
			ovl->len = 0;
			buf_puts(ovl, "_");
			lower_into(ovl, f->overload);
			len = ovl->len;
			if ((r = old_names_spelled(op, ovl->data, len, b, fn, ctx)) != 0)
				return r;
			if (len > 5 && strcmp(ovl->data + len - 4, "_out") == 0 &&
			    (r = old_names_spelled(op, ovl->data, len - 4, b, fn, ctx)) != 0)
				return r;
		}
	}
	return 0;
}

/* Every old MPS kernel name of op: the MPS-alone kernels of its rows (and
 * of its --before rows) and, when spelled, PyTorch's naming patterns.
 * The same name may come more than once. */
static int old_names(const struct op *op, int spelled, name_fn fn, void *ctx)
{
	struct buf b, ovl;
	int r = 0;
	buf_init(&b);
	buf_init(&ovl);
	if (spelled)
		r = old_names_spelled(op, "", 0, &b, fn, ctx);
	if (!r)
		r = old_names_rows(op, spelled, &ix, op->rows, op->nrows, &b, &ovl, fn,
		                   ctx);
	if (!r && have_before)
		r = old_names_rows(op, spelled, &bx, op->brows, op->nbrows, &b, &ovl,
		                   fn, ctx);
	buf_free(&b);
	buf_free(&ovl);
	return r;
}

struct found {
	long *v;
	size_t n, cap;
};

/* name_fn: the definitions named NAME that build an MPSGraph and were
 * not reported yet are marked reported and appended to the struct found. */
static int graph_defs_named(const char *name, void *ctx)
{
	struct found *fd = ctx;
	const long *d;
	for (d = hs_defs_named(&hm, name); *d >= 0; d++) {
		if (def_reported[*d] || !hm.defs[*d].graph)
			continue;
		def_reported[*d] = 1;
		if (fd->n == fd->cap) {
			fd->cap = fd->cap ? fd->cap * 2 : 8;
			fd->v = xrealloc(fd->v, fd->cap * sizeof *fd->v);
		}
		fd->v[fd->n++] = *d;
	}
	return 0;
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
	struct found fd;
	size_t i;
	/* the spelled names all start with the operator's name */
	int spelled = graph_name_with_prefix(op->name);

	/* every candidate name is looked up directly (a definition found
	 * twice is reported once); reported in definition order */
	memset(&fd, 0, sizeof fd);
	old_names(op, spelled, graph_defs_named, &fd);
	if (fd.n > 1)
		qsort(fd.v, fd.n, sizeof *fd.v, cmp_long);
	for (i = 0; i < fd.n; i++) {
		const struct hs_def *d = &hm.defs[fd.v[i]];
		char *why = graph_detail(d);
		add_at(d->at, R_GRAPH_PATH, o,
		       xasprintf("old MPS kernel `%s` of %s is still defined and "
		                 "builds an MPSGraph (%s)",
		                 d->name, op->name, why));
		free(why);
	}
	free(fd.v);
}

/* ---------------- entity rules ---------------- */

struct in_file {
	size_t file;
};

/* name_fn: 1 when host file ctx->file names identifier NAME. */
static int file_names(const char *name, void *ctx)
{
	const struct in_file *inf = ctx;
	return hs_file_has_ident(&hm, inf->file, name);
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
static long functor_of(const struct hs_metal *r)
{
	size_t i;
	long other = -1;
	int nother = 0;
	for (i = 0; i < hm.nfunctors; i++) {
		if (strcmp(hm.functors[i].kernel, r->name) != 0)
			continue;
		if (hm.functors[i].at.file == r->at.file)
			return (long)i;
		other = (long)i;
		nother++;
	}
	return nother == 1 ? other : -1;
}

/* functor-placeholder, missing-overload */
static void rule_functors(void)
{
	size_t i, *nint, *first;
	for (i = 0; i < hm.nfunctors; i++) {
		const struct hs_functor *fu = &hm.functors[i];
		long o = op_of(fu->kernel);
		if (!fu->placeholder || o < 0 || !sel(o))
			continue;
		add_at(fu->marker, R_PLACEHOLDER, o,
		       xasprintf("%s still holds the placeholder that mps-register "
		                 "--functor writes (%s): write the math of %s and "
		                 "remove the marker",
		                 fu->name, HS_PLACEHOLDER, ops[o].name));
	}
	/* registrations with an integral input whose functor has no
	 * overload for it: one finding per functor, at the first */
	nint = xcalloc(hm.nfunctors + 1, sizeof *nint);
	first = xcalloc(hm.nfunctors + 1, sizeof *first);
	for (i = 0; i < hm.nmetals; i++) {
		const struct hs_metal *r = &hm.metals[i];
		long f;
		if (!integral_dtype(r->in) || (f = functor_of(r)) < 0 ||
		    !hm.functors[f].no_integral)
			continue;
		if (!nint[f]++)
			first[f] = i;
	}
	for (i = 0; i < hm.nfunctors; i++) {
		const struct hs_functor *fu = &hm.functors[i];
		const struct hs_metal *r;
		char more[32];
		long o = op_of(fu->kernel);
		if (!nint[i] || o < 0 || !sel(o))
			continue;
		r = &hm.metals[first[i]];
		snprintf(more, sizeof more, "%zu", nint[i] - 1);
		add_at(r->at, R_NO_OVERLOAD, o,
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
		/* a file that still defines or names an old MPS kernel of the
		 * operator refers to it (mpsgraph-host-path reports that) */
		if (!refers) {
			struct in_file inf;
			inf.file = in->at.file;
			refers = old_names(op, 1, file_names, &inf);
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
	once_each(argc, argv);
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
		if (nf_load(&bx, opt_before, NULL) != 0) {
			free(root);
			return MK_EXIT_ERROR;
		}
		have_before = 1;
	}
	/* from here on every path is relative to the root, as in the output */
	if (chdir(root) != 0) {
		warnx_("cannot enter '%s': %s", root, strerror(errno));
		free(root);
		return MK_EXIT_ERROR;
	}
	free(root);
	if (nf_load(&ix, NF_YAML_REL, NULL) != 0)
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
			free(base);
			free(ovl);
			return MK_EXIT_ERROR;
		}
		ops[o].selected = 1;
		free(base);
		free(ovl);
	}

	if (hs_load(&hm, ".") != 0)
		return MK_EXIT_ERROR;
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
	rule_functors();

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
	if (!hm.have_common_mps && !hm.have_test_mps)
		warnx_("note: neither %s nor %s exists: the expected-failure lists "
		       "were not checked [xfail-leftover]", COMMON_MPS_REL, TEST_MPS_REL);
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
