/* tryreport.c — try.h's report (text and JSON) and the --device mps
 * texts. */
#include "check/try.h"
#include "base/diag.h"
#include "read/metalreg.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *verdict_name(int v)
{
	return v == 0 ? "match" : v == 1 ? "mismatch" : "not compared";
}

/* the inputs line: how many, how many the tests sample */
static void report_inputs(FILE *f, const struct try_plan *pl, size_t reg,
                          const struct try_result *res)
{
	if (res->case_class != TRY_SAMPLED)
		fprintf(f, "  inputs: %zu, none as PyTorch's tests sample (%s)\n", res->compared,
		        pl->untested && pl->untested[reg] ? pl->untested[reg]
		                                          : try_class_rules[res->case_class].what);
	else
		fprintf(f, "  inputs: %zu, %zu of them as PyTorch's tests sample\n", res->compared,
		        res->sampled);
}

static void print_msg(FILE *f, const char *indent, const char *msg)
{
	const char *p = msg;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		fprintf(f, "%s%.*s\n", indent, (int)n, p);
		p += n + (nl ? 1 : 0);
	}
}

/* the registrations whose reference was computed in float32 (complex64)
 * for want of a kernel of their dtype: "half (line 85), bfloat (line 85)";
 * malloc'd, NULL when none */
static char *upcast_list(const struct try_plan *pl, const struct try_outcome *out)
{
	struct buf b;
	size_t i, k;
	buf_init(&b);
	for (i = 0; i < pl->nregs; i++)
		for (k = 0; k < pl->ncases; k++)
			if (pl->cases[k].reg == i && out->res[k].upcast) {
				buf_printf(&b, "%s%s (line %lu)", b.len ? ", " : "",
				           pl->regs[i].in, pl->regs[i].line);
				break;
			}
	if (!b.len) {
		buf_free(&b);
		return NULL;
	}
	return b.data;
}

/* " the WHAT values of DT1, DT2, ..." for the dtype bits MASK */
static void untested_list(FILE *f, const char *what, unsigned mask)
{
	const char *const *dts = try_opinfo_dtypes;
	size_t k;
	int first = 1;
	if (!mask)
		return;
	if (mask == TRY_OPINFO_ALL_DTYPES) {
		fprintf(f, " the %s values of any dtype", what);
		return;
	}
	fprintf(f, " the %s values of", what);
	for (k = 0; dts[k]; k++)
		if (mask & (1u << k)) {
			fprintf(f, "%s %s", first ? "" : ",", dts[k]);
			first = 0;
		}
}

/* the first lines: the reference against the checkout, the cases computed
 * in float, what the verdict counts */
