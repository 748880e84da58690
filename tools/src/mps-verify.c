/* mps-verify — prove that a migration of an MPS operator from MPSGraph to
 * a native Metal kernel left nothing behind, and audit a whole tree.
 *
 * This file reads the options, loads the models (nfyaml.h, hostscan.h;
 * verify.c reads the C++ sources through read/stubs.h when a rule needs
 * them), runs the rules (verify.h) and prints the report (report.h).
 */
#include "base/cli.h"
#include "base/diag.h"
#include "read/hostscan.h"
#include "read/nfyaml.h"
#include "check/report.h"
#include "check/verify.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *opt_root, *opt_before, *opt_format, *opt_rule, *opt_path;
static int opt_all, opt_json, opt_todo;

static const struct opt opts[] = {
	CLI_OPT_ROOT(&opt_root),
	{"before", 0, OPT_STRING, &opt_before, "FILE",
	 "an older native_functions.yaml: more old MPS kernel names"},
	{"all", 'a', OPT_FLAG, &opt_all, NULL, "check every operator"},
	{"todo", 0, OPT_FLAG, &opt_todo, NULL,
	 "list the MPS functions still building an MPSGraph (of OP..., or of "
	 "every operator), with their operator and kind"},
	{"format", 0, OPT_STRING, &opt_format, "FMT",
	 "text (default), json, sarif (SARIF 2.1.0) or markdown (a checklist)"},
	{"json", 'j', OPT_FLAG, &opt_json, NULL,
	 "JSON Lines: one object per finding (= --format json)"},
	{"rule", 0, OPT_STRING, &opt_rule, "R[,R...]",
	 "only findings of these rules"},
	{"path", 0, OPT_STRING, &opt_path, "GLOB",
	 "only findings in files matching GLOB ('*' also matches '/')"},
	CLI_OPT_END};

static struct tool_info info = {
	"mps-verify",
	"[--root DIR] [--before FILE] [--format FMT] [--rule R] [--path GLOB] "
	"OP... | --all | --todo [OP...]",
	"Check that no old MPS host path of operator OP is left behind; --all "
	"audits the whole tree.",
	NULL /* details(), below */};

static const char details_head[] =
	"OP is an operator's base name (`atan2` covers atan2.out, atan2_, atan2).\n"
	"Old MPS kernel names come from the rows that still name them, from\n"
	"--before FILE (e.g. `git show HEAD~1:" NF_YAML_REL "`) and from\n"
	"PyTorch's naming patterns (OP_out_mps, OP_mps, OP_mps_out, OP_OVERLOAD_mps,\n"
	"...).  A kernel named *_mps whose body runs Metal is not an error: the\n"
	"body is read.  Comments and `#if 0` blocks are not code.  --root, --before,\n"
	"--format, --rule and --path may be given once each.\n"
	"\n"
	"Defects and to-do.  A defect is an inconsistent state: dead or undefined\n"
	"code, a kernel nobody launches, a stub registered twice or not at all, a\n"
	"placeholder in a functor, or an old path beside a new one (an operator\n"
	"with a Metal kernel or an MPS stub registration whose rows still route\n"
	"MPS alone, rows of one operator half folded, a stub registered through\n"
	"an MPSGraph body while a Metal kernel of that name exists, an expected\n"
	"failure of an operator whose rows are shared).  To-do is an operator\n"
	"consistently on its old MPS path, or not on MPS.  --all lists the defects\n"
	"one by one, grouped by rule, and counts the to-do by family (unary,\n"
	"binary, pointwise, reduction, other); it exits 1 only for defects.\n"
	"Naming OP says it was migrated: every finding of OP is listed and counts.\n"
	"\n"
	"The MPSGraph to-do list.  --todo lists, one line per function, every\n"
	"MPS function that builds an MPSGraph (directly or through a host\n"
	"function it calls) and that an operator's MPS dispatch reaches\n"
	"directly: the kernel of a row routing MPS alone (`MPS: x_out_mps`), or\n"
	"the function a stub is registered with (REGISTER_DISPATCH).  Columns:\n"
	"kind, operator, function, PATH:LINE of its definition, and the row or\n"
	"stub reaching it; then the counts per kind.  Kinds, per function (first\n"
	"rule wins): the operator's name (loss, softmax, fft in it; cum* and\n"
	"logcumsumexp: reduction; sort, argsort, msort, topk, kthvalue: other);\n"
	"the row reaching it tagged pointwise (or built on TensorIteratorBase);\n"
	"the host file defining it (ReduceOps: reduction, Normalization: norm,\n"
	"SoftMax, LossOps, Indexing/ScatterGather: indexing, Pooling/Pad/UpSample:\n"
	"pooling, also padding and upsampling, LinearAlgebra/Blas: linalg,\n"
	"Distributions: random, FastFourierTransform: fft, Shape/View/Repeat:\n"
	"shape, UnaryOps/BinaryOps/Activation/...: pointwise, Convolution/RnnOps:\n"
	"other; the full table is in check/verify.h); the row tagged\n"
	"nondeterministic_seeded: random, or reduction: reduction; a name\n"
	"starting linalg_: linalg; else other.  --format json: one\n"
	"object per function (op, kind, function, path, line, column, via, row\n"
	"or stub, why, macro); --format markdown: a GitHub task list, a heading\n"
	"per kind, one `- [ ]` item per operator.  Exit 1 when something is\n"
	"listed, 0 when nothing is.\n"
	"\n"
	"Rules (severity, layer: where the fault is):\n";

