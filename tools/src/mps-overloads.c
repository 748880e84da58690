/* mps-overloads — list every overload row of an operator in
 * native_functions.yaml and how the MPS backend reaches it.  Issue #2. */
#include "base/cli.h"
#include "base/diag.h"
#include "plan/fold.h"
#include "read/hostscan.h"
#include "read/nfyaml.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *opt_root, *opt_yaml;
static int opt_all, opt_legacy, opt_survey, opt_json;

static const struct opt opts[] = {
	{"root", 0, OPT_STRING, &opt_root, "DIR",
	 "PyTorch checkout (default: walk up from the current folder)"},
	{"yaml", 0, OPT_STRING, &opt_yaml, "FILE",
	 "read this native_functions.yaml instead of the root's"},
	{"all", 'a', OPT_FLAG, &opt_all, NULL, "list every function"},
	{"legacy", 'l', OPT_FLAG, &opt_legacy, NULL,
	 "only functions with an mps-specific row"},
	{"survey", 's', OPT_FLAG, &opt_survey, NULL,
	 "one row per operator with counts per route, totals at the end"},
	{"json", 'j', OPT_FLAG, &opt_json, NULL,
	 "JSON Lines: one object per function (or per operator with --survey)"},
	{NULL, 0, OPT_END, NULL, NULL, NULL}};

static const struct tool_info info = {
	"mps-overloads",
	"[--root DIR | --yaml FILE] [--json] [--legacy] OP... | --all | --survey",
	"List every overload row (native function) of each operator OP and how "
	"MPS reaches it.",
	"OP is an operator's base name (in-place '_' removed, as torchgen's\n"
	"OperatorName does): `atan2` lists atan2.out, atan2_ and atan2.  Functions\n"
	"generated from `autogen:` lists are included.  A full function name\n"
	"(`atan2.out`) lists that function alone; a name without its overload\n"
	"(`add_`, `__and__`) lists its overloads.\n"
	"\n"
	"Routes:\n"
	"  shared        MPS in a line with other keys (`CPU, CUDA, MPS: x_out`):\n"
	"                the shared implementation, MPS registers its stub\n"
	"  mps-specific  `MPS: x_out_mps` on its own line: a kernel of MPS alone\n"
	"  delegate      structured_delegate: follows its out row\n"
	"  composite     a CompositeImplicitAutograd / CompositeExplicitAutograd\n"
	"                kernel covers it (implicit when there is no dispatch)\n"
	"  none          no MPS kernel at all\n"
	"\n"
	"Text columns: function, schema kind, yaml line, route, detail.\n"
	"JSON fields: name, base, overload, kind, line, structured,\n"
	"structured_delegate, autogen, composite, mps_kernel, mps_route, stubs:\n"
	"for a shared row, and for an MPS-specific row that could be folded, the\n"
	"DispatchStubs its shared kernel reaches ({name, reached_at, declared};\n"
	"those reached only on other devices are left out;\n"
	"[] when it calls other operators only), from the C++ sources; null for\n"
	"other rows, when the kernel does CPU-only work or has no definition, and\n"
	"when the sources are not there (a tree without them, or --yaml).\n"
	"\n"
	"Reads: ROOT/" NF_YAML_REL " (or --yaml FILE); with --json the C++\n"
	"sources under ROOT/aten/src/ATen/native (*.cpp, *.h; not the device\n"
	"folders), for the stubs.\n"
	"Writes: nothing.  Never uses the network, never runs other programs.\n"
	"\n"
	"Exit status: 0 every OP found, 1 an OP matched nothing (nearest names\n"
	"are suggested), 2 error (bad option, unreadable or malformed yaml).\n"};

/* -------- text and JSON rows -------- */

static const char *delegate_route(const struct nf_index *ix,
                                  const struct nf_func *f)
{
	if (f->delegate < 0)
		return "?";
	return nf_route_name(ix->funcs[f->delegate].route);
}

