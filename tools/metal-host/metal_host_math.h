/* metal_host_math.h — the functions of <metal_math>, <metal_common>,
 * <metal_integer>, <metal_relational> and <metal_geometric> on the host,
 * plus as_type.
 *
 * Part of the Metal host layer; include <metal_stdlib>, not this file.
 *
 * Which overloads exist matters as much as what they compute, because
 * Metal sources pick among them by C++ overload resolution (and, with
 * `using namespace metal; using namespace c10::metal;`, against c10's own
 * helpers).  This file declares the sets of the Metal Shading Language
 * specification (chapter "Metal Standard Library"):
 *   metal::F          float, half and the vectors of both, for every math
 *                     function; no bfloat overloads (a bfloat argument
 *                     converts to float; c10/metal/utils.h converts bfloat
 *                     to float itself before metal::min/max) except abs,
 *                     min, max, clamp, which return float and exist only
 *                     because bfloat also converts to the integer types;
 *                     no double.  Functions Metal
 *                     does not have (erf, lgamma, expm1, log1p, cbrt,
 *                     hypot, remainder) are not declared, so that a source
 *                     defining its own (c10/metal does) is not ambiguous.
 *   metal::precise::F, metal::fast::F
 *                     float (and float vectors) only, as in Metal: a half
 *                     argument converts to float and the result is float.
 *   metal::abs/min/max/clamp/...   also every integer type (one
 *                     non-template overload per type, so mixed integer
 *                     arguments are ambiguous as they are in Metal).
 * A call mixing half or an integer with another scalar type in a
 * two-argument function (pow(2, x), fmax(h, 0.5f)) uses the promoted type:
 * float if any argument is float, else half if any is half, else float.
 *
 * What the float functions compute: the exact value rounded to float in
 * all but rare cases (each is evaluated in double with the C library, then
 * rounded once); fma, sqrt, division, fmod, floor/ceil/trunc/round/rint,
 * ldexp, frexp, modf, copysign, nextafter are exact or correctly rounded.
 * Half functions compute the float function and round once to half.
 * PyTorch compiles its kernels with -fno-fast-math (cmake/Metal.cmake), so
 * metal::F is the precise variant on the GPU, whose bound is <= 1 ulp for
 * most transcendental functions (MSL, "Numerical compliance"): a host result can
 * differ from the GPU's by that much.  metal::fast::F is computed exactly
 * like precise::F here; the GPU's fast variants are less accurate.
 *
 * min, max, fmin, fmax on floating types: a NaN operand yields the other
 * operand (IEEE 754 minNum/maxNum; the GPU's precise variants, and the
 * reason c10::metal::max exists: PyTorch's maximum must propagate NaN);
 * both NaN -> NaN; between -0 and +0, min gives -0 and max +0.
 */
#ifndef METAL_HOST_MATH_H
#define METAL_HOST_MATH_H

#include "metal_host_traits.h"

/* ---- as_type (MSL "Type conversions and re-interpreting data"): reinterpret the bits; sizes must match ----------- */
template <class To, class From>
constexpr To as_type(const From &v) {
	static_assert(sizeof(To) == sizeof(From), "as_type: sizes differ");
	return __builtin_bit_cast(To, v);
}

