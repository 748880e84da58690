/* cppscan.h — a reader of the C++ sources under aten/src/ATen/native of a
 * PyTorch checkout.  It answers two questions a migration to native Metal
 * needs (issues #12 and #14):
 *
 *   A. stub discovery: which DispatchStubs does a shared kernel (the value
 *      of a `CPU, CUDA: K` dispatch line of native_functions.yaml) reach,
 *      or does it need none (device-generic), or does it only work on CPU;
 *   B. CPU dtypes and the output rule: which dtypes the CPU kernel that
 *      `REGISTER_DISPATCH(X_stub, &f)` registers handles, what dtype the
 *      structured meta function gives the output, and which input dtypes
 *      the shared implementation handles itself before reaching the stub.
 *
 * What it reads (CS_NATIVE_REL, recursively): every *.cpp and *.h file,
 * except in folders for other devices, whose code never runs for a CPU,
 * CUDA and MPS shared line: any folder named cuda, hip, miopen, cudnn, mps,
 * xpu, vulkan, metal, mtia or hpu, at any depth (so quantized/cuda,
 * sparse/cuda, nested/cuda, mkldnn/xpu, transformers/cuda are skipped too).
 * Files in the folder `cpu` directly under CS_NATIVE_REL are the CPU kernel
 * side: their definitions are used to read dtypes, never followed by stub
 * discovery (a shared kernel reaches them only through a stub).
 *
 * How it reads (the rules, from reading PyTorch 2.6.0 and 1.13.1):
 *   - every file goes through mask_code_in_place() (scan.h, the bytes
 *     mask_code gives): comments and `#if 0`
 *     groups never count; string and character literals are skipped by
 *     every scanner (a stub name inside a message is not a stub);
 *   - preprocessor lines are not code; function-like `#define`s are kept
 *     and expanded where they are called (arguments substituted, # and ##
 *     applied, nested calls expanded, at most 8 deep, a macro never inside
 *     itself): a macro defined in the same file first, else one defined in
 *     a header under CS_NATIVE_REL; the first definition of a name in a
 *     file wins (the `#if !defined(C10_MOBILE)` branch comes first in the
 *     real files);
 *   - other conditional groups (#if X / #elif / #else) are read in all
 *     their branches, except when a branch leaves braces unpaired (a
 *     function header written once per platform, `if constexpr (x) {`
 *     against `if (x) {`): then only the first branch is read, so that the
 *     braces of the file still pair up;
 *   - the namespace-level structure is parsed: `namespace` blocks (also
 *     `namespace a::b`, `inline namespace`, anonymous ones), `extern "C"`,
 *     struct/class/union bodies (their member functions are kept with the
 *     struct's name as owner), and function definitions: `RET name(...)
 *     [const|noexcept|override...] {`, `Owner::name(...) {`, `operator()`,
 *     templates, and `MACRO(name)(...) {` (TORCH_IMPL_FUNC,
 *     TORCH_META_FUNC, TORCH_META_FUNC2(name, overload),
 *     TORCH_PRECOMPUTE_META_FUNC(2)), explicit specializations
 *     `template <> void f<float>(...) {`, also when a macro call written
 *     at namespace level such as `CREATE_UNARY_TORCH_IMPL_FUNC(frac_out,
 *     frac_stub)` produces them (a file-local macro call followed by `(`
 *     or `{` begins a header and is read as written, not expanded);
 *   - an unbalanced brace or parenthesis ends the scan of that file (or
 *     body) at the end of the file: nothing is read past it twice.
 *
 * Locations are a file (path relative to the root, owned by the model:
 * valid until cs_free) and a 1-based line; for things a macro call
 * produces, the line of the macro call written in the file.
 *
 * Not thread-safe: one thread at a time (queries do not change the model,
 * but cs_dispatch_macro_types keeps one compiled PCRE2 pattern with its
 * match data).
 *
 * Speed (PyTorch 2.6.0, 588 files, 9 MB): cs_load about 110 M
 * instructions (callgrind; about 30 ms on one core, warm cache), one
 * masking pass and one structural pass per file; a query reads a few
 * bodies, well under a millisecond.
 */
