/* try.h — mps-try: a kernel's functor, run on the host against PyTorch's
 * CPU result (issue #20).
 *
 * The plan (try_plan_build) reads, writes nothing and runs nothing:
 *   - the registrations of kernel NAME in MPS_KERNELS_REL/NAME.metal, as
 *     metalreg.h reads them (core REGISTER_*_OP calls and the file's
 *     helper macros, expanded from their #define): IN, ALPHA, OUT;
 *   - from the file that holds them, the functor `struct NAME_functor`
 *     (or the top-level macro call that defines it), the file's
 *     top-level declarations it uses, transitively (helpers, constants,
 *     macros), the file's #include, `using` and conditional lines;
 *   - the headers those #include lines name that exist in the checkout,
 *     found as the compiler finds them with -I ROOT -I ROOT/aten/src
 *     ("..." beside the including file first): c10/metal/X.h and the
 *     kernel folder's own headers, recursively;
 *   - for each registration, the dense kernel template of
 *     c10/metal/indexing.h its core macro instantiates (unary_dense,
 *     unary_alpha_dense, binary_dense, binary_alpha_dense, with the
 *     template arguments the expansion gives), read from the macro's
 *     #define in those headers;
 *   - the functional overload of OP in native_functions.yaml whose
 *     Tensor inputs match the kernel's kind, and its arguments (the
 *     scalar the kernel's ALPHA stands for, defaults).
 * From it come the texts mps-try compiles and runs (try_harness, the
 * reference script, the input files); try_run (tryrun.c) runs them.
 *
 * The host layer (tools/metal-host, its contract at the top of
 * metal_host.h): the harness folder holds copies of the .metal file and of
 * the headers it includes at their checkout paths, each rewritten as
 * REWRITES.md says (try_rewrite, every line kept where it was), and one
 * generated translation unit that includes the copy and only the system
 * headers the contract lists as safe, compiled with the layer's FLAGS and
 * -I<layer> -I<folder> -I<folder>/aten/src (try_cxx_args).
 */
#ifndef MK_TRY_H
#define MK_TRY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What the command line asks (mps-try's options). */
struct try_opts {
	const char *root;        /* the checkout (find_root's result) */
	const char *op;          /* OP, or OP.OVERLOAD */
	const char *kernel;      /* --kernel NAME; NULL: OP's base name */
	const char *dtypes;      /* --dtypes IN:OUT,...; NULL: every one */
	char **args;             /* --arg NAME=VALUE, nargs of them */
	size_t nargs;
	const char *none_as;     /* --none-as VALUE: what a host stub passes
	                            as ALPHA for an optional scalar that is
	                            None; NULL: what the checkout's code says
	                            (try_none_value), else None is not tried */
	const char *text_rel;    /* a .metal file (relative to root) read from
	                            TEXT instead of the checkout: mps-migrate's
	                            planned text, tried before it is written;
	                            NULL: every file as it is */
	const char *text;        /* its bytes (text_len; not owned) */
	size_t text_len;
	const char *hdr_rel;     /* a header (relative to root) read from
	                            HDR_TEXT instead of the checkout: the
	                            planned kernels/X.h holding a new params
	                            struct (binary-params); NULL none */
	const char *hdr_text;    /* its bytes (hdr_len; not owned) */
	size_t hdr_len;
	int bool_input;          /* --bool-input N: the Nth tensor input
	                            (1-based) is a condition the operator
	                            reads as bool (where's condition): the
	                            kernel gets it in the inputs' dtype, the
	                            CPU reference as `x != 0` (torch's
	                            .bool()); 0 none */
};

struct mr_inst;

/* The most kernels of one registration the driver runs. */
#define TRY_MAX_RUNS 4

/* One registration of the kernel. */
struct try_reg {
	int kind;                /* enum mr_kind */
	const char *macro;       /* the core macro ("REGISTER_UNARY_OP") */
	char *in, *alpha, *out;  /* dtype tokens; alpha NULL when none */
	char *call;              /* the core call, "REGISTER_UNARY_OP(abs,
	                            float, float)" */
	char *via;               /* the helper macro written in the file, or
	                            NULL */
	unsigned long line;      /* line of the call written in the file */
	struct mr_inst *kernels; /* every kernel its macro instantiates, read
	                            from the #define (metalreg.h
	                            mr_instantiate), in the macro's order */
	size_t nkernels;
	size_t run[TRY_MAX_RUNS];/* the kernels the driver runs (indexes
	                            into kernels): the first is compared with
	                            the CPU, one element per thread (a
	                            "dense..." variant first: 2.14.1's
	                            unary dense_scalar, older dense); the
	                            others are compared with it, byte for
	                            byte: those whose parameters are the
	                            output, the inputs, the alpha, an
	                            optional `constant uint& numel` (the ILP
	                            ones) and the thread index */
	int run_numel[TRY_MAX_RUNS]; /* 1: that kernel takes numel */
	size_t nrun;
	char *dense;             /* the first run kernel, as called:
	                            "::c10::metal::unary_dense<float,
	                            abs_functor>", or NULL */
	char *dense_why;         /* why there is no dense path, when NULL */
};

/* One run of a registration: its inputs with one value of the scalar. */
struct try_case {
	size_t reg;
	char *arg_value;         /* the scalar as given (a Python literal:
	                            "1", "0.25", "None"), NULL when none */
	char *alpha_value;       /* what the kernel gets as ALPHA (text), NULL
	                            when the kernel has none */
};

/* A header of the checkout the kernel file includes (transitively). */
struct try_header {
	char *rel;               /* path relative to the root; the copy in the
	                            harness folder has the same path */
	char *text;              /* as in the checkout (--device mps) */
	char *host;              /* text with try_rewrite applied: what the
	                            host compiler reads */
};

