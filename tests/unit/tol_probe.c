/* tol_probe.c — a debug driver of try_test_tolerance (trytol.c, the
 * tolerances test_mps.py's TestConsistency gives an operator), for the
 * shell tests (built into build/unit/, never installed).
 *
 *   tol_probe FILE OP DTYPE [OP DTYPE ...]
 *
 * FILE is a test_mps.py; OP an operator's base name (or an OpInfo name);
 * DTYPE a Metal dtype token (float, half, bfloat, float2, ...).  One line
 * per pair: "OP DTYPE atol A rtol R line L" when a clause applies, else
 * "OP DTYPE default".  Exit status 0, or 2 on a usage or read error. */
#include <stdio.h>
#include <stdlib.h>

#include "base/scan.h"
#include "check/try.h"

int main(int argc, char **argv)
{
	char *data = NULL;
	size_t len;
	int i;
	if (argc < 4 || argc % 2) {
		fprintf(stderr, "usage: tol_probe FILE OP DTYPE [OP DTYPE ...]\n");
		return 2;
	}
	if (read_file(argv[1], &data, &len) != 0 || !data) {
		fprintf(stderr, "tol_probe: cannot read '%s'\n", argv[1]);
		return 2;
	}
	for (i = 2; i + 1 < argc; i += 2) {
		struct try_tol t;
		if (try_test_tolerance(data, argv[i], argv[i + 1], &t))
			printf("%s %s atol %g rtol %g line %lu\n", argv[i], argv[i + 1], t.atol, t.rtol,
			       t.line);
		else
			printf("%s %s default\n", argv[i], argv[i + 1]);
	}
	free(data);
	return 0;
}
