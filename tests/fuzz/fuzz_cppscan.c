/* fuzz_cppscan.c — libFuzzer target: arbitrary bytes as the C++ of
 * aten/src/ATen/native, through the C++ model and its readers
 * (tools/lib/read/cppmodel.h, stubs.h, dtypes.h, outrule.h).
 *
 * The input is split at its first 0x01 byte into a shared file
 * (native/Fuzz.cpp) and a CPU kernel file (native/cpu/FuzzKernel.cpp),
 * written into a private tree made once per process, then loaded; NUL
 * bytes become blanks unless the input starts with 0xff (then a NUL must
 * make cs_load fail cleanly, the model released).  Every identifier of the
 * input (the first 24) is asked as a kernel, as a stub and as an operator.
 * Checked: cs_load returns 0 or -1 and nothing else; kinds and rules are in
 * range; every location names a file of the tree and a line it has; every
 * stub has a name and its `in`; dtype sets stay within CS_NDTYPES; no
 * crash, leak, out-of-bounds read, or exit.
 * Build and run: tests/fuzz/run.sh (make fuzz).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/outrule.h"
#include "read/stubs.h"
#include "base/diag.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[64];
static char errbuf[1 << 16];
static unsigned long lines[2]; /* lines of the two files */
static const char *const rels[2] = {"aten/src/ATen/native/Fuzz.cpp",
                                    "aten/src/ATen/native/cpu/FuzzKernel.cpp"};

static void mk(const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);
	mkdir(p, 0755);
	free(p);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	diag_init("fuzz_cppscan");
	setvbuf(stderr, errbuf, _IOFBF, sizeof errbuf);
	snprintf(root, sizeof root, "/tmp/fuzz_cppscan.XXXXXX");
	if (!mkdtemp(root))
		abort();
	mk("aten");
	mk("aten/src");
	mk("aten/src/ATen");
	mk("aten/src/ATen/native");
	mk("aten/src/ATen/native/cpu");
	return 0;
}

static void write_file(int k, const uint8_t *s, size_t n, int keep_nul)
{
	char *p = xasprintf("%s/%s", root, rels[k]);
	FILE *f = fopen(p, "wb");
	size_t i;
	if (!f)
		abort();
	lines[k] = 1;
	for (i = 0; i < n; i++) {
		int c = s[i] == 0 && !keep_nul ? ' ' : s[i];
		if (c == '\n')
			lines[k]++;
		fputc(c, f);
	}
	if (fclose(f) != 0)
		abort();
	free(p);
}

static void check_loc(struct cs_loc l)
{
	int k;
	if (!l.file)
		return;
	for (k = 0; k < 2; k++)
		if (strcmp(l.file, rels[k]) == 0)
			break;
	if (k == 2 || l.line < 1 || l.line > lines[k])
		abort();
}

static void ask(const struct cs_model *m, const char *name)
{
	struct cs_discovery d;
	struct cs_dtypes t;
	struct cs_outrule r;
	size_t i;
	int kind = cs_discover(m, name, &d);
	if (kind != d.kind || kind < CS_UNKNOWN || kind > CS_CPU_ONLY || !d.why)
		abort();
	check_loc(d.def);
	check_loc(d.cpu);
	for (i = 0; i < d.nstubs; i++) {
		if (!d.stubs[i].name || !d.stubs[i].in)
			abort();
		check_loc(d.stubs[i].at);
	}
	if ((kind == CS_STUB_BACKED) != (d.nstubs > 0))
		abort();
	cs_discovery_free(&d);
	if (cs_cpu_dtypes(m, name, &t) != (t.found ? 0 : 1) || !t.notes ||
	    (t.types >> CS_NDTYPES) != 0 || (t.branch & ~t.types) != 0 ||
	    (!t.found && !t.why))
		abort();
	check_loc(t.reg);
	check_loc(t.def);
	cs_dtypes_free(&t);
	if (cs_output_rule(m, name, NULL, &r) != r.rule || r.rule < 0 ||
	    r.rule > CS_RULE_MIXED || !r.why || (r.before_stub >> CS_NDTYPES) ||
	    (r.rejects >> CS_NDTYPES))
		abort();
	check_loc(r.at);
	check_loc(r.before_at);
	check_loc(r.reject_at);
	cs_outrule_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cs_model m;
	const uint8_t *cut = memchr(data, 1, size);
	size_t a = cut ? (size_t)(cut - data) : size, i, asked = 0;
	int keep_nul = size > 0 && data[0] == 0xff;
	int rc;

	write_file(0, data, a, keep_nul);
	write_file(1, cut ? cut + 1 : data, cut ? size - a - 1 : 0, keep_nul);
	rc = cs_load(&m, root);
	if (rc == -1) {
		if (m.priv || m.root)
			abort(); /* released */
		return 0;
	}
	if (rc != 0 || !m.have_sources)
		abort();
	for (i = 0; i < size && asked < 24;) {
		size_t e = i;
		while (e < size && (data[e] == '_' || (data[e] >= 'a' && data[e] <= 'z') ||
		                    (data[e] >= 'A' && data[e] <= 'Z') ||
		                    (e > i && data[e] >= '0' && data[e] <= '9')))
			e++;
		if (e > i && e - i < 64) {
			char *name = xstrndup((const char *)data + i, e - i);
			ask(&m, name);
			free(name);
			asked++;
		}
		i = e > i ? e : i + 1;
	}
	ask(&m, "not an identifier");
	cs_free(&m);
	return 0;
}
