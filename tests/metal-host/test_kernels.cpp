/* test_kernels.cpp — the kernel templates of an indexing.h-shaped fixture
 * (tests/metal-host/fixture, written for this project) called the way
 * mps-try's harness calls main's: buffers as pointers, the thread index as
 * the last argument; loads and stores through the real casts; the
 * registration macros' explicit instantiations and static_asserts compile;
 * integer division by zero is caught by metal_host::guard.
 */
#include "mh_test.h"

#include "kernels/Fixture.metal"
#include <metal_host_guard.h>

static long checks = 0;
#define EQ(a, b, ...)                                                          \
	do {                                                                   \
		checks++;                                                      \
		CHECK((a) == (b), __VA_ARGS__);                                \
	} while (0)

static ushort hb(half h) { return as_type<ushort>(h); }

int main() {
	using namespace c10::metal;

	/* unary, same dtype: neg on half keeps -0 and NaN-ness */
	const half hin[4] = {half(1.5f), half(0.0f), half(NAN), half(-65504.0f)};
	half hout[4];
	for (uint i = 0; i < 4; i++)
		unary_dense<half, neg_functor>(hout, hin, i);
	EQ(hb(hout[0]), 0xbe00, "neg(1.5h)");
	EQ(hb(hout[1]), 0x8000, "neg(0) is -0");
	checks++;
	CHECK(isnan(hout[2]), "neg(NaN) is NaN");
	EQ(hb(hout[3]), 0x7bff, "neg(-65504)");

	/* unary, dtype-changing result: sigmoid(int) is float, sigmoid(half) half */
	const int iin[3] = {0, 100, -100};
	float fout[3];
	for (uint i = 0; i < 3; i++)
		unary_dense<int, sigmoid_functor>(fout, iin, i);
	EQ(fout[0], 0.5f, "sigmoid(0)");
	EQ(fout[1], 1.0f, "sigmoid(100)");
	EQ(fout[2], 0.0f, "sigmoid(-100): exp(100) overflows float, 1 / inf");
	const half sin_[3] = {half(0.0f), half(-INFINITY), half(7.0f)};
	for (uint i = 0; i < 3; i++)
		unary_dense<half, sigmoid_functor>(hout, sin_, i);
	EQ(hb(hout[0]), 0x3800, "sigmoid(0h) is 0.5h");
	EQ(hb(hout[1]), 0x0000, "sigmoid(-inf) is 0");
	EQ(hb(hout[2]), 0x3bfe, "sigmoid(7h) = 0.99909 rounds to 0x3bfe");

	/* log(bool): the `x ? 0 : -INFINITY` form is float */
	const bool bin[2] = {true, false};
	for (uint i = 0; i < 2; i++)
		unary_dense<bool, log_functor>(fout, bin, i);
	EQ(fout[0], 0.0f, "log(true)");
	EQ(fout[1], -INFINITY, "log(false)");

	/* binary with opmath: half inputs computed in float, stored as half */
	const half a[3] = {half(1.0f), half(65504.0f), half(NAN)};
	const half b[3] = {half(0x1p-11f), half(16.0f), half(1.0f)};
	for (uint i = 0; i < 3; i++)
		binary_dense<half, add_functor>(hout, a, b, i);
	EQ(hb(hout[0]), 0x3c00, "1 + 2^-11 ties to 1 (even)");
	EQ(hb(hout[1]), 0x7c00, "65504 + 16 overflows to inf");
	checks++;
	CHECK(isnan(hout[2]), "NaN + 1");

	/* maximum propagates NaN (c10's max), fmax returns the other operand */
	const half m1[2] = {half(NAN), half(2.0f)}, m2[2] = {half(1.0f), half(NAN)};
	half mx[2], fx[2];
	for (uint i = 0; i < 2; i++) {
		binary_dense<half, maximum_functor>(mx, m1, m2, i);
		binary_dense<half, fmax_functor>(fx, m1, m2, i);
	}
	checks += 2;
	CHECK(isnan(mx[0]) && isnan(mx[1]), "maximum(NaN, x) and (x, NaN) are NaN");
	CHECK(float(fx[0]) == 1.0f && float(fx[1]) == 2.0f, "fmax returns the non-NaN operand");

	/* the dtype-changing load: an int buffer and a uchar buffer added as float */
	const int ia[3] = {1, -5, 16777217};
	const uchar ub[3] = {2, 250, 0};
	const uint4 st(uint(sizeof(int)), uint(sizeof(uchar)), uint(ScalarType::Int), uint(ScalarType::Byte));
	for (uint i = 0; i < 3; i++)
		binary_dense_cast<float, add_functor>(fout, ia, ub, st, i);
	EQ(fout[0], 3.0f, "1 + 2");
	EQ(fout[1], 245.0f, "-5 + 250");
	EQ(fout[2], 16777216.0f, "int 16777217 loads as float 16777216");

	/* integer division by zero traps and is reported; float does not trap */
	const int n[4] = {7, -7, 9, INT_MIN};
	const int d[4] = {2, 0, -2, -1};
	int q[4] = {0, 0, 0, 0};
	int sig[4];
	for (uint i = 0; i < 4; i++)
		sig[i] = metal_host::guard([&] { binary_dense<int, div_trunc_functor>(q, n, d, i); });
	EQ(sig[0], 0, "7 / 2 does not trap");
	EQ(q[0], 3, "7 / 2");
	EQ(sig[1], SIGILL, "-7 / 0 traps (SIGILL)");
	EQ(q[2], -4, "9 / -2 truncates");
	checks++;
	CHECK((sig[3] == SIGFPE) || (sig[3] == 0 && q[3] == INT_MIN),
	      "INT_MIN / -1: SIGFPE on x86-64, INT_MIN where the CPU wraps");
	const float fa[1] = {7.0f}, fb[1] = {0.0f};
	const int fs = metal_host::guard([&] { binary_dense<float, div_trunc_functor>(fout, fa, fb, 0); });
	EQ(fs, 0, "float division by zero does not trap");
	EQ(fout[0], INFINITY, "7.0 / 0.0 is inf");

	return mh_result("test_kernels", checks);
}
