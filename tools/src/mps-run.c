/* mps-run — run a Python script whose torch.mps.compile_shader kernels run
 * on the host under the Metal host layer's execution model, with checks
 * (issue #26); --inline prints a source with its checkout headers inlined.  The face: options, output.  The
 * logic is tools/lib/run (kernel.c: the source, the host copy, the driver;
 * session.c: the script's session, builds and calls). */
#include "base/cli.h"
#include "base/diag.h"
#include "base/proc.h"
#include "run/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char details[] =
	"What it does.  Runs SCRIPT.py with python (--python, default python3,\n"
	"then /usr/bin/python3) and ARGS.  When torch has no MPS device,\n"
	"torch.mps.compile_shader(source) is mps-run's (tools/metal-host/mps_run.py,\n"
	"importable as mps_run): lib.KERNEL(*args, threads=..., group_size=...)\n"
	"binds args in order to the kernel's buffer slots as PyTorch does (a CPU\n"
	"tensor: its storage from its offset; a Python float: float; an int or\n"
	"bool: long; a list of them: an array), compiles the source as C++17\n"
	"against the Metal host layer (tools/metal-host beside tools/bin, or\n"
	"--host-layer) and runs the dispatch: `threads` the whole grid (1-3\n"
	"numbers, default: the first tensor's numel), `group_size` the threads of\n"
	"a group (default: min(threads, 1024)); a partial last group as\n"
	"dispatchThreads gives.  The tensors the kernel may write are copied back.\n"
	"With an MPS device the real compile_shader runs (the source's checkout\n"
	"headers inlined first).  It reads SCRIPT, what the script reads, and the\n"
	"checkout headers the sources include.\n"
	"\n"
	"The model.  Each threadgroup's threads run as cooperative tasks on one\n"
	"OS thread; threadgroup_barrier and simdgroup_barrier wait for the group\n"
	"and the SIMD-group; SIMD-groups of --simd-width lanes (32); the SIMD-group\n"
	"and quad functions exchange the lanes' values; threadgroup arrays of the\n"
	"kernel's body are shared by the group.\n"
	"\n"
	"Checks, each as `mps-run: FILE:LINE: error|warning: MESSAGE [CHECK]` with\n"
	"the kernel, the thread and group positions and the buffer's argument;\n"
	"FILE:LINE is the script's line when the source is a literal in it, the\n"
	"line of a .metal file beside the script when read from one:\n"
	"  out-of-bounds       a buffer or threadgroup array accessed outside it\n"
	"  race                two threads touch one threadgroup element between\n"
	"                      the same two barriers, one writing; or two threads\n"
	"                      write one device element without an atomic\n"
	"  divergent-barrier   a barrier not reached by every thread of the group\n"
	"  uninitialized-read  threadgroup memory read before any thread wrote it\n"
	"  unwritten-output    (warning) elements of a written buffer no thread\n"
	"                      touched (of a strided or sliced tensor view: the\n"
	"                      elements the view covers)\n"
	"  timeout             a kernel still running at the time limit\n"
	"  error-buffer        (note) a report through c10/metal/error.h\n"
	"                      (error_buf_idx=N): raised after the call as the\n"
	"                      MPS stream raises it (torch.AcceleratorError,\n"
	"                      else RuntimeError: the first message)\n"
	"With --orders 2 each call runs twice, the second time with each group's\n"
	"threads started and resumed in reverse order, and an element of a written\n"
	"buffer that differs between the two (atomics aside) is a [race] too: a\n"
	"second net for what the checks do not see (an access through a raw\n"
	"pointer, a write of the value already there).  The first run's results\n"
	"are kept.\n"
	"\n"
	"Sources.  Plain kernels (`kernel void` or `[[kernel]] void`) and kernel\n"
	"templates run through their instantiations, `template\n"
	"[[host_name(\"NAME\")]] kernel void f<T>(...);`, written out or made by a\n"
	"macro of the source or its headers (one kernel NAME each); buffers\n"
	"(device/constant T*), constant T& scalars, every thread-position\n"
	"attribute; `threadgroup T x[N];` arrays in the body (compile_shader cannot\n"
	"size threadgroup memory, so `threadgroup T*` parameters are refused);\n"
	"arg_casts as compile_shader's.  #include <c10/metal/...> and\n"
	"<ATen/native/mps/kernels/...> come from the PyTorch checkout (--root DIR,\n"
	"else the one around the current folder, as mps-try finds it); the real\n"
	"compile_shader has no include path: `mps-run --inline FILE` (or\n"
	"mps_run.inline_includes(source) in Python) gives the source with them\n"
	"inlined, and with an MPS device mps-run's compile_shader inlines them\n"
	"before calling the real one.  Threadgroup arrays of one or two\n"
	"dimensions.  Not checked: accesses through a raw pointer taken from a\n"
	"buffer or an array, and inside the headers' functions.\n"
	"\n"
	"Safety.  It runs python, the C++ compiler and the programs it builds,\n"
	"each from an argv (no shell), each kernel call with a time limit\n"
	"(--timeout) and each compile with one of 300 s, in a private folder under $TMPDIR or /tmp that\n"
	"is also the script's $TMPDIR, removed afterwards.  It writes nothing\n"
	"else (python runs with -B).  It reads the runtime object and precompiled\n"
	"header make built beside it (mps-run.d/, used while its STAMP names this\n"
	"compiler and host layer and is newer than the layer's files;\n"
	"MPS_RUN_NO_PREBUILT=1: not used).  --emit prints each generated host\n"
	"copy, driver and compile command on stderr before it compiles.\n"
	"MPS_RUN_STATS=1 prints each build's and each run's time.  No network.\n"
	"\n"
	"Exit status: 1 when a check reported an error; 2 an error of use (bad\n"
	"option, no script, no python, no compiler, no host layer; --inline: a\n"
	"header not found); else the script's own status (--inline: 0).\n";

