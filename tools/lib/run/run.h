/* run.h — mps-run (issue #26): whole Metal compute kernels run on the host
 * under the execution model of the Metal host layer
 * (tools/metal-host/metal_host_exec.h), called from a Python script as
 * torch.mps.compile_shader's kernels are.
 *
 * Layer: run/ (beside check/, whose host-layer environment, rewrites and
 * process running it shares: try_env_setup, try_rewrite, proc.h).
 *
 * The pieces:
 *   - kernel.c: a Metal source -> its kernels (name, parameters: buffers,
 *     scalars by reference, thread-position attributes), the host copy of
 *     the source (the layer's rewrites, then the buffer parameters as
 *     checked pointers and the threadgroup arrays as checked arrays, every
 *     line kept where it was) and the driver unit (the kernel table of
 *     metal_host_exec.h);
 *   - session.c: the run of a script (a private folder, the Python side
 *     started with the tool's module first on its path), the build of one
 *     library (compile_shader's source) and one call (a dispatch), each a
 *     re-entry of the tool from the Python side.
 */
#ifndef MK_RUN_H
#define MK_RUN_H

#include <stddef.h>

enum run_param_kind {
	RUN_BUF,        /* device T* (written back) */
	RUN_CBUF,       /* constant T*, device const T* */
	RUN_SCALAR,     /* constant T& (a scalar, struct or array by reference) */
	RUN_POS,        /* a thread-position attribute */
};

struct run_param {
	int kind;               /* enum run_param_kind */
	char *name;             /* the parameter's name */
	char *type;             /* buffers: the element type ("float", "atomic_int");
	                           scalars: the referenced type; positions: the
	                           declared type ("uint", "uint2") */
	char *attr;             /* positions: the attribute ("thread_position_in_grid") */
	long slot;              /* buffers and scalars: the buffer index ([[buffer(N)]],
	                           else the order among them) */
};

struct run_kernel {
	char *name;             /* the kernel's name: a plain kernel's, or the
	                           [[host_name]] of an instantiation */
	char *call;             /* an instantiation: the template as called,
	                           "reduce_row<float, 4>"; NULL for a plain
	                           kernel (called by its name) */
	int templ;              /* (run_parse's own: a template definition) */
	unsigned long line;     /* of `kernel` in the source (an
	                           instantiation: of its template there, else
	                           1) */
	struct run_param *p;
	size_t np;
	size_t nslots;          /* buffers and scalars */
	size_t cap_;            /* (room in p) */
};

/* run_parse: the kernels of the Metal source TEXT (LEN bytes): every
 * `kernel void NAME(...)` at file level that is not a template, and every
 * explicit instantiation `template [[host_name("N")]] kernel void
 * F<ARGS>(PARAMS);`, written out or produced by a macro (DEFS: the
 * function-like #defines of the source and of the headers it includes,
 * metalreg.h mr_defs_add; NULL: the source's own only), one kernel N each
 * whose parameters are the instantiation's; F is a template kernel of
 * TEXT (its parameters and body rewritten as a plain kernel's) or of a
 * header (called as it is: its accesses are not checked).  *HOST
 * (malloc'd): the text the host compiles — try_rewrite's rules, then in
 * each kernel and kernel template the buffer parameters written as
 * ::metal_host::model::dptr<T> (const T for constant and const buffers),
 * each `threadgroup T NAME[N];` of the body as MH_TG(T, N, NAME) (and
 * `threadgroup T NAME[A][B];` as MH_TG2(T, A, B, NAME)); and each
 * `NAME[` of those names as `NAME.at(__LINE__)[`; the instantiations of
 * TEXT's own templates blanked (the driver instantiates them by calling
 * them; inside a #define the backslashes that continue lines stay); in
 * the whole text, each call of a barrier or of a simd_* / quad_* function
 * as `(::metal_host::model::site(__LINE__), CALL)`; line breaks kept.
 * Returns the number of kernels (*out malloc'd, run_kernels_free), or -1
 * with *err (malloc'd message) and *err_line (1-based) for a kernel that
 * cannot run: a threadgroup pointer parameter (torch.mps.compile_shader
 * cannot size threadgroup memory: MetalKernelFunction binds buffers and
 * bytes only), a threadgroup array of more than two dimensions or a
 * threadgroup scalar, a parameter that is neither a buffer, a reference
 * nor a position. */
