/* metal_host_scalar.h — Metal's scalar types on the host: half, bfloat, the
 * short names (uchar, ushort, uint, ulong) and the float constants.
 *
 * Part of the Metal host layer; include <metal_stdlib> (metal_host.h), not
 * this file.  Everything here is constexpr where C++17 allows it.
 *
 * half   IEEE 754 binary16: 1 sign, 5 exponent, 10 fraction bits, with
 *        subnormals.  bfloat: 1 sign, 8 exponent, 7 fraction bits (the top
 *        half of a float), with subnormals.  Both are classes holding the
 *        bits (`uint16_t bits`), trivially copyable, 2 bytes, 2-aligned,
 *        so buffers of them have the GPU's layout.
 *
 * Rounding, as the Metal Shading Language specification ("Scalar data types"
 * and "Numerical compliance") describes the GPU: every conversion to
 * half or bfloat and every operation whose result is half or bfloat
 * rounds once, to nearest, ties to even; a finite value too large becomes
 * +-inf; NaN stays NaN (its payload is kept where it fits, so that every
 * bit pattern survives half -> float -> half; the GPU itself may
 * canonicalise NaN payloads, as c10/metal/float8.h notes for half ->
 * float).
 *
 * How:  a half or bfloat value is decoded exactly into a double; + - * /
 * and sqrt are computed in double and rounded once to the narrow format:
 * correct, because double has more than 2p+2 bits for both formats
 * (Figueroa, "When is double rounding innocuous?", 1995); metal::fma on
 * half is computed in double with round-to-odd (Boldo & Melquiond 2008),
 * then rounded once (bfloat has no fma of its own: metal_host_math.h).  Integers convert to the narrow format through double, with
 * round-to-odd for 64-bit values beyond 2^53.
 *
 * Mixed operands follow Metal's usual arithmetic conversions:
 *   half  op half           -> half      bfloat op bfloat -> bfloat
 *   half  op integer/bool   -> half      (the integer is converted first)
 *   bfloat op integer/bool  -> bfloat
 *   half/bfloat op float    -> float     half op bfloat   -> float
 *   half/bfloat op double   -> double    (host code only: Metal has no
 *                                          double; REWRITES.md rule 2)
 * Comparisons convert the same way, then compare exactly.
 *
 * Conversions (the choice that makes most of Metal's mixed expressions
 * well formed; tests/metal-host/test_scalar.cpp, "the ?: forms"):
 *   to half/bfloat, implicit: from float, double and every integer type
 *     and bool (copy-initialisation `half h = 1.0f;` and `return x;` work
 *     as in Metal);
 *   from half/bfloat, implicit: to float and to the integer types except
 *     int and bool (conversion templates that deduce the target exactly:
 *     c10's chebyshev_polynomial_t_forward(T x, int64_t n) receives a half
 *     n); none to int, so that `cond ? h : 0` is half, as in Metal;
 *   explicit: to int, bool and double (static_cast, T(x));
 *   between half and bfloat: explicit only, both ways.
 * Because both float -> half and half -> float are implicit, C++ cannot
 * give `cond ? half_value : float_value` a type (each operand converts to
 * the other's type, [expr.cond]/4), whatever conversions are chosen
 * (with float -> half explicit instead, `return float_expr;` in a
 * function returning T = half fails, which is far more common: some
 * sixty errors against one on main's UnaryKernel.metal).  REWRITES.md
 * rule 5 therefore passes each operand of ?: through tern_a / tern_b
 * (below), which convert it to Metal's type (float there).  Reads from
 * `constant` memory are volatile (metal_host.h): constructor and
 * assignment templates take volatile lvalues, and the conversions out
 * have const volatile twins; templates, so that half and bfloat stay
 * trivially copyable.  NAN is a constant of a class type that converts to
 * float, half and bfloat, so `isunordered(a, b) ? NAN : max(a, b)`
 * (c10::metal::max) has the type of max(a, b); INFINITY and M_*_F are
 * floats, so that `x ? 0 : -INFINITY` is float (rule 5 leaves NAN's
 * class alone).  README.md lists what does not compile.
 */
#ifndef METAL_HOST_SCALAR_H
#define METAL_HOST_SCALAR_H

#include <cfloat>
#include <cstdint>
#include <type_traits>

