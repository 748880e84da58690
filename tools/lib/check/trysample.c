/* trysample.c — try.h's input classes: which inputs PyTorch's own MPS
 * tests sample, so that mps-try's exit status follows what they would
 * see (issue #25).  The facts below were read in PyTorch 2.6.0's and
 * current main's torch/testing/_internal/opinfo/core.py,
 * torch/testing/_creation.py, torch/testing/_internal/common_dtype.py and
 * test/test_mps.py (read, not copied: the values are numbers the tests
 * use, the words ours). */
#include "check/try.h"
#include "base/diag.h"
#include "base/scan.h"
#include "read/hostscan.h"
#include "read/metalreg.h"

#include <ctype.h>
#include <stdlib.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

const struct try_class_rule try_class_rules[TRY_NCLASS] = {
	{TRY_SAMPLED, 1, "sampled",
	 "finite values in make_tensor's default range (floating -9..9 down "
	 "to 0.001 in magnitude, integers -9..9, uint8 0..9, both bools) and "
	 "the hand-picked small values (0, -0, "
	 "+-0.001, +-0.25, +-1, +-pi/2, +-pi and pi +- 1e-5; integers +-1, "
	 "+-55, +-127, -128; uint8 55, 127, 128, 190, 210, 220, 254)",
	 "torch/testing/_creation.py make_tensor (the range OpInfo "
	 "sample_inputs draw from); opinfo/core.py "
	 "generate_elementwise_binary_small_value_tensors, which the unary "
	 "reference inputs reuse"},
	{TRY_SAMPLED_LARGE, 1, "large",
	 "the hand-picked large values, against each other: +-501, +-1001.2, "
	 "+-13437.7 (float16), also +-4988429.2, +-1e20 (float32, bfloat16), "
	 "+-1113, +-10701 (int16, int32, int64)",
	 "opinfo/core.py generate_elementwise_binary_large_value_tensors "
	 "(unary: generate_elementwise_unary_large_value_tensors)"},
	{TRY_SAMPLED_EXTREMAL, 1, "extremal",
	 "NaN (quiet), inf, -inf against each other (complex: both components "
	 "so, binary kernels); for eq, ne, gt, ge, lt, le, logical_and, "
	 "logical_or and logical_xor also against range values",
	 "opinfo/core.py generate_elementwise_binary_extremal_value_tensors, "
	 "generate_elementwise_unary_extremal_value_tensors, "
	 "generate_elementwise_binary_with_scalar_and_type_promotion_samples"},
	{TRY_SIGNALING_NAN, 0, "signaling NaN",
	 "a NaN with the quiet bit clear",
	 "no generator makes one: make_tensor draws uniform values, the "
	 "extremal values are float('nan'), a quiet NaN"},
	{TRY_SUBNORMAL, 0, "subnormal",
	 "float32 and bfloat16 subnormals",
	 "never drawn (make_tensor's values and the hand-picked ones are "
	 "normal there); the GPU's float arithmetic may flush them "
	 "(tools/metal-host/README.md)"},
	{TRY_TINY, 0, "tiny",
	 "nonzero floating values under 0.001 in magnitude (half subnormals "
	 "among them), as a value or a complex component",
	 "torch/testing/_creation.py make_tensor draws uniformly on [-9, 9]: "
	 "a draw lands under 0.001 once in 9,000, and an OpInfo's samples "
	 "draw a few hundred values of a dtype; the hand-picked small values "
	 "of opinfo/core.py stop at +-0.001"},
	{TRY_PAST_RANGE, 0, "past the sampled range",
	 "finite values past make_tensor's range and not hand-picked: overflow "
	 "edges (cosh(89)), the dtype's extremes, integers past the range "
	 "(MIN, MAX, shift counts past the width)",
	 "torch/testing/_creation.py make_tensor's default low and high; "
	 "opinfo/core.py's small and large value lists"},
	{TRY_MIXED, 0, "mixed operands",
	 "operands from different sets: a finite value against NaN or an "
	 "infinity, a range value against a large one, a floating zero "
	 "against a value no list picks (a complex zero component with one)",
	 "opinfo/core.py: the binary generators cross each set with itself "
	 "(the NaN-propagation sample puts NaN in both operands at the same "
	 "places; the small values, zero among them, are crossed with each "
	 "other); make_tensor never draws an exact zero (a uniform draw "
	 "on [-9, 9] rounds to zero with a chance under 1e-8)"},
	{TRY_COMPLEX_NONFINITE, 0, "complex infinity or NaN",
	 "a complex value with an infinite or NaN component (unary kernels; "
	 "binary ones when not both components of both operands are "
	 "extremal)",
	 "opinfo/core.py: the binary extremal values are all-extremal pairs; "
	 "the unary ones reach complex dtypes only when the OpInfo sets "
	 "handles_complex_extremal_values (not read here; many complex "
	 "functions turn it off in common_methods_invocations.py)"},
	{TRY_OPINFO_OUTSIDE, 0, "outside the OpInfo's samples",
	 "values the operator's OpInfo keeps out of its samples: outside its "
	 "domain (each component of a complex value), large values when it "
	 "sets handles_large_floats=False, large and extremal tensor values "
	 "of a unary kernel of a BinaryUfuncInfo (a tensor with a scalar), "
	 "a zero second operand when the entry's rhs_make_tensor_kwargs sets "
	 "exclude_zero=True",
	 "common_methods_invocations.py (the checkout's, else the reference "
	 "torch's): the entry's domain= and handles_large_floats=; opinfo/core.py "
	 "sample_inputs_elementwise_unary draws from [low + 1e-5, high - 1e-5], "
	 "_filter_unary_elementwise_tensor clamps the reference values to it, "
	 "_reference_inputs_elementwise_unary skips the large values; "
	 "generate_elementwise_binary_small_value_tensors and make_tensor "
	 "honour exclude_zero; "
	 "generate_elementwise_binary_with_scalar_samples draws the tensor "
	 "with make_tensor"},
	{TRY_DTYPE_UNTESTED, 0, "dtype not tested",
	 "a dtype test_output_match does not run: complex32",
	 "test/test_mps.py MPS_DTYPES: common_dtype.py get_all_dtypes(), "
	 "which leaves complex32 out"},
};