/* A schema argument as mps-try uses it. */
struct try_arg {
	char *name, *type, *def; /* def NULL: none */
	int kwarg;
	int tensor;              /* Tensor (an input) */
	int scalar;              /* Scalar, int, float, bool (optional or
	                            not) */
	int optional;            /* type ends in '?' */
	char *given;             /* --arg value, or NULL */
	int constant;            /* a Tensor --arg gives a number: a tensor
	                            of the inputs' shape and dtype filled with
	                            it, no input of the kernel's (the gradient
	                            of a backward whose kernel is one factor) */
};

/* What OP's OpInfo says about the values its samples draw (read in the
 * OpInfo's entry of common_methods_invocations.py; opinfo/core.py's
 * sample_inputs_elementwise_unary and _filter_unary_elementwise_tensor
 * draw and clamp to [low + 1e-5, high - 1e-5], integers to
 * [ceil, floor] of that, complex values per component). */
struct try_opinfo {
	int found;             /* an entry named OP was read */
	char *file;            /* the file it was read in (as given) */
	unsigned long line;    /* the line of its entry, 1-based */
	int unary;             /* a UnaryUfuncInfo */
	int binary;            /* a BinaryUfuncInfo: a unary kernel of it
	                          (a tensor and a scalar) sees only
	                          make_tensor's range (opinfo/core.py
	                          generate_elementwise_binary_with_scalar_samples) */
	int has_low, has_high; /* domain=(low, high): None leaves a side open */
	double low, high;
	int large_floats;      /* handles_large_floats (default 1) */
	int complex_extremal;  /* handles_complex_extremal_values (default 1) */
	int rhs_nonzero;       /* rhs_make_tensor_kwargs sets exclude_zero=True
	                          (div, fmod, remainder, floor_divide): no
	                          sample's second operand is zero (opinfo/core.py
	                          generate_elementwise_binary_small_value_tensors
	                          swaps it for 1, make_tensor for the dtype's
	                          tiny or 1) */
	/* the dtypes (try_opinfo_dtype_bit) whose large or extremal reference
	   values PyTorch does not test for OP: a DecorateInfo of the entry
	   that skips or expects to fail test_reference_numerics_large /
	   _extremal (TestUnaryUfuncs) or _large_values / _extremal_values
	   (TestBinaryUfuncs), on every device or on mps, always or when
	   IS_MACOS; one that skips every test of the entry (no test class
	   named); one that takes test_compare_cpu away from an entry without
	   ref (the ufunc reference tests run only entries with one) */
	unsigned untested_large, untested_extremal;
	int plain;             /* a plain OpInfo without reference_inputs_func:
	                          its reference inputs are its samples (both
	                          untested masks full) */
	char *name;            /* the operator name the entry was found for */
	int forward;           /* OP is X_backward and the entry is X's */
	unsigned long untested_line; /* the line of the first such DecorateInfo */
};

/* A tolerance test_mps.py's TestConsistency gives an operator at a dtype
 * (try_test_tolerance). */
struct try_tol {
	int set;                 /* a clause applies and returns numbers */
	double atol, rtol;
	unsigned long line;      /* the line of its `if` (1-based), or of the
	                            method's final return */
};

struct try_plan {
	char *kernel;            /* NAME */
	char *op_base;           /* OP's base name */
	char *func;              /* the overload used, "add.Tensor" */
	char *overload;          /* its overload name ("" for none) */
	char *metal_rel;         /* the .metal file holding the functor */
	char *metal_text;        /* its text */
	size_t metal_len;
	struct try_reg *regs;    size_t nregs;
	struct try_case *cases;  size_t ncases;
	struct try_header *hdrs; size_t nhdrs; /* each after those it
	                            includes */
	struct try_arg *args;    size_t nargs;
	int bool_input;          /* try_opts.bool_input */
	long alpha_arg;          /* index in args of the scalar ALPHA stands
	                            for, -1 none */
	char **alpha_fields;     /* an alpha that is a struct of float members
	                            (nan_to_num's NanToNumParams<float>): the
	                            members in order, each given by the schema
	                            scalar of its name; else NULL */
	size_t nalpha_fields;
	char *alpha_base;        /* the struct's template when a helper
	                            pastes its typedef per dtype (`typedef
	                            BASE<float> BASE_##T;`): the harness
	                            writes `typedef BASE<float> BASE_float;`
	                            for each registration; else NULL */
	char *source;            /* the .metal text as it is tried: the kept
	                            parts (the functor, what it uses, the
	                            #include, using and conditional lines), the
	                            rest blanked (line breaks kept), overload
	                            markers MK_TRY_HIT(LINE) put in */
	char *host_source;       /* source with try_rewrite applied: the copy
	                            of the .metal file the host compiles */
	unsigned long functor_line; /* line of `struct NAME_functor` */
	char **untested;         /* per registration: why PyTorch's MPS tests
	                            do not compare its dtype for OP (the test
	                            lists, try_test_lists), or NULL */
	struct try_tol *tol;     /* per registration: the tolerance
	                            test_mps.py gives OP at its IN dtype
	                            (try_test_tolerances); .set 0: none */
	char *root;              /* the checkout (o->root) */
	char *checkout_version;  /* the first line of the checkout's
	                            version.txt (try_checkout_version), or NULL */
	char **notes;            /* plan notes (other files' registrations,
	                            None not tried, ...) */
	size_t nnotes;
};

/* try_plan_build: read the checkout at o->root and plan the try of OP's
 * kernel (see the top of this file).  Returns 0, or -1 after printing
 * "prog: error: ..." (an OP the yaml lacks, no registration of the
 * kernel, a --dtypes pair no registration has, an --arg the schema
 * lacks, unreadable files): an error of use, exit 2.  *pl is owned by
 * the caller, who frees it with try_plan_free (after a failure too). */
