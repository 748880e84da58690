/* regplan.h — the plan of what registering one native Metal kernel NAME
 * adds to a PyTorch checkout: the REGISTER_*_OP lines of the .metal file
 * (one per dtype pair, or a file-local helper call when its #define
 * registers exactly pairs asked for), a functor skeleton, and the host
 * stub of the .mm file.  No printing, no writing: mps-register prints the
 * plan and hands the new bytes to the edit engine; mps-migrate puts them
 * into a change of several files.  (Moved out of tools/src/mps-register.c.)
 *
 * Where things go (the files' own layout is kept: indentation, ';' or
 * not, line endings, a missing final newline):
 *   - registrations of a NAME that has a functor already: after the last
 *     top-level registration call of the same kind (a helper call counts
 *     when it expands to that kind), in its indentation and ';' style;
 *   - a new functor and its registrations go together, functor first: after
 *     the last complete group of the same kind, a group being
 *     `struct X_functor { ... };` followed (blank lines, comments and
 *     preprocessor lines between) by top-level calls that register only X
 *     with that kind; so never between another functor and its
 *     registrations (issue #14: logical_not_functor and its lines).  With
 *     no such group: after the last registration call of that kind; with
 *     none: at the end of the file.  When NAME is already registered but
 *     has no functor, the functor goes before NAME's first registration;
 *   - a file that keeps its functors together and its registrations in
 *     blocks (PyTorch main's BinaryKernel.metal: more functors followed
 *     by another functor than by their own registrations, and at least
 *     two): the new functor after the last functor before the file's
 *     first registration call; each registration call in its block (the
 *     runs of calls between blank or comment lines): the block holding
 *     most calls of the same macro (for a core macro, of the same input
 *     class: floating, integral, complex), after the last such call and
 *     the calls of the same operator that follow it; NAME's own last
 *     call when NAME is registered already; by class alone when no call
 *     has the macro; the calls of one block together.  So a float helper
 *     call goes among the helper calls, a complex registration among the
 *     complex ones (issue #21: not into the middle of the complex block);
 *   - rq->opmath (binary kinds): the floating-point pairs register with
 *     REGISTER_OPMATH_BINARY_OP, through a helper that expands to it
 *     (REGISTER_OPMATH_FLOAT_BINARY_OP) when one fits, when the file uses
 *     or defines that macro or c10/metal/ defines it;
 *   - the host stub: REGISTER_UNARY_TI_DISPATCH(NAME); after the last such
 *     line (or the macro's #define) when the host file defines that macro,
 *     the kind is unary, the stub is NAME_stub and no dtype check is
 *     asked; otherwise `static void FN(TensorIteratorBase& iter[, SCALAR])`
 *     calling lib.exec_unary_kernel or lib.exec_binary_kernel with "NAME"
 *     (and the scalar, and its dtype when rq gives one), plus
 *     REGISTER_DISPATCH(STUB, &FN) (the '&' and ';' as the file writes
 *     them), after the file's last such function and REGISTER_DISPATCH
 *     line, else before the '}' that closes its last namespace block.
 *     In the file's own conventions (issue #21): FN is NAME plus the
 *     suffix its host kernels put after the kernel name they ask for
 *     (UnaryKernel.mm's erfcx_kernel: "_kernel"; BinaryKernel.mm's
 *     hypot_mps_kernel: "_mps_kernel", also the default); the dtype
 *     check's message is that of a check of the same condition in the
 *     file (its function's or kernel's name made ours), else the shape
 *     of its "X not implemented for ..." messages naming the dtypes
 *     refused, else "OP on MPS supports only ... inputs, got " DTYPE; and
 *     every line is kept within the column limit of ROOT/.clang-format
 *     for the host file's language (clangfmt.h; 80 when absent), broken
 *     as clang-format breaks a call (after '(', then one argument a line,
 *     aligned or indented; BinPackArguments), a condition after its ||,
 *     a string literal into adjacent ones.
 *
 * Refusals (rg_plan returns -1, the messages say why, with a rule id):
 *   no-c10-metal     the kind's core macro is neither used nor #defined in
 *                    the kernel file nor #defined in ROOT/c10/metal/NAME.h
 *                    (the tree predates the c10/metal kernels);
 *   no-exec-kernel   neither the host file nor a source under
 *                    aten/src/ATen/native/mps/ mentions
 *                    lib.exec_unary_kernel / lib.exec_binary_kernel;
 *   undeclared-stub  STUB has no DECLARE_DISPATCH in
 *                    ROOT/aten/src/ATen/native/NAME.h or DIR/NAME.h;
 *   no-host-anchor   no REGISTER_DISPATCH line and no namespace block
 *                    closing on its own line in the host file;
 *   conflicting-registration  NAME is registered for an input dtype with
 *                    another output than asked.
 *
 * Layer: plan/.  May call base/, edit/, read/, check/ and plan/ (calls
 * base/, edit/ and read/ metalreg).
 */
