/* dtypes.h — PyTorch's scalar types, the AT_DISPATCH type table, and
 * the dtypes of the CPU kernel a stub registers, read from the C++ model
 * (cppmodel.h).  Issue #14.
 *
 * Layer: read/.  May call base/, edit/ and read/ (calls base/ and read/
 * cppmodel).
 */
#ifndef MK_DTYPES_H
#define MK_DTYPES_H

#include "read/cppmodel.h"

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

/* cs_fn_dtypes: the dtypes of the function FN (unqualified, as a
 * dispatch row names a kernel of its own: `CPU: nll_loss_forward_out_cpu`,
 * a TORCH_IMPL_FUNC body or a plain function), read from every definition
 * of FN in cs_load's files (not the meta functions) as cs_cpu_dtypes reads
 * the function a stub registers: its dispatch sites and dtype branches,
 * else those of the functions it calls, up to 3 calls deep (out->notes
 * names the helper read).  out->registered stays 0; out->def is the first
 * definition.  Returns 0 when found, 1 when not (out->why: no sources,
 * no definition, no dispatch readable).  Free with cs_dtypes_free. */
int cs_fn_dtypes(const struct cs_model *m, const char *fn,
                 struct cs_dtypes *out);

void cs_dtypes_free(struct cs_dtypes *d);

/* ---- for the readers built on the model (outrule) ---- */

/* The type families of ATen/Dispatch.h and Dispatch_v2.h as dtype sets. */
#define CS_T_INTEGRAL                                                          \
	(CS_BIT(CS_BYTE) | CS_BIT(CS_CHAR) | CS_BIT(CS_INT) | CS_BIT(CS_LONG) |     \
	 CS_BIT(CS_SHORT))
#define CS_T_FLOATING (CS_BIT(CS_DOUBLE) | CS_BIT(CS_FLOAT))
#define CS_T_COMPLEX (CS_BIT(CS_COMPLEX_DOUBLE) | CS_BIT(CS_COMPLEX_FLOAT))
#define CS_T_UNSIGNED (CS_BIT(CS_UINT16) | CS_BIT(CS_UINT32) | CS_BIT(CS_UINT64))
#define CS_T_FLOAT8                                                            \
	(CS_BIT(CS_FLOAT8_E5M2) | CS_BIT(CS_FLOAT8_E5M2FNUZ) |                    \
	 CS_BIT(CS_FLOAT8_E4M3FN) | CS_BIT(CS_FLOAT8_E4M3FNUZ))
#define CS_T_QINT (CS_BIT(CS_QINT8) | CS_BIT(CS_QUINT8) | CS_BIT(CS_QINT32))

/* dtype_span: the dtype spelled s[0, n) (as cs_dtype_parse), or -1. */
int dtype_span(const char *s, size_t n);

/* dtype_after: the dtype spelled by the qualified name (identifier bytes
 * and ':') that starts at the first non-blank from t[i] (below b);
 * dtype_before: the one that ends at the last non-blank before t[i] (not
 * below a); -1 when it spells none. */
int dtype_after(const char *t, size_t b, size_t i);
int dtype_before(const char *t, size_t a, size_t i);

/* eq_dtypes: the dtypes compared with `==` in t[a, b). */
cs_dtset eq_dtypes(const char *t, size_t a, size_t b);

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

#endif