static const struct tool_info info = {
	"mps-run",
	"[options] SCRIPT.py [ARGS...]\n       mps-run --inline [--root DIR] FILE.metal|-",
	"Run a script's torch.mps.compile_shader kernels on this machine, with checks.",
	details,
};

int main(int argc, char **argv)
{
	const char *python = NULL, *cxx = NULL, *timeout_s = NULL, *host_opt = NULL, *simd_s = NULL;
	const char *switch_s = NULL, *orders_s = NULL, *root_opt = NULL;
	int emit = 0, inl = 0, n, status;
	struct opt opts[] = {
		{"python", 0, OPT_STRING, &python, "PATH", "the python that runs the script (default: python3, /usr/bin/python3)"},
		{"cxx", 0, OPT_STRING, &cxx, "COMPILER", "the C++ compiler (default: $CXX, c++, clang++, g++)"},
		{"simd-width", 0, OPT_STRING, &simd_s, "8|16|32|64", "lanes of a SIMD-group (default 32, as Apple GPUs)"},
		{"timeout", 0, OPT_STRING, &timeout_s, "SECONDS", "time limit of each kernel call (default 60)"},
		{"host-layer", 0, OPT_STRING, &host_opt, "DIR", "the Metal host layer (default: tools/metal-host beside tools/bin)"},
		{"orders", 0, OPT_STRING, &orders_s, "1|2", "2: run each call again with each group's threads in reverse order and compare the results (a second net for races; twice the run time)"},
		{"emit", 0, OPT_FLAG, &emit, NULL, "print the generated host code and compile commands on stderr"},
		{"root", 0, OPT_STRING, &root_opt, "DIR", "the PyTorch checkout whose headers sources include (default: the one around the current folder)"},
		{"inline", 0, OPT_FLAG, &inl, NULL, "print FILE (a .metal source, - for stdin) with its checkout #includes inlined, for the real compile_shader; run nothing"},
		{"task-switch", 0, OPT_STRING, &switch_s, "native|ucontext", "how tasks switch: registers swapped by a few instructions (x86-64, arm64; default) or makecontext/swapcontext"},
		CLI_OPT_END,
	};
	struct run_ctx c;
	memset(&c, 0, sizeof c);
	c.argv0 = argv[0];
	diag_init(argv[0]);

	/* the Python side's re-entries */
	if (argc >= 3 && (!strcmp(argv[1], "--internal-build") || !strcmp(argv[1], "--internal-call"))) {
		int build = !strcmp(argv[1], "--internal-build");
		if ((build && argc != 3) || (!build && argc != 4)) {
			warnx_("error: wrong use of %s", argv[1]);
			return MK_EXIT_ERROR;
		}
		if (run_ctx_from_env(&c) != 0) {
			try_env_free(&c.env);
			return MK_EXIT_ERROR;
		}
		status = build ? run_build_lib(&c, argv[2]) : run_call_lib(&c, argv[2], argv[3]);
		try_env_free(&c.env);
		return status;
	}

	/* make's prebuilt runtime and header (the default compiler's) */
	if (argc == 3 && !strcmp(argv[1], "--internal-prebuild")) {
		switch (try_env_setup(&c.env, c.argv0, NULL, NULL, NULL, 1)) {
		case TRY_ENV_READY:
			status = run_prebuild(&c, argv[2]);
			break;
		case TRY_ENV_NO_CXX:
			fprintf(stderr, "mps-run: note: no C++ compiler found: nothing prebuilt (each "
			                "compile_shader compiles the runtime too)\n");
			status = 0;
			break;
		default:
			warnx_("error: no Metal host layer beside the program");
			status = MK_EXIT_ERROR;
		}
		try_env_free(&c.env);
		return status;
	}

	/* options end at the script: what follows is the script's */
	int end = 1;
	while (end < argc && argv[end][0] == '-' && argv[end][1]) {
		if (!strcmp(argv[end], "--")) {
			end++;
			break;
		}
		int takes = 0;
		for (const struct opt *o = opts; o->name; o++)
			if (o->type != OPT_FLAG && !strncmp(argv[end] + 2, o->name, strlen(o->name)) &&
			    argv[end][2 + strlen(o->name)] == 0)
				takes = 1;
		end += takes ? 2 : 1;
	}
	if (end > argc)
		end = argc;
	int nscript = argc - end;
	char **rest = argv + end;
	n = cli_parse(&info, opts, end, argv);
	if (n != 0 || nscript < 1) {
		warnx_("error: %s", n ? "unexpected operand before the script" : "no script given");
		cli_usage(&info, opts);
	}
	double timeout = 60;
	if (timeout_s) {
		char *e;
		timeout = strtod(timeout_s, &e);
		if (timeout <= 0 || *e || !*timeout_s) {
			warnx_("error: --timeout '%s' is not a number of seconds > 0", timeout_s);
			return MK_EXIT_ERROR;
		}
	}
	c.simd = 32;
	if (simd_s) {
		c.simd = atoi(simd_s);
		if (strcmp(simd_s, "8") && strcmp(simd_s, "16") && strcmp(simd_s, "32") &&
		    strcmp(simd_s, "64")) {
			warnx_("error: --simd-width '%s': 8, 16, 32 or 64", simd_s);
			return MK_EXIT_ERROR;
		}
	}
	c.emit = emit;
	c.orders = 1;
	if (orders_s) {
		if (strcmp(orders_s, "1") && strcmp(orders_s, "2")) {
			warnx_("error: --orders '%s': 1 or 2", orders_s);
			return MK_EXIT_ERROR;
		}
		c.orders = atoi(orders_s);
	}
	if (switch_s && strcmp(switch_s, "native") && strcmp(switch_s, "ucontext")) {
		warnx_("error: --task-switch '%s': native or ucontext", switch_s);
		return MK_EXIT_ERROR;
	}
	c.ucontext = switch_s && !strcmp(switch_s, "ucontext");
	/* the checkout: --root (which must be one), else the one around us */
	char *root = root_opt ? find_root(root_opt) : find_checkout();
	if (root_opt && !root)
		return MK_EXIT_ERROR;
	c.root = root;
	if (inl) {
		status = run_inline_file(root, rest[0]);
		free(root);
		return status;
	}
	switch (try_env_setup(&c.env, c.argv0, host_opt, cxx, python, 1)) {
	case TRY_ENV_NO_HOST_LAYER:
		warnx_("error: no Metal host layer at '%s' (a folder with metal_host.h, metal_stdlib and FLAGS; --host-layer DIR)",
		       c.env.own_host ? c.env.own_host : "tools/metal-host");
		status = MK_EXIT_ERROR;
		goto out;
	case TRY_ENV_NO_FLAGS:
		status = MK_EXIT_ERROR;
		goto out;
	case TRY_ENV_NO_CXX:
		warnx_("error: no C++ compiler found (%s%s); --cxx COMPILER",
		       cxx ? "--cxx " : "looked for $CXX, c++, clang++, g++ on PATH", cxx ? cxx : "");
		status = MK_EXIT_ERROR;
		goto out;
	}
	c.env.timeout = timeout;
	c.pythons = c.env.pythons;
	status = run_script(&c, rest[0], rest + 1, (size_t)(nscript - 1));
out:
	try_env_free(&c.env);
	free(root);
	return status;
}
