/* report.c — see report.h. */
#include "check/report.h"
#include "base/cli.h"
#include "base/diag.h"

#include <fnmatch.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

int rp_format_parse(const char *s)
{
	static const char *const names[] = {"text", "json", "sarif", "markdown"};
	int i;
	for (i = 0; i < 4; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

/* 1 when finding f passes flt, and is listed at all: in --all (r->all)
 * only defects are listed one by one (to-do is summarized) */
static int rp_shown(const struct vf_report *r, const struct rp_filter *flt,
                    const struct vf_finding *f, int all_classes)
{
	if (r->all && !all_classes && !f->defect)
		return 0;
	if (flt->rules && !(flt->rules & (1u << f->rule)))
		return 0;
	if (flt->path && fnmatch(flt->path, f->path, 0) != 0)
		return 0;
	return 1;
}

static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static void print_counts(FILE *out, const char *label, const size_t c[3])
{
	fprintf(out, "%s: %zu %s, %zu %s, %zu %s\n", label, c[0],
	        plural(c[0], "error", "errors"), c[1],
	        plural(c[1], "warning", "warnings"), c[2],
	        plural(c[2], "note", "notes"));
}

static void print_finding(FILE *err, const char *prog,
                          const struct vf_finding *f)
{
	const struct vf_rule_info *ri = &vf_rules[f->rule];
	fprintf(err, "%s: %s:%lu:%lu: %s: %s [%s: %s]\n", prog, f->path, f->line,
	        f->col, vf_sev_name(ri->sev), f->msg, vf_layer_name(ri->layer),
	        ri->id);
}

/* ---------------- text ---------------- */

static int write_text(FILE *out, FILE *err, const char *prog,
                      const struct vf_report *r, const struct rp_filter *flt,
                      const char *const *ops, size_t nops)
{
	size_t i, k, total[3] = {0, 0, 0};
	int status = 0;

	if (!r->all) {
		size_t *per = xcalloc(r->nops + 1, 3 * sizeof *per);
		for (i = 0; i < r->n; i++) {
			const struct vf_finding *f = &r->f[i];
			int sv = vf_rules[f->rule].sev;
			if (!rp_shown(r, flt, f, 1))
				continue;
			print_finding(err, prog, f);
			total[sv]++;
			if (f->op >= 0)
				per[3 * (size_t)f->op + (size_t)sv]++;
			if (sv != VF_NOTE)
				status = 1;
		}
		for (k = 0; k < nops; k++) {
			char *base, *ovl;
			int inplace;
			for (i = 0; i < r->nops; i++)
				if (r->ops[i].selected && nf_parse_opname(ops[k], &base, &ovl,
				                                          &inplace) == 0) {
					int same = strcmp(base, r->ops[i].name) == 0;
					free(base);
					free(ovl);
					if (same)
						break;
				}
			if (i < r->nops)
				print_counts(out, r->ops[i].name, per + 3 * i);
		}
		if (nops > 1)
			print_counts(out, "total", total);
		free(per);
		return status;
	}

	/* --all: defects grouped by rule, then the summary */
	{
		size_t byrule[VF_NRULES], nops_defect = 0, ndone = 0;
		size_t todo_old[VF_NFAMILIES], todo_none[VF_NFAMILIES];
		size_t ntodo_ops = 0, ndefects = 0;
		int rule;
		memset(byrule, 0, sizeof byrule);
		memset(todo_old, 0, sizeof todo_old);
		memset(todo_none, 0, sizeof todo_none);
		unsigned char *hit = xcalloc(r->nops + 1, 1);
		for (rule = 0; rule < VF_NRULES; rule++)
			for (i = 0; i < r->n; i++) {
				const struct vf_finding *f = &r->f[i];
				int sv = vf_rules[f->rule].sev;
				if (f->rule != rule || !rp_shown(r, flt, f, 0))
					continue;
				print_finding(err, prog, f);
				byrule[rule]++;
				total[sv]++;
				ndefects++;
				if (f->op >= 0 && !hit[f->op]++)
					nops_defect++;
				if (sv != VF_NOTE)
					status = 1;
			}
		free(hit);
		for (i = 0; i < r->nops; i++) {
			const struct vf_op *op = &r->ops[i];
			if (op->state == VF_STATE_DEFECT)
				;
			else if (op->state == VF_STATE_DONE)
				ndone++;
			else if (op->state == VF_STATE_TODO) {
				ntodo_ops++;
				if (op->old_path)
					todo_old[op->family]++;
				else
					todo_none[op->family]++;
			}
		}
		fprintf(out, "%zu operators, %zu host files, %zu kernel files%s\n",
		        r->nops, r->nhost, r->nkern,
		        r->have_sources ? "" : "; no C++ sources of aten/src/ATen/native "
		                               "(stubs not followed)");
		if (ndefects)
			fprintf(out, "defects: %zu, of %zu %s%s\n", ndefects, nops_defect,
			        plural(nops_defect, "operator", "operators"),
			        flt->rules || flt->path ? " (filtered)" : "");
		else
			fprintf(out, "defects: none%s\n",
			        flt->rules || flt->path ? " (filtered)" : "");
		if (ndefects)
			fprintf(out, "  %-22s %-8s %-8s %5s\n", "rule", "severity", "layer",
			        "count");
		for (rule = 0; rule < VF_NRULES; rule++)
			if (byrule[rule])
				fprintf(out, "  %-22s %-8s %-8s %5zu\n", vf_rules[rule].id,
				        vf_sev_name(vf_rules[rule].sev),
				        vf_layer_name(vf_rules[rule].layer), byrule[rule]);
		{
			size_t to = 0, tn = 0;
			for (k = 0; k < VF_NFAMILIES; k++) {
				to += todo_old[k];
				tn += todo_none[k];
			}
			fprintf(out, "to-do: %zu %s: %zu on %s own MPS kernel, %zu not on "
			        "MPS\n", ntodo_ops, plural(ntodo_ops, "operator", "operators"),
			        to, to == 1 ? "its" : "their", tn);
			if (ntodo_ops)
				fprintf(out, "  %-10s %10s %10s\n", "family", "own-kernel",
				        "not-on-mps");
			for (k = 0; k < VF_NFAMILIES; k++)
				if (todo_old[k] || todo_none[k])
					fprintf(out, "  %-10s %10zu %10zu\n",
					        vf_family_name((enum vf_family)k), todo_old[k],
					        todo_none[k]);
		}
		fprintf(out, "done: %zu %s on MPS with no finding\n", ndone,
		        plural(ndone, "operator", "operators"));
		print_counts(out, "total", total);
	}
	return status;
}

/* ---------------- JSON Lines ---------------- */

static int write_json(FILE *out, const struct vf_report *r,
                      const struct rp_filter *flt)
{
	size_t i;
	int status = 0;
	for (i = 0; i < r->n; i++) {
		const struct vf_finding *f = &r->f[i];
		const struct vf_rule_info *ri = &vf_rules[f->rule];
		json_t *o;
		if (!rp_shown(r, flt, f, 1))
			continue;
		o = json_object();
		json_object_set_new(o, "path", json_string(f->path));
		json_object_set_new(o, "line", json_integer((json_int_t)f->line));
		json_object_set_new(o, "column", json_integer((json_int_t)f->col));
		json_object_set_new(o, "severity", json_string(vf_sev_name(ri->sev)));
		json_object_set_new(o, "rule", json_string(ri->id));
		json_object_set_new(o, "layer", json_string(vf_layer_name(ri->layer)));
		json_object_set_new(o, "class", json_string(f->defect ? "defect" : "to-do"));
		json_object_set_new(o, "op", f->op >= 0 ? json_string(r->ops[f->op].name)
		                                        : json_null());
		json_object_set_new(o, "message", json_string(f->msg));
		json_dumpf(o, out, JSON_COMPACT | JSON_PRESERVE_ORDER);
		fputc('\n', out);
		json_decref(o);
		if (f->defect && ri->sev != VF_NOTE)
			status = 1;
	}
	return status;
}

/* ---------------- SARIF 2.1.0 ---------------- */

static const char *sarif_level(enum vf_sev s)
{
	return s == VF_ERROR ? "error" : s == VF_WARNING ? "warning" : "note";
}

/* a sentence ends in a full stop (SARIF's message style) */
static json_t *text_obj(const char *s)
{
	size_t n = strlen(s);
	json_t *o = json_object();
	if (n && s[n - 1] != '.') {
		char *t = xasprintf("%s.", s);
		json_object_set_new(o, "text", json_string(t));
		free(t);
	} else {
		json_object_set_new(o, "text", json_string(s));
	}
	return o;
}

/* "legacy-dispatch-row" → "LegacyDispatchRow" */
static char *camel(const char *id)
{
	char *s = xmalloc(strlen(id) + 1), *p = s;
	int up = 1;
	for (; *id; id++) {
		if (*id == '-') {
			up = 1;
			continue;
		}
		*p++ = up && *id >= 'a' && *id <= 'z' ? (char)(*id - 'a' + 'A') : *id;
		up = 0;
	}
	*p = '\0';
	return s;
}

static int write_sarif(FILE *out, const struct vf_report *r,
                       const struct rp_filter *flt)
{
	json_t *log = json_object(), *run = json_object(), *tool = json_object();
	json_t *driver = json_object(), *rules = json_array(), *results = json_array();
	json_t *runs = json_array();
	size_t i;
	int k, status = 0;

	json_object_set_new(log, "$schema",
	                    json_string("https://json.schemastore.org/sarif-2.1.0.json"));
	json_object_set_new(log, "version", json_string("2.1.0"));
	json_object_set_new(driver, "name", json_string("mps-verify"));
	json_object_set_new(driver, "version", json_string(MK_VERSION));
	json_object_set_new(driver, "informationUri",
	                    json_string("https://github.com/pytorch/pytorch/tree/main/aten/src/ATen/native/mps"));
	for (k = 0; k < VF_NRULES; k++) {
		const struct vf_rule_info *ri = &vf_rules[k];
		json_t *ru = json_object(), *cfg = json_object(), *props = json_object();
		char *nm = camel(ri->id);
		json_object_set_new(ru, "id", json_string(ri->id));
		json_object_set_new(ru, "name", json_string(nm));
		free(nm);
		json_object_set_new(ru, "shortDescription", text_obj(ri->summary));
		json_object_set_new(ru, "fullDescription", text_obj(ri->summary));
		json_object_set_new(ru, "help", text_obj(ri->help));
		json_object_set_new(cfg, "level", json_string(sarif_level(ri->sev)));
		json_object_set_new(ru, "defaultConfiguration", cfg);
		json_object_set_new(props, "layer", json_string(vf_layer_name(ri->layer)));
		json_object_set_new(ru, "properties", props);
		json_array_append_new(rules, ru);
	}
	json_object_set_new(driver, "rules", rules);
	json_object_set_new(tool, "driver", driver);
	json_object_set_new(run, "tool", tool);
	for (i = 0; i < r->n; i++) {
		const struct vf_finding *f = &r->f[i];
		const struct vf_rule_info *ri = &vf_rules[f->rule];
		json_t *res, *loc, *phys, *art, *reg, *locs, *props;
		if (!rp_shown(r, flt, f, 0))
			continue;
		res = json_object();
		json_object_set_new(res, "ruleId", json_string(ri->id));
		json_object_set_new(res, "ruleIndex", json_integer(f->rule));
		json_object_set_new(res, "level", json_string(sarif_level(ri->sev)));
		json_object_set_new(res, "message", text_obj(f->msg));
		art = json_object();
		json_object_set_new(art, "uri", json_string(f->path));
		json_object_set_new(art, "uriBaseId", json_string("%SRCROOT%"));
		reg = json_object();
		json_object_set_new(reg, "startLine", json_integer((json_int_t)f->line));
		if (f->col)
			json_object_set_new(reg, "startColumn", json_integer((json_int_t)f->col));
		phys = json_object();
		json_object_set_new(phys, "artifactLocation", art);
		json_object_set_new(phys, "region", reg);
		loc = json_object();
		json_object_set_new(loc, "physicalLocation", phys);
		locs = json_array();
		json_array_append_new(locs, loc);
		json_object_set_new(res, "locations", locs);
		props = json_object();
		json_object_set_new(props, "layer", json_string(vf_layer_name(ri->layer)));
		json_object_set_new(props, "class", json_string(f->defect ? "defect" : "to-do"));
		if (f->op >= 0)
			json_object_set_new(props, "operator", json_string(r->ops[f->op].name));
		json_object_set_new(res, "properties", props);
		json_array_append_new(results, res);
		if (ri->sev != VF_NOTE)
			status = 1;
	}
	json_object_set_new(run, "results", results);
	{
		/* the checkout is the base of every artifact URI; where it lies
		 * on this machine is left out (it differs per machine): GitHub
		 * and the SARIF viewers resolve %SRCROOT% to the checked-out
		 * repository */
		json_t *bases = json_object(), *root = json_object();
		json_object_set_new(root, "description",
		                    text_obj("The root of the PyTorch checkout."));
		json_object_set_new(bases, "%SRCROOT%", root);
		json_object_set_new(run, "originalUriBaseIds", bases);
	}
	json_object_set_new(run, "columnKind", json_string("utf16CodeUnits"));
	json_array_append_new(runs, run);
	json_object_set_new(log, "runs", runs);
	json_dumpf(log, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	json_decref(log);
	return status;
}

/* ---------------- Markdown checklist ---------------- */

static void md_op(FILE *out, const struct vf_report *r,
                  const struct rp_filter *flt, size_t o)
{
	const struct vf_op *op = &r->ops[o];
	size_t i, shown = 0;
	switch (op->state) {
	case VF_STATE_DONE:
		fprintf(out, "- [x] `%s`\n", op->name);
		return;
	case VF_STATE_TODO:
		fprintf(out, "- [ ] `%s`: to do (%s)\n", op->name,
		        op->old_path ? "on its own MPS kernel" : "not on MPS");
		return;
	case VF_STATE_DEFECT:
		fprintf(out, "- [ ] `%s`: ", op->name);
		for (i = 0; i < r->n; i++) {
			const struct vf_finding *f = &r->f[i];
			if (f->op != (long)o || !f->defect || !rp_shown(r, flt, f, 0))
				continue;
			fprintf(out, "%s%s at `%s:%lu`", shown ? "; " : "",
			        vf_rules[f->rule].id, f->path, f->line);
			shown++;
		}
		if (!shown)
			fprintf(out, "defects outside the filter");
		fputc('\n', out);
		return;
	case VF_STATE_NONE:
		return;
	}
}

static int write_markdown(FILE *out, const struct vf_report *r,
                          const struct rp_filter *flt)
{
	size_t i, k, n[VF_NFAMILIES][4];
	int status = 0;
	memset(n, 0, sizeof n);
	for (i = 0; i < r->nops; i++)
		if (r->ops[i].selected || r->all)
			n[r->ops[i].family][r->ops[i].state]++;
	for (i = 0; i < r->n; i++)
		if (rp_shown(r, flt, &r->f[i], 0) &&
		    vf_rules[r->f[i].rule].sev != VF_NOTE)
			status = 1;
	fprintf(out, "# MPS operators: migration checklist\n\n");
	fprintf(out, "Written by `mps-verify %s--format markdown`: [x] on MPS with "
	        "no finding; to do: on its own (usually MPSGraph) MPS kernel, or "
	        "not on MPS; otherwise the defects to fix, with file:line.\n",
	        r->all ? "--all " : "");
	for (k = 0; k < VF_NFAMILIES; k++) {
		size_t listed = n[k][VF_STATE_DONE] + n[k][VF_STATE_TODO] +
		                n[k][VF_STATE_DEFECT];
		if (!listed)
			continue;
		fprintf(out, "\n## %s (%zu %s: %zu done, %zu to do, %zu with defects)\n\n",
		        vf_family_name((enum vf_family)k), listed,
		        plural(listed, "operator", "operators"), n[k][VF_STATE_DONE],
		        n[k][VF_STATE_TODO], n[k][VF_STATE_DEFECT]);
		for (i = 0; i < r->nops; i++)
			if ((r->ops[i].selected || r->all) && r->ops[i].family == (enum vf_family)k)
				md_op(out, r, flt, i);
	}
	return status;
}

int rp_write(FILE *out, FILE *err, const char *prog, const struct vf_report *r,
             const struct rp_filter *flt, enum rp_format fmt,
             const char *const *ops, size_t nops)
{
	switch (fmt) {
	case RP_JSON:
		return write_json(out, r, flt);
	case RP_SARIF:
		return write_sarif(out, r, flt);
	case RP_MARKDOWN:
		return write_markdown(out, r, flt);
	case RP_TEXT:
		break;
	}
	return write_text(out, err, prog, r, flt, ops, nops);
}

/* ---------------- the MPSGraph to-do list ---------------- */

static int todo_listed(const struct vf_report *r, const struct vf_graph *g)
{
	return r->all || r->ops[g->op].selected;
}

/* counts of the listed entries: operators and functions per kind, and
 * distinct operators over all kinds */
static void todo_count(const struct vf_report *r, size_t nops[VF_NKINDS],
                       size_t nfn[VF_NKINDS], size_t *tops, size_t *tfn)
{
	unsigned char *seen = xcalloc(r->nops + 1, 1);
	size_t i;
	long last = -1;
	enum vf_kind lastk = VF_NKINDS;
	memset(nops, 0, VF_NKINDS * sizeof *nops);
	memset(nfn, 0, VF_NKINDS * sizeof *nfn);
	*tops = *tfn = 0;
	for (i = 0; i < r->ngraphs; i++) {
		const struct vf_graph *g = &r->graphs[i];
		if (!todo_listed(r, g))
			continue;
		nfn[g->kind]++;
		(*tfn)++;
		if (g->op != last || g->kind != lastk) /* sorted by kind, op */
			nops[g->kind]++;
		if (!seen[g->op]++)
			(*tops)++;
		last = g->op;
		lastk = g->kind;
	}
	free(seen);
}

static int todo_text(FILE *out, const struct vf_report *r)
{
	size_t i, wop = 0, wfn = 0, wpl = 0, nops[VF_NKINDS], nfn[VF_NKINDS];
	size_t tops, tfn;
	char place[64];
	for (i = 0; i < r->ngraphs; i++) {
		const struct vf_graph *g = &r->graphs[i];
		int n;
		if (!todo_listed(r, g))
			continue;
		if (strlen(r->ops[g->op].name) > wop)
			wop = strlen(r->ops[g->op].name);
		if (strlen(g->function) > wfn)
			wfn = strlen(g->function);
		n = snprintf(place, sizeof place, ":%lu", g->line);
		if (n > 0 && strlen(g->path) + (size_t)n > wpl)
			wpl = strlen(g->path) + (size_t)n;
	}
	for (i = 0; i < r->ngraphs; i++) {
		const struct vf_graph *g = &r->graphs[i];
		char *pl;
		if (!todo_listed(r, g))
			continue;
		pl = xasprintf("%s:%lu", g->path, g->line);
		fprintf(out, "%-9s  %-*s  %-*s  %-*s  %s %s\n", vf_kind_name(g->kind),
		        (int)wop, r->ops[g->op].name, (int)wfn, g->function, (int)wpl,
		        pl, g->row ? "row" : "stub", g->row ? g->row : g->stub);
		free(pl);
	}
	todo_count(r, nops, nfn, &tops, &tfn);
	fprintf(out, "%s%zu %s of %zu %s %s an MPSGraph\n", tfn ? "\n" : "", tfn,
	        plural(tfn, "function", "functions"), tops,
	        plural(tops, "operator", "operators"), plural(tfn, "builds", "build"));
	fprintf(out, "  kind       operators functions\n");
	for (i = 0; i < VF_NKINDS; i++)
		fprintf(out, "  %-9s  %9zu %9zu\n", vf_kind_name((enum vf_kind)i), nops[i],
		        nfn[i]);
	fprintf(out, "  %-9s  %9zu %9zu\n", "total", tops, tfn);
	return tfn > 0;
}

static int todo_json(FILE *out, const struct vf_report *r)
{
	size_t i;
	int status = 0;
	for (i = 0; i < r->ngraphs; i++) {
		const struct vf_graph *g = &r->graphs[i];
		const struct vf_op *op = &r->ops[g->op];
		json_t *o;
		if (!todo_listed(r, g))
			continue;
		o = json_object();
		json_object_set_new(o, "op", json_string(op->name));
		json_object_set_new(o, "kind", json_string(vf_kind_name(g->kind)));
		json_object_set_new(o, "function", json_string(g->function));
		json_object_set_new(o, "path", json_string(g->path));
		json_object_set_new(o, "line", json_integer((json_int_t)g->line));
		json_object_set_new(o, "column", json_integer((json_int_t)g->col));
		json_object_set_new(o, "via", json_string(g->row ? "row" : "stub"));
		json_object_set_new(o, g->row ? "row" : "stub",
		                    json_string(g->row ? g->row : g->stub));
		json_object_set_new(o, "why", json_string(g->why));
		json_object_set_new(o, "macro", g->macro ? json_string(g->macro) : json_null());
		json_dumpf(o, out, JSON_COMPACT | JSON_PRESERVE_ORDER);
		fputc('\n', out);
		json_decref(o);
		status = 1;
	}
	return status;
}

static int todo_markdown(FILE *out, const struct vf_report *r)
{
	size_t i, k, nops[VF_NKINDS], nfn[VF_NKINDS], tops, tfn;
	long last;
	todo_count(r, nops, nfn, &tops, &tfn);
	fprintf(out, "# MPS operators still building an MPSGraph\n\n");
	fprintf(out, "Written by `mps-verify --todo --format markdown`: %zu %s, "
	        "%zu %s; a task per operator and kind, with the graph-building "
	        "function(s) its MPS dispatch reaches and where they are "
	        "defined.\n", tops, plural(tops, "operator", "operators"), tfn,
	        plural(tfn, "function", "functions"));
	for (k = 0; k < VF_NKINDS; k++) {
		if (!nops[k])
			continue;
		fprintf(out, "\n## %s (%zu %s, %zu %s)\n\n", vf_kind_name((enum vf_kind)k),
		        nops[k], plural(nops[k], "operator", "operators"), nfn[k],
		        plural(nfn[k], "function", "functions"));
		last = -1;
		for (i = 0; i < r->ngraphs; i++) {
			const struct vf_graph *g = &r->graphs[i];
			if (!todo_listed(r, g) || g->kind != (enum vf_kind)k)
				continue;
			if (g->op != last)
				fprintf(out, "%s- [ ] `%s`: ", last >= 0 ? "\n" : "",
				        r->ops[g->op].name);
			fprintf(out, "%s`%s` (`%s:%lu`)", g->op == last ? ", " : "",
			        g->function, g->path, g->line);
			last = g->op;
		}
		fputc('\n', out);
	}
	return tfn > 0;
}

int rp_write_todo(FILE *out, const struct vf_report *r, enum rp_format fmt)
{
	switch (fmt) {
	case RP_JSON:
		return todo_json(out, r);
	case RP_MARKDOWN:
		return todo_markdown(out, r);
	case RP_TEXT:
	case RP_SARIF:
		break;
	}
	return todo_text(out, r);
}