/* Metal's short type names (MSL "Scalar data types"); on LP64 hosts long is 64 bits, as
 * in Metal.  glibc's <sys/types.h> declares uint, ushort, ulong the same
 * way; repeating a typedef of the same type is valid C++. */
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;

struct half;
struct bfloat;

namespace metal_host {

/* ---- bit-level helpers (exact, constexpr) ---------------------------- */

template <class To, class From>
constexpr To bitcast(const From &v) {
	static_assert(sizeof(To) == sizeof(From), "bitcast: sizes differ");
	return __builtin_bit_cast(To, v);
}

/* A narrow binary format: F fraction bits, E exponent bits. */
template <int F, int E>
struct fmt {
	static constexpr int frac = F;
	static constexpr int expo = E;
	static constexpr int bias = (1 << (E - 1)) - 1;
	static constexpr int emin = 1 - bias; /* exponent of the least normal */
	static constexpr uint16_t sign_bit = uint16_t(1u << (F + E));
	static constexpr uint16_t exp_mask = uint16_t(((1u << E) - 1u) << F);
	static constexpr uint16_t frac_mask = uint16_t((1u << F) - 1u);
	static constexpr uint16_t quiet_bit = uint16_t(1u << (F - 1));
};
using half_fmt = fmt<10, 5>;
using bfloat_fmt = fmt<7, 8>;

/* Round a value given as (sign, significand m, exponent e: value =
 * m * 2^e, m > 0) to format Fm, to nearest even, with subnormals and
 * overflow to infinity.  m may have up to 64 bits. */
template <class Fm>
constexpr uint16_t round_pack(bool neg, uint64_t m, int e) {
	const uint16_t sign = neg ? Fm::sign_bit : 0;
	/* normalise m so that its top bit is bit 63: value = m * 2^(e) */
	int lz = __builtin_clzll(m);
	m <<= lz;
	e -= lz;
	/* value = 1.xxx * 2^(e + 63) */
	int top = e + 63; /* unbiased exponent of the leading bit */
	int E = top < Fm::emin ? Fm::emin : top;
	/* quantum of the result: 2^(E - F); bits of m to drop: */
	int drop = (E - Fm::frac) - e;
	uint64_t q = 0;
	if (drop <= 0) {
		q = m << (-drop); /* cannot happen for top >= emin: drop >= 63-F */
	} else if (drop >= 65) {
		q = 0; /* below half of the least subnormal */
	} else if (drop == 64) {
		/* q = 0, remainder = m, half-way point = 2^63 */
		q = (m > (uint64_t(1) << 63)) ? 1 : 0;
	} else {
		q = m >> drop;
		uint64_t rem = m & ((uint64_t(1) << drop) - 1);
		uint64_t halfway = uint64_t(1) << (drop - 1);
		if (rem > halfway || (rem == halfway && (q & 1)))
			q++;
	}
	/* encode: biased field + fraction, carries propagate naturally */
	uint64_t enc = (uint64_t(E - Fm::emin) << Fm::frac) + q;
	if (enc >= Fm::exp_mask)
		return uint16_t(sign | Fm::exp_mask); /* overflow: infinity */
	return uint16_t(sign | enc);
}

/* float or double -> narrow format bits: U the wide type's bits, FB its
 * fraction and EB its exponent bits.  NaN keeps its sign and the top
 * fraction bits; a NaN whose kept fraction would be zero gets the quiet
 * bit. */
template <class Fm, class U, int FB, int EB>
constexpr uint16_t from_wide_bits(U u) {
	constexpr U inf = ((U(1) << EB) - 1) << FB;
	constexpr int bias = (1 << (EB - 1)) - 1;
	const bool neg = (u >> (FB + EB)) != 0;
	const U ax = u & ((U(1) << (FB + EB)) - 1);
	const uint16_t sign = neg ? Fm::sign_bit : 0;
	if (ax >= inf) {
		if (ax == inf)
			return uint16_t(sign | Fm::exp_mask);
		uint16_t pl = uint16_t((ax >> (FB - Fm::frac)) & Fm::frac_mask);
		if (pl == 0)
			pl = Fm::quiet_bit;
		return uint16_t(sign | Fm::exp_mask | pl);
	}
	if (ax == 0)
		return sign;
	const int be = int(ax >> FB);
	const U fr = ax & ((U(1) << FB) - 1);
	if (be == 0)
		return round_pack<Fm>(neg, fr, 1 - bias - FB);
	return round_pack<Fm>(neg, fr | (U(1) << FB), be - bias - FB);
}
template <class Fm>
constexpr uint16_t from_float_bits(uint32_t u) { return from_wide_bits<Fm, uint32_t, 23, 8>(u); }
template <class Fm>
constexpr uint16_t from_double_bits(uint64_t u) { return from_wide_bits<Fm, uint64_t, 52, 11>(u); }

/* narrow format bits -> float bits, exactly (NaN payload kept, including
 * a signalling NaN's). */
template <class Fm>
constexpr uint32_t to_float_bits(uint16_t b) {
	if (Fm::expo == 8) /* bfloat: the top half of a float, exactly */
		return uint32_t(b) << 16;
	const uint32_t sign = uint32_t(b & Fm::sign_bit) << (31 - Fm::frac - Fm::expo);
	const uint32_t ef = (b & Fm::exp_mask) >> Fm::frac;
	uint32_t fr = b & Fm::frac_mask;
	if (ef == (Fm::exp_mask >> Fm::frac))
		return sign | 0x7f800000u | (fr << (23 - Fm::frac));
	if (ef == 0) {
		if (fr == 0)
			return sign;
		/* subnormal in the narrow format: normal or subnormal in float */
		int e = Fm::emin; /* value = fr * 2^(emin - F) */
		while ((fr & (1u << Fm::frac)) == 0) {
			fr <<= 1;
			e--;
		}
		fr &= Fm::frac_mask;
		return sign | (uint32_t(e + 127) << 23) | (fr << (23 - Fm::frac));
	}
	const uint32_t fe = ef - uint32_t(Fm::bias) + 127u;
	return sign | (fe << 23) | (fr << (23 - Fm::frac));
}

/* Integer -> double with round-to-odd beyond 2^53, so that a second
 * rounding to a narrow format is correct. */
template <class I>
constexpr double int_to_double_odd(I v) {
	if constexpr (std::is_signed<I>::value) {
		if (v < 0)
			return -int_to_double_odd<uint64_t>(uint64_t(0) - uint64_t(v));
	}
	uint64_t m = uint64_t(v);
	if (m < (uint64_t(1) << 53))
		return double(m);
	int lz = __builtin_clzll(m);
	int drop = 11 - lz; /* keep 53 significant bits */
	uint64_t kept = m >> drop;
	if ((m & ((uint64_t(1) << drop) - 1)) != 0)
		kept |= 1; /* sticky into the last kept bit: round to odd */
	return double(kept) * double(uint64_t(1) << drop);
}

/* a*b + c in double, exactly rounded to odd: a, b, c are exact doubles
 * from half/bfloat values, so a*b is exact (at most 2*8 or 2*11 bits). */
constexpr double fma_odd(double a, double b, double c) {
	const double p = a * b;
	const double s = p + c;
	if (s - s != 0) /* inf or nan */
		return s;
	const double bb = s - p;
	const double err = (p - (s - bb)) + (c - bb); /* TwoSum: exact */
	if (err == 0)
		return s;
	uint64_t u = bitcast<uint64_t>(s);
	if ((u & 1) == 0) {
		/* move one ulp towards the exact value */
		const bool up = (err > 0) == (s > 0);
		u = up ? u + 1 : u - 1;
	}
	return bitcast<double>(u);
}

template <class T>
struct is_narrow : std::false_type {};

struct ctor_bits_tag {};
struct nan_constant;

/* the types half and bfloat convert to implicitly (see the class) */
template <class T>
struct implicit_out
    : std::integral_constant<bool, std::is_same<T, float>::value ||
                                       (std::is_integral<T>::value &&
                                        !std::is_same<T, int>::value &&
                                        !std::is_same<T, bool>::value)> {};

/* value of narrow bits as T: exact to float, then as C++ converts float */
template <class T, class Fm>
constexpr T narrow_out(uint16_t b) {
	return static_cast<T>(bitcast<float>(to_float_bits<Fm>(b)));
}

} // namespace metal_host