int try_case_class(const char *in)
{
	return !strcmp(in, "half2") ? TRY_DTYPE_UNTESTED : TRY_SAMPLED;
}

/* the large values of a floating dtype (core.py's lists) */
static int is_large_float(const char *dt, double v)
{
	static const double f16[] = {501, 1001.2, 13437.7};
	static const double more[] = {4988429.2, 1e20};
	size_t i;
	double a = fabs(v);
	for (i = 0; i < 3; i++)
		if (a == fabs(try_round_to(dt, f16[i])))
			return 1;
	if (!strcmp(dt, "half"))
		return 0;
	for (i = 0; i < 2; i++)
		if (a == fabs(try_round_to(dt, more[i])))
			return 1;
	return 0;
}

/* the class of one real floating value of dtype DT (float, half, bfloat)
 * at P */
static int real_class(const char *dt, const unsigned char *p)
{
	double v, im;
	int nan, quiet, sub;
	if (!strcmp(dt, "float")) {
		uint32_t u;
		memcpy(&u, p, 4);
		nan = (u & 0x7fffffffu) > 0x7f800000u;
		quiet = (u & 0x00400000u) != 0;
		sub = (u & 0x7f800000u) == 0 && (u & 0x007fffffu) != 0;
	} else {
		uint16_t h;
		int half = dt[0] == 'h';
		memcpy(&h, p, 2);
		if (half) {
			nan = (h & 0x7fffu) > 0x7c00u;
			quiet = (h & 0x0200u) != 0;
			sub = 0; /* under 0.001: TRY_TINY */
		} else {
			nan = (h & 0x7fffu) > 0x7f80u;
			quiet = (h & 0x0040u) != 0;
			sub = (h & 0x7f80u) == 0 && (h & 0x007fu) != 0;
		}
	}
	if (nan)
		return quiet ? TRY_SAMPLED_EXTREMAL : TRY_SIGNALING_NAN;
	if (sub)
		return TRY_SUBNORMAL;
	try_value(dt, p, 0, &v, &im);
	if (isinf(v))
		return TRY_SAMPLED_EXTREMAL;
	if (v != 0 && fabs(v) < fabs(try_round_to(dt, 0.001)))
		return TRY_TINY;
	if (fabs(v) <= 9)
		return TRY_SAMPLED;
	if (is_large_float(dt, v))
		return TRY_SAMPLED_LARGE;
	return TRY_PAST_RANGE;
}

static int int_class(const char *dt, int64_t v)
{
	static const int64_t small[] = {55, 127};
	static const int64_t usmall[] = {55, 127, 128, 190, 210, 220, 254};
	size_t i;
	if (!strcmp(dt, "bool"))
		return TRY_SAMPLED;
	if (!strcmp(dt, "uchar")) {
		if (v <= 9)
			return TRY_SAMPLED;
		for (i = 0; i < sizeof usmall / sizeof *usmall; i++)
			if (v == usmall[i])
				return TRY_SAMPLED;
		return TRY_PAST_RANGE;
	}
	if (v >= -9 && v <= 9)
		return TRY_SAMPLED;
	for (i = 0; i < sizeof small / sizeof *small; i++)
		if (v == small[i] || v == -small[i])
			return TRY_SAMPLED;
	if (v == -128)
		return TRY_SAMPLED;
	if (strcmp(dt, "char") != 0 &&
	    (v == 1113 || v == -1113 || v == 10701 || v == -10701))
		return TRY_SAMPLED_LARGE;
	return TRY_PAST_RANGE;
}

static int is_sampled(int c)
{
	return c == TRY_SAMPLED || c == TRY_SAMPLED_LARGE || c == TRY_SAMPLED_EXTREMAL;
}

/* of two classes, the one that says more: the rarest kind of input */
static int worse(int a, int b)
{
	static const int order[] = {TRY_SIGNALING_NAN, TRY_SUBNORMAL, TRY_TINY,
	                            TRY_COMPLEX_NONFINITE, TRY_PAST_RANGE, TRY_MIXED};
	size_t i;
	for (i = 0; i < sizeof order / sizeof *order; i++)
		if (a == order[i] || b == order[i])
			return order[i];
	return a;
}

/* the magnitudes of opinfo/core.py's hand-picked small values
 * (generate_elementwise_binary_small_value_tensors; each with both signs,
 * and 0, -0): the first PICKED_OFF_EDGES are not among trynum.c's edge
 * values, so try_picked_values adds them */
static const double picked_small_vals[] = {0.001, 3.141592653589793, 3.141582653589793,
                                           3.141602653589793, 0.25, 1.0,
                                           1.5707963267948966};
#define PICKED_OFF_EDGES 4

/* 1 when the real floating value V of dtype DT is one of the
 * hand-picked small values, rounded to DT, or a zero */
static int picked_small(const char *dt, double v)
{
	size_t i;
	if (v == 0)
		return 1;
	for (i = 0; i < sizeof picked_small_vals / sizeof *picked_small_vals; i++)
		if (fabs(v) == try_round_to(dt, picked_small_vals[i]))
			return 1;
	return 0;
}

