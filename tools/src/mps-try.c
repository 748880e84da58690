/* mps-try — run a kernel's functor on the host, against PyTorch's CPU
 * result of the same operator (issue #20).  The face: options, the
 * device check, output.  The plan is tools/lib/check/try.c, the
 * environment (host layer, compiler, python) and the run
 * tools/lib/check/tryrun.c. */
#include "base/buildinfo.h"
#include "base/cli.h"
#include "base/diag.h"
#include "base/lex.h"
#include "base/proc.h"
#include "check/try.h"
#include "read/nfyaml.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char details[] =
	"What it runs.  Every registration of OP's kernel NAME (default: OP) in\n"
	"aten/src/ATen/native/mps/kernels/*.metal, with the functor as written,\n"
	"the declarations of that file it uses and the checkout's own headers it\n"
	"includes (c10/metal/*.h), compiled as C++17 against the Metal host layer\n"
	"(tools/metal-host beside tools/bin, or --host-layer) with the system's\n"
	"C++ compiler, as the layer's contract says: copies of the .metal file\n"
	"and its headers at their checkout paths with REWRITES.md applied, the\n"
	"layer's FLAGS, -I<layer> -I<tmp> -I<tmp>/aten/src, every element under\n"
	"metal_host::guard (an integer division trap marks that element undefined\n"
	"on the GPU; it is not compared).  Each registration's macro is compiled\n"
	"with every kernel template its #define in c10/metal/indexing.h\n"
	"instantiates (read from the #define: dense, dense_scalar, strided, ...),\n"
	"so the casts on load and store are the real ones.  The kernels whose\n"
	"parameters are the output, the inputs, the alpha, a count and the\n"
	"thread index run: the first (one element per thread) against the CPU,\n"
	"the others byte for byte against it; the report names them (kernels:,\n"
	"ran:).  When the macros do not compile on the host, it says so and calls\n"
	"the functor directly.\n"
	"\n"
	"Inputs: every half and bfloat bit pattern (unary); edge values and\n"
	"100,000 random values for float; min, max, 0, +-1 and random integers;\n"
	"both bools; for binary kernels a grid of edge values crossed with a\n"
	"sample, and random pairs.  Fixed seed.  The scalar of an alpha kernel:\n"
	"--arg NAME=VALUE (repeat for several), else the schema's default and a\n"
	"few more values.  None of an optional scalar is tried with what the\n"
	"checkout's host code passes for it (the host stub's exec_*_kernel\n"
	"argument, or the shared C++ kernel's call of the stub), said in a note;\n"
	"when nothing says, only with --none-as VALUE.  --arg NAME also picks the\n"
	"overload that has NAME, and then gives that argument (polygamma --kernel\n"
	"trigamma --arg n=1: n is no input of the unary kernel); a Tensor it\n"
	"gives one number is a constant tensor, no input of the kernel\n"
	"(smooth_l1_loss_backward --kernel smooth_l1_backward_clip --arg\n"
	"grad_output=1).\n"
	"\n"
	"Reference: PyTorch's CPU result of the same operator (torch.ops.aten,\n"
	"arguments from the schema in native_functions.yaml), through the first\n"
	"of python3 on PATH and /usr/bin/python3 that imports torch, or --python.\n"
	"Where the CPU has no half/bfloat kernel it computes in float32 and\n"
	"rounds (said per case).  Without torch: one line on stderr, and the\n"
	"checks that need none (compiles; the overload each dtype picks; the\n"
	"result type is OUT; NaN and inf as a float64 evaluation says).\n"
	"Tolerances: test_output_match's for the operator: the checkout's\n"
	"test/test_mps.py, TestConsistency._compute_tolerances (the verdict says\n"
	"test/test_mps.py:LINE); else torch.testing's per dtype\n"
	"(torch/testing/_comparison.py); --atol/--rtol override.  The\n"
	"report's first lines name the reference torch and its python, say when\n"
	"it is older than the checkout (the checkout's version.txt) and which\n"
	"registrations it computed in float32 for want of a kernel of the dtype.\n"
	"\n"
	"Verdict: what PyTorch's own MPS tests would see.  Mismatches count on\n"
	"the inputs its OpInfo sample and reference inputs use (make_tensor's\n"
	"range -9..9, the hand-picked small and large values, NaN, inf and -inf\n"
	"against each other) in the dtypes test_mps.py runs (not complex32, nor\n"
	"a dtype common_mps.py's forward lists give for OP, nor complex when OP\n"
	"is not in its SUPPORTED_COMPLEX_OPS), within what OP's OpInfo samples\n"
	"(common_methods_invocations.py, the checkout's or the reference\n"
	"torch's: its domain, handles_large_floats, a binary OpInfo's\n"
	"tensor-with-scalar samples).\n"
	"The rest is computed and shown apart, \"beyond what the tests sample\",\n"
	"per class (signaling NaN, subnormal, past the sampled range, mixed\n"
	"operands, complex infinity or NaN, outside the OpInfo's samples, dtype\n"
	"not tested) with the input,\n"
	"ours and the CPU's; --strict counts those too.\n"
	"\n"
	"Safety.  This tool runs programs: the C++ compiler, the harness it\n"
	"built and python for the reference; each from an argv (no shell), with\n"
	"a time limit (--timeout; the whole process group is killed), in a\n"
	"private folder made under $TMPDIR or /tmp and removed afterwards\n"
	"(folders of killed runs are removed at the next run).  It compiles only\n"
	"the functor, its helpers and the headers they include.  It writes\n"
	"nothing in the checkout or under ~.  --emit prints the generated harness\n"
	"and script, and the compile command, before anything runs (it then runs\n"
	"nothing).  No network.\n"
	"\n"
	"--device mps (macOS): first the real Metal compiler on the kernel file,\n"
	"as PyTorch's build runs it (xcrun -sdk macosx metal -std=metal3.1 ... -c\n"
	"FILE -o TMP/kernel.air; skipped, with one line, when xcrun is not on\n"
	"PATH), then the same registrations through torch.mps.compile_shader with\n"
	"the same inputs and reference.  With --emit the Metal compile command and\n"
	"the script are printed; on Linux that is all it does.\n"
	"\n"
	"Exit status: 0 every registration matches; 1 a mismatch (on a sampled\n"
	"input, or any with --strict), a compile\n"
	"error of the functor, or a harness that did not finish; 2 an error of\n"
	"use (bad option, an operator or kernel with nothing to try, no\n"
	"compiler, no host layer).\n";

