/* test_scalar.cpp — half and bfloat of the Metal host layer, exact values.
 *
 * Exhaustive: every half and every bfloat bit pattern (round trip through
 * float, decoded value); every midpoint between consecutive finite values
 * and its float neighbours.  Sampled (fixed seeds): float -> narrow
 * (every 4099th float bit pattern), double -> narrow (300k), + - * / (500k
 * random bit-pattern pairs per format and operation, plus every pair of 60
 * special values), fma (300k random triples per format, and for half every
 * product of two values in [1.9, 2) that lies half-way between two halves,
 * plus or minus the least subnormal: the rounding must leave the tie).
 * The reference is the exact result (computed in double, exact for + - *
 * / of these formats; fma through mh_test.h's TwoSum) rounded once by
 * mh_test.h's table search.
 */
#include "mh_test.h"

#include <metal_stdlib>
#define SAME(...) static_assert(std::is_same<__VA_ARGS__>::value, #__VA_ARGS__)
using namespace metal;

static mh_table HT, BT;
static long checks = 0;

template <class N>
static bool is_nan_bits(unsigned b) {
	return std::is_same<N, half>::value ? (b & 0x7fffu) > 0x7c00u : (b & 0x7fffu) > 0x7f80u;
}

template <class N>
static N from_bits(unsigned b) { return as_type<N>(ushort(b)); }

template <class N>
static void check_same(unsigned got, unsigned want, const char *what, double x) {
	checks++;
	if (is_nan_bits<N>(want))
		CHECK(is_nan_bits<N>(got), "%s(%.17g): got 0x%04x, want a NaN", what, x, got);
	else
		CHECK(got == want, "%s(%.17g): got 0x%04x, want 0x%04x", what, x, got, want);
}

/* 1. every bit pattern: narrow -> float -> narrow, and the decoded value */
template <class N>
static void all_patterns(const char *name, int frac, int expo) {
	for (unsigned b = 0; b < 65536; b++) {
		const N v = from_bits<N>(b);
		const float f = v; /* implicit: the one conversion Metal code uses most */
		const N back = f;
		checks++;
		CHECK(as_type<ushort>(back) == b, "%s 0x%04x -> %a -> 0x%04x", name, b, double(f),
		      unsigned(as_type<ushort>(back)));
		const unsigned inf = ((1u << expo) - 1) << frac;
		if ((b & 0x7fffu) < inf) {
			checks++;
			CHECK(double(f) == mh_decode(b, frac, expo), "%s 0x%04x decodes to %a", name, b,
			      double(f));
		} else if ((b & 0x7fffu) == inf) {
			checks++;
			CHECK(isinf(f) && signbit(f) == bool(b & 0x8000u), "%s 0x%04x is not +-inf", name, b);
		} else {
			checks++;
			CHECK(isnan(f), "%s 0x%04x is not NaN", name, b);
		}
	}
}

/* 2. conversions from float and double */
template <class N>
static void conversions(const char *name) {
	const mh_table &t = std::is_same<N, half>::value ? HT : BT;
	for (unsigned long long u = 0; u < (1ull << 32); u += 4099) {
		const float f = mh_float(unsigned(u));
		check_same<N>(as_type<ushort>(N(f)), t.round(double(f)), name, double(f));
	}
	for (int i = 0; i + 1 < t.n; i++) {
		const double m = (t.v[i] + t.v[i + 1]) / 2; /* exact, and a float */
		const float fm = float(m);
		const float below = __builtin_nextafterf(fm, 0.0f), above = __builtin_nextafterf(fm, 1e30f);
		const float cases[6] = {fm, below, above, -fm, -below, -above};
		for (float c : cases)
			check_same<N>(as_type<ushort>(N(c)), t.round(double(c)), name, double(c));
	}
	mh_rng r{0x9e3779b97f4a7c15ull};
	for (int i = 0; i < 300000; i++) {
		/* doubles in and around the format's range */
		const double d = mh_double((r.next() & 0x800fffffffffffffull) |
		                           (uint64_t(0x3f0 + int(r.next() % 0x130) - 0x98) << 52));
		check_same<N>(as_type<ushort>(N(d)), t.round(d), name, d);
	}
}

