/* trynum.c — try.h's numbers: dtypes, half and bfloat conversions, the
 * input values mps-try feeds a kernel, ULP distances. */
#include "check/try.h"
#include "base/diag.h"
#include "read/metalreg.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- dtypes ---- */

size_t try_dtype_size(const char *dt)
{
	if (!strcmp(dt, "float") || !strcmp(dt, "int"))
		return 4;
	if (!strcmp(dt, "half") || !strcmp(dt, "bfloat") || !strcmp(dt, "short"))
		return 2;
	if (!strcmp(dt, "long") || !strcmp(dt, "float2"))
		return 8;
	if (!strcmp(dt, "half2"))
		return 4;
	return 1; /* char uchar bool */
}

int try_is_float(const char *dt)
{
	return !strcmp(dt, "float") || !strcmp(dt, "half") || !strcmp(dt, "bfloat");
}

int try_is_complex(const char *dt)
{
	return !strcmp(dt, "float2") || !strcmp(dt, "half2");
}

int try_is_integral(const char *dt)
{
	return !try_is_float(dt) && !try_is_complex(dt);
}

/* the one table of dtype names: Metal token, torch.NAME, its other
 * torch spelling (torch.float, torch.cfloat, ...; NULL when none) */
static const struct {
	const char *metal, *torch, *alias;
} dtype_names[] = {
	{"float", "float32", "float"},    {"half", "float16", "half"},
	{"bfloat", "bfloat16", NULL},     {"long", "int64", "long"},
	{"int", "int32", "int"},          {"short", "int16", "short"},
	{"char", "int8", NULL},           {"uchar", "uint8", NULL},
	{"bool", "bool", NULL},           {"float2", "complex64", "cfloat"},
	{"half2", "complex32", "chalf"},  {"double", "float64", "double"},
	{"double2", "complex128", "cdouble"},
};

const char *try_torch_dtype(const char *dt, const char **alias)
{
	size_t i;
	for (i = 0; i < sizeof dtype_names / sizeof *dtype_names; i++)
		if (!strcmp(dtype_names[i].metal, dt)) {
			if (alias)
				*alias = dtype_names[i].alias;
			return dtype_names[i].torch;
		}
	if (alias)
		*alias = NULL;
	return NULL;
}

const char *try_metal_dtype(const char *name, size_t n)
{
	size_t i;
	for (i = 0; i < sizeof dtype_names / sizeof *dtype_names; i++) {
		const char *t = dtype_names[i].torch, *a = dtype_names[i].alias;
		if ((strlen(t) == n && !strncmp(name, t, n)) ||
		    (a && strlen(a) == n && !strncmp(name, a, n)))
			return dtype_names[i].metal;
	}
	return NULL;
}

/* ---- half and bfloat ---- */