#ifndef MK_REGPLAN_H
#define MK_REGPLAN_H

#include <jansson.h>
#include <stddef.h>

#include "read/metalreg.h"

/* Which file an item goes to. */
enum { RG_KERNEL = 0, RG_HOST = 1 };

enum rg_what { RG_REG, RG_FUNCTOR, RG_HOST_STUB, RG_INCLUDE };

/* One planned insertion (or a part found present). */
struct rg_item {
	enum rg_what what;
	int file;              /* RG_KERNEL or RG_HOST */
	size_t off;            /* insertion offset in the file's text */
	char *text;            /* bytes to insert, the file's line endings;
	                          NULL when present */
	char *label;           /* one-line summary: the first code line */
	const char *macro;     /* RG_REG: the core macro of the kind */
	char *calls[MR_MAX_PAIRS]; /* RG_REG: each call written, ';' included */
	size_t ncalls;
	struct mr_pair pairs[MR_MAX_PAIRS]; /* RG_REG: the pairs these calls
	                          register; RG_FUNCTOR: the pairs asked for */
	size_t npairs;
	char **kernels;        /* RG_REG: the kernel names the pairs'
	                          registrations instantiate, pair by pair,
	                          read from the core macro's #define in the
	                          checkout's c10/metal headers (metalreg.h
	                          mr_instantiate); none when it has none */
	size_t nkernels;
	int present;           /* already in the file: nothing inserted */
	int check;             /* RG_HOST_STUB: holds the dtype check */
	unsigned long line;    /* 1-based: the old file when present, the new
	                          file (first non-blank inserted line) once
	                          rg_build ran */
	size_t newoff;         /* offset in the new file (rg_build) */
	size_t addlen;         /* bytes rg_build inserted for it there: its
	                          text, with the line end it adds before it
	                          at the end of a file without one, less the
	                          one it leaves off after it there */
};

/* A message for people: TEXT is "PATH:LINE:COL: SEVERITY: ..." or
 * "PATH: SEVERITY: ...", without the program name (the caller adds
 * "prog: "), ending in " [rule-id]" for refusals. */
struct rg_msg {
	int error;             /* 1 error (a refusal), 0 note */
	char *text;            /* owned */
};

/* A file's text as the plan sees it (not necessarily what is on disk:
 * mps-migrate plans on the text after its deletions). */
struct rg_file {
	const char *display;   /* path relative to the root, for messages */
	const char *text;
	size_t len;
};

/* The overloads of a functor, one operator() per dtype class. */
enum rg_cls {
	RG_CLS_FLOAT = 0,      /* float, half, bfloat */
	RG_CLS_INTEGRAL,       /* long, int, short, char, uchar (and bool
	                          unless it has its own overload) */
	RG_CLS_BOOL,           /* bool, when rg_math.split_bool */
	RG_CLS_COMPLEX,        /* float2, half2 */
	RG_NCLS
};

/* The math of a new functor's overloads (plan/translate.h), per class.
 * Texts are lines ending in '\n', indented by 4; they are written with
 * the kernel file's line ends. */
struct rg_math {
	int split_bool;        /* bool inputs get an overload of their own: a
	                          plain `operator()(const bool x)`, which C++
	                          prefers to the integral template */
	const char *body[RG_NCLS];  /* the whole body (the translation), or
	                          NULL: the placeholder and a return */
	const char *note[RG_NCLS];  /* lines written above the placeholder
	                          (when body is NULL), or NULL */
	const char *params[RG_NCLS][3]; /* the parameter names; NULL: x, or
	                          a, b (and c: ternary kinds) */
};