static void report_head(FILE *f, const struct try_plan *pl,
                        const struct try_outcome *out)
{
	char *up;
	size_t k;
	if (out->reference_older)
		fprintf(f, "reference: torch %s is older than the checkout (%s, its version.txt): "
		        "where the CPU kernels changed since, its results are not the checkout's\n",
		        out->torch_version, pl->checkout_version);
	/* the domain, handles_large_floats and the binary OpInfo's scalar
	   samples are applied to unary kernels only (try_classify) */
	if (out->opinfo.found && pl->nregs &&
	    (pl->regs[0].kind == MR_UNARY || pl->regs[0].kind == MR_UNARY_ALPHA) &&
	    ((out->opinfo.unary && (out->opinfo.has_low || out->opinfo.has_high)) ||
	     !out->opinfo.large_floats || out->opinfo.binary)) {
		const struct try_opinfo *oi = &out->opinfo;
		fprintf(f, "opinfo: %s:%lu:", oi->file, oi->line);
		if (oi->unary && (oi->has_low || oi->has_high)) {
			fprintf(f, " domain (");
			if (oi->has_low)
				fprintf(f, "%g", oi->low);
			else
				fprintf(f, "None");
			if (oi->has_high)
				fprintf(f, ", %g)", oi->high);
			else
				fprintf(f, ", None)");
		}
		if (!oi->large_floats)
			fprintf(f, "%s handles_large_floats=False",
			        oi->unary && (oi->has_low || oi->has_high) ? "," : "");
		if (oi->binary)
			fprintf(f, " a binary OpInfo: its tensor-with-scalar samples draw the tensor "
			        "from make_tensor's range");
		fprintf(f, ": the inputs it keeps out of its samples are shown apart\n");
	}
	if (out->opinfo.found && out->opinfo.rhs_nonzero && pl->nregs &&
	    pl->regs[0].kind != MR_UNARY && pl->regs[0].kind != MR_UNARY_ALPHA)
		fprintf(f, "opinfo: %s:%lu: rhs_make_tensor_kwargs exclude_zero=True: a zero "
		        "second operand is shown apart\n", out->opinfo.file, out->opinfo.line);
	if (out->opinfo.found && (out->opinfo.untested_large || out->opinfo.untested_extremal)) {
		const struct try_opinfo *oi = &out->opinfo;
		fprintf(f, "opinfo: %s:%lu:%s%s%s PyTorch does not test", oi->file, oi->untested_line,
		        oi->forward ? " the forward's entry (" : "", oi->forward ? oi->name : "",
		        oi->forward ? ", whose samples the gradient tests differentiate):" : "");
		untested_list(f, "large", oi->untested_large);
		if (oi->untested_large && oi->untested_extremal)
			fprintf(f, ";");
		untested_list(f, "extremal", oi->untested_extremal);
		if (oi->plain)
			fprintf(f, " (a plain OpInfo without reference_inputs_func: its reference "
			        "inputs are its samples): shown apart\n");
		else if (oi->forward)
			fprintf(f, " (the backward runs only under the gradient tests, on the "
			        "forward's samples; the ufunc reference tests reach the forward "
			        "alone): shown apart\n");
		else
			fprintf(f, " (a DecorateInfo skips or expects to fail its reference-numerics "
			        "test, every test of the entry, or test_compare_cpu of an entry "
			        "without ref): shown apart\n");
	}
	up = out->no_torch ? NULL : upcast_list(pl, out);
	if (up) {
		fprintf(f, "reference: computed in float32 and rounded, torch %s having no CPU kernel "
		        "for the dtype: %s; the checkout's CPU kernel may compute in the dtype "
		        "itself (rounding its constants and intermediates), so a difference there "
		        "can be the reference's\n",
		        out->torch_version ? out->torch_version : "?", up);
		free(up);
	}
	for (k = 0; k < pl->ncases; k++)
		if (out->res[k].reference || out->res[k].f64)
			break;
	if (k == pl->ncases)
		return;
	fprintf(f, "verdict: on the inputs PyTorch's MPS tests sample (OpInfo sample and "
	        "reference inputs, the dtypes test_mps.py runs); the others are shown apart%s\n",
	        out->strict ? " and counted (--strict)" : ", counted with --strict");
}

/* the mismatches beyond what the tests sample, of one case */
static void report_beyond(FILE *f, const struct try_result *res, int strict)
{
	size_t c, m, first = 1;
	if (!res->beyond)
		return;
	fprintf(f, "  beyond what the tests sample: %zu of %zu differ (", res->beyond,
	        res->compared - res->sampled);
	for (c = 0; c < TRY_NCLASS; c++)
		if (res->beyond_by[c]) {
			fprintf(f, "%s%s %zu", first ? "" : ", ", try_class_rules[c].name,
			        res->beyond_by[c]);
			first = 0;
		}
	fprintf(f, "): %s\n", strict ? "counted (--strict)" : "not counted (--strict counts them)");
	for (m = 0; m < res->nbshown; m++) {
		const struct try_miss *ms = &res->bshown[m];
		if (ms->b[0])
			fprintf(f, "    %s: in (%s, %s): ours %s, %s %s\n",
			        try_class_rules[ms->cls].name, ms->a, ms->b, ms->ours,
			        res->f64 ? "float64" : "cpu", ms->cpu);
		else
			fprintf(f, "    %s: in %s: ours %s, %s %s\n", try_class_rules[ms->cls].name,
			        ms->a, ms->ours, res->f64 ? "float64" : "cpu", ms->cpu);
	}
}