/* ---- the two narrow types --------------------------------------------- */


#define METAL_HOST_NARROW_BODY(NAME, FMT, OTHER)                               \
	uint16_t bits;                                                         \
	NAME() = default;                                                      \
	constexpr NAME(metal_host::ctor_bits_tag, uint16_t b) : bits(b) {}     \
	constexpr NAME(float f)                                                \
	    : bits(metal_host::from_float_bits<FMT>(                           \
	          metal_host::bitcast<uint32_t>(f))) {}                        \
	constexpr NAME(double d)                                               \
	    : bits(metal_host::from_double_bits<FMT>(                          \
	          metal_host::bitcast<uint64_t>(d))) {}                        \
	template <class I,                                                     \
	          std::enable_if_t<std::is_integral<I>::value, int> = 0>       \
	constexpr NAME(I v)                                                    \
	    : NAME(metal_host::int_to_double_odd(v)) {}                        \
	explicit NAME(OTHER o);                                                \
	/* from a volatile lvalue (a read from `constant` memory): a template,\
	 * so not a copy constructor, and NAME stays trivially copyable */     \
	template <class U, std::enable_if_t<std::is_same<U, NAME>::value, int> = 0> \
	NAME(const volatile U &o) : bits(o.bits) {}                            \
	template <class U, std::enable_if_t<std::is_same<U, NAME>::value, int> = 0> \
	NAME &operator=(const volatile U &o) {                                 \
		bits = o.bits;                                                 \
		return *this;                                                  \
	}                                                                      \
	/* implicit conversions out: to float, and to the integer types other \
	 * than int (int64_t parameters take half in Metal); none to int, so \
	 * that `c ? h : 0` is half; explicit: int, bool, double */            \
	template <class T,                                                     \
	          std::enable_if_t<metal_host::implicit_out<T>::value, int> = 0> \
	constexpr operator T() const {                                         \
		return metal_host::narrow_out<T, FMT>(bits);                   \
	}                                                                      \
	template <class T,                                                     \
	          std::enable_if_t<metal_host::implicit_out<T>::value, int> = 0> \
	operator T() const volatile {                                          \
		return metal_host::narrow_out<T, FMT>(bits);                   \
	}                                                                      \
	template <class T,                                                     \
	          std::enable_if_t<std::is_arithmetic<T>::value &&             \
	                               !metal_host::implicit_out<T>::value,    \
	                           long> = 0>                                  \
	constexpr explicit operator T() const {                                \
		return metal_host::narrow_out<T, FMT>(bits);                   \
	}                                                                      \
	template <class T,                                                     \
	          std::enable_if_t<std::is_arithmetic<T>::value &&             \
	                               !metal_host::implicit_out<T>::value,    \
	                           long> = 0>                                  \
	explicit operator T() const volatile {                                 \
		return metal_host::narrow_out<T, FMT>(bits);                   \
	}                                                                      \
	constexpr float to_float() const {                                     \
		return metal_host::bitcast<float>(metal_host::to_float_bits<FMT>(bits)); \
	}                                                                      \
	constexpr double to_double() const { return double(to_float()); }