static void print_detail(const struct nf_index *ix, const struct nf_func *f)
{
	const struct nf_dispatch *d;
	size_t i;
	switch (f->route) {
	case ROUTE_SHARED:
	case ROUTE_MPS_SPECIFIC:
		d = nf_mps_dispatch(f);
		for (i = 0; i < d->nkeys; i++)
			printf("%s%s", i ? ", " : "", d->keys[i]);
		printf(": %s", d->kernel);
		break;
	case ROUTE_DELEGATE:
		printf("%s (%s)", f->structured_delegate, delegate_route(ix, f));
		break;
	case ROUTE_COMPOSITE:
		if (f->autogen) {
			printf("autogen'd by %s", ix->funcs[f->declared_by].name);
			break;
		}
		if (!f->has_dispatch) {
			printf("CompositeImplicitAutograd (implicit)");
			break;
		}
		for (i = 0; i < f->ndispatch; i++)
			if (nf_dispatch_has_key(&f->dispatch[i], "CompositeImplicitAutograd") ||
			    nf_dispatch_has_key(&f->dispatch[i], "CompositeExplicitAutograd") ||
			    nf_dispatch_has_key(&f->dispatch[i],
			                        "CompositeExplicitAutogradNonFunctional")) {
				size_t k;
				for (k = 0; k < f->dispatch[i].nkeys; k++)
					printf("%s%s", k ? ", " : "", f->dispatch[i].keys[k]);
				printf(": %s", f->dispatch[i].kernel);
				break;
			}
		break;
	case ROUTE_NONE:
		if (f->ndispatch) {
			printf("no MPS key (");
			for (i = 0; i < f->ndispatch; i++) {
				size_t k;
				for (k = 0; k < f->dispatch[i].nkeys; k++)
					printf("%s%s", i || k ? ", " : "", f->dispatch[i].keys[k]);
			}
			printf(")");
		} else {
			printf("no MPS key");
		}
		break;
	}
}

static size_t name_width;

static void print_row(const struct nf_index *ix, const struct nf_func *f)
{
	printf("%-*s  %-10s  %6lu  %-12s  ", (int)name_width, f->name,
	       nf_kind_name(f->kind), f->line, nf_route_name(f->route));
	print_detail(ix, f);
	putchar('\n');
}

/* JSON Lines rows are formatted by jansson: json_dumpb into one buffer,
 * written with one fwrite (json_dumpf writes token by token and costs
 * more than the whole yaml parse). */
static void emit_json(struct buf *out, json_t *o)
{
	size_t room = out->cap - out->len;
	size_t n = json_dumpb(o, out->data + out->len, room, JSON_COMPACT);
	if (n + 2 > room) { /* the row, '\n' and the NUL */
		out->cap = 2 * out->cap + n + 2;
		out->data = xrealloc(out->data, out->cap);
		n = json_dumpb(o, out->data + out->len, out->cap - out->len,
		               JSON_COMPACT);
	}
	out->len += n;
	out->data[out->len++] = '\n';
	out->data[out->len] = '\0';
}

/* One object reused for every row: its keys keep their order,
 * and a value whose type stays the same is changed in place
 * (json_string_set, json_integer_set) instead of replaced, so most rows
 * cost no hash lookups and no new values. */
struct jrow {
	json_t *o;
	json_t *name, *base, *overload, *kind, *line, *route;
	json_t *delegate, *kernel; /* string, or NULL while the key holds null */
	int structured, autogen, composite; /* booleans as stored, -1 unset */
};

static void jrow_init(struct jrow *r)
{
	memset(r, 0, sizeof *r);
	r->o = json_object();
	r->structured = r->autogen = r->composite = -1;
#define KEY(field, key, value)                                              \
	json_object_set_new(r->o, key, r->field = value)
	KEY(name, "name", json_string(""));
	KEY(base, "base", json_string(""));
	KEY(overload, "overload", json_string(""));
	KEY(kind, "kind", json_string(""));
	KEY(line, "line", json_integer(0));
#undef KEY
	json_object_set_new(r->o, "structured", json_null());
	json_object_set_new(r->o, "structured_delegate", json_null());
	json_object_set_new(r->o, "autogen", json_null());
	json_object_set_new(r->o, "composite", json_null());
	json_object_set_new(r->o, "mps_kernel", json_null());
	json_object_set_new(r->o, "mps_route", r->route = json_string(""));
	json_object_set_new(r->o, "stubs", json_null());
}