static const struct tool_info info = {
	"mps-try",
	"[options] OP",
	"Run OP's Metal functor on this machine against PyTorch's CPU result.",
	details,
};

int main(int argc, char **argv)
{
	const char *root_opt = NULL, *kernel = NULL, *dtypes = NULL, *python = NULL;
	const char *cxx = NULL, *atol_s = NULL, *rtol_s = NULL, *device = NULL;
	const char *timeout_s = NULL, *host_opt = NULL, *none_as = NULL, *bool_s = NULL;
	int bool_input = 0;
	int json = 0, emit = 0, strict = 0, n, status, mps;
	struct opt_list args = {NULL, 0};
	struct opt opts[] = {
		{"root", 0, OPT_STRING, &root_opt, "DIR", "the PyTorch checkout (default: walk up from here)"},
		{"kernel", 0, OPT_STRING, &kernel, "NAME", "the kernel NAME of the REGISTER_* calls (default: OP)"},
		{"dtypes", 0, OPT_STRING, &dtypes, "IN:OUT,...", "only these registrations"},
		{"arg", 0, OPT_LIST, &args, "NAME=VALUE", "an argument of the schema (repeatable; picks the overload that has it)"},
		{"none-as", 0, OPT_STRING, &none_as, "VALUE", "what the kernel gets for an optional scalar that is None (default: what the checkout's host code passes, when it says)"},
		{"bool-input", 0, OPT_STRING, &bool_s, "N", "the Nth tensor input is a condition the operator reads as bool (where's): the CPU gets it as x != 0"},
		{"json", 0, OPT_FLAG, &json, NULL, "JSON Lines: one object per registration"},
		{"python", 0, OPT_STRING, &python, "PATH", "the python for the reference (default: python3, /usr/bin/python3)"},
		{"cxx", 0, OPT_STRING, &cxx, "COMPILER", "the C++ compiler (default: $CXX, c++, clang++, g++)"},
		{"atol", 0, OPT_STRING, &atol_s, "X", "absolute tolerance (default: test_mps.py's, else PyTorch's per dtype)"},
		{"rtol", 0, OPT_STRING, &rtol_s, "X", "relative tolerance (default: test_mps.py's, else PyTorch's per dtype)"},
		{"strict", 0, OPT_FLAG, &strict, NULL, "count mismatches on inputs PyTorch's tests do not sample too (signaling NaNs, subnormals, overflow edges, ...)"},
		{"device", 0, OPT_STRING, &device, "cpu|mps", "cpu: the host (default); mps: torch.mps.compile_shader (macOS)"},
		{"emit", 0, OPT_FLAG, &emit, NULL, "print the generated harness and script; run nothing"},
		{"timeout", 0, OPT_STRING, &timeout_s, "SECONDS", "time limit of each program run (default 60; compilers: at least 60)"},
		{"host-layer", 0, OPT_STRING, &host_opt, "DIR", "the Metal host layer (default: tools/metal-host beside tools/bin)"},
		CLI_OPT_END,
	};
	struct try_opts o;
	struct try_plan pl;
	struct try_env env;
	char *root;
	char *xcrun_path = NULL;
	double atol = -1, rtol = -1, timeout = 60;

	const char *argv0 = argv[0]; /* cli_parse moves the operands to argv[0..n) */

	diag_init(argv[0]);
	n = cli_parse(&info, opts, argc, argv);
	cli_operator_count(&info, opts, n, 1);
	if (!cli_operators_valid(argv, n, nf_valid_op_arg))
		return MK_EXIT_ERROR;
	if (kernel && !lex_unqualified(kernel)[0]) {
		warnx_("error: empty --kernel");
		return MK_EXIT_ERROR;
	}
	{
		char *end;
		if (atol_s && ((atol = strtod(atol_s, &end)) < 0 || *end || !*atol_s)) {
			warnx_("error: --atol '%s' is not a number >= 0", atol_s);
			return MK_EXIT_ERROR;
		}
		if (rtol_s && ((rtol = strtod(rtol_s, &end)) < 0 || *end || !*rtol_s)) {
			warnx_("error: --rtol '%s' is not a number >= 0", rtol_s);
			return MK_EXIT_ERROR;
		}
		if (bool_s) {
			long v = strtol(bool_s, &end, 10);
			if (*end || !*bool_s || v < 1 || v > 3) {
				warnx_("error: --bool-input '%s' is not 1, 2 or 3", bool_s);
				return MK_EXIT_ERROR;
			}
			bool_input = (int)v;
		}
		if (timeout_s && ((timeout = strtod(timeout_s, &end)) <= 0 || *end || !*timeout_s)) {
			warnx_("error: --timeout '%s' is not a number of seconds > 0", timeout_s);
			return MK_EXIT_ERROR;
		}
	}
	if (device && strcmp(device, "cpu") && strcmp(device, "mps")) {
		warnx_("error: --device '%s': cpu or mps", device);
		return MK_EXIT_ERROR;
	}
	mps = device && !strcmp(device, "mps");
	root = find_root(root_opt);
	if (!root)
		return MK_EXIT_ERROR;
	memset(&o, 0, sizeof o);
	o.root = root;
	o.op = argv[0];
	o.kernel = kernel;
	o.dtypes = dtypes;
	o.args = args.v;
	o.nargs = args.n;
	o.none_as = none_as;
	o.bool_input = bool_input;
	if (try_plan_build(&pl, &o) != 0) {
		try_plan_free(&pl);
		free(root);
		free(args.v);
		return MK_EXIT_ERROR;
	}

	/* the host layer, the compiler, python */
	switch (try_env_setup(&env, argv0, host_opt, cxx, python, !emit)) {
	case TRY_ENV_NO_HOST_LAYER:
		warnx_("error: no Metal host layer at '%s' (a folder with metal_host.h, metal_stdlib and FLAGS; --host-layer DIR)",
		       env.own_host ? env.own_host : "tools/metal-host");
		status = MK_EXIT_ERROR;
		goto out;
	case TRY_ENV_NO_FLAGS:
		status = MK_EXIT_ERROR;
		goto out;
	case TRY_ENV_NO_CXX:
		warnx_("error: no C++ compiler found (%s%s); --cxx COMPILER",
		       cxx ? "--cxx " : "looked for $CXX, c++, clang++, g++ on PATH",
		       cxx ? cxx : "");
		status = MK_EXIT_ERROR;
		goto out;
	}
	env.timeout = timeout;
	env.atol = atol;
	env.rtol = rtol;
	env.strict = strict;

	if (emit) {
		if (mps) {
			char *s = try_mps_script(&pl);
			size_t na, i;
			char **mv = try_metal_args("xcrun", root, pl.metal_rel, "<tmp>/kernel.air", &na);
			printf("==> metal compile (first, when xcrun is on PATH) <==\n");
			for (i = 0; i < na; i++)
				printf("%s%s", i ? " " : "", mv[i]);
			printf("\n\n==> mps.py <==\n");
			fputs(s, stdout);
			lex_strv_free(mv, na);
			free(s);
		} else {
			char *h = try_harness(&pl);
			size_t na, i;
			char **cv = try_cxx_args(&env, "<tmp>", "<tmp>/harness.cpp",
			                         "<tmp>/harness", 1, 0, -1, &na);
			printf("==> compile (in <tmp>) <==\n");
			for (i = 0; i < na; i++)
				printf("%s%s", i ? " " : "", i == 0 ? (cxx ? cxx : "c++") : cv[i]);
			printf("\n\n==> copied into <tmp>, REWRITES.md applied <==\n");
			for (i = 0; i < pl.nhdrs; i++)
				printf("%s\n", pl.hdrs[i].rel);
			printf("%s (the functor and what it uses; the rest blanked)\n", pl.metal_rel);
			printf("\n==> harness.cpp <==\n%s\n==> %s <==\n%s\n==> ref.py <==\n%s", h,
			       pl.metal_rel, pl.host_source, try_reference_script());
			lex_strv_free(cv, na);
			free(h);
		}
		status = MK_EXIT_CLEAN;
		goto out;
	}
	if (mps) {
		struct buildinfo bi;
		xcrun_path = proc_find_program("xcrun");
		if (!xcrun_path)
			warnx_("no xcrun on PATH: the real Metal compile of %s is skipped", pl.metal_rel);
		buildinfo_get(&bi);
		if (strcmp(bi.system, "Darwin") != 0) {
			warnx_("error: --device mps runs only on macOS with torch.mps (use --emit to see its script)");
			status = MK_EXIT_ERROR;
			goto out;
		}
		env.device_mps = 1;
		env.xcrun = xcrun_path;
		env.root = root;
	}
	{
		struct try_outcome out;
		if (try_run(&pl, &env, &out) != 0) {
			status = MK_EXIT_ERROR;
			goto out;
		}
		if (out.no_torch)
			warnx_("no python imports torch (tried %s%s%s): the CPU comparison is skipped; "
			       "ran the checks that need none",
			       env.pythons[0], env.pythons[1] ? ", " : "",
			       env.pythons[1] ? env.pythons[1] : "");
		if (json)
			try_report_json(stdout, &pl, &out);
		else
			try_report_text(stdout, &pl, &out);
		status = out.status;
		try_outcome_free(&pl, &out);
	}
out:
	try_env_free(&env);
	free(xcrun_path);
	try_plan_free(&pl);
	free(root);
	free(args.v);
	return close_stdout(status);
}