/* 3. + - * / on random bit patterns and on pairs of special values */
template <class N>
static void arithmetic(const char *name, const unsigned *special, int nspecial) {
	const mh_table &t = std::is_same<N, half>::value ? HT : BT;
	auto one = [&](unsigned ab, unsigned bb) {
		const N a = from_bits<N>(ab), b = from_bits<N>(bb);
		const double x = a.to_double(), y = b.to_double();
		check_same<N>(as_type<ushort>(N(a + b)), t.round(x + y), "add", x);
		check_same<N>(as_type<ushort>(N(a - b)), t.round(x - y), "sub", x);
		check_same<N>(as_type<ushort>(N(a * b)), t.round(x * y), "mul", x);
		check_same<N>(as_type<ushort>(N(a / b)), t.round(x / y), "div", x);
		static_assert(std::is_same<decltype(a + b), N>::value, "N + N is N");
	};
	mh_rng r{std::is_same<N, half>::value ? 12345ull : 67890ull};
	for (int i = 0; i < 500000; i++) {
		const unsigned long long w = r.next();
		one(unsigned(w & 0xffff), unsigned((w >> 16) & 0xffff));
	}
	for (int i = 0; i < nspecial; i++)
		for (int j = 0; j < nspecial; j++)
			one(special[i], special[j]);
	(void)name;
}

/* 4. fma: exact product, one rounding of the sum.  half has Metal's own
 * fma (result half); bfloat has none: fma(bfloat, ...) is float's fma (a
 * float result, rounded once to float), checked below with a float
 * reference built the same way */
static float ref_fma_float(double a, double b, double c) {
	const double p = a * b, s = p + c;
	const float r = float(s);
	if (!(s - s == 0))
		return r;
	const double bb = s - p, e = (p - (s - bb)) + (c - bb);
	const double lo = double(__builtin_nextafterf(r, -3e38f)), hi = double(__builtin_nextafterf(r, 3e38f));
	const bool mid = s == (double(r) + lo) / 2 || s == (double(r) + hi) / 2;
	if (e != 0 && mid) /* s half-way between two floats: e decides */
		return float(s + (e > 0 ? 1 : -1) * (s < 0 ? -s : s) * 0x1p-30);
	return r;
}

static void fused_bfloat() {
	mh_rng r{2424ull};
	for (int i = 0; i < 300000; i++) {
		const unsigned long long w = r.next();
		const bfloat a = as_type<bfloat>(ushort(w)), b = as_type<bfloat>(ushort(w >> 16)),
		             c = as_type<bfloat>(ushort(w >> 32));
		const auto got = fma(a, b, c);
		static_assert(std::is_same<decltype(got), const float>::value, "fma(bfloat) is float");
		const float want = ref_fma_float(a.to_double(), b.to_double(), c.to_double());
		checks++;
		if (want != want)
			CHECK(got != got, "fma(bfloat 0x%04x..): want NaN", unsigned(w & 0xffff));
		else
			CHECK(mh_fbits(got) == mh_fbits(want), "fma(bfloat 0x%04x, 0x%04x, 0x%04x) = %a, want %a",
			      unsigned(w & 0xffff), unsigned((w >> 16) & 0xffff), unsigned((w >> 32) & 0xffff),
			      double(got), double(want));
	}
}