int try_plan_build(struct try_plan *pl, const struct try_opts *o);

void try_plan_free(struct try_plan *pl);

/* try_harness: the C++17 translation unit for the whole plan (malloc'd):
 * the Metal unit of the host layer's contract.  It includes <cstdio>,
 * <new>, <type_traits> (the contract's safe list), <metal_host_guard.h>,
 * <metal_stdlib> and the copy of the .metal file ("METAL_REL": the
 * plan's host_source, written at that path of the harness folder, whose
 * headers are there too), then per registration its core macro call
 * under the #line of the call (compiled when MK_MODE is 1: the dense
 * path) and a driver.  MK_MODE (a -D of the compiler): 1 the dense
 * kernel templates, 0 the functor called directly (each registration's
 * result type checked by a static_assert under its call's #line), 2 the
 * functor on double inputs (the float64 evaluation of the no-torch
 * checks).  -DMK_SEL -DMK_ON_i compiles registration i alone.  Each
 * element runs under metal_host::guard; a trapping element is marked in
 * DIR/cK.trap.  Run as `harness DIR`, it reads DIR/rI.a (and rI.b),
 * DIR/cK.alpha, writes DIR/cK.out (MK_MODE 2: DIR/cK.f64, doubles) and
 * prints one line "case K overload LINE" per case (LINE 0: no
 * operator() was marked). */
char *try_harness(const struct try_plan *pl);

/* try_reference_script: the Python script of the CPU reference (a static
 * text).  Run as `python3 -I -B ref.py DIR`, it reads DIR/manifest.json
 * (try_manifest) and the input files and writes DIR/cK.ref and
 * DIR/cK.json; without torch it writes DIR/no-torch and exits 0. */
const char *try_reference_script(void);

/* try_manifest: the JSON text (malloc'd) the reference script reads: the
 * operator, overload, arguments and, per case, dtypes and files. */
char *try_manifest(const struct try_plan *pl);

/* try_none_value (trynone.c): what the checkout's host code gives kernel
 * KERNEL as its scalar when the optional schema argument ARG is None.
 * Read from the scalar argument of the exec_unary_kernel /
 * exec_binary_kernel(iter, "KERNEL", X, ...) call in the MPS host files
 * (hostscan), X written as `ARG ? *ARG : L`, `ARG ? ARG.value() : L`,
 * `ARG.has_value() ? ... : L`, `ARG.value_or(L)`, `!ARG ? L : *ARG` (in
 * Scalar(...) or a cast, or the initializer of a local X of the calling
 * function); when X is a parameter of that function, from the call of the
 * stub it is registered as in the shared C++ kernel of CPU_KERNELS (the
 * CPU dispatch kernels of the operator, cppscan's cs_discover: logit's
 * `Scalar(eps ? eps.value() : -1.0)` in UnaryOps.cpp).  L is a numeric
 * literal.  Returns 1 with *value (L without a suffix) and *where
 * ("FILE:LINE") malloc'd, 0 when none is found, -1 after a diagnostic
 * when a source cannot be read. */
int try_none_value(const char *root, const char *kernel, const char *arg,
                   char *const *cpu_kernels, size_t ncpu, char **value,
                   char **where);

/* ---- inputs ---- */

/* The byte size of one element of a Metal dtype token (float2: 8). */
size_t try_dtype_size(const char *dt);

/* try_inputs: the input elements of registration REG (kind unary: b
 * NULL): malloc'd arrays of *n elements of REG's IN dtype, in the byte
 * layout of try_dtype_size (half and bfloat as their 16 bits).  Fixed
 * seed: the same plan gives the same bytes everywhere.  Per dtype: half
 * and bfloat, unary: every bit pattern; binary: a grid of edge values,
 * edges crossed with a sample, and random pairs.  float: edge values
 * (±0, ±inf, NaN, subnormals, the largest and smallest normals, ±1, ±2,
 * ±0.5, 1±eps, ±pi/2, ±pi, overflow edges of exp) plus 100,000 random
 * values (bit patterns and a uniform range).  Integers: min, max, 0, ±1,
 * ±2 and random (8- and 16-bit unary: every value).  bool: both.
 * float2/half2: edge components crossed, plus random. */
void try_inputs(const struct try_reg *reg, unsigned char **a,
                unsigned char **b, size_t *n);

/* try_inputs3: try_inputs, and for a ternary registration (kind
 * MR_TERNARY*) *c: the third operand, *n elements of values in the range
 * PyTorch's tests sample (make_tensor's -9..9, uint8 1..9; both bools),
 * never zero, cycled through a fixed list; the element classes are
 * those of (a, b), so the third operand's own extremes are not tried.
 * *c NULL for other kinds (c may be NULL).  Caller frees. */
void try_inputs3(const struct try_reg *reg, unsigned char **a,
                 unsigned char **b, unsigned char **c, size_t *n);

/* try_alpha_bytes: VALUE (text) as one element of dtype DT into out
 * (at least 8 bytes).  Returns 0, or -1 when VALUE is no number (or
 * True/False for bool). */
int try_alpha_bytes(const char *dt, const char *value, unsigned char *out);

/* ---- numbers ---- */

/* IEEE binary16 and bfloat16 from and to float, round to nearest even
 * (as the GPU's conversions and torch's .half()/.bfloat16() do). */
uint16_t try_f32_to_f16(float f);
float try_f16_to_f32(uint16_t h);
uint16_t try_f32_to_bf16(float f);
float try_bf16_to_f32(uint16_t h);

/* try_value: element I of an array of dtype DT as doubles (re, and im
 * for float2/half2; *im 0 otherwise); integers through int64 (exact up
 * to 2^53 as doubles: use try_ivalue to compare them). */