struct mr_defs;
long run_parse(const char *text, size_t len, const struct mr_defs *defs, struct run_kernel **out,
               char **host, char **err, unsigned long *err_line);

void run_kernels_free(struct run_kernel *k, size_t n);

/* run_driver: the driver unit (malloc'd) for kernels K[0..N): includes
 * <metal_stdlib>, metal_host_exec.h and the host copy HOST_NAME, and
 * defines metal_host::model::kernels and nkernels (metal_host_exec.h). */
char *run_driver(const struct run_kernel *k, size_t n, const char *host_name);

/* run_table: the kernel table the Python side reads (malloc'd): per
 * kernel a line "kernel NAME NSLOTS", then per slot "arg SLOT KIND NAME"
 * with KIND buf, cbuf or scalar. */
char *run_table(const struct run_kernel *k, size_t n);

/* run_pos_attr: 1 when ATTR (LEN bytes) names a thread-position
 * attribute the model supplies. */
int run_pos_attr(const char *attr, size_t len);

/* ---- includes (source.c) ---- */

struct try_header;

/* run_checkout_include: 1 when an #include of NAME means a file of a
 * PyTorch checkout (c10/..., ATen/..., aten/src/...): one that must be
 * found there (the others, <metal_stdlib> and the like, are the host
 * layer's or the compiler's). */
int run_checkout_include(const char *name);

/* run_headers: the checkout headers TEXT (LEN bytes) includes, found in
 * ROOT (NULL: none) as mps-try finds them (check/try.h: -I ROOT -I
 * ROOT/aten/src), appended to *hdrs / *nhdrs, each after those it
 * includes, with its try_rewrite'd text; their #defines added to DEFS.
 * A checkout include (run_checkout_include) that is not found: a
 * diagnostic "mps-run: FILE:L: error: cannot find ..." (L: the line in
 * TEXT plus LINEOFF) and -1.  0 otherwise. */
int run_headers(const char *root, const char *text, size_t len, const char *file, long lineoff,
                struct try_header **hdrs, size_t *nhdrs, struct mr_defs *defs);

/* run_inline: TEXT with each #include of a checkout header (found in ROOT
 * as run_headers finds it) replaced by that header's text, recursively,
 * each header once (between `// ---- begin REL` and `// ---- end REL`
 * comment lines; its `#pragma once` lines dropped); other includes kept:
 * what the real torch.mps.compile_shader can compile (it has no include
 * path; torch.compile's MPS backend inlines the c10/metal headers the
 * same way).  Malloc'd, or NULL after the diagnostic of run_headers. */
char *run_inline(const char *root, const char *text, size_t len, const char *file, long lineoff);

/* run_inline_file: print run_inline of the file PATH ("-": the standard
 * input) on stdout (mps-run --inline).  0, or 2 after a diagnostic (an
 * unreadable file, a checkout header not found, a failed write). */
int run_inline_file(const char *root, const char *path);

/* ---- runs (session.c) ---- */

#include "check/try.h"

/* The optimisation level of the kernels and the runtime: the model's
 * bookkeeping runs per access, so -O1 (measured on the bench's row sum:
 * README.md, mps-run). */
#define RUN_OPT "-O1"

/* The time limit of each compile (the kernel calls have --timeout). */
#define RUN_COMPILE_LIMIT 300.0