/* 1 when one of the floating values at P and Q (dtype DT, real) is a
 * zero and the other is not hand-picked: make_tensor never draws an exact
 * zero, and the small-value lists put zero only against their own
 * values, so no test makes the pair */
static int zero_with_drawn(const char *dt, const unsigned char *p,
                           const unsigned char *q)
{
	double a, b, im;
	try_value(dt, p, 0, &a, &im);
	try_value(dt, q, 0, &b, &im);
	return (a == 0 && !picked_small(dt, b)) || (b == 0 && !picked_small(dt, a));
}

/* 1 when element I of A or of B (dtype DT, floating or complex) is a
 * zero (every component) and the other has a component no list picks */
static int zero_against_drawn(const char *dt, const unsigned char *a,
                              const unsigned char *b, size_t i)
{
	size_t sz = try_dtype_size(dt);
	const char *comp;
	double ar, ai, br, bi;
	if (try_is_float(dt))
		return zero_with_drawn(dt, a + sz * i, b + sz * i);
	if (!try_is_complex(dt))
		return 0;
	comp = !strcmp(dt, "float2") ? "float" : "half";
	try_value(dt, a, i, &ar, &ai);
	try_value(dt, b, i, &br, &bi);
	return (ar == 0 && ai == 0 && !(picked_small(comp, br) && picked_small(comp, bi))) ||
	       (br == 0 && bi == 0 && !(picked_small(comp, ar) && picked_small(comp, ai)));
}

/* the class of one operand (element I of P, dtype DT); BINARY: a complex
 * value with both components extremal is sampled (binary extremal
 * tensors) */
static int operand_class(const char *dt, const unsigned char *p, size_t i,
                         int binary)
{
	size_t sz = try_dtype_size(dt);
	if (try_is_float(dt))
		return real_class(dt, p + sz * i);
	if (try_is_complex(dt)) {
		const char *comp = !strcmp(dt, "float2") ? "float" : "half";
		size_t cs = sz / 2;
		int r = real_class(comp, p + sz * i), m = real_class(comp, p + sz * i + cs);
		if (!is_sampled(r) || !is_sampled(m)) {
			if (r == TRY_SIGNALING_NAN || m == TRY_SIGNALING_NAN)
				return TRY_SIGNALING_NAN;
			if (r == TRY_SUBNORMAL || m == TRY_SUBNORMAL)
				return TRY_SUBNORMAL;
			if (r == TRY_TINY || m == TRY_TINY)
				return TRY_TINY;
			if (r == TRY_SAMPLED_EXTREMAL || m == TRY_SAMPLED_EXTREMAL)
				return TRY_COMPLEX_NONFINITE;
			return TRY_PAST_RANGE;
		}
		if (r == TRY_SAMPLED_EXTREMAL || m == TRY_SAMPLED_EXTREMAL)
			return r == m && binary ? TRY_SAMPLED_EXTREMAL : TRY_COMPLEX_NONFINITE;
		if (r == TRY_SAMPLED && m == TRY_SAMPLED &&
		    zero_with_drawn(comp, p + sz * i, p + sz * i + cs))
			return TRY_MIXED;
		return r == m ? r : TRY_MIXED;
	}
	return int_class(dt, try_ivalue(dt, p, i));
}

/* the operators whose samples put extremal scalars against range values
 * (core.py generate_elementwise_binary_with_scalar_and_type_promotion_samples) */
static int extremal_scalars(const char *op)
{
	static const char *const ops[] = {"eq", "ne", "gt", "ge", "lt", "le",
	                                  "logical_and", "logical_or",
	                                  "logical_xor", NULL};
	size_t i;
	for (i = 0; ops[i]; i++)
		if (!strcmp(op, ops[i]))
			return 1;
	return 0;
}

/* 1 when the real value V of dtype DT is outside OI's domain as the
 * samples draw it: [low + eps, high - eps], integers [ceil, floor] of
 * that, uint8 from 0; NaN is kept (the clamp keeps it), an infinity past
 * a closed side is not (clamped to it) */
static int outside_domain(const struct try_opinfo *oi, const char *dt, double v)
{
	const double eps = 1e-5; /* opinfo/core.py _domain_eps */
	double lo = oi->low + eps, hi = oi->high - eps;
	if (isnan(v))
		return 0;
	if (!try_is_float(dt) && !try_is_complex(dt)) {
		lo = ceil(lo);
		hi = floor(hi);
		if (!strcmp(dt, "uchar") && lo < 0)
			lo = 0;
	}
	return (oi->has_low && v < lo) || (oi->has_high && v > hi);
}

/* 1 when OI says PyTorch does not test the reference values of class
 * CLS (large, extremal) for dtype DT */
static int untested_class(const struct try_opinfo *oi, const char *dt, int cls)
{
	unsigned bit = try_opinfo_dtype_bit(dt);
	if (!oi || !oi->found)
		return 0;
	return (cls == TRY_SAMPLED_LARGE && (oi->untested_large & bit)) ||
	       (cls == TRY_SAMPLED_EXTREMAL && (oi->untested_extremal & bit));
}

