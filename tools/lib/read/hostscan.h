/* hostscan.h — a model of the MPS host and kernel sources of a PyTorch
 * checkout, built by reading and scanning every file once: what is
 * MPS-specific (MPSGraph use, stub registrations, kernel names, Metal
 * registrations and functors, the tests' expected-failure lists) on top
 * of the C++ model's structure parser.
 *
 * Layer: read/.  May call base/, edit/ and read/ (calls base/ and read/
 * cppmodel, metalreg).
 *
 * What it reads (paths relative to the root; cli.h names them):
 *   MPS_DIR_REL/...     host files: *.mm, *.h, *.cpp, recursively, except
 *                       the kernels/ folder
 *   MPS_KERNELS_REL/    kernel files: *.metal (and *.h, kept for reference)
 *   COMMON_MPS_REL      the test suite's expected-failure lists, when present;
 *   TEST_MPS_REL        the test file, when present: PyTorch releases before
 *                       the lists moved (e.g. 1.13 and 2.6) keep them there,
 *                       and a tree may have both
 *   aten/src/ATen/native/NAME.h  DECLARE_DISPATCH lines, only when
 *                       hs_load_decls() is called
 *
 * What it finds (comments and `#if 0` blocks never count: every file goes
 * through mask_code() first; preprocessor lines are not code either, but
 * #define bodies are kept as macros and expanded where they are called;
 * C++ raw strings R"d(...)d" and digit separators 1'000 are read as such,
 * and a stray token before `namespace x {` or `extern "C" {` does not
 * hide the scope):
 *   - function definitions in host code, found by the C++ model's
 *     structure parser (cppmodel.h cs_parse_scope: the same rules as for
 *     ATen's sources; `TORCH_IMPL_FUNC(x)(...) {`, `Tensor& x(...) {`,
 *     templates, members of structs, and those a function-like macro of
 *     the host files generates, e.g. `CREATE_MPS_..._FUNC(x_out_mps,
 *     ...)`; operator() is named "operator"), each with
 *     whether its body builds an MPSGraph: directly (MPSGraph, mpsGraph,
 *     LookUpOrCreateCachedGraph, runMPSGraph, *CachedGraph, MPSGraphTensor,
 *     unary_op(, unary_op_noresize(, binaryOpTensor(, binaryOpScalar(,
 *     binaryOp##) or by calling a host function or macro that does;
 *   - stub registrations REGISTER_DISPATCH / REGISTER_MPS_DISPATCH(stub, fn),
 *     also those a wrapper macro such as REGISTER_UNARY_TI_DISPATCH(NAME)
 *     expands to (read from its #define; a built-in definition is used when
 *     no host file defines that macro);
 *   - kernel-name requests exec_unary_kernel(x, "NAME"...) /
 *     exec_binary_kernel(x, "NAME"...), also inside macro expansions,
 *     with the scalar after the name and its dtype argument
 *     (exec_unary_kernel(iter, "round_decimals", Scalar(decimals),
 *     ScalarType::Long)); the literals host code appends to a name it
 *     builds (op_name + "_alpha");
 *   - `#include <ATen/ops/X_native.h>` lines;
 *   - .metal registrations through metalreg.h (REGISTER_UNARY_OP and
 *     friends, file-local helper macros expanded from their #define), and
 *     raw `host_name("prefix...")` kernel names;
 *   - functors `struct NAME_functor { ... }` of the kernel files: whether
 *     the body still holds mps-register's placeholder marker, and whether
 *     every operator() is limited to floating-point or complex types;
 *   - entries of the xfail/skip lists: in common_mps.py, variables whose
 *     name holds "xfail" or "skip" (any case); in test_mps.py, upper-case
 *     names holding XFAIL, SKIP or BLOCKLIST (1.13's BLOCKLIST; 2.6's
 *     UNIMPLEMENTED_XFAILLIST, SKIPLIST, ...), so that local variables of
 *     the tests do not count.  Each assigned a dict, set, list or tuple
 *     literal (`=`, `|=`, `+=`, or an annotated assignment written as a
 *     statement of its own line, `NAME: dict[str, list | None] = {`, as
 *     2.14.1 writes four of its lists) or extended with `.update(`; the
 *     entries are the quoted strings at the literal's first level
 *     followed by `:`, `,` or its end, the literal spanning any number of
 *     lines.  Comments are not read.
 *
 * Locations are byte offsets into a file's text; for things a macro call
 * produces, the offset of the macro call.  Errors: hs_load prints
 * "prog: cannot open 'PATH': REASON" and returns -1 when a folder or file
 * that exists cannot be read, and "prog: error: 'PATH' is not a text file
 * (it holds a NUL byte)" when a file it reads holds a NUL byte (the
 * wording of mps-register); missing folders are simply empty.
 * hs_load_decls likewise.
 */
