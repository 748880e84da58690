/* metalreg.h — the registration macros of PyTorch's native Metal kernels,
 * as found in aten/src/ATen/native/mps/kernels/ (*.metal files) (PyTorch main,
 * c10/metal): the Metal dtype tokens, the core REGISTER_*_OP macros and
 * their argument order, the kernel names they produce, the dtype presets
 * of mps-register, and a parser for the REGISTER_* calls of a file and
 * for the file-local helper #defines that wrap them.
 *
 * Shared by mps-register (writes registrations) and anything that needs to
 * know which kernels a .metal file registers (mps-verify).
 *
 * Source of the rules (GUIDE.md "Facts about the real trees"):
 *   REGISTER_UNARY_OP(NAME, IN, OUT)            kernels NAME_dense_OUT_IN,
 *   REGISTER_BINARY_OP(NAME, IN, OUT)           NAME_strided_OUT_IN
 *   REGISTER_OPMATH_BINARY_OP(NAME, IN, OUT)    (same names as BINARY)
 *   REGISTER_UNARY_ALPHA_OP(NAME, IN, ALPHA, OUT)  kernels
 *   REGISTER_BINARY_ALPHA_OP(NAME, IN, ALPHA, OUT) NAME_dense_OUT_IN_ALPHA,
 *                                                  NAME_strided_OUT_IN_ALPHA
 * Input dtype first, output last.  File-local helpers may reorder: a
 * helper's own #define is read and expanded, never guessed from its name.
 *
 * Layer: read/.  May call base/, edit/ and read/ (calls base/ diag, scan).
 */
#ifndef MK_METALREG_H
#define MK_METALREG_H

#include <stddef.h>

#include "base/lex.h"

/* The kinds of registration mps-register writes. */
enum mr_kind {
	MR_UNARY = 0,
	MR_UNARY_ALPHA,
	MR_BINARY,
	MR_BINARY_ALPHA,
	MR_TERNARY,
	MR_TERNARY_ALPHA,
	MR_BINARY_PARAMS       /* two tensors and a struct of scalars: a
	                          file-local helper per kernel typedefs
	                          NAMEParams<float> (the struct, in the kernel
	                          file's header) as NAMEParams_T and calls
	                          REGISTER_BINARY_ALPHA_OP(NAME, T,
	                          NAMEParams_T, T); the host hands the struct
	                          to exec_binary_kernel_with_params (PyTorch
	                          main's elu_backward, hardtanh_backward) */
};
#define MR_NKINDS 7

/* mr_kind_parse: "unary", "unary-alpha", "binary", "binary-alpha",
 * "ternary", "ternary-alpha", "binary-params" → kind; -1 for anything
 * else. */
int mr_kind_parse(const char *s);

/* mr_kind_name: the command-line spelling of k ("unary", ...). */
const char *mr_kind_name(int k);

/* mr_kind_macro: the core macro mps-register writes for k
 * ("REGISTER_UNARY_OP", "REGISTER_UNARY_ALPHA_OP", "REGISTER_BINARY_OP",
 * "REGISTER_BINARY_ALPHA_OP", "REGISTER_TERNARY_OP",
 * "REGISTER_TERNARY_ALPHA_OP"). */
const char *mr_kind_macro(int k);

/* mr_kind_opmath_macro: the opmath form of k's macro, whose kernels
 * compute in opmath_t<IN> (half and bfloat in float): "REGISTER_OPMATH_
 * BINARY_OP", "REGISTER_OPMATH_TERNARY_OP", "REGISTER_OPMATH_TERNARY_
 * ALPHA_OP" (PyTorch main's PointwiseOps.metal); NULL for the others. */
const char *mr_kind_opmath_macro(int k);

/* mr_kind_alpha: 1 when k's macro takes an ALPHA dtype given as a Metal
 * dtype (the -alpha kinds; not binary-params, whose ALPHA is its struct). */
int mr_kind_alpha(int k);