static uint32_t f2u(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static float u2f(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

uint16_t try_f32_to_f16(float f)
{
	uint32_t x = f2u(f), sign = (x >> 16) & 0x8000u, mant;
	int exp;
	if ((x & 0x7fffffffu) > 0x7f800000u) /* NaN: quiet, keep the top bits */
		return (uint16_t)(sign | 0x7e00u | ((x >> 13) & 0x3ffu));
	x &= 0x7fffffffu;
	if (x >= 0x477ff000u) /* rounds to 65536 or more, or inf */
		return (uint16_t)(sign | 0x7c00u);
	exp = (int)(x >> 23) - 127;
	mant = x & 0x7fffffu;
	if (exp < -14) { /* subnormal half (or zero) */
		uint32_t m = mant | 0x800000u, shift;
		if (exp < -25)
			return (uint16_t)sign;
		shift = (uint32_t)(-exp - 14 + 13);
		{
			uint32_t r = m >> shift, rem = m & ((1u << shift) - 1),
			         halfway = 1u << (shift - 1);
			if (rem > halfway || (rem == halfway && (r & 1)))
				r++;
			return (uint16_t)(sign | r);
		}
	}
	{
		uint32_t h = ((uint32_t)(exp + 15) << 10) | (mant >> 13),
		         rem = mant & 0x1fffu;
		if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
			h++;
		return (uint16_t)(sign | h);
	}
}

float try_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1f,
	         m = h & 0x3ffu;
	if (e == 0) {
		float v = (float)m * 5.9604644775390625e-08f; /* 2^-24 */
		return sign ? -v : v;
	}
	if (e == 31)
		return u2f(sign | 0x7f800000u | (m << 13));
	return u2f(sign | ((e + 112) << 23) | (m << 13));
}

uint16_t try_f32_to_bf16(float f)
{
	uint32_t x = f2u(f);
	if ((x & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((x >> 16) | 0x40u);
	x += 0x7fffu + ((x >> 16) & 1);
	return (uint16_t)(x >> 16);
}

float try_bf16_to_f32(uint16_t h)
{
	return u2f((uint32_t)h << 16);
}

/* ---- reading elements ---- */

void try_value(const char *dt, const unsigned char *p, size_t i, double *re,
               double *im)
{
	*im = 0;
	if (!strcmp(dt, "float")) {
		float f;
		memcpy(&f, p + 4 * i, 4);
		*re = f;
	} else if (!strcmp(dt, "half") || !strcmp(dt, "bfloat")) {
		uint16_t h;
		memcpy(&h, p + 2 * i, 2);
		*re = dt[0] == 'h' ? try_f16_to_f32(h) : try_bf16_to_f32(h);
	} else if (!strcmp(dt, "float2")) {
		float f[2];
		memcpy(f, p + 8 * i, 8);
		*re = f[0];
		*im = f[1];
	} else if (!strcmp(dt, "half2")) {
		uint16_t h[2];
		memcpy(h, p + 4 * i, 4);
		*re = try_f16_to_f32(h[0]);
		*im = try_f16_to_f32(h[1]);
	} else {
		*re = (double)try_ivalue(dt, p, i);
	}
}

int64_t try_ivalue(const char *dt, const unsigned char *p, size_t i)
{
	if (!strcmp(dt, "long")) {
		int64_t v;
		memcpy(&v, p + 8 * i, 8);
		return v;
	}
	if (!strcmp(dt, "int")) {
		int32_t v;
		memcpy(&v, p + 4 * i, 4);
		return v;
	}
	if (!strcmp(dt, "short")) {
		int16_t v;
		memcpy(&v, p + 2 * i, 2);
		return v;
	}
	if (!strcmp(dt, "char"))
		return (int8_t)p[i];
	if (!strcmp(dt, "bool"))
		return p[i] != 0;
	if (!strcmp(dt, "uchar"))
		return p[i];
	{
		double re, im;
		try_value(dt, p, i, &re, &im);
		return (int64_t)re;
	}
}

double try_round_to(const char *dt, double d)
{
	if (!strcmp(dt, "float") || !strcmp(dt, "float2"))
		return (float)d;
	if (!strcmp(dt, "half") || !strcmp(dt, "half2"))
		return try_f16_to_f32(try_f32_to_f16((float)d));
	if (!strcmp(dt, "bfloat"))
		return try_bf16_to_f32(try_f32_to_bf16((float)d));
	return d;
}

/* the value as an ordered integer of its dtype: adjacent values differ
 * by 1, -0 and +0 both 0 */
static int64_t ordered(const char *dt, double v)
{
	int64_t u;
	int neg;
	if (!strcmp(dt, "half") || !strcmp(dt, "half2")) {
		uint16_t h = try_f32_to_f16((float)v);
		neg = h >> 15;
		u = h & 0x7fff;
	} else if (!strcmp(dt, "bfloat")) {
		uint16_t h = try_f32_to_bf16((float)v);
		neg = h >> 15;
		u = h & 0x7fff;
	} else {
		uint32_t x = f2u((float)v);
		neg = (int)(x >> 31);
		u = x & 0x7fffffff;
	}
	return neg ? -u : u;
}

double try_ulp(const char *dt, double a, double b)
{
	int64_t d;
	if (isnan(a) || isnan(b))
		return -1;
	if (a == b)
		return 0;
	d = ordered(dt, a) - ordered(dt, b);
	return (double)(d < 0 ? -d : d);
}

/* ---- scalars given as text ---- */

static int parse_number(const char *s, double *d, int64_t *iv, int *is_int)
{
	char *end;
	if (!strcmp(s, "True") || !strcmp(s, "true")) {
		*d = 1;
		*iv = 1;
		*is_int = 1;
		return 0;
	}
	if (!strcmp(s, "False") || !strcmp(s, "false")) {
		*d = 0;
		*iv = 0;
		*is_int = 1;
		return 0;
	}
	if (!strcmp(s, "inf") || !strcmp(s, "math.inf")) {
		*d = INFINITY;
		*is_int = 0;
		return 0;
	}
	if (!strcmp(s, "-inf") || !strcmp(s, "-math.inf")) {
		*d = -INFINITY;
		*is_int = 0;
		return 0;
	}
	if (!strcmp(s, "nan")) {
		*d = NAN;
		*is_int = 0;
		return 0;
	}
	*iv = strtoll(s, &end, 10);
	if (*s && !*end) {
		*is_int = 1;
		*d = (double)*iv;
		return 0;
	}
	*d = strtod(s, &end);
	if (!*s || *end)
		return -1;
	*is_int = 0;
	*iv = (int64_t)*d;
	return 0;
}

int try_alpha_bytes(const char *dt, const char *value, unsigned char *out)
{
	double d;
	int64_t iv;
	int is_int;
	memset(out, 0, 8);
	if (parse_number(value, &d, &iv, &is_int) != 0)
		return -1;
	if (!is_int)
		iv = (int64_t)d;
	if (!strcmp(dt, "float")) {
		float f = (float)d;
		memcpy(out, &f, 4);
	} else if (!strcmp(dt, "half") || !strcmp(dt, "bfloat")) {
		uint16_t h = dt[0] == 'h' ? try_f32_to_f16((float)d)
		                          : try_f32_to_bf16((float)d);
		memcpy(out, &h, 2);
	} else if (!strcmp(dt, "float2")) {
		float f[2] = {(float)d, 0};
		memcpy(out, f, 8);
	} else if (!strcmp(dt, "half2")) {
		uint16_t h[2] = {try_f32_to_f16((float)d), 0};
		memcpy(out, h, 4);
	} else if (!strcmp(dt, "long")) {
		memcpy(out, &iv, 8);
	} else if (!strcmp(dt, "int")) {
		int32_t v = (int32_t)iv;
		memcpy(out, &v, 4);
	} else if (!strcmp(dt, "short")) {
		int16_t v = (int16_t)iv;
		memcpy(out, &v, 2);
	} else if (!strcmp(dt, "bool")) {
		out[0] = d != 0;
	} else {
		out[0] = (unsigned char)(iv & 0xff);
	}
	return 0;
}

/* ---- inputs ---- */

/* splitmix64: a fixed, portable sequence */
static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double uniform(uint64_t *s, double lo, double hi)
{
	return lo + (hi - lo) * ((double)(rnd(s) >> 11) / 9007199254740992.0);
}

/* edge values of the real floating types (as doubles; each dtype rounds
 * them, and adds its own extremes) */
static const double edges_f[] = {
	0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 10.0, -10.0,
	1.5707963267948966, -1.5707963267948966, 3.141592653589793,
	-3.141592653589793, 0.1, -0.1, 1e-5, -1e-5, 88.72, -87.33, 89.0,
	-104.0, 11.09, -9.7, 65504.0, 65520.0, -65504.0, 1e10, -1e10, 256.0,
	0.25, -0.25, 0.75, 1e-8,
};

struct vec {
	unsigned char *p;
	size_t n, cap, sz;
};

static void vpush(struct vec *v, const void *e)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 1024;
		v->p = xrealloc(v->p, v->cap * v->sz);
	}
	memcpy(v->p + v->n * v->sz, e, v->sz);
	v->n++;
}

/* one real element of dtype dt from a double, into e */
static void real_elem(const char *dt, double d, unsigned char *e)
{
	if (!strcmp(dt, "float")) {
		float f = (float)d;
		memcpy(e, &f, 4);
	} else {
		uint16_t h = dt[0] == 'h' ? try_f32_to_f16((float)d)
		                          : try_f32_to_bf16((float)d);
		memcpy(e, &h, 2);
	}
}

/* the edge elements of a real floating dtype */
static void real_edges(const char *dt, struct vec *v)
{
	size_t i;
	unsigned char e[8];
	for (i = 0; i < sizeof edges_f / sizeof *edges_f; i++) {
		real_elem(dt, edges_f[i], e);
		vpush(v, e);
	}
	if (!strcmp(dt, "float")) {
		static const uint32_t bits[] = {
			0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0x00000001u,
			0x80000001u, 0x007fffffu, 0x807fffffu, 0x00800000u, 0x80800000u,
			0x7f7fffffu, 0xff7fffffu, 0x3f800001u, 0x3f7fffffu, 0xbf800001u,
			0xbf7fffffu, 0x34000000u, 0x33800000u,
			0x7fa00000u, /* a signaling NaN */
		};
		for (i = 0; i < sizeof bits / sizeof *bits; i++)
			vpush(v, &bits[i]);
	} else {
		static const uint16_t hb[] = {
			0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x0001, 0x8001, 0x03ff, 0x83ff,
			0x0400, 0x8400, 0x7bff, 0xfbff, 0x3c01, 0x3bff, 0xbc01, 0xbbff,
			0x7d00, /* a signaling NaN */
		};
		static const uint16_t bb[] = {
			0x7f80, 0xff80, 0x7fc0, 0xffc0, 0x0001, 0x8001, 0x007f, 0x807f,
			0x0080, 0x8080, 0x7f7f, 0xff7f, 0x3f81, 0x3f7f, 0xbf81, 0xbf7f,
			0x7fa0, /* a signaling NaN */
		};
		const uint16_t *b = dt[0] == 'h' ? hb : bb;
		for (i = 0; i < sizeof hb / sizeof *hb; i++)
			vpush(v, &b[i]);
	}
	{
		double pk[32];
		size_t np = try_picked_values(dt, pk, 32);
		for (i = 0; i < np; i++) {
			real_elem(dt, pk[i], e);
			vpush(v, e);
		}
	}
}

/* a random real element: half the time any bit pattern, half the time
 * uniform in [-8, 8) */
static void real_random(const char *dt, uint64_t *s, unsigned char *e)
{
	uint64_t r = rnd(s);
	if (r & 1) {
		size_t sz = try_dtype_size(dt);
		uint64_t bits = rnd(s);
		memcpy(e, &bits, sz);
	} else {
		real_elem(dt, uniform(s, -8, 8), e);
	}
}

/* integer edges and random values, as int64 then narrowed */
static void int_elem(const char *dt, int64_t v, unsigned char *e)
{
	size_t sz = try_dtype_size(dt);
	if (!strcmp(dt, "bool"))
		e[0] = v != 0;
	else if (sz == 8)
		memcpy(e, &v, 8);
	else if (sz == 4) {
		int32_t x = (int32_t)v;
		memcpy(e, &x, 4);
	} else if (sz == 2) {
		int16_t x = (int16_t)v;
		memcpy(e, &x, 2);
	} else
		e[0] = (unsigned char)(v & 0xff);
}

static void int_edges(const char *dt, struct vec *v)
{
	int64_t lo, hi, vals[12];
	size_t i, k = 0;
	unsigned char e[8];
	if (!strcmp(dt, "bool")) {
		int_elem(dt, 0, e);
		vpush(v, e);
		int_elem(dt, 1, e);
		vpush(v, e);
		return;
	}
	if (!strcmp(dt, "long")) {
		lo = INT64_MIN;
		hi = INT64_MAX;
	} else if (!strcmp(dt, "int")) {
		lo = INT32_MIN;
		hi = INT32_MAX;
	} else if (!strcmp(dt, "short")) {
		lo = INT16_MIN;
		hi = INT16_MAX;
	} else if (!strcmp(dt, "char")) {
		lo = -128;
		hi = 127;
	} else {
		lo = 0;
		hi = 255;
	}
	vals[k++] = 0;
	vals[k++] = 1;
	vals[k++] = 2;
	vals[k++] = 7;
	vals[k++] = hi;
	vals[k++] = hi - 1;
	if (lo < 0) {
		vals[k++] = -1;
		vals[k++] = -2;
		vals[k++] = -7;
		vals[k++] = lo;
		vals[k++] = lo + 1;
	}
	for (i = 0; i < k; i++) {
		int_elem(dt, vals[i], e);
		vpush(v, e);
	}
	{
		double pk[32];
		size_t np = try_picked_values(dt, pk, 32);
		for (i = 0; i < np; i++) {
			int_elem(dt, (int64_t)pk[i], e);
			vpush(v, e);
		}
	}
}

static void int_random(const char *dt, uint64_t *s, unsigned char *e)
{
	uint64_t r = rnd(s);
	if (r & 1) {
		uint64_t bits = rnd(s);
		memcpy(e, &bits, try_dtype_size(dt));
		if (!strcmp(dt, "bool"))
			e[0] &= 1;
	} else {
		int_elem(dt, (int64_t)(rnd(s) % 201) - 100, e);
		if (!strcmp(dt, "uchar"))
			int_elem(dt, (int64_t)(rnd(s) % 101), e);
	}
}

static void complex_edges(const char *dt, struct vec *v)
{
	static const double c[] = {0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 3.0,
	                           INFINITY, -INFINITY, NAN, 1e-5, 60000.0};
	size_t i, j, n = sizeof c / sizeof *c;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			unsigned char e[8];
			if (!strcmp(dt, "float2")) {
				float f[2] = {(float)c[i], (float)c[j]};
				memcpy(e, f, 8);
			} else {
				uint16_t h[2] = {try_f32_to_f16((float)c[i]),
				                 try_f32_to_f16((float)c[j])};
				memcpy(e, h, 4);
			}
			vpush(v, e);
		}
}