#ifndef MK_HOSTSCAN_H
#define MK_HOSTSCAN_H

#include <stddef.h>

/* The test file that held the expected-failure lists before
 * COMMON_MPS_REL existed. */
#define TEST_MPS_REL "test/test_mps.py"

enum hs_kind { HS_HOST, HS_KERNEL, HS_PYTHON, HS_DECL };

struct hs_file {
	char *rel;    /* path relative to the root (owned) */
	char *text;   /* the file, NUL-terminated (owned) */
	size_t len;
	int kind;     /* enum hs_kind */
};

/* A place: file index into hs_model.files, byte offset in its text. */
struct hs_where {
	size_t file;
	size_t off;
};

struct hs_def {               /* a function definition in host code */
	char *name;               /* unqualified name ("sqrt_out_mps") */
	struct hs_where at;       /* the name, or the generating macro call */
	char *macro;              /* macro that generated it, or NULL */
	int graph;                /* body builds an MPSGraph (transitively) */
	char *why;                /* the MPSGraph marker seen, or "NAME()"
	                             of the host callee that builds one */
	char **calls;             /* identifiers called in the body (owned),
	                             "Q::name" when written qualified */
	size_t ncalls;
	int impl;                 /* written TORCH_IMPL_FUNC(name)(...) { }: the
	                             body of a structured kernel class that
	                             torchgen generates only for a kernel name
	                             some dispatch row gives */
	size_t ext_start, ext_end;/* the definition as written in file at.file:
	                             bytes [ext_start, ext_end) run from the
	                             first byte of its header (`template`,
	                             `static`, the return type or
	                             TORCH_IMPL_FUNC; after the `;`, `}` or
	                             directive that ends what comes before) to
	                             just past its closing '}' (the end of the
	                             file when unbalanced).  For a definition a
	                             macro call produces: the outermost call
	                             written in the file, from the macro's name
	                             to past its ')' and a ';' that follows it.
	                             Comments above it are not included. */
};

struct hs_reg {               /* REGISTER_DISPATCH(stub, fn) */
	char *stub;               /* "sqrt_stub" */
	char *fn;                 /* registered function, unqualified, '&'
	                             removed */
	char *macro;              /* wrapper macro that produced it, or NULL */
	struct hs_where at;
	long def;                 /* index of fn's definition, -1 unknown */
};

struct hs_req {               /* exec_unary_kernel(iter, "NAME") */
	char *kernel;             /* "NAME" */
	int binary;               /* exec_binary_kernel */
	int ternary;              /* exec_ternary_kernel (PyTorch 2.14.1's
	                             MetalShaderLibrary.h) */
	char **args;              /* the arguments after NAME as written
	                             (masked: no comments; trimmed), e.g.
	                             {"Scalar(decimals)", "ScalarType::Long"}
	                             (owned) */
	size_t nargs;
	int scalar;               /* a scalar follows: the kernels asked are
	                             NAME_dense_OUT_IN_ALPHA (the -alpha
	                             macros' names) */
	char *scalar_dtype;       /* the Metal token of the dtype argument
	                             after it (ScalarType::Float, kInt, ...;
	                             as OperationUtils.mm's exec_*_kernel take
	                             it), "?" when it is not a dtype literal,
	                             NULL when there is none: the alpha is
	                             then the iterator's common dtype */
	char *macro;              /* macro whose expansion asks, or NULL */
	struct hs_where at;
	long in_def;              /* definition whose body asks, -1 none */
};