namespace metal_host {
namespace fm {

/* float functions evaluated in double, rounded once */
#define METAL_HOST_FM1(NAME, EXPR)                                              \
	inline float NAME(float x) {                                           \
		const double d = double(x);                                    \
		(void)d;                                                       \
		return float(EXPR);                                            \
	}
METAL_HOST_FM1(acos, __builtin_acos(d))
METAL_HOST_FM1(acosh, __builtin_acosh(d))
METAL_HOST_FM1(asin, __builtin_asin(d))
METAL_HOST_FM1(asinh, __builtin_asinh(d))
METAL_HOST_FM1(atan, __builtin_atan(d))
METAL_HOST_FM1(atanh, __builtin_atanh(d))
METAL_HOST_FM1(cos, __builtin_cos(d))
METAL_HOST_FM1(cosh, __builtin_cosh(d))
METAL_HOST_FM1(exp, __builtin_exp(d))
METAL_HOST_FM1(exp2, __builtin_exp2(d))
METAL_HOST_FM1(exp10, __builtin_pow(10.0, d))
METAL_HOST_FM1(log, __builtin_log(d))
METAL_HOST_FM1(log2, __builtin_log2(d))
METAL_HOST_FM1(log10, __builtin_log10(d))
METAL_HOST_FM1(rsqrt, 1.0 / __builtin_sqrt(d))
METAL_HOST_FM1(sin, __builtin_sin(d))
METAL_HOST_FM1(sinh, __builtin_sinh(d))
METAL_HOST_FM1(tan, __builtin_tan(d))
METAL_HOST_FM1(tanh, __builtin_tanh(d))
METAL_HOST_FM1(logb, __builtin_logb(d))
#undef METAL_HOST_FM1

inline float sqrt(float x) { return __builtin_sqrtf(x); }
inline float fabs(float x) { return __builtin_fabsf(x); }
inline float ceil(float x) { return __builtin_ceilf(x); }
inline float floor(float x) { return __builtin_floorf(x); }
inline float trunc(float x) { return __builtin_truncf(x); }
inline float round(float x) { return __builtin_roundf(x); }
inline float rint(float x) { return __builtin_rintf(x); }
inline float fract(float x) {
	if (__builtin_isnan(x))
		return x;
	if (__builtin_isinf(x))
		return 0.0f;
	const float r = x - __builtin_floorf(x);
	return r < 0x1.fffffep-1f ? r : 0x1.fffffep-1f;
}

/* x*pi with the exact zeros and ones of sinpi/cospi/tanpi */
inline float sinpi(float x) {
	if (!__builtin_isfinite(x))
		return __builtin_nanf("");
	double r = __builtin_fmod(double(x), 2.0); /* exact, in (-2, 2) */
	if (r == 0 || r == 1 || r == -1)
		return __builtin_copysignf(0.0f, x);
	if (r == 0.5 || r == -1.5)
		return 1.0f;
	if (r == -0.5 || r == 1.5)
		return -1.0f;
	return float(__builtin_sin(3.14159265358979323846 * r));
}
inline float cospi(float x) {
	if (!__builtin_isfinite(x))
		return __builtin_nanf("");
	double r = __builtin_fabs(__builtin_fmod(double(x), 2.0));
	if (r == 0.5 || r == 1.5)
		return 0.0f;
	if (r == 0)
		return 1.0f;
	if (r == 1)
		return -1.0f;
	return float(__builtin_cos(3.14159265358979323846 * r));
}
inline float tanpi(float x) {
	if (!__builtin_isfinite(x))
		return __builtin_nanf("");
	double r = __builtin_fmod(double(x), 1.0); /* period 1 */
	if (r == 0)
		return __builtin_copysignf(0.0f, x);
	if (r == 0.5 || r == -0.5)
		return r > 0 ? __builtin_inff() : -__builtin_inff();
	return float(__builtin_tan(3.14159265358979323846 * r));
}

inline float atan2(float y, float x) { return float(__builtin_atan2(double(y), double(x))); }
inline float pow(float x, float y) { return float(__builtin_pow(double(x), double(y))); }
inline float powr(float x, float y) {
	/* MSL: x >= 0 only; x < 0 gives NaN */
	return x < 0 ? __builtin_nanf("") : pow(x, y);
}
inline float fmod(float x, float y) { return __builtin_fmodf(x, y); }
inline float copysign(float x, float y) { return __builtin_copysignf(x, y); }
inline float nextafter(float x, float y) { return __builtin_nextafterf(x, y); }
inline float fdim(float x, float y) {
	if (__builtin_isnan(x) || __builtin_isnan(y))
		return __builtin_nanf("");
	return x > y ? x - y : 0.0f;
}
inline float fma(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
inline float ldexp(float x, int e) { return __builtin_ldexpf(x, e); }
inline float frexp(float x, int &e) { return __builtin_frexpf(x, &e); }
inline float modf(float x, float &ip) { return __builtin_modff(x, &ip); }
inline int ilogb(float x) { return __builtin_ilogbf(x); }

/* IEEE minNum/maxNum, -0 < +0 (header comment) */
inline float fmin(float a, float b) {
	if (__builtin_isnan(a))
		return b;
	if (__builtin_isnan(b))
		return a;
	if (a == b)
		return __builtin_signbit(a) ? a : b;
	return a < b ? a : b;
}
inline float fmax(float a, float b) {
	if (__builtin_isnan(a))
		return b;
	if (__builtin_isnan(b))
		return a;
	if (a == b)
		return __builtin_signbit(a) ? b : a;
	return a > b ? a : b;
}
inline float clamp(float x, float lo, float hi) { return fmin(fmax(x, lo), hi); }
inline float sign(float x) {
	if (__builtin_isnan(x))
		return 0.0f;
	if (x > 0)
		return 1.0f;
	if (x < 0)
		return -1.0f;
	return x; /* keeps the sign of zero */
}

} // namespace fm

/* half from the float function: one rounding to half */
inline half h(float f) { return half(f); }

/* the promoted type of mixed arguments (header comment) */
template <class... T>
struct math_promote {
	static constexpr bool any_float =
	    ((std::is_floating_point<T>::value || std::is_same<T, nan_constant>::value) || ...);
	static constexpr bool any_half = ((std::is_same<T, half>::value) || ...);
	using type = std::conditional_t<any_float, float, std::conditional_t<any_half, half, float>>;
};
template <class... T>
using math_promote_t = typename math_promote<std::decay_t<T>...>::type;

template <class T>
struct is_math_scalar
    : std::integral_constant<bool, std::is_arithmetic<std::decay_t<T>>::value ||
                                       is_narrow<std::decay_t<T>>::value ||
                                       std::is_same<std::decay_t<T>, nan_constant>::value> {};

template <class T>
struct is_math_fp
    : std::integral_constant<bool, std::is_floating_point<std::decay_t<T>>::value ||
                                       is_narrow<std::decay_t<T>>::value ||
                                       std::is_same<std::decay_t<T>, nan_constant>::value> {};

/* mixed arguments, at least one floating (integers alone stay as ambiguous
 * as in Metal) */
template <class A, class B>
using enable_mixed2 = std::enable_if_t<
    !std::is_same<std::decay_t<A>, std::decay_t<B>>::value && is_math_scalar<A>::value &&
        is_math_scalar<B>::value && (is_math_fp<A>::value || is_math_fp<B>::value),
    int>;
template <class A, class B, class C>
using enable_mixed3 = std::enable_if_t<
    !(std::is_same<std::decay_t<A>, std::decay_t<B>>::value &&
      std::is_same<std::decay_t<B>, std::decay_t<C>>::value) &&
        is_math_scalar<A>::value && is_math_scalar<B>::value && is_math_scalar<C>::value &&
        (is_math_fp<A>::value || is_math_fp<B>::value || is_math_fp<C>::value),
    int>;

template <class T>
using enable_fvec = std::enable_if_t<std::is_same<T, float>::value || std::is_same<T, half>::value, int>;
template <class T>
using enable_fonly = std::enable_if_t<std::is_same<T, float>::value, int>;

template <class T>
constexpr bool is_neg(T v) {
	if constexpr (std::is_signed<T>::value)
		return v < 0;
	else
		return false;
}

/* one-word names of the integer types, for the per-type macros */
typedef signed char schar;
typedef unsigned char uchar_;
typedef unsigned short ushort_;
typedef unsigned int uint_;
typedef unsigned long ulong_;
typedef long long llong;
typedef unsigned long long ullong;

/* half helpers on the bits */
constexpr bool h_isnan(half x) { return (x.bits & 0x7fffu) > 0x7c00u; }
constexpr bool h_isinf(half x) { return (x.bits & 0x7fffu) == 0x7c00u; }

} // namespace metal_host

namespace metal {

/* ---- the float-only function set, shared by metal, precise and fast ------- */
#define METAL_HOST_FLOAT_SET                                                    \
	inline float acos(float x) { return ::metal_host::fm::acos(x); }       \
	inline float acosh(float x) { return ::metal_host::fm::acosh(x); }     \
	inline float asin(float x) { return ::metal_host::fm::asin(x); }       \
	inline float asinh(float x) { return ::metal_host::fm::asinh(x); }     \
	inline float atan(float x) { return ::metal_host::fm::atan(x); }       \
	inline float atanh(float x) { return ::metal_host::fm::atanh(x); }     \
	inline float ceil(float x) { return ::metal_host::fm::ceil(x); }       \
	inline float cos(float x) { return ::metal_host::fm::cos(x); }         \
	inline float cosh(float x) { return ::metal_host::fm::cosh(x); }       \
	inline float cospi(float x) { return ::metal_host::fm::cospi(x); }     \
	inline float exp(float x) { return ::metal_host::fm::exp(x); }         \
	inline float exp2(float x) { return ::metal_host::fm::exp2(x); }       \
	inline float exp10(float x) { return ::metal_host::fm::exp10(x); }     \
	inline float fabs(float x) { return ::metal_host::fm::fabs(x); }       \
	inline float abs(float x) { return ::metal_host::fm::fabs(x); }        \
	inline float floor(float x) { return ::metal_host::fm::floor(x); }     \
	inline float fract(float x) { return ::metal_host::fm::fract(x); }     \
	inline float log(float x) { return ::metal_host::fm::log(x); }         \
	inline float log2(float x) { return ::metal_host::fm::log2(x); }       \
	inline float log10(float x) { return ::metal_host::fm::log10(x); }     \
	inline float logb(float x) { return ::metal_host::fm::logb(x); }       \
	inline int ilogb(float x) { return ::metal_host::fm::ilogb(x); }       \
	inline float rint(float x) { return ::metal_host::fm::rint(x); }       \
	inline float round(float x) { return ::metal_host::fm::round(x); }     \
	inline float rsqrt(float x) { return ::metal_host::fm::rsqrt(x); }     \
	inline float sin(float x) { return ::metal_host::fm::sin(x); }         \
	inline float sinh(float x) { return ::metal_host::fm::sinh(x); }       \
	inline float sinpi(float x) { return ::metal_host::fm::sinpi(x); }     \
	inline float sqrt(float x) { return ::metal_host::fm::sqrt(x); }       \
	inline float tan(float x) { return ::metal_host::fm::tan(x); }         \
	inline float tanh(float x) { return ::metal_host::fm::tanh(x); }       \
	inline float tanpi(float x) { return ::metal_host::fm::tanpi(x); }     \
	inline float trunc(float x) { return ::metal_host::fm::trunc(x); }     \
	inline float atan2(float y, float x) { return ::metal_host::fm::atan2(y, x); } \
	inline float copysign(float x, float y) { return ::metal_host::fm::copysign(x, y); } \
	inline float divide(float x, float y) { return x / y; }                \
	inline float fdim(float x, float y) { return ::metal_host::fm::fdim(x, y); } \
	inline float fmax(float x, float y) { return ::metal_host::fm::fmax(x, y); } \
	inline float fmin(float x, float y) { return ::metal_host::fm::fmin(x, y); } \
	inline float max(float x, float y) { return ::metal_host::fm::fmax(x, y); } \
	inline float min(float x, float y) { return ::metal_host::fm::fmin(x, y); } \
	inline float fmod(float x, float y) { return ::metal_host::fm::fmod(x, y); } \
	inline float nextafter(float x, float y) { return ::metal_host::fm::nextafter(x, y); } \
	inline float pow(float x, float y) { return ::metal_host::fm::pow(x, y); } \
	inline float powr(float x, float y) { return ::metal_host::fm::powr(x, y); } \
	inline float fma(float a, float b, float c) { return ::metal_host::fm::fma(a, b, c); } \
	inline float clamp(float x, float lo, float hi) { return ::metal_host::fm::clamp(x, lo, hi); } \
	inline float ldexp(float x, int e) { return ::metal_host::fm::ldexp(x, e); } \
	inline float frexp(float x, int &e) { return ::metal_host::fm::frexp(x, e); } \
	inline float modf(float x, float &ip) { return ::metal_host::fm::modf(x, ip); } \
	inline float sincos(float x, float &c) {                               \
		c = ::metal_host::fm::cos(x);                                  \
		return ::metal_host::fm::sin(x);                               \
	}

/* element-wise vector forms of a set's unary and binary functions */
#define METAL_HOST_VEC1(NAME)                                                   \
	template <class T, int N, METAL_HOST_VEC_ENABLE<T> = 0>                \
	::metal_host::vec<T, N> NAME(const ::metal_host::vec<T, N> &v) {       \
		::metal_host::vec<T, N> r{};                                   \
		for (int i = 0; i < N; i++)                                    \
			r[i] = NAME(v[i]);                                     \
		return r;                                                      \
	}
#define METAL_HOST_VEC2(NAME)                                                   \
	template <class T, int N, METAL_HOST_VEC_ENABLE<T> = 0>                \
	::metal_host::vec<T, N> NAME(const ::metal_host::vec<T, N> &a,         \
	                             const ::metal_host::vec<T, N> &b) {       \
		::metal_host::vec<T, N> r{};                                   \
		for (int i = 0; i < N; i++)                                    \
			r[i] = NAME(a[i], b[i]);                               \
		return r;                                                      \
	}
#define METAL_HOST_VEC_SET                                                      \
	METAL_HOST_VEC1(acos) METAL_HOST_VEC1(acosh) METAL_HOST_VEC1(asin)     \
	METAL_HOST_VEC1(asinh) METAL_HOST_VEC1(atan) METAL_HOST_VEC1(atanh)    \
	METAL_HOST_VEC1(ceil) METAL_HOST_VEC1(cos) METAL_HOST_VEC1(cosh)       \
	METAL_HOST_VEC1(cospi) METAL_HOST_VEC1(exp) METAL_HOST_VEC1(exp2)      \
	METAL_HOST_VEC1(exp10) METAL_HOST_VEC1(fabs)                           \
	METAL_HOST_VEC1(floor) METAL_HOST_VEC1(fract) METAL_HOST_VEC1(log)     \
	METAL_HOST_VEC1(log2) METAL_HOST_VEC1(log10) METAL_HOST_VEC1(rint)     \
	METAL_HOST_VEC1(round) METAL_HOST_VEC1(rsqrt) METAL_HOST_VEC1(sin)     \
	METAL_HOST_VEC1(sinh) METAL_HOST_VEC1(sinpi) METAL_HOST_VEC1(sqrt)     \
	METAL_HOST_VEC1(tan) METAL_HOST_VEC1(tanh) METAL_HOST_VEC1(tanpi)      \
	METAL_HOST_VEC1(trunc) METAL_HOST_VEC2(atan2) METAL_HOST_VEC2(copysign) \
	METAL_HOST_VEC2(fdim) METAL_HOST_VEC2(fmax) METAL_HOST_VEC2(fmin)      \
	METAL_HOST_VEC2(fmod)                                                  \
	METAL_HOST_VEC2(pow) METAL_HOST_VEC2(powr) METAL_HOST_VEC2(nextafter)

/* abs, max, min: element-wise in precise:: and fast:: too (metal:: has its
 * own vector forms for every component type, further down) */
#define METAL_HOST_VEC_PF_SET                                                   \
	METAL_HOST_VEC1(abs) METAL_HOST_VEC2(max) METAL_HOST_VEC2(min)
#define METAL_HOST_VEC_ENABLE ::metal_host::enable_fonly
namespace precise {
METAL_HOST_FLOAT_SET
METAL_HOST_VEC_SET
METAL_HOST_VEC_PF_SET
} // namespace precise
namespace fast {
METAL_HOST_FLOAT_SET
METAL_HOST_VEC_SET
METAL_HOST_VEC_PF_SET
} // namespace fast
#undef METAL_HOST_VEC_PF_SET
#undef METAL_HOST_VEC_ENABLE

METAL_HOST_FLOAT_SET
#undef METAL_HOST_FLOAT_SET

/* ---- half overloads (metal:: only): the float function, rounded once ------ */
#define METAL_HOST_H1(NAME)                                                     \
	inline half NAME(half x) { return half(::metal_host::fm::NAME(float(x))); }
#define METAL_HOST_H2(NAME)                                                     \
	inline half NAME(half x, half y) {                                     \
		return half(::metal_host::fm::NAME(float(x), float(y)));       \
	}
METAL_HOST_H1(acos)
METAL_HOST_H1(acosh)
METAL_HOST_H1(asin)
METAL_HOST_H1(asinh)
METAL_HOST_H1(atan)
METAL_HOST_H1(atanh)
METAL_HOST_H1(ceil)
METAL_HOST_H1(cos)
METAL_HOST_H1(cosh)
METAL_HOST_H1(cospi)
METAL_HOST_H1(exp)
METAL_HOST_H1(exp2)
METAL_HOST_H1(exp10)
METAL_HOST_H1(floor)
METAL_HOST_H1(fract)
METAL_HOST_H1(log)
METAL_HOST_H1(log2)
METAL_HOST_H1(log10)
METAL_HOST_H1(logb)
METAL_HOST_H1(rint)
METAL_HOST_H1(round)
METAL_HOST_H1(rsqrt)
METAL_HOST_H1(sin)
METAL_HOST_H1(sinh)
METAL_HOST_H1(sinpi)
METAL_HOST_H1(sqrt)
METAL_HOST_H1(tan)
METAL_HOST_H1(tanh)
METAL_HOST_H1(tanpi)
METAL_HOST_H1(trunc)
METAL_HOST_H2(atan2)
METAL_HOST_H2(fdim)
METAL_HOST_H2(fmax)
METAL_HOST_H2(fmin)
METAL_HOST_H2(fmod)
METAL_HOST_H2(pow)
METAL_HOST_H2(powr)
#undef METAL_HOST_H1
#undef METAL_HOST_H2

constexpr half fabs(half x) { return half(::metal_host::ctor_bits_tag{}, uint16_t(x.bits & 0x7fffu)); }
constexpr half abs(half x) { return fabs(x); }
constexpr half copysign(half x, half y) {
	return half(::metal_host::ctor_bits_tag{}, uint16_t((x.bits & 0x7fffu) | (y.bits & 0x8000u)));
}
inline half max(half x, half y) { return fmax(x, y); }
inline half min(half x, half y) { return fmin(x, y); }
inline half divide(half x, half y) { return x / y; }
inline int ilogb(half x) { return ::metal_host::fm::ilogb(float(x)); }
inline half ldexp(half x, int e) { return half(::metal_host::fm::ldexp(float(x), e)); }
inline half frexp(half x, int &e) { return half(::metal_host::fm::frexp(float(x), e)); }
inline half modf(half x, half &ip) {
	float i = 0;
	half r = half(::metal_host::fm::modf(float(x), i));
	ip = half(i);
	return r;
}
inline half sincos(half x, half &c) {
	c = half(::metal_host::fm::cos(float(x)));
	return half(::metal_host::fm::sin(float(x)));
}
/* correctly rounded: exact product, round-to-odd sum, one rounding */
inline half fma(half a, half b, half c) {
	return half(::metal_host::fma_odd(a.to_double(), b.to_double(), c.to_double()));
}
inline half clamp(half x, half lo, half hi) { return fmin(fmax(x, lo), hi); }
inline half nextafter(half x, half y) {
	if (::metal_host::h_isnan(x) || ::metal_host::h_isnan(y))
		return half(float(x) + float(y));
	if (float(x) == float(y))
		return y;
	if ((x.bits & 0x7fffu) == 0)
		return half(::metal_host::ctor_bits_tag{}, uint16_t((y.bits & 0x8000u) | 1u));
	const bool up = (float(y) > float(x)) == ((x.bits & 0x8000u) == 0);
	return half(::metal_host::ctor_bits_tag{}, uint16_t(up ? x.bits + 1 : x.bits - 1));
}

/* ---- common functions (MSL "Common functions") ------------------------------------------- */
inline float sign(float x) { return ::metal_host::fm::sign(x); }
inline half sign(half x) { return half(::metal_host::fm::sign(float(x))); }
inline float saturate(float x) { return ::metal_host::fm::clamp(x, 0.0f, 1.0f); }
inline half saturate(half x) { return clamp(x, half(0.0f), half(1.0f)); }
inline float mix(float x, float y, float a) { return x + (y - x) * a; }
inline half mix(half x, half y, half a) { return x + (y - x) * a; }
inline float step(float edge, float x) { return x < edge ? 0.0f : 1.0f; }
inline half step(half edge, half x) { return x < edge ? half(0.0f) : half(1.0f); }
inline float smoothstep(float e0, float e1, float x) {
	const float t = ::metal_host::fm::clamp((x - e0) / (e1 - e0), 0.0f, 1.0f);
	return t * t * (3.0f - 2.0f * t);
}
inline half smoothstep(half e0, half e1, half x) {
	const half t = clamp((x - e0) / (e1 - e0), half(0.0f), half(1.0f));
	return t * t * (half(3.0f) - half(2.0f) * t);
}

#define METAL_HOST_VEC_ENABLE ::metal_host::enable_fvec
METAL_HOST_VEC_SET
#undef METAL_HOST_VEC_ENABLE
#undef METAL_HOST_VEC_SET
#undef METAL_HOST_VEC1
#undef METAL_HOST_VEC2

/* mixed scalar arguments: the promoted type (header comment).  The empty
 * trailing pack makes each of these templates less specialised than a
 * source's own two-argument template (c10/metal/utils.h's pow(T, U) since
 * 2.14.1, called as ::pow(float, half) by igamma.h), which wins, as it does
 * in Metal against the non-template float and half overloads (the pack
 * always stays empty). */
#define METAL_HOST_MIXED2(NAME)                                                 \
	template <class A, class B, ::metal_host::enable_mixed2<A, B> = 0, class... Rest, std::enable_if_t<sizeof...(Rest) == 0, int> = 0> \
	::metal_host::math_promote_t<A, B> NAME(A a, B b, Rest...) {           \
		using R = ::metal_host::math_promote_t<A, B>;                  \
		return NAME(R(a), R(b));                                       \
	}
METAL_HOST_MIXED2(atan2)
METAL_HOST_MIXED2(copysign)
METAL_HOST_MIXED2(fdim)
METAL_HOST_MIXED2(fmax)
METAL_HOST_MIXED2(fmin)
METAL_HOST_MIXED2(fmod)
METAL_HOST_MIXED2(pow)
METAL_HOST_MIXED2(powr)
METAL_HOST_MIXED2(nextafter)
METAL_HOST_MIXED2(max)
METAL_HOST_MIXED2(min)
#undef METAL_HOST_MIXED2
#define METAL_HOST_MIXED3(NAME)                                                 \
	template <class A, class B, class C, ::metal_host::enable_mixed3<A, B, C> = 0, class... Rest, std::enable_if_t<sizeof...(Rest) == 0, int> = 0> \
	::metal_host::math_promote_t<A, B, C> NAME(A a, B b, C c, Rest...) {   \
		using R = ::metal_host::math_promote_t<A, B, C>;               \
		return NAME(R(a), R(b), R(c));                                 \
	}
METAL_HOST_MIXED3(fma)
METAL_HOST_MIXED3(mix)
METAL_HOST_MIXED3(smoothstep)
METAL_HOST_MIXED3(clamp)
#undef METAL_HOST_MIXED3

/* ---- integer functions (MSL "Integer functions"): one overload per integer type ----------- */
namespace detail {
template <class T>
constexpr T iabs(T x) {
	using U = std::make_unsigned_t<T>;
	if constexpr (std::is_signed<T>::value)
		return x < 0 ? T(U(0) - U(x)) : x;
	else
		return x;
}
template <class T>
constexpr int bits_of() { return int(sizeof(T) * 8); }
template <class T>
constexpr uint64_t ubits(T x) { return uint64_t(std::make_unsigned_t<T>(x)); }
} // namespace detail

#define METAL_HOST_INT_SET(T)                                                   \
	constexpr T abs(T x) { return detail::iabs(x); }                       \
	constexpr T max(T a, T b) { return a > b ? a : b; }                    \
	constexpr T min(T a, T b) { return a < b ? a : b; }                    \
	constexpr T clamp(T x, T lo, T hi) { return min(max(x, lo), hi); }     \
	constexpr T absdiff(T a, T b) {                                        \
		using U = std::make_unsigned_t<T>;                             \
		return a > b ? T(U(a) - U(b)) : T(U(b) - U(a));                \
	}                                                                      \
	constexpr T clz(T x) {                                                 \
		return x == 0 ? T(detail::bits_of<T>())                        \
		              : T(__builtin_clzll(detail::ubits(x)) - (64 - detail::bits_of<T>())); \
	}                                                                      \
	constexpr T ctz(T x) {                                                 \
		return x == 0 ? T(detail::bits_of<T>()) : T(__builtin_ctzll(detail::ubits(x))); \
	}                                                                      \
	constexpr T popcount(T x) { return T(__builtin_popcountll(detail::ubits(x))); } \
	constexpr T hadd(T a, T b) { return T((a >> 1) + (b >> 1) + (a & b & 1)); } \
	constexpr T rhadd(T a, T b) { return T((a >> 1) + (b >> 1) + ((a | b) & 1)); } \
	constexpr T rotate(T v, T n) {                                         \
		using U = std::make_unsigned_t<T>;                             \
		const int w = detail::bits_of<T>();                            \
		const int s = int(U(n) % unsigned(w));                         \
		return s == 0 ? v : T(U(U(v) << s) | U(U(v) >> (w - s)));      \
	}                                                                      \
	constexpr T reverse_bits(T x) {                                        \
		using U = std::make_unsigned_t<T>;                             \
		U u = U(x), r = 0;                                             \
		for (int i = 0; i < detail::bits_of<T>(); i++)                 \
			r = U((r << 1) | ((u >> i) & 1));                      \
		return T(r);                                                   \
	}                                                                      \
	constexpr T addsat(T a, T b) {                                         \
		T r = 0;                                                       \
		if (__builtin_add_overflow(a, b, &r))                          \
			return ::metal_host::is_neg(b) ? std::numeric_limits<T>::min() \
			                                        : std::numeric_limits<T>::max(); \
		return r;                                                      \
	}                                                                      \
	constexpr T subsat(T a, T b) {                                         \
		T r = 0;                                                       \
		if (__builtin_sub_overflow(a, b, &r))                          \
			return !::metal_host::is_neg(b) && std::is_signed<T>::value \
			           ? std::numeric_limits<T>::min()                 \
			           : (std::is_signed<T>::value ? std::numeric_limits<T>::max() : T(0)); \
		return r;                                                      \
	}
METAL_HOST_INT_SET(char)
METAL_HOST_INT_SET(::metal_host::schar)
METAL_HOST_INT_SET(::metal_host::uchar_)
METAL_HOST_INT_SET(short)
METAL_HOST_INT_SET(::metal_host::ushort_)
METAL_HOST_INT_SET(int)
METAL_HOST_INT_SET(::metal_host::uint_)
METAL_HOST_INT_SET(long)
METAL_HOST_INT_SET(::metal_host::ulong_)
METAL_HOST_INT_SET(::metal_host::llong)
METAL_HOST_INT_SET(::metal_host::ullong)
#undef METAL_HOST_INT_SET

/* bfloat has no overloads of its own: it converts to float.  These four
 * exist only because bfloat also converts to the integer types, which
 * would make abs(bfloat) ambiguous; they return float, as the conversion
 * to float would. */
inline float abs(bfloat x) { return abs(float(x)); }
inline float max(bfloat a, bfloat b) { return max(float(a), float(b)); }
inline float min(bfloat a, bfloat b) { return min(float(a), float(b)); }
inline float clamp(bfloat x, bfloat lo, bfloat hi) { return clamp(float(x), float(lo), float(hi)); }

/* mulhi: the high half of the full product */
constexpr int mulhi(int a, int b) { return int((int64_t(a) * int64_t(b)) >> 32); }
constexpr uint mulhi(uint a, uint b) { return uint((uint64_t(a) * uint64_t(b)) >> 32); }
constexpr long mulhi(long a, long b) { return long((__int128(a) * __int128(b)) >> 64); }
constexpr ulong mulhi(ulong a, ulong b) {
	return ulong((static_cast<unsigned __int128>(a) * b) >> 64);
}
constexpr int mul24(int a, int b) { return a * b; }
constexpr uint mul24(uint a, uint b) { return a * b; }
constexpr int mad24(int a, int b, int c) { return a * b + c; }
constexpr uint mad24(uint a, uint b, uint c) { return a * b + c; }

/* vector forms of abs, min, max, clamp for every component type */
template <class T, int N>
constexpr ::metal_host::vec<T, N> abs(const ::metal_host::vec<T, N> &v) {
	::metal_host::vec<T, N> r{};
	for (int i = 0; i < N; i++)
		r[i] = abs(v[i]);
	return r;
}
template <class T, int N>
constexpr ::metal_host::vec<T, N> max(const ::metal_host::vec<T, N> &a,
                                      const ::metal_host::vec<T, N> &b) {
	::metal_host::vec<T, N> r{};
	for (int i = 0; i < N; i++)
		r[i] = max(a[i], b[i]);
	return r;
}
template <class T, int N>
constexpr ::metal_host::vec<T, N> min(const ::metal_host::vec<T, N> &a,
                                      const ::metal_host::vec<T, N> &b) {
	::metal_host::vec<T, N> r{};
	for (int i = 0; i < N; i++)
		r[i] = min(a[i], b[i]);
	return r;
}
template <class T, int N>
constexpr ::metal_host::vec<T, N> clamp(const ::metal_host::vec<T, N> &x,
                                        const ::metal_host::vec<T, N> &lo,
                                        const ::metal_host::vec<T, N> &hi) {
	::metal_host::vec<T, N> r{};
	for (int i = 0; i < N; i++)
		r[i] = clamp(x[i], lo[i], hi[i]);
	return r;
}
template <class T, int N>
constexpr ::metal_host::vec<T, N> clamp(const ::metal_host::vec<T, N> &x, T lo, T hi) {
	return clamp(x, ::metal_host::vec<T, N>(lo), ::metal_host::vec<T, N>(hi));
}

/* ---- relational functions (MSL "Relational functions") ---------------------------------------- */
constexpr bool isnan(float x) { return __builtin_isnan(x); }
constexpr bool isinf(float x) { return __builtin_isinf(x); }
constexpr bool isfinite(float x) { return __builtin_isfinite(x); }
constexpr bool isnormal(float x) { return __builtin_isnormal(x); }
constexpr bool signbit(float x) { return (::metal_host::bitcast<uint32_t>(x) >> 31) != 0; }
constexpr bool isunordered(float a, float b) { return __builtin_isnan(a) || __builtin_isnan(b); }
constexpr bool isordered(float a, float b) { return !isunordered(a, b); }
/* NAN converts to float and to half: these keep isnan(NAN) unambiguous */
constexpr bool isnan(::metal_host::nan_constant) { return true; }
constexpr bool isinf(::metal_host::nan_constant) { return false; }
constexpr bool isfinite(::metal_host::nan_constant) { return false; }
constexpr bool isnan(half x) { return ::metal_host::h_isnan(x); }
constexpr bool isinf(half x) { return ::metal_host::h_isinf(x); }
constexpr bool isfinite(half x) { return (x.bits & 0x7c00u) != 0x7c00u; }
constexpr bool isnormal(half x) {
	return (x.bits & 0x7c00u) != 0 && (x.bits & 0x7c00u) != 0x7c00u;
}
constexpr bool signbit(half x) { return (x.bits & 0x8000u) != 0; }
constexpr bool isunordered(half a, half b) { return isnan(a) || isnan(b); }
constexpr bool isordered(half a, half b) { return !isunordered(a, b); }
/* mixed pairs (half with float, bfloat with half, ...): compare as float */
template <class A, class B, ::metal_host::enable_mixed2<A, B> = 0>
constexpr bool isunordered(A a, B b) { return isunordered(float(a), float(b)); }
template <class A, class B, ::metal_host::enable_mixed2<A, B> = 0>
constexpr bool isordered(A a, B b) { return !isunordered(float(a), float(b)); }

#define METAL_HOST_REL1(NAME)                                                   \
	template <class T, int N>                                              \
	constexpr ::metal_host::vec<bool, N> NAME(const ::metal_host::vec<T, N> &v) { \
		::metal_host::vec<bool, N> r{};                                \
		for (int i = 0; i < N; i++)                                    \
			r[i] = NAME(v[i]);                                     \
		return r;                                                      \
	}
METAL_HOST_REL1(isnan)
METAL_HOST_REL1(isinf)
METAL_HOST_REL1(isfinite)
METAL_HOST_REL1(isnormal)
METAL_HOST_REL1(signbit)
#undef METAL_HOST_REL1

constexpr bool all(bool b) { return b; }
constexpr bool any(bool b) { return b; }
template <int N>
constexpr bool all(const ::metal_host::vec<bool, N> &v) {
	for (int i = 0; i < N; i++)
		if (!v[i])
			return false;
	return true;
}
template <int N>
constexpr bool any(const ::metal_host::vec<bool, N> &v) {
	for (int i = 0; i < N; i++)
		if (v[i])
			return true;
	return false;
}

/* select(a, b, c): c ? b : a, per component for vectors */
template <class T, std::enable_if_t<!::metal_host::is_vec<T>::value, int> = 0>
constexpr T select(T a, T b, bool c) { return c ? b : a; }
template <class T, int N>
constexpr ::metal_host::vec<T, N> select(const ::metal_host::vec<T, N> &a,
                                         const ::metal_host::vec<T, N> &b,
                                         const ::metal_host::vec<bool, N> &c) {
	::metal_host::vec<T, N> r{};
	for (int i = 0; i < N; i++)
		r[i] = c[i] ? b[i] : a[i];
	return r;
}
template <class T, int N>
constexpr ::metal_host::vec<T, N> select(const ::metal_host::vec<T, N> &a,
                                         const ::metal_host::vec<T, N> &b, bool c) {
	return c ? b : a;
}

/* ---- geometric functions (MSL "Geometric functions") ----------------------------------------- */
template <class T, int N, ::metal_host::enable_fvec<T> = 0>
constexpr T dot(const ::metal_host::vec<T, N> &a, const ::metal_host::vec<T, N> &b) {
	T s = a[0] * b[0];
	for (int i = 1; i < N; i++)
		s = s + a[i] * b[i];
	return s;
}
template <class T, int N, ::metal_host::enable_fvec<T> = 0>
T length_squared(const ::metal_host::vec<T, N> &a) { return dot(a, a); }
template <class T, int N, ::metal_host::enable_fvec<T> = 0>
T length(const ::metal_host::vec<T, N> &a) { return sqrt(dot(a, a)); }
template <class T, int N, ::metal_host::enable_fvec<T> = 0>
T distance(const ::metal_host::vec<T, N> &a, const ::metal_host::vec<T, N> &b) {
	return length(a - b);
}
template <class T, int N, ::metal_host::enable_fvec<T> = 0>
::metal_host::vec<T, N> normalize(const ::metal_host::vec<T, N> &a) {
	return a * rsqrt(dot(a, a));
}
template <class T, ::metal_host::enable_fvec<T> = 0>
::metal_host::vec<T, 3> cross(const ::metal_host::vec<T, 3> &a, const ::metal_host::vec<T, 3> &b) {
	return ::metal_host::vec<T, 3>(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z,
	                               a.x * b.y - a.y * b.x);
}

} // namespace metal

#endif /* METAL_HOST_MATH_H */