/* the class OI gives element I of A (dtype DT) of a unary case, or -1 */
static int opinfo_class(const struct try_opinfo *oi, const char *dt,
                        const unsigned char *a, size_t i, int cls)
{
	double re, im;
	if (!oi || !oi->found || !strcmp(dt, "bool"))
		return -1;
	if (cls == TRY_SAMPLED_LARGE && !oi->large_floats &&
	    (try_is_float(dt) || try_is_complex(dt)))
		return TRY_OPINFO_OUTSIDE;
	if (oi->binary && (cls == TRY_SAMPLED_LARGE || cls == TRY_SAMPLED_EXTREMAL))
		return TRY_OPINFO_OUTSIDE;
	if (untested_class(oi, dt, cls))
		return TRY_OPINFO_OUTSIDE;
	if (!oi->unary || (!oi->has_low && !oi->has_high))
		return -1;
	if (try_is_float(dt) || try_is_complex(dt))
		try_value(dt, a, i, &re, &im);
	else {
		re = (double)try_ivalue(dt, a, i);
		im = 0;
	}
	if (outside_domain(oi, dt, re) || (try_is_complex(dt) && outside_domain(oi, dt, im)))
		return TRY_OPINFO_OUTSIDE;
	return -1;
}

/* 1 when element I of P (dtype DT) is zero (either sign; complex: both
 * components) */
static int is_zero(const char *dt, const unsigned char *p, size_t i)
{
	double re, im;
	if (try_is_float(dt) || try_is_complex(dt)) {
		try_value(dt, p, i, &re, &im);
		return re == 0 && (!try_is_complex(dt) || im == 0);
	}
	return try_ivalue(dt, p, i) == 0;
}

static int classify(const struct try_reg *reg, const char *op, const struct try_opinfo *oi,
                    const unsigned char *a, const unsigned char *b, size_t i);

int try_classify(const struct try_reg *reg, const char *op, const struct try_opinfo *oi,
                 const unsigned char *a, const unsigned char *b, size_t i)
{
	int c = classify(reg, op, oi, a, b, i);
	/* rhs_make_tensor_kwargs=dict(exclude_zero=True): no sample divides by
	   zero (make_tensor swaps a drawn zero for the dtype's tiny or 1, the
	   hand-picked small values a zero divisor for 1) */
	if (b && is_sampled(c) && oi && oi->found && oi->rhs_nonzero &&
	    strcmp(reg->in, "bool") != 0 && is_zero(reg->in, b, i))
		return TRY_OPINFO_OUTSIDE;
	return c;
}

static int classify(const struct try_reg *reg, const char *op, const struct try_opinfo *oi,
                    const unsigned char *a, const unsigned char *b, size_t i)
{
	int binary = b != NULL, ca, cb;
	if (try_case_class(reg->in) != TRY_SAMPLED)
		return try_case_class(reg->in);
	ca = operand_class(reg->in, a, i, binary);
	if (!binary) {
		int o = ca == TRY_SAMPLED || ca == TRY_SAMPLED_LARGE || ca == TRY_SAMPLED_EXTREMAL
		            ? opinfo_class(oi, reg->in, a, i, ca) : -1;
		return o >= 0 ? o : ca;
	}
	cb = operand_class(reg->in, b, i, binary);
	if (!is_sampled(ca) || !is_sampled(cb))
		return worse(is_sampled(ca) ? cb : ca, is_sampled(cb) ? ca : cb);
	if (ca == TRY_SAMPLED && cb == TRY_SAMPLED && zero_against_drawn(reg->in, a, b, i))
		return TRY_MIXED;
	if (ca == cb)
		return untested_class(oi, reg->in, ca) ? TRY_OPINFO_OUTSIDE : ca;
	if (op && extremal_scalars(op) &&
	    ((ca == TRY_SAMPLED && cb == TRY_SAMPLED_EXTREMAL) ||
	     (cb == TRY_SAMPLED && ca == TRY_SAMPLED_EXTREMAL)))
		return untested_class(oi, reg->in, TRY_SAMPLED_EXTREMAL) ? TRY_OPINFO_OUTSIDE
		                                                         : TRY_SAMPLED_EXTREMAL;
	return TRY_MIXED;
}

size_t try_picked_values(const char *dt, double *out, size_t cap)
{
	/* the large values: half has the first 6 */
	static const double large[] = {501, -501, 1001.2, -1001.2, 13437.7, -13437.7,
	                               4988429.2, -4988429.2, 1e20, -1e20};
	static const double in[] = {55, -55, 127, -127, -128, 1113, -1113, 10701, -10701};
	static const double un[] = {55, 127, 128, 190, 210, 220, 254};
	const double *v;
	size_t n, i, k = 0;
	if (try_is_float(dt)) {
		for (i = 0; i < PICKED_OFF_EDGES && k + 1 < cap; i++) {
			out[k++] = picked_small_vals[i];
			out[k++] = -picked_small_vals[i];
		}
		n = !strcmp(dt, "half") ? 6 : sizeof large / sizeof *large;
		for (i = 0; i < n && k < cap; i++)
			out[k++] = large[i];
		return k;
	}
	if (!strcmp(dt, "uchar")) {
		v = un;
		n = sizeof un / sizeof *un;
	} else if (!strcmp(dt, "char")) {
		v = in;
		n = 5;
	} else if (!strcmp(dt, "bool") || try_is_complex(dt)) {
		return 0;
	} else {
		v = in;
		n = sizeof in / sizeof *in;
	}
	for (i = 0; i < n && i < cap; i++)
		out[i] = v[i];
	return i;
}

/* the leading dotted numbers of S (at most 4) */
static int version_parts(const char *s, long *p)
{
	int k = 0;
	while (k < 4 && *s >= '0' && *s <= '9') {
		long v = 0;
		while (*s >= '0' && *s <= '9')
			v = v * 10 + (*s++ - '0');
		p[k++] = v;
		if (*s != '.')
			break;
		s++;
	}
	return k;
}

int try_version_older(const char *a, const char *b)
{
	long pa[4] = {0}, pb[4] = {0};
	int i;
	if (!a || !b || !version_parts(a, pa) || !version_parts(b, pb))
		return 0;
	for (i = 0; i < 4; i++)
		if (pa[i] != pb[i])
			return pa[i] < pb[i];
	return 0;
}