void try_value(const char *dt, const unsigned char *p, size_t i, double *re,
               double *im);
int64_t try_ivalue(const char *dt, const unsigned char *p, size_t i);

/* try_torch_dtype: the torch dtype name of Metal dtype token DT
 * ("float2" -> "complex64"; double and double2 for float64 and
 * complex128, which test files name), static, or NULL for an unknown
 * token; ALIAS (may be NULL) gets its other torch spelling ("cfloat") or
 * NULL.  try_metal_dtype: the Metal token of the torch dtype name NAME
 * (N bytes, without "torch."; either spelling), or NULL.  One table for
 * the reference script, the test lists and test_mps.py's tolerances. */
const char *try_torch_dtype(const char *dt, const char **alias);
const char *try_metal_dtype(const char *name, size_t n);

/* try_is_float / try_is_complex / try_is_integral: the class of a Metal
 * dtype token (bool counts as integral). */
int try_is_float(const char *dt);
int try_is_complex(const char *dt);
int try_is_integral(const char *dt);

/* try_ulp: distance in units in the last place, in dtype DT (float,
 * half, bfloat, or a complex's component type), between two finite or
 * infinite values; 0 when equal; huge when of different signs far
 * apart.  NaN: -1. */
double try_ulp(const char *dt, double a, double b);

/* try_round_to: the double D rounded to the real dtype DT (float, half,
 * bfloat; others: D). */
double try_round_to(const char *dt, double d);

/* ---- a checkout's headers (try.c; shared with mps-run) ---- */

struct mr_defs;

/* try_includes: the `#include` lines of TEXT (len bytes; comments and
 * #if 0 blocks do not count): *names (malloc'd each, and the array) the
 * targets as written, *kinds '<' or '"' each, *lines (when LINES is not
 * NULL) the 1-based line of each; *n their count.  The caller frees. */
void try_includes(const char *text, size_t len, char ***names, char **kinds,
                  unsigned long **lines, size_t *n);

/* try_include_resolve: the checkout file an `#include` of NAME (KIND '<'
 * or '"') in the file FROM (relative to ROOT) names, as the compiler
 * finds it with -I ROOT -I ROOT/aten/src ("..." beside FROM first):
 * malloc'd, relative to ROOT; NULL when it is no file of the checkout
 * (a system or host-layer header such as <metal_stdlib>) or NAME is
 * absolute or climbs with "..". */
char *try_include_resolve(const char *root, const char *from, const char *name,
                          char kind);

/* try_header_add: append header REL of ROOT to *hdrs (*nhdrs of them),
 * after the checkout headers it includes, transitively (each once: SEEN,
 * *nseen names, malloc'd, the caller frees), each with its text and its
 * try_rewrite'd text (struct try_header, owned by the array); their
 * #defines go into MS when MS is not NULL (metalreg.h mr_defs_add).
 * Returns 0, or -1 after a diagnostic when a file cannot be read. */
int try_header_add(struct try_header **hdrs, size_t *nhdrs, const char *root,
                   const char *rel, struct mr_defs *ms, char ***seen, size_t *nseen);

/* try_mkdirs (tryrun.c): make the folders of the relative path REL
 * (all but its last component) under DIR, mode 0700; existing ones are
 * fine.  0, or -1 with errno. */
int try_mkdirs(const char *dir, const char *rel);

/* try_rewrite (tryrewrite.c): TEXT (len bytes) with the four rewrites of
 * the host layer's tools/metal-host/REWRITES.md applied, outside comments,
 * string and character literals and the rest of #include lines, inside
 * #define bodies too, every line break kept:
 *   1. `[[host_name(...)]]` right after the word `template` (blanks and
 *      backslash-newlines between) becomes spaces, each newline and the
 *      backslash continuing its line kept; elsewhere it stays;
 *   2. a floating literal (decimal with a '.' or an exponent, or
 *      hexadecimal with a binary exponent; digit separators allowed) not
 *      followed by a letter, digit, '_', '.' or '\'' gets an `f`;
 *   3. the word `constant` with the word `constexpr` right before or
 *      after it, and the word `const` with the word `constant` right
 *      before or after it (whitespace and backslash-newlines between),
 *      become spaces (`constant` is `const volatile` on the host: a
 *      volatile variable cannot be read in a constant expression, and
 *      `const` twice is an error);
 *   4. a swizzle after `.` or `->` (2 to 4 letters, all of xyzw or all of
 *      rgba) becomes `template mh_swizzle<C>()`, or
 *      `template mh_swizzle_ref<C>()` when an assignment operator (`=`,
 *      `+=`, ...; not `==`) follows it; C is 1 followed by the component
 *      indices (`.zw`: 123).
 * Malloc'd (caller frees), *out_len its length. */
char *try_rewrite(const char *text, size_t len, size_t *out_len);

/* ---- running (tryrun.c) ---- */

/* Where and how to run. */
struct try_env {
	const char *cxx;          /* the C++ compiler (a path or a PATH name) */
	const char *host_layer;   /* the Metal host layer folder (metal_stdlib,
	                             FLAGS) */
	char **flags;             /* the compiler flags of the layer's FLAGS
	                             file, nflags of them */
	size_t nflags;
	const char *const *pythons; /* python candidates, tried in order until
	                             one imports torch; NULL-terminated; an
	                             empty list: no reference */
	double timeout;           /* seconds, each program */
	double atol, rtol;        /* --atol/--rtol; < 0: PyTorch's per dtype */
	int strict;               /* --strict: mismatches on inputs beyond what
	                             PyTorch's tests sample count too */
	int device_mps;           /* --device mps: the registrations through
	                             torch.mps.compile_shader (macOS) */
	const char *xcrun;        /* with device_mps: xcrun to compile the
	                             .metal file with first, or NULL (skipped) */
	const char *root;         /* the checkout (the real Metal compile
	                             reads it) */
	char *own_host, *own_cxx; /* try_env_setup's (owned) */
	const char *own_pythons[3];
};

