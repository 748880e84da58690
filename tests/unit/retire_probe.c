/* retire_probe.c — a debug driver of the test-list rule of retire.h (the
 * expected-failure and skip entries mps-migrate deletes with an
 * operator's old path), for the shell tests (built into build/unit/,
 * never installed).
 *
 *   retire_probe ROOT xfails [OP...]
 *
 * For each operator (each base name of ROOT's native_functions.yaml, in
 * yaml order, or the OPs given), one line per entry rt_plan_op would
 * delete: "OP<TAB>KEY<TAB>LIST<TAB>FILE:LINE".  The plan is asked exactly
 * as mps-migrate asks it (every base name of the yaml is an operator;
 * nothing else of the old path is dead), so the lines are the entries
 * mps-migrate OP deletes.  Exit status 0, or 2 on a usage or load error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli.h"
#include "base/diag.h"
#include "plan/retire.h"
#include "read/hostscan.h"
#include "read/nfyaml.h"

struct ops {
	struct hs_map bases;
};

static int is_op(const char *name, int prefix, void *arg)
{
	const struct hs_map *m = &((struct ops *)arg)->bases;
	return prefix ? hs_map_has_prefix(m, name) : hs_map_get(m, name) >= 0;
}

static void one(const struct hs_model *hm, struct ops *o, const char *op)
{
	struct rt_plan p;
	struct rt_request rq;
	size_t i;
	memset(&rq, 0, sizeof rq);
	rq.op = op;
	rq.is_op = is_op;
	rq.op_arg = o;
	rt_plan_op(&p, hm, &rq);
	for (i = 0; i < p.n; i++) {
		const struct rt_item *it = &p.items[i];
		if (it->what != RT_XFAIL || it->kept)
			continue;
		printf("%s\t%s\t%s\t%s:%lu\n", op, it->name, it->detail,
		       hm->files[it->file].rel, it->line);
	}
	rt_plan_free(&p);
}

int main(int argc, char **argv)
{
	struct nf_index ix;
	struct hs_model hm;
	struct ops o;
	struct hs_map seen;
	char *path;
	size_t i;
	int k;

	diag_init("retire_probe");
	if (argc < 3 || strcmp(argv[2], "xfails") != 0) {
		fprintf(stderr, "usage: retire_probe ROOT xfails [OP...]\n");
		return 2;
	}
	path = xasprintf("%s/%s", argv[1], NF_YAML_REL);
	if (nf_load(&ix, path, NF_YAML_REL) != 0)
		return 2;
	free(path);
	if (hs_load(&hm, argv[1]) != 0)
		return 2;
	memset(&o, 0, sizeof o);
	memset(&seen, 0, sizeof seen);
	for (i = 0; i < ix.nfuncs; i++)
		hs_map_put(&o.bases, ix.funcs[i].base, 1);
	if (argc > 3) {
		for (k = 3; k < argc; k++)
			one(&hm, &o, argv[k]);
	} else {
		for (i = 0; i < ix.nfuncs; i++) {
			if (hs_map_get(&seen, ix.funcs[i].base) >= 0)
				continue;
			hs_map_put(&seen, ix.funcs[i].base, 1);
			one(&hm, &o, ix.funcs[i].base);
		}
	}
	hs_map_free(&seen);
	hs_map_free(&o.bases);
	hs_free(&hm);
	nf_free(&ix);
	return ferror(stdout) || fclose(stdout) ? 2 : 0;
}