#ifndef MK_CPPSCAN_H
#define MK_CPPSCAN_H

#include <stddef.h>
#include <stdint.h>

#define CS_NATIVE_REL "aten/src/ATen/native"

/* How many calls away from the kernel discovery follows (0 is the
 * kernel's own body). */
#define CS_MAX_DEPTH 6

/* How many calls away a CPU-only marker counts.  Deeper dtype dispatch
 * belongs to device-generic helpers in practice (2.6.0:
 * fill_empty_deterministic_ in TensorFactories.h picks a fill value per
 * dtype; abs_out reaches it six calls down, through resize_output and
 * resize_).  On all 374 shared kernels of 2.6.0 a bound of 2, 3 or 4
 * gives the same kinds; 3 keeps more CPU-only kernels of `CPU:` lines. */
#define CS_CPU_DEPTH 3

/* ---- dtypes ---- */

/* PyTorch scalar types (c10/core/ScalarType.h names), in the order lists
 * are printed. */
enum cs_dtype {
	CS_DOUBLE = 0, CS_FLOAT, CS_HALF, CS_BFLOAT16, CS_LONG, CS_INT, CS_SHORT,
	CS_CHAR, CS_BYTE, CS_BOOL, CS_COMPLEX_DOUBLE, CS_COMPLEX_FLOAT,
	CS_COMPLEX_HALF, CS_UINT64, CS_UINT32, CS_UINT16, CS_FLOAT8_E5M2,
	CS_FLOAT8_E5M2FNUZ, CS_FLOAT8_E4M3FN, CS_FLOAT8_E4M3FNUZ, CS_QINT8,
	CS_QUINT8, CS_QINT32, CS_QUINT4X2, CS_QUINT2X4,
	CS_NDTYPES
};

/* A set of dtypes: bit (1u << d) for each enum cs_dtype d. */
typedef uint32_t cs_dtset;
#define CS_BIT(d) ((cs_dtset)1u << (d))

/* cs_dtype_name: "Double", "Float", ..., "QUInt2x4" (ScalarType names);
 * NULL for a value out of range. */
const char *cs_dtype_name(int d);

/* cs_metal_token: the Metal dtype token of d (metalreg.h spelling): Float
 * float, Half half, BFloat16 bfloat, Long long, Int int, Short short, Char
 * char, Byte uchar, Bool bool, ComplexFloat float2, ComplexHalf half2.
 * NULL for the dtypes a Metal kernel does not take: Double, ComplexDouble
 * (Metal has no 64-bit float), the unsigned 16/32/64-bit types, Float8 and
 * quantized types. */
const char *cs_metal_token(int d);

/* cs_dtype_parse: the dtype spelled s: a ScalarType name ("Half"), also
 * written as PyTorch code does ("kHalf", "at::kHalf", "c10::kHalf",
 * "ScalarType::Half", "at::ScalarType::Half", "c10::ScalarType::Half"),
 * or a Metal token ("half", "float2").  -1 when it is none of them. */
int cs_dtype_parse(const char *s);

/* cs_dtset_names / cs_dtset_metal: the dtypes of set as names, or as
 * Metal tokens (dtypes without one left out), in enum order, joined by
 * sep.  malloc'd (caller frees); "" for an empty set. */
char *cs_dtset_names(cs_dtset set, const char *sep);
char *cs_dtset_metal(cs_dtset set, const char *sep);