/* rg_overloads: the first pair of each class among PAIRS[0, N) into
 * out[cls] (NULL: the class has no registration); bool inputs go to
 * RG_CLS_BOOL when SPLIT_BOOL, else to RG_CLS_INTEGRAL. */
void rg_overloads(const struct mr_pair *pairs, size_t n, int split_bool,
                  const struct mr_pair *out[RG_NCLS]);

/* rg_functor_text: the text of `struct NAME_functor {...};` for kind
 * KIND and the registrations PAIRS[0, N): one overload per class
 * (rg_overloads), each with MATH's body (NULL math, or a NULL body: the
 * placeholder "// TODO(mps-register): the math of NAME for CLS inputs
 * goes here" and a return of the input), lines ending in EOL.  USING_METAL
 * and USING_C10: the file has `using namespace metal;` / `using namespace
 * c10::metal;` (the template conditions are then written unqualified).
 * The same text rg_plan inserts, so that a caller (mps-try) can compile
 * it before it is written.  malloc'd (caller frees). */
char *rg_functor_text(int kind, const char *name, const struct mr_pair *pairs,
                      size_t n, const struct rg_math *math, const char *eol,
                      int using_metal, int using_c10);

struct rg_request {
	int kind;              /* enum mr_kind */
	const char *name;      /* kernel NAME (mr_valid_name) */
	const char *stub;      /* the stub the host stub registers; NULL:
	                          NAME_stub */
	const char *op;        /* operator named in the dtype check message;
	                          NULL: NAME */
	const struct mr_pair *pairs; /* dtypes (interned mr_dtypes tokens) */
	size_t npairs;
	int functor;           /* add a functor skeleton when none exists */
	int host;              /* plan the host stub (host file given) */
	unsigned check;        /* host dtype check: the input dtypes the stub
	                          lets through, a bit (1u << i) per mr_dtypes[i];
	                          0: no check.  See rg_check_text. */
	/* -alpha kinds: the scalar (mps-migrate's mg_plan scalar_*); NULL
	 * each: const Scalar& alpha, passed as alpha, no dtype */
	const char *scalar_decl;  /* the host stub's parameter: "const Scalar&
	                             eps", "int64_t decimals" */
	const char *scalar_pass;  /* what it hands exec_*_kernel: "eps",
	                             "Scalar(decimals)" */
	const char *scalar_dtype; /* the scalar's dtype argument
	                             ("ScalarType::Float"): the alpha type
	                             of the kernels it asks for; NULL: the
	                             iterator's common dtype (the host's
	                             default) */
	int opmath;            /* the CPU kernel computes half and bfloat in
	                          float: binary kinds register with
	                          REGISTER_OPMATH_BINARY_OP (or a helper that
	                          expands to it) where the file has it */
	const struct rg_math *math; /* the new functor's math, NULL: every
	                          overload holds the placeholder */
	/* binary-params: the members of the struct NAMEParams (mr_params_
	 * struct), the stub's scalars in its order ("min_val", "max_val");
	 * the host stub takes each as `const Scalar& M` and hands
	 * NAMEParams<float>{M.to<float>(), ...} over; the kernel file and the
	 * host file include the header (rg_params_header) */
	char *const *fields;
	size_t nfields;
};

struct rg_plan {
	struct rg_item *items; /* kernel file items first, then host file's */
	size_t nitems, capitems;
	struct rg_msg *msgs;   /* in the order found */
	size_t nmsgs, capmsgs;
	size_t nerrors;
	char *core_hdr;        /* c10/metal header defining the core macro
	                          when the kernel file does not use it (owned) */
	int functor_exists;    /* NAME_functor (or DEFINE_*FUNCTOR(NAME)) is
	                          in the kernel file already */
	int host_ti;           /* the host stub uses REGISTER_UNARY_TI_DISPATCH */
	int blocked;           /* the kernel file keeps its functors together
	                          and its registrations in blocks: planned so */
	int opmath;            /* rq->opmath and the kernel file can use
	                          REGISTER_OPMATH_BINARY_OP: planned with it */
	int check_words;       /* the dtype check's message: 0 none, 1 the
	                          default words, 2 those of the file's check of
	                          the same condition, 3 the shape of the file's
	                          "... not implemented for ..." checks */
	unsigned column;       /* the host file's column limit (clangfmt.h),
	                          0 none; when a function stub is planned */
	char column_source[64];/* where it comes from */
	char *include;         /* binary-params: the header the kernel and
	                          host files include (rg_params_include), else
	                          NULL (owned) */
	const char *ns_metal, *ns_c10; /* private: prefixes of the skeleton */
};

