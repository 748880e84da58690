/* mps-migrate — the whole mechanical migration of one MPS operator to a
 * native Metal kernel, as one reviewed diff (issue #14).  The plan is
 * migrate.h's; this file reads the options, prints the plan and the diff,
 * hands the files to the edit engine and, once written, runs mps-verify's
 * rules (verify.h) on the result. */
/* realpath() is POSIX.1-2008 with the XSI option (see edit.c) */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#include "base/cli.h"
#include "base/diag.h"
#include "edit/edit.h"
#include "read/hostscan.h"
#include "read/metalreg.h"
#include "plan/migrate.h"
#include "read/nfyaml.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *opt_root, *opt_journal, *opt_kind, *opt_name, *opt_dtypes,
                  *opt_script;
static int opt_in_place, opt_json, opt_undo, opt_no_try;

static const struct opt opts[] = {
	{"kind", 0, OPT_STRING, &opt_kind, "K",
	 "unary, unary-alpha, binary, binary-alpha, ternary, ternary-alpha or binary-params "
	 "(default: from the schema)"},
	{"name", 0, OPT_STRING, &opt_name, "NAME",
	 "the kernel NAME (default: OP; add -> add_alpha and the like)"},
	{"dtypes", 0, OPT_STRING, &opt_dtypes, "LIST",
	 "IN:OUT pairs instead of the CPU kernel's (as mps-register --dtypes); "
	 "an operator with a kernel per stub: keep only these in each kernel"},
	{"in-place", 'i', OPT_FLAG, &opt_in_place, NULL,
	 "write every file (atomically, one undo journal entry), then verify"},
	{"undo", 0, OPT_FLAG, &opt_undo, NULL,
	 "restore the files of the newest --in-place edit (the whole migration)"},
	{"no-try", 0, OPT_FLAG, &opt_no_try, NULL,
	 "do not run mps-try on the translated math (the plan then says to)"},
	{"script", 0, OPT_STRING, &opt_script, "FILE",
	 "an operator whose MPS kernel stays its own: write a starting mps-run "
	 "script to FILE (a new file in the checkout)"},
	{"json", 'j', OPT_FLAG, &opt_json, NULL,
	 "JSON Lines: one object per part of the plan (no diff)"},
	CLI_OPT_ROOT(&opt_root),
	CLI_OPT_JOURNAL(&opt_journal),
	CLI_OPT_END};