/* cs_dispatch_macro_types: the dtypes the dispatch macro NAME covers by
 * itself, not counting the extra scalar-type arguments of the _AND forms,
 * from a table written from ATen/Dispatch.h and ATen/Dispatch_v2.h
 * (checked against PyTorch 2.6.0's headers by
 * tests/real/t-dispatch-table-real.sh).  Known: the AT_DISPATCH_X,
 * AT_DISPATCH_X_AND, AT_DISPATCH_X_ANDn and AT_DISPATCH_CASE_X... forms of
 * X = FLOATING_TYPES, FLOATING_TYPES_AND_HALF, REDUCED_FLOATING_TYPES,
 * COMPLEX_TYPES, FLOATING_AND_COMPLEX_TYPES, INTEGRAL_TYPES, ALL_TYPES,
 * ALL_TYPES_AND_COMPLEX, QINT_TYPES, QINT_BYTE_TYPES,
 * QINT_AND_SUB_BYTE_TYPES; and the Dispatch_v2.h type lists AT_INTEGRAL_TYPES,
 * AT_INTEGRAL_TYPES_V2, AT_FLOATING_TYPES, AT_COMPLEX_TYPES, AT_ALL_TYPES,
 * AT_ALL_TYPES_AND_COMPLEX, AT_FLOAT8_TYPES, AT_BAREBONES_UNSIGNED_TYPES,
 * AT_QINT_TYPES.  *extra: how many scalar-type arguments come first (the n
 * of _ANDn, 1 for _AND; 0 for the lists).  Returns 0 and sets *out, or -1
 * for a name it does not know (AT_DISPATCH_SWITCH, AT_DISPATCH_V2,
 * AT_DISPATCH_CASE and AT_DISPATCH_INDEX_TYPES are read by their callers
 * and return -1 here). */
int cs_dispatch_macro_types(const char *name, cs_dtset *out, int *extra);

/* cs_dispatch_call_types: the dtypes one dispatch call NAME(ARGS) covers,
 * its NA arguments as lex_split_args gives them: AT_DISPATCH_X[_ANDn] and
 * AT_DISPATCH_CASE_X[_ANDn] (the table above plus the n scalar-type
 * arguments written first), AT_DISPATCH_CASE(kT, ...) (T),
 * AT_DISPATCH_V2(dtype, name, body, types...) (each type or
 * AT_EXPAND(list)), read as cs_cpu_dtypes reads them.  Returns 0 and sets
 * *out, or -1 for a name it does not know (AT_DISPATCH_SWITCH, whose
 * cases say, AT_DISPATCH_INDEX_TYPES) or a type argument it cannot read
 * (*out then holds the ones it could). */
int cs_dispatch_call_types(const char *name, char *const *args, size_t na,
                           cs_dtset *out);

/* ---- the model ---- */

struct cs_model {
	char *root;          /* as given (owned) */
	int have_native;     /* CS_NATIVE_REL exists */
	int have_sources;    /* it holds at least one .cpp file */
	size_t nfiles;       /* files read (.cpp and .h) */
	size_t ndefs;        /* function definitions found */
	size_t ndecls;       /* DECLARE_DISPATCH stubs (in headers) */
	size_t nregs;        /* CPU stub registrations */
	size_t nmetas;       /* structured meta functions */
	void *priv;
};

/* cs_load: read and index every file of root/CS_NATIVE_REL (see the top
 * of this file) into m (zeroed first).  Bodies are not parsed here: only
 * names, body extents, macros, DECLARE_DISPATCH, DEFINE_DISPATCH, stub
 * registrations and meta functions; queries parse the few bodies they
 * need.  Returns 0; a root without the folder, or a folder without .cpp
 * files, is fine (have_sources 0; queries then say so).  Returns -1 after
 * a diagnostic, m released: "prog: cannot open 'PATH': REASON" when a
 * folder or file that exists cannot be read, "prog: error: 'PATH' is not
 * a text file (it holds a NUL byte)" for a file holding a NUL byte.
 * m is owned by the caller: cs_free(). */
int cs_load(struct cs_model *m, const char *root);

void cs_free(struct cs_model *m);

/* A model read on first need: the tools that answer some questions from
 * the yaml alone read the C++ sources only when an operator needs them.
 * Set root (the checkout; NULL: never read) and zero the rest. */
struct cs_lazy {
	const char *root;
	struct cs_model m;
	int tried;           /* cs_lazy_get ran once */
	int ok;              /* and cs_load succeeded */
};

/* cs_lazy_get: the model, read (cs_load) the first time; NULL when root
 * is NULL.  An unreadable source prints its diagnostic and exits 2 (the
 * question cannot be answered).  Free with cs_lazy_free. */
const struct cs_model *cs_lazy_get(struct cs_lazy *l);

void cs_lazy_free(struct cs_lazy *l);

