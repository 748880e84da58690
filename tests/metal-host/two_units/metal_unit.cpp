/* The Metal unit of the contract's two-unit harness (README.md, item 3):
 * compiled with FLAGS, it includes Metal sources and metal_host_guard.h and
 * nothing else from the system; it exports plain extern "C" functions. */
#include "kernels/Fixture.metal"
#include <metal_host_guard.h>

/* out[i] = a[i] / b[i] (int), trapped[i] = the signal, 0 if none */
extern "C" void mh_div_trunc_int(const int *a, const int *b, int *out, int *trapped, long n) {
	for (long i = 0; i < n; i++)
		trapped[i] = metal_host::guard(
		    [&] { c10::metal::binary_dense<int, div_trunc_functor>(out, a, b, uint(i)); });
}

/* sigmoid on half bit patterns */
extern "C" void mh_sigmoid_half(const unsigned short *in, unsigned short *out, long n) {
	for (long i = 0; i < n; i++)
		c10::metal::unary_dense<half, sigmoid_functor>(reinterpret_cast<half *>(out),
		                                               reinterpret_cast<const half *>(in), uint(i));
}
