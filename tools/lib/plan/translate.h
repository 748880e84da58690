/* translate.h — the math of a Metal functor's overloads, translated from
 * the lambdas of the CUDA and CPU kernels (issue #21).  No printing, no
 * writing: the result is text for regplan.h's functor (rg_request.math)
 * and lines for mps-migrate's plan.
 *
 * One overload per dtype class the registrations need (regplan.h
 * rg_overloads): floating (float, half, bfloat: computed in float, the
 * result cast to T, as the CPU kernel does for Half and BFloat16);
 * integral (computed in T; in float when the output is float, the
 * int-to-float operators, whose CUDA and CPU kernels run on the promoted
 * float inputs); bool (its own overload when the kernels give bool a
 * lambda of its own); complex (float2 / half2, computed in float2).
 *
 * For each overload, the candidates are the CUDA lambdas whose dispatch
 * branch serves the class's dtype (Float for the floating and the
 * int-to-float overloads, the input dtype otherwise), in the order
 * found, then the CPU scalar lambdas likewise; the first one whose every
 * construct is known is translated.  Known constructs: arithmetic,
 * comparisons, logic, `?:`, `if` / `else`, `return`, blocks, local
 * declarations and assignments, `using X = T;`, casts (static_cast,
 * functional, C-style, brace), literals, and the names of TR_TABLE: the
 * types scalar_t (T; float in the int-to-float overload; bool), opmath_t,
 * accscalar_t, at::opmath_type and at::acc_type (float), the math of
 * std::, ::, c10::cuda::compat:: and at:: (metal::precise:: for what
 * rounds, metal:: for what is exact, or the c10/metal helper of the same
 * name when ROOT/c10/metal/NAME.h defines one), NAN, INFINITY, the M_
 * constants, std::numeric_limits, and the complex helpers (real, imag,
 * conj; complex * and / become c10::metal::mul and div; std::abs of a
 * complex is its magnitude, a float, as main's abs_functor writes it:
 * metal::precise::sqrt(metal::dot(z, z))).  A call of a
 * function of the lambda's own file (or jiterator string), of a header
 * of its folder or an ATen/native header it includes (cudakern.c:
 * Lerp.h's lerp) is inlined when its body is `using` aliases (an
 * opmath_type of one of its parameters' types is the opmath), locals
 * with an initializer (each names its value where used), and one
 * `return E;`; for the complex overload, the helper written for complex
 * values (a parameter c10::complex<X>: X is the parts' type, float),
 * else a template whose every parameter is of a template type (Lerp.h's
 * lerp(scalar_t, scalar_t, weight_t), which 2.6.0's CUDA lambdas call
 * for complex dtypes too).  A local of the lambda that nothing reads is
 * left out (its value still translated).  Anything else (a loop, Vectorized, a helper of another
 * file, a value the lambda captures) leaves the
 * overload to the writer: the placeholder stays, with the CUDA and CPU
 * bodies above it in a comment, each with its file:line.
 */
#ifndef MK_TRANSLATE_H
#define MK_TRANSLATE_H

#include <stddef.h>

#include "read/dtypes.h"
#include "read/cudakern.h"
#include "read/metalreg.h"
#include "plan/regplan.h"

/* ---- the table: every C++ name the translator knows ---- */

/* What a row names. */
enum tr_what {
	TR_TYPE,     /* a type: scalar_t, opmath_t, float, ... */
	TR_CONST,    /* a constant: NAN, INFINITY, M_PI */
	TR_FN,       /* a function */
	TR_LIMIT,    /* a member of std::numeric_limits<X> */
	TR_METHOD    /* a member function of a value: z.real() */
};

/* The qualifiers a name may be written with (bits). */
enum {
	TQ_BARE = 1,     /* sin */
	TQ_STD = 2,      /* std::sin */
	TQ_GLOBAL = 4,   /* ::sin */
	TQ_COMPAT = 8,   /* c10::cuda::compat::sin */
	TQ_AT = 16,      /* at::sin, at::native::sin */
	TQ_C10 = 32,     /* c10::sin */
	TQ_F = 64,       /* also with a float suffix: sinf */
	TQ_MATH = TQ_BARE | TQ_STD | TQ_GLOBAL | TQ_COMPAT | TQ_AT | TQ_F
};