static const struct tool_info info = {
	"mps-migrate",
	"OP [--kind K] [--name NAME] [--dtypes LIST] [--in-place] [--no-try] [--json] "
	"[--script FILE] [--root DIR]\n       mps-migrate --undo [--root DIR] [--journal DIR]",
	"Plan (or make) the whole mechanical migration of operator OP to a "
	"native Metal kernel.",
	"One call plans every part, says what it found and why, then prints the\n"
	"unified diff of every file it would change:\n"
	"  rows     every MPS-specific row of OP folds into its shared line\n"
	"           (mps-dispatch's rules); a new operator gets MPS on the shared\n"
	"           line of its out rows; the stubs the shared kernels reach;\n"
	"  kernel   the kind from the out row's schema (one input: unary, two:\n"
	"           binary, `Scalar alpha`: the -alpha kinds), NAME = OP;\n"
	"  dtypes   from the CPU kernel the stub registers (REGISTER_DISPATCH in\n"
	"           aten/src/ATen/native/cpu/) and its AT_DISPATCH type lists,\n"
	"           no double, complex as float2/half2; the output dtype from\n"
	"           the structured meta function (same; integral and bool\n"
	"           inputs to float for a float op; bool); inputs the shared\n"
	"           kernel handles before the stub, and those the meta function\n"
	"           refuses, are not registered;\n"
	"  metal    the functor and its registrations, together, after the\n"
	"           last complete group of the kind (mps-register's rules);\n"
	"  math     each overload of the functor (floating-point, integral,\n"
	"           bool, complex) translated from the lambda the stub's CUDA\n"
	"           kernel (aten/src/ATen/native/cuda/*.cu: gpu_kernel, the\n"
	"           _with_scalars forms, jiterator strings) or its CPU kernel\n"
	"           (cpu_kernel's scalar lambda) gives that dtype, when every\n"
	"           construct is known; else the TODO(mps-register) placeholder,\n"
	"           with both bodies and their file:line in a comment above it;\n"
	"           per overload the plan says \"translated from FILE:LINE\" or\n"
	"           \"left to you: CONSTRUCT at FILE:LINE\";\n"
	"  host     the host stub registering the stub found, with a\n"
	"           TORCH_CHECK_TYPE when the registered inputs do not cover\n"
	"           what the meta function lets through;\n"
	"  old path each MPS definition no remaining row names (a function with\n"
	"           its body, or the macro line that makes it), the helpers only\n"
	"           they used (helpers other code calls stay), each\n"
	"           #include <ATen/ops/OP_native.h> its file no longer needs,\n"
	"           and OP's entries in the expected-failure and skip lists.\n"
	"What is left to you is listed: the overloads left (TODO(mps-register)),\n"
	"rows that stay, tests on a Mac.  Parts that cannot be planned are said,\n"
	"with why (a tree before c10/metal, a tree without C++ sources: give\n"
	"--dtypes); that is not an error.  A second run after --in-place says\n"
	"\"nothing to do\".\n"
	"\n"
	"An operator whose MPS kernel stays its own (no row can fold: its CPU\n"
	"and CUDA kernels differ, as nll_loss_forward's) is planned too, though\n"
	"nothing in the tree changes: the MPS definitions its rows name, whose\n"
	"bodies a Metal kernel replaces (file:line); the host helpers they call,\n"
	"deleted once the new bodies land or kept, with the caller that still\n"
	"uses them and the row it serves; the CPU and CUDA kernels and the meta\n"
	"function to read (file:line), the CPU kernel's dtypes; the test-list\n"
	"entries.  --script FILE then writes a starting mps-run script (a new\n"
	"file; an existing one is never overwritten): the CPU kernel's dtypes\n"
	"that Metal has, a TODO stub kernel per dtype, the arguments from the\n"
	"schema, cases with partial groups, one element, empty and\n"
	"non-contiguous inputs, the CPU reference (torch.ops.aten) and the\n"
	"comparison with test_mps.py's tolerances; `mps-run FILE` runs it here,\n"
	"`python FILE` on a Mac.\n"
	"\n"
	"--in-place writes all files at once through the edit engine, one undo\n"
	"journal entry (--undo restores every file of it), then applies\n"
	"mps-verify's rules to OP on the result and prints their findings (the\n"
	"functor-placeholder error is expected while an overload is left).\n"
	"\n"
	"Reads (under ROOT): " NF_YAML_REL ";\n"
	"the C++ sources under aten/src/ATen/native (*.cpp, *.h; not the device\n"
	"folders); the CUDA kernels in aten/src/ATen/native/cuda/ (*.cu, *.cuh,\n"
	"*.h); the sources under aten/src/ATen/native/mps/ and its kernels/;\n"
	"" COMMON_MPS_REL " and test/test_mps.py;\n"
	"c10/metal/*.h.\n"
	"Writes (only with --in-place or --undo): the files the diff shows,\n"
	"atomically, and one undo journal entry in the checkout:\n"
	"ROOT/.git/metal-kernel/journal/ in a git work tree, else\n"
	"ROOT/.metal-kernel/journal/ (--journal DIR moves it).  Nothing else,\n"
	"nowhere else.  Never uses the network.\n"
	"\n"
	"The functor's math translated from the CUDA kernel is tried before it\n"
	"is written, as mps-try OP tries a kernel (the system's C++ compiler on\n"
	"the functor with the host layer, its harness, python with torch for the\n"
	"CPU reference; each with a time limit, in a private temporary folder\n"
	"removed afterwards; see mps-try --help): an overload that does not\n"
	"match the CPU is written as a comment above the placeholder, never as\n"
	"code.  --no-try skips that (nothing is run; the plan then says to run\n"
	"mps-try).  Nothing else is run.\n"
	"\n"
	"--json: one object per part (\"part\": row, stub, kernel, dtypes,\n"
	"insert, math, delete, keep, not-planned, left, summary), no diff; after\n"
	"--in-place then mps-verify's findings as mps-verify --json prints them.\n"
	"\n"
	"Exit status: 0 nothing to do, or written and mps-verify finds nothing;\n"
	"1 a change is proposed (the plan and the diff were printed), or written\n"
	"and mps-verify still finds errors or warnings (the placeholder of an\n"
	"overload left to you), or rows need folding and none can be (the\n"
	"plan says why; nothing changes); 2 error: bad option, an operator the\n"
	"yaml does not have, a file that cannot be read or written.  Nothing is\n"
	"written then.\n"};

