/* trfunctor.c — translate.h's functor part: one overload per dtype class
 * (tr_plan_functor: the CUDA and CPU kernels of a stub read with cudakern,
 * each body translated with tr_code), the mps-try verdicts
 * (tr_plan_verdict), and the wrapping of written lines within the
 * kernel file's column limit (tr_wrap_lines).  Layer: plan; calls
 * read/cudakern, read/clangfmt, base.
 */
#include "plan/translate.h"
#include "base/diag.h"
#include "base/lex.h"
#include "read/clangfmt.h"

#include <stdlib.h>
#include <string.h>

/* ---- lines within the column limit (clangfmt.h) ---- */

/* one line L (LEN bytes, no '\n') into b, broken to fit COL */
static void wrap_line(struct buf *b, const char *l, size_t len, unsigned col,
                      unsigned cont)
{
	size_t ind = 0, s = 0, first = 1;
	char *cprefix;
	int comment;
	while (ind < len && l[ind] == ' ')
		ind++;
	comment = ind + 1 < len && l[ind] == '/' && l[ind + 1] == '/';
	if (comment) {
		size_t k = ind + 2;
		while (k < len && l[k] == ' ')
			k++;
		/* the comment's own prefix, CONT deeper */
		cprefix = xasprintf("%.*s%*s", (int)k, l, (int)cont, "");
	} else {
		cprefix = xasprintf("%*s", (int)(ind + cont), "");
	}
	while (s < len) {
		size_t pre = first ? 0 : strlen(cprefix), room, i, best = 0, bestd = 0;
		long depth = 0;
		int have = 0;
		if (pre + (len - s) <= col || !col) {
			if (!first)
				buf_puts(b, cprefix);
			buf_add(b, l + s, len - s);
			buf_puts(b, "\n");
			break;
		}
		room = col > pre ? col - pre : 1;
		/* the break candidates: a blank after an operator or a comma
		 * (code), any blank (comments); the shallowest that fits, the
		 * last of those; else the first one */
		for (i = s + (first ? ind : 0) + 1; i < len; i++) {
			char p = l[i - 1];
			int cand;
			if (!comment && (l[i] == '"' || l[i] == '\'')) {
				i = lex_skip_literal(l, len, i) - 1;
				continue;
			}
			if (l[i] == '(' || l[i] == '[')
				depth++;
			else if (l[i] == ')' || l[i] == ']')
				depth--;
			if (l[i] != ' ' || i + 1 >= len || l[i + 1] == ' ')
				continue;
			cand = comment || p == ',' || strchr("+-*/%?:&|=<>^", p) != NULL;
			if (!cand || (!comment && p == ':' && i >= 2 && l[i - 2] == ':'))
				continue;
			if (i - s > room) {
				if (!have) {
					best = i;
					have = 1;
				}
				break;
			}
			if (!have || (comment ? 1 : depth <= (long)bestd)) {
				best = i;
				bestd = (size_t)(depth < 0 ? 0 : depth);
				have = 1;
			}
		}
		if (!have) {
			if (!first)
				buf_puts(b, cprefix);
			buf_add(b, l + s, len - s);
			buf_puts(b, "\n");
			break;
		}
		if (!first)
			buf_puts(b, cprefix);
		buf_add(b, l + s, best - s);
		buf_puts(b, "\n");
		s = best + 1;
		first = 0;
	}
	free(cprefix);
}

char *tr_wrap_lines(const char *text, unsigned col, unsigned cont)
{
	struct buf b;
	const char *p = text;
	buf_init(&b);
	buf_puts(&b, "");
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		wrap_line(&b, p, l, col, cont);
		p = e ? e + 1 : p + l;
	}
	return b.data;
}

/* ---- the functor ---- */

static int rep_dtype(int cls, const struct mr_pair *p)
{
	if (cls != RG_CLS_COMPLEX && cls != RG_CLS_FLOAT &&
	    !strcmp(p->out, "float"))
		return CS_FLOAT; /* the inputs are promoted before the kernel */
	return cs_dtype_parse(p->in);
}

