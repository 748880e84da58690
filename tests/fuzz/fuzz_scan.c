/* fuzz_scan.c — libFuzzer target: arbitrary bytes as a .mm / .metal / .h
 * file and as a Python file, through mask_code() and line_col().
 *
 * Checks mask_code's contract (scan.h): same length, NUL-terminated, line
 * ends kept, every other byte either kept or replaced by a space; and
 * line_col() against a plain count of newlines.
 * Build and run: tests/fuzz/run.sh (make fuzz).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/scan.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	diag_init("fuzz_scan");
	return 0;
}

static void check_mask(const char *src, size_t len, enum scan_lang lang)
{
	char *m = mask_code(src, len, lang);
	size_t i;

	if (m[len] != '\0')
		abort();
	for (i = 0; i < len; i++) {
		if (src[i] == '\n' || src[i] == '\r') {
			if (m[i] != src[i])
				abort(); /* line ends must survive */
		} else if (m[i] != src[i] && m[i] != ' ')
			abort();
	}
	free(m);
}

static void check_line_col(const char *src, size_t len, size_t off)
{
	unsigned long line, col, l = 1;
	size_t i, bol = 0;

	if (off > len)
		off = len;
	line_col(src, off, &line, &col);
	for (i = 0; i < off; i++)
		if (src[i] == '\n') {
			l++;
			bol = i + 1;
		}
	if (line != l || col != (unsigned long)(off - bol) + 1)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a private copy exactly size bytes long (no terminator) so that
	 * ASan sees any read past the end */
	char *src = malloc(size ? size : 1);
	size_t off = 0;

	if (size)
		memcpy(src, data, size);
	check_mask(src, size, LANG_C);
	check_mask(src, size, LANG_PYTHON);
	if (size >= 2)
		off = ((size_t)(unsigned char)src[0] << 8 |
		       (unsigned char)src[1]) % (size + 1);
	check_line_col(src, size, off);
	check_line_col(src, size, size);
	check_line_col(src, size, 0);
	free(src);
	return 0;
}