/* A place in the sources: file NULL when there is none. */
struct cs_loc {
	const char *file;    /* relative to the root, owned by the model */
	unsigned long line;  /* 1-based */
};

/* ---- A. stub discovery ---- */

enum cs_kind {
	CS_UNKNOWN = 0,      /* no definition found (or no C++ sources) */
	CS_STUB_BACKED,      /* reaches one or more DispatchStubs */
	CS_DEVICE_GENERIC,   /* defined; calls only other operators: no stub,
	                        no dtype dispatch of its own */
	CS_CPU_ONLY          /* no stub, and dispatches dtypes itself or calls
	                        CPU-only code */
};

/* cs_kind_name: "unknown", "stubs", "device-generic", "cpu-only". */
const char *cs_kind_name(int kind);

enum cs_reach { CS_CALLED = 0, CS_PASSED };

struct cs_stub {
	char *name;          /* "abs_stub" (owned) */
	struct cs_loc at;    /* the call, or the argument that passes it */
	char *in;            /* the function whose body reaches it (owned):
	                        the kernel itself, a helper, or a struct's
	                        "Owner::operator()" */
	int how;             /* enum cs_reach: X_stub(...) or passed on */
	int depth;           /* calls from the kernel to `in` (0: itself) */
	int declared;        /* DECLARE_DISPATCH(type, name) under CS_NATIVE_REL
	                        (PyTorch writes them in headers; a .cpp one
	                        counts too, a header's is preferred for decl) */
	struct cs_loc decl;  /* that declaration (file NULL when undeclared) */
	int defined;         /* DEFINE_DISPATCH(name) in some file */
	char *guard;         /* NULL, or the devices every path reaching it
	                        requires, none of them MPS: "CUDA, XPU"
	                        (DeviceType names, in c10's order; "" when
	                        the conditions on the way exclude each other).
	                        Guarded stubs stay in the list; MPS never runs
	                        them, so a caller registering stubs for MPS can
	                        leave them out (owned) */
};

struct cs_discovery {
	int kind;            /* enum cs_kind */
	int no_sources;      /* CS_UNKNOWN because the tree holds no C++
	                        sources (e.g. a tree with only the yaml) */
	size_t ndefs;        /* definitions of the kernel (overloads) */
	struct cs_loc def;   /* the first of them */
	struct cs_stub *stubs; size_t nstubs; /* owned; first reach of each
	                        stub, in the order found (breadth first) */
	struct cs_loc cpu;   /* the first CPU-only marker reached (AT_DISPATCH_*,
	                        cpu_kernel..., at::cpu::...), also for kind
	                        CS_STUB_BACKED (a shared kernel may check bounds
	                        with AT_DISPATCH); file NULL when none */
	char *cpu_why;       /* that marker as written, "AT_DISPATCH_V2" (owned) */
	int cpu_depth;       /* calls from the kernel to the marker's function */
	int truncated;       /* some callee lay deeper than CS_MAX_DEPTH */
	char *why;           /* one line for people (owned) */
};

