/* mps-register — insert REGISTER_*_OP registrations of a native Metal
 * kernel, optionally its functor skeleton and its host stub (issue #5).
 *
 * Flow: validate KIND, NAME and dtypes (no file access yet); find the
 * root; load the .metal file (and the host file with --host) through the
 * edit engine; plan the insertions (regplan.h: skipping what is present,
 * refusing conflicts, keeping the files' style); hand the new bytes to
 * edit_finish() (diff, or atomic write + journal).  This file reads the
 * options and prints; the plan is regplan's, shared with mps-migrate.
 */
#include "base/cli.h"
#include "base/diag.h"
#include "edit/edit.h"
#include "read/metalreg.h"
#include "plan/regplan.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
	const char *dtypes, *preset, *kernel_file, *host_file, *root, *journal;
	const char *stub, *fields;
	int functor, host, in_place, json, undo;
} opt;

static const struct opt opts[] = {
	{"dtypes", 0, OPT_STRING, &opt.dtypes, "LIST",
	 "IN:OUT pairs, comma-separated; T alone means T:T (alpha kinds: "
	 "IN:ALPHA:OUT too)"},
	{"preset", 0, OPT_STRING, &opt.preset, "P",
	 "float, int2float, integer, complex or all"},
	{"functor", 0, OPT_FLAG, &opt.functor, NULL,
	 "add a struct NAME_functor skeleton when none exists"},
	{"host", 0, OPT_FLAG, &opt.host, NULL,
	 "add the host stub to the host file when none exists"},
	{"stub", 0, OPT_STRING, &opt.stub, "X_stub",
	 "the stub the host stub registers (default: NAME_stub)"},
	{"fields", 0, OPT_STRING, &opt.fields, "LIST",
	 "binary-params: the scalars of the struct, comma-separated (the "
	 "stub's, in its order)"},
	{"in-place", 0, OPT_FLAG, &opt.in_place, NULL,
	 "write the files (atomically, with an undo journal entry)"},
	{"kernel-file", 0, OPT_STRING, &opt.kernel_file, "F",
	 "the .metal file (default: kernels/UnaryKernel.metal or Binary...)"},
	{"host-file", 0, OPT_STRING, &opt.host_file, "F",
	 "the host file (implies --host; default: operations/UnaryKernel.mm...)"},
	{"root", 0, OPT_STRING, &opt.root, "DIR",
	 "the PyTorch checkout (default: found from the current folder up)"},
	{"json", 0, OPT_FLAG, &opt.json, NULL,
	 "print what would be (or was) inserted as JSON Lines"},
	{"undo", 0, OPT_FLAG, &opt.undo, NULL,
	 "restore the files of the newest --in-place edit of any tool"},
	CLI_OPT_JOURNAL(&opt.journal),
	CLI_OPT_END,
};