static void set_bool(json_t *o, const char *key, int *now, int v)
{
	if (*now != !!v)
		json_object_set_new(o, key, json_boolean(v));
	*now = !!v;
}

static void set_opt(json_t *o, const char *key, json_t **now, const char *v)
{
	if (v && *now) {
		json_string_set(*now, v);
	} else if (v) {
		json_object_set_new(o, key, *now = json_string(v));
	} else if (*now) {
		json_object_set_new(o, key, json_null());
		*now = NULL;
	}
}

/* the stubs of the kernel a row reaches MPS through (or would once
 * folded), once per kernel: a JSON array of {name, reached_at,
 * declared}, [] for a device-generic kernel, null when the C++ sources
 * cannot tell (no sources, CPU-only, no definition) or the row has no
 * such kernel */
static struct cs_lazy cs;
static struct hs_map stub_cache;
static json_t **stub_json;
static size_t nstub_json;

static json_t *row_stubs(const struct nf_func *f)
{
	const char *k = fold_row_kernel(f);
	const struct cs_model *m;
	struct cs_discovery d;
	json_t *a = NULL;
	long at;
	size_t i;
	if (!k || !(m = cs_lazy_get(&cs)) || !m->have_sources)
		return json_null();
	if ((at = hs_map_get(&stub_cache, k)) >= 0)
		return json_incref(stub_json[at]);
	cs_discover(m, k, &d);
	if (d.kind == CS_STUB_BACKED || d.kind == CS_DEVICE_GENERIC) {
		a = json_array();
		for (i = 0; i < d.nstubs; i++) {
			json_t *o;
			if (d.stubs[i].guard) /* reached only on other devices */
				continue;
			o = json_object();
			char *w = xasprintf("%s:%lu", d.stubs[i].at.file, d.stubs[i].at.line);
			json_object_set_new(o, "name", json_string(d.stubs[i].name));
			json_object_set_new(o, "reached_at", json_string(w));
			json_object_set_new(o, "declared", json_boolean(d.stubs[i].declared));
			json_array_append_new(a, o);
			free(w);
		}
	} else {
		a = json_null();
	}
	cs_discovery_free(&d);
	stub_json = xrealloc(stub_json, (nstub_json + 1) * sizeof *stub_json);
	stub_json[nstub_json] = a;
	hs_map_put(&stub_cache, k, (long)nstub_json++);
	return json_incref(a);
}

static void json_row(struct jrow *r, struct buf *out, const struct nf_func *f)
{
	json_string_set(r->name, f->name);
	json_string_set(r->base, f->base);
	json_string_set(r->overload, f->overload);
	json_string_set(r->kind, nf_kind_name(f->kind));
	json_integer_set(r->line, (json_int_t)f->line);
	set_bool(r->o, "structured", &r->structured, f->structured);
	set_opt(r->o, "structured_delegate", &r->delegate, f->structured_delegate);
	set_bool(r->o, "autogen", &r->autogen, f->autogen);
	set_bool(r->o, "composite", &r->composite, f->composite);
	set_opt(r->o, "mps_kernel", &r->kernel, f->mps_kernel);
	json_string_set(r->route, nf_route_name(f->route));
	json_object_set_new(r->o, "stubs", row_stubs(f));
	emit_json(out, r->o);
}

/* json_rows: the rows as JSON Lines */
static void json_rows(const struct nf_index *ix, const size_t *rows, size_t n)
{
	struct jrow r;
	struct buf out;
	size_t i;
	buf_init(&out);
	jrow_init(&r);
	for (i = 0; i < n; i++)
		json_row(&r, &out, &ix->funcs[rows[i]]);
	json_decref(r.o);
	fwrite(out.data, 1, out.len, stdout);
	buf_free(&out);
}