static void complex_random(const char *dt, uint64_t *s, unsigned char *e)
{
	const char *comp = !strcmp(dt, "float2") ? "float" : "half";
	size_t cs = try_dtype_size(comp);
	if (rnd(s) & 1) {
		real_random(comp, s, e);
		real_random(comp, s, e + cs);
	} else {
		real_elem(comp, uniform(s, -4, 4), e);
		real_elem(comp, uniform(s, -4, 4), e + cs);
	}
}

static void edges_of(const char *dt, struct vec *v)
{
	if (try_is_float(dt))
		real_edges(dt, v);
	else if (try_is_complex(dt))
		complex_edges(dt, v);
	else
		int_edges(dt, v);
}

static void random_of(const char *dt, uint64_t *s, unsigned char *e)
{
	if (try_is_float(dt))
		real_random(dt, s, e);
	else if (try_is_complex(dt))
		complex_random(dt, s, e);
	else
		int_random(dt, s, e);
}

/* the third operand of a ternary kernel, element I: values of the
 * range PyTorch's tests sample (make_tensor's -9..9, uint8 0..9, both
 * bools), never zero (addcdiv divides by it), cycled */
static void third_of(const char *dt, size_t i, unsigned char *e)
{
	static const double real[] = {1.5, -0.25, 3.0, -7.0, 0.5, 9.0, -1.0,
	                              2.75, -4.5, 0.125, 6.0, -8.25, 1.0};
	static const long integ[] = {1, -2, 3, -7, 5, 9, -1, 2, -4, 6, -8, 4, 7};
	static const long uint8[] = {1, 2, 3, 7, 5, 9, 4, 6, 8};
	size_t k = i % 13;
	memset(e, 0, 8);
	if (!strcmp(dt, "bool")) {
		e[0] = (unsigned char)(i & 1);
	} else if (try_is_float(dt) || try_is_complex(dt)) {
		double re = real[k], im = real[(k + 5) % 13];
		if (!strcmp(dt, "float")) {
			float f = (float)re;
			memcpy(e, &f, 4);
		} else if (!strcmp(dt, "float2")) {
			float f[2] = {(float)re, (float)im};
			memcpy(e, f, 8);
		} else if (!strcmp(dt, "half2")) {
			uint16_t h[2] = {try_f32_to_f16((float)re), try_f32_to_f16((float)im)};
			memcpy(e, h, 4);
		} else {
			uint16_t h = !strcmp(dt, "half") ? try_f32_to_f16((float)re)
			                                 : try_f32_to_bf16((float)re);
			memcpy(e, &h, 2);
		}
	} else {
		long v = !strcmp(dt, "uchar") ? uint8[i % 9] : integ[k];
		size_t sz = try_dtype_size(dt);
		if (sz == 8) {
			int64_t x = v;
			memcpy(e, &x, 8);
		} else if (sz == 4) {
			int32_t x = (int32_t)v;
			memcpy(e, &x, 4);
		} else if (sz == 2) {
			int16_t x = (int16_t)v;
			memcpy(e, &x, 2);
		} else {
			int8_t x = (int8_t)v;
			memcpy(e, &x, 1);
		}
	}
}

