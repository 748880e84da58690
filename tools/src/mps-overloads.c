/* mps-overloads — list every overload row of an operator in
 * native_functions.yaml and how the MPS backend reaches it.  Issue #2. */
#include "base/cli.h"
#include "base/diag.h"
#include "plan/overloads.h"
#include "read/nfyaml.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *opt_root, *opt_yaml;
static int opt_all, opt_legacy, opt_survey, opt_json;

static const struct opt opts[] = {
	CLI_OPT_ROOT(&opt_root),
	{"yaml", 0, OPT_STRING, &opt_yaml, "FILE",
	 "read this native_functions.yaml instead of the root's"},
	{"all", 'a', OPT_FLAG, &opt_all, NULL, "list every function"},
	{"legacy", 'l', OPT_FLAG, &opt_legacy, NULL,
	 "only functions with an mps-specific row"},
	{"survey", 's', OPT_FLAG, &opt_survey, NULL,
	 "one row per operator with counts per route, totals at the end"},
	{"json", 'j', OPT_FLAG, &opt_json, NULL,
	 "JSON Lines: one object per function (or per operator with --survey)"},
	CLI_OPT_END};

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
 * written with one fwrite a block of rows (json_dumpf writes token by
 * token and costs more than the whole yaml parse). */
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

/* the stubs of the kernel a row reaches MPS through (or would once
 * folded): a JSON array of {name, reached_at, declared}, [] for a
 * device-generic kernel, null when the sources cannot tell */
static struct cs_lazy cs;
static struct ov_stubs stubs;

/* one JSON Lines row: its keys in a fixed order, written straight into
 * OUT (buf_json_str: jansson's compact dump, at a fraction of its cost
 * for 3,000 rows) */
static void json_opt(struct buf *out, const char *key, const char *v)
{
	buf_puts(out, key);
	if (v)
		buf_json_str(out, v);
	else
		buf_puts(out, "null");
}

static void json_row(struct buf *out, const struct nf_func *f)
{
	const struct ov_reach *r = ov_row_stubs(&stubs, f);
	size_t i;
	buf_puts(out, "{\"name\":");
	buf_json_str(out, f->name);
	buf_puts(out, ",\"base\":");
	buf_json_str(out, f->base);
	buf_puts(out, ",\"overload\":");
	buf_json_str(out, f->overload);
	buf_printf(out, ",\"kind\":\"%s\",\"line\":%lu,\"structured\":%s",
	           nf_kind_name(f->kind), f->line, f->structured ? "true" : "false");
	json_opt(out, ",\"structured_delegate\":", f->structured_delegate);
	buf_printf(out, ",\"autogen\":%s,\"composite\":%s",
	           f->autogen ? "true" : "false", f->composite ? "true" : "false");
	json_opt(out, ",\"mps_kernel\":", f->mps_kernel);
	buf_printf(out, ",\"mps_route\":\"%s\",\"stubs\":",
	           nf_route_name(f->route));
	if (!r) {
		buf_puts(out, "null}\n");
		return;
	}
	buf_puts(out, "[");
	for (i = 0; i < r->n; i++) {
		buf_puts(out, i ? ",{\"name\":" : "{\"name\":");
		buf_json_str(out, r->v[i]->name);
		buf_printf(out, ",\"reached_at\":");
		{
			char *w = xasprintf("%s:%lu", r->v[i]->at.file, r->v[i]->at.line);
			buf_json_str(out, w);
			free(w);
		}
		buf_printf(out, ",\"declared\":%s}", r->v[i]->declared ? "true" : "false");
	}
	buf_puts(out, "]}\n");
}

/* json_rows: the rows as JSON Lines */
static void json_rows(const struct nf_index *ix, const size_t *rows, size_t n)
{
	struct buf out;
	size_t i;
	buf_init(&out);
	for (i = 0; i < n; i++) {
		json_row(&out, &ix->funcs[rows[i]]);
		if (out.len >= 60000 || i + 1 == n) {
			/* in blocks: the buffer is used again, not grown */
			fwrite(out.data, 1, out.len, stdout);
			out.len = 0;
		}
	}
	buf_free(&out);
}

/* -------- suggestions: nearest operator names -------- */

static void suggest(const struct nf_index *ix, const char *op)
{
	const char *best[3];
	size_t n = ov_nearest(ix, op, best), k;
	if (!n) {
		warnx_("error: no operator '%s' in %s", op, ix->path);
		return;
	}
	fprintf(stderr, "%s: error: no operator '%s' in %s; did you mean ",
	        diag_prog(), op, ix->path);
	for (k = 0; k < n; k++)
		fprintf(stderr, "%s'%s'", k ? (k + 1 < n ? ", " : " or ") : "", best[k]);
	fprintf(stderr, "?\n");
}