struct hs_include {           /* #include <ATen/ops/X_native.h> */
	char *op;                 /* "X" */
	struct hs_where at;       /* the '#' */
};

struct hs_metal {             /* one .metal registration (per dtype) */
	char *name;               /* kernel NAME ("sqrt") */
	char *in;                 /* input dtype token as written ("half") */
	char *out;                /* output dtype token */
	char *alpha;              /* the scalar's dtype token of an -alpha
	                             macro, NULL for the others */
	char *kernel;             /* its dense kernel ("sqrt_dense_float_half"):
	                             the "dense" variant its macro's #define
	                             instantiates, else the first, else (no
	                             #define in ROOT/c10/metal) NAME_dense_OUT_IN */
	char *macro;              /* the core macro ("REGISTER_UNARY_OP") */
	char **kernels;           /* every kernel name it instantiates, read
	                             from the macro's #define in the
	                             checkout's c10/metal headers (metalreg
	                             mr_instantiate: 8 for 2.14.1's
	                             REGISTER_UNARY_OP); NULL, 0 when the
	                             checkout has no #define of it */
	size_t nkernels;
	char *call;               /* the core call, "REGISTER_UNARY_OP(sqrt,
	                             half, float)" */
	char *via;                /* helper macro written in the file, or NULL */
	struct hs_where at;       /* the call written in the file */
};

struct hs_rawkernel {          /* a Metal kernel of a kernel file written
                                  without the REGISTER_*_OP macros */
	char *name;               /* "frexp_float" or, for a prefix, "fmax_" */
	int prefix;               /* a host_name("fmax_" #T) in a macro: the
	                             literal is only the start of each name */
	int host_name;            /* named by [[host_name("...")]]; else a
	                             plain `kernel void NAME(` (not a template) */
	struct hs_where at;       /* the literal, or NAME */
};

/* The marker mps-register's --functor skeleton writes into each
 * operator() it generates (tools/lib/plan/regplan.c functor_overload:
 * "// TODO(mps-register): the math of NAME for ... inputs goes here"). */
#define HS_PLACEHOLDER "TODO(mps-register)"

struct hs_functor {           /* struct NAME_functor { ... } in a kernel file */
	char *name;               /* "i0_functor" */
	char *kernel;             /* the kernel NAME it serves: "i0" */
	struct hs_where at;       /* the name after `struct` */
	int placeholder;          /* the body holds HS_PLACEHOLDER (in code or
	                             a comment) */
	struct hs_where marker;   /* its first occurrence, when placeholder */
	int no_integral;          /* the body declares operator() and every
	                             one is a template whose header names only
	                             is_scalar_floating_point_v,
	                             is_floating_point_v or is_complex_v (no
	                             '!'): integral inputs have no overload.
	                             0 when unsure (a plain operator(), an
	                             unconstrained template, another trait) */
	char *limits;             /* when no_integral: those traits as written,
	                             ", "-joined, first seen first */
};

struct hs_xfail {             /* an entry of an xfail / skip list */
	char *key;                /* the OpInfo name as written */
	char *list;               /* the list's variable name */
	struct hs_where at;       /* the string's opening quote */
	size_t end;               /* just past the entry in file at.file: past
	                             the closing quote of a set, list or tuple
	                             item; for a dict entry `"k": value`, past
	                             the value's last character (a value may
	                             span lines).  The ',' that may follow is
	                             not included. */
	int dict;                 /* a dict entry (a ':' follows the key) */
};