struct half {
	METAL_HOST_NARROW_BODY(half, metal_host::half_fmt, bfloat)
};

struct bfloat {
	METAL_HOST_NARROW_BODY(bfloat, metal_host::bfloat_fmt, half)
};

#undef METAL_HOST_NARROW_BODY

inline half::half(bfloat o) : half(o.to_float()) {}
inline bfloat::bfloat(half o) : bfloat(o.to_float()) {}

static_assert(sizeof(half) == 2 && alignof(half) == 2, "half layout");
static_assert(sizeof(bfloat) == 2 && alignof(bfloat) == 2, "bfloat layout");
static_assert(std::is_trivially_copyable<half>::value, "half copyable");
static_assert(std::is_trivially_copyable<bfloat>::value, "bfloat copyable");

namespace metal_host {

template <>
struct is_narrow<half> : std::true_type {};
template <>
struct is_narrow<bfloat> : std::true_type {};

template <class T>
using fmt_of = std::conditional_t<std::is_same<T, half>::value, half_fmt, bfloat_fmt>;

/* A scalar that may appear in arithmetic with half/bfloat (NAN counts as
 * a float: `h * NAN`, `h == NAN`). */
template <class T>
struct is_host_scalar
    : std::integral_constant<bool, std::is_arithmetic<T>::value || is_narrow<T>::value ||
                                       std::is_same<T, nan_constant>::value> {};

/* The type of `A op B` when at least one is half or bfloat (header
 * comment, "Mixed operands"). */
template <class A, class B>
struct narrow_result {
	static constexpr bool an = is_narrow<A>::value, bn = is_narrow<B>::value;
	using type = std::conditional_t<
	    std::is_same<A, double>::value || std::is_same<B, double>::value ||
	        std::is_same<A, long double>::value || std::is_same<B, long double>::value,
	    double,
	    std::conditional_t<
	        std::is_floating_point<A>::value || std::is_floating_point<B>::value ||
	            std::is_same<A, nan_constant>::value || std::is_same<B, nan_constant>::value,
	        float,
	        std::conditional_t<an && bn,
	                           std::conditional_t<std::is_same<A, B>::value, A, float>,
	                           std::conditional_t<an, A, B>>>>;
};
template <class A, class B>
using narrow_result_t = typename narrow_result<A, B>::type;

template <class A, class B>
using enable_narrow_op = std::enable_if_t<
    (is_narrow<A>::value || is_narrow<B>::value) && is_host_scalar<A>::value &&
        is_host_scalar<B>::value,
    int>;

/* `c ? a : b` (REWRITES.md rule 5 writes it `c ? tern_a<decltype((b))>((a))
 * : tern_b<decltype((a))>((b))`): when the operands' types A and B differ,
 * both are host scalars (arithmetic, half, bfloat; not NAN's class) and one
 * is half or bfloat, each operand becomes narrow_result_t<A, B>, the type
 * Metal gives the expression (half vs float: float; half vs int: half;
 * half vs bfloat: float); NAN against an arithmetic type: both float;
 * otherwise the operand is passed on unchanged (an
 * lvalue as the same lvalue, anything else as a prvalue of its type), so
 * C++'s own rules apply. */
template <class A, class B>
struct tern_mixed
    : std::integral_constant<bool, !std::is_same<A, B>::value && (is_narrow<A>::value || is_narrow<B>::value) &&
                                       (std::is_arithmetic<A>::value || is_narrow<A>::value) &&
                                       (std::is_arithmetic<B>::value || is_narrow<B>::value)> {};
/* NAN (a float in Metal) against an arithmetic operand: both float, so
 * that `x < 0 ? NAN : 0` is float as in Metal (C++ finds no common type
 * for NAN's class and int).  Found by the fresh-agent trial of issue #27. */
template <class A, class B>
struct tern_nan_arith
    : std::integral_constant<bool, (std::is_same<A, nan_constant>::value && std::is_arithmetic<B>::value) ||
                                       (std::is_arithmetic<A>::value && std::is_same<B, nan_constant>::value)> {};
template <class Other, class X>
constexpr decltype(auto) tern_pass(X &&x) {
	using A = std::remove_cv_t<std::remove_reference_t<X>>;
	using B = std::remove_cv_t<std::remove_reference_t<Other>>;
	if constexpr (tern_mixed<A, B>::value)
		return static_cast<typename narrow_result<A, B>::type>(x);
	else if constexpr (tern_nan_arith<A, B>::value)
		return static_cast<float>(x);
	else if constexpr (std::is_lvalue_reference<X>::value)
		return static_cast<X &>(x);
	else
		return A(static_cast<X &&>(x));
}
template <class Other, class X>
constexpr decltype(auto) tern_a(X &&x) { return tern_pass<Other>(static_cast<X &&>(x)); }
template <class Other, class X>
constexpr decltype(auto) tern_b(X &&x) { return tern_pass<Other>(static_cast<X &&>(x)); }

/* Convert an operand to the result type R exactly as Metal does, then to
 * double (exact for every R here but double itself). */
template <class R, class X>
constexpr double as_r(X x) {
	return double(static_cast<float>(R(x)));
}
template <>
constexpr double as_r<double, half>(half x) { return x.to_double(); }
template <>
constexpr double as_r<double, bfloat>(bfloat x) { return x.to_double(); }

/* + - * / with a result of type R: for half and bfloat computed in double
 * and rounded once; for float and double in R */
template <class R>
struct narrow_arith {
	template <class X>
	static constexpr auto in(X x) {
		if constexpr (is_narrow<R>::value)
			return as_r<R>(x);
		else
			return static_cast<R>(x);
	}
	template <class A, class B>
	static constexpr R add(A a, B b) { return R(in(a) + in(b)); }
	template <class A, class B>
	static constexpr R sub(A a, B b) { return R(in(a) - in(b)); }
	template <class A, class B>
	static constexpr R mul(A a, B b) { return R(in(a) * in(b)); }
	template <class A, class B>
	static constexpr R div(A a, B b) { return R(in(a) / in(b)); }
};

/* value of an operand in the comparison domain of R (exact double) */
template <class R, class X>
constexpr double cmp_val(X x) {
	return std::is_same<R, double>::value ? static_cast<double>(x) : as_r<R>(x);
}

} // namespace metal_host