char *try_checkout_version(const char *root)
{
	char *path, *data = NULL, *r = NULL;
	size_t len, b = 0, e;
	if (!root)
		return NULL;
	path = xasprintf("%s/version.txt", root);
	if (read_file(path, &data, &len) == 0 && data) {
		while (b < len && (data[b] == ' ' || data[b] == '\t'))
			b++;
		e = b;
		while (e < len && data[e] != '\n' && data[e] != '\r')
			e++;
		while (e > b && (data[e - 1] == ' ' || data[e - 1] == '\t'))
			e--;
		if (e > b && e - b < 64)
			r = xasprintf("%.*s", (int)(e - b), data + b);
	}
	free(data);
	free(path);
	return r;
}

int try_plan_case_class(const struct try_plan *pl, size_t reg)
{
	if (pl->untested && pl->untested[reg])
		return TRY_DTYPE_UNTESTED;
	return try_case_class(pl->regs[reg].in);
}

/* 1 when the value text V (len N) of a list entry names dtype DT: None
 * (every dtype) or torch.NAME among its words, either torch spelling of
 * DT (try_torch_dtype) */
static int value_names(const char *v, size_t n, const char *dt)
{
	const char *alias, *names[2];
	size_t i, k;
	if (!(names[0] = try_torch_dtype(dt, &alias)))
		return 0;
	names[1] = alias;
	for (i = 0; i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ':'); i++)
		;
	if (n - i >= 4 && !strncmp(v + i, "None", 4))
		return 1;
	for (; i + 6 < n; i++) {
		if (strncmp(v + i, "torch.", 6) != 0)
			continue;
		for (k = 0; k < 2 && names[k]; k++) {
			size_t l = strlen(names[k]);
			char after = i + 6 + l < n ? v[i + 6 + l] : ' ';
			if (i + 6 + l <= n && !strncmp(v + i + 6, names[k], l) &&
			    !((after >= 'a' && after <= 'z') || (after >= '0' && after <= '9') ||
			      after == '_'))
				return 1;
		}
	}
	return 0;
}

/* the forward test's lists: names holding XFAIL or SKIP, none of GRAD,
 * SPARSE, MACOS (the macOS-version lists depend on the machine) */
static int forward_list(const char *name)
{
	return (strstr(name, "XFAIL") || strstr(name, "SKIP")) && !strstr(name, "GRAD") &&
	       !strstr(name, "SPARSE") && !strstr(name, "MACOS");
}

/* 1 when TEXT has a SUPPORTED_COMPLEX_OPS = { ... } set, *IN set to
 * whether a quoted name in it names OP */
static int complex_set(const char *text, const char *op, int *in)
{
	const char *p = strstr(text, "SUPPORTED_COMPLEX_OPS"), *e;
	*in = 0;
	if (!p || !(p = strchr(p, '{')) || !(e = strchr(p, '}')))
		return 0;
	while (p < e) {
		const char *q = strchr(p, '"'), *r;
		if (!q || q >= e || !(r = strchr(q + 1, '"')) || r >= e)
			break;
		{
			char *key = xasprintf("%.*s", (int)(r - q - 1), q + 1);
			if (hs_xfail_names_op(key, op))
				*in = 1;
			free(key);
		}
		p = r + 1;
	}
	return 1;
}

int try_test_lists(struct try_plan *pl, const char *root)
{
	struct hs_model m;
	size_t i, k;
	pl->untested = xcalloc(pl->nregs ? pl->nregs : 1, sizeof *pl->untested);
	for (i = 0; i < pl->nregs; i++)
		if (try_case_class(pl->regs[i].in) != TRY_SAMPLED)
			pl->untested[i] = xstrdup("complex32: test_mps.py's MPS_DTYPES leave it out");
	if (!root)
		return 0;
	if (hs_load(&m, root) != 0)
		return -1;
	for (k = 0; k < m.nfiles; k++) {
		const struct hs_file *f = &m.files[k];
		const char *grad;
		int in;
		if (f->kind != HS_PYTHON)
			continue;
		grad = strstr(f->text, "def mps_ops_grad_modifier");
		if (complex_set(f->text, pl->op_base, &in) && !in)
			for (i = 0; i < pl->nregs; i++)
				if (!pl->untested[i] && !strcmp(pl->regs[i].in, "float2"))
					pl->untested[i] = xasprintf("complex64: %s expects complex results of %s "
					                            "to fail (not in SUPPORTED_COMPLEX_OPS)",
					                            f->rel, pl->op_base);
		for (i = 0; i < m.nxfails; i++) {
			const struct hs_xfail *x = &m.xfails[i];
			const char *v;
			size_t r;
			if (x->at.file != k || !x->dict || !forward_list(x->list) ||
			    (grad && f->text + x->at.off > grad) ||
			    !hs_xfail_names_op(x->key, pl->op_base))
				continue;
			v = f->text + x->at.off + 1 + strlen(x->key) + 1;
			if (v > f->text + x->end)
				continue;
			for (r = 0; r < pl->nregs; r++)
				if (!pl->untested[r] &&
				    value_names(v, (size_t)(f->text + x->end - v), pl->regs[r].in))
					pl->untested[r] = xasprintf("%s: %s lists %s's %s in %s", pl->regs[r].in,
					                            f->rel, x->key, pl->regs[r].in, x->list);
		}
	}
	hs_free(&m);
	return 0;
}

/* ---- OpInfo entries (common_methods_invocations.py) ---- */

/* 1 when the quoted OpInfo name N (len L) is OP's: OP itself, or a dotted
 * form whose dots are OP's underscores after a known prefix */
