/* cudakern.h — a reader of the elementwise kernels' math (issue #21): for a
 * DispatchStub, the lambdas the CUDA kernel hands to the TensorIterator
 * loops, and those of the CPU kernel, each with the dtypes of the dispatch
 * branch it sits in.  What a translation to Metal starts from
 * (plan/translate.h).
 *
 * CUDA (the .cu files of CK_CUDA_REL, not its subfolders): the function `REGISTER_DISPATCH(
 * X_stub, &f)` registers (f defined in the registering file first, else in
 * another .cu file of the folder); in its body (and, when it holds none,
 * in the bodies of the functions of the folder it calls, two calls deep)
 * every call of
 *   gpu_kernel, gpu_kernel_nocast, gpu_kernel_with_scalars,
 *   opmath_gpu_kernel_with_scalars, opmath_symmetric_gpu_kernel_with_scalars
 *     whose second argument is a lambda `[..] GPU_LAMBDA (PARAMS) -> R {..}`,
 *     a variable of the body holding one, or a functor `S<..>()` whose
 *     struct S of the same file has an operator();
 *   jitted_gpu_kernel<NAME, ...>(iter, STR) and
 *   opmath_jitted_gpu_kernel_with_scalars<NAME, ...>(iter, STR), STR a
 *     variable `STR = jiterator_stringify(CODE)` of the file: the function
 *     of CODE named by the string NAME's `constexpr char NAME[] = "..."`
 *     holds (the last function of CODE when that cannot be read).
 * Both branches of `#if AT_USE_JITERATOR()` are read (the #else holds the
 * plain lambda of the same math).
 *
 * CPU (cs_cpu_dtypes' function, dtypes.h): the scalar lambda of every
 * cpu_kernel, cpu_kernel_vec (its first lambda; the Vectorized one is
 * not) and cpu_serial_kernel call in the function's body.
 *
 * The dtype branch of a lambda: the innermost AT_DISPATCH_* call around
 * it (cs_dispatch_call_types: AT_DISPATCH_X[_ANDn], AT_DISPATCH_V2,
 * AT_DISPATCH_CASE_X / AT_DISPATCH_CASE in an AT_DISPATCH_SWITCH; a
 * macro of the file's own whose name holds AT_DISPATCH is expanded from
 * its #define, as cpu/BinaryOpsKernel.cpp's
 * _AT_DISPATCH_ALL_TYPES_AND_BOOL), else
 * the innermost `if (COND) {` around it whose COND tests a dtype
 * (`== kT`, `== ScalarType::T`, isComplexType, isFloatingType,
 * isIntegralType(t, includeBool)), else the type of its first parameter
 * when that is written as a dtype (`bool a`).
 *
 * Also kept, for the translator to inline: the functions defined at
 * namespace level in the lambda's file and in the headers of the folder
 * it includes (`#include <ATen/native/cuda/Math.cuh>`), also those inside
 * a jiterator_stringify there (`template <typename T> C10_HOST_DEVICE
 * static inline T ceil_wrapper(T a) { .. }`), and the other functions of
 * a jiterator string.  A functor handed to a loop is looked up likewise
 * (`binary_internal::MulFunctor<opmath_t>()`, or a variable `Functor<T>
 * f;` of the body).
 *
 * How it reads: comments and `#if 0` groups never count (scan.h
 * mask_code); literals are skipped; macros are not expanded, but for the
 * dispatch macros above (a kernel a macro writes is not found: said so).
 * The parsing here is small on purpose: the shared C++ model (cppmodel)
 * does not read cuda/ for it yet (cs_add_folder could).  What would come
 * from it is behind three
 * functions of cudakern.c: index_range (the namespace-level definitions
 * of a file: functions, structs, with their namespaces), match_close (the
 * extent of a bracket) and dispatch_types (a dispatch call's dtypes,
 * macros of the file expanded); the rest reads their answers.
 */
#ifndef MK_CUDAKERN_H
#define MK_CUDAKERN_H

#include <stddef.h>

#include "read/dtypes.h"

#define CK_CUDA_REL "aten/src/ATen/native/cuda"

/* How a lambda reached the loop. */
enum ck_how {
	CK_GPU_KERNEL = 0,   /* gpu_kernel, gpu_kernel_nocast */
	CK_WITH_SCALARS,     /* gpu_kernel_with_scalars and the opmath_ forms */
	CK_JITERATOR,        /* a function of a jiterator_stringify string */
	CK_FUNCTOR,          /* operator() of a struct handed to gpu_kernel */
	CK_CPU_KERNEL,       /* cpu_kernel, cpu_serial_kernel */
	CK_CPU_KERNEL_VEC    /* the scalar lambda of cpu_kernel_vec */
};

/* A parameter as written: "scalar_t a", "const T x", "bool a". */
struct ck_param {
	char *type;          /* "scalar_t", "const T", "bool" (owned) */
	char *name;          /* "a" (owned); "" when unnamed */
};

/* A function-like piece of code: a lambda, a jiterator function, a
 * functor's operator(), or a helper function of the file. */
struct ck_code {
	char *name;          /* helpers and jiterator functions: their name;
	                        lambdas: NULL (owned) */
	char *file;          /* relative to the root (owned) */
	unsigned long line;  /* 1-based line of its start ('[' of a lambda,
	                        the name of a function) */
	unsigned long body_line; /* the line of the '{' of its body */
	struct ck_param *params; size_t nparams; /* (owned) */
	char *ret;           /* the return type as written ("scalar_t"), NULL
	                        when none is written (owned) */
	char *captures;      /* a lambda's capture list without brackets ("",
	                        "=", "beta_val"); NULL for functions (owned) */
	char *body;          /* the text between the braces, comments blanked
	                        (same bytes and lines as the file) (owned) */
	char *shown;         /* the same text as written, comments kept, for
	                        people (owned) */
	int templ;           /* a template (`template <...>` before it) */
};