/* rg_plan: plan rq on the kernel file K (and, with rq->host, the host
 * file H) of the checkout ROOT (read for the checks above: c10/metal/NAME.h,
 * the sources under aten/src/ATen/native/mps/, aten/src/ATen/native/NAME.h
 * and DIR/NAME.h; unreadable files there count as not matching).  p is zeroed
 * first; release with rg_plan_free.  Returns 0, or -1 when refused (the
 * errors are in p->msgs; the host is checked before the kernel file's
 * registrations are planned so every refusal is reported).  Prints
 * nothing.  A PCRE2 match error exits 2 (scan.h). */
int rg_plan(struct rg_plan *p, const char *root, const struct rg_request *rq,
            const struct rg_file *k, const struct rg_file *h);

/* rg_build: the text of file F (RG_KERNEL or RG_HOST; the same text the
 * plan was made on) with the plan's insertions, malloc'd (caller frees),
 * *len its length; NULL when nothing is inserted there.  Sets each
 * item's line, newoff and addlen in the new text. */
char *rg_build(struct rg_plan *p, int file, const struct rg_file *f,
               size_t *len);

void rg_plan_free(struct rg_plan *p);

/* rg_params_header_rel: the header shared by kernel file KERNEL_REL
 * (".../kernels/X.metal") and its host file, which holds the params
 * structs of binary-params kernels: ".../kernels/X.h" (PyTorch main's
 * kernels/Activation.h beside Activation.metal).  rg_params_include: the
 * name both files #include it by ("ATen/native/mps/kernels/X.h": the
 * path under aten/src).  malloc'd. */
char *rg_params_header_rel(const char *kernel_rel);
char *rg_params_include(const char *kernel_rel);

/* rg_params_header: the text of the header OLD (len bytes; NULL: the
 * header does not exist yet, it is created with `#pragma once`) with
 * `template <typename T> struct NAMEParams { T F; ... };` (FIELDS[0, N))
 * appended, lines ending as the file's.  NULL when OLD defines the
 * struct already.  malloc'd, *outlen its length. */
char *rg_params_header(const char *old, size_t len, const char *name,
                       char *const *fields, size_t n, size_t *outlen);

/* rg_what_name: "registration", "functor", "host-stub" or "include" (the
 * `what` of the tools' JSON rows). */
const char *rg_what_name(enum rg_what w);

/* rg_pairs_json: the dtype pairs v[0, n) as a new JSON array (caller owns
 * the reference) of {"in", "alpha" (only when set), "out"} objects. */
json_t *rg_pairs_json(const struct mr_pair *v, size_t n);

/* rg_check_text: the host dtype check of a stub that lets through only the
 * input dtypes ALLOWED (bits as rg_request.check; the Metal dtypes stand
 * for the PyTorch types Float, Half, BFloat16, Long, Int, Short, Char,
 * Byte, Bool, ComplexFloat, ComplexHalf): "TORCH_CHECK_TYPE(COND,\n
 * INDENT  MESSAGE);" (no leading indent, no line end), COND on
 * iter.common_dtype() written with isFloatingType, isIntegralType(t,
 * includeBool), isComplexType and == kT, naming the allowed set (so a
 * dtype outside the eleven, uint16 or float8, is refused as well);
 * MESSAGE "OP on MPS supports only DESC inputs, got " followed by the
 * dtype.
 * EOL and INDENT (the body's indentation) shape the second line.
 * malloc'd (caller frees).  ALLOWED 0 or every dtype: NULL. */
char *rg_check_text(const char *op, unsigned allowed, const char *eol,
                    const char *indent);

/* rg_dtype_bit: the bit of Metal dtype token T in rg_request.check (T an
 * interned mr_dtypes element or any equal string); 0 for anything else. */
unsigned rg_dtype_bit(const char *t);

/* RG_ALL_DTYPES: every bit (all mr_dtypes). */
#define RG_ALL_DTYPES ((1u << 11) - 1)

#endif