/* cs_discover: discovery for the kernel named KERNEL (an identifier).
 *
 * Its definitions are the functions named KERNEL in namespace at::native
 * (TORCH_IMPL_FUNC(KERNEL) counts, as does a definition a macro line
 * produces), outside the cpu/ folder.  Overloads: all of them are read and
 * the stubs are the union; the kind is CS_STUB_BACKED when any reaches a
 * stub (a caller folding the row needs every stub any overload reaches),
 * else CS_CPU_ONLY when any has a CPU-only marker, else CS_DEVICE_GENERIC.
 *
 * Each body is scanned (string literals skipped, macros expanded) for:
 *   - stubs: an identifier declared by DECLARE_DISPATCH, or one ending in
 *     "_stub" that is not a function defined under CS_NATIVE_REL, called
 *     (CS_CALLED: `X_stub(iter.device_type(), ..)`, `X_stub(kCPU, ..)`,
 *     `X_stub(device_type(), *this)`) or written as a value (CS_PASSED:
 *     `unary_op_impl_out(result, self, abs_stub)`); member accesses
 *     (`.x_stub`) and the function's own parameters (a helper's `Stub&
 *     stub`, or a parameter named like a stub, as scatter_impl's
 *     `fill_stub`) do not count;
 *   - CPU-only markers, within CS_CPU_DEPTH calls: a call of
 *     AT_DISPATCH_* (not the sparse AT_DISPATCH_*_LAYOUTS, which switch on
 *     layouts), of a function whose name starts with "cpu_" (cpu_kernel,
 *     cpu_kernel_vec, cpu_serial_kernel, at::native::cpu_*), or of
 *     anything qualified by a namespace named cpu (at::cpu::).  Raw memory
 *     access without a dtype dispatch (memcpy of data_ptr, an MKL call) is
 *     not recognised;
 *   - calls followed into other definitions (breadth first, each
 *     definition once, so cycles end; at most CS_MAX_DEPTH calls deep):
 *     an unqualified call `f(..)` or `f<..>(..)` goes to the definitions
 *     of f in the same file when there are any, else to all of them
 *     outside cpu/; `at::native::f` / `native::f` to those in namespace
 *     at::native; `Q::f` to those in a namespace ending in Q or owned by
 *     struct Q; `at::f` (other than at::native) and member calls
 *     `x.f(..)` / `x->f(..)` are calls of operators and are not followed;
 *   - device guards: a stub or call inside the branch of an `if` whose
 *     condition requires devices other than MPS runs only there; a stub
 *     every path of which is so guarded gets the devices in cs_stub.guard
 *     (the paths' devices: the intersection along a path, the union over
 *     paths).  Conditions read: `E.device().type() == DeviceType::CUDA`,
 *     `E.device_type() == kCPU` (either side; at::, c10::), `E.is_cuda()`
 *     and the other is_DEVICE() methods, such tests joined by `||`, and
 *     `&&` with other terms (which do not widen them); a call of a helper
 *     that, before returning anything but false, returns false unless a
 *     device test holds (`if (!self.device().is_cpu()) return false;`).
 *     Not read (the stub stays unguarded): negations and `!=`, `else`
 *     branches, switches, ternaries, a loop or another if as an if's
 *     branch without braces, conditions inside macro bodies.  (From
 *     2.6.0's TensorAdvancedIndexing.cpp: _index_put_impl_ sorts for CUDA
 *     and XPU only; can_use_expanded_index_path is false off CPU.);
 *   - struct names: an identifier naming a struct or class defined under
 *     CS_NATIVE_REL (outside cpu/), e.g. the functor given as template
 *     argument in `templates::uniform_impl_<UniformStub, Generator>(...)`,
 *     makes its member functions reached (same file first, as for calls);
 *     all of them: overloads are not resolved, so BernoulliStub's two
 *     operator()s give both bernoulli stubs to each bernoulli kernel.
 *
 * Fills *out (caller frees with cs_discovery_free) and returns out->kind.
 * KERNEL that is not an identifier gives CS_UNKNOWN with a why. */
int cs_discover(const struct cs_model *m, const char *kernel,
                struct cs_discovery *out);

void cs_discovery_free(struct cs_discovery *d);

/* cs_stub_declared: 1 when a file under CS_NATIVE_REL declares stub NAME
 * with DECLARE_DISPATCH, else 0; *at (when AT is not NULL) is set to the
 * declaration, the first one in a header when there is one. */
int cs_stub_declared(const struct cs_model *m, const char *name,
                     struct cs_loc *at);

/* ---- B. CPU dtypes ---- */

struct cs_dtypes {
	int found;           /* 1: the registered function was found and its
	                        dtypes read */
	int registered;      /* a CPU registration of the stub exists */
	int null_kernel;     /* it registers nullptr (REGISTER_NO_CPU_DISPATCH) */
	char *fn;            /* the registered function, unqualified (owned) */
	char *macro;         /* the registering macro as written in the file
	                        ("REGISTER_DISPATCH", or a file-local wrapper
	                        such as "IMPLEMENT_FLOAT_KERNEL_WITHOUT_AVX512") */
	struct cs_loc reg;   /* the registration */
	struct cs_loc def;   /* the function's definition */
	cs_dtset types;      /* every dtype read: the union of all sites */
	cs_dtset branch;     /* the part of types that came from a dtype branch
	                        (`if (dtype == kBool) ...`) rather than from a
	                        dispatch macro */
	size_t nsites;       /* dispatch macros read */
	char *notes;         /* "; "-joined remarks (owned, "" when none): a
	                        dtype branch, several dispatch sites (union),
	                        nested dispatch, read through a helper, a
	                        dispatch macro it cannot read */
	char *why;           /* when !found: why not, for people (owned) */
};