static const char details_tail[] =
	"\n"
	"Formats.  text: findings on stderr as `mps-verify: PATH:LINE:COL:\n"
	"SEVERITY: MESSAGE [LAYER: RULE]`, a summary on stdout.  json: one object\n"
	"per finding on stdout (path, line, column, severity, rule, layer, class\n"
	"defect or to-do, op, message), to-do included.  sarif: one SARIF 2.1.0\n"
	"log on stdout for GitHub code scanning (the listed findings; paths\n"
	"relative to %SRCROOT%, the checkout).  markdown: a checklist for a\n"
	"tracking issue, per family, each operator a task-list item.\n"
	"\n"
	"Reads: ROOT/" NF_YAML_REL ", the host files under\n"
	"ROOT/" MPS_DIR_REL " (*.mm, *.h, *.cpp), the kernels under\n"
	"ROOT/" MPS_KERNELS_REL " (*.metal, *.h), the test lists, --before FILE,\n"
	"and, when an operator has shared rows, the C++ sources under\n"
	"ROOT/aten/src/ATen/native (to name the stubs its shared kernel reaches;\n"
	"a tree without them, such as a release's packaged yaml, falls back to\n"
	"DECLARE_DISPATCH lines and --before).\n"
	"Test lists: ROOT/" COMMON_MPS_REL ": variables named *xfail*\n"
	"or *skip* (any case); and ROOT/" TEST_MPS_REL " (releases before\n"
	"common_mps.py keep them there, e.g. 1.13, 2.6): upper-case names holding\n"
	"XFAIL, SKIP or BLOCKLIST.  Each is a dict, set, list or tuple literal (or\n"
	"NAME.update(...)); its first-level quoted keys are the OpInfo names.\n"
	"When neither file exists a note says the lists were not checked.\n"
	"Writes: nothing.  Never uses the network, never runs other programs.\n"
	"\n"
	"Exit status: 0 clean (notes only); 1 a listed finding of severity error\n"
	"or warning (with --all: a defect); 2 error (bad option or OP, unreadable\n"
	"or malformed input).\n";

/* the --help text after the options: the rules from verify.h's table */
static char *details(void)
{
	struct buf b;
	int k;
	buf_init(&b);
	buf_puts(&b, details_head);
	for (k = 0; k < VF_NRULES; k++) {
		const struct vf_rule_info *ri = &vf_rules[k];
		const char *s = ri->summary;
		size_t col = 0;
		buf_printf(&b, "  %-22s %-7s %-8s ", ri->id, vf_sev_name(ri->sev),
		           vf_layer_name(ri->layer));
		/* the summary, wrapped at 78 columns under its first word */
		while (*s) {
			size_t w = strcspn(s, " ");
			if (col && col + 1 + w > 40) {
				buf_puts(&b, "\n                                         ");
				col = 0;
			} else if (col) {
				buf_puts(&b, " ");
				col++;
			}
			buf_add(&b, s, w);
			col += w;
			s += w;
			while (*s == ' ')
				s++;
		}
		buf_puts(&b, "\n");
	}
	buf_puts(&b, details_tail);
	return b.data;
}

/* A value option (--root, --before) given twice is an error, not "the
 * last one wins": the walk mirrors cli_parse (operands, "--", "--name
 * value", "--name=value"). */
static void once_each(int argc, char **argv)
{
	size_t seen[16] = {0};
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
		for (k = 0; opts[k].type != OPT_END && k < 16; k++) {
			if (opts[k].type != OPT_STRING || strlen(opts[k].name) != len ||
			    strncmp(opts[k].name, a, len) != 0)
				continue;
			if (seen[k]++)
				cli_error(&info, opts, "option '--%s' given more than once", opts[k].name);
			if (!a[len])
				i++; /* its value */
		}
	}
}