/* The type of a result (TR_FN), or what a type row gives. */
enum {
	TY_NONE = 0, TY_BOOL, TY_INT, TY_REAL, TY_CPLX,
	TY_ARG,      /* the type of the first argument */
	TY_ARG_REAL  /* the type of the first argument, real for a complex
	                one (a magnitude: std::abs of a complex) */
};

/* One row.  Templates: $1, $2 the arguments (parenthesised where an
 * operator meets them), $* all of them joined by ", "; NULL: the row does
 * not apply to that kind of value.  Type rows: the Metal type ("T" and
 * "$scalar" / "$opmath" for the class's own, see translate.c). */
struct tr_row {
	const char *cxx;      /* the C++ name, unqualified */
	unsigned quals;       /* TQ_* bits */
	int what;             /* enum tr_what */
	int nargs;            /* TR_FN: arguments; -1 any */
	const char *real;     /* template for real values (float) */
	const char *integer;  /* template for integers (T or int); NULL: as
	                         real, the integers cast to float */
	const char *cplx;     /* template for complex values (float2) */
	const char *helper;   /* a c10/metal helper preferred when the tree
	                         defines it (c10::metal::HELPER($*)), or NULL */
	int ty;               /* the result's type (TY_*) */
	const char *why;      /* the source of the rule, for people */
};

/* tr_table: the rows, *n their count.  The one place of the translation
 * rules (tests/unit/test_translate.c has a test per row). */
const struct tr_row *tr_table(size_t *n);

/* ---- one translation ---- */

/* What a translation may use from the tree. */
struct tr_env {
	char **c10;           /* the helpers the c10/metal headers define */
	size_t nc10;
};

/* tr_env_load: the functions the headers ROOT/c10/metal/NAME.h define in
 * namespace c10::metal (cudakern.h ck_c10_metal_functions), into *env
 * (release with tr_env_free).  A tree without c10/metal gives none.
 * Returns 0, or -1 after a diagnostic when a header that exists cannot be
 * read (env then empty). */
int tr_env_load(struct tr_env *env, const char *root);
void tr_env_free(struct tr_env *env);

/* The result of translating one piece of code into one overload. */
struct tr_out {
	int ok;
	char *text;           /* ok: the body, lines ending in '\n', indented
	                         by 4 (owned) */
	char *params[3];      /* ok: the operator()'s parameter names (owned;
	                         the third for ternary kinds) */
	char *construct;      /* !ok: what stopped it, for people: "a loop
	                         (for)", "unknown helper foo" (owned) */
	unsigned long line;   /* !ok: the construct's line in the code's file
	                         (0 unknown) */
};

/* The overload a piece of code is translated into. */
struct tr_target {
	int cls;              /* enum rg_cls */
	const char *in, *out; /* Metal dtype tokens */
	int kind;             /* enum mr_kind */
};

/* tr_code: translate CODE (HELPERS[0, NH) the functions it may inline;
 * OUTER[0, NOUTER) the declarations that may give the values it
 * captures, ck_lambda.outer) into the overload T.  The captured values
 * the body uses are declared first, when their declarations translate.
 * Fills *r (release with tr_out_free); returns r->ok. */
int tr_code(const struct ck_code *code, const struct ck_code *helpers,
            size_t nh, char *const *outer, size_t nouter,
            const struct tr_target *t, const struct tr_env *env,
            struct tr_out *r);

void tr_out_free(struct tr_out *r);

/* tr_expr_text: translate the C++ expression EXPR (parameters a and b,
 * of the class's value type) for class CLS with output OUT ("float",
 * "int", "bool", "float2": the class's own types are used): the Metal
 * expression, malloc'd, or NULL with *why (malloc'd) set.  For tests. */
char *tr_expr_text(const char *expr, int cls, const char *out,
                   const struct tr_env *env, char **why);