void try_report_text(FILE *f, const struct try_plan *pl,
                     const struct try_outcome *out)
{
	size_t i, k;
	int all_fallback = pl->ncases > 0;
	fprintf(f, "%s: kernel %s, %zu registration%s in %s (functor at line %lu)\n",
	        pl->func, pl->kernel, pl->nregs, pl->nregs == 1 ? "" : "s",
	        pl->metal_rel, pl->functor_line);
	for (i = 0; i < pl->nnotes; i++)
		fprintf(f, "note: %s\n", pl->notes[i]);
	for (k = 0; k < pl->ncases; k++)
		if (!out->res[k].fallback || !out->res[k].compiled)
			all_fallback = 0;
	if (all_fallback && out->fallback_why) {
		if (*out->fallback_why) {
			fprintf(f, "note: the macros and dense kernel templates did not compile on the host; calling the functor:\n");
			print_msg(f, "  ", out->fallback_why);
		}
		for (i = 0; i < pl->nregs; i++)
			if (!pl->regs[i].dense)
				fprintf(f, "note: %s: %s; calling the functor\n", pl->regs[i].call,
				        pl->regs[i].dense_why);
	}
	if (out->no_torch)
		fprintf(f, "reference: none (no python imports torch): compile, overload, result type and NaN/inf checks only\n");
	else
		fprintf(f, "reference: torch.ops.aten.%s.%s on the CPU (torch %s, %s)\n",
		        pl->op_base, *pl->overload ? pl->overload : "default",
		        out->torch_version ? out->torch_version : "?",
		        out->python_path ? out->python_path : out->python ? out->python : "?");
	report_head(f, pl, out);
	for (i = 0; i < pl->nregs; i++) {
		const struct try_reg *r = &pl->regs[i];
		int shown_compile = 0;
		fprintf(f, "\n%s  line %lu%s%s%s\n", r->call, r->line,
		        r->via ? " (via " : "", r->via ? r->via : "", r->via ? ")" : "");
		if (r->nkernels) {
			size_t q;
			fprintf(f, "  kernels: %zu from the #define of %s:", r->nkernels, r->macro);
			for (q = 0; q < r->nkernels; q++)
				fprintf(f, "%s %s", q ? "," : "", r->kernels[q].variant);
			fprintf(f, "\n");
		}
		for (k = 0; k < pl->ncases; k++) {
			const struct try_case *c = &pl->cases[k];
			const struct try_result *res = &out->res[k];
			if (c->reg != i)
				continue;
			if (!res->compiled) {
				if (!shown_compile) {
					fprintf(f, "  compile: error\n");
					print_msg(f, "    ", res->compile_msg ? res->compile_msg : "(no message)");
					shown_compile = 1;
				}
				continue;
			}
			if (c->arg_value) {
				int other = strcmp(c->arg_value, c->alpha_value) != 0;
				fprintf(f, "  %s=%s%s%s%s:\n", pl->args[pl->alpha_arg].name, c->arg_value,
				        other ? " (the kernel gets " : "", other ? c->alpha_value : "",
				        other ? ")" : "");
			}
			if (!shown_compile || c->arg_value) {
				fprintf(f, "  compiled: %s\n",
				        res->fallback ? "the functor, called directly" : "the dense kernel template");
				shown_compile = 1;
			}
			if (!res->ran) {
				fprintf(f, "  run: %s\n", res->run_error ? res->run_error : "did not run");
				continue;
			}
			if (res->run_sampled)
				fprintf(f, "  run: the harness ran past the time limit on every input: run "
				        "again on the inputs the tests sample, the first kernel only; the "
				        "others are not compared\n");
			if (res->nkernels) {
				size_t q;
				fprintf(f, "  ran: %s (against the CPU)", res->kernels[0]);
				for (q = 1; q < res->nkernels; q++) {
					if (res->kdiffer[q] < 0)
						fprintf(f, ", %s (not compared: inputs trap)", res->kernels[q]);
					else if (res->kdiffer[q] == 0)
						fprintf(f, ", %s (same bytes)", res->kernels[q]);
					else
						fprintf(f, ", %s (%ld elements differ from the first)",
						        res->kernels[q], res->kdiffer[q]);
				}
				fprintf(f, "\n");
			}
			if (res->overload)
				fprintf(f, "  overload: operator() at line %lu\n", res->overload);
			else
				fprintf(f, "  overload: (no operator() of the functor marked)\n");
			if (res->trapped)
				fprintf(f, "  host traps: %zu inputs (an integer division by zero or MIN / -1, caught by the layer's guard; undefined on the GPU): not compared\n",
				        res->trapped);
			if (res->ref_error)
				fprintf(f, "  reference: %s\n", res->ref_error);
			if (res->ref_note)
				fprintf(f, "  reference: %s\n", res->ref_note);
			if (res->reference) {
				const char *rd = res->ref_dtype ? res->ref_dtype : "?";
				report_inputs(f, pl, i, res);
				fprintf(f, "  CPU result dtype %s\n", rd);
				if (!try_is_integral(r->out))
					fprintf(f, "  error: abs %.3g, rel %.3g, ulp %.0f\n", res->max_abs,
					        res->max_rel, res->max_ulp);
			} else if (res->f64) {
				report_inputs(f, pl, i, res);
				fprintf(f, "  NaN and inf against a float64 evaluation of the functor\n");
			}
			for (size_t m = 0; m < res->nshown; m++) {
				const struct try_miss *ms = &res->shown[m];
				if (ms->b[0])
					fprintf(f, "  mismatch: in (%s, %s): ours %s, %s %s\n", ms->a, ms->b,
					        ms->ours, res->f64 ? "float64" : "cpu", ms->cpu);
				else
					fprintf(f, "  mismatch: in %s: ours %s, %s %s\n", ms->a, ms->ours,
					        res->f64 ? "float64" : "cpu", ms->cpu);
			}
			if ((res->reference || res->f64) && out->strict) {
				fprintf(f, "  verdict: %s (%zu of %zu, sampled or not: --strict",
				        verdict_name(res->verdict), res->mismatches + res->beyond,
				        res->compared);
				if (try_is_integral(r->out) || res->f64)
					fprintf(f, "%s)\n", res->f64 ? "" : "; exact");
				else
					fprintf(f, "; rtol %g, atol %g%s%s)\n", res->rtol, res->atol,
					        res->tol_source ? ": " : "",
					        res->tol_source ? res->tol_source : "");
				report_beyond(f, res, out->strict);
			} else if (res->reference || res->f64) {
				if (res->f64)
					fprintf(f, "  verdict: %s (%zu of %zu sampled)\n", verdict_name(res->verdict),
					        res->mismatches, res->sampled);
				else if (try_is_integral(r->out))
					fprintf(f, "  verdict: %s (%zu of %zu sampled; exact)\n",
					        verdict_name(res->verdict), res->mismatches, res->sampled);
				else
					fprintf(f, "  verdict: %s (%zu of %zu sampled; rtol %g, atol %g%s%s)\n",
					        verdict_name(res->verdict), res->mismatches, res->sampled,
					        res->rtol, res->atol, res->tol_source ? ": " : "",
					        res->tol_source ? res->tol_source : "");
				report_beyond(f, res, out->strict);
			}
		}
	}
	if (out->f64_msg)
		fprintf(f, "\nnote: the float64 evaluation of the functor did not compile: %s\n",
		        out->f64_msg);
	{
		size_t nm = 0, nc = 0, nr = 0, nb = 0, nk = 0;
		for (k = 0; k < pl->ncases; k++) {
			if (!out->res[k].compiled)
				nc++;
			else if (!out->res[k].ran)
				nr++;
			else if (out->res[k].verdict == 1)
				nm++;
			else if (out->res[k].ref_killed)
				nk++;
			if (out->res[k].beyond)
				nb++;
		}
		fprintf(f, "\n%s: %zu case%s, %zu mismatch%s, %zu not compiled, %zu did not run",
		        pl->kernel, pl->ncases, pl->ncases == 1 ? "" : "s", nm,
		        nm == 1 ? "" : "es", nc, nr);
		if (nk)
			fprintf(f, ", %zu without a reference", nk);
		if (nb)
			fprintf(f, "; %zu with differences beyond what the tests sample%s", nb,
			        out->strict ? "" : " (--strict counts them)");
		fprintf(f, "\n");
	}
}