int main(int argc, char **argv)
{
	struct nf_index ix, bx;
	struct hs_model hm;
	struct vf_input in;
	struct vf_report rep;
	struct rp_filter flt;
	char *root;
	int nargs, status, fmt = RP_TEXT;

	diag_init("mps-verify");
	info.details = details();
	once_each(argc, argv);
	nargs = cli_parse(&info, opts, argc, argv);
	if (opt_all && nargs > 0)
		cli_error(&info, opts, "give either OP names or --all, not both");
	if (opt_todo && opt_all)
		cli_error(&info, opts, "--todo lists every operator by itself: drop --all");
	if (opt_todo && (opt_rule || opt_path))
		cli_error(&info, opts, "--todo takes no --%s", opt_rule ? "rule" : "path");
	if (!opt_all && !opt_todo)
		cli_operator_count(&info, opts, nargs, 0);
	if (opt_format && (fmt = rp_format_parse(opt_format)) < 0)
		cli_error(&info, opts, "unknown format '%s' (text, json, sarif, markdown)",
		          opt_format);
	if (opt_json && opt_format && fmt != RP_JSON)
		cli_error(&info, opts, "--json and --format %s exclude each other", opt_format);
	if (opt_json)
		fmt = RP_JSON;
	if (opt_todo && fmt == RP_SARIF)
		cli_error(&info, opts, "--todo prints text, json or markdown, not sarif");
	memset(&flt, 0, sizeof flt);
	flt.path = opt_path;
	if (opt_rule) {
		char *list = xstrdup(opt_rule), *tok, *save = NULL;
		for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			int r = vf_rule_parse(tok);
			if (r < 0) {
				warnx_("error: unknown rule '%s' (see --help)", tok);
				free(list);
				cli_usage(&info, opts);
			}
			flt.rules |= 1u << r;
		}
		free(list);
		if (!flt.rules)
			cli_error(&info, opts, "--rule needs a rule id");
	}
	if (!cli_operators_valid(argv, nargs, nf_valid_op_arg))
		return MK_EXIT_ERROR;
	if (!(root = find_root(opt_root)))
		return MK_EXIT_ERROR;
	if (opt_before && nf_load(&bx, opt_before, NULL) != 0) {
		free(root);
		return MK_EXIT_ERROR;
	}
	/* from here on every path is relative to the root, as in the output */
	if (chdir(root) != 0) {
		warnx_("cannot enter '%s': %s", root, strerror(errno));
		free(root);
		return MK_EXIT_ERROR;
	}
	free(root);
	if (nf_load(&ix, NF_YAML_REL, NULL) != 0) {
		if (opt_before)
			nf_free(&bx);
		return MK_EXIT_ERROR;
	}
	if (hs_load(&hm, ".") != 0) {
		nf_free(&ix);
		if (opt_before)
			nf_free(&bx);
		return MK_EXIT_ERROR;
	}
	memset(&in, 0, sizeof in);
	in.ix = &ix;
	in.before = opt_before ? &bx : NULL;
	in.hm = &hm;
	in.root = ".";
	in.all = opt_all || (opt_todo && nargs == 0);
	in.ops = (const char *const *)argv;
	in.nops = (size_t)nargs;
	if (vf_run(&in, &rep) != 0) {
		hs_free(&hm);
		nf_free(&ix);
		if (opt_before)
			nf_free(&bx);
		free((char *)info.details);
		return MK_EXIT_ERROR;
	}
	if (opt_todo && !rep.nhost)
		warnx_("note: no host files under %s: no MPS function to list "
		       "(a partial tree?)", MPS_DIR_REL);
	if (opt_todo)
		status = rp_write_todo(stdout, &rep, fmt);
	else
		status = rp_write(stdout, stderr, "mps-verify", &rep, &flt, fmt,
		                  (const char *const *)argv, (size_t)nargs);
	if (!opt_todo && !rep.lists_checked && fmt == RP_TEXT)
		warnx_("note: neither %s nor %s exists: the expected-failure lists "
		       "were not checked [test: xfail-leftover]", COMMON_MPS_REL,
		       TEST_MPS_REL);
	vf_report_free(&rep);
	hs_free(&hm);
	nf_free(&ix);
	if (opt_before)
		nf_free(&bx);
	free((char *)info.details);
	return close_stdout(status);
}