/* ---- operators (global namespace: found by ADL for half and bfloat) ---- */

#define METAL_HOST_NARROW_BINOP(OP, FN)                                         \
	template <class A, class B, metal_host::enable_narrow_op<A, B> = 0>    \
	constexpr metal_host::narrow_result_t<A, B> operator OP(A a, B b) {    \
		using R = metal_host::narrow_result_t<A, B>;                   \
		return metal_host::narrow_arith<R>::FN(a, b);                  \
	}
METAL_HOST_NARROW_BINOP(+, add)
METAL_HOST_NARROW_BINOP(-, sub)
METAL_HOST_NARROW_BINOP(*, mul)
METAL_HOST_NARROW_BINOP(/, div)
#undef METAL_HOST_NARROW_BINOP

#define METAL_HOST_NARROW_CMP(OP)                                               \
	template <class A, class B, metal_host::enable_narrow_op<A, B> = 0>    \
	constexpr bool operator OP(A a, B b) {                                 \
		using R = metal_host::narrow_result_t<A, B>;                   \
		return metal_host::cmp_val<R>(a) OP metal_host::cmp_val<R>(b); \
	}
METAL_HOST_NARROW_CMP(==)
METAL_HOST_NARROW_CMP(!=)
METAL_HOST_NARROW_CMP(<)
METAL_HOST_NARROW_CMP(<=)
METAL_HOST_NARROW_CMP(>)
METAL_HOST_NARROW_CMP(>=)
#undef METAL_HOST_NARROW_CMP