/* write the own-kernel script of plan P to PATH (relative to the current
 * folder), a new file inside the checkout ROOT; 0, or -1 after saying why */
static int write_script(const struct mg_plan *p, const char *root,
                        const char *path, int json)
{
	char *dir, *slash, *rdir, *rroot, *text, *base;
	size_t n;
	int inside;
	struct stat st;

	if (lstat(path, &st) == 0) {
		warnx_("error: '%s' exists; not overwritten (remove it, or name "
		       "another file)", path);
		return -1;
	}
	dir = xstrdup(path);
	slash = strrchr(dir, '/');
	if (slash == dir)
		dir[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	rdir = realpath(dir, NULL);
	rroot = realpath(root, NULL);
	if (!rdir || !rroot) {
		warnx_("cannot open '%s': %s", rdir ? root : dir, strerror(errno));
		free(dir);
		free(rdir);
		free(rroot);
		return -1;
	}
	n = strlen(rroot);
	inside = strncmp(rdir, rroot, n) == 0 && (rdir[n] == '\0' || rdir[n] == '/');
	free(dir);
	free(rdir);
	free(rroot);
	if (!inside) {
		warnx_("error: --script: '%s' is outside the checkout '%s'; the "
		       "tools write nothing outside it", path, root);
		return -1;
	}
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : (char *)path;
	text = ok_script(&p->own, p->op, base);
	if (edit_write_file(path, text, strlen(text), 0644, 1) != 0) {
		warnx_("cannot write '%s': %s", path, strerror(errno));
		free(text);
		return -1;
	}
	free(text);
	if (!json)
		printf("wrote %s: a starting mps-run script for %s (fill in each "
		       "TODO(mps-run script), then: mps-run %s)\n", path, p->op, path);
	return 0;
}

int main(int argc, char **argv)
{
	struct mg_plan plan;
	struct mg_opts mo;
	struct edit_opts eo;
	struct try_env te;
	const char *argv0 = argv[0];
	char *root;
	int n, status;

	diag_init("mps-migrate");
	n = cli_parse(&info, opts, argc, argv);
	memset(&eo, 0, sizeof eo);
	eo.journal = opt_journal;
	eo.tool = "mps-migrate";
	if (opt_undo) {
		if (n || opt_in_place || opt_kind || opt_name || opt_dtypes || opt_script)
			cli_error(&info, opts, "--undo takes no OP and no other option "
			          "but --root, --journal and --json");
		if (!(root = find_root(opt_root)))
			return MK_EXIT_ERROR;
		eo.root = root;
		eo.json = opt_json;
		status = edit_undo(&eo);
		free(root);
		return close_stdout(status);
	}
	cli_operator_count(&info, opts, n, 1);
	if (!nf_valid_op_arg(argv[0]) || strchr(argv[0], '.')) {
		warnx_("error: '%s' is not an operator name (a base name such as "
		       "atan2, without an overload)", argv[0]);
		return MK_EXIT_ERROR;
	}
	memset(&mo, 0, sizeof mo);
	mo.op = argv[0];
	mo.kind = -1;
	if (opt_kind && (mo.kind = mr_kind_parse(opt_kind)) < 0) {
		warnx_("error: unknown kind '%s' (unary, unary-alpha, binary, "
		       "binary-alpha, ternary, ternary-alpha, binary-params)", opt_kind);
		return MK_EXIT_ERROR;
	}
	if (opt_name && !mr_valid_name(opt_name)) {
		warnx_("error: invalid kernel name '%s': a NAME is a C identifier "
		       "(letters, digits, '_'; not starting with a digit)", opt_name);
		return MK_EXIT_ERROR;
	}
	mo.name = opt_name;
	mo.dtypes = opt_dtypes;
	if (!(root = find_root(opt_root)))
		return MK_EXIT_ERROR;
	memset(&te, 0, sizeof te);
	if (!opt_no_try) {
		const char *why = NULL;
		if (try_env_default(&te, argv0, &why) == 0)
			mo.try_env = &te;
		else
			mo.try_why = why;
	}

	if (mg_plan(&plan, root, &mo) != 0) {
		mg_plan_free(&plan);
		try_env_free(&te);
		free(root);
		return close_stdout(MK_EXIT_ERROR);
	}
	if (opt_script && !plan.own.planned) {
		warnx_("error: --script: %s has no MPS kernel of its own to script "
		       "(its plan %s; check a functor with mps-try)", mo.op,
		       plan.stuck ? "has no MPS-specific row" : "moves its rows to a "
		       "shared kernel");
		mg_plan_free(&plan);
		try_env_free(&te);
		free(root);
		return close_stdout(MK_EXIT_ERROR);
	}
	if (mg_changed(&plan) == 0) {
		/* nothing to change: done, or stuck (rows that cannot move,
		 * reported as a finding) */
		if (opt_json)
			mg_write_json(stdout, &plan, 0);
		else {
			mg_write_text(stdout, &plan);
			printf(plan.stuck && !plan.own.done ? "nothing can change\n"
			                                    : "nothing to do\n");
		}
		status = plan.stuck && !plan.own.done ? MK_EXIT_FINDINGS
		                                      : MK_EXIT_CLEAN;
		if (opt_script && write_script(&plan, root, opt_script, opt_json) != 0)
			status = MK_EXIT_ERROR;
		mg_plan_free(&plan);
		try_env_free(&te);
		free(root);
		return close_stdout(status);
	}
	eo.root = root;
	eo.in_place = opt_in_place;
	{
		FILE *null = NULL;
		if (!opt_json) {
			mg_write_text(stdout, &plan);
			fflush(stdout);
		} else if (!opt_in_place) {
			/* JSON Lines only: the diff is not mixed into them */
			if (!(null = fopen("/dev/null", "w")))
				die("cannot open '/dev/null':");
			eo.out = null;
		}
		status = edit_finish(&plan.set, &eo);
		if (null)
			fclose(null);
		if (opt_json && status != MK_EXIT_ERROR)
			mg_write_json(stdout, &plan, opt_in_place);
	}
	if (opt_in_place && status == MK_EXIT_CLEAN) {
		size_t k = mg_changed(&plan);
		if (!opt_json)
			printf("wrote %zu file%s (one journal entry: mps-migrate --undo "
			       "restores them all)\n", k, k == 1 ? "" : "s");
		fflush(stdout);
		/* written; 1 while mps-verify still finds something (the functor
		 * placeholder until the math is written), so that a script sees
		 * the migration is not finished */
		status = mg_verify_written(root, mo.op, &plan.ix, &plan.cs, opt_json);
	}
	mg_plan_free(&plan);
	try_env_free(&te);
	free(root);
	return close_stdout(status);
}