int try_opinfo_name_is(const char *n, size_t l, const char *op)
{
	static const char *const pre[] = {"special.", "nn.functional.", "linalg.", "fft.", NULL};
	size_t i, pl;
	if (strlen(op) == l && !strncmp(n, op, l))
		return 1;
	for (i = 0; pre[i]; i++) {
		pl = strlen(pre[i]);
		if (l > pl && !strncmp(n, pre[i], pl)) {
			/* special.erfcx is special_erfcx; nn.functional.X is X */
			if (!strcmp(pre[i], "nn.functional.")) {
				if (strlen(op) == l - pl && !strncmp(n + pl, op, l - pl))
					return 1;
			} else if (strlen(op) == l && !strncmp(op, pre[i], pl - 1) &&
			           op[pl - 1] == '_' && !strncmp(op + pl, n + pl, l - pl))
				return 1;
		}
	}
	return 0;
}

/* skip a Python string literal starting at P (a quote); returns past it */
static const char *skip_string(const char *p)
{
	char q = *p;
	int triple = p[1] == q && p[2] == q;
	p += triple ? 3 : 1;
	while (*p) {
		if (*p == '\\' && p[1]) {
			p += 2;
			continue;
		}
		if (*p == q && (!triple || (p[1] == q && p[2] == q)))
			return p + (triple ? 3 : 1);
		if (*p == '\n' && !triple)
			return p;
		p++;
	}
	return p;
}

/* the end of the call whose '(' is at P (past its ')'), strings and
 * comments skipped */
static const char *call_end(const char *p)
{
	int depth = 0;
	while (*p) {
		if (*p == '\'' || *p == '"') {
			p = skip_string(p);
			continue;
		}
		if (*p == '#') {
			while (*p && *p != '\n')
				p++;
			continue;
		}
		if (*p == '(' || *p == '[' || *p == '{')
			depth++;
		else if (*p == ')' || *p == ']' || *p == '}') {
			if (--depth == 0)
				return p + 1;
		}
		p++;
	}
	return p;
}

/* the keyword KW= at depth 1 of the call [B, E) (B at its '('), or NULL */
static const char *keyword_at(const char *b, const char *e, const char *kw)
{
	size_t kl = strlen(kw);
	int depth = 0;
	const char *p = b;
	while (p < e) {
		if (*p == '\'' || *p == '"') {
			p = skip_string(p);
			continue;
		}
		if (*p == '#') {
			while (p < e && *p != '\n')
				p++;
			continue;
		}
		if (*p == '(' || *p == '[' || *p == '{')
			depth++;
		else if (*p == ')' || *p == ']' || *p == '}')
			depth--;
		else if (depth == 1 && !strncmp(p, kw, kl) && p[kl] == '=' && p[kl + 1] != '=' &&
		         (p == b || !(isalnum((unsigned char)p[-1]) || p[-1] == '_'))) {
			p += kl + 1;
			while (*p == ' ')
				p++;
			return p;
		}
		p++;
	}
	return NULL;
}

/* a literal number or None at *P (spaces skipped): 1 number (*V), 0 None,
 * -1 neither; *P moved past it */
static int side_value(const char **p, double *v)
{
	char *end;
	while (**p == ' ' || **p == '\n')
		(*p)++;
	if (!strncmp(*p, "None", 4)) {
		*p += 4;
		return 0;
	}
	*v = strtod(*p, &end);
	if (end == *p)
		return -1;
	*p = end;
	while (**p == ' ')
		(*p)++;
	return **p == ',' || **p == ')' ? 1 : -1;
}

const char *const try_opinfo_dtypes[] = {"float", "half", "bfloat", "long", "int", "short",
                                         "char", "uchar", "bool", "float2", "half2", NULL};

unsigned try_opinfo_dtype_bit(const char *dt)
{
	size_t i;
	for (i = 0; try_opinfo_dtypes[i]; i++)
		if (!strcmp(try_opinfo_dtypes[i], dt))
			return 1u << i;
	return 0;
}

/* the text of keyword KW= of the call [B, E) up to its end at depth 1
 * (the next ',' or the call's ')'): *N its length; NULL when absent */
static const char *keyword_value(const char *b, const char *e, const char *kw, size_t *n)
{
	const char *v = keyword_at(b, e, kw), *p;
	int depth = 0;
	if (!v)
		return NULL;
	for (p = v; p < e; p++) {
		if (*p == '\'' || *p == '"') {
			p = skip_string(p) - 1;
			continue;
		}
		if (*p == '(' || *p == '[' || *p == '{')
			depth++;
		else if (*p == ')' || *p == ']' || *p == '}') {
			if (depth-- == 0)
				break;
		} else if (*p == ',' && depth == 0)
			break;
	}
	*n = (size_t)(p - v);
	return v;
}

/* 1 when [P, P+N) holds the word W */
static int has_word(const char *p, size_t n, const char *w)
{
	size_t l = strlen(w), i;
	for (i = 0; i + l <= n; i++)
		if (!strncmp(p + i, w, l) &&
		    (i == 0 || !(isalnum((unsigned char)p[i - 1]) || p[i - 1] == '_')) &&
		    (i + l == n || !(isalnum((unsigned char)p[i + l]) || p[i + l] == '_')))
			return 1;
	return 0;
}

/* 1 when the call [B, E) has the quoted string S as an argument */
static int has_quoted(const char *b, const char *e, const char *s)
{
	size_t l = strlen(s);
	const char *p;
	for (p = b; p + l + 2 <= e; p++)
		if ((*p == '\'' || *p == '"') && p[l + 1] == *p && !strncmp(p + 1, s, l))
			return 1;
	return 0;
}