/* mr_kind_arity: the tensor inputs of k's functor: 1 (unary kinds), 2
 * (binary), 3 (ternary: PyTorch 2.14.1's REGISTER_TERNARY_OP, whose
 * functor takes (a, b, c)). */
int mr_kind_arity(int k);

/* mr_kind_of: the kind of ARITY (1..3) tensors, with an alpha scalar or
 * not; -1 for another arity. */
int mr_kind_of(int arity, int alpha);

/* mr_kind_params: 1 when k hands its scalars over as a struct
 * (MR_BINARY_PARAMS). */
int mr_kind_params(int k);

/* mr_params_struct: the struct template of kernel NAME's scalars,
 * NAME in CamelCase plus "Params" ("hardtanh_backward" →
 * "HardtanhBackwardParams", as main names ELUBackwardParams); malloc'd. */
char *mr_params_struct(const char *name);

/* mr_params_helper: the file-local helper macro registering NAME for one
 * dtype T, "REGISTER_" NAME in upper case "_OP" ("REGISTER_HARDTANH_
 * BACKWARD_OP", as main's REGISTER_ELU_BACKWARD_OP); malloc'd. */
char *mr_params_helper(const char *name);

/* mr_params_alpha: the ALPHA argument of NAME's registration for input
 * dtype IN: the struct's typedef "HardtanhBackwardParams_float"
 * (malloc'd); the kernels are named with it. */
char *mr_params_alpha(const char *name, const char *in);

/* mr_kind_kernel_file, mr_kind_host_file: the files under
 * aten/src/ATen/native/mps/ that hold k's kernels and host stubs in
 * PyTorch main: kernels/UnaryKernel.metal and operations/UnaryKernel.mm
 * (unary kinds), BinaryKernel.* (binary), kernels/PointwiseOps.metal and
 * operations/PointwiseOps.mm (ternary: main's addcmul and addcdiv),
 * kernels/Activation.metal and operations/Activation.mm (binary-params:
 * main keeps its params kernels, elu and hardtanh_backward, there, their
 * structs in kernels/Activation.h).
 * Static strings, relative to the checkout's root. */
const char *mr_kind_kernel_file(int k);
const char *mr_kind_host_file(int k);

/* mr_kind_exec: the MetalShaderLibrary member the host stub of k calls:
 * "exec_unary_kernel", "exec_binary_kernel", "exec_ternary_kernel"
 * (2.14.1's MetalShaderLibrary.h; main's takes the alpha and its dtype
 * as the unary one does), "exec_binary_kernel_with_params" (binary-params:
 * the struct and its typedef's name, 2.14.1's MetalShaderLibrary.h). */
const char *mr_kind_exec(int k);

/* A core macro: where NAME, IN, ALPHA and OUT sit among its arguments. */
struct mr_core {
	const char *macro; /* "REGISTER_UNARY_OP" */
	int kind;          /* the enum mr_kind whose kernels it produces */
	int nargs;         /* argument count */
	int i_in, i_alpha, i_out; /* argument indexes (NAME is 0); -1 none */
};

/* mr_core_find: the core macro spelled s[0..n), or NULL.  Known:
 * REGISTER_UNARY_OP, REGISTER_UNARY_ALPHA_OP, REGISTER_BINARY_OP,
 * REGISTER_OPMATH_BINARY_OP (kind MR_BINARY), REGISTER_BINARY_ALPHA_OP,
 * REGISTER_TERNARY_OP and REGISTER_OPMATH_TERNARY_OP (NAME, IN, OUT:
 * 2.14.1's indexing.h), REGISTER_TERNARY_ALPHA_OP and
 * REGISTER_OPMATH_TERNARY_ALPHA_OP (NAME, IN, ALPHA, OUT: main's
 * PointwiseOps.metal). */
const struct mr_core *mr_core_find(const char *s, size_t n);

/* The Metal dtype tokens, in the order presets list them:
 * float half bfloat long int short char uchar bool float2 half2. */
extern const char *const mr_dtypes[];
extern const size_t mr_ndtypes;

/* mr_dtype: the interned token (an element of mr_dtypes) equal to
 * s[0..n), or NULL when s is not a Metal dtype token. */