/* the lines of a body shown in a comment, dedented */
static void comment_body(struct buf *b, const char *shown, size_t max)
{
	const char *p = shown;
	size_t minind = (size_t)-1, nlines = 0, shownl = 0;
	/* the common indentation of the non-blank lines */
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t l = e ? (size_t)(e - p) : strlen(p), k = 0;
		while (k < l && (p[k] == ' ' || p[k] == '\t'))
			k++;
		if (k < l) {
			if (k < minind)
				minind = k;
			nlines++;
		}
		p = e ? e + 1 : p + l;
	}
	if (minind == (size_t)-1)
		minind = 0;
	p = shown;
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t l = e ? (size_t)(e - p) : strlen(p), k = 0;
		while (k < l && (p[k] == ' ' || p[k] == '\t'))
			k++;
		while (l > 0 && (p[l - 1] == ' ' || p[l - 1] == '\t' || p[l - 1] == '\r'))
			l--;
		if (k < l) {
			if (shownl == max) {
				buf_printf(b, "    //   ... (%zu more lines)\n", nlines - max);
				return;
			}
			buf_printf(b, "    //   %.*s\n", (int)(l - minind), p + minind);
			shownl++;
		}
		p = e ? e + 1 : p + strlen(p);
	}
}

static void comment_lambda(struct buf *b, const char *side,
                           const struct ck_lambda *l)
{
	char *names = cs_dtset_names(l->dtypes, ", ");
	buf_printf(b, "    // %s, %s:%lu (%s%s%s):\n", side, l->code.file,
	           l->code.line, l->call, *names ? ", for " : "", names);
	free(names);
	if (l->guard && l->code.captures && *l->code.captures && l->nouter) {
		/* a branch's lambda: the values it captures, as computed before */
		size_t i;
		buf_printf(b, "    //   captures %s, from before it:\n", l->code.captures);
		for (i = 0; i < l->nouter && i < 4; i++)
			buf_printf(b, "    //     %s\n", l->outer[i]);
	}
	comment_body(b, l->code.shown ? l->code.shown : l->code.body, 40);
}

static const struct ck_lambda *first_cand(const struct ck_kernel *k, int rep)
{
	size_t i;
	for (i = 0; k && i < k->nlambdas; i++)
		if (k->lambdas[i].dtypes & CS_BIT(rep))
			return &k->lambdas[i];
	return NULL;
}

/* the comment of a kernel's candidate FIRST for REP: its body, and when
 * it sits in a branch of a condition (ck_lambda.guard), every candidate's
 * (the other branches: the writer needs them all) */
static void comment_cands(struct buf *b, const char *side,
                          const struct ck_kernel *k, int rep,
                          const struct ck_lambda *first)
{
	size_t i, shown = 0;
	if (!first)
		return;
	if (!first->guard) {
		comment_lambda(b, side, first);
		return;
	}
	for (i = 0; i < k->nlambdas && shown < 4; i++)
		if (k->lambdas[i].dtypes & CS_BIT(rep)) {
			comment_lambda(b, side, &k->lambdas[i]);
			shown++;
		}
}

/* try the candidates of one kernel: 1 translated */
static int try_kernel(struct tr_overload *ov, const struct ck_kernel *k,
                      const char *side, int rep, const struct tr_target *t,
                      const struct tr_env *env, int *have_fail)
{
	size_t i;
	for (i = 0; k && i < k->nlambdas; i++) {
		const struct ck_lambda *l = &k->lambdas[i];
		const struct ck_code *hs;
		size_t nh;
		struct tr_out r;
		if (!(l->dtypes & CS_BIT(rep)))
			continue;
		if (l->guard) {
			/* one branch of the math: never written for all of it */
			if (!*have_fail) {
				*have_fail = 1;
				ov->side = side;
				ov->file = xstrdup(l->guard_file ? l->guard_file : l->code.file);
				ov->line = l->guard_line;
				ov->construct = xasprintf("lambdas in branches of `%s`",
				                          l->guard);
			}
			continue;
		}
		hs = ck_lambda_helpers(k, l, &nh);
		tr_code(&l->code, hs, nh, l->outer, l->nouter, t, env, &r);
		if (r.ok) {
			ov->translated = 1;
			ov->side = side;
			free(ov->file);
			ov->file = xstrdup(l->code.file);
			ov->line = l->code.line;
			free(ov->construct);
			ov->construct = NULL;
			/* the code alone: the plan says where it comes from
			 * (file:line), the kernel file gets no comment of ours */
			ov->body = xstrdup(r.text);
			ov->params[0] = r.params[0];
			ov->params[1] = r.params[1];
			ov->params[2] = r.params[2];
			r.params[0] = r.params[1] = r.params[2] = NULL;
			tr_out_free(&r);
			return 1;
		}
		if (!*have_fail) {
			*have_fail = 1;
			ov->side = side;
			ov->file = xstrdup(l->code.file);
			ov->line = r.line ? r.line : l->code.line;
			ov->construct = r.construct;
			r.construct = NULL;
		}
		tr_out_free(&r);
	}
	return 0;
}