/* rows in yaml order; autogen'd functions right after their declaring entry */
static size_t *ordered(const struct nf_index *ix)
{
	size_t *ord = xmalloc((ix->nfuncs + 1) * sizeof *ord), n = 0, i, j;
	size_t *next = xmalloc((ix->nfuncs + 1) * sizeof *next);
	size_t *head = xmalloc((ix->nentries + 1) * sizeof *head), *tail;
	tail = xmalloc((ix->nentries + 1) * sizeof *tail);
	/* chain the autogen'd functions behind their declaring entry */
	for (i = 0; i < ix->nentries; i++)
		head[i] = tail[i] = (size_t)-1;
	for (j = ix->nentries; j < ix->nfuncs; j++) {
		size_t d = (size_t)ix->funcs[j].declared_by;
		next[j] = (size_t)-1;
		if (head[d] == (size_t)-1)
			head[d] = j;
		else
			next[tail[d]] = j;
		tail[d] = j;
	}
	for (i = 0; i < ix->nentries; i++) {
		ord[n++] = i;
		for (j = head[i]; j != (size_t)-1; j = next[j])
			ord[n++] = j;
	}
	free(next);
	free(head);
	free(tail);
	return ord;
}

/* OP selects: with a '.', the function of that full name ("atan2.out");
 * without, every function whose base name is OP ("atan2": atan2.out,
 * atan2_, atan2) or whose name before the overload is OP ("add_":
 * add_.Tensor, add_.Scalar; "__and__": __and__.Scalar, __and__.Tensor). */
static int matches(const struct nf_func *f, const char *op)
{
	size_t n = strlen(op);
	if (strchr(op, '.'))
		return strcmp(f->name, op) == 0;
	return strcmp(f->base, op) == 0 ||
	       (strncmp(f->name, op, n) == 0 && (f->name[n] == '\0' || f->name[n] == '.'));
}

/* -------- suggestions: nearest operator names -------- */

static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, *row, best;
	row = xmalloc((lb + 1) * sizeof *row);
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t cur = row[j];
			size_t sub = prev + (a[i - 1] != b[j - 1]);
			size_t del = row[j] + 1, ins = row[j - 1] + 1;
			row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
			prev = cur;
		}
	}
	best = row[lb];
	free(row);
	return best;
}

static void suggest(const struct nf_index *ix, const char *op)
{
	const char *best[3] = {NULL, NULL, NULL};
	size_t bd[3] = {(size_t)-1, (size_t)-1, (size_t)-1}, i, k;
	size_t limit = strlen(op) / 3 > 2 ? strlen(op) / 3 : 2;
	for (i = 0; i < ix->nfuncs; i++) {
		const char *b = ix->funcs[i].base;
		size_t d;
		int dup = 0;
		for (k = 0; k < 3; k++)
			if (best[k] && strcmp(best[k], b) == 0)
				dup = 1;
		if (dup)
			continue;
		d = distance(op, b);
		if (d > limit)
			continue;
		for (k = 0; k < 3; k++)
			if (d < bd[k]) {
				size_t m;
				for (m = 2; m > k; m--) {
					bd[m] = bd[m - 1];
					best[m] = best[m - 1];
				}
				bd[k] = d;
				best[k] = b;
				break;
			}
	}
	if (!best[0]) {
		warnx_("error: no operator '%s' in %s", op, ix->path);
		return;
	}
	fprintf(stderr, "%s: error: no operator '%s' in %s; did you mean ",
	        diag_prog(), op, ix->path);
	for (k = 0; k < 3 && best[k]; k++)
		fprintf(stderr, "%s'%s'", k ? (k + 1 < 3 && best[k + 1] ? ", " : " or ")
		                            : "", best[k]);
	fprintf(stderr, "?\n");
}

/* -------- modes -------- */

static void summary(const struct nf_index *ix, const size_t *rows, size_t n)
{
	size_t count[NF_NROUTES] = {0}, i, r, k;
	const char *targets[64];
	size_t nt = 0;
	int first = 1;

	for (i = 0; i < n; i++) {
		const struct nf_func *f = &ix->funcs[rows[i]];
		count[f->route]++;
		if (f->route == ROUTE_DELEGATE) {
			for (k = 0; k < nt; k++)
				if (strcmp(targets[k], f->structured_delegate) == 0)
					break;
			if (k == nt && nt < 64)
				targets[nt++] = f->structured_delegate;
		}
	}
	printf("%zu function%s:", n, n == 1 ? "" : "s");
	for (r = 0; r < NF_NROUTES; r++) {
		if (!count[r])
			continue;
		printf("%s %zu %s", first ? "" : ",", count[r],
		       nf_route_name((enum nf_route)r));
		first = 0;
		if (r == ROUTE_DELEGATE) {
			printf(" to ");
			for (k = 0; k < nt; k++)
				printf("%s%s", k ? (k + 1 == nt ? " and " : ", ") : "", targets[k]);
		}
	}
	putchar('\n');
}