/* try_env_setup: the environment of a host run: the Metal host layer
 * HOST (NULL: the one beside the program ARGV0 names,
 * try_default_host_layer), which must hold metal_host.h, metal_stdlib and
 * FLAGS, made absolute; its FLAGS; the compiler try_find_cxx(CXX) finds
 * (CXX NULL: $CXX, c++, clang++, g++); the pythons of try_pythons(PYTHON);
 * a 60 s time limit and PyTorch's tolerances (the caller may change
 * them).  NEED_CXX 0: no compiler found is not an error (env->cxx is then
 * "c++", for a command that is only printed).  Returns TRY_ENV_READY, or
 * what is missing: TRY_ENV_NO_HOST_LAYER (env->own_host, when not NULL,
 * is the folder looked at, for the caller's message), TRY_ENV_NO_FLAGS
 * (try_read_flags has said why), TRY_ENV_NO_CXX; prints nothing else.
 * mps-try's options and mps-migrate's defaults both come here.  Release
 * with try_env_free (after a failure too). */
enum { TRY_ENV_READY, TRY_ENV_NO_HOST_LAYER, TRY_ENV_NO_FLAGS, TRY_ENV_NO_CXX };
int try_env_setup(struct try_env *env, const char *argv0, const char *host,
                  const char *cxx, const char *python, int need_cxx);

/* try_env_default: try_env_setup without options (the environment mps-try
 * chooses when given none), for another tool: mps-migrate tries its
 * translated functors with it.  Returns 0, or -1 with *WHY (a constant
 * phrase, "no C++ compiler found") when something is missing.  Release
 * with try_env_free (after a failure too). */
int try_env_default(struct try_env *env, const char *argv0, const char **why);

void try_env_free(struct try_env *env);

#define TRY_SHOWN 5

/* ---- which inputs count (trysample.c) ----
 *
 * The verdict follows what PyTorch's own MPS tests would see:
 * test_mps.py's test_output_match compares the CPU and MPS results of an
 * OpInfo's sample inputs, test_numpy_ref_mps its reference inputs.  Each
 * input element of a case falls in one class of try_class_rules; the
 * mismatches of the classes marked sampled decide the exit status, the
 * others are shown apart ("beyond what the tests sample") and count only
 * with --strict.  The rules, and where each is read (PyTorch files read,
 * not copied), are in the table in trysample.c. */
enum try_class {
	TRY_SAMPLED,          /* make_tensor's range, the small values */
	TRY_SAMPLED_LARGE,    /* the large values */
	TRY_SAMPLED_EXTREMAL, /* NaN, inf, -inf against themselves */
	TRY_SIGNALING_NAN,
	TRY_SUBNORMAL,
	TRY_TINY,             /* nonzero magnitudes under 0.001 that no list
	                         picks: make_tensor's uniform draws
	                         practically never give them */
	TRY_PAST_RANGE,       /* finite values past the sampled ones:
	                         overflow edges, dtype extremes, shift counts
	                         past the width */
	TRY_MIXED,            /* operands from different sampled sets: a
	                         finite value against NaN or an infinity,
	                         one from the range against a large one, a
	                         floating zero against a drawn value */
	TRY_COMPLEX_NONFINITE,/* a complex value with an infinite or NaN
	                         component, as the tests do not make it */
	TRY_OPINFO_OUTSIDE,   /* what OP's OpInfo keeps out of its samples:
	                         values outside its domain, large values when
	                         it does not handle large floats */
	TRY_DTYPE_UNTESTED,   /* the whole case: a dtype the tests do not run */
	TRY_NCLASS
};

struct try_class_rule {
	int cls;                  /* enum try_class */
	int sampled;              /* counts without --strict */
	const char *name;         /* short name (report, JSON) */
	const char *what;         /* which inputs */
	const char *source;       /* where PyTorch says so */
};

/* The table, TRY_NCLASS rows in enum order. */
extern const struct try_class_rule try_class_rules[TRY_NCLASS];

/* try_case_class: TRY_DTYPE_UNTESTED when PyTorch's MPS tests do not run
 * dtype IN at all (complex32: test_mps.py's MPS_DTYPES leave it out),
 * else TRY_SAMPLED. */
int try_case_class(const char *in);

/* try_plan_case_class: as try_case_class for registration REG of PL, and
 * TRY_DTYPE_UNTESTED also when PL->untested says so. */
int try_plan_case_class(const struct try_plan *pl, size_t reg);

/* try_test_lists: fill PL->untested (one per registration) from the
 * checkout ROOT's test lists as hostscan reads them (common_mps.py, or
 * test_mps.py in older trees): a registration's IN dtype is not compared
 * for OP when an entry naming OP (hs_xfail_names_op: the OpInfo name, its
 * nn.functional. / dotted forms) in a list of the forward test
 * (mps_ops_modifier: names holding XFAIL or SKIP, neither GRAD, SPARSE
 * nor MACOS, the dict entries before `def mps_ops_grad_modifier`) lists
 * it or says None (every dtype); or, complex64, when the file has a
 * SUPPORTED_COMPLEX_OPS set and OP is not in it (mps_ops_modifier then
 * expects complex to fail).  Returns 0, or -1 after a diagnostic when a
 * file cannot be read. */
int try_test_lists(struct try_plan *pl, const char *root);


/* try_opinfo_name_is: 1 when the OpInfo name N (L bytes, not
 * NUL-terminated) is operator OP's (its base name): OP itself, or a
 * dotted form whose dots stand for OP's underscores after a known prefix
 * (special.X for special_X, linalg.X, fft.X), or nn.functional.OP. */
