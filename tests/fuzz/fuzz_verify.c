/* fuzz_verify.c — libFuzzer target: arbitrary bytes as the MPS sources of
 * a tree, through hostscan (host and kernel readers, test lists), the
 * rules of mps-verify (verify.h) and every report format (report.h).
 *
 * Input layout: the bytes are cut at the first two 0xFF bytes into a host
 * file (operations/Fuzz.mm), a kernel file (kernels/Fuzz.metal) and a
 * test list (common_mps.py); a missing part is an empty file.  They go
 * into a private tree beside a fixed native_functions.yaml whose rows
 * name MPS kernels, shared kernels and stubs.  hs_load must succeed (the
 * parts hold no NUL byte: those are replaced), vf_run on --all and on one
 * operator must succeed, and every finding must point into a file of the
 * tree at a line it has.  Build and run: tests/fuzz/run.sh (make fuzz).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "diag.h"
#include "edit.h"
#include "hostscan.h"
#include "nfyaml.h"
#include "report.h"
#include "verify.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *root;
static FILE *devnull;
static struct nf_index ix;
static char errbuf[1 << 14];

static const char yaml[] =
    "- func: sqrt.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n"
    "  structured: True\n"
    "  structured_inherits: TensorIteratorBase\n"
    "  dispatch:\n"
    "    CPU, CUDA: sqrt_out\n"
    "    MPS: sqrt_out_mps\n"
    "- func: atan2.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)\n"
    "  structured: True\n"
    "  dispatch:\n"
    "    CPU, CUDA, MPS: atan2_out\n"
    "  tags: pointwise\n"
    "- func: cumsum(Tensor self, int dim) -> Tensor\n"
    "  dispatch:\n"
    "    CPU: cumsum_cpu\n"
    "    MPS: cumsum_mps\n";

static void put(const char *rel, const uint8_t *p, size_t n)
{
	char *path = xasprintf("%s/%s", root, rel), *copy = xmalloc(n + 1);
	size_t i;
	for (i = 0; i < n; i++)
		copy[i] = p[i] ? (char)p[i] : ' ';
	if (edit_write_file(path, copy, n, 0644, 0) != 0)
		abort();
	free(copy);
	free(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char tmpl[64];
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	char *d;
	(void)argc;
	(void)argv;
	diag_init("fuzz_verify");
	setvbuf(stderr, errbuf, _IOFBF, sizeof errbuf);
	snprintf(tmpl, sizeof tmpl, "%s/fuzz_verify.XXXXXX", base);
	if (!mkdtemp(tmpl))
		abort();
	root = xstrdup(tmpl);
	d = xasprintf("%s/" MPS_OPS_REL, root);
	if (edit_mkdirs(d) != 0)
		abort();
	free(d);
	d = xasprintf("%s/" MPS_KERNELS_REL, root);
	if (edit_mkdirs(d) != 0)
		abort();
	free(d);
	d = xasprintf("%s/torch/testing/_internal", root);
	if (edit_mkdirs(d) != 0)
		abort();
	free(d);
	put(NF_YAML_REL, (const uint8_t *)yaml, sizeof yaml - 1);
	if (nf_load_buffer(&ix, NF_YAML_REL, yaml, sizeof yaml - 1) != 0)
		abort();
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	return 0;
}

static void run(struct hs_model *hm, int all, const char *op)
{
	struct vf_input in;
	struct vf_report r;
	struct rp_filter flt;
	size_t i;
	int f;
	memset(&in, 0, sizeof in);
	in.ix = &ix;
	in.hm = hm;
	in.all = all;
	in.ops = &op;
	in.nops = all ? 0 : 1;
	if (vf_run(&in, &r) != 0)
		abort();
	for (i = 0; i < r.n; i++) {
		const struct vf_finding *x = &r.f[i];
		size_t k;
		for (k = 0; k < hm->nfiles && strcmp(hm->files[k].rel, x->path); k++)
			;
		if (strcmp(x->path, NF_YAML_REL) != 0 && k == hm->nfiles)
			abort(); /* a finding in no file that was read */
		if (x->line == 0 || x->rule < 0 || x->rule >= VF_NRULES)
			abort();
	}
	memset(&flt, 0, sizeof flt);
	for (f = RP_TEXT; f <= RP_MARKDOWN; f++)
		if (rp_write(devnull, devnull, "fuzz_verify", &r, &flt, f, &op,
		             all ? 0 : 1) > 1)
			abort();
	vf_report_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *a = data, *end = data + size, *b, *c;
	struct hs_model hm;
	b = memchr(a, 0xFF, size);
	b = b ? b : end;
	c = b < end ? memchr(b + 1, 0xFF, (size_t)(end - b - 1)) : NULL;
	c = c ? c : end;
	put(MPS_OPS_REL "/Fuzz.mm", a, (size_t)(b - a));
	put(MPS_KERNELS_REL "/Fuzz.metal", b < end ? b + 1 : end,
	    b < end ? (size_t)(c - b - 1) : 0);
	put(COMMON_MPS_REL, c < end ? c + 1 : end, c < end ? (size_t)(end - c - 1) : 0);
	if (hs_load(&hm, root) != 0)
		abort();
	run(&hm, 1, NULL);
	run(&hm, 0, "sqrt");
	hs_free(&hm);
	fflush(stderr);
	return 0;
}