static const struct tool_info info = {
	"mps-register",
	"KIND NAME (--dtypes LIST | --preset P) [--functor] [--host] "
	"[--in-place] [options]\n       mps-register --undo [--root DIR] [--journal DIR]",
	"Register the native Metal kernel NAME for a set of dtypes, in the style "
	"of the file.",
	"KIND is one of:\n"
	"  unary         REGISTER_UNARY_OP(NAME, IN, OUT)\n"
	"  unary-alpha   REGISTER_UNARY_ALPHA_OP(NAME, IN, ALPHA, OUT)\n"
	"  binary        REGISTER_BINARY_OP(NAME, IN, OUT)\n"
	"  binary-alpha  REGISTER_BINARY_ALPHA_OP(NAME, IN, ALPHA, OUT)\n"
	"  ternary       REGISTER_TERNARY_OP(NAME, IN, OUT)\n"
	"  ternary-alpha REGISTER_TERNARY_ALPHA_OP(NAME, IN, ALPHA, OUT)\n"
	"  binary-params REGISTER_BINARY_ALPHA_OP(NAME, T, NAMEParams_T, T) through\n"
	"                a helper REGISTER_NAME_OP(T) that typedefs\n"
	"                NAMEParams<float> (the struct of --fields, added to\n"
	"                kernels/Activation.h) as NAMEParams_T; functor\n"
	"                (a, b, params); host stub with\n"
	"                exec_binary_kernel_with_params (Activation.metal/.mm)\n"
	"(the OPMATH_ forms of binary and ternary when the request computes half\n"
	"and bfloat in float; ternary functors take (a, b, c[, alpha]))\n"
	"Each produces the kernels its #define in c10/metal/indexing.h\n"
	"instantiates, read from the checkout (older headers: NAME_dense_OUT_IN\n"
	"and NAME_strided_OUT_IN; 2.14.1: also _dense_scalar_, _inner_contiguous_,\n"
	"the castout ones, ...; alpha kinds end in _ALPHA); --json lists them.\n"
	"The host asks for them as \"NAME\".\n"
	"A file-local helper such as REGISTER_FLOAT_BINARY_OP(NAME) is used\n"
	"when its #define registers exactly dtypes that are asked for.\n"
	"\n"
	"Where: new registrations of NAME go after the last registration of\n"
	"the same kind.  With --functor, a new functor and its registrations go\n"
	"together, after the last complete group of the kind (a struct\n"
	"X_functor followed by registrations of X only), never between another\n"
	"functor and its registrations; with no such group, after the kind's\n"
	"last registration.  --host adds REGISTER_UNARY_TI_DISPATCH(NAME); where\n"
	"the host file defines that macro (unary, stub NAME_stub), otherwise a\n"
	"static void NAME_mps_kernel(TensorIteratorBase& iter) calling\n"
	"lib.exec_unary_kernel, lib.exec_binary_kernel or lib.exec_ternary_kernel\n"
	"with \"NAME\" (and the alpha with its dtype), and\n"
	"REGISTER_DISPATCH(STUB, &NAME_mps_kernel).  --stub names the stub the\n"
	"shared kernel reaches when it is not NAME_stub (kernel add_alpha,\n"
	"stub add_stub; kernel div_true, stub div_true_stub).\n"
	"\n"
	"Presets: float (float, half, bfloat -> same), int2float (long, int,\n"
	"short, uchar, char, bool -> float), integer (the same six -> same),\n"
	"complex (float2, half2 -> same), all (float + integer + complex).\n"
	"Metal dtypes: float half bfloat long int short char uchar bool\n"
	"float2 half2.  In --dtypes a lone dtype T means T:T (so --dtypes\n"
	"float registers float -> float only).  Alpha kinds use ALPHA = IN\n"
	"unless given IN:ALPHA:OUT.\n"
	"\n"
	"Files read (under the root): aten/src/ATen/native/mps/kernels/\n"
	"UnaryKernel.metal, BinaryKernel.metal or PointwiseOps.metal (ternary),\n"
	"and with --host aten/src/ATen/native/mps/operations/UnaryKernel.mm,\n"
	"BinaryKernel.mm or PointwiseOps.mm\n"
	"(or the files given, which must lie under the root); to check the\n"
	"tree also c10/metal/*.h, the source files under\n"
	"aten/src/ATen/native/mps/, and aten/src/ATen/native/*.h and */*.h.\n"
	"Files written: the kernel and host file, only with --in-place;\n"
	"--in-place and --undo also write the undo journal, in the checkout:\n"
	"ROOT/.git/metal-kernel/journal/ in a git work tree, else\n"
	"ROOT/.metal-kernel/journal/ (--journal DIR moves it).  Nothing else,\n"
	"nowhere else.  A temporary .NAME.mk-XXXXXX left beside a file by a\n"
	"killed --in-place is removed by the next one, which says so.  The tool\n"
	"never uses the network and never runs other programs.\n"
	"\n"
	"The code written needs the c10/metal kernels of current PyTorch; a tree\n"
	"that predates them (PyTorch 2.6 and older) is refused, exit 2, nothing\n"
	"written, when the core macro of KIND is neither used nor #defined in\n"
	"the kernel file nor #defined in a c10/metal/*.h header, or (with\n"
	"--host) when neither the host file nor a file under\n"
	"aten/src/ATen/native/mps/ mentions lib.exec_unary_kernel (unary kinds)\n"
	"or lib.exec_binary_kernel (binary kinds).  A new host stub also needs\n"
	"its stub declared (DECLARE_DISPATCH) in aten/src/ATen/native/*.h or\n"
	"*/*.h, and a namespace block in the host file to put it in.\n"
	"\n"
	"Registrations already present (however spaced) are not added again.\n"
	"--json prints one object per insertion: file, line (1-based, in the\n"
	"new file), what (registration, functor, host-stub), action (insert,\n"
	"inserted, present), kind, name, calls, dtypes, kernels, text.  With\n"
	"--undo, --json prints {\"action\":\"restored\",\"path\":FILE} per file.\n"
	"Exit status: 0 nothing to do, or written; 1 a change is proposed (the\n"
	"diff is printed); 2 error, e.g. a conflicting registration (same NAME\n"
	"and input dtype, another output) - nothing is written then.\n",
};

/* ---- output ---- */

