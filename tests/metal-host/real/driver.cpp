/* driver.cpp — runs a few functions of PyTorch 2.14.1's real c10/metal
 * headers on the host (t-headers-real.sh includes every header of the
 * tree first, rewritten as mps-try rewrites them, then this file).  Each
 * line it prints is compared with `expected`: the values are computed by
 * hand or known answers, so that a wrong layer (volatile reads from
 * `constant` memory, swizzle writes, atomics, SIMD functions at one lane,
 * barriers) shows here.
 */
extern "C" int printf(const char *, ...);

/* a functor of our own for the dense kernel template */
struct twice_functor {
	template <typename T>
	T operator()(const T x) {
		return x + x;
	}
};

int main() {
	/* indexing.h: unary_dense over 6 halves (ILP 4: one full block and a
	 * tail), the input in `constant` memory, numel a `constant uint&` */
	const half in[6] = {half(1.0f), half(-2.5f), half(0.1f), half(65504.0f), half(3.0f), half(-0.0f)};
	half out[6] = {};
	const uint numel = 6;
	for (uint i = 0; i < 2; i++)
		c10::metal::unary_dense<half, twice_functor>(out, in, numel, i);
	printf("unary_dense<half, twice>:");
	for (int i = 0; i < 6; i++)
		printf(" %04x", (unsigned)as_type<ushort>(out[i]));
	printf("\n");

	/* random.h: Philox-4x32 of counter 0 and key 0 (ctr.zw written
	 * through a swizzle).  The header runs rounds - 1 = 9 rounds; the
	 * expected words were computed apart (a Python model of the rounds,
	 * which gives Random123's known answer 6627e8d5 ... for 10 rounds) */
	const uint4 r = c10::metal::philox4::rand(0, 0);
	printf("philox4::rand(0, 0): %08x %08x %08x %08x\n", r.x, r.y, r.z, r.w);

	/* atomic.h: adds on float and on half (emulated on atomic<uint>) */
	float fbuf[2] = {1.5f, 2.0f};
	c10::metal::AtomicType<float>::atomic_add(
	    reinterpret_cast<device ::metal::atomic<float> *>(fbuf), 1, 0.25f);
	alignas(4) half hbuf[4] = {half(1.0f), half(2.0f), half(3.0f), half(4.0f)};
	c10::metal::AtomicType<half>::atomic_add(
	    reinterpret_cast<device ::metal::atomic<uint> *>(hbuf), 3, half(0.5f));
	c10::metal::AtomicType<half>::atomic_add(
	    reinterpret_cast<device ::metal::atomic<uint> *>(hbuf), 0, half(-1.0f));
	printf("atomic_add: float %g %g, half %g %g %g %g\n", double(fbuf[0]), double(fbuf[1]),
	       double(float(hbuf[0])), double(float(hbuf[1])), double(float(hbuf[2])), double(float(hbuf[3])));

	/* reduction_utils.h at one lane: sums and products are the value,
	 * argmax is lane 0, threadgroup_sum of one thread */
	const auto am = c10::metal::simd_argmax(7.5f);
	float tg[1] = {0.0f};
	const float ts = c10::metal::threadgroup_sum<float>(tg, 4.25f, 0, 1);
	printf("one lane: simd_sum %g, simd_prod %g, simd_max(long) %ld, argmax (%g, %u), threadgroup_sum %g\n",
	       double(c10::metal::simd_sum(3.5f)), double(c10::metal::simd_prod(-2.0f)),
	       c10::metal::simd_max(long(1) << 40), double(am.first), unsigned(am.second), double(ts));

	/* igamma.h (half computes in float and divides a float by a half):
	 * P(2, 1) = 1 - 2/e = 0.2642411..., Q(2, 1) = 2/e = 0.7357588... */
	printf("igamma(2, 1): float %.5f, half %.3f; igammac(2, 1): float %.5f, half %.3f\n",
	       double(c10::metal::igamma(2.0f, 1.0f)), double(float(c10::metal::igamma(half(2.0f), half(1.0f)))),
	       double(c10::metal::igammac(2.0f, 1.0f)), double(float(c10::metal::igammac(half(2.0f), half(1.0f)))));

	/* special_math.h: every function instantiated for float and half at
	 * x = 0.5 (a = 0.5, b = 2 for the two-argument ones, n = 3 for the
	 * polynomials); 4 significant digits, checked against torch's float64 */
	printf("special_math at 0.5 (float | half):\n");
#define SM1(F)                                                                  \
	printf("  %s %.4g | %.3g\n", #F, double(float(c10::metal::F(0.5f))),   \
	       double(float(c10::metal::F(half(0.5f)))))
#define SMN(F)                                                                  \
	printf("  %s %.4g | %.3g\n", #F, double(float(c10::metal::F(0.5f, 3))), \
	       double(float(c10::metal::F(half(0.5f), 3))))
#define SM2(F)                                                                  \
	printf("  %s %.4g | %.3g\n", #F, double(float(c10::metal::F(0.5f, 2.0f))), \
	       double(float(c10::metal::F(half(0.5f), half(2.0f)))))
	SM1(erf); SM1(erfc); SM1(erfinv); SM1(erfcx); SM1(i0); SM1(i0e); SM1(i1); SM1(i1e);
	SM1(gamma); SM1(log_gamma); SM1(digamma); SM1(trigamma); SM1(spherical_bessel_j0); SM1(entr);
	SM1(bessel_j0_forward); SM1(bessel_y0_forward); SM1(bessel_j1_forward); SM1(bessel_y1_forward);
	SM1(modified_bessel_i0_forward); SM1(modified_bessel_i1_forward);
	SM1(modified_bessel_k0_forward); SM1(modified_bessel_k1_forward);
	SM1(scaled_modified_bessel_k0_forward); SM1(scaled_modified_bessel_k1_forward);
	SMN(chebyshev_polynomial_t_forward); SMN(chebyshev_polynomial_u_forward);
	SMN(chebyshev_polynomial_v_forward); SMN(chebyshev_polynomial_w_forward);
	SMN(shifted_chebyshev_polynomial_t_forward); SMN(shifted_chebyshev_polynomial_u_forward);
	SMN(shifted_chebyshev_polynomial_v_forward); SMN(shifted_chebyshev_polynomial_w_forward);
	SMN(hermite_polynomial_h_forward); SMN(hermite_polynomial_he_forward);
	SM2(logaddexp2); SM2(xlogy); SM2(xlog1py);
	printf("  zeta(2, 0.5) %.4g, polygamma(1, 0.5) %.4g\n", double(c10::metal::zeta(2.0f, 0.5f)),
	       double(c10::metal::polygamma(1, 0.5f)));
#undef SM1
#undef SMN
#undef SM2

	/* error.h: one message through the atomic counter */
	static c10::metal::ErrorMessages msgs;
	TORCH_REPORT_ERROR(&msgs, "index ", 42, " out of range");
	printf("report_error: count %u, line %u, message '%s'\n",
	       ::metal::atomic_load_explicit(&msgs.count, ::metal::memory_order_relaxed), msgs.msg[0].line,
	       msgs.msg[0].message);
	return 0;
}
