/* outrule.h — the output dtype rule of an operator, read from its
 * structured meta function in the C++ model (cppmodel.h), and the input
 * dtypes the shared implementation handles before the stub.  Issue #14.
 *
 * Layer: read/.  May call base/, edit/ and read/ (calls base/ and read/
 * cppmodel, stubs, dtypes).
 */
#ifndef MK_OUTRULE_H
#define MK_OUTRULE_H

#include "read/dtypes.h"

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

#endif
