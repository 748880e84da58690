/* test_misc.cpp — vectors, type traits, numeric_limits, math, relational
 * and integer functions, as_type, select of the Metal host layer: exact
 * values and types (overload choices are checked with static_assert, as
 * they decide which function Metal code calls).
 */
#include "mh_test.h"

#include <metal_stdlib>
using namespace metal;

static long checks = 0;
#define EQ(a, b, ...)                                                          \
	do {                                                                   \
		checks++;                                                      \
		CHECK((a) == (b), __VA_ARGS__);                                \
	} while (0)
/* SAME(type, expected type): an overload or conversion choice */
#define SAME(...) static_assert(std::is_same<__VA_ARGS__>::value, #__VA_ARGS__)

static void vectors() {
	/* layout as on the GPU */
	static_assert(sizeof(float2) == 8 && alignof(float2) == 8, "float2");
	static_assert(sizeof(float3) == 16 && alignof(float3) == 16, "float3 takes float4's room");
	static_assert(sizeof(half4) == 8 && sizeof(uint3) == 16 && sizeof(bool2) == 2, "sizes");
	static_assert(sizeof(bfloat2) == 4 && sizeof(long2) == 16 && sizeof(uchar4) == 4, "sizes");

	/* construction */
	const float2 a(1.5f, -2.0f);
	const float2 s = 3; /* a scalar replicates, implicitly */
	const float4 f4(a, float2(5.0f, 6.0f));
	const float3 f3(1.0f, a);
	const int4 i4(1, 2, int2(3, 4));
	const half2 h2(1, 0); /* ints convert to half */
	const half2 hn(NAN, NAN);
	EQ(a.x, 1.5f, "float2.x");
	EQ(a[1], -2.0f, "float2[1]");
	EQ(s.y, 3.0f, "replicated");
	EQ(f4.z, 5.0f, "float4(float2, float2).z");
	EQ(f4.w, 6.0f, "float4(float2, float2).w");
	EQ(f3.y, 1.5f, "float3(float, float2).y");
	EQ(i4.w, 4, "int4(int, int, int2).w");
	EQ(as_type<ushort>(h2.x), 0x3c00, "half2(1, 0).x");
	checks++;
	CHECK(isnan(hn.x) && isnan(hn.y), "half2(NAN, NAN)");
	const float2 back = float2(half2(0.1f, 3.0f)); /* explicit conversion between vector types */
	EQ(back.x, float(half(0.1f)), "float2(half2)");
	static_assert(!std::is_convertible<half2, float2>::value, "no implicit vector conversion");
	static_assert(!std::is_convertible<half, float2>::value, "no half -> float2 (c10's log1p(float) vs log1p(float2))");
	static_assert(std::is_convertible<int, half2>::value, "int replicates into half2 (`return 0;`)");

	/* element-wise arithmetic with the component type's rounding */
	const half2 hx(0.1f, 1000.0f), hy(0.2f, 0.1f);
	const half2 hs = hx + hy;
	EQ(as_type<ushort>(hs.x), as_type<ushort>(half(0.1f) + half(0.2f)), "half2 + half2 rounds each component");
	EQ(as_type<ushort>(hs.y), as_type<ushort>(half(1000.0f) + half(0.1f)), "half2 + half2 .y");
	const float2 p = a * 2.0f + float2(1.0f, 1.0f) - a / float2(0.5f, 4.0f);
	EQ(p.x, 1.5f * 2 + 1 - 3.0f, "float2 expression .x");
	EQ(p.y, -2.0f * 2 + 1 - -0.5f, "float2 expression .y");
	const float2 m = a * M_PI_F;
	EQ(m.x, 1.5f * M_PI_F, "float2 * M_PI_F");
	const int2 q = int2(7, -7) / 2 + int2(7, -7) % int2(3, 3);
	EQ(q.x, 3 + 1, "int2 / and mod");
	EQ(q.y, -3 + -1, "int2 / and mod on negatives");
	const uchar2 w = uchar2(uchar(250), uchar(1)) + uchar2(uchar(10), uchar(1));
	EQ(w.x, 4, "uchar2 wraps");
	const int2 sh = (int2(1, 8) << 2) | (int2(0xff, 0) & 1) ^ int2(0, 3);
	EQ(sh.x, 5, "shift, and, or, xor .x");
	EQ(sh.y, 32 | 3, "shift, and, or, xor .y");
	const float2 neg = -a;
	EQ(neg.y, 2.0f, "unary minus");
	float2 acc = a;
	acc += 1.0f;
	acc *= float2(2.0f, 0.5f);
	EQ(acc.x, 5.0f, "compound += *= .x");
	EQ(acc.y, -0.5f, "compound .y");

	/* comparisons give boolN */
	const bool2 lt = a < float2(2.0f, -3.0f);
	SAME(decltype(a == a), bool2);
	checks += 4;
	CHECK(lt.x && !lt.y, "float2 < float2");
	CHECK(all(a == a) && !any(a != a), "all / any");
	CHECK(any(float2(NAN, 1.0f) != float2(NAN, 1.0f)) && !all(float2(NAN, 1.0f) == float2(NAN, 1.0f)),
	      "NaN components compare unequal (eq_functor on float2)");
	CHECK(all(!bool2(false, false)) && all(bool2(true, false) || bool2(false, true)), "bool2 logic");

	/* select */
	const float2 sel = select(float2(1.0f, 2.0f), float2(10.0f, 20.0f), bool2(true, false));
	EQ(sel.x, 10.0f, "select picks b where c");
	EQ(sel.y, 2.0f, "select picks a elsewhere");
	EQ(select(1, 2, false), 1, "scalar select false");
	EQ(select(1, 2, true), 2, "scalar select true");

	/* geometric */
	EQ(dot(float2(3.0f, 4.0f), float2(3.0f, 4.0f)), 25.0f, "dot");
	EQ(length(float2(3.0f, 4.0f)), 5.0f, "length");
	SAME(decltype(dot(half2(), half2())), half);
	const float3 cr = cross(float3(1.0f, 0.0f, 0.0f), float3(0.0f, 1.0f, 0.0f));
	EQ(cr.z, 1.0f, "cross");

	/* vector math */
	const float2 vm = max(float2(1.0f, NAN), float2(NAN, 2.0f));
	EQ(vm.x, 1.0f, "max(float2) NaN rule .x");
	EQ(vm.y, 2.0f, "max(float2) NaN rule .y");
	const int2 ia = abs(int2(-3, 4));
	EQ(ia.x, 3, "abs(int2)");
	const float2 vs = sqrt(float2(4.0f, 9.0f));
	EQ(vs.y, 3.0f, "sqrt(float2)");
	/* precise:: and fast:: abs/max/min act per component too (UnaryKernel.metal's
	 * abs_functor calls ::precise::abs(float2(x)) on complex values) */
	const float2 pa = ::precise::abs(float2(-1.5f, 2.0f));
	SAME(decltype(::precise::abs(float2())), float2);
	EQ(pa.x, 1.5f, "precise::abs(float2).x");
	EQ(pa.y, 2.0f, "precise::abs(float2).y");
	const float2 fm = fast::max(float2(-1.0f, 3.0f), float2(0.0f));
	EQ(fm.x, 0.0f, "fast::max(float2, float2).x");
	EQ(fm.y, 3.0f, "fast::max(float2, float2).y");
	EQ(precise::min(float2(-1.0f, 3.0f), float2(0.0f)).x, -1.0f, "precise::min(float2, float2).x");
	/* converting construction from a `constant` (volatile) vector of another
	 * component type: c10's binary dense kernel does om_t(a[j]), a float2 from
	 * a constant half2 */
	static const volatile half2 ch(half(1.5f), half(-2.0f));
	const float2 cf = float2(ch);
	EQ(cf.x, 1.5f, "float2(constant half2).x");
	EQ(cf.y, -2.0f, "float2(constant half2).y");
	checks++;
	CHECK(!(std::is_convertible<const volatile half2 &, float2>::value), "float2 from a constant half2 is explicit");
	const bool2 vn = isnan(float2(NAN, 0.0f));
	checks++;
	CHECK(vn.x && !vn.y, "isnan(float2)");
}