void try_inputs3(const struct try_reg *reg, unsigned char **a,
                 unsigned char **b, unsigned char **c, size_t *n)
{
	size_t i, sz = try_dtype_size(reg->in);
	unsigned char e[8];
	try_inputs(reg, a, b, n);
	if (!c)
		return;
	*c = NULL;
	if (mr_kind_arity(reg->kind) != 3)
		return;
	*c = xmalloc(*n * sz + 1);
	for (i = 0; i < *n; i++) {
		third_of(reg->in, i, e);
		memcpy(*c + i * sz, e, sz);
	}
}

void try_inputs(const struct try_reg *reg, unsigned char **a,
                unsigned char **b, size_t *n)
{
	const char *dt = reg->in;
	size_t sz = try_dtype_size(dt), i, j;
	struct vec va = {NULL, 0, 0, sz}, vb = {NULL, 0, 0, sz}, ed = {NULL, 0, 0, sz};
	uint64_t seed = 0x6d70732d747279ull; /* "mps-try" */
	unsigned char e[8], f[8];
	int binary = mr_kind_arity(reg->kind) >= 2;
	int exhaustive = sz <= 2 && !try_is_complex(dt);

	edges_of(dt, &ed);
	if (!binary) {
		if (exhaustive) {
			size_t count = !strcmp(dt, "bool") ? 2 : (size_t)1 << (8 * sz);
			for (i = 0; i < count; i++) {
				uint16_t x = (uint16_t)i;
				memcpy(e, &x, sz);
				vpush(&va, e);
			}
		} else {
			size_t nr = try_is_float(dt) ? 100000 : 20000;
			for (i = 0; i < ed.n; i++)
				vpush(&va, ed.p + i * sz);
			for (i = 0; i < nr; i++) {
				random_of(dt, &seed, e);
				vpush(&va, e);
			}
		}
	} else {
		size_t ns = !strcmp(dt, "bool") ? 0 : 64, nr;
		struct vec sample = {NULL, 0, 0, sz};
		for (i = 0; i < ns; i++) {
			random_of(dt, &seed, e);
			vpush(&sample, e);
		}
		/* edges x edges */
		for (i = 0; i < ed.n; i++)
			for (j = 0; j < ed.n; j++) {
				vpush(&va, ed.p + i * sz);
				vpush(&vb, ed.p + j * sz);
			}
		/* edges x sample, sample x edges */
		for (i = 0; i < ed.n; i++)
			for (j = 0; j < sample.n; j++) {
				vpush(&va, ed.p + i * sz);
				vpush(&vb, sample.p + j * sz);
				vpush(&va, sample.p + j * sz);
				vpush(&vb, ed.p + i * sz);
			}
		nr = !strcmp(dt, "bool") ? 0 : try_is_integral(dt) ? 20000 : 100000;
		for (i = 0; i < nr; i++) {
			random_of(dt, &seed, e);
			random_of(dt, &seed, f);
			vpush(&va, e);
			vpush(&vb, f);
		}
		free(sample.p);
	}
	free(ed.p);
	*a = va.p;
	*n = va.n;
	if (b)
		*b = binary ? vb.p : (free(vb.p), NULL);
	else
		free(vb.p);
}
