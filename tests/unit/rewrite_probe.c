/* rewrite_probe.c — a debug driver of try_rewrite (tools/lib/check/
 * tryrewrite.c, the rewrites of tools/metal-host/REWRITES.md) for the shell
 * tests (built into build/unit/, never installed), so that a test compiles
 * Metal sources rewritten by the very code mps-try uses.
 *
 *   rewrite_probe IN OUT     OUT = try_rewrite(contents of IN)
 *
 * Exit status 0, or 2 (a message on stderr) when IN cannot be read or OUT
 * cannot be written, or on a usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/try.h"

int main(int argc, char **argv)
{
	FILE *f;
	char *buf = NULL, *out;
	size_t len = 0, cap = 0, n, olen;
	int bad;
	if (argc != 3) {
		fprintf(stderr, "usage: rewrite_probe IN OUT\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f) {
		fprintf(stderr, "rewrite_probe: cannot open '%s'\n", argv[1]);
		return 2;
	}
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			if (!buf) {
				fprintf(stderr, "rewrite_probe: out of memory\n");
				return 2;
			}
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	bad = ferror(f);
	fclose(f);
	if (bad) {
		fprintf(stderr, "rewrite_probe: cannot read '%s'\n", argv[1]);
		free(buf);
		return 2;
	}
	out = try_rewrite(buf, len, &olen);
	free(buf);
	f = fopen(argv[2], "wb");
	if (!f) {
		fprintf(stderr, "rewrite_probe: cannot create '%s'\n", argv[2]);
		free(out);
		return 2;
	}
	bad = fwrite(out, 1, olen, f) != olen;
	bad |= fclose(f) != 0;
	free(out);
	if (bad) {
		fprintf(stderr, "rewrite_probe: cannot write '%s'\n", argv[2]);
		return 2;
	}
	return 0;
}
