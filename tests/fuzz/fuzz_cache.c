/* fuzz_cache.c — libFuzzer target: arbitrary bytes as the payload of a
 * stored model (tools/lib/cache.h), for both kinds.
 *
 * A stored file is only as trustworthy as the disk it sits on, so the
 * readers of stored models (nfyaml's and hostscan's restore) must refuse
 * anything that is not a model of the same files: never crash, leak,
 * read out of bounds or exit, and in the end give what a parse gives.
 * Initialisation writes a small tree (a yaml and one host, one kernel
 * file) into a private folder, loads it once with the store off (the
 * reference) and once with it on (which stores both models).  Each input
 * then replaces the payload of one stored file (first byte even: the
 * yaml index, odd: the host model) with the input, with a correct
 * checksum so that the reader gets to parse it, and loads again.  The
 * load must succeed (a payload that does not fit is a miss, and the
 * files are parsed), and what it gives must hang together: every index
 * in bounds, every name found.  (A payload with a correct checksum that
 * describes other but consistent content cannot be told from the real
 * one; the checksum exists against damage, not forgery.)  Build and run:
 * tests/fuzz/run.sh.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "diag.h"
#include "edit.h"
#include "hostscan.h"
#include "nfyaml.h"
#include "scan.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[] = "/tmp/mk-fuzz-cache.XXXXXX";
static char *yaml, *store, *stored[2]; /* [0] nfyaml, [1] hostscan */

static void put(const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", root, rel), *d = xstrdup(p);
	FILE *f;
	*strrchr(d, '/') = '\0';
	if (edit_mkdirs(d) != 0 || !(f = fopen(p, "wb")))
		abort();
	fputs(text, f);
	fclose(f);
	free(p);
	free(d);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char errbuf[1 << 16];
	struct nf_index ix;
	struct hs_model hm;
	DIR *dp;
	struct dirent *e;
	(void)argc;
	(void)argv;
	diag_init("fuzz_cache");
	setvbuf(stderr, errbuf, _IOFBF, sizeof errbuf);
	if (!mkdtemp(root))
		abort();
	put("aten/src/ATen/native/native_functions.yaml",
	    "- func: frob.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n"
	    "  structured: True\n  dispatch:\n    CPU, MPS: frob_out\n"
	    "- func: frob(Tensor self) -> Tensor\n  structured_delegate: frob.out\n"
	    "- func: frob_(Tensor(a!) self) -> Tensor(a!)\n  autogen: frob.x_out\n"
	    "  dispatch:\n    MPS: frob_mps_\n");
	put("aten/src/ATen/native/mps/operations/Frob.mm",
	    "#include <ATen/ops/frob_native.h>\n"
	    "#define WRAP(x) static void x##_k(TensorIteratorBase& it) "
	    "{ lib.exec_unary_kernel(it, #x); }\n"
	    "WRAP(frob)\nREGISTER_DISPATCH(frob_stub, &frob_k);\n"
	    "Tensor& frob_mps_(Tensor& s) { MPSGraph* g = nil; return s; }\n");
	put("aten/src/ATen/native/mps/kernels/Frob.metal",
	    "struct frob_functor { template <typename T> T operator()(T x) "
	    "{ return x; } };\nREGISTER_UNARY_OP(frob, float, float);\n");
	yaml = xasprintf("%s/aten/src/ATen/native/native_functions.yaml", root);
	store = xasprintf("%s/store", root);
	setenv("MK_CACHE_DIR", store, 1);
	unsetenv("MK_CACHE");
	if (nf_load(&ix, yaml, NULL) != 0 || hs_load(&hm, root) != 0)
		abort();
	nf_free(&ix);
	hs_free(&hm);
	if (!(dp = opendir(store)))
		abort();
	while ((e = readdir(dp)))
		if (e->d_name[0] != '.')
			stored[strncmp(e->d_name, "hostscan", 8) == 0] =
			    xasprintf("%s/%s", store, e->d_name);
	closedir(dp);
	if (!stored[0] || !stored[1])
		abort();
	return 0;
}

static void le(unsigned char *p, uint64_t v, int n)
{
	int i;
	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* rewrite the stored file of kind k with payload [data, data+size) */
static void plant(int k, const uint8_t *data, size_t size)
{
	static char *orig[2];
	static size_t olen[2];
	size_t hdr, ml, at;
	unsigned char *b;
	FILE *f;
	if (!orig[k] && read_file(stored[k], &orig[k], &olen[k]) != 0)
		abort();
	hdr = strlen("metal-kernel cache\n") + 4;
	ml = 0;
	for (int i = 7; i >= 0; i--)
		ml = (ml << 8) | (unsigned char)orig[k][hdr + i];
	at = hdr + 8 + ml;
	b = malloc(at + 8 + size + 4);
	memcpy(b, orig[k], at);
	le(b + at, size, 8);
	memcpy(b + at + 8, data, size);
	le(b + at + 8 + size, edit_crc32((char *)b, at + 8 + size), 4);
	if (!(f = fopen(stored[k], "wb")))
		abort();
	fwrite(b, 1, at + 8 + size + 4, f);
	fclose(f);
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t i;
	if (size < 1)
		return 0;
	plant(data[0] & 1, data + 1, size - 1);
	if (!(data[0] & 1)) {
		struct nf_index ix;
		if (nf_load(&ix, yaml, NULL) != 0 || ix.nentries > ix.nfuncs)
			abort();
		for (i = 0; i < ix.nfuncs; i++) {
			const struct nf_func *f = &ix.funcs[i];
			size_t j;
			if (!f->name || !f->base || !f->overload ||
			    nf_find(&ix, f->name) != f || f->entry_start > ix.len ||
			    f->entry_end > ix.len ||
			    (f->delegate >= 0 && (size_t)f->delegate >= ix.nfuncs))
				abort();
			/* what mps-overloads relies on when it prints */
			if ((i >= ix.nentries) != (f->autogen != 0) ||
			    (f->autogen && (f->declared_by < 0 ||
			                    (size_t)f->declared_by >= ix.nentries)) ||
			    ((f->route == ROUTE_SHARED ||
			      f->route == ROUTE_MPS_SPECIFIC) && !f->mps_kernel))
				abort();
			for (j = 0; j < f->ndispatch; j++)
				if (!f->dispatch[j].kernel ||
				    f->dispatch[j].value_end > ix.len)
					abort();
			(void)nf_kind_name(f->kind);
			(void)nf_route_name(f->route);
			(void)nf_mps_dispatch(f);
		}
		nf_free(&ix);
	} else {
		struct hs_model hm;
		unsigned long line, col;
		if (hs_load(&hm, root) != 0)
			abort();
		for (i = 0; i < hm.ndefs; i++) {
			if (!hm.defs[i].name || hm.defs[i].at.file >= hm.nfiles)
				abort();
			hs_line_col(&hm, hm.defs[i].at, &line, &col);
			(void)hs_defs_named(&hm, hm.defs[i].name);
		}
		for (i = 0; i < hm.nregs; i++)
			if (hm.regs[i].def >= (long)hm.ndefs)
				abort();
		for (i = 0; i < hm.nxfails; i++)
			hs_line_col(&hm, hm.xfails[i].at, &line, &col);
		for (i = 0; i < hm.nfunctors; i++)
			hs_line_col(&hm, hm.functors[i].marker, &line, &col);
		(void)hs_kernel_requested(&hm, "frob");
		(void)hs_kernel_registered(&hm, "frob");
		(void)hs_file_has_ident(&hm, 0, "frob");
		hs_free(&hm);
	}
	return 0;
}
