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
 * tree at a line it has.  Then what mps-migrate would do with the same
 * files: retire.h's deletions for sqrt (each inside its file, applied
 * without error) and regplan.h's plan of a kernel on the fuzzed .metal and
 * .mm texts (planned or refused, never more than the texts).  Build and
 * run: tests/fuzz/run.sh (make fuzz).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cli.h"
#include "base/diag.h"
#include "edit/edit.h"
#include "read/hostscan.h"
#include "read/metalreg.h"
#include "read/nfyaml.h"
#include "plan/regplan.h"
#include "check/report.h"
#include "plan/retire.h"
#include "check/verify.h"

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

/* retire.h and regplan.h on the model and the fuzzed texts */
static void migrate_parts(struct hs_model *hm)
{
	static const char *const dead[] = {"sqrt_out_mps", "sqrt_mps"};
	static const char *const names[] = {"sqrt_out", "sqrt_out_mps"};
	struct rt_request rq = {"sqrt", dead, 2, names, 2, NULL, NULL, NULL, NULL, NULL};
	struct rt_plan p;
	struct mr_pair pairs[MR_MAX_PAIRS];
	struct rg_request rr;
	struct rg_plan rg;
	size_t i, k, h = (size_t)-1, len;
	rt_plan_op(&p, hm, &rq);
	for (i = 0; i < p.n; i++)
		if (p.items[i].file >= hm->nfiles || p.items[i].start > p.items[i].end ||
		    p.items[i].end > hm->files[p.items[i].file].len)
			abort(); /* a deletion outside its file */
	for (i = 0; i < hm->nfiles; i++) {
		char *t = rt_apply(&p, hm, i, &len);
		if (t && len > hm->files[i].len)
			abort(); /* deletions only */
		free(t);
	}
	rt_plan_free(&p);
	for (k = 0; k < hm->nfiles; k++)
		if (strcmp(hm->files[k].rel, MPS_KERNELS_REL "/Fuzz.metal") == 0)
			break;
	for (i = 0; i < hm->nfiles; i++)
		if (strcmp(hm->files[i].rel, MPS_OPS_REL "/Fuzz.mm") == 0)
			h = i;
	if (k < hm->nfiles && h < hm->nfiles) {
		struct rg_file kf = {hm->files[k].rel, hm->files[k].text, hm->files[k].len};
		struct rg_file hf = {hm->files[h].rel, hm->files[h].text, hm->files[h].len};
		int n = mr_preset("all", MR_UNARY, pairs);
		memset(&rr, 0, sizeof rr);
		rr.kind = MR_UNARY;
		rr.name = "sqrt";
		rr.pairs = pairs;
		rr.npairs = (size_t)n;
		rr.functor = 1;
		rr.host = 1;
		rr.check = 7;
		if (rg_plan(&rg, root, &rr, &kf, &hf) == 0) {
			char *t = rg_build(&rg, RG_KERNEL, &kf, &len);
			if (t && len < kf.len)
				abort(); /* insertions only */
			free(t);
			t = rg_build(&rg, RG_HOST, &hf, &len);
			if (t && len < hf.len)
				abort();
			free(t);
		}
		rg_plan_free(&rg);
	}
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
	migrate_parts(&hm);
	hs_free(&hm);
	fflush(stderr);
	return 0;
}
