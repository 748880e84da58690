/* mh_test.h — shared by the test programs of the Metal host layer.
 *
 * The programs are compiled like mps-try's Metal unit: with the lines of
 * tools/metal-host/FLAGS (metal_host.h force-included) and no system
 * header, so printf is declared here by hand.
 *
 * CHECK(cond, fmt, ...) counts a failure and prints the first 20; the
 * program's exit status is the number of failures (capped at 100).
 *
 * The reference rounding (ref_half_bits, ref_bfloat_bits) is independent
 * of the layer's bit algorithm: it builds the sorted table of every
 * non-negative finite value of the format (decoded by its definition,
 * value = fraction * 2^(exponent - bias - fraction bits)) and finds the
 * nearest entry by binary search, ties to the even bit pattern, overflow
 * from max + half an ulp.
 */
#ifndef MH_TEST_H
#define MH_TEST_H

extern "C" int printf(const char *, ...);

static int mh_failures = 0;
#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			if (mh_failures < 20) {                                \
				printf("FAIL %s:%d: ", __FILE__, __LINE__);    \
				printf(__VA_ARGS__);                           \
				printf("\n");                                  \
			}                                                      \
			mh_failures++;                                         \
		}                                                              \
	} while (0)

static inline int mh_result(const char *name, long checks) {
	printf("%s: %ld checks, %d failures\n", name, checks, mh_failures);
	return mh_failures > 100 ? 100 : mh_failures;
}

/* xorshift64*: fixed seeds, the same samples on every host */
struct mh_rng {
	unsigned long long s;
	unsigned long long next() {
		s ^= s >> 12;
		s ^= s << 25;
		s ^= s >> 27;
		return s * 2685821657736338717ull;
	}
};

static inline unsigned long long mh_dbits(double d) {
	return __builtin_bit_cast(unsigned long long, d);
}
static inline unsigned mh_fbits(float f) { return __builtin_bit_cast(unsigned, f); }
static inline float mh_float(unsigned u) { return __builtin_bit_cast(float, u); }
static inline double mh_double(unsigned long long u) { return __builtin_bit_cast(double, u); }

/* value of a format's bit pattern by the definition (finite only) */
static inline double mh_decode(unsigned bits, int frac, int expo) {
	const int bias = (1 << (expo - 1)) - 1;
	const unsigned e = (bits >> frac) & ((1u << expo) - 1);
	const unsigned f = bits & ((1u << frac) - 1);
	double v;
	if (e == 0)
		v = __builtin_ldexp(double(f), 1 - bias - frac);
	else
		v = __builtin_ldexp(double(f | (1u << frac)), int(e) - bias - frac);
	return (bits >> (frac + expo)) & 1 ? -v : v;
}

struct mh_table {
	int frac, expo;
	int n;            /* entries: bit patterns 0 .. n-1 are the finite >= 0 */
	double v[32768];  /* v[i] = value of bit pattern i */
	void build(int f, int e) {
		frac = f;
		expo = e;
		n = int(((1u << e) - 1) << f); /* up to, excluding, infinity */
		for (int i = 0; i < n; i++)
			v[i] = mh_decode(unsigned(i), f, e);
	}
	/* nearest, ties to even; x finite or not; returns the bit pattern */
	unsigned round(double x) const {
		const unsigned sign = (mh_dbits(x) >> 63) ? (1u << (frac + expo)) : 0u;
		const unsigned inf = ((1u << expo) - 1) << frac;
		if (x != x)
			return sign | inf | (1u << (frac - 1));
		double a = x < 0 ? -x : x;
		const double maxv = v[n - 1];
		const double ulp_max = v[n - 1] - v[n - 2];
		if (a >= maxv + ulp_max / 2) /* the tie at max + ulp/2 goes to inf (even) */
			return sign | inf;
		int lo = 0, hi = n - 1; /* v[lo] <= a < v[hi] or a == maxv */
		if (a >= maxv)
			return sign | unsigned(n - 1);
		while (hi - lo > 1) {
			int mid = (lo + hi) / 2;
			if (v[mid] <= a)
				lo = mid;
			else
				hi = mid;
		}
		const double dl = a - v[lo], dh = v[hi] - a; /* exact: near values */
		unsigned r;
		if (dl < dh)
			r = unsigned(lo);
		else if (dh < dl)
			r = unsigned(hi);
		else
			r = (lo & 1) ? unsigned(hi) : unsigned(lo);
		return sign | r;
	}
	/* is x (finite, >= 0 or < 0) exactly half-way between two entries? */
	bool is_midpoint(double x) const {
		double a = x < 0 ? -x : x;
		if (!(a < v[n - 1]))
			return false;
		int lo = 0, hi = n - 1;
		while (hi - lo > 1) {
			int mid = (lo + hi) / 2;
			if (v[mid] <= a)
				lo = mid;
			else
				hi = mid;
		}
		return a - v[lo] == v[hi] - a && a != v[lo];
	}
	/* the exact a*b + c (a, b, c finite entries' values) rounded once: s + e
	 * exact with TwoSum; the rounding of s, except when s is a midpoint and
	 * e pushes it off (see test_scalar.cpp) */
	unsigned round_fma(double a, double b, double c) const {
		const double p = a * b; /* exact */
		const double s = p + c;
		if (!(s - s == 0))
			return round(s);
		const double bb = s - p;
		const double e = (p - (s - bb)) + (c - bb);
		const double as = s < 0 ? -s : s;
		const bool overflow_tie = as == v[n - 1] + (v[n - 1] - v[n - 2]) / 2;
		if (e != 0 && (is_midpoint(s) || overflow_tie)) {
			/* less than half an ulp of the narrow format: between s and
			 * the neighbour on e's side */
			return round(s + (e > 0 ? 1 : -1) * as / 8192);
		}
		return round(s);
	}
};

#endif /* MH_TEST_H */
