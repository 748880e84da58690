/* mps-dispatch — fold MPS-specific dispatch rows into the shared dispatch
 * line of native_functions.yaml (or, with --add, add MPS to the shared
 * line of a new operator's structured out row).  Issue #4.
 *
 * Works on the yaml text: libyaml's marks (through nfyaml) locate the
 * dispatch lines; only those lines change, every other byte stays. */
#include "cli.h"
#include "diag.h"
#include "edit.h"
#include "nfyaml.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *opt_root, *opt_journal;
static int opt_in_place, opt_json, opt_add, opt_undo;

static const struct opt opts[] = {
	{"root", 0, OPT_STRING, &opt_root, "DIR",
	 "PyTorch checkout (default: walk up from the current folder)"},
	{"add", 0, OPT_FLAG, &opt_add, NULL,
	 "new operator: add MPS to the shared line of its structured out rows"},
	{"in-place", 'i', OPT_FLAG, &opt_in_place, NULL,
	 "write the change (atomically) instead of printing a diff"},
	{"json", 'j', OPT_FLAG, &opt_json, NULL,
	 "JSON Lines: one object per row acted on or refused (no diff)"},
	{"undo", 0, OPT_FLAG, &opt_undo, NULL,
	 "restore the files of the newest --in-place edit (any tool's)"},
	{"journal", 0, OPT_STRING, &opt_journal, "DIR",
	 "undo journal folder (default: the checkout's own, see below)"},
	{NULL, 0, OPT_END, NULL, NULL, NULL}};

static const struct tool_info info = {
	"mps-dispatch",
	"[--root DIR] [--add] [--in-place] [--json] OP... | --undo",
	"Fold every MPS-specific dispatch row of each operator OP into its shared "
	"dispatch line.",
	"Fold (default): in every overload row of OP that has `MPS: x_mps` on its\n"
	"own line beside a shared `CPU, CUDA: x` line, MPS joins the shared line\n"
	"(`CPU, CUDA, MPS: x`) and the `MPS:` line goes.  A row is not folded, and\n"
	"the reason is given, when it is not structured, when it has no CPU/CUDA\n"
	"line to join, or when its CPU and CUDA kernels differ.\n"
	"--add: for a new operator, add MPS to the shared line of each structured\n"
	"out row of OP that has no MPS kernel yet.\n"
	"Comments, indentation, key order, blank lines, line endings and every\n"
	"byte outside the changed lines stay as they are.\n"
	"\n"
	"Reads: ROOT/" NF_YAML_REL ".\n"
	"Writes (only with --in-place or --undo): that file, atomically, and one\n"
	"undo journal entry in the checkout: ROOT/.git/metal-kernel/journal/ in a\n"
	"git work tree, else ROOT/.metal-kernel/journal/ (--journal DIR moves it).\n"
	"Nothing else, nowhere else.  A temporary .NAME.mk-XXXXXX left beside the\n"
	"file by a killed --in-place is removed by the next one, which says so.\n"
	"Never uses the network, never runs other programs.\n"
	"\n"
	"--json: one object per row: op, function, path, line, action (fold or\n"
	"add when only proposed, folded or added once written, refused or\n"
	"refused-add), reason, hint; with --undo one object per restored file.\n"
	"\n"
	"Exit status: 0 nothing to change (prints nothing) or written; 1 a diff\n"
	"was printed; 2 error, or rows needed folding and none could be.\n"};

/* one text edit: replace [start, end) by text */
struct tedit {
	size_t start, end;
	char *text;
};

static struct tedit *edits;
static size_t nedits, capedits;

static void add_edit(size_t start, size_t end, char *text)
{
	if (nedits == capedits)
		edits = xrealloc(edits, (capedits = capedits ? capedits * 2 : 16) *
		                            sizeof *edits);
	edits[nedits].start = start;
	edits[nedits].end = end;
	edits[nedits].text = text;
	nedits++;
}