/* cs_cpu_dtypes: the dtypes of the CPU kernel registered for STUB.
 *
 * The registration: REGISTER_DISPATCH(STUB, fn), ALSO_REGISTER_AVX512_DISPATCH,
 * ALSO_REGISTER_SVE256_DISPATCH, REGISTER_ARCH_DISPATCH(STUB, ARCH, fn),
 * REGISTER_ALL_CPU_DISPATCH(STUB, fn), REGISTER_NO_CPU_DISPATCH(STUB)
 * (nullptr), also when a file-local macro produces it
 * (IMPLEMENT_FLOAT_KERNEL_WITHOUT_AVX512(ceil) → REGISTER_DISPATCH(ceil_stub,
 * &CPU_CAPABILITY::ceil_kernel)); one in the cpu/ folder first, else
 * anywhere under CS_NATIVE_REL.  fn: `&CPU_CAPABILITY::f`, `&ns::f`, `f`,
 * `&f<...>`: the function f, defined in the registering file first.
 *
 * Its body (macros expanded) gives the dtypes: each AT_DISPATCH_X[_ANDn]
 * call (table: cs_dispatch_macro_types, plus the n scalar types written
 * first), AT_DISPATCH_SWITCH with AT_DISPATCH_CASE_X[_ANDn] and
 * AT_DISPATCH_CASE(kT, ...) cases, AT_DISPATCH_V2(dtype, name, body,
 * types...) with AT_EXPAND(list) and single types; and every `if`
 * condition comparing a dtype with `== kT` / `== ScalarType::T` (a branch
 * handled without dispatch, e.g. bitwise_not's Bool).  The result is the
 * union of all of them.  AT_DISPATCH_INDEX_TYPES is about index tensors
 * and is left out (noted).  When the function's own body dispatches
 * nothing, the functions it calls (same file first, then the cpu/ folder)
 * are read instead, up to 3 calls deep (noted).
 *
 * Fills *out (caller frees with cs_dtypes_free); returns 0 when found,
 * 1 when not (out->why says why: no registration, nullptr, the function
 * not found, no dispatch readable). */
int cs_cpu_dtypes(const struct cs_model *m, const char *stub,
                  struct cs_dtypes *out);

void cs_dtypes_free(struct cs_dtypes *d);

/* ---- B. output rule ---- */

enum cs_rule {
	CS_RULE_UNKNOWN = 0,
	CS_RULE_SAME,        /* output dtype = the (common) input dtype */
	CS_RULE_FLOAT,       /* integer (and bool) inputs give a float output */
	CS_RULE_BOOL,        /* the output is bool */
	CS_RULE_MIXED        /* branches of the meta function disagree */
};

/* cs_rule_name: "unknown", "same", "float", "bool", "mixed". */
const char *cs_rule_name(int rule);

struct cs_outrule {
	int rule;            /* enum cs_rule */
	char *meta;          /* the meta function as found, e.g.
	                        "TORCH_META_FUNC(sqrt)" or
	                        "TORCH_META_FUNC2(div, Tensor_mode)" (owned) */
	char *builder;       /* the builders called, ", "-joined (owned) */
	struct cs_loc at;    /* the meta function (or its macro line) */
	cs_dtset rejects;    /* input dtypes its TORCH_CHECKs reject:
	                        `x.scalar_type() != kT` / `x.dtype() != kT`
	                        → T; `!x.is_complex()` → the complex types */
	struct cs_loc reject_at;
	cs_dtset before_stub;/* input dtypes the implementation handles before
	                        (without) the stub */
	struct cs_loc before_at; /* the `if` that does it */
	char *impl;          /* the implementation read for before_stub
	                        (owned), NULL when none was found */
	char *why;           /* one line for people (owned) */
};

