/* stubs.h — stub discovery on the C++ model (cppmodel.h): which
 * DispatchStubs does a shared kernel (the value of a `CPU, CUDA: K`
 * dispatch line of native_functions.yaml) reach, or does it need none
 * (device-generic), or does it only work on CPU; and on which devices
 * each stub is reached (device guards).  Issue #12.
 *
 * Layer: read/.  May call base/, edit/ and read/ (calls base/ and read/
 * cppmodel).
 */
#ifndef MK_STUBS_H
#define MK_STUBS_H

#include "read/cppmodel.h"

#include <stdint.h>

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

/* is_stub_name: s[0, n) is a stub: declared by DECLARE_DISPATCH, or
 * named *_stub and not a function defined under CS_NATIVE_REL. */
int is_stub_name(const struct cs_priv *p, const char *s, size_t n);

/* ---- the walk of stub discovery, for outrule's cs_iter_rule ---- */

/* devset: a set of devices (bit per DeviceType in stubs.c's table);
 * DEV_ANY: a path any device may take. */
typedef uint32_t devset;
#define DEV_ANY ((devset)0xffffffffu)

struct gspan;

/* struct disc: the state of a breadth-first walk from definitions
 * (cs_discover's); a caller zeroes it, sets m, out (a scratch
 * cs_discovery) and here = DEV_ANY, pushes its start definitions with
 * disc_push, walks x.q[i] with walk_def in order (x.cur, x.depth set
 * from q, qd), resolves the calls it meets with disc_resolve (NAME[0,
 * NN), its qualifier Q as tok_qual gives it), and frees q, qd and vis
 * (vis_free).  Not thread-safe; no other owner. */
struct disc {
	const struct cs_model *m;
	char **params;        /* the current definition's parameter names */
	size_t nparams;
	struct cs_discovery *out;
	long *q;
	int *qd;
	size_t qn, qcap;
	struct visited {      /* the definitions reached so far */
		long *def;        /* open addressing on the def index (-1 free) */
		devset *reach;    /* the devices the paths found to it run on */
		int *depth;       /* the depth of its first reach */
		size_t cap, n;
	} vis;
	long cur;
	devset cur_reach;     /* vis.reach of cur when its walk began */
	int depth;
	size_t cap_stubs;
	int ops;              /* calls of operators seen (at::, methods) */
	devset *sdevs;        /* per stub found: the same for its reaches */
	struct gspan *spans;  /* the guarded branches of the current body met
	                         so far (its `if`s come before their branches) */
	size_t nspans, cap_spans;
	devset here;          /* the devices the current token runs on */
};

void disc_push(struct disc *x, long d, int depth);
void disc_resolve(struct disc *x, const char *name, size_t nn, const char *q);
void vis_free(struct visited *v);

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