/* unary minus flips the sign bit (exact, also for NaN), as IEEE negate */
constexpr half operator-(half a) {
	return half(metal_host::ctor_bits_tag{}, uint16_t(a.bits ^ 0x8000u));
}
constexpr bfloat operator-(bfloat a) {
	return bfloat(metal_host::ctor_bits_tag{}, uint16_t(a.bits ^ 0x8000u));
}
constexpr half operator+(half a) { return a; }
constexpr bfloat operator+(bfloat a) { return a; }
constexpr bool operator!(half a) { return !float(a); }
constexpr bool operator!(bfloat a) { return !float(a); }

/* compound assignment: the result of `a op b` converted back to the left
 * operand's type (one rounding when the result is float) */
#define METAL_HOST_NARROW_COMPOUND(T, OP)                                       \
	template <class B, std::enable_if_t<metal_host::is_host_scalar<B>::value, int> = 0> \
	constexpr T &operator OP##=(T &a, B b) {                               \
		a = T(a OP b);                                                 \
		return a;                                                      \
	}
METAL_HOST_NARROW_COMPOUND(half, +)
METAL_HOST_NARROW_COMPOUND(half, -)
METAL_HOST_NARROW_COMPOUND(half, *)
METAL_HOST_NARROW_COMPOUND(half, /)
METAL_HOST_NARROW_COMPOUND(bfloat, +)
METAL_HOST_NARROW_COMPOUND(bfloat, -)
METAL_HOST_NARROW_COMPOUND(bfloat, *)
METAL_HOST_NARROW_COMPOUND(bfloat, /)
#undef METAL_HOST_NARROW_COMPOUND

/* ... and with a built-in arithmetic left operand and a half or bfloat on
 * the right (`float /= half` in c10/metal/igamma.h): the result of `a op
 * b` (Metal's type) converted back to the left operand's type.  Without
 * these, the built-in candidates are ambiguous (half converts to float and
 * to several integer types). */
#define METAL_HOST_NARROW_COMPOUND_L(OP)                                        \
	template <class A, class B,                                            \
	          std::enable_if_t<std::is_arithmetic<A>::value && metal_host::is_narrow<B>::value, int> = 0> \
	constexpr A &operator OP##=(A &a, B b) {                               \
		a = static_cast<A>(a OP b);                                    \
		return a;                                                      \
	}
METAL_HOST_NARROW_COMPOUND_L(+)
METAL_HOST_NARROW_COMPOUND_L(-)
METAL_HOST_NARROW_COMPOUND_L(*)
METAL_HOST_NARROW_COMPOUND_L(/)
#undef METAL_HOST_NARROW_COMPOUND_L

