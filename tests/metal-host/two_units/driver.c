/* The driver unit of the contract's two-unit harness (README.md, item 3):
 * plain C, compiled without the FLAGS; it may use any system header. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

void mh_div_trunc_int(const int *a, const int *b, int *out, int *trapped, long n);
void mh_sigmoid_half(const unsigned short *in, unsigned short *out, long n);

int main(void) {
	const int a[4] = {7, -7, 100, 5};
	const int b[4] = {2, 0, -3, 0};
	int q[4] = {0, 0, 0, 0}, t[4];
	mh_div_trunc_int(a, b, q, t, 4);
	for (int i = 0; i < 4; i++) {
		if (t[i])
			printf("div_trunc %d %d: undefined on the GPU (%s)\n", a[i], b[i],
			       t[i] == SIGILL ? "SIGILL" : "other signal");
		else
			printf("div_trunc %d %d: %d\n", a[i], b[i], q[i]);
	}
	const unsigned short h[5] = {0x0000, 0x3c00, 0xbc00, 0x7c00, 0x4a00};
	unsigned short s[5];
	mh_sigmoid_half(h, s, 5);
	for (int i = 0; i < 5; i++)
		printf("sigmoid 0x%04x: 0x%04x\n", h[i], s[i]);
	return EXIT_SUCCESS;
}