template <class N>
static void fused(const char *name) {
	const mh_table &t = std::is_same<N, half>::value ? HT : BT;
	mh_rng r{std::is_same<N, half>::value ? 4242ull : 2424ull};
	auto one = [&](N a, N b, N c) {
		const N got = fma(a, b, c);
		check_same<N>(as_type<ushort>(got), t.round_fma(a.to_double(), b.to_double(), c.to_double()),
		              name, a.to_double());
	};
	for (int i = 0; i < 300000; i++) {
		const unsigned long long w = r.next();
		one(from_bits<N>(unsigned(w & 0xffff)), from_bits<N>(unsigned((w >> 16) & 0xffff)),
		    from_bits<N>(unsigned((w >> 32) & 0xffff)));
	}
	/* a*b exactly half-way between two values of N, c the least subnormal
	 * of either sign: the exact sum is just off the tie, so the two results
	 * differ (for half the double sum is exact here; the case checks that
	 * the tie is not broken to even) */
	int traps = 0;
	for (unsigned ab = 0x3f80; ab < 0x3f80 + 64; ab++) { /* half: a in [1.9, 2) */
		for (unsigned bb = ab; bb < ab + 64; bb++) {
			const N a = from_bits<N>(ab), b = from_bits<N>(bb);
			const double p = a.to_double() * b.to_double();
			if (!t.is_midpoint(p))
				continue;
			const N tiny = from_bits<N>(1), mtiny = from_bits<N>(0x8001);
			one(a, b, tiny);
			one(a, b, mtiny);
			CHECK(as_type<ushort>(fma(a, b, tiny)) != as_type<ushort>(fma(a, b, mtiny)),
			      "%s: fma(0x%04x, 0x%04x, +-tiny) equal", name, ab, bb);
			traps++;
		}
	}
	checks++;
	CHECK(traps > 0, "%s: no midpoint products found", name);
}