/* ---- the functor ---- */

/* Whether a translation matches the CPU (mps-try, issue #20): not run
 * yet in this version. */
enum tr_verdict { TR_VERDICT_NONE = 0, TR_VERDICT_MATCH, TR_VERDICT_MISMATCH };

/* One overload of the functor and where its math comes from. */
struct tr_overload {
	int cls;              /* enum rg_cls */
	const char *in, *out; /* the first registration of the class */
	int translated;
	const char *side;     /* "CUDA" or "CPU": the lambda translated, or
	                         the one the construct was met in; NULL */
	char *file;           /* its file (owned), NULL when no lambda */
	unsigned long line;   /* the lambda's line, or the construct's */
	char *construct;      /* left: what stopped it (owned) */
	char *body;           /* what the overload holds (owned): the
	                         translation, or the CUDA and CPU bodies as a
	                         comment and the placeholder */
	char *params[3];      /* the parameter names (owned; NULL: the
	                         skeleton's) */
	int verdict;          /* enum tr_verdict */
	char *verdict_text;   /* "matches CPU on N values", or the first
	                         mismatch (owned; NULL) */
};

struct tr_plan {
	int tried;            /* the kernels were read */
	struct tr_overload ov[RG_NCLS];
	size_t nov;
	struct rg_math math;  /* for rg_request.math: points into ov */
	char *why;            /* when no lambda was read at all (owned) */
	char *cuda_why;       /* the CUDA reader's note (owned; NULL) */
	char *cuda_fn;        /* the CUDA kernel function read, NULL when
	                         none was found (owned) */
	char *cuda_file;      /* its definition (owned) */
	unsigned long cuda_line;
	size_t cuda_lambdas;  /* the lambdas read in it */
	unsigned column;      /* the bodies' column limit: the kernel file's
	                         (ROOT/.clang-format, Cpp; read/clangfmt.h);
	                         0 none */
	unsigned cont;        /* its ContinuationIndentWidth */
};

/* tr_plan_functor: read the kernels of STUB (the CUDA folder of ROOT,
 * and the CPU function CPU names when CPU is not NULL and found) and
 * translate one overload per class the registrations PAIRS[0, N) of
 * KIND need, with NAME the kernel name (placeholders say it).  Fills *tp
 * (zeroed first; release with tr_plan_free).  Returns 0, or -1 after a
 * diagnostic when a source file that exists cannot be read.  The alpha
 * kinds are not translated (their overloads are left, said so). */
int tr_plan_functor(struct tr_plan *tp, const char *root, const char *stub,
                    const struct cs_dtypes *cpu, int kind, const char *name,
                    const struct mr_pair *pairs, size_t n);

/* tr_plan_verdict: record what mps-try found for overload I (an index of
 * tp->ov) of a translated functor: TR_VERDICT_MATCH with TEXT ("matches
 * CPU on 64 values"), or TR_VERDICT_MISMATCH with the first mismatch.  A
 * mismatching translation is never written as code: the overload then
 * holds the placeholder, with the translation and TEXT in the comment
 * above it (tp->math follows).  TEXT is copied.  For the plan's data: the
 * translated functor (rg_functor_text with tp->math) is what mps-try
 * compiles before anything is written. */
void tr_plan_verdict(struct tr_plan *tp, size_t i, int verdict,
                     const char *text);

void tr_plan_free(struct tr_plan *tp);

/* tr_wrap_lines: TEXT ('\n'-ended lines) with every line longer than COL
 * columns broken as clang-format would, roughly: code after an operator
 * or a comma followed by a blank (the shallowest in parentheses that
 * fits, the last of those), the continuation indented CONT more than
 * the line; a `//` comment at a blank, continued as a comment CONT deeper.
 * A line with no such place, or COL 0, stays as it is.  malloc'd. */
char *tr_wrap_lines(const char *text, unsigned col, unsigned cont);

/* tr_cls_name: "floating-point", "integral", "bool", "complex". */
const char *tr_cls_name(int cls);

#endif