/* The prebuilt part of every build, made by make (mps-run
 * --internal-prebuild) in RUN_PREBUILT_DIR beside the program: the
 * runtime's object rt.o and the precompiled header RUN_PCH_NAME(.gch),
 * which includes metal_host.h and metal_host_exec.h.  With them a
 * compile_shader compiles only its own unit (measured on the bench's row
 * sum: README.md, mps-run). */
#define RUN_PREBUILT_DIR "mps-run.d"
#define RUN_PCH_NAME "mh_run.h"

/* What a run knows: the host layer, compiler, time limit (env, from
 * try_env_setup), the python, the SIMD width, --emit, the session folder
 * (internal modes). */
struct run_ctx {
	const char *argv0;
	struct try_env env;
	const char *const *pythons; /* the candidates, NULL-terminated (env.pythons) */
	int simd;
	int emit;
	int orders;               /* --orders 2: each call run again with each
	                             group's threads in reverse order, the
	                             results compared (MPS_RUN_ORDERS, read by
	                             the runtime) */
	int ucontext;             /* --task-switch ucontext: the runtime built
	                             with -DMH_UCONTEXT */
	const char *session;
	const char *root;         /* the PyTorch checkout whose headers the
	                             sources include (--root, else the one
	                             around the current folder), or NULL */
};

/* run_script: run SCRIPT with ARGS under the first of c->pythons that
 * imports torch, with mps-run's module
 * first on its path (tools/metal-host/mps_run.py, which provides
 * torch.mps.compile_shader when torch has no MPS device), in a new
 * session folder (removed afterwards).  The script's stdout and stderr
 * are the tool's.  Returns the exit status: 1 when a call reported an
 * error, 2 when the script could not be run, else the script's own. */
int run_script(struct run_ctx *c, const char *script, char *const *args, size_t nargs);

/* run_ctx_from_env: the context of an internal mode, from the variables
 * run_script sets (MPS_RUN_SESSION, MPS_RUN_HOST_LAYER, MPS_RUN_CXX,
 * MPS_RUN_TIMEOUT, MPS_RUN_EMIT, MPS_RUN_UCONTEXT).  0, or -1 after a diagnostic. */
int run_ctx_from_env(struct run_ctx *c);

/* run_build_lib: build LIBDIR (source.metal, origin) into LIBDIR/prog and
 * LIBDIR/kernels.txt; diagnostics on stderr (a kernel this slice cannot
 * run, the compiler's errors mapped to the script's lines).  0, or 2. */
int run_build_lib(const struct run_ctx *c, const char *libdir);

/* run_prebuilt_valid: the prebuilt folder beside the program c->argv0
 * (malloc'd), when its STAMP names c->env's compiler, host layer and
 * RUN_OPT, rt.o and the precompiled header are there and no file of the
 * host layer is newer than STAMP; else NULL (the build compiles the
 * runtime itself and uses no precompiled header: a header built by
 * another compiler is an error for clang).  *LD: the linker option the
 * prebuild found working (-fuse-ld=lld or gold; malloc'd), or NULL. */
char *run_prebuilt_valid(const struct run_ctx *c, char **ld);

/* run_prebuild: build DIR (made if missing) for c->env: DIR/rt.o,
 * DIR/mh_run.h and its precompiled DIR/mh_run.h.gch; find whether the
 * compiler links with -fuse-ld=lld or gold (faster than GNU ld; Apple's
 * linker takes neither: the default stays); then DIR/STAMP (last, so that
 * a build cut short leaves no STAMP).  0, or 2 after a diagnostic
 * (the compiler's messages). */
int run_prebuild(const struct run_ctx *c, const char *dir);

/* run_call_lib: run LIBDIR/prog on CALLFILE under the time limit, print
 * its findings (and a timeout or a crash) on stderr, count the errors in
 * the session's errors file.  0 ran, 1 timed out or crashed, 2 error. */
int run_call_lib(const struct run_ctx *c, const char *libdir, const char *callfile);

#endif