void try_report_json(FILE *f, const struct try_plan *pl,
                     const struct try_outcome *out)
{
	size_t i, k;
	for (i = 0; i < pl->nregs; i++) {
		const struct try_reg *r = &pl->regs[i];
		json_t *o = json_object(), *cases = json_array();
		char *s;
		json_object_set_new(o, "func", json_string(pl->func));
		json_object_set_new(o, "kernel", json_string(pl->kernel));
		json_object_set_new(o, "file", json_string(pl->metal_rel));
		json_object_set_new(o, "line", json_integer((json_int_t)r->line));
		json_object_set_new(o, "call", json_string(r->call));
		json_object_set_new(o, "via", r->via ? json_string(r->via) : json_null());
		json_object_set_new(o, "in", json_string(r->in));
		json_object_set_new(o, "alpha", r->alpha ? json_string(r->alpha) : json_null());
		json_object_set_new(o, "out", json_string(r->out));
		{
			json_t *ks = json_array();
			size_t q;
			for (q = 0; q < r->nkernels; q++) {
				json_t *x = json_object();
				json_object_set_new(x, "name", json_string(r->kernels[q].name));
				json_object_set_new(x, "variant", json_string(r->kernels[q].variant));
				json_object_set_new(x, "template", json_string(r->kernels[q].templ));
				json_array_append_new(ks, x);
			}
			json_object_set_new(o, "kernels", ks);
		}
		json_object_set_new(o, "reference",
		                    out->no_torch ? json_null()
		                                  : json_string(out->torch_version ? out->torch_version : "?"));
		json_object_set_new(o, "python", out->python_path ? json_string(out->python_path)
		                                 : out->python ? json_string(out->python) : json_null());
		json_object_set_new(o, "checkout_version",
		                    pl->checkout_version ? json_string(pl->checkout_version) : json_null());
		json_object_set_new(o, "reference_older", json_boolean(out->reference_older));
		json_object_set_new(o, "strict", json_boolean(out->strict));
		for (k = 0; k < pl->ncases; k++) {
			const struct try_case *c = &pl->cases[k];
			const struct try_result *res = &out->res[k];
			json_t *co, *mm;
			size_t m;
			if (c->reg != i)
				continue;
			co = json_object();
			json_object_set_new(co, "arg", c->arg_value ? json_string(c->arg_value) : json_null());
			json_object_set_new(co, "compiled", json_boolean(res->compiled));
			json_object_set_new(co, "compile_error",
			                    res->compile_msg ? json_string(res->compile_msg) : json_null());
			json_object_set_new(co, "path", json_string(!res->compiled ? "none"
			                                              : res->fallback ? "functor" : "dense"));
			{
				json_t *ran = json_array();
				size_t q;
				for (q = 0; q < res->nkernels; q++) {
					json_t *x = json_object();
					json_object_set_new(x, "kernel", json_string(res->kernels[q]));
					json_object_set_new(x, "against", json_string(q ? "first" : "cpu"));
					json_object_set_new(x, "differ", res->kdiffer[q] < 0 ? json_null()
					                                     : json_integer((json_int_t)res->kdiffer[q]));
					json_array_append_new(ran, x);
				}
				json_object_set_new(co, "ran", ran);
			}
			json_object_set_new(co, "overload_line", json_integer((json_int_t)res->overload));
			json_object_set_new(co, "run_error", res->run_error ? json_string(res->run_error) : json_null());
			json_object_set_new(co, "run_sampled", json_boolean(res->run_sampled));
			json_object_set_new(co, "reference_dtype", res->ref_dtype ? json_string(res->ref_dtype) : json_null());
			json_object_set_new(co, "reference_note", res->ref_note ? json_string(res->ref_note) : json_null());
			json_object_set_new(co, "reference_error", res->ref_error ? json_string(res->ref_error) : json_null());
			json_object_set_new(co, "reference_upcast", json_boolean(res->upcast));
			json_object_set_new(co, "compared", json_integer((json_int_t)res->compared));
			json_object_set_new(co, "sampled", json_integer((json_int_t)res->sampled));
			json_object_set_new(co, "case_class",
			                    res->case_class != TRY_SAMPLED
			                        ? json_string(try_class_rules[res->case_class].name)
			                        : json_null());
			json_object_set_new(co, "mismatches", json_integer((json_int_t)res->mismatches));
			json_object_set_new(co, "max_abs", json_real(res->max_abs));
			json_object_set_new(co, "max_rel", json_real(res->max_rel));
			json_object_set_new(co, "max_ulp", json_real(res->max_ulp));
			json_object_set_new(co, "rtol", json_real(res->rtol));
			json_object_set_new(co, "atol", json_real(res->atol));
			json_object_set_new(co, "tolerance_source", res->tol_source
			                                                ? json_string(res->tol_source)
			                                                : json_null());
			mm = json_array();
			for (m = 0; m < res->nshown; m++) {
				json_t *x = json_object();
				json_object_set_new(x, "index", json_integer((json_int_t)res->shown[m].index));
				json_object_set_new(x, "a", json_string(res->shown[m].a));
				if (res->shown[m].b[0])
					json_object_set_new(x, "b", json_string(res->shown[m].b));
				json_object_set_new(x, "ours", json_string(res->shown[m].ours));
				json_object_set_new(x, res->f64 ? "float64" : "cpu", json_string(res->shown[m].cpu));
				json_array_append_new(mm, x);
			}
			json_object_set_new(co, "first_mismatches", mm);
			json_object_set_new(co, "beyond", json_integer((json_int_t)res->beyond));
			{
				json_t *by = json_object(), *bm = json_array();
				size_t c2;
				for (c2 = 0; c2 < TRY_NCLASS; c2++)
					if (res->beyond_by[c2])
						json_object_set_new(by, try_class_rules[c2].name,
						                    json_integer((json_int_t)res->beyond_by[c2]));
				for (m = 0; m < res->nbshown; m++) {
					const struct try_miss *ms = &res->bshown[m];
					json_t *x = json_object();
					json_object_set_new(x, "class", json_string(try_class_rules[ms->cls].name));
					json_object_set_new(x, "index", json_integer((json_int_t)ms->index));
					json_object_set_new(x, "a", json_string(ms->a));
					if (ms->b[0])
						json_object_set_new(x, "b", json_string(ms->b));
					json_object_set_new(x, "ours", json_string(ms->ours));
					json_object_set_new(x, res->f64 ? "float64" : "cpu", json_string(ms->cpu));
					json_array_append_new(bm, x);
				}
				json_object_set_new(co, "beyond_by_class", by);
				json_object_set_new(co, "first_beyond", bm);
			}
			json_object_set_new(co, "verdict", json_string(verdict_name(res->verdict)));
			json_array_append_new(cases, co);
		}
		json_object_set_new(o, "cases", cases);
		s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
		if (s) {
			fprintf(f, "%s\n", s);
			free(s);
		}
		json_decref(o);
	}
}