static void traits() {
	static_assert(is_floating_point_v<half> && is_floating_point_v<bfloat> && is_floating_point_v<float>,
	              "half and bfloat are floating point");
	static_assert(is_floating_point_v<float2> && is_floating_point_v<half4>, "so are their vectors");
	static_assert(!is_floating_point_v<int> && !is_floating_point_v<int2>, "ints are not");
	static_assert(is_integral_v<bool> && is_integral_v<char> && is_integral_v<uchar> && is_integral_v<long> &&
	                  is_integral_v<int3> && !is_integral_v<half>,
	              "is_integral");
	static_assert(is_scalar_v<half> && is_scalar_v<bfloat> && is_scalar_v<int> && !is_scalar_v<float2>,
	              "is_scalar: vectors are not");
	static_assert(is_signed_v<half> && is_signed_v<int> && !is_signed_v<uint> && !is_signed_v<bool> &&
	                  is_signed_v<float2> && is_unsigned_v<uchar>,
	              "is_signed");
	static_assert(is_arithmetic_v<half> && is_arithmetic_v<bool> && !is_arithmetic_v<void *>, "is_arithmetic");
	static_assert(is_vector_v<float2> && !is_vector_v<float> && vec_elements<half3>::value == 3 &&
	                  vec_elements<float>::value == 1,
	              "is_vector, vec_elements");
	SAME(enable_if_t<true, half>, half);
	SAME(conditional_t<false, int, half>, half);
	SAME(decltype(declval<half>() + declval<int>()), half);
	static_assert(is_same_v<remove_cv_t<const volatile half>, half> && is_same_v<decay_t<const float2 &>, float2>,
	              "remove_cv, decay");

	/* numeric_limits */
	static_assert(as_type<ushort>(numeric_limits<half>::max()) == 0x7bff, "half max");
	static_assert(as_type<ushort>(numeric_limits<half>::lowest()) == 0xfbff, "half lowest");
	static_assert(as_type<ushort>(numeric_limits<half>::min()) == 0x0400, "half min (least normal)");
	static_assert(as_type<ushort>(numeric_limits<half>::denorm_min()) == 0x0001, "half denorm_min");
	static_assert(as_type<ushort>(numeric_limits<half>::epsilon()) == 0x1400, "half epsilon 2^-10");
	static_assert(as_type<ushort>(numeric_limits<half>::infinity()) == 0x7c00, "half infinity");
	static_assert(as_type<ushort>(numeric_limits<bfloat>::max()) == 0x7f7f, "bfloat max");
	static_assert(as_type<ushort>(numeric_limits<bfloat>::epsilon()) == 0x3c00, "bfloat epsilon 2^-7");
	static_assert(numeric_limits<half>::digits == 11 && numeric_limits<bfloat>::digits == 8, "digits");
	static_assert(numeric_limits<float>::max() == FLT_MAX && numeric_limits<int>::min() == INT_MIN, "std's");
	constexpr auto inf2 = numeric_limits<half2>::infinity().x; /* c10's logaddexp(half2) */
	static_assert(as_type<ushort>(inf2) == 0x7c00, "numeric_limits of a vector");
	checks++;
	CHECK(float(HALF_MAX) == 65504.0f && float(HALF_MIN) == 0x1p-14f && float(HALF_EPSILON) == 0x1p-10f,
	      "HALF_MAX, HALF_MIN, HALF_EPSILON");
}

