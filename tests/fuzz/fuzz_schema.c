/* fuzz_schema.c — libFuzzer target: an arbitrary string as the schema of
 * an entry (the value of `func:`).
 *
 * 1. nf_parse_schema() on the bytes up to the first NUL: returns 0 with a
 *    valid operator name and a schema kind, or -1 with a message.
 * 2. When the string is printable ASCII, it is also wrapped into a
 *    one-entry native_functions.yaml (as a double-quoted YAML scalar) and
 *    indexed with nf_load_buffer(): the index must agree with
 *    nf_parse_schema (accepted iff it parses; same name and kind).
 * Build and run: tests/fuzz/run.sh (make fuzz).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "read/nfyaml.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char errbuf[1 << 16];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	diag_init("fuzz_schema");
	setvbuf(stderr, errbuf, _IOFBF, sizeof errbuf);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = xstrndup((const char *)data, size), *name = NULL;
	const char *why = NULL;
	enum nf_kind kind = NF_FUNCTIONAL;
	int ok, printable = 1;
	size_t i, n = strlen(s);

	ok = nf_parse_schema(s, &name, &kind, &why) == 0;
	if (ok) {
		char *b, *o;
		int inp;
		if (!name || why || nf_parse_opname(name, &b, &o, &inp) != 0)
			abort();
		free(b);
		free(o);
		(void)nf_kind_name(kind);
	} else if (name || !why || !*why)
		abort();

	for (i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			printable = 0;
	if (printable) {
		struct buf y;
		struct nf_index ix;
		int loaded;
		buf_init(&y);
		buf_puts(&y, "- func: \"");
		for (i = 0; i < n; i++) {
			if (s[i] == '"' || s[i] == '\\')
				buf_add(&y, "\\", 1);
			buf_add(&y, &s[i], 1);
		}
		buf_puts(&y, "\"\n");
		loaded = nf_load_buffer(&ix, "fuzz.yaml", y.data, y.len) == 0;
		if (loaded != ok)
			abort();
		if (loaded) {
			if (ix.nentries != 1 || strcmp(ix.funcs[0].name, name) != 0 ||
			    ix.funcs[0].kind != kind)
				abort();
			nf_free(&ix);
		}
		buf_free(&y);
	}
	free(name);
	free(s);
	return 0;
}