/* cs_output_rule: the output dtype rule of operator OP ("sqrt",
 * "div.Tensor_mode", "lerp.Tensor"), from its structured meta function.
 *
 * The meta function: TORCH_META_FUNC(base_overload) or
 * TORCH_META_FUNC2(base, overload) when OP names an overload;
 * TORCH_META_FUNC(base) otherwise, else the overloads' meta functions of
 * base when they all agree.  Its builders: build_borrowing_unary_op,
 * build_unary_op, build_borrowing_binary_op, build_binary_op,
 * build_ternary_op, build_output_borrowing_argument_owning_unary_op →
 * same; build_borrowing_unary_float_op, build_unary_float_op,
 * build_borrowing_binary_float_op, build_binary_float_op → float;
 * build_borrowing_unary_force_boolean_op, build_comparison_op,
 * build_borrowing_comparison_op,
 * build_borrowing_except_last_argument_comparison_op → bool (the
 * TensorIterator.h builders of 2.6.0); build(TensorIteratorConfig()...)
 * → float with .promote_integer_inputs_to_float(true), bool with
 * .declare_static_dtype(kBool) (or _and_device), else same.
 *
 * "Handled before the stub": in the implementation KERNEL (NULL: base +
 * "_out", else base), an `if (COND)` whose branch reaches no stub, while
 * its `else` (or, when the branch returns, the code after it) does; COND
 * one or more `||`-joined dtype tests: `x.dtype() == kT`,
 * `x.scalar_type() == kT`, `isIntegralType(t, false|true)` (Byte, Char,
 * Short, Int, Long, UInt16, UInt32, UInt64, and Bool when true, as
 * c10/core/ScalarType.h), `isFloatingType(t)`, `isComplexType(t)`,
 * `x.is_complex()`, `x.is_floating_point()`.  signbit_out fills the result
 * for Bool; ceil_out copies integer inputs; nan_to_num_out copies integer
 * and bool inputs.
 *
 * Fills *out (caller frees with cs_outrule_free); returns out->rule. */
int cs_output_rule(const struct cs_model *m, const char *op,
                   const char *kernel, struct cs_outrule *out);

void cs_outrule_free(struct cs_outrule *r);

/* ---- B. the TensorIterator a shared kernel builds ---- */

struct cs_iterrule {
	int rule;            /* enum cs_rule: CS_RULE_UNKNOWN when none read */
	char *builder;       /* "TensorIterator::unary_float_op",
	                        "build_borrowing_binary_op",
	                        "TensorIteratorConfig()...build()" (owned) */
	char *in;            /* the function that calls it (owned) */
	struct cs_loc at;    /* the call */
	char *stub_args;     /* what the stub gets after the iterator, as
	                        written, ", "-joined: the arguments after
	                        (device, iter) of its call, or those after it
	                        in the call it is passed to
	                        ("Scalar(eps ? eps.value() : -1.0)"); NULL
	                        when none or STUB not reached (owned) */
	struct cs_loc stub_at; /* that reach */
	char *why;           /* one line for people (owned) */
};

/* cs_iter_rule: the output dtype rule of the shared kernel KERNEL (an
 * identifier: the value of a `CPU, CUDA: K` line) when it is not
 * structured, from the TensorIterator it builds: its definitions in
 * namespace at::native (outside cpu/), then the functions they call
 * (followed as cs_discover does, breadth first, at most CS_CPU_DEPTH
 * calls deep), until one builds an iterator with a builder of
 * TensorIterator.h (2.6.0): TensorIterator::unary_op, borrowing_unary_op,
 * binary_op, borrowing_binary_op, nullary_op, borrowing_nullary_op ->
 * same; unary_float_op, binary_float_op -> float; comparison_op -> bool;
 * the build_* helpers of cs_output_rule; a TensorIteratorConfig() chain
 * (read as cs_output_rule reads build(TensorIteratorConfig()...); one
 * with .check_all_same_dtype(false) and neither promotion nor a static
 * dtype: mixed, the output's dtype is the out tensor's, complex_out).
 * logit_out -> unary_op_impl_float_out -> TensorIterator::unary_float_op:
 * float.  STUB (or NULL): the stub whose arguments to record (stub_args).
 * Fills *out (cs_iterrule_free) and returns out->rule. */