/* ---- --device mps ---- */

/* TEXT with each #include line that names one of the plan's headers
 * (inlined before it) blanked, line breaks kept: torch.mps.compile_shader
 * would otherwise embed the installed torch's copy of the same header */
static void add_without_includes(struct buf *b, const struct try_plan *pl,
                                 const char *text)
{
	const char *p = text;
	while (*p) {
		const char *nl = strchr(p, '\n'), *q = p;
		size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p), i;
		int inlined = 0;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q == '#') {
			q++;
			while (*q == ' ' || *q == '\t')
				q++;
			if (!strncmp(q, "include", 7)) {
				const char *s = q + 7, *e;
				while (*s == ' ' || *s == '\t')
					s++;
				e = *s == '<' ? strchr(s + 1, '>') : *s == '"' ? strchr(s + 1, '"') : NULL;
				for (i = 0; e && i < pl->nhdrs && !inlined; i++) {
					const char *rel = pl->hdrs[i].rel;
					size_t rl = strlen(rel), l = (size_t)(e - s - 1);
					/* the header's path, or its end after a '/' (the
					 * aten/src/ include folder, "..." beside the file) */
					inlined = l <= rl && !strncmp(rel + rl - l, s + 1, l) &&
					          (l == rl || rel[rl - l - 1] == '/');
				}
			}
		}
		if (inlined)
			buf_add(b, nl ? "\n" : "", nl ? 1 : 0);
		else
			buf_add(b, p, n);
		p += n;
	}
}