constexpr half &operator++(half &a) { return a += 1; }
constexpr half &operator--(half &a) { return a -= 1; }
constexpr half operator++(half &a, int) { half o = a; a += 1; return o; }
constexpr half operator--(half &a, int) { half o = a; a -= 1; return o; }
constexpr bfloat &operator++(bfloat &a) { return a += 1; }
constexpr bfloat &operator--(bfloat &a) { return a -= 1; }
constexpr bfloat operator++(bfloat &a, int) { bfloat o = a; a += 1; return o; }
constexpr bfloat operator--(bfloat &a, int) { bfloat o = a; a -= 1; return o; }

/* Literal suffix `h` of Metal (`0.5h`): a half.  (`H` cannot be made one:
 * clang accepts a suffix without `_` only when the standard library
 * reserves it, as it does `h` for std::chrono hours.)  C++ reserves suffixes
 * without `_`; FLAGS silences that warning. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wuser-defined-literals"
#elif defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wliteral-suffix"
#endif
constexpr half operator""h(long double v) { return half(double(v)); }
constexpr half operator""h(unsigned long long v) { return half(v); }
#if defined(__clang__)
#pragma clang diagnostic pop
#elif defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* ---- constants (MSL "Math functions": constants) --------------------- */

namespace metal_host {
/* NAN: converts to float, half and bfloat, so that `c ? NAN : x` has the
 * type of x for those three (header comment).  Its constructor from
 * integers only exists to make `c ? 0 : NAN` ambiguous (a compile error)
 * rather than silently of type int. */
struct nan_constant {
	nan_constant() = default;
	template <class I, std::enable_if_t<std::is_integral<I>::value, int> = 0>
	constexpr nan_constant(I) {}
	constexpr operator float() const { return __builtin_nanf(""); }
	constexpr operator half() const {
		return half(ctor_bits_tag{}, uint16_t(0x7e00u));
	}
	constexpr operator bfloat() const {
		return bfloat(ctor_bits_tag{}, uint16_t(0x7fc0u));
	}
};
} // namespace metal_host

#undef NAN
#undef INFINITY
#undef HUGE_VALF
#undef MAXFLOAT
#define NAN (::metal_host::nan_constant{})
#define INFINITY (__builtin_inff())
#define HUGE_VALF (__builtin_inff())
#define MAXFLOAT FLT_MAX

#define M_E_F 2.71828182845904523536028747135266250f
#define M_LOG2E_F 1.44269504088896340735992468100189214f
#define M_LOG10E_F 0.434294481903251827651128918916605082f
#define M_LN2_F 0.693147180559945309417232121458176568f
#define M_LN10_F 2.30258509299404568401799145468436421f
#define M_PI_F 3.14159265358979323846264338327950288f
#define M_PI_2_F 1.57079632679489661923132169163975144f
#define M_PI_4_F 0.785398163397448309615660845819875721f
#define M_1_PI_F 0.318309886183790671537767526745028724f
#define M_2_PI_F 0.636619772367581343075535053490057448f
#define M_2_SQRTPI_F 1.12837916709551257389615890312154517f
#define M_SQRT2_F 1.41421356237309504880168872420969808f
#define M_SQRT1_2_F 0.707106781186547524400844362104849039f

#define M_E_H half(M_E_F)
#define M_LOG2E_H half(M_LOG2E_F)
#define M_LOG10E_H half(M_LOG10E_F)
#define M_LN2_H half(M_LN2_F)
#define M_LN10_H half(M_LN10_F)
#define M_PI_H half(M_PI_F)
#define M_PI_2_H half(M_PI_2_F)
#define M_PI_4_H half(M_PI_4_F)
#define M_1_PI_H half(M_1_PI_F)
#define M_2_PI_H half(M_2_PI_F)
#define M_2_SQRTPI_H half(M_2_SQRTPI_F)
#define M_SQRT2_H half(M_SQRT2_F)
#define M_SQRT1_2_H half(M_SQRT1_2_F)

#define HALF_MAX (half(::metal_host::ctor_bits_tag{}, uint16_t(0x7bffu)))
#define HALF_MIN (half(::metal_host::ctor_bits_tag{}, uint16_t(0x0400u)))
#define HALF_EPSILON (half(::metal_host::ctor_bits_tag{}, uint16_t(0x1400u)))
#define MAXHALF HALF_MAX

#endif /* METAL_HOST_SCALAR_H */