int main() {
	HT.build(10, 5);
	BT.build(7, 8);

	all_patterns<half>("half", 10, 5);
	all_patterns<bfloat>("bfloat", 7, 8);
	conversions<half>("half(x)");
	conversions<bfloat>("bfloat(x)");

	/* special values: zeros, least subnormals, subnormal/normal boundary,
	 * one and its neighbours, max and its neighbours, inf, NaN; both signs */
	unsigned hs[160], bs[160];
	int nh = 0, nb = 0;
	const unsigned hbase[] = {0x0000, 0x0001, 0x0002, 0x0003, 0x03ff, 0x0400, 0x0401, 0x07ff,
	                          0x1400, 0x3555, 0x3bff, 0x3c00, 0x3c01, 0x3e00, 0x4000, 0x4248,
	                          0x5640, 0x6400, 0x7000, 0x77ff, 0x7800, 0x7bfe, 0x7bff, 0x7c00,
	                          0x7e00, 0x7c01, 0x4900, 0x3800, 0x2e66, 0x0200};
	const unsigned bbase[] = {0x0000, 0x0001, 0x0002, 0x0003, 0x007f, 0x0080, 0x0081, 0x00ff,
	                          0x3c00, 0x3eab, 0x3f7f, 0x3f80, 0x3f81, 0x3fc0, 0x4000, 0x4049,
	                          0x4b80, 0x5f00, 0x7000, 0x7eff, 0x7f00, 0x7f7e, 0x7f7f, 0x7f80,
	                          0x7fc0, 0x7f81, 0x4880, 0x3f00, 0x3dcd, 0x0040};
	for (unsigned v : hbase) {
		hs[nh++] = v;
		hs[nh++] = v | 0x8000u;
	}
	for (unsigned v : bbase) {
		bs[nb++] = v;
		bs[nb++] = v | 0x8000u;
	}
	arithmetic<half>("half", hs, nh);
	arithmetic<bfloat>("bfloat", bs, nb);
	fused<half>("fma(half)");
	fused_bfloat();

	/* 5. overflow, NaN, subnormals, by value */
	checks += 20;
	CHECK(as_type<ushort>(half(65504.0f) + half(16.0f)) == 0x7c00, "65504 + 16 is +inf");
	CHECK(as_type<ushort>(half(65504.0f) + half(8.0f)) == 0x7bff, "65504 + 8 is 65504");
	CHECK(as_type<ushort>(-half(65504.0f) - half(32.0f)) == 0xfc00, "-65504 - 32 is -inf");
	CHECK(as_type<ushort>(half(65520.0f)) == 0x7c00 && as_type<ushort>(half(65519.996f)) == 0x7bff,
	      "65520 rounds to inf, below it to max");
	CHECK(as_type<ushort>(bfloat(3.4e38f) * bfloat(2.0f)) == 0x7f80, "bfloat overflow to inf");
	CHECK(isnan(half(NAN) + half(1.0f)) && isnan(half(INFINITY) - half(INFINITY)) &&
	          isnan(half(0.0f) / half(0.0f)) && isnan(half(0.0f) * half(INFINITY)),
	      "half NaN propagation");
	CHECK(isnan(bfloat(NAN) * bfloat(2.0f)) && isnan(bfloat(0.0f) / bfloat(0.0f)), "bfloat NaN");
	CHECK(!(half(NAN) == half(NAN)) && half(NAN) != half(NAN) && !(half(NAN) < half(1.0f)),
	      "NaN compares unordered");
	CHECK(as_type<ushort>(half(0x1p-24f)) == 0x0001 && as_type<ushort>(half(0x1p-25f)) == 0x0000 &&
	          as_type<ushort>(half(0x1.8p-25f)) == 0x0001 && as_type<ushort>(half(0x1.8p-24f)) == 0x0002,
	      "half subnormal rounding (2^-25 ties to even 0)");
	CHECK(float(from_bits<half>(0x0001)) == 0x1p-24f && float(from_bits<half>(0x03ff)) == 0x1.ff8p-15f,
	      "half subnormal values");
	CHECK(as_type<ushort>(from_bits<half>(0x0001) + from_bits<half>(0x0001)) == 0x0002,
	      "subnormal + subnormal exact");
	CHECK(as_type<ushort>(bfloat(0x1p-133f)) == 0x0001 && as_type<ushort>(bfloat(0x1p-134f)) == 0,
	      "bfloat least subnormal");
	CHECK(as_type<ushort>(-half(NAN)) == 0xfe00 && as_type<ushort>(-half(0.0f)) == 0x8000,
	      "negation flips the sign bit");
	CHECK(as_type<ushort>(half(1.0f) / half(3.0f)) == 0x3555, "1/3 in half");
	CHECK(as_type<ushort>(bfloat(1.0f) / bfloat(3.0f)) == 0x3eab, "1/3 in bfloat");

	/* 6. integers and the other narrow type */
	checks += 12;
	CHECK(as_type<ushort>(half(65519)) == 0x7bff && as_type<ushort>(half(65520)) == 0x7c00,
	      "int -> half at the top");
	CHECK(as_type<ushort>(half(-2049)) == 0xe800 && as_type<ushort>(half(2051)) == 0x6802,
	      "int -> half ties to even");
	const long big = (1l << 60) + (1l << 52) + 1; /* above a bfloat midpoint by 1 */
	CHECK(float(bfloat(big)) == 0x1.02p60f && float(bfloat((1l << 60) + (1l << 52))) == 0x1p60f,
	      "64-bit integer -> bfloat rounds once (round-to-odd through double)");
	CHECK(int(half(2.5f)) == 2 && int(half(-2.5f)) == -2 && static_cast<int>(half(65504.0f)) == 65504,
	      "half -> int truncates");
	const long l = half(1000.0f); /* implicit: int64 parameters take halves */
	const short s = bfloat(-12.0f);
	CHECK(l == 1000 && s == -12, "half -> long, bfloat -> short implicit");
	CHECK(as_type<ushort>(half(bfloat(1.0f / 3.0f))) == HT.round(BT.v[0x3eab]),
	      "bfloat -> half rounds the bfloat value");
	CHECK(as_type<ushort>(bfloat(half(1.0f / 3.0f))) == BT.round(HT.v[0x3555]), "half -> bfloat");
	CHECK(half(3.0f) == 3 && half(0.5f) < 1 && 2 > half(1.5f) && half(65504.0f) == 65519,
	      "half compared with int: the int converts to half first");
	CHECK(as_type<ushort>(half(0.5f) + 65519) == 0x7bff, "half + int: the int is rounded to half");
	CHECK(bool(half(0.5f)) && !bool(half(0.0f)) && !half(0.0f), "half to bool");

	/* 7. mixed types (Metal's usual arithmetic conversions) */
	static_assert(std::is_same<decltype(half() + 1), half>::value, "half + int is half");
	static_assert(std::is_same<decltype(2 * bfloat()), bfloat>::value, "int * bfloat is bfloat");
	static_assert(std::is_same<decltype(half() * 1.0f), float>::value, "half * float is float");
	static_assert(std::is_same<decltype(1.0f - bfloat()), float>::value, "float - bfloat is float");
	static_assert(std::is_same<decltype(half() + bfloat()), float>::value, "half + bfloat is float");
	static_assert(std::is_same<decltype(half() + true), half>::value, "half + bool is half");
	checks += 3;
	CHECK(half(0.1f) * 3.0f == float(half(0.1f)) * 3.0f, "half * float computed in float");
	{
		half h = 1.0f;
		h += 0.0001f; /* float sum, then rounded to half: unchanged */
		CHECK(as_type<ushort>(h) == 0x3c00, "h += tiny stays 1");
		h++;
		h *= 2;
		h /= half(4.0f);
		h -= 1;
		CHECK(float(h) == 0.0f, "compound operators");
	}

	/* 8. the ?: forms (metal_host_scalar.h, "Conversions") */
	{
		volatile bool c = true;
		half h = 1.5f;
		static_assert(std::is_same<decltype(c ? h : 0), half>::value, "c ? half : int is half");
		static_assert(std::is_same<decltype(c ? 0 : h), half>::value, "c ? int : half is half");
		static_assert(std::is_same<decltype(c ? NAN : h), half>::value, "c ? NAN : half is half");
		static_assert(std::is_same<decltype(c ? NAN : 1.0f), float>::value, "c ? NAN : float");
		static_assert(std::is_same<decltype(c ? 0 : -INFINITY), float>::value, "c ? 0 : -INF");
		static_assert(std::is_same<decltype(c ? h : half(2.0f)), half>::value, "same types");
		static_assert(std::is_same<decltype(c ? bfloat() : 1), bfloat>::value, "bfloat : int");
		const half r1 = c ? NAN : h;
		const float r2 = !c ? 0 : -INFINITY;
		const half r3 = !c ? h : 0;
		checks += 3;
		CHECK(isnan(r1), "c ? NAN : h");
		CHECK(r2 == -INFINITY, "c ? 0 : -INFINITY");
		CHECK(as_type<ushort>(r3) == 0, "c ? h : 0");
	}

	/* 8b. ?: as REWRITES.md rule 5 writes it: each operand through
	 * tern_a / tern_b, told the other's type; Metal's types */
	{
#define TERN(c, a, b) ((c) ? ::metal_host::tern_a<decltype((b))>((a)) : ::metal_host::tern_b<decltype((a))>((b)))
		volatile bool c = true;
		half h = 1.5f;
		float f = 0.25f;
		bfloat bf = 3.0f;
		int i = 7;
		SAME(decltype(TERN(c, h, f)), float);
		SAME(decltype(TERN(c, f, h)), float);
		SAME(decltype(TERN(c, h, bf)), float);
		SAME(decltype(TERN(c, h, 0)), half);
		SAME(decltype(TERN(c, 0, h)), half);
		SAME(decltype(TERN(c, bf, i)), bfloat);
		SAME(decltype(TERN(c, NAN, h)), half);
		SAME(decltype(TERN(c, h, h)), half &);
		SAME(decltype(TERN(c, 1, 2.0f)), float);
		SAME(decltype(TERN(c, h, 2.0)), double);
		/* NAN against an int or a float is float, as in Metal (the
		 * fresh-agent trial of issue #27: `w == 0 ? NAN : 0`) */
		SAME(decltype(TERN(c, NAN, 0)), float);
		SAME(decltype(TERN(c, 0, NAN)), float);
		SAME(decltype(TERN(c, f, NAN)), float);
		checks += 12;
		CHECK(isnan(TERN(c, NAN, 0)) && TERN(!c, NAN, 0) == 0.0f, "c ? NAN : 0");
		CHECK(TERN(c, h, f) == 1.5f && TERN(!c, h, f) == 0.25f, "c ? half : float");
		CHECK(TERN(!c, f, h) == 1.5f, "c ? float : half");
		CHECK(TERN(c, h, bf) == 1.5f && TERN(!c, h, bf) == 3.0f, "c ? half : bfloat is float");
		CHECK(as_type<ushort>(TERN(!c, h, 0)) == 0, "c ? half : 0");
		/* lvalues stay lvalues: (c ? x : y) = v */
		int x = 1, y = 2;
		TERN(c, x, y) = 5;
		CHECK(x == 5 && y == 2, "an lvalue ?: assigns");
		/* heaviside's floating overload as mps-migrate translates it:
		 * `a == 0 ? b : static_cast<T>(a > 0)`, a and b float, T half */
		const float a0 = 0.0f, an = -2.0f, b = 0.5f;
		SAME(decltype(TERN(a0 == 0, b, static_cast<half>(a0 > 0))), float);
		CHECK(static_cast<half>(TERN(a0 == 0, b, static_cast<half>(a0 > 0))) == half(0.5f), "heaviside(0, 0.5)");
		CHECK(static_cast<half>(TERN(an == 0, b, static_cast<half>(an > 0))) == half(0.0f), "heaviside(-2, 0.5)");
		/* angle's form: `isnan(x) ? x : x < 0 ? M_PI_F : 0.0`, x half: float */
		const half hx = -1.0f;
		SAME(decltype(TERN(isnan(hx), hx, TERN(hx < 0, M_PI_F, 0.0f))), float);
		CHECK(TERN(isnan(hx), hx, TERN(hx < 0, M_PI_F, 0.0f)) == M_PI_F, "angle(-1) is pi in float");
		/* a half read from constant memory */
		constant half *ch = &h;
		SAME(decltype(TERN(c, *ch, f)), float);
		CHECK(TERN(c, *ch, f) == 1.5f, "c ? constant half : float");
#undef TERN
	}

	/* 8c. mixed arithmetic types (metal_host_scalar.h, "Mixed operands") */
	SAME(decltype(half() * 2), half);
	SAME(decltype(2 * half()), half);
	SAME(decltype(half() + 1.0f), float);
	SAME(decltype(half() - bfloat()), float);
	SAME(decltype(bfloat() / 3u), bfloat);
	SAME(decltype(bfloat() * true), bfloat);
	SAME(decltype(half() == 1.0f), bool);
	SAME(decltype(half2() * half(2.0f)), half2);
	SAME(decltype(float2() * 2.0f), float2);
	{
		/* compound assignment with a half on the right (igamma.h's `float /= half`) */
		float f = 3.0f;
		f /= half(2.0f);
		int i = 7;
		i += half(0.5f); /* 7 + 0.5 in half is 7.5, back to int: 7 */
		int j = 3;
		j *= bfloat(2.5f);
		SAME(decltype(f -= half()), float &);
		checks += 3;
		CHECK(f == 1.5f, "float /= half");
		CHECK(i == 7, "int += half");
		CHECK(j == 7, "int *= bfloat (7.5 truncated)");
	}
	checks += 3;
	CHECK(half(0.1f) * 3 == half(half(0.1f) * half(3.0f)), "half * int: int converted to half, product rounded to half");
	CHECK(half(0.1f) + 0.2f == float(half(0.1f)) + 0.2f, "half + float is computed in float");
	CHECK(half(1.0f) + bfloat(1.0f / 128) == 1.0f + 1.0f / 128, "half + bfloat in float, exact");

	/* 9. literals */
	static_assert(std::is_same<decltype(0.5h), half>::value, "0.5h is half");
	static_assert(as_type<ushort>(0.5h) == 0x3800 && as_type<ushort>(2h) == 0x4000, "h literal values");
	static_assert(std::is_same<decltype(half() * 0.5f), float>::value, "half * 0.5f is float");
	static_assert(std::is_same<decltype(half() * 0.5), double>::value,
	              "half * 0.5 (an unrewritten literal) is double: REWRITES.md rule 2");
	static_assert(as_type<ushort>(half(0.1f)) == 0x2e66 && as_type<ushort>(bfloat(0.1f)) == 0x3dcd,
	              "constexpr conversion");
	checks += 1;
	CHECK(as_type<ushort>(M_PI_H) == 0x4248 && M_PI_F == 0x1.921fb6p1f, "M_PI_H, M_PI_F");

	return mh_result("test_scalar", checks);
}