char *try_mps_source(const struct try_plan *pl)
{
	struct buf b;
	size_t i;
	buf_init(&b);
	buf_puts(&b, "// mps-try: the source torch.mps.compile_shader compiles (the checkout's\n"
	             "// text, not rewritten: the headers inlined, each after those it includes)\n"
	             "#include <metal_stdlib>\n#define MK_TRY_HIT(n) ((void)0)\n");
	for (i = 0; i < pl->nhdrs; i++) {
		buf_printf(&b, "#line 1 \"%s\"\n", pl->hdrs[i].rel);
		add_without_includes(&b, pl, pl->hdrs[i].text);
		if (b.len && b.data[b.len - 1] != '\n')
			buf_puts(&b, "\n");
	}
	buf_printf(&b, "#line 1 \"%s\"\n", pl->metal_rel);
	add_without_includes(&b, pl, pl->source);
	if (b.len && b.data[b.len - 1] != '\n')
		buf_puts(&b, "\n");
	for (i = 0; i < pl->nregs; i++)
		buf_printf(&b, "#line %lu \"%s\"\n%s;\n", pl->regs[i].line, pl->metal_rel,
		           pl->regs[i].call);
	return b.data;
}

char *try_mps_script(const struct try_plan *pl)
{
	struct buf b;
	char *src = try_mps_source(pl);
	size_t i;
	buf_init(&b);
	buf_puts(&b,
	         "# mps-try --device mps: the registrations through torch.mps.compile_shader,\n"
	         "# the same inputs (files of DIR) and the CPU reference of ref.py\n"
	         "import json, os, sys, torch\n"
	         "d = sys.argv[1]\n"
	         "src = open(os.path.join(d, 'kernel.metal')).read()\n"
	         "lib = torch.mps.compile_shader(src)\n"
	         "m = json.load(open(os.path.join(d, 'manifest.json')))\n"
	         "def load(name, dt):\n"
	         "    raw = bytearray(open(os.path.join(d, name), 'rb').read())\n"
	         "    if dt in ('float16', 'bfloat16'):\n"
	         "        return torch.frombuffer(raw, dtype=torch.int16).view(getattr(torch, dt))\n"
	         "    if dt == 'complex64':\n"
	         "        return torch.frombuffer(raw, dtype=torch.float32).view(torch.complex64)\n"
	         "    if dt == 'complex32':\n"
	         "        return torch.frombuffer(raw, dtype=torch.int16).view(torch.float16).view(torch.complex32)\n"
	         "    return torch.frombuffer(raw, dtype=getattr(torch, dt)).clone()\n"
	         "KERNELS = {\n");
	for (i = 0; i < pl->ncases; i++) {
		const struct try_case *c = &pl->cases[i];
		const struct try_reg *r = &pl->regs[c->reg];
		/* the kernel the host runs first (one element per thread: 2.14.1's
		 * unary dense_scalar), else the dense name of the older macros */
		char *kn = r->nrun ? xstrdup(r->kernels[r->run[0]].name)
		                   : mr_kernel_name(pl->kernel, "dense",
		                                    &(struct mr_pair){r->in, r->alpha, r->out});
		buf_printf(&b, "    %zu: ('%s', %s, '%s'),\n", i, kn,
		           c->alpha_value ? c->alpha_value : "None", r->alpha ? r->alpha : "");
		free(kn);
	}
	buf_puts(&b,
	         "}\n"
	         "for c in m['cases']:\n"
	         "    k = c['case']; name, alpha, adt = KERNELS[k]\n"
	         "    a = load('r%d.a' % c['reg'], c['in']).to('mps')\n"
	         "    args = [a]\n"
	         "    if c['binary']:\n"
	         "        args.append(load('r%d.b' % c['reg'], c['in']).to('mps'))\n"
	         "    out = torch.empty(a.shape, dtype=getattr(torch, c['out']), device='mps')\n"
	         "    if alpha is not None:\n"
	         "        args.append(alpha)\n"
	         "    getattr(lib, name)(out, *args)\n"
	         "    torch.mps.synchronize()\n"
	         "    open(os.path.join(d, 'c%d.out' % k), 'wb').write(out.cpu().view(torch.uint8).numpy().tobytes())\n");
	buf_puts(&b, "# the Metal source (also written as kernel.metal):\n");
	{
		const char *p = src;
		while (*p) {
			const char *nl = strchr(p, '\n');
			size_t n = nl ? (size_t)(nl - p) : strlen(p);
			buf_printf(&b, "#   %.*s\n", (int)n, p);
			p += n + (nl ? 1 : 0);
		}
	}
	free(src);
	return b.data;
}