static int positional_string(const char *b, const char *e);
static void untested_calls(struct try_opinfo *oi, const char *text, const char *b,
                           const char *e, unsigned *compare, unsigned *whole);

/* the DecorateInfo calls of the entry [B, E) of TEXT that take a
 * reference-numerics test of large or extremal values away from every
 * device (or from mps) for some dtypes: those dtypes' bits in OI
 * (try_opinfo_parse says which calls count) */
static void untested_reference_values(struct try_opinfo *oi, const char *text,
                                      const char *b, const char *e)
{
	unsigned compare_bits = 0, whole_bits = 0, *compare = &compare_bits, *whole = &whole_bits;
	const char *ref = keyword_at(b, e, "ref");
	untested_calls(oi, text, b, e, compare, whole);
	/* TestUnaryUfuncs/TestBinaryUfuncs test only the entries with a ref;
	   TestCommon.test_compare_cpu compares the reference inputs with the
	   CPU's (common_methods_invocations.py's op lists, TestCommon) */
	if (!ref || !strncmp(ref, "None", 4)) {
		oi->untested_large |= compare_bits;
		oi->untested_extremal |= compare_bits;
	}
	oi->untested_large |= whole_bits;
	oi->untested_extremal |= whole_bits;
	if ((oi->untested_large || oi->untested_extremal) && !oi->untested_line)
		oi->untested_line = oi->line;
}

/* 1 when the call [B, E) (B just past its '(') has a quoted string as a
 * positional argument at its own depth (a test class or test name) */
static int positional_string(const char *b, const char *e)
{
	const char *p = b;
	int depth = 0;
	while (p < e) {
		if (*p == '\'' || *p == '"') {
			if (depth == 0) {
				const char *q = p;
				while (q > b && (q[-1] == ' ' || q[-1] == '\n' || q[-1] == '\t'))
					q--;
				if (q == b || q[-1] == ',')
					return 1;
			}
			p = skip_string(p);
			continue;
		}
		if (*p == '(' || *p == '[' || *p == '{')
			depth++;
		else if (*p == ')' || *p == ']' || *p == '}')
			depth--;
		p++;
	}
	return 0;
}

/* the DecorateInfo calls of the entry [B, E) (see untested_reference_values):
 * the large and extremal tests' dtypes into OI, test_compare_cpu's into
 * *COMPARE, a skip of every test's into *WHOLE */
static void untested_calls(struct try_opinfo *oi, const char *text, const char *b,
                           const char *e, unsigned *compare, unsigned *whole)
{
	const char *const *dts = try_opinfo_dtypes;
	const char *p = b;
	while ((p = strstr(p, "DecorateInfo(")) != NULL && p < e) {
		const char *open = p + 12, *de = call_end(open), *v;
		unsigned *mask = NULL, bits = 0;
		size_t n, k;
		p = open;
		if (de > e)
			break;
		if (!strstr(open, "unittest.") || strstr(open, "unittest.") > de)
			continue;
		{
			const char *u = strstr(open, "unittest.");
			if (strncmp(u, "unittest.skip", 13) != 0 &&
			    strncmp(u, "unittest.expectedFailure", 24) != 0)
				continue;
		}
		if (has_quoted(open, de, "test_reference_numerics_large") ||
		    has_quoted(open, de, "test_reference_numerics_large_values"))
			mask = &oi->untested_large;
		else if (has_quoted(open, de, "test_reference_numerics_extremal") ||
		         has_quoted(open, de, "test_reference_numerics_extremal_values"))
			mask = &oi->untested_extremal;
		else if (has_quoted(open, de, "test_compare_cpu"))
			mask = compare;
		else if (!positional_string(open + 1, de) && !strncmp(strstr(open, "unittest."),
		                                                  "unittest.skip", 13))
			mask = whole; /* no test class named: every test of the entry */
		else
			continue;
		if ((v = keyword_value(open, de, "device_type", &n)) &&
		    !(n == 5 && (!strncmp(v, "'mps'", 5) || !strncmp(v, "\"mps\"", 5))))
			continue;
		if ((v = keyword_value(open, de, "active_if", &n)) &&
		    !(has_word(v, n, "IS_MACOS") && !has_word(v, n, "and") && !has_word(v, n, "not")))
			continue;
		v = keyword_value(open, de, "dtypes", &n);
		for (k = 0; dts[k]; k++)
			if (!v || value_names(v, n, dts[k]))
				bits |= try_opinfo_dtype_bit(dts[k]);
		if (bits && mask != compare && !oi->untested_line) {
			const char *q;
			oi->untested_line = 1;
			for (q = text; q < open; q++)
				oi->untested_line += *q == '\n';
		}
		*mask |= bits;
		p = de;
	}
}

/* 1 when the kwargs text [P, P+N) (dict(exclude_zero=True) or
 * {'exclude_zero': True}) sets exclude_zero to True */
static int excludes_zero(const char *p, size_t n)
{
	const char *e = p + n, *k;
	for (k = p; k + 12 <= e; k++) {
		const char *v = k + 12;
		if (strncmp(k, "exclude_zero", 12) != 0 ||
		    (k > p && (isalnum((unsigned char)k[-1]) || k[-1] == '_')))
			continue;
		if (v < e && (*v == '\'' || *v == '"'))
			v++;
		while (v < e && *v == ' ')
			v++;
		if (v >= e || (*v != '=' && *v != ':'))
			continue;
		v++;
		while (v < e && *v == ' ')
			v++;
		return v + 4 <= e && !strncmp(v, "True", 4);
	}
	return 0;
}