static void list_rows(const struct nf_index *ix, const size_t *rows, size_t n)
{
	size_t i;
	name_width = 8;
	for (i = 0; i < n; i++)
		if (strlen(ix->funcs[rows[i]].name) > name_width)
			name_width = strlen(ix->funcs[rows[i]].name);
	if (opt_json) {
		json_rows(ix, rows, n);
		return;
	}
	for (i = 0; i < n; i++)
		print_row(ix, &ix->funcs[rows[i]]);
}

struct opcount {
	const char *base;
	size_t first;          /* first function index, for stable order */
	size_t n[NF_NROUTES];
	size_t total;
};

static int cmp_survey(const void *a, const void *b)
{
	const struct opcount *x = a, *y = b;
	size_t lx = x->n[ROUTE_MPS_SPECIFIC], ly = y->n[ROUTE_MPS_SPECIFIC];
	if (lx != ly)
		return lx > ly ? -1 : 1;
	return strcmp(x->base, y->base);
}

static void survey(const struct nf_index *ix)
{
	struct opcount *ops = xcalloc(ix->nfuncs, sizeof *ops);
	size_t nops = 0, i, r, tot[NF_NROUTES] = {0}, w = 8, withlegacy = 0;
	/* operators by base name; a simple open hash over indexes */
	size_t cap = 16, *h;
	while (cap < ix->nfuncs * 2)
		cap *= 2;
	h = xmalloc(cap * sizeof *h);
	for (i = 0; i < cap; i++)
		h[i] = (size_t)-1;
	for (i = 0; i < ix->nfuncs; i++) {
		const struct nf_func *f = &ix->funcs[i];
		size_t k = 0, hv = 5381;
		const char *c;
		for (c = f->base; *c; c++)
			hv = hv * 33 + (unsigned char)*c;
		k = hv & (cap - 1);
		while (h[k] != (size_t)-1 && strcmp(ops[h[k]].base, f->base) != 0)
			k = (k + 1) & (cap - 1);
		if (h[k] == (size_t)-1) {
			h[k] = nops;
			ops[nops].base = f->base;
			ops[nops].first = i;
			nops++;
		}
		ops[h[k]].n[f->route]++;
		ops[h[k]].total++;
		tot[f->route]++;
	}
	free(h);
	qsort(ops, nops, sizeof *ops, cmp_survey);
	for (i = 0; i < nops; i++) {
		if (strlen(ops[i].base) > w)
			w = strlen(ops[i].base);
		withlegacy += ops[i].n[ROUTE_MPS_SPECIFIC] > 0;
	}
	if (!opt_json)
		printf("%-*s  %9s  %6s  %12s  %8s  %9s  %4s\n", (int)w, "operator",
		       "functions", "shared", "mps-specific", "delegate", "composite",
		       "none");
	for (i = 0; i < nops; i++) {
		if (opt_json) {
			json_t *o = json_object();
			json_object_set_new(o, "operator", json_string(ops[i].base));
			json_object_set_new(o, "functions", json_integer((json_int_t)ops[i].total));
			for (r = 0; r < NF_NROUTES; r++)
				json_object_set_new(o, nf_route_name((enum nf_route)r),
				                    json_integer((json_int_t)ops[i].n[r]));
			struct buf line;
			buf_init(&line);
			emit_json(&line, o);
			fwrite(line.data, 1, line.len, stdout);
			buf_free(&line);
			json_decref(o);
			continue;
		}
		printf("%-*s  %9zu  %6zu  %12zu  %8zu  %9zu  %4zu\n", (int)w,
		       ops[i].base, ops[i].total, ops[i].n[ROUTE_SHARED],
		       ops[i].n[ROUTE_MPS_SPECIFIC], ops[i].n[ROUTE_DELEGATE],
		       ops[i].n[ROUTE_COMPOSITE], ops[i].n[ROUTE_NONE]);
	}
	if (!opt_json) {
		printf("%-*s  %9zu  %6zu  %12zu  %8zu  %9zu  %4zu\n", (int)w, "total",
		       ix->nfuncs, tot[ROUTE_SHARED], tot[ROUTE_MPS_SPECIFIC],
		       tot[ROUTE_DELEGATE], tot[ROUTE_COMPOSITE], tot[ROUTE_NONE]);
		printf("%zu operators, %zu functions; %zu operators still have an "
		       "mps-specific row\n", nops, ix->nfuncs, withlegacy);
	}
	free(ops);
}