int cs_iter_rule(const struct cs_model *m, const char *kernel,
                 const char *stub, struct cs_iterrule *out);

void cs_iterrule_free(struct cs_iterrule *r);

/* ---- B. half and bfloat computed in float ---- */

struct cs_opmath {
	int found;           /* the stub's CPU kernel was found */
	int opmath;          /* it computes Half and BFloat16 in float */
	size_t nsites;       /* its dispatch sites covering Half or BFloat16
	                        (the scalar-operand special case aside) */
	struct cs_loc at;    /* the first of them */
	char *marker;        /* the first conversion seen ("float(...)",
	                        "static_cast<float>", "opmath_type",
	                        "acc_type", "convert_to_float") (owned) */
	struct cs_loc marker_at;
	char *why;           /* one line for people (owned) */
};

/* cs_cpu_opmath: whether the CPU kernel registered for STUB (found as
 * cs_cpu_dtypes finds it) computes half and bfloat in float, the reading
 * behind REGISTER_OPMATH_BINARY_OP: every AT_DISPATCH_* site of its own
 * body (AT_DISPATCH_V2 and the CASE forms too) whose dtypes include Half
 * or BFloat16 converts its operands to float in its lambdas (float(a),
 * static_cast<float>(a), opmath_t / at::opmath_type, acc_type,
 * convert_to_float), leaving out the sites that read a scalar operand
 * apart (original_scalar_value, remove_operand: mul and div_true's
 * special case).  2.6.0: tanh_backward_kernel's reduced-float branch
 * converts (opmath); div_trunc_kernel's general site and nextafter's
 * reduced branch compute in the type itself (not).  The CUDA kernels are
 * not read.  Returns out->opmath; free with cs_opmath_free. */
int cs_cpu_opmath(const struct cs_model *m, const char *stub,
                  struct cs_opmath *out);

void cs_opmath_free(struct cs_opmath *o);

/* ---- the stub's function type ---- */

enum cs_param_kind {
	CS_PARAM_OTHER = 0,  /* Generator, a tensor, ... */
	CS_PARAM_SCALAR,     /* const Scalar&, Scalar */
	CS_PARAM_INT,        /* int64_t, int, long */
	CS_PARAM_DOUBLE,     /* double, float */
	CS_PARAM_BOOL,
	CS_PARAM_OPT_DOUBLE, /* std::optional<double> */
	CS_PARAM_OPT_INT     /* std::optional<int64_t> */
};

struct cs_param {
	char *type;          /* as written, trimmed ("const Scalar&") (owned) */
	char *name;          /* the parameter's name, or NULL (owned) */
	int kind;            /* enum cs_param_kind */
};

struct cs_signature {
	int found;
	struct cs_loc at;    /* the DECLARE_DISPATCH */
	char *type;          /* the function type, alias resolved:
	                        "void(*)(TensorIteratorBase&, const Scalar& a)"
	                        (owned) */
	int iterator;        /* its first parameter is a TensorIterator(Base)& */
	struct cs_param *params; /* the parameters after the first (owned) */
	size_t nparams;
	char *why;           /* when !found (owned) */
};

/* cs_stub_signature: the function type of stub STUB, from its
 * DECLARE_DISPATCH(TYPE, STUB) (a header's first): TYPE written as a
 * function pointer `void(*)(...)`, or an alias of one declared by `using
 * NAME = ...;` or `typedef R (*NAME)(...);` in the same file or another
 * header under CS_NATIVE_REL (UnaryOps.h: using unary_fn_with_scalar =
 * void(*)(TensorIteratorBase&, const Scalar& a)).  The parameters after
 * the iterator are what the stub's kernel takes besides it: logit_stub
 * one Scalar, round_decimals_stub one int64_t.  Returns 0 (out->found),
 * or -1 with out->why.  Free with cs_signature_free. */
int cs_stub_signature(const struct cs_model *m, const char *stub,
                      struct cs_signature *out);

void cs_signature_free(struct cs_signature *s);

#endif