static int cmp_edit(const void *a, const void *b)
{
	const struct tedit *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

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

static int is_backend(const char *k, const char *b)
{
	return strcmp(k, b) == 0;
}

/* The line holding CPU or CUDA (the shared implementation MPS can join). */
static const struct nf_dispatch *shared_line(const struct nf_func *f,
                                             const char **why)
{
	const struct nf_dispatch *cpu = NULL, *cuda = NULL;
	size_t i, j;
	for (i = 0; i < f->ndispatch; i++)
		for (j = 0; j < f->dispatch[i].nkeys; j++) {
			if (is_backend(f->dispatch[i].keys[j], "CPU"))
				cpu = &f->dispatch[i];
			if (is_backend(f->dispatch[i].keys[j], "CUDA"))
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

static int nrefused, nacted;

static void report(const struct nf_index *ix, const struct nf_func *f,
                   const struct nf_dispatch *at, const char *action,
                   const char *why, const char *hint)
{
	unsigned long line = at ? at->line : f->line, col = at ? at->col : 1;
	if (opt_json) {
		json_t *o = json_object();
		json_object_set_new(o, "op", json_string(f->base));
		json_object_set_new(o, "function", json_string(f->name));
		json_object_set_new(o, "path", json_string(NF_YAML_REL));
		json_object_set_new(o, "line", json_integer((json_int_t)line));
		json_object_set_new(o, "action", json_string(action));
		json_object_set_new(o, "reason", why ? json_string(why) : json_null());
		json_object_set_new(o, "hint", hint ? json_string(hint) : json_null());
		json_dumpf(o, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
		putchar('\n');
		json_decref(o);
	}
	if (why) {
		(void)ix;
		diag_at(NF_YAML_REL, line, col, "warning: not %s: '%s': %s; %s",
		        strcmp(action, "refused-add") == 0 ? "added" : "folded",
		        f->name, why, hint);
	}
}

static void fold(const struct nf_index *ix, const struct nf_func *f)
{
	const struct nf_dispatch *mps = nf_mps_dispatch(f), *sh;
	const char *why = NULL, *t = ix->text;
	struct buf b;

	if (!f->structured) {
		report(ix, f, mps, "refused",
		       "the row is not structured",
		       "keep the MPS-specific row, or check that the shared kernel "
		       "calls a stub and add MPS to its line by hand (then register "
		       "the stub with REGISTER_DISPATCH)");
		nrefused++;
		return;
	}
	if (!(sh = shared_line(f, &why))) {
		report(ix, f, mps, "refused", why,
		       "keep the MPS-specific row, or register the existing stub "
		       "for MPS with REGISTER_MPS_DISPATCH");
		nrefused++;
		return;
	}
	if (!alone_on_line(t, ix->len, mps) || !alone_on_line(t, ix->len, sh)) {
		report(ix, f, mps, "refused", "the dispatch map is not in block style",
		       "fold it by hand");
		nrefused++;
		return;
	}
	/* MPS joins the shared line */
	add_edit(key_end(t, ix->len, sh), key_end(t, ix->len, sh), xstrdup(", MPS"));
	if (mps->nkeys == 1) {
		size_t s = line_start(t, mps->key_start);
		add_edit(s, line_next(t, ix->len, mps->value_end), xstrdup(""));
	} else {
		/* "MPS, X: k" keeps X alone */
		size_t i;
		buf_init(&b);
		for (i = 0; i < mps->nkeys; i++)
			if (strcmp(mps->keys[i], "MPS") != 0)
				buf_printf(&b, "%s%s", b.len ? ", " : "", mps->keys[i]);
		add_edit(mps->key_start, key_end(t, ix->len, mps), b.data);
	}
	report(ix, f, mps, opt_in_place ? "folded" : "fold", NULL, NULL);
	nacted++;
}

static void add_mps(const struct nf_index *ix, const struct nf_func *f)
{
	const struct nf_dispatch *sh;
	const char *why = NULL, *t = ix->text;

	if (!(sh = shared_line(f, &why))) {
		report(ix, f, NULL, "refused-add", why,
		       "write an MPS-specific kernel, or add a shared CPU/CUDA kernel first");
		nrefused++;
		return;
	}
	if (!alone_on_line(t, ix->len, sh)) {
		report(ix, f, sh, "refused-add", "the dispatch map is not in block style",
		       "add MPS by hand");
		nrefused++;
		return;
	}
	add_edit(key_end(t, ix->len, sh), key_end(t, ix->len, sh), xstrdup(", MPS"));
	report(ix, f, sh, opt_in_place ? "added" : "add", NULL, NULL);
	nacted++;
}

int main(int argc, char **argv)
{
	struct nf_index ix;
	struct edit_set set = {0};
	struct edit_opts eo = {0};
	struct edit_file *ef;
	struct buf out;
	char *root, *path;
	int nops, k, status;
	size_t i, pos;

	diag_init("mps-dispatch");
	nops = cli_parse(&info, opts, argc, argv);
	eo.journal = opt_journal;
	eo.tool = "mps-dispatch";
	if (opt_undo) {
		if (nops || opt_add || opt_in_place) {
			warnx_("error: --undo takes no operator, --add or --in-place");
			cli_usage(&info, opts);
		}
		eo.json = opt_json;
		if (!(root = find_root(opt_root)))
			return MK_EXIT_ERROR;
		eo.root = root;
		status = edit_undo(&eo);
		free(root);
		return close_stdout(status);
	}
	if (nops == 0) {
		warnx_("error: no operator given");
		cli_usage(&info, opts);
	}
	for (k = 0; k < nops; k++)
		if (!nf_valid_op_arg(argv[k]) || strchr(argv[k], '.')) {
			warnx_("error: '%s' is not an operator name", argv[k]);
			return MK_EXIT_ERROR;
		}
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

	for (k = 0; k < nops; k++) {
		int found = 0, outs = 0;
		unsigned long first_line = 0;
		for (i = 0; i < ix.nentries; i++) {
			const struct nf_func *f = &ix.funcs[i];
			if (strcmp(f->base, argv[k]) != 0)
				continue;
			if (!found)
				first_line = f->line;
			found = 1;
			if (opt_add) {
				if (f->kind != NF_OUT)
					continue;
				outs++;
				if (f->route == ROUTE_MPS_SPECIFIC) {
					report(&ix, f, nf_mps_dispatch(f), "refused-add",
					       "it has an MPS-specific kernel already",
					       "fold it: run mps-dispatch without --add");
					nrefused++;
				} else if (f->mps_kernel) {
					continue; /* shared already */
				} else if (!f->structured) {
					report(&ix, f, NULL, "refused-add",
					       "the row is not structured",
					       "add MPS to its shared line by hand once you have "
					       "checked that the kernel calls a stub");
					nrefused++;
				} else {
					add_mps(&ix, f);
				}
			} else if (f->route == ROUTE_MPS_SPECIFIC) {
				fold(&ix, f);
			}
		}
		if (found && opt_add && outs == 0) {
			diag_at(NF_YAML_REL, first_line, 1,
			        "warning: not added: '%s' has no out= row to add MPS to "
			        "(composite, or not TensorIterator-shaped); see "
			        "mps-overloads %s", argv[k], argv[k]);
			nrefused++;
		}
		if (!found) {
			warnx_("error: no operator '%s' in %s (see mps-overloads)", argv[k],
			       NF_YAML_REL);
			nf_free(&ix);
			edit_set_free(&set);
			free(root);
			free(path);
			return MK_EXIT_ERROR;
		}
	}

	/* apply the edits in file order */
	if (nedits > 1) /* edits is NULL when there are none */
		qsort(edits, nedits, sizeof *edits, cmp_edit);
	buf_init(&out);
	for (i = 0, pos = 0; i < nedits; i++) {
		buf_add(&out, ix.text + pos, edits[i].start - pos);
		buf_puts(&out, edits[i].text);
		pos = edits[i].end;
		free(edits[i].text);
	}
	buf_add(&out, ix.text + pos, ix.len - pos);
	free(edits);
	edit_set_replace(ef, out.data, out.len);
	buf_free(&out);
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
