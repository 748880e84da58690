/* mps-dispatch — fold MPS-specific dispatch rows into the shared dispatch
 * line of native_functions.yaml (or, with --add, add MPS to the shared
 * line of a new operator's out rows).  The plan is fold.h's; this file
 * reads the options, prints the plan and hands the new yaml to the edit
 * engine. */
#include "base/cli.h"
#include "base/diag.h"
#include "edit/edit.h"
#include "plan/fold.h"
#include "read/nfyaml.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *opt_root, *opt_journal;
static int opt_in_place, opt_json, opt_add, opt_undo;

static const struct opt opts[] = {
	CLI_OPT_ROOT(&opt_root),
	{"add", 0, OPT_FLAG, &opt_add, NULL,
	 "new operator: add MPS to the shared line of its out rows"},
	{"in-place", 'i', OPT_FLAG, &opt_in_place, NULL,
	 "write the change (atomically) instead of printing a diff"},
	{"json", 'j', OPT_FLAG, &opt_json, NULL,
	 "JSON Lines: one object per row acted on or refused (no diff)"},
	{"undo", 0, OPT_FLAG, &opt_undo, NULL,
	 "restore the files of the newest --in-place edit (any tool's)"},
	CLI_OPT_JOURNAL(&opt_journal),
	CLI_OPT_END};

static const struct tool_info info = {
	"mps-dispatch",
	"[--root DIR] [--add] [--in-place] [--json] OP... | --undo",
	"Fold every MPS-specific dispatch row of each operator OP into its shared "
	"dispatch line.",
	"OP is an operator's base name (every row of it: `pow`) or one function\n"
	"(that row alone: `pow.Tensor_Scalar_out`, for a migration one overload at\n"
	"a time).\n"
	"Fold (default): in every overload row of OP that has `MPS: x_mps` on its\n"
	"own line beside a shared `CPU, CUDA: x` line, MPS joins the shared line\n"
	"(`CPU, CUDA, MPS: x`) and the `MPS:` line goes.  A structured row folds.\n"
	"A row that is not structured folds when its shared kernel reaches the\n"
	"device through DispatchStubs or calls only other operators, as the C++\n"
	"sources under aten/src/ATen/native show; it is refused, with the reason\n"
	"and the file:line, when that kernel does CPU-only work itself, when no\n"
	"definition of it is found, or when the tree has no C++ sources.  Refused\n"
	"too: no CPU/CUDA line to join, CPU and CUDA kernels that differ.\n"
	"For each row folded, a note names every stub its shared kernel reaches,\n"
	"with where: MPS must register each (REGISTER_DISPATCH, or a wrapper such\n"
	"as REGISTER_UNARY_TI_DISPATCH).\n"
	"--add: for a new operator, add MPS to the shared line of each out row of\n"
	"OP that has no MPS kernel yet (same rules, same notes).\n"
	"Key order: when the keys of the joined line are in alphabetical order\n"
	"ignoring case (CPU, CUDA, XPU), MPS takes its alphabetical place (CPU,\n"
	"CUDA, MPS, XPU), as PyTorch writes them; otherwise it goes at the end.\n"
	"Comments, indentation, blank lines, line endings and every byte outside\n"
	"the changed lines stay as they are.\n"
	"\n"
	"Reads: ROOT/" NF_YAML_REL "; the C++ sources under\n"
	"ROOT/aten/src/ATen/native (*.cpp, *.h; not the device folders) when a row\n"
	"is acted on.\n"
	"Writes (only with --in-place or --undo): that file, atomically, and one\n"
	"undo journal entry in the checkout: ROOT/.git/metal-kernel/journal/ in a\n"
	"git work tree, else ROOT/.metal-kernel/journal/ (--journal DIR moves it).\n"
	"Nothing else, nowhere else.  A temporary .NAME.mk-XXXXXX left beside the\n"
	"file by a killed --in-place is removed by the next one, which says so.\n"
	"Never uses the network, never runs other programs.\n"
	"\n"
	"--json: one object per row: op, function, path, line, action (fold or\n"
	"add when only proposed, folded or added once written, refused or\n"
	"refused-add), reason, hint, kernel (the shared kernel joined), stubs (a\n"
	"list of {name, reached_at, declared}; [] for a kernel that needs none;\n"
	"null when the C++ sources could not tell); with --undo one object per\n"
	"restored file.\n"
	"\n"
	"Exit status: 0 nothing to change (prints nothing) or written; 1 a diff\n"
	"was printed; 2 error, or rows needed folding and none could be.\n"};