static void math() {
	/* overload choices: precise/fast are float only; metal:: has half;
	 * bfloat becomes float; functions Metal lacks are absent */
	SAME(decltype(precise::sin(half())), float);
	SAME(decltype(fast::exp(half())), float);
	SAME(decltype(metal::sin(half())), half);
	SAME(decltype(metal::sin(bfloat())), float);
	SAME(decltype(metal::abs(bfloat())), float);
	SAME(decltype(metal::abs(short())), short);
	SAME(decltype(precise::abs(long())), float); /* Metal's precise:: has no integer abs */
	SAME(decltype(metal::pow(2, half())), half);
	SAME(decltype(metal::pow(half(), 2.0f)), float);
	SAME(decltype(precise::pow(2, half())), float);
	SAME(decltype(metal::max(half(), 1.0f)), float);
	SAME(decltype(metal::fma(half(), half(), half())), half);
	SAME(decltype(metal::sqrt(2)), float);

	/* min / max / fmin / fmax: a NaN operand gives the other one */
	EQ(metal::max(NAN, 1.0f), 1.0f, "max(NaN, 1)");
	EQ(metal::min(2.0f, NAN), 2.0f, "min(2, NaN)");
	EQ(metal::fmax(NAN, -1.0f), -1.0f, "fmax(NaN, -1)");
	EQ(precise::fmin(NAN, 3.0f), 3.0f, "precise::fmin(NaN, 3)");
	EQ(float(metal::max(half(NAN), half(1.5f))), 1.5f, "max(half NaN, 1.5)");
	EQ(metal::max(bfloat(NAN), bfloat(0.5f)), 0.5f, "max(bfloat NaN, 0.5) is a float");
	checks += 4;
	CHECK(isnan(metal::max(float(NAN), float(NAN))), "max(NaN, NaN) is NaN");
	CHECK(signbit(metal::min(0.0f, -0.0f)) && !signbit(metal::max(-0.0f, 0.0f)), "min -0, max +0");
	CHECK(metal::max(3, -7) == 3 && metal::min(uchar(200), uchar(7)) == 7 && metal::max(long(-1), long(-2)) == -1,
	      "integer max/min");
	CHECK(clamp(5, 0, 3) == 3 && clamp(-1.5f, 0.0f, 1.0f) == 0.0f && float(clamp(half(2.0f), half(0.0f), half(1.0f))) == 1.0f,
	      "clamp");

	/* exact special values */
	EQ(metal::sqrt(4.0f), 2.0f, "sqrt");
	EQ(metal::exp(0.0f), 1.0f, "exp(0)");
	EQ(metal::log(1.0f), 0.0f, "log(1)");
	EQ(metal::exp2(10.0f), 1024.0f, "exp2(10)");
	EQ(metal::exp10(2.0f), 100.0f, "exp10(2)");
	EQ(metal::pow(2.0f, 0.5f), 0x1.6a09e6p0f, "pow(2, 0.5) correctly rounded");
	EQ(precise::sin(1.0f), 0x1.aed548p-1f, "sin(1) correctly rounded");
	EQ(metal::sinpi(1.0f), 0.0f, "sinpi(1) is exactly 0");
	EQ(metal::cospi(0.5f), 0.0f, "cospi(0.5) is exactly 0");
	EQ(metal::sinpi(0.5f), 1.0f, "sinpi(0.5)");
	EQ(metal::rint(2.5f), 2.0f, "rint ties to even");
	EQ(metal::rint(-3.5f), -4.0f, "rint ties to even (negative)");
	EQ(metal::round(2.5f), 3.0f, "round ties away");
	EQ(metal::trunc(-2.7f), -2.0f, "trunc");
	EQ(metal::fract(-0.25f), 0.75f, "fract");
	EQ(metal::fract(-0x1p-30f), 0x1.fffffep-1f, "fract stays below 1");
	EQ(metal::fmod(-7.0f, 3.0f), -1.0f, "fmod");
	EQ(metal::sign(-0.5f), -1.0f, "sign");
	EQ(metal::copysign(2.0f, -0.0f), -2.0f, "copysign");
	EQ(metal::ldexp(3.0f, 4), 48.0f, "ldexp");
	EQ(metal::nextafter(1.0f, 2.0f), 0x1.000002p0f, "nextafter float");
	EQ(as_type<ushort>(metal::nextafter(half(1.0f), half(2.0f))), 0x3c01, "nextafter half up");
	EQ(as_type<ushort>(metal::nextafter(half(0.0f), half(-1.0f))), 0x8001, "nextafter half from 0");
	EQ(as_type<ushort>(metal::copysign(half(3.0f), half(-1.0f))), 0xc200, "copysign half");
	EQ(as_type<ushort>(metal::fabs(half(-0.0f))), 0x0000, "fabs half");
	EQ(as_type<ushort>(metal::sqrt(half(2.0f))), 0x3da8, "sqrt(half 2) rounded once");
	EQ(as_type<ushort>(metal::fma(half(1.0f), half(1.0f), half(0x1p-11f))), 0x3c00,
	   "fma(half): 1 + half an ulp is a tie, to even");
	EQ(as_type<ushort>(metal::fma(half(1.0f), half(1.0f), half(0x1.004p-11f))), 0x3c01,
	   "fma(half): just above the tie rounds up");
	{
		float c = 0;
		const float sn = metal::sincos(0.0f, c);
		checks++;
		CHECK(sn == 0.0f && c == 1.0f, "sincos");
	}

	/* relational */
	checks += 5;
	CHECK(isnan(float(NAN)) && !isnan(1.0f) && isinf(-INFINITY) && isfinite(FLT_MAX) && !isfinite(float(NAN)),
	      "float relational");
	CHECK(isnan(half(NAN)) && isinf(half(1e5f)) && isfinite(half(65504.0f)) && isnormal(half(1.0f)) &&
	          !isnormal(as_type<half>(ushort(1))),
	      "half relational");
	CHECK(signbit(-0.0f) && signbit(half(-0.0f)) && !signbit(0.0f), "signbit");
	CHECK(isunordered(1.0f, NAN) && !isunordered(half(1.0f), half(2.0f)) && isordered(1.0f, 2.0f) &&
	          isunordered(bfloat(NAN), bfloat(1.0f)),
	      "isunordered / isordered, bfloat through float");
	CHECK(isunordered(half(NAN), 1.0f), "mixed isunordered");
	/* NAN (a class-type constant) in arithmetic, comparisons and tests */
	SAME(decltype(half() * NAN), float);
	checks += 2;
	CHECK(isnan(half(2.0f) * NAN) && !(half(2.0f) == NAN) && isnan(NAN) && !isinf(NAN),
	      "half op NAN is a float NaN; isnan(NAN)");
	CHECK(metal::max(3.0f, NAN) == 3.0f && isnan(float(NAN) + 1.0f), "float with NAN");

	/* integer functions */
	EQ(metal::abs(INT_MIN), INT_MIN, "abs(INT_MIN) wraps, as on the GPU");
	EQ(metal::abs(char(-5)), char(5), "abs(char)");
	EQ(clz(uint(1)), uint(31), "clz");
	EQ(clz(0), 32, "clz(0) is the width");
	EQ(clz(uchar(1)), uchar(7), "clz(uchar)");
	EQ(ctz(8), 3, "ctz");
	EQ(popcount(ulong(0xff00ff)), ulong(16), "popcount");
	EQ(rotate(uint(0x80000001u), uint(1)), uint(3), "rotate");
	EQ(mulhi(uint(0x80000000u), uint(4)), uint(2), "mulhi");
	EQ(absdiff(-3, 5), 8, "absdiff");
	EQ(addsat(uchar(250), uchar(10)), uchar(255), "addsat");
	EQ(subsat(short(-32760), short(100)), short(-32768), "subsat");
	EQ(hadd(7, 8), 7, "hadd");
	EQ(rhadd(7, 8), 8, "rhadd");
	EQ(reverse_bits(uchar(1)), uchar(0x80), "reverse_bits");

	/* as_type round trips */
	EQ(as_type<uint>(as_type<float>(0x3f800000u)), 0x3f800000u, "as_type float");
	EQ(as_type<float>(0x3f800000u), 1.0f, "as_type<float>(0x3f800000)");
	EQ(as_type<uint>(half2(1.0f, 2.0f)), 0x40003c00u, "as_type<uint>(half2)");
	EQ(as_type<ushort>(as_type<bfloat>(ushort(0x7fc1))), 0x7fc1, "bfloat NaN bits survive");
	const float2 f2 = as_type<float2>(as_type<ulong>(float2(1.0f, -1.0f)));
	EQ(f2.y, -1.0f, "as_type float2 <-> ulong");
	static_assert(as_type<ushort>(half(1.0f)) == 0x3c00, "as_type is constexpr");
}

int main() {
	vectors();
	traits();
	math();
	return mh_result("test_misc", checks);
}