int tr_plan_functor(struct tr_plan *tp, const char *root, const char *stub,
                    const struct cs_dtypes *cpu, int kind, const char *name,
                    const struct mr_pair *pairs, size_t n)
{
	struct ck_kernel cu, cp;
	int have_cu = 0, have_cp = 0, c;
	const struct mr_pair *ov[RG_NCLS];
	struct tr_env env;
	struct cf_style st;
	int split = 0;

	(void)name;
	memset(tp, 0, sizeof *tp);
	memset(&cu, 0, sizeof cu);
	memset(&cp, 0, sizeof cp);
	if (ck_cuda_kernel(root, stub, &cu) < 0)
		return -1;
	have_cu = 1;
	if (cu.why)
		tp->cuda_why = xstrdup(cu.why);
	if (cu.found) {
		tp->cuda_fn = xstrdup(cu.fn);
		tp->cuda_file = xstrdup(cu.def_file);
		tp->cuda_line = cu.def_line;
		tp->cuda_lambdas = cu.nlambdas;
	}
	if (cpu && cpu->found && cpu->def.file && cpu->fn) {
		if (ck_cpu_kernel(root, cpu->def.file, cpu->def.line, cpu->fn, &cp) < 0) {
			ck_kernel_free(&cu);
			return -1;
		}
		have_cp = 1;
	}
	if (tr_env_load(&env, root) != 0) {
		ck_kernel_free(&cu);
		ck_kernel_free(&cp);
		return -1;
	}
	tp->tried = 1;

	/* bool gets its own overload when its lambda is not the integers' */
	{
		const struct mr_pair *b = NULL, *in = NULL;
		size_t i;
		for (i = 0; i < n; i++) {
			if (!strcmp(pairs[i].in, "bool") && !b)
				b = &pairs[i];
			else if (!in && strcmp(pairs[i].in, "bool") &&
			         cs_dtype_parse(pairs[i].in) >= CS_LONG &&
			         cs_dtype_parse(pairs[i].in) <= CS_BYTE)
				in = &pairs[i];
		}
		if (b && in && strcmp(b->out, "float") != 0) {
			const struct ck_kernel *k = have_cu && cu.nlambdas ? &cu : &cp;
			const struct ck_lambda *lb = first_cand(k, CS_BOOL),
			                       *li = first_cand(k, rep_dtype(RG_CLS_INTEGRAL, in));
			if (lb && lb != li)
				split = 1;
		}
	}
	tp->math.split_bool = split;
	rg_overloads(pairs, n, split, ov);
	for (c = 0; c < RG_NCLS; c++) {
		struct tr_overload *o;
		struct tr_target t;
		int rep, fail = 0;
		if (!ov[c])
			continue;
		o = &tp->ov[tp->nov++];
		o->cls = c;
		o->in = ov[c]->in;
		o->out = ov[c]->out;
		t.cls = c;
		t.in = ov[c]->in;
		t.out = ov[c]->out;
		t.kind = kind;
		rep = rep_dtype(c, ov[c]);
		if (rep < 0)
			rep = CS_FLOAT;
		if (!try_kernel(o, have_cu ? &cu : NULL, "CUDA", rep, &t, &env, &fail) &&
		    !try_kernel(o, have_cp ? &cp : NULL, "CPU", rep, &t, &env, &fail)) {
			const struct ck_lambda *lc = first_cand(have_cu ? &cu : NULL, rep),
			                       *lp = first_cand(have_cp ? &cp : NULL, rep);
			struct buf b;
			buf_init(&b);
			if (!fail) {
				o->construct = xasprintf(
				    "no CUDA or CPU lambda for %s was read%s%s",
				    cs_dtype_name(rep), cu.why ? " (CUDA: " : "",
				    cu.why ? cu.why : "");
				if (cu.why) {
					char *x = xasprintf("%s)", o->construct);
					free(o->construct);
					o->construct = x;
				}
			}
			buf_printf(&b, "    // left to you by mps-migrate: %s", o->construct);
			if (o->file)
				buf_printf(&b, " at %s:%lu", o->file, o->line);
			buf_puts(&b, "\n");
			comment_cands(&b, "CUDA", have_cu ? &cu : NULL, rep, lc);
			comment_cands(&b, "CPU", have_cp ? &cp : NULL, rep, lp);
			o->body = b.data;
		}
	}
	/* the .metal file's column limit (clang-format formats it as C++) */
	cf_style_for(root, "Cpp", &st);
	tp->column = st.column;
	tp->cont = st.cont;
	for (c = 0; c < (int)tp->nov; c++) {
		struct tr_overload *o = &tp->ov[c];
		char *w = tr_wrap_lines(o->body, tp->column, tp->cont);
		free(o->body);
		o->body = w;
		if (o->translated) {
			tp->math.body[o->cls] = o->body;
			tp->math.params[o->cls][0] = o->params[0];
			tp->math.params[o->cls][1] = o->params[1];
			tp->math.params[o->cls][2] = o->params[2];
		} else {
			tp->math.note[o->cls] = o->body;
		}
	}
	if (have_cu && cu.nlambdas == 0 && (!have_cp || cp.nlambdas == 0))
		tp->why = xstrdup(cu.why ? cu.why : cp.why ? cp.why : "no lambda read");
	tr_env_free(&env);
	ck_kernel_free(&cu);
	ck_kernel_free(&cp);
	return 0;
}