const char *mr_dtype(const char *s, size_t n);

/* One registration's dtypes.  Pointers are interned tokens from
 * mr_dtypes (compare with ==) when they come from mr_preset or
 * mr_parse_dtypes; alpha is NULL for kinds without ALPHA. */
struct mr_pair {
	const char *in, *alpha, *out;
};

#define MR_MAX_PAIRS 64

/* mr_preset: fill out[] with the pairs of preset P for kind k and return
 * their count, or -1 when P is unknown.  Presets: float (float, half,
 * bfloat → same), int2float (long, int, short, uchar, char, bool →
 * float), integer (the same six → same), complex (float2, half2 → same),
 * all (float + integer + complex: every dtype to itself).  For alpha
 * kinds ALPHA = IN.  out must hold MR_MAX_PAIRS. */
int mr_preset(const char *p, int k, struct mr_pair *out);

/* mr_parse_dtypes: parse a comma-separated list of IN:OUT pairs (alpha
 * kinds also accept IN:ALPHA:OUT; IN:OUT means ALPHA = IN; a single
 * token T means T:T).  Duplicates are dropped.  Returns the count, or -1
 * with *err set to a malloc'd message (caller frees) on an unknown token,
 * an empty item, too many items, or one input given two outputs. */
int mr_parse_dtypes(const char *list, int k, struct mr_pair *out, char **err);

/* mr_valid_name: 1 when s can be a kernel NAME: a C identifier
 * ([A-Za-z_][A-Za-z0-9_]*), at most 128 bytes.  Checked before any file
 * access. */
int mr_valid_name(const char *s);

/* mr_kernel_name: malloc'd kernel name (caller frees): NAME_VARIANT_OUT_IN
 * plus _ALPHA when p->alpha is set; variant is "dense" or "strided". */
char *mr_kernel_name(const char *name, const char *variant,
                     const struct mr_pair *p);

/* ---- the calls of one file ---- */

/* A macro call: MACRO(arg, ...).  Arguments are stored with every blank
 * (space, tab, newline, line continuation) removed, so differently spaced
 * calls compare equal. */
struct mr_call {
	char *macro;
	char **args;
	size_t nargs;
	size_t start;   /* byte offset of the macro name */
	size_t end;     /* offset after ')' and, when semi, after ';' */
	int semi;       /* 1 when ';' follows ')' on the same line */
};

/* A file-local helper: #define NAME(P1, ...) whose body calls other
 * macros.  Its calls are kept unexpanded; mr_expand() substitutes. */
struct mr_helper {
	char *name;
	char **params;
	size_t nparams;
	struct mr_call *body; /* offsets are within the file */
	size_t nbody;
	size_t start, end;    /* extent of the #define, end after its last line */
};

/* One registration a top-level call produces (after expanding helpers). */
struct mr_reg {
	const struct mr_core *core;
	char *name, *in, *alpha, *out; /* owned; alpha NULL when none */
	size_t call;                   /* index into mr_file.calls */
};

struct mr_file {
	struct mr_helper *helpers;
	size_t nhelpers;
	struct mr_call *calls;  /* top-level calls of core macros and helpers,
	                           in file order (never inside a #define) */
	size_t ncalls;
	struct mr_reg *regs;    /* every registration, in file order */
	size_t nregs;
};

/* mr_file_parse: parse text[0..len) — pass the output of mask_code() so
 * comments and #if 0 blocks are ignored — into f (zero it first).
 * Function-like #defines whose name is not a core macro and whose body
 * calls at least one macro are helpers; a top-level call of a core macro
 * or a helper is a call; every call is expanded (helpers recursively, at
 * most 16 deep and 4096 macro calls per top-level call) into regs.
 * Never fails; unparsable text is skipped. */
void mr_file_parse(struct mr_file *f, const char *text, size_t len);

/* mr_file_free: release everything f owns. */
void mr_file_free(struct mr_file *f);

/* mr_helper_find: the helper named s[0..n) in f, or NULL. */
const struct mr_helper *mr_helper_find(const struct mr_file *f, const char *s,
                                       size_t n);