int try_opinfo_name_is(const char *n, size_t l, const char *op);

/* ---- test_mps.py's tolerances (trytol.c) ---- */

/* try_test_tolerance: the (atol, rtol) test_mps.py's
 * TestConsistency._compute_tolerances(op, dtype) returns for operator OP
 * (its base name; the OpInfo name matched by try_opinfo_name_is) at Metal
 * dtype DT (the test's dtype: a registration's input), read from TEXT
 * (the file, NUL-terminated).  The method's `if` / `elif` clauses are
 * read in order, the first that holds winning, as in Python; a clause is
 * read when its condition joins with `and` only these conjuncts (each
 * maybe in parentheses): `op.name in self.SET` (SET a class-level set
 * literal `SET = {'a', ...}` of the file), `op.name in ['a', ...]`,
 * `op.name == 'a'`, `dtype in [torch.x, ...]`, `dtype == torch.x`; and
 * its block is one `return (A, B)` or `return (A, B) if dtype == torch.x
 * else (C, D)` (numbers, or None for both).  A clause with another
 * condition (MACOS_VERSION, a variant or sample test, `or`, `not`) or
 * another block is skipped: it depends on the machine or the sample.  A
 * clause or the final return giving (None, None) means torch.testing's
 * defaults.  Returns 1 with *TOL set (set 1, atol, rtol, the clause's
 * line), else 0 with *TOL zeroed (no such method, nothing applies, the
 * defaults); never an error. */
int try_test_tolerance(const char *text, const char *op, const char *dt,
                       struct try_tol *tol);

/* try_test_tolerances: PL->tol (one per registration, calloc'd, freed by
 * try_plan_free) from ROOT/test/test_mps.py (try_test_tolerance of
 * PL->op_base at each registration's IN dtype); no ROOT, no file, an
 * unreadable one: every entry unset. */
void try_test_tolerances(struct try_plan *pl, const char *root);

/* try_opinfo_parse: read into OI the OpInfo entry of OP (its base name:
 * the entry named OP, or the dotted form special.X, nn.functional.X,
 * linalg.X, fft.X of OP = special_X, ...) in TEXT, a Python file of
 * OpInfo entries (a ForeachFuncInfo is the _foreach_ operator's: skipped;
 * so are commented-out lines); FILE is kept in OI->file (copied).  Only literal
 * numbers and None are read as the domain's sides; anything else
 * leaves that domain unread.  The entry's DecorateInfo calls that skip
 * (unittest.skip) or expect to fail (unittest.expectedFailure) a
 * reference-numerics test of large or extremal values set the dtypes of
 * their dtypes= (all when absent) in OI->untested_large/_extremal, when
 * they have no device_type= or device_type='mps' and no active_if= or one
 * that holds on macOS (names IS_MACOS, with no 'and' or 'not'): a
 * device-specific skip leaves the test on the other devices.  A skip
 * naming no test class skips every test of the entry (both masks); a
 * skip or expected failure of TestCommon's test_compare_cpu counts for
 * an entry without ref= (or ref=None): TestUnaryUfuncs and
 * TestBinaryUfuncs run their reference tests only on entries with a ref,
 * and test_compare_cpu is the other test of the reference inputs.
 * OI->untested_line: the first such DecorateInfo's line (the entry's
 * when only test_compare_cpu's counts).  Returns 1
 * found, 0 not (OI zeroed, the defaults set). */
int try_opinfo_parse(struct try_opinfo *oi, const char *text, const char *file,
                     const char *op);

/* try_opinfo_load: the OpInfo of OP (of X when OP is X_backward and
 * has no entry of its own: the gradient tests differentiate X's samples;
 * OI->forward set) from the first file that has it:
 * ROOT/torch/testing/_internal/common_methods_invocations.py and
 * ROOT/torch/testing/_internal/opinfo/definitions/{special,linalg,fft}.py
 * (the checkout's), then the same files under TORCH_DIR (the reference
 * torch's package folder; NULL: not looked at).  Returns 1 found, 0 not
 * (unreadable files are skipped: the verdict then uses the generic
 * rules). */
int try_opinfo_load(struct try_opinfo *oi, const char *root, const char *torch_dir,
                    const char *op);

void try_opinfo_free(struct try_opinfo *oi);

/* try_opinfo_dtypes: the Metal dtype tokens of try_opinfo's untested_*
 * masks, NULL-terminated; token K has bit 1u << K. */
extern const char *const try_opinfo_dtypes[];
#define TRY_OPINFO_ALL_DTYPES 0x7ffu /* every token's bit */

/* try_opinfo_dtype_bit: the bit of Metal dtype token DT (float, half,
 * bfloat, long, int, short, char, uchar, bool, float2, half2) in
 * try_opinfo's untested_* masks; 0 for any other token. */
unsigned try_opinfo_dtype_bit(const char *dt);

/* try_classify: the class of input element I of a case of registration
 * REG of operator OP (its base name): A (and B for a binary kernel, else
 * NULL) in REG->in's layout (try_dtype_size).  A binary element is
 * sampled when both operands come from the same sampled set (the tests
 * cross range values with range values, large with large, extremal with
 * extremal), or, for the comparison and logical operators, a range value
 * against an extremal one; a floating zero (a complex value of zeros) against
 * a value with a component no list picks is TRY_MIXED, a nonzero value or
 * component under 0.001 TRY_TINY.  OI (NULL: none read): a unary element outside
 * the OpInfo's domain, a large one when it does not handle large floats,
 * and a large or extremal one of a unary kernel whose OpInfo is a
 * BinaryUfuncInfo (pow.Tensor_Scalar: the tensor-with-scalar samples
 * draw the tensor from make_tensor's range) is TRY_OPINFO_OUTSIDE, and
 * so is a binary element whose second operand is zero (either sign, a
 * complex 0) when OI's rhs_nonzero is set. */
