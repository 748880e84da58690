/* cppscan_probe.c — a debug driver of the C++ readers (tools/lib/read/
 * cppmodel, stubs, dtypes, outrule) for the shell tests (built into
 * build/unit/, never installed).
 *
 *   cppscan_probe ROOT stubs KERNEL...   stub discovery
 *   cppscan_probe ROOT dtypes STUB...    CPU dtypes of the stub's kernel
 *   cppscan_probe ROOT rule OP [KERNEL]  output rule (+ before-stub dtypes)
 *   cppscan_probe ROOT rules OP[=KERNEL]...  the same for many operators
 *   cppscan_probe ROOT iter KERNEL[=STUB]...  the TensorIterator a shared
 *                                        kernel builds (+ the stub's args)
 *   cppscan_probe ROOT sig STUB...       the stub's function type
 *   cppscan_probe ROOT opmath STUB...    half/bfloat computed in float
 *   cppscan_probe ROOT stats [N]         counts; load time in ms (best of N)
 *   cppscan_probe table NAME...          what a dispatch macro covers
 *
 * Each answer starts with one summary line "NAME: RESULT" (stable, for
 * grep), followed by detail lines indented by two blanks.  Summary lines:
 *   KERNEL: stubs: a_stub, b_stub     (sorted)   | KERNEL: device-generic
 *     (a stub reached only on other devices: a line "  X only on CUDA")
 *   KERNEL: cpu-only                             | KERNEL: unknown
 *   STUB: FN: Double, Float, ...     (enum order) | STUB: none
 *   OP: same|float|bool|mixed|unknown
 * Exit status 0, or 2 on a usage or load error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "read/outrule.h"
#include "read/stubs.h"
#include "base/diag.h"

static int cmp_name(const void *a, const void *b)
{
	return strcmp((*(const struct cs_stub *const *)a)->name,
	              (*(const struct cs_stub *const *)b)->name);
}

static void stubs(const struct cs_model *m, const char *k)
{
	struct cs_discovery d;
	const struct cs_stub **v;
	size_t i;
	cs_discover(m, k, &d);
	printf("%s: %s", k, cs_kind_name(d.kind));
	v = xcalloc(d.nstubs + 1, sizeof *v);
	for (i = 0; i < d.nstubs; i++)
		v[i] = &d.stubs[i];
	qsort(v, d.nstubs, sizeof *v, cmp_name);
	for (i = 0; i < d.nstubs; i++)
		printf("%s%s", i ? ", " : ": ", v[i]->name);
	printf("\n");
	free(v);
	for (i = 0; i < d.nstubs; i++) {
		const struct cs_stub *s = &d.stubs[i];
		printf("  %s %s at %s:%lu in %s (depth %d)", s->name,
		       s->how == CS_CALLED ? "called" : "passed", s->at.file,
		       s->at.line, s->in, s->depth);
		if (s->declared)
			printf(", declared at %s:%lu", s->decl.file, s->decl.line);
		else
			printf(", undeclared");
		printf("\n");
		if (s->guard)
			printf("  %s only on %s\n", s->name,
			       *s->guard ? s->guard : "no device");
	}
	if (d.ndefs)
		printf("  defined at %s:%lu (%lu definitions)\n", d.def.file,
		       d.def.line, (unsigned long)d.ndefs);
	if (d.cpu.file)
		printf("  cpu marker %s at %s:%lu (depth %d)\n", d.cpu_why,
		       d.cpu.file, d.cpu.line, d.cpu_depth);
	if (d.no_sources)
		printf("  no C++ sources\n");
	printf("  why: %s\n", d.why);
	cs_discovery_free(&d);
}

static void dtypes(const struct cs_model *m, const char *stub)
{
	struct cs_dtypes d;
	cs_cpu_dtypes(m, stub, &d);
	if (d.found) {
		char *names = cs_dtset_names(d.types, ", ");
		char *metal = cs_dtset_metal(d.types, ", ");
		printf("%s: %s: %s\n", stub, d.fn, names);
		printf("  metal: %s\n", metal);
		free(names);
		free(metal);
		if (d.branch) {
			names = cs_dtset_names(d.branch, ", ");
			printf("  branch: %s\n", names);
			free(names);
		}
	} else {
		printf("%s: none\n", stub);
	}
	if (d.registered)
		printf("  registered at %s:%lu by %s\n", d.reg.file, d.reg.line,
		       d.macro);
	if (d.def.file)
		printf("  defined at %s:%lu\n", d.def.file, d.def.line);
	printf("  sites: %lu\n", (unsigned long)d.nsites);
	if (d.notes && *d.notes)
		printf("  notes: %s\n", d.notes);
	if (d.why)
		printf("  why: %s\n", d.why);
	cs_dtypes_free(&d);
}

static void rule(const struct cs_model *m, const char *op, const char *kernel)
{
	struct cs_outrule r;
	cs_output_rule(m, op, kernel, &r);
	printf("%s: %s\n", op, cs_rule_name(r.rule));
	if (r.meta)
		printf("  meta: %s at %s:%lu: %s\n", r.meta, r.at.file, r.at.line,
		       r.builder);
	if (r.rejects) {
		char *s = cs_dtset_names(r.rejects, ", ");
		printf("  rejects: %s (%s:%lu)\n", s, r.reject_at.file,
		       r.reject_at.line);
		free(s);
	}
	if (r.before_stub) {
		char *s = cs_dtset_names(r.before_stub, ", ");
		printf("  before stub: %s (%s at %s:%lu)\n", s, r.impl,
		       r.before_at.file, r.before_at.line);
		free(s);
	}
	printf("  why: %s\n", r.why);
	cs_outrule_free(&r);
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void iter(const struct cs_model *m, const char *arg)
{
	char *k = xstrdup(arg), *st = strchr(k, '=');
	struct cs_iterrule r;
	if (st)
		*st++ = '\0';
	cs_iter_rule(m, k, st, &r);
	printf("%s: %s\n", k, cs_rule_name(r.rule));
	if (r.builder)
		printf("  %s in %s at %s:%lu\n", r.builder, r.in, r.at.file, r.at.line);
	if (st)
		printf("  %s gets: %s\n", st, r.stub_args ? r.stub_args : "(nothing)");
	printf("  %s\n", r.why);
	cs_iterrule_free(&r);
	free(k);
}

static void sig(const struct cs_model *m, const char *stub)
{
	struct cs_signature s;
	size_t i;
	static const char *const kinds[] = {"other", "scalar", "int", "double",
	                                    "bool", "optional-double",
	                                    "optional-int"};
	if (cs_stub_signature(m, stub, &s) != 0) {
		printf("%s: none\n  %s\n", stub, s.why);
		cs_signature_free(&s);
		return;
	}
	printf("%s: %lu scalar%s\n", stub, (unsigned long)s.nparams,
	       s.nparams == 1 ? "" : "s");
	printf("  %s (%s:%lu)%s\n", s.type, s.at.file, s.at.line,
	       s.iterator ? "" : " (not an iterator)");
	for (i = 0; i < s.nparams; i++)
		printf("  %s %s: %s\n", s.params[i].type,
		       s.params[i].name ? s.params[i].name : "-",
		       kinds[s.params[i].kind]);
	cs_signature_free(&s);
}

static void opmath(const struct cs_model *m, const char *stub)
{
	struct cs_opmath o;
	cs_cpu_opmath(m, stub, &o);
	printf("%s: %s\n  %s\n", stub, !o.found ? "unknown" : o.opmath ? "opmath" : "own",
	       o.why);
	cs_opmath_free(&o);
}

static void usage(void)
{
	fprintf(stderr, "usage: cppscan_probe ROOT stubs|dtypes|rule|rules|stats ARGS..."
	                "\n       cppscan_probe table NAME...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct cs_model m;
	int i;

	diag_init("cppscan_probe");
	if (argc >= 2 && strcmp(argv[1], "table") == 0) {
		for (i = 2; i < argc; i++) {
			cs_dtset s;
			int extra;
			if (cs_dispatch_macro_types(argv[i], &s, &extra) == 0) {
				char *n = cs_dtset_names(s, ", ");
				printf("%s: %s (+%d)\n", argv[i], n, extra);
				free(n);
			} else {
				printf("%s: unknown\n", argv[i]);
			}
		}
		return close_stdout(0);
	}
	if (argc < 3)
		usage();
	if (strcmp(argv[2], "stats") == 0) {
		int runs = argc > 3 ? atoi(argv[3]) : 1;
		double best = 0;
		if (runs < 1)
			runs = 1;
		for (i = 0; i < runs; i++) {
			double t0 = now_ms(), t;
			if (cs_load(&m, argv[1]) != 0)
				return 2;
			t = now_ms() - t0;
			if (i == 0 || t < best)
				best = t;
			if (i + 1 < runs)
				cs_free(&m);
		}
		printf("files %lu defs %lu decls %lu regs %lu metas %lu sources %d\n",
		       (unsigned long)m.nfiles, (unsigned long)m.ndefs,
		       (unsigned long)m.ndecls, (unsigned long)m.nregs,
		       (unsigned long)m.nmetas, m.have_sources);
		printf("load %.1f ms\n", best);
		cs_free(&m);
		return close_stdout(0);
	}
	if (cs_load(&m, argv[1]) != 0)
		return 2;
	if (strcmp(argv[2], "stubs") == 0) {
		for (i = 3; i < argc; i++)
			stubs(&m, argv[i]);
	} else if (strcmp(argv[2], "dtypes") == 0) {
		for (i = 3; i < argc; i++)
			dtypes(&m, argv[i]);
	} else if (strcmp(argv[2], "rule") == 0) {
		if (argc < 4 || argc > 5)
			usage();
		rule(&m, argv[3], argc == 5 ? argv[4] : NULL);
	} else if (strcmp(argv[2], "iter") == 0) {
		for (i = 3; i < argc; i++)
			iter(&m, argv[i]);
	} else if (strcmp(argv[2], "opmath") == 0) {
		for (i = 3; i < argc; i++)
			opmath(&m, argv[i]);
	} else if (strcmp(argv[2], "sig") == 0) {
		for (i = 3; i < argc; i++)
			sig(&m, argv[i]);
	} else if (strcmp(argv[2], "rules") == 0) {
		for (i = 3; i < argc; i++) {
			char *op = xstrdup(argv[i]), *eq = strchr(op, '=');
			if (eq)
				*eq++ = '\0';
			rule(&m, op, eq);
			free(op);
		}
	} else {
		cs_free(&m);
		usage();
	}
	cs_free(&m);
	return close_stdout(0);
}