void tr_plan_verdict(struct tr_plan *tp, size_t i, int verdict,
                     const char *text)
{
	struct tr_overload *o;
	if (i >= tp->nov)
		return;
	o = &tp->ov[i];
	o->verdict = verdict;
	free(o->verdict_text);
	o->verdict_text = text ? xstrdup(text) : NULL;
	if (verdict == TR_VERDICT_MISMATCH && o->translated) {
		/* the translation becomes a comment above the placeholder */
		struct buf b;
		const char *p = o->body;
		buf_init(&b);
		buf_printf(&b, "    // left to you by mps-migrate: the translation "
		               "does not match the CPU (%s):\n",
		           text ? text : "mismatch");
		while (*p) {
			const char *e = strchr(p, '\n');
			size_t l = e ? (size_t)(e - p) : strlen(p), k = 0;
			while (k < l && p[k] == ' ')
				k++;
			buf_printf(&b, "    //   %.*s\n", (int)(l - k), p + k);
			p = e ? e + 1 : p + l;
		}
		free(o->body);
		o->body = tr_wrap_lines(b.data, tp->column, tp->cont);
		free(b.data);
		o->translated = 0;
		free(o->construct);
		o->construct = xasprintf("a translation that does not match the CPU (%s)",
		                         text ? text : "mismatch");
		free(o->params[0]);
		free(o->params[1]);
		free(o->params[2]);
		o->params[0] = o->params[1] = o->params[2] = NULL;
		tp->math.body[o->cls] = NULL;
		tp->math.params[o->cls][0] = tp->math.params[o->cls][1] = NULL;
		tp->math.params[o->cls][2] = NULL;
		tp->math.note[o->cls] = o->body;
	}
}

void tr_plan_free(struct tr_plan *tp)
{
	size_t i;
	for (i = 0; i < tp->nov; i++) {
		struct tr_overload *o = &tp->ov[i];
		free(o->file);
		free(o->construct);
		free(o->body);
		free(o->params[0]);
		free(o->params[1]);
		free(o->params[2]);
		free(o->verdict_text);
	}
	free(tp->why);
	free(tp->cuda_why);
	free(tp->cuda_fn);
	free(tp->cuda_file);
	memset(tp, 0, sizeof *tp);
}