/* mr_helper_pairs: when helper h can generate registrations of kind k for
 * any NAME — it takes exactly one parameter, every call in its expansion
 * is kind k's own macro (mr_kind_macro) with that parameter as NAME and
 * Metal dtype tokens as dtypes, and it calls nothing else — fill out[]
 * (MR_MAX_PAIRS) with the pairs it registers, in its order, and return
 * their count.  Otherwise return 0. */
size_t mr_helper_pairs(const struct mr_file *f, const struct mr_helper *h,
                       int k, struct mr_pair *out);

/* mr_helper_pairs_via: as mr_helper_pairs, with MACRO (a core macro of
 * kind k, e.g. REGISTER_OPMATH_BINARY_OP for k MR_BINARY) the one every
 * call must be: REGISTER_OPMATH_FLOAT_BINARY_OP(NAME) gives float, half
 * and bfloat with REGISTER_OPMATH_BINARY_OP, and nothing with
 * REGISTER_BINARY_OP. */
size_t mr_helper_pairs_via(const struct mr_file *f, const struct mr_helper *h,
                           int k, const char *macro, struct mr_pair *out);

/* mr_pair_eq: same in, alpha and out. */
int mr_pair_eq(const struct mr_pair *a, const struct mr_pair *b);

/* ---- the kernels a registration instantiates ----
 *
 * Read from the #defines of the checkout's headers (c10/metal/indexing.h
 * and what it uses), never from a list in this code: a core macro's call
 * is expanded as the preprocessor would (parameters substituted, # and
 * ## applied, the result rescanned for other function-like macros of the
 * headers, at most 8 levels), and each explicit instantiation in the
 * expansion, `template [[host_name(S...)]] kernel void QUAL<TARGS>(PARAMS)`,
 * is one kernel: its name is the concatenation of the string literals S
 * (an identifier among them is an object-like macro of the headers whose
 * body is a string literal: C10_METAL_ILP_PER_THREAD_STR, "4" in 2.14.1).
 * PyTorch 2.14.1's REGISTER_UNARY_OP gives 8 kernels (dense, dense_scalar,
 * strided, inner_contiguous and four castout ones), its REGISTER_BINARY_OP
 * 13; older headers give NAME_dense_OUT_IN and NAME_strided_OUT_IN. */

/* The #defines of some header texts. */
struct mr_strdef {
	char *name, *value; /* #define NAME "value": value without quotes */
};
struct mr_defs {
	struct lex_macro *fn;  /* function-like macros, in reading order */
	size_t nfn, capfn;
	struct mr_strdef *str; /* object-like macros that are a string */
	size_t nstr, capstr;
};

/* mr_defs_add: add the #defines of TEXT (len bytes, raw: comments and
 * #if 0 blocks are masked here) to d (zero it before the first call).  A
 * later #define of a name hides an earlier one. */
void mr_defs_add(struct mr_defs *d, const char *text, size_t len);

/* mr_defs_load: add the #defines of every ROOT/c10/metal/ *.h (in name
 * order; indexing.h's macros use common.h's string macros).  Returns the
 * number of files read (0: the checkout has no c10/metal headers, as
 * PyTorch 2.6.0 and before).  Unreadable files are skipped. */
int mr_defs_load(struct mr_defs *d, const char *root);

void mr_defs_free(struct mr_defs *d);

/* mr_defs_find: the function-like macro NAME of d (the last #define of
 * it), or NULL. */
const struct lex_macro *mr_defs_find(const struct mr_defs *d, const char *name);

/* One kernel a registration instantiates. */
struct mr_inst {
	char *name;     /* the kernel name of this call: "neg_dense_float_float" */
	char *pattern;  /* the same with the macro's parameter names for its
	                   arguments: "NAME_dense_DTYPE1_DTYPE0" */
	char *variant;  /* the pattern without the parameters and the '_'
	                   around them: "dense", "dense_ilp4", "strided_castout" */
	char *templ;    /* the kernel template as written, blanks squeezed:
	                   "::c10::metal::unary_dense" */
	char **targs;   /* its template arguments, blanks squeezed:
	                   {"float", "neg_functor"} */
	size_t ntargs;
	char **params;  /* the instantiation's parameters, blanks squeezed:
	                   {"device float*output", "constant float*input", ...}
	                   (a blank is kept only between two identifier bytes) */
	size_t nparams;
};