/* hs_xfail_names_op: 1 when the xfail key KEY (an OpInfo name) names
 * operator OP (a base name): KEY is OP, or "nn.functional." + OP, or
 * KEY with its dots made '_' is OP ("special.i0e" names special_i0e).
 * The exact forms only; hs_xfail_op also reads variant names. */
int hs_xfail_names_op(const char *key, const char *op);

/* hs_xfail_op: the operator an xfail key KEY names, given IS_OP(name,
 * prefix, arg): with PREFIX 0, 1 when name is an operator's base name;
 * with PREFIX 1, 1 when some operator's base name starts with name.  KEY is an OpInfo name
 * (issue #25; the test suite's keys, checked on 2.14.1's common_mps.py),
 * written as is ("neg"), or with a namespace: "nn.functional." + OP,
 * "special." / "linalg." / "fft." + the rest of "special_..." ... ("special.i0e"
 * names special_i0e); or any key with its dots made '_' when that is an
 * operator.  Else KEY is such a name followed directly by a variant name
 * (OpInfo's variant_test_name: "scatter_reduceamax", "divno_rounding_mode",
 * "linalg.normsubgradients_at_zero"): the longest start of the undotted
 * form (at least 3 characters, at least one after the namespace) that is
 * an operator, "_" after it being its in-place form ("resize_"); the
 * variant starts with a letter ("max_unpool1d", "svd_lowrank",
 * "nn.functional.dropout2d" are not max, svd, dropout + a variant), and
 * when the start ends inside a word that operators continue with '_'
 * ("multilabel_soft_margin_loss": multilabel_margin_loss) it is another
 * OpInfo name, not mul + a variant.  A key of another dotted namespace ("signal.windows.hann",
 * "masked.amax") is an OpInfo name of its own: never an operator plus a
 * variant (it used to read as "sign" + "al_windows_hann").  malloc'd
 * (caller frees); NULL when none.  The rule of mps-verify's
 * xfail-leftover and of the entries mps-migrate deletes. */
char *hs_xfail_op(const char *key,
                  int (*is_op)(const char *name, int prefix, void *arg),
                  void *arg);

struct hs_decl {              /* DECLARE_DISPATCH(type, stub) */
	char *stub;
	struct hs_where at;
};

struct hs_model {
	char *root;
	struct hs_file *files;  size_t nfiles;
	struct hs_def *defs;    size_t ndefs;
	struct hs_reg *regs;    size_t nregs;
	struct hs_req *reqs;    size_t nreqs;
	struct hs_include *incs; size_t nincs;
	struct hs_metal *metals; size_t nmetals;
	struct hs_rawkernel *raws; size_t nraws;   /* kernels not made by the
	                                              REGISTER_* macros */
	struct hs_xfail *xfails; size_t nxfails;
	struct hs_decl *decls;  size_t ndecls;
	struct hs_functor *functors; size_t nfunctors;
	int have_common_mps;    /* COMMON_MPS_REL exists (its lists were read) */
	int have_test_mps;      /* TEST_MPS_REL exists (its lists were read) */
	int decls_loaded;
	void *priv;             /* private indexes */
};

/* hs_load: read and scan every host, kernel and test-list file under
 * root (see the top of this file) into m (zeroed by hs_load).  Returns 0,
 * or -1 after a diagnostic (m released).  m is owned by the caller:
 * hs_free().  A PCRE2 match error exits 2 (scan.h re_match). */
int hs_load(struct hs_model *m, const char *root);

/* hs_load_decls: also read the headers aten/src/ATen/native/NAME.h (not recursive) for
 * DECLARE_DISPATCH stubs, once.  Returns 0, or -1 after a diagnostic. */
int hs_load_decls(struct hs_model *m);

/* hs_defs_named: the indexes of the definitions named NAME, -1 ended;
 * a pointer into m's index (do not free), never NULL. */