int try_classify(const struct try_reg *reg, const char *op, const struct try_opinfo *oi,
                 const unsigned char *a, const unsigned char *b, size_t i);

/* try_picked_values: the values PyTorch's reference inputs pick by hand
 * for dtype DT that make_tensor's range does not already hold (small
 * values it lacks: +-0.001, pi and pi +- 1e-5; integers +-55, +-127,
 * -128; uint8's list; the large values), as doubles into OUT (at most
 * CAP); returns how many.  try_inputs adds them to the edge values. */
size_t try_picked_values(const char *dt, double *out, size_t cap);

/* try_checkout_version: the first line of ROOT/version.txt, blanks
 * trimmed (malloc'd), or NULL when there is none (real trees of 2.14.1
 * have none). */
char *try_checkout_version(const char *root);

/* try_version_older: 1 when version text A ("1.13.0a0") is older than B
 * ("2.14.1"), compared as dotted numbers (a suffix after the digits is
 * ignored); 0 when not or when either cannot be read. */
int try_version_older(const char *a, const char *b);

/* A mismatch shown in the report: input(s), ours, the CPU's (text). */
struct try_miss {
	size_t index;
	int cls;                  /* its input class (enum try_class) */
	char a[64], b[64], ours[64], cpu[64];
};

/* The outcome of one case. */
struct try_result {
	int compiled;             /* the harness with this registration built */
	char *compile_msg;        /* the compiler's first errors, when not */
	int fallback;             /* the functor was called directly */
	unsigned long overload;   /* line of the operator() chosen, 0 unknown */
	int ran;                  /* the harness ran to the end */
	char *run_error;          /* why it did not (time limit, signal) */
	int run_sampled;          /* the harness ran past its time limit on
	                             every input and was run again on the
	                             sampled ones (DIR/rR.sel): the others are
	                             not compared */
	int reference;            /* a CPU result was compared */
	char *ref_dtype;          /* the CPU result's dtype ("float16") */
	char *ref_note;           /* how it was computed, when not plainly */
	char *ref_error;          /* the CPU refused: its message */
	int ref_killed;           /* the reference ran past its time limit,
	                             died of a signal or failed as a whole
	                             (the script's own error, not the CPU
	                             refusing the case): nothing was
	                             compared, so the status is 1, never a
	                             silent 0 */
	int f64;                  /* no torch: the float64 evaluation compared */
	size_t trapped;           /* inputs whose call trapped under the host
	                             layer's metal_host::guard (an integer
	                             division by zero or MIN / -1: undefined on
	                             the GPU): not compared */
	size_t n, compared, mismatches; /* mismatches: on inputs PyTorch's
	                             tests sample (try_class_rules), the ones
	                             the verdict counts without --strict */
	size_t sampled;           /* compared inputs the tests sample */
	size_t beyond;            /* mismatches on the other inputs */
	size_t beyond_by[TRY_NCLASS]; /* those per input class */
	struct try_miss bshown[TRY_SHOWN]; /* the first of them, at most two
	                             per class */
	size_t nbshown;
	int case_class;           /* TRY_SAMPLED, or the class that puts the
	                             whole case beyond (TRY_DTYPE_UNTESTED) */
	int upcast;               /* the reference computed in float32 (or
	                             complex64): the reference torch has no
	                             kernel for the dtype */
	size_t gross;             /* mismatches rounding cannot explain:
	                             integers that differ, NaN or inf on one
	                             side only, opposite signs, a relative
	                             error over 1e-3 or 10 x rtol (half: 1e-2,
	                             bfloat: 0.16); the others are within
	                             what contraction into fma, cancellation
	                             or the host's libm can make of a right
	                             formula */
	double max_abs, max_rel, max_ulp;
	double atol, rtol;
	char *tol_source;         /* "test/test_mps.py:LINE" when atol or rtol
	                             is test_mps.py's (try_test_tolerance),
	                             else NULL (torch.testing's defaults, or
	                             --atol and --rtol) */
	struct try_miss shown[TRY_SHOWN];
	size_t nshown;
	int verdict;              /* 0 match, 1 mismatch (counted: sampled
	                             inputs, or any with --strict), 2 not
	                             compared */
	char **kernels;           /* the kernel names the harness ran for this
	                             case (try_reg.run): the first compared
	                             with the CPU, the others with the first */
	size_t nkernels;
	long *kdiffer;            /* per kernel: elements whose bytes differ
	                             from the first kernel's (the first: 0);
	                             -1 not compared (an input trapped).  Any
	                             above 0 makes the verdict a mismatch */
};

/* The outcome of a run. */
struct try_outcome {
	struct try_result *res;   /* one per case of the plan */
	int no_torch;             /* no candidate python imports torch */
	char *torch_version;      /* of the one used, or NULL */
	char *python;             /* the python used, or NULL */
	char *python_path;        /* its path (PATH looked up), or NULL */
	int strict;               /* env->strict, as the run counted */
	int reference_older;      /* torch_version is older than the plan's
	                             checkout_version */
	char *fallback_why;       /* why the dense path was not used, or NULL */
	char *f64_msg;            /* no torch: why the float64 evaluation did
	                             not build, or NULL */
	int metal_compiled;       /* --device mps: xcrun metal compiled the
	                             .metal file */
	struct try_opinfo opinfo; /* OP's OpInfo (try_opinfo_load: the
	                             checkout's, else the reference torch's) */
	int status;               /* 0 every case matches, 1 a mismatch or a
	                             compile error of the functor */
};