static void print_json(const struct rg_plan *pl, struct edit_set *set,
                       const char *name, int kind, int written)
{
	size_t i, j;
	for (i = 0; i < pl->nitems; i++) {
		const struct rg_item *it = &pl->items[i];
		json_t *o = json_object();
		char *s;
		json_object_set_new(o, "file",
		                    json_string(set->files[it->file].display));
		json_object_set_new(o, "line", json_integer((json_int_t)it->line));
		json_object_set_new(o, "what", json_string(rg_what_name(it->what)));
		json_object_set_new(o, "action",
		                    json_string(it->present ? "present"
		                                : written  ? "inserted"
		                                           : "insert"));
		json_object_set_new(o, "kind", json_string(mr_kind_name(kind)));
		json_object_set_new(o, "name", json_string(name));
		if (it->what == RG_REG && it->ncalls) {
			json_t *c = json_array();
			for (j = 0; j < it->ncalls; j++)
				json_array_append_new(c, json_string(it->calls[j]));
			json_object_set_new(o, "calls", c);
		}
		if (it->npairs) {
			json_t *k = json_array();
			json_object_set_new(o, "dtypes", rg_pairs_json(it->pairs, it->npairs));
			for (j = 0; j < it->nkernels && it->what == RG_REG; j++)
				json_array_append_new(k, json_string(it->kernels[j]));
			if (it->what == RG_REG)
				json_object_set_new(o, "kernels", k);
			else
				json_decref(k);
		}
		if (it->what == RG_HOST_STUB)
			json_object_set_new(o, "kernel", json_string(name));
		if (!it->present && it->text)
			json_object_set_new(o, "text", json_string(it->text));
		s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
		if (s)
			puts(s);
		free(s);
		json_decref(o);
	}
}