/* -------- modes -------- */

static void summary(const struct nf_index *ix, const size_t *rows, size_t n)
{
	struct ov_counts c;
	size_t r, k;
	int first = 1;

	ov_count(ix, rows, n, &c);
	printf("%zu function%s:", n, n == 1 ? "" : "s");
	for (r = 0; r < NF_NROUTES; r++) {
		if (!c.n[r])
			continue;
		printf("%s %zu %s", first ? "" : ",", c.n[r],
		       nf_route_name((enum nf_route)r));
		first = 0;
		if (r == ROUTE_DELEGATE) {
			printf(" to ");
			for (k = 0; k < c.ntargets; k++)
				printf("%s%s", k ? (k + 1 == c.ntargets ? " and " : ", ") : "",
				       c.targets[k]);
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

static void survey(const struct nf_index *ix)
{
	struct ov_survey sv;
	size_t i, r;
	int w;
	ov_survey(ix, &sv);
	w = (int)sv.width;
	if (!opt_json)
		printf("%-*s  %9s  %6s  %12s  %8s  %9s  %4s\n", w, "operator",
		       "functions", "shared", "mps-specific", "delegate", "composite",
		       "none");
	for (i = 0; i < sv.nops; i++) {
		const struct ov_op *o = &sv.ops[i];
		if (opt_json) {
			json_t *j = json_object();
			struct buf line;
			json_object_set_new(j, "operator", json_string(o->base));
			json_object_set_new(j, "functions", json_integer((json_int_t)o->total));
			for (r = 0; r < NF_NROUTES; r++)
				json_object_set_new(j, nf_route_name((enum nf_route)r),
				                    json_integer((json_int_t)o->n[r]));
			buf_init(&line);
			emit_json(&line, j);
			fwrite(line.data, 1, line.len, stdout);
			buf_free(&line);
			json_decref(j);
			continue;
		}
		printf("%-*s  %9zu  %6zu  %12zu  %8zu  %9zu  %4zu\n", w, o->base,
		       o->total, o->n[ROUTE_SHARED], o->n[ROUTE_MPS_SPECIFIC],
		       o->n[ROUTE_DELEGATE], o->n[ROUTE_COMPOSITE], o->n[ROUTE_NONE]);
	}
	if (!opt_json) {
		printf("%-*s  %9zu  %6zu  %12zu  %8zu  %9zu  %4zu\n", w, "total",
		       ix->nfuncs, sv.tot[ROUTE_SHARED], sv.tot[ROUTE_MPS_SPECIFIC],
		       sv.tot[ROUTE_DELEGATE], sv.tot[ROUTE_COMPOSITE], sv.tot[ROUTE_NONE]);
		printf("%zu operators, %zu functions; %zu operators still have an "
		       "mps-specific row\n", sv.nops, ix->nfuncs, sv.with_legacy);
	}
	ov_survey_free(&sv);
}

int main(int argc, char **argv)
{
	struct nf_index ix;
	char *root = NULL, *path;
	size_t *ord, *rows, n = 0;
	int nops, status = MK_EXIT_CLEAN, k;

	diag_init("mps-overloads");
	nops = cli_parse(&info, opts, argc, argv);
	if ((opt_all || opt_survey) && nops > 0)
		cli_error(&info, opts, "give either OP names or --all/--survey, not both");
	if (opt_all && opt_survey)
		cli_error(&info, opts, "--all and --survey exclude each other");
	if (opt_survey && opt_legacy)
		cli_error(&info, opts, "--survey counts every route; it takes no --legacy");
	if (opt_root && opt_yaml)
		cli_error(&info, opts, "give either --root or --yaml, not both");
	if (!opt_all && !opt_survey && !opt_legacy)
		cli_operator_count(&info, opts, nops, 0);
	if (!cli_operators_valid(argv, nops, nf_valid_op_arg))
		return MK_EXIT_ERROR;
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
	stubs.cs = &cs;
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
	ord = ov_order(&ix);
	rows = xmalloc((ix.nfuncs + 1) * sizeof *rows);
	if (nops == 0) {
		n = ov_select(&ix, ord, NULL, opt_legacy, rows, NULL);
		list_rows(&ix, rows, n);
		if (!opt_json)
			summary(&ix, rows, n);
	} else {
		for (k = 0; k < nops; k++) {
			size_t found;
			n = ov_select(&ix, ord, argv[k], opt_legacy, rows, &found);
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
	ov_stubs_free(&stubs);
	cs_lazy_free(&cs);
	free(root);
	return close_stdout(status);
}
