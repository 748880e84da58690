/* fuzz_nfyaml.c — libFuzzer target: arbitrary bytes as native_functions.yaml.
 *
 * nf_load_buffer must either index the text or reject it with a
 * diagnostic; never crash, leak, read out of bounds or exit.  On success
 * a few invariants of the index are checked (every name found by
 * nf_find, dispatch offsets inside the text, delegates resolved).
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
	diag_init("fuzz_nfyaml");
	/* diagnostics are expected on bad input: buffer them */
	setvbuf(stderr, errbuf, _IOFBF, sizeof errbuf);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nf_index ix;
	size_t i, j;

	if (nf_load_buffer(&ix, "fuzz.yaml", (const char *)data, size) != 0) {
		/* rejected: the index must have been released */
		if (ix.funcs || ix.text || ix.path || ix.nfuncs)
			abort();
		return 0;
	}
	if (ix.len != size || ix.nentries > ix.nfuncs)
		abort();
	for (i = 0; i < ix.nfuncs; i++) {
		const struct nf_func *f = &ix.funcs[i];
		if (!f->name || !f->base || !f->overload)
			abort();
		if (nf_find(&ix, f->name) != f)
			abort();
		if (f->entry_start > ix.len || f->entry_end > ix.len)
			abort();
		if (f->structured_delegate &&
		    (f->delegate < 0 || (size_t)f->delegate >= ix.nfuncs))
			abort();
		for (j = 0; j < f->ndispatch; j++) {
			const struct nf_dispatch *d = &f->dispatch[j];
			if (d->key_start > ix.len || d->value_end > ix.len ||
			    d->key_start > d->value_end || d->nkeys == 0 ||
			    !d->kernel)
				abort();
		}
		(void)nf_kind_name(f->kind);
		(void)nf_route_name(f->route);
		(void)nf_mps_dispatch(f);
	}
	nf_free(&ix);
	return 0;
}