int main(int argc, char **argv)
{
	struct mr_pair want[MR_MAX_PAIRS];
	int n, kind, nwant, rc, changed;
	const char *name;
	char *root, *kpath, *kdisp, *hpath = NULL, *hdisp = NULL, *ppath = NULL;
	char *fields[8];
	size_t nfields = 0, pf_index = 0;
	char *fcopy = NULL, *tok, *save = NULL;
	struct edit_file *pf;
	struct edit_set set;
	struct edit_opts eo;
	struct rg_plan plan;
	struct rg_request rq;
	struct rg_file files[2];
	size_t i;

	diag_init("mps-register");
	n = cli_parse(&info, opts, argc, argv);
	memset(&eo, 0, sizeof eo);
	memset(&plan, 0, sizeof plan);
	eo.journal = opt.journal;
	eo.tool = "mps-register";
	eo.out = stdout;
	if (opt.undo) {
		if (n != 0)
			cli_error(&info, opts, "--undo takes no KIND or NAME");
		/* the journal is the checkout's own (edit.h edit_journal_dir):
		 * find the checkout unless --journal names the folder */
		if (opt.root || !opt.journal) {
			if (!(root = find_root(opt.root)))
				return MK_EXIT_ERROR;
			eo.root = root;
		}
		eo.json = opt.json;
		rc = edit_undo(&eo);
		free((char *)eo.root);
		return close_stdout(rc);
	}
	if (n != 2)
		cli_error(&info, opts, "expected KIND and NAME");
	kind = mr_kind_parse(argv[0]);
	if (kind < 0) {
		warnx_("error: unknown kind '%s' (unary, unary-alpha, binary, "
		       "binary-alpha, ternary, ternary-alpha, binary-params)",
		       argv[0]);
		return MK_EXIT_ERROR;
	}
	name = argv[1];
	if (!mr_valid_name(name)) {
		warnx_("error: invalid kernel name '%s': a NAME is a C identifier "
		       "(letters, digits, '_'; not starting with a digit)",
		       name);
		return MK_EXIT_ERROR;
	}
	if (opt.stub && !mr_valid_name(opt.stub)) {
		warnx_("error: invalid stub name '%s': a stub is a C identifier",
		       opt.stub);
		return MK_EXIT_ERROR;
	}
	if (!!opt.dtypes == !!opt.preset) {
		warnx_("error: give exactly one of --dtypes and --preset");
		return MK_EXIT_ERROR;
	}
	if (opt.preset) {
		nwant = mr_preset(opt.preset, kind, want);
		if (nwant < 0) {
			warnx_("error: unknown preset '%s' (float, int2float, integer, "
			       "complex, all)",
			       opt.preset);
			return MK_EXIT_ERROR;
		}
	} else {
		char *err;
		nwant = mr_parse_dtypes(opt.dtypes, kind, want, &err);
		if (nwant < 0) {
			warnx_("error: --dtypes: %s", err);
			free(err);
			return MK_EXIT_ERROR;
		}
	}

	if (opt.host_file || opt.stub)
		opt.host = 1;
	if (opt.host_file && str_ends_with(opt.host_file, ".metal")) {
		warnx_("error: --host-file '%s' is a .metal file; the host stub "
		       "goes into the .mm file of the host stubs (%s/UnaryKernel.mm "
		       "or BinaryKernel.mm)",
		       opt.host_file, MPS_OPS_REL);
		return MK_EXIT_ERROR;
	}
	root = find_root(opt.root);
	if (!root)
		return MK_EXIT_ERROR;
	eo.root = root;
	memset(&set, 0, sizeof set);
	rc = MK_EXIT_ERROR;
	kpath = kdisp = NULL;
	if (edit_resolve(root, opt.kernel_file, mr_kind_kernel_file(kind), &kpath,
	                 &kdisp) != 0)
		goto out;
	if (opt.host && edit_resolve(root, opt.host_file, mr_kind_host_file(kind),
	                             &hpath, &hdisp) != 0)
		goto out;
	if (!edit_set_load_text(&set, kpath, kdisp))
		goto out;
	if (opt.host) {
		if (!edit_set_load_text(&set, hpath, hdisp))
			goto out;
		if (set.n < 2) {
			warnx_("error: the host file and the kernel file are the same "
			       "file '%s'",
			       hdisp);
			goto out;
		}
	}
	for (i = 0; i < set.n; i++) {
		files[i].display = set.files[i].display;
		files[i].text = set.files[i].old;
		files[i].len = set.files[i].oldlen;
	}
	memset(&rq, 0, sizeof rq);
	if (mr_kind_params(kind)) {
		/* the struct's members, and its header (the kernel file's) */
		char *hrel;
		if (!opt.fields || !*opt.fields) {
			warnx_("error: binary-params needs --fields (the stub's scalars, "
			       "e.g. --fields min_val,max_val)");
			goto out;
		}
		fcopy = xstrdup(opt.fields);
		for (tok = strtok_r(fcopy, ",", &save); tok && nfields < 8;
		     tok = strtok_r(NULL, ",", &save))
			fields[nfields++] = tok;
		for (i = 0; i < nfields; i++)
			if (!mr_valid_name(fields[i])) {
				warnx_("error: --fields: '%s' is no C identifier", fields[i]);
				goto out;
			}
		hrel = rg_params_header_rel(kdisp);
		ppath = xasprintf("%s/%s", root, hrel);
		pf = edit_set_load_text(&set, ppath, hrel);
		free(hrel);
		if (!pf)
			goto out;
		pf_index = set.n - 1;
		rq.fields = fields;
		rq.nfields = nfields;
	}
	rq.kind = kind;
	rq.name = name;
	rq.stub = opt.stub;
	rq.pairs = want;
	rq.npairs = (size_t)nwant;
	rq.functor = opt.functor;
	rq.host = opt.host;
	{
		int r = rg_plan(&plan, root, &rq, &files[0], opt.host ? &files[1] : NULL);
		for (i = 0; i < plan.nmsgs; i++)
			fprintf(stderr, "%s: %s\n", diag_prog(), plan.msgs[i].text);
		if (r != 0)
			goto out;
	}

	/* the kernel file and, with --host, the host file: the params header
	   (binary-params) may follow them in the set, never in files[] */
	for (i = 0; i < set.n && i < (opt.host ? 2u : 1u); i++) {
		size_t len;
		char *t = rg_build(&plan, (int)i, &files[i], &len);
		if (t) {
			edit_set_replace(&set.files[i], t, len);
			free(t);
		}
	}
	if (pf_index > 0) {
		size_t len;
		char *t = rg_params_header(set.files[pf_index].old,
		                           set.files[pf_index].oldlen, name, fields,
		                           nfields, &len);
		if (t) {
			edit_set_replace(&set.files[pf_index], t, len);
			free(t);
		}
	}
	changed = edit_set_changed(&set) > 0;

	if (!changed) {
		if (opt.json)
			print_json(&plan, &set, name, kind, 0);
		else
			puts("nothing to do");
		rc = MK_EXIT_CLEAN;
	} else {
		FILE *null = NULL;
		if (opt.json) {
			null = fopen("/dev/null", "w");
			if (!null)
				die("cannot open '/dev/null':");
			eo.out = null;
		}
		eo.in_place = opt.in_place;
		rc = edit_finish(&set, &eo);
		if (null)
			fclose(null);
		if (rc != MK_EXIT_ERROR) {
			if (opt.json) {
				print_json(&plan, &set, name, kind, opt.in_place);
			} else if (opt.in_place) {
				for (i = 0; i < plan.nitems; i++) {
					const struct rg_item *it = &plan.items[i];
					size_t j;
					if (it->present || !it->text)
						continue;
					if (it->ncalls == 0)
						printf("%s:%lu: added %s\n",
						       set.files[it->file].display, it->line,
						       it->label);
					for (j = 0; j < it->ncalls; j++)
						printf("%s:%lu: added %s\n",
						       set.files[it->file].display,
						       it->line + (unsigned long)j, it->calls[j]);
				}
			}
		}
	}

out:
	rg_plan_free(&plan);
	edit_set_free(&set);
	free(fcopy);
	free(ppath);
	free(root);
	free(kpath);
	free(kdisp);
	free(hpath);
	free(hdisp);
	return close_stdout(rc);
}