/* mr_instantiate: the kernels the call MACRO(ARGS) instantiates (nargs
 * arguments, as written), read from d.  *out (malloc'd; mr_insts_free)
 * gets them in the order of the expansion.  Returns their count: 0 when
 * MACRO is not a function-like macro of d, takes another number of
 * arguments, or instantiates nothing recognisable. */
size_t mr_instantiate(const struct mr_defs *d, const char *macro,
                      char *const *args, size_t nargs, struct mr_inst **out);

void mr_insts_free(struct mr_inst *v, size_t n);

/* mr_text_insts: the explicit kernel instantiations of TEXT (a
 * NUL-terminated source with comments and preprocessor lines blanked:
 * mask_code, then each directive's bytes but its newlines as spaces),
 * written out or produced by a call of a function-like macro of d (the
 * source's own #defines belong in d too), expanded as mr_instantiate
 * does (8 levels).  Each is one struct mr_inst in text order; pattern
 * and variant are copies of the name.  *out malloc'd (mr_insts_free).
 * Returns their count.  Used by mps-run (run/kernel.c) for main's
 * `#define INSTANTIATE_...(T) template [[host_name(...)]] kernel void
 * f<T>(...);` lines; `[[kernel]] void` as well as `kernel void`. */
size_t mr_text_insts(const struct mr_defs *d, const char *text, struct mr_inst **out);

/* mr_inst_find: the first kernel of v[0..n) whose variant is VARIANT, or
 * NULL. */
const struct mr_inst *mr_inst_find(const struct mr_inst *v, size_t n,
                                   const char *variant);

/* mr_inst_call: "TEMPL<TARG, TARG>" (malloc'd): the kernel template
 * instantiation, to be called as a function. */
char *mr_inst_call(const struct mr_inst *k);

/* ---- does a tree have the c10/metal kernel infrastructure? ----
 *
 * The registrations, functors and host stubs mps-register writes need
 * what current PyTorch main has and older releases (2.6.0 and before)
 * lack: the core macros #defined in c10/metal/ headers and the
 * MetalShaderLibrary member functions exec_unary_kernel /
 * exec_binary_kernel taking a TensorIteratorBase.  These functions look
 * for them in one file's text; pass the output of mask_code() so that
 * comments and #if 0 blocks do not count.  t need not be NUL-terminated.
 * A PCRE2 match error exits 2 (scan.h re_match). */

/* mr_text_uses_macro: 1 when MACRO (a whole identifier) is followed by
 * '(' anywhere in t[0..len): a call, a call inside a #define body, or
 * the macro's own #define. */
int mr_text_uses_macro(const char *t, size_t len, const char *macro);

/* mr_text_defines_macro: 1 when a line of t[0..len) is
 * `#define MACRO(` (blanks allowed around '#'). */
int mr_text_defines_macro(const char *t, size_t len, const char *macro);

/* mr_text_has_exec: 1 when t[0..len) mentions the MetalShaderLibrary
 * member exec_unary_kernel (which = 0), exec_binary_kernel (1) or
 * exec_ternary_kernel (2) of current PyTorch: called through an object (`lib.exec_..._kernel(`,
 * `->exec_..._kernel(`) or declared with a TensorIteratorBase first
 * parameter.  A free function of that name taking a Tensor (the
 * file-local helper in PyTorch 2.6's UnaryKernel.mm) does not count. */
int mr_text_has_exec(const char *t, size_t len, int which);

/* mr_text_declares_stub: 1 when t[0..len) holds
 * DECLARE_DISPATCH(TYPE, STUB) with STUB as its last argument. */
int mr_text_declares_stub(const char *t, size_t len, const char *stub);

#endif