const long *hs_defs_named(const struct hs_model *m, const char *name);

/* hs_file_has_ident: 1 when identifier NAME occurs in the code of host
 * file FILE (#include lines excluded, #define bodies included). */
int hs_file_has_ident(const struct hs_model *m, size_t file, const char *name);

/* hs_kernel_registered: 1 when a .metal file registers kernel NAME (a core
 * REGISTER_*_OP call, possibly through a helper, or a raw host_name whose
 * literal starts with "NAME_"), or when NAME is a whole kernel name a
 * registration instantiates (hs_kernel_produced). */
int hs_kernel_registered(const struct hs_model *m, const char *name);

/* hs_kernel_requested: 1 when host code asks for kernel NAME
 * (hs_req) or holds the string literal "NAME". */
int hs_kernel_requested(const struct hs_model *m, const char *name);

/* hs_metal_variants: the kernel names registration K would instantiate
 * with ALPHA as its alpha dtype (NULL: K's own), read from its macro's
 * #define as hs_metal.kernels are: *names malloc'd (lex_strv_free), the
 * count returned; 0 and NULL when the checkout has no #define of it. */
size_t hs_metal_variants(const struct hs_model *m, const struct hs_metal *k,
                         const char *alpha, char ***names);

/* hs_kernel_produced: 1 when some registration instantiates the kernel
 * named NAME in full ("neg_strided_float_float"). */
int hs_kernel_produced(const struct hs_model *m, const char *name);

/* hs_kernel_asked: 1 when host code can ask for the Metal kernel NAME
 * (PREFIX: the start of the names of a family of kernels, "fmax_"):
 * exec_*_kernel(iter, "NAME") or a string literal of host code equal to
 * NAME, or the start of it that the host completes with a dtype suffix:
 * a literal L, taken up to its first character that cannot be in an
 * identifier (the '{' of fmt::format("repeat_interleave_{}", t)) and
 * without a trailing '_', such that NAME is L or starts with L + "_"; for
 * a PREFIX also a literal that starts with it (the whole name written
 * out).  Literals of fewer than 2 characters so cut do not count.  Heuristic: a name
 * assembled from pieces that are not literals is not seen (unused-kernel
 * is a warning). */
int hs_kernel_asked(const struct hs_model *m, const char *name, int prefix);

/* hs_kernel_built: 1 when host code builds the kernel name NAME from
 * pieces: NAME is H + S where S is a literal the host appends to a name
 * (written after '+', as op_name + "_alpha", or a format string "{}S")
 * and H is a whole string literal of host code or a kernel name it asks
 * for (add_sub_alpha_kernel(iter, alpha, "add") beside
 * exec_binary_kernel(iter, op_name + "_alpha", alpha): add_alpha is
 * built).  For mps-verify's unused-kernel, with hs_kernel_requested. */
int hs_kernel_built(const struct hs_model *m, const char *name);

/* hs_defined: 1 when some host file defines a function NAME (as
 * hs_defs_named, macro-generated ones included) or #defines a macro
 * NAME. */
int hs_defined(const struct hs_model *m, const char *name);

/* hs_line_col: 1-based line and column of w. */
void hs_line_col(const struct hs_model *m, struct hs_where w,
                 unsigned long *line, unsigned long *col);

void hs_free(struct hs_model *m);

/* ---- a small string → long map, used by the model and by tools ---- */

struct hs_map {
	char **keys;
	long *vals;
	size_t cap, n;
};

/* hs_map_get: the value stored for key, or -1.  hs_map_put: store (key
 * copied; an existing key's value is replaced). */
long hs_map_get(const struct hs_map *mp, const char *key);
void hs_map_put(struct hs_map *mp, const char *key, long val);
/* hs_map_has_prefix: 1 when some key of mp starts with START (a scan of
 * every key). */
int hs_map_has_prefix(const struct hs_map *mp, const char *start);
void hs_map_free(struct hs_map *mp);

#endif