int try_opinfo_parse(struct try_opinfo *oi, const char *text, const char *file,
                     const char *op)
{
	const char *p = text;
	memset(oi, 0, sizeof *oi);
	oi->large_floats = 1;
	oi->complex_extremal = 1;
	while ((p = strstr(p, "Info(")) != NULL) {
		const char *open = p + 4, *q = open + 1, *e, *kv;
		const char *kind = p;
		while (kind > text && (isalnum((unsigned char)kind[-1]) || kind[-1] == '_'))
			kind--;
		p = open + 1;
		/* ForeachFuncInfo('log') is the _foreach_ operator's entry */
		if (!strncmp(kind, "Foreach", 7))
			continue;
		{
			/* not in a comment line */
			const char *ls = kind;
			while (ls > text && ls[-1] != '\n')
				ls--;
			while (*ls == ' ' || *ls == '\t')
				ls++;
			if (*ls == '#')
				continue;
		}
		while (*q == ' ' || *q == '\n')
			q++;
		if (*q != '\'' && *q != '"')
			continue;
		{
			const char *ne = strchr(q + 1, *q);
			if (!ne || !try_opinfo_name_is(q + 1, (size_t)(ne - q - 1), op))
				continue;
		}
		e = call_end(open);
		oi->found = 1;
		oi->file = xstrdup(file);
		oi->name = xstrdup(op);
		oi->line = 1;
		for (q = text; q < kind; q++)
			oi->line += *q == '\n';
		oi->unary = (size_t)(open - kind) == strlen("UnaryUfuncInfo") &&
		            !strncmp(kind, "UnaryUfuncInfo", 14);
		oi->binary = (size_t)(open - kind) == strlen("BinaryUfuncInfo") &&
		             !strncmp(kind, "BinaryUfuncInfo", 15);
		if ((kv = keyword_at(open, e, "domain")) && *kv == '(') {
			const char *s = kv + 1;
			double lo = 0, hi = 0;
			int a = side_value(&s, &lo), b = -1;
			if (a >= 0 && *s == ',') {
				s++;
				b = side_value(&s, &hi);
			}
			if (a >= 0 && b >= 0 && *s == ')') {
				oi->has_low = a;
				oi->low = lo;
				oi->has_high = b;
				oi->high = hi;
			}
		}
		{
			size_t kn;
			if ((kv = keyword_value(open, e, "rhs_make_tensor_kwargs", &kn)) &&
			    excludes_zero(kv, kn))
				oi->rhs_nonzero = 1;
		}
		if ((kv = keyword_at(open, e, "handles_large_floats")) && !strncmp(kv, "False", 5))
			oi->large_floats = 0;
		if ((kv = keyword_at(open, e, "handles_complex_extremal_values")) &&
		    !strncmp(kv, "False", 5))
			oi->complex_extremal = 0;
		untested_reference_values(oi, text, open, e);
		/* a plain OpInfo without reference_inputs_func: its reference
		   inputs are its samples (opinfo/core.py OpInfo.reference_inputs),
		   no generator of large or extremal values */
		if ((size_t)(open - kind) == 6 && !strncmp(kind, "OpInfo", 6) &&
		    !keyword_at(open, e, "reference_inputs_func")) {
			oi->plain = 1;
			oi->untested_large = oi->untested_extremal = TRY_OPINFO_ALL_DTYPES;
			if (!oi->untested_line)
				oi->untested_line = oi->line;
		}
		return 1;
	}
	return 0;
}

int try_opinfo_load(struct try_opinfo *oi, const char *root, const char *torch_dir,
                    const char *op)
{
	static const char *const rels[] = {"common_methods_invocations.py",
	                                   "opinfo/definitions/special.py",
	                                   "opinfo/definitions/linalg.py",
	                                   "opinfo/definitions/fft.py", NULL};
	const char *bases[2];
	size_t b, k, ol = strlen(op);
	char *fwd = NULL;
	int r = 0;
	/* OP_backward: the forward's entry, whose samples the gradient tests
	   differentiate (TestConsistency.test_output_grad_match, TestGradients) */
	if (ol > 9 && !strcmp(op + ol - 9, "_backward"))
		fwd = xasprintf("%.*s", (int)(ol - 9), op);
	bases[0] = root;
	bases[1] = torch_dir;
	memset(oi, 0, sizeof *oi);
	oi->large_floats = 1;
	oi->complex_extremal = 1;
	for (b = 0; b < 2; b++) {
		if (!bases[b])
			continue;
		for (k = 0; rels[k]; k++) {
			char *path = xasprintf(b == 0 ? "%s/torch/testing/_internal/%s"
			                              : "%s/testing/_internal/%s",
			                       bases[b], rels[k]);
			char *data = NULL;
			size_t len;
			int found = 0;
			if (read_file(path, &data, &len) == 0 && data) {
				found = try_opinfo_parse(oi, data, path, op);
				if (!found && fwd)
					found = try_opinfo_parse(oi, data, path, fwd);
				if (found && fwd && !strcmp(oi->name, fwd)) {
					/* the backward runs only under the gradient tests,
					   which differentiate the forward's samples
					   (test_mps.py test_output_grad_match: sample_inputs);
					   the ufunc reference tests' large and extremal
					   values reach the forward alone */
					oi->forward = 1;
					oi->untested_large = oi->untested_extremal =
					    TRY_OPINFO_ALL_DTYPES;
					if (!oi->untested_line)
						oi->untested_line = oi->line;
				}
			}
			free(data);
			free(path);
			if (found) {
				r = 1;
				goto done;
			}
		}
	}
done:
	free(fwd);
	return r;
}

void try_opinfo_free(struct try_opinfo *oi)
{
	free(oi->file);
	oi->file = NULL;
	free(oi->name);
	oi->name = NULL;
}