/* try_tolerance: PyTorch's default (rtol, atol) for comparing a result of
 * Metal dtype DT, as torch/testing/_comparison.py's _DTYPE_PRECISIONS
 * (which test_mps.py's test_output_match uses unless an op is in its
 * low-precision lists): half and half2 (1e-3, 1e-5), bfloat (1.6e-2,
 * 1e-5), float and float2 (1.3e-6, 1e-5); integers and bool exact. */
void try_tolerance(const char *dt, double *rtol, double *atol);

/* try_run: write the plan's files into a private temporary folder
 * (tmp_make("mps-try"); folders of dead runs swept first; the programs'
 * $TMPDIR), start the reference, compile, run the harness, compare,
 * remove the folder.  With env->device_mps (macOS; the caller checks):
 * the reference first (to know the python that imports torch), then
 * env->xcrun on the .metal file (try_metal_args; its errors are each
 * case's compile error), then the registrations through
 * torch.mps.compile_shader (try_mps_script), compared the same way.
 * Fills *out (try_outcome_free).  Returns 0, or -1 after a diagnostic
 * when the folder cannot be made or written, or the compiler cannot be
 * run at all (exit 2). */
int try_run(const struct try_plan *pl, const struct try_env *env,
            struct try_outcome *out);

void try_outcome_free(const struct try_plan *pl, struct try_outcome *out);

/* try_default_host_layer: the host layer shipped beside the running
 * program, BIN/../metal-host where BIN is the folder of the binary ARGV0
 * names (found as mps-doctor finds "this build", setup_self); malloc'd,
 * or NULL when it cannot be told. */
char *try_default_host_layer(const char *argv0);

/* try_find_cxx: the C++ compiler's path: GIVEN (--cxx) looked up as
 * execvp would, else the first found of $CXX (a single word), c++,
 * clang++, g++.  Malloc'd, or NULL when none is found. */
char *try_find_cxx(const char *given);

/* try_pythons: the reference's python candidates, in the order tried:
 * GIVEN (--python) alone, else "python3" (looked up in PATH when run) and
 * /usr/bin/python3 unless python3 is that file.  OUT: NULL-terminated,
 * pointers to GIVEN or to constants. */
void try_pythons(const char *given, const char *out[3]);

/* try_read_flags: the arguments of the host layer's DIR/FLAGS, as its
 * contract says: one per line, leading and trailing blanks not part of
 * it, empty lines and lines starting with '#' skipped.  *flags (malloc'd,
 * lex_strv_free(*flags, *n)).  Returns 0, or -1 after a diagnostic when
 * the file cannot be read. */
int try_read_flags(const char *dir, char ***flags, size_t *n);

/* The optimisation level of the harness when FLAGS names none: -O0, as
 * the harness runs each element once (measured on main's BinaryKernel,
 * atan2's 9 registrations: -O1 compiles in 2.1-2.5 s, -O0 in 1.2-1.3 s,
 * and the run takes as long either way). */
#define TRY_OPT "-O0"

/* try_cxx_args: the compiler's argv (malloc'd array and strings, NULL-
 * terminated; free with lex_strv_free(v, n) and the count in *n) for
 * the harness source SRC into OUT, in MODE (try_harness), the harness
 * folder TMP, as the host layer's contract says: CXX, the FLAGS lines,
 * TRY_OPT (unless FLAGS has a -O), -I<layer> -I<TMP> -I<TMP>/aten/src,
 * -DMK_MODE=MODE.  SYNTAX: -fsyntax-only; ONLY >= 0: that registration
 * alone. */
char **try_cxx_args(const struct try_env *env, const char *tmp,
                    const char *src, const char *out, int mode, int syntax,
                    long only, size_t *n);

/* try_metal_args: the argv (malloc'd, NULL-terminated; lex_strv_free(v,
 * *n)) of the real Metal compiler for the .metal file METAL_REL of the
 * checkout ROOT into OUT, as PyTorch's build compiles its kernels
 * (cmake/Metal.cmake: `xcrun metal -c SRC -I ROOT -I ROOT/aten/src -o OUT`
 * with -Wall -Wextra -fno-fast-math, and -std=metal3.1 as
 * aten/src/ATen/CMakeLists.txt passes for the bfloat kernels): XCRUN -sdk
 * macosx metal -std=metal3.1 -Wall -Wextra -fno-fast-math -I ROOT -I
 * ROOT/aten/src -c ROOT/METAL_REL -o OUT. */
char **try_metal_args(const char *xcrun, const char *root, const char *metal_rel,
                      const char *out, size_t *n);

/* try_report_text / try_report_json: the report of a run (text to F;
 * JSON: one object per registration, with its cases, each line a JSON
 * Lines record). */
void try_report_text(FILE *f, const struct try_plan *pl,
                     const struct try_outcome *out);
void try_report_json(FILE *f, const struct try_plan *pl,
                     const struct try_outcome *out);

/* try_mps_script: the --device mps script (malloc'd), mps.py: run as
 * `python3 -I -B mps.py DIR`, it compiles DIR/kernel.metal (try_mps_source)
 * with torch.mps.compile_shader, runs each case's dense kernel on the
 * same input files and writes DIR/cK.out, as the harness does; the
 * source is also shown in its trailing comment. */
char *try_mps_script(const struct try_plan *pl);

/* try_mps_source: the single Metal source the --device mps path compiles
 * (malloc'd): the checkout's text, not rewritten (the GPU needs
 * [[host_name]]); the headers inlined, each after those it includes,
 * under #line 1 "REL", with the #include lines naming them blanked
 * (compile_shader would embed the installed torch's copy), then the kept
 * part of the kernel file and the registrations under their #line. */
char *try_mps_source(const struct try_plan *pl);

#endif