static void report(const struct fold_row *r)
{
	const struct nf_func *f = r->f;
	unsigned long line = r->at ? r->at->line : f->line;
	unsigned long col = r->at ? r->at->col : 1;
	size_t i;
	if (r->no_out) {
		diag_at(NF_YAML_REL, f->line, 1,
		        "warning: not added: '%s' has no out= row to add MPS to "
		        "(composite, or not TensorIterator-shaped); see mps-overloads %s",
		        f->base, f->base);
		return;
	}
	if (opt_json) {
		json_t *o = json_object(), *st = json_null();
		json_object_set_new(o, "op", json_string(f->base));
		json_object_set_new(o, "function", json_string(f->name));
		json_object_set_new(o, "path", json_string(NF_YAML_REL));
		json_object_set_new(o, "line", json_integer((json_int_t)line));
		json_object_set_new(o, "action",
		                    json_string(fold_action_name(r->action, opt_in_place)));
		json_object_set_new(o, "reason", r->why ? json_string(r->why) : json_null());
		json_object_set_new(o, "hint", r->hint ? json_string(r->hint) : json_null());
		json_object_set_new(o, "kernel", r->kernel ? json_string(r->kernel)
		                                           : json_null());
		if (r->reach == CS_STUB_BACKED || r->reach == CS_DEVICE_GENERIC) {
			st = json_array();
			for (i = 0; i < r->nstubs; i++) {
				json_t *s = json_object();
				json_object_set_new(s, "name", json_string(r->stubs[i].name));
				json_object_set_new(s, "reached_at", json_string(r->stubs[i].where));
				json_object_set_new(s, "declared", json_boolean(r->stubs[i].declared));
				json_array_append_new(st, s);
			}
		}
		json_object_set_new(o, "stubs", st);
		json_dumpf(o, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
		putchar('\n');
		json_decref(o);
	}
	if (r->why) {
		diag_at(NF_YAML_REL, line, col, "warning: not %s: '%s': %s; %s",
		        r->action == FOLD_REFUSED_ADD ? "added" : "folded", f->name,
		        r->why, r->hint);
		return;
	}
	/* what MPS must register now */
	for (i = 0; i < r->nstubs; i++)
		diag_at(NF_YAML_REL, line, col,
		        "note: %s: MPS must register %s (reached at %s%s)", f->name,
		        r->stubs[i].name, r->stubs[i].where,
		        r->stubs[i].declared ? "" : "; no DECLARE_DISPATCH declares it");
	if (r->reach == CS_DEVICE_GENERIC)
		diag_at(NF_YAML_REL, line, col,
		        "note: %s: its shared kernel `%s` calls other operators only: "
		        "no stub to register", f->name, r->kernel);
}

int main(int argc, char **argv)
{
	struct nf_index ix;
	struct edit_set set = {0};
	struct edit_opts eo = {0};
	struct edit_file *ef;
	struct fold_plan plan;
	struct cs_lazy cs;
	char *root, *path;
	int nops, k, status;
	size_t i, nacted, nrefused;

	diag_init("mps-dispatch");
	nops = cli_parse(&info, opts, argc, argv);
	eo.journal = opt_journal;
	eo.tool = "mps-dispatch";
	if (opt_undo) {
		if (nops || opt_add || opt_in_place)
			cli_error(&info, opts, "--undo takes no operator, --add or --in-place");
		eo.json = opt_json;
		if (!(root = find_root(opt_root)))
			return MK_EXIT_ERROR;
		eo.root = root;
		status = edit_undo(&eo);
		free(root);
		return close_stdout(status);
	}
	cli_operator_count(&info, opts, nops, 0);
	if (!cli_operators_valid(argv, nops, nf_valid_op_arg))
		return MK_EXIT_ERROR;
	if (!(root = find_root(opt_root)))
		return MK_EXIT_ERROR;
	path = xasprintf("%s/%s", root, NF_YAML_REL);
	if (!(ef = edit_set_load(&set, path, NF_YAML_REL)) ||
	    nf_load_buffer(&ix, NF_YAML_REL, ef->old, ef->oldlen) != 0) {
		edit_set_free(&set);
		free(root);
		free(path);
		return MK_EXIT_ERROR;
	}

	memset(&plan, 0, sizeof plan);
	memset(&cs, 0, sizeof cs);
	cs.root = root;
	for (k = 0; k < nops; k++) {
		size_t from = plan.nrows;
		if (fold_plan_op(&plan, &ix, &cs, argv[k], opt_add) == 0) {
			warnx_("error: no %s '%s' in %s (see mps-overloads)",
			       strchr(argv[k], '.') ? "function" : "operator", argv[k],
			       NF_YAML_REL);
			fold_plan_free(&plan);
			cs_lazy_free(&cs);
			nf_free(&ix);
			edit_set_free(&set);
			free(root);
			free(path);
			return MK_EXIT_ERROR;
		}
		for (i = from; i < plan.nrows; i++)
			report(&plan.rows[i]);
	}
	{
		size_t n;
		char *text = fold_apply(&ix, &plan, &n);
		edit_set_replace(ef, text, n);
		free(text);
	}
	nacted = plan.nacted;
	nrefused = plan.nrefused;
	fold_plan_free(&plan);
	cs_lazy_free(&cs);
	nf_free(&ix);

	if (nacted == 0) {
		edit_set_free(&set);
		free(root);
		free(path);
		return close_stdout(nrefused ? MK_EXIT_ERROR : MK_EXIT_CLEAN);
	}
	eo.in_place = opt_in_place;
	eo.root = root;
	if (opt_json) {
		/* JSON Lines were printed; the diff is not mixed into them */
		FILE *null = fopen("/dev/null", "w");
		eo.out = null;
		status = edit_finish(&set, &eo);
		if (null)
			fclose(null);
	} else {
		status = edit_finish(&set, &eo);
	}
	edit_set_free(&set);
	free(root);
	free(path);
	return close_stdout(status);
}