int main(int argc, char **argv)
{
	struct nf_index ix;
	char *root = NULL, *path;
	size_t *ord, *rows, n = 0, i;
	int nops, status = MK_EXIT_CLEAN, k;

	diag_init("mps-overloads");
	nops = cli_parse(&info, opts, argc, argv);
	if ((opt_all || opt_survey) && nops > 0) {
		warnx_("error: give either OP names or --all/--survey, not both");
		cli_usage(&info, opts);
	}
	if (opt_all && opt_survey) {
		warnx_("error: --all and --survey exclude each other");
		cli_usage(&info, opts);
	}
	if (opt_survey && opt_legacy) {
		warnx_("error: --survey counts every route; it takes no --legacy");
		cli_usage(&info, opts);
	}
	if (opt_root && opt_yaml) {
		warnx_("error: give either --root or --yaml, not both");
		cli_usage(&info, opts);
	}
	if (!opt_all && !opt_survey && !opt_legacy && nops == 0) {
		warnx_("error: no operator given");
		cli_usage(&info, opts);
	}
	for (k = 0; k < nops; k++)
		if (!nf_valid_op_arg(argv[k])) {
			warnx_("error: '%s' is not an operator name", argv[k]);
			return MK_EXIT_ERROR;
		}
	if (opt_yaml) {
		path = xstrdup(opt_yaml);
	} else {
		if (!(root = find_root(opt_root)))
			return MK_EXIT_ERROR;
		path = xasprintf("%s/%s", root, NF_YAML_REL);
	}
	if (nf_load(&ix, path, opt_yaml ? NULL : NF_YAML_REL) != 0)
		status = MK_EXIT_ERROR;
	free(path);
	cs.root = root; /* NULL with --yaml: no C++ sources */
	if (status != MK_EXIT_CLEAN) {
		free(root);
		return status;
	}

	if (opt_survey) {
		survey(&ix);
		nf_free(&ix);
		free(root);
		return close_stdout(MK_EXIT_CLEAN);
	}
	ord = ordered(&ix);
	rows = xmalloc((ix.nfuncs + 1) * sizeof *rows);
	if (nops == 0) {
		for (i = 0; i < ix.nfuncs; i++)
			if (!opt_legacy || ix.funcs[ord[i]].route == ROUTE_MPS_SPECIFIC)
				rows[n++] = ord[i];
		list_rows(&ix, rows, n);
		if (!opt_json)
			summary(&ix, rows, n);
	} else {
		for (k = 0; k < nops; k++) {
			size_t found = 0;
			n = 0;
			for (i = 0; i < ix.nfuncs; i++) {
				const struct nf_func *f = &ix.funcs[ord[i]];
				if (!matches(f, argv[k]))
					continue;
				found++;
				if (!opt_legacy || f->route == ROUTE_MPS_SPECIFIC)
					rows[n++] = ord[i];
			}
			if (!found) {
				suggest(&ix, argv[k]);
				status = MK_EXIT_FINDINGS;
				continue;
			}
			if (!opt_json && nops > 1)
				printf("%s%s:\n", k ? "\n" : "", argv[k]);
			list_rows(&ix, rows, n);
			if (!opt_json)
				summary(&ix, rows, n);
		}
	}
	free(rows);
	free(ord);
	nf_free(&ix);
	for (i = 0; i < nstub_json; i++)
		json_decref(stub_json[i]);
	free(stub_json);
	hs_map_free(&stub_cache);
	cs_lazy_free(&cs);
	free(root);
	return close_stdout(status);
}