struct ck_lambda {
	int how;             /* enum ck_how */
	const char *call;    /* the loop as written ("gpu_kernel"; static) */
	struct ck_code code;
	cs_dtset dtypes;     /* the dtypes of its branch (0: unknown) */
	char *branch;        /* where they come from, for people:
	                        "AT_DISPATCH_FLOATING_TYPES_AND2",
	                        "if (... == kBool)", "a bool parameter" (owned;
	                        NULL when unknown) */
	size_t helpers_from; /* the helpers of its own file or string: the
	                        index range [helpers_from, helpers_to) of the
	                        ck_kernel's helpers */
	size_t helpers_to;
	char **outer;        /* a lambda that captures: the declarations of
	                        the enclosing body before the loop call that
	                        may give its captured values, as written
	                        (`const opmath_t three(3.0f);`, comments
	                        blanked), in order (owned) */
	size_t nouter;
	char *guard;         /* the condition, not a dtype test, that decides
	                        whether this loop runs (`eps < scalar_t(0)`):
	                        the innermost `if (COND)` / `if constexpr`
	                        whose branch or else holds the loop call (or
	                        the call of the function holding it), else the
	                        last `if (COND) { ..; return; }` before it in
	                        its block; NULL when none (owned).  Such a
	                        lambda is one branch of the math, not all of it
	                        (issue #21: logit's eps) */
	char *guard_file;    /* where COND is (owned) */
	unsigned long guard_line;
};

struct ck_kernel {
	int found;           /* the registered function was found and read */
	char *fn;            /* the registered function (owned) */
	char *reg_file;      /* where the registration is (owned; NULL none) */
	unsigned long reg_line;
	char *def_file;      /* the function's definition (owned) */
	unsigned long def_line;
	struct ck_lambda *lambdas; size_t nlambdas; /* in the order found */
	struct ck_code *helpers; size_t nhelpers;
	char *why;           /* when there are no lambdas: why, for people
	                        (owned) */
};

/* ck_cuda_kernel: the lambdas of the CUDA kernel registered for STUB in
 * the checkout ROOT (see the top of this file).  Fills *out (zeroed first;
 * release with ck_kernel_free).  Returns 0 when the function was found,
 * 1 when not (out->why: no cuda folder, no registration, the function not
 * found), -1 after a diagnostic when a .cu file that exists cannot be read
 * or holds a NUL byte.  out->why is also set when the function was found
 * but no lambda was read in it ("a macro writes it", "calls X"). */
int ck_cuda_kernel(const char *root, const char *stub, struct ck_kernel *out);

/* ck_cpu_kernel: the scalar lambdas of the CPU kernel FN defined at
 * FILE:LINE under ROOT (cs_dtypes' fn and def).  Same contract as
 * ck_cuda_kernel. */
int ck_cpu_kernel(const char *root, const char *file, unsigned long line,
                  const char *fn, struct ck_kernel *out);

void ck_kernel_free(struct ck_kernel *k);

/* ck_lambda_helpers: the helpers of lambda L's own file or string, a
 * range of K's helpers ([helpers_from, helpers_to)); their count in *N.
 * NULL with *N 0 when there are none (K's helpers may be NULL then, and
 * NULL + 0 is undefined in C: found by fuzz_translate under UBSan).  The
 * result points into K (not owned). */
const struct ck_code *ck_lambda_helpers(const struct ck_kernel *k,
                                        const struct ck_lambda *l, size_t *n);

/* ck_lambdas_text: parse the lambdas and helpers of a C++ text as the two
 * functions above do with a file's: TEXT (LEN bytes, shown as DISPLAY)
 * holds the function FN; its lambdas go to *out.  For tests and for a
 * caller holding the text already.  Returns 0, or 1 when FN is not
 * defined in TEXT. */
int ck_lambdas_text(const char *display, const char *text, size_t len,
                    const char *fn, int cpu, struct ck_kernel *out);

/* ck_namespace_functions: the names of the functions TEXT (LEN bytes of
 * C++) defines (with a body) directly in namespace NS ("c10::metal";
 * written `namespace c10 { namespace metal {` or `namespace c10::metal
 * {`; not in a namespace nested in it, such as detail), appended to
 * *names (*n of them; each name once; malloc'd strings in a malloc'd
 * array, the caller frees both).  Returns 0. */
int ck_namespace_functions(const char *text, size_t len, const char *ns,
                           char ***names, size_t *n);

/* ck_c10_metal_functions: ck_namespace_functions(.., "c10::metal", ..)
 * over every ROOT/c10/metal/NAME.h, into *names (set; caller frees).  A
 * tree without the folder gives none.  Returns 0, or -1 after a
 * diagnostic when a header that exists cannot be read. */
int ck_c10_metal_functions(const char *root, char ***names, size_t *n);

/* ck_code_free: release what c owns. */
void ck_code_free(struct ck_code *c);

/* ck_type_is: 1 when the parameter type TYPE (as ck_param.type holds it)
 * is BASE, `const BASE` or `BASE const` (top-level const does not change
 * what a lambda's parameter receives), else 0. */
int ck_type_is(const char *type, const char *base);

#endif
