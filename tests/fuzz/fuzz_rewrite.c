/* fuzz_rewrite.c — libFuzzer target: arbitrary bytes as a Metal source
 * through try_rewrite(), the host layer's REWRITES.md rewrites.
 *
 * Checks try.h's contract: the result is NUL-terminated with the returned
 * length; every line break is kept; the result grows at most by a bounded
 * factor (rule 5 copies each operand of ?: once more, three levels deep
 * at most).  When the input has no `?` and no `.` or `>` (so neither
 * rule 4 nor rule 5 can insert text), read against the input from the
 * start, each byte of the result is the input's byte, a space standing
 * for one of its bytes (rules 1 and 3; never for a line break), or an 'f'
 * the rewrite inserted (rule 2), and every input byte is accounted for.
 * Build and run: tests/fuzz/run.sh (make fuzz).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "check/try.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	diag_init("fuzz_rewrite");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	size_t n, i = 0, j = 0, a = 0, b = 0;
	char *out = try_rewrite(in, size, &n);

	if (out[n] != '\0' || n < size)
		abort();
	for (i = 0; i < size; i++)
		a += in[i] == '\n';
	for (j = 0; j < n; j++)
		b += out[j] == '\n';
	if (a != b)
		abort(); /* line breaks kept */
	if (n > 256 * size + 1024)
		abort(); /* bounded growth */
	if (memchr(in, '?', size) || memchr(in, '.', size) || memchr(in, '>', size)) {
		free(out);
		return 0;
	}
	for (i = 0, j = 0; j < n; j++) {
		if (i < size && out[j] == in[i])
			i++;
		else if (i < size && out[j] == ' ' && in[i] != '\n')
			i++;
		else if (out[j] == 'f')
			; /* inserted */
		else
			abort();
	}
	if (i != size)
		abort(); /* every input byte is in the result */
	free(out);
	return 0;
}
