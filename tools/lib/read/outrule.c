/* outrule.c — see outrule.h. */
#include "read/outrule.h"
#include "read/stubs.h"
#include "base/diag.h"
#include "base/lex.h"
#include "base/scan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define B(d) CS_BIT(CS_##d)

/* ---------------- B. output rule ---------------- */

const char *cs_rule_name(int rule)
{
	switch (rule) {
	case CS_RULE_SAME: return "same";
	case CS_RULE_FLOAT: return "float";
	case CS_RULE_BOOL: return "bool";
	case CS_RULE_MIXED: return "mixed";
	default: return "unknown";
	}
}

/* A builder's name and the output rule (enum cs_rule) it gives. */
struct named_rule {
	const char *name;
	int rule;
};

/* The rule of the name s[0, n) in table B (ended by a NULL name); -1 when
 * B does not hold it. */
static int table_rule(const struct named_rule *b, const char *s, size_t n)
{
	size_t i;
	for (i = 0; b[i].name; i++)
		if (lex_span_is(s, n, b[i].name))
			return b[i].rule;
	return -1;
}

static int builder_rule(const char *s, size_t n)
{
	static const struct named_rule b[] = {
		{"build_borrowing_unary_op", CS_RULE_SAME},
		{"build_unary_op", CS_RULE_SAME},
		{"build_borrowing_binary_op", CS_RULE_SAME},
		{"build_binary_op", CS_RULE_SAME},
		{"build_ternary_op", CS_RULE_SAME},
		{"build_output_borrowing_argument_owning_unary_op", CS_RULE_SAME},
		{"build_borrowing_unary_float_op", CS_RULE_FLOAT},
		{"build_unary_float_op", CS_RULE_FLOAT},
		{"build_borrowing_binary_float_op", CS_RULE_FLOAT},
		{"build_binary_float_op", CS_RULE_FLOAT},
		{"build_borrowing_unary_force_boolean_op", CS_RULE_BOOL},
		{"build_comparison_op", CS_RULE_BOOL},
		{"build_borrowing_comparison_op", CS_RULE_BOOL},
		{"build_borrowing_except_last_argument_comparison_op", CS_RULE_BOOL},
		{NULL, 0}};
	return table_rule(b, s, n);
}

struct rulex {
	const struct cs_model *m;
	int rules;            /* bit per enum cs_rule seen */
	struct buf builders;
	cs_dtset rejects;
	struct cs_loc reject_at;
};

static cs_dtset reject_dtypes(const char *t, size_t a, size_t b)
{
	cs_dtset set = 0;
	size_t i;
	for (i = a; i < b; i++) {
		if (t[i] == '"' || t[i] == '\'') {
			i = lex_skip_literal(t, b, i) - 1;
			continue;
		}
		if (t[i] == '!' && i + 1 < b && t[i + 1] == '=') {
			int d = dtype_after(t, b, i + 2);
			if (d < 0)
				d = dtype_before(t, a, i);
			if (d >= 0)
				set |= CS_BIT(d);
		} else if (t[i] == '!' && i + 1 < b) {
			size_t r = lex_skip_ws(t, b, i + 1), e;
			int neg_complex = 0;
			/* !x.is_complex() */
			e = r;
			while (e < b && (lex_idc(t[e]) || t[e] == '.' || t[e] == ':' ||
			                 t[e] == '(' || t[e] == ')' || t[e] == '-' ||
			                 t[e] == '>'))
				e++;
			{
				size_t k;
				for (k = r; k + 10 <= e; k++)
					if (lex_word_at(t, e, k, "is_complex") ||
					    lex_word_at(t, e, k, "isComplexType"))
						neg_complex = 1;
			}
			if (neg_complex)
				set |= CS_BIT(CS_COMPLEX_DOUBLE) | CS_BIT(CS_COMPLEX_FLOAT) |
				       CS_BIT(CS_COMPLEX_HALF);
		}
	}
	return set;
}

/* The output rule a TensorIteratorConfig chain in t[a, b) sets up:
 * float with .promote_integer_inputs_to_float(true), bool with
 * .declare_static_dtype(kBool) (or _and_device), else same; *config: the
 * chain names TensorIteratorConfig. */
static int config_rule(const char *t, size_t a, size_t b, int *config)
{
	size_t i;
	int rr = CS_RULE_SAME;
	for (i = a; i < b; i++) {
		if (!lex_id0(t[i]) || (i > a && lex_idc(t[i - 1])))
			continue;
		if (lex_word_at(t, b, i, "TensorIteratorConfig"))
			*config = 1;
		if (lex_word_at(t, b, i, "promote_integer_inputs_to_float")) {
			size_t q = lex_skip_ws(t, b, i + 31);
			if (q < b && t[q] == '(' &&
			    lex_word_at(t, b, lex_skip_ws(t, b, q + 1), "true"))
				rr = CS_RULE_FLOAT;
		}
		if (lex_word_at(t, b, i, "declare_static_dtype") ||
		    lex_word_at(t, b, i, "declare_static_dtype_and_device")) {
			size_t q = lex_skip_ws(t, b, lex_ident_end(t, b, i));
			if (q < b && t[q] == '(') {
				size_t e = q + 1;
				while (e < b && t[e] != ',' && t[e] != ')')
					e++;
				if (dtype_span(t + q + 1, e - q - 1) == CS_BOOL)
					rr = CS_RULE_BOOL;
			}
		}
	}
	return rr;
}

static void rule_tok(void *ctx, const struct cs_tok *k)
{
	struct rulex *x = ctx;
	const char *s = k->t + k->s;
	size_t n = k->e - k->s;
	int r;
	if (!k->call || k->scope || k->member)
		return;
	r = builder_rule(s, n);
	if (r >= 0) {
		char *w = xstrndup(s, n);
		x->rules |= 1 << r;
		if (!x->builders.data || !strstr(x->builders.data, w)) {
			if (x->builders.len)
				buf_puts(&x->builders, ", ");
			buf_puts(&x->builders, w);
		}
		free(w);
		return;
	}
	if (lex_span_is(s, n, "build") && k->close < k->tn) {
		/* build(TensorIteratorConfig()...) */
		int config = 0;
		int rr = config_rule(k->t, k->open, k->close, &config);
		if (!config)
			return;
		x->rules |= 1 << rr;
		if (!x->builders.data ||
		    !strstr(x->builders.data, "build(TensorIteratorConfig())")) {
			if (x->builders.len)
				buf_puts(&x->builders, ", ");
			buf_puts(&x->builders, "build(TensorIteratorConfig())");
		}
		return;
	}
	if ((lex_span_is(s, n, "TORCH_CHECK") || lex_span_is(s, n, "TORCH_CHECK_TYPE")) &&
	    k->close < k->tn) {
		/* the condition: the first argument */
		size_t e = k->open + 1;
		long depth = 0;
		cs_dtset rj;
		while (e < k->close) {
			char c = k->t[e];
			if (c == '"' || c == '\'') {
				e = lex_skip_literal(k->t, k->close, e);
				continue;
			}
			if (c == '(')
				depth++;
			else if (c == ')')
				depth--;
			else if (c == ',' && depth == 0)
				break;
			e++;
		}
		rj = reject_dtypes(k->t, k->open + 1, e);
		if (rj) {
			if (!x->rejects)
				x->reject_at = loc_of(x->m, k->file, k->loc);
			x->rejects |= rj;
		}
	}
}

/* The dtype set of an `if` condition t[a, b) made of ||-joined dtype
 * tests (outrule.h cs_output_rule); 0 when it is not one. */
static cs_dtset cond_dtypes(const char *t, size_t a, size_t b)
{
	cs_dtset set = 0;
	size_t i = a;
	a = lex_skip_ws(t, b, a);
	b = lex_back_ws(t, a, b);
	while (a < b && t[a] == '(' && lex_match_close(t, b, a, '(', ')') == b - 1) {
		a = lex_skip_ws(t, b, a + 1);
		b = lex_back_ws(t, a, b - 1);
	}
	/* split on top-level || */
	i = a;
	while (i <= b) {
		size_t j = i, e;
		long depth = 0;
		cs_dtset one = 0;
		while (j < b) {
			if (t[j] == '(')
				depth++;
			else if (t[j] == ')')
				depth--;
			else if (depth == 0 && t[j] == '|' && j + 1 < b && t[j + 1] == '|')
				break;
			else if (depth == 0 && t[j] == '&' && j + 1 < b && t[j + 1] == '&')
				return 0;
			j++;
		}
		e = j;
		{
			size_t s = lex_skip_ws(t, e, i), k;
			if (s < e && t[s] == '!')
				return 0;
			one = eq_dtypes(t, s, e);
			for (k = s; k < e && !one; k++) {
				if (lex_word_at(t, e, k, "isIntegralType")) {
					size_t o = lex_skip_ws(t, e, k + 14), c;
					if (o < e && t[o] == '(') {
						c = lex_match_close(t, e, o, '(', ')');
						one = CS_T_INTEGRAL | CS_T_UNSIGNED;
						{
							size_t q = lex_back_ws(t, o, c);
							if (q >= o + 4 && lex_word_at(t, c, q - 4, "true"))
								one |= B(BOOL);
						}
					}
				} else if (lex_word_at(t, e, k, "isFloatingType") ||
				           lex_word_at(t, e, k, "is_floating_point")) {
					one = CS_T_FLOATING | B(HALF) | B(BFLOAT16);
				} else if (lex_word_at(t, e, k, "isComplexType") ||
				           lex_word_at(t, e, k, "is_complex")) {
					one = CS_T_COMPLEX | B(COMPLEX_HALF);
				}
			}
		}
		if (!one)
			return 0;
		set |= one;
		i = e + 2;
		if (e >= b)
			break;
	}
	return set;
}

struct stubseen {
	const struct cs_priv *p;
	int found;
};

static void stub_tok(void *ctx, const struct cs_tok *k)
{
	struct stubseen *x = ctx;
	if (!k->member && !k->scope && is_stub_name(x->p, k->t + k->s, k->e - k->s))
		x->found = 1;
}

static int span_has_stub(const struct cs_model *m, const struct cs_def *d,
                         size_t a, size_t b)
{
	struct cs_walker w;
	struct stubseen x;
	x.p = P(m);
	x.found = 0;
	w.m = m;
	w.file = d->file;
	w.fn = stub_tok;
	w.ctx = &x;
	w.expand = 1;
	w.tids = 0;
	w.site = a;
	walk_text(&w, cs_def_text(m, d), d->tn, a, b, d->inv, 0, NULL);
	return x.found;
}


static void before_stub(const struct cs_model *m, const struct cs_def *d,
                        struct cs_outrule *out)
{
	const char *t = cs_def_text(m, d);
	size_t a = d->bs + 1, b = d->be < d->tn ? d->be : d->tn, i;
	for (i = a; i < b; i++) {
		size_t o, c, then_e, e2;
		cs_dtset set;
		int then_stub, rest_stub, returns = 0;
		if (t[i] == '"' || t[i] == '\'') {
			i = lex_skip_literal(t, b, i) - 1;
			continue;
		}
		if (!lex_word_at(t, b, i, "if"))
			continue;
		o = lex_skip_ws(t, b, i + 2);
		if (o >= b || t[o] != '(')
			continue;
		c = lex_match_close(t, b, o, '(', ')');
		if (c >= b)
			return;
		set = cond_dtypes(t, o + 1, c);
		if (!set)
			continue;
		then_e = stmt_end(t, b, c + 1);
		then_stub = span_has_stub(m, d, c + 1, then_e);
		if (then_stub)
			continue;
		{
			size_t k;
			for (k = c + 1; k < then_e; k++)
				if (lex_word_at(t, then_e, k, "return"))
					returns = 1;
		}
		e2 = lex_skip_ws(t, b, then_e);
		if (lex_word_at(t, b, e2, "else"))
			rest_stub = span_has_stub(m, d, e2 + 4, stmt_end(t, b, e2 + 4));
		else
			rest_stub = returns && span_has_stub(m, d, then_e, b);
		if (!rest_stub)
			continue;
		out->before_stub |= set;
		if (!out->before_at.file)
			out->before_at = loc_of(m, d->file, d->inv == NOSZ ? i : d->inv);
	}
}

int cs_output_rule(const struct cs_model *m, const char *op,
                   const char *kernel, struct cs_outrule *out)
{
	const struct cs_priv *p = P(m);
	const char *dot = op ? strchr(op, '.') : NULL;
	char *base = op ? (dot ? xstrndup(op, (size_t)(dot - op)) : xstrdup(op))
	                : xstrdup("");
	const struct cs_ilist *l = NULL;
	long pick[32];
	size_t np = 0, i;
	struct rulex x;
	struct buf why;
	char *key;

	memset(out, 0, sizeof *out);
	if (!m->have_sources) {
		out->why = xstrdup("no C++ sources in this tree (" CS_NATIVE_REL
		                   " holds no .cpp file)");
		free(base);
		return out->rule;
	}
	buf_init(&why);
	/* the meta function */
	key = dot ? xasprintf("%s_%s", base, dot + 1) : xstrdup(base);
	l = imap_get(&p->metas, key, strlen(key));
	for (i = 0; l && i < l->n && np < 32; i++)
		pick[np++] = l->v[i];
	if (!np && !dot) {
		/* the overloads: FUNC2(base, X) and FUNC(base_X) with X an
		 * overload name (starting with an upper-case letter) */
		size_t k;
		l = imap_get(&p->metabase, base, strlen(base));
		for (i = 0; l && i < l->n && np < 32; i++)
			pick[np++] = l->v[i];
		for (k = 0; k < p->metas.keys.cap && np < 32; k++) {
			const char *kk = p->metas.keys.keys[k];
			size_t bl = strlen(base);
			if (kk && strncmp(kk, base, bl) == 0 && kk[bl] == '_' &&
			    kk[bl + 1] >= 'A' && kk[bl + 1] <= 'Z') {
				const struct cs_ilist *l2 = &p->metas.lists[p->metas.keys.vals[k]];
				size_t j;
				for (j = 0; j < l2->n && np < 32; j++) {
					size_t z;
					int dup = 0;
					for (z = 0; z < np; z++)
						if (pick[z] == l2->v[j])
							dup = 1;
					if (!dup)
						pick[np++] = l2->v[j];
				}
			}
		}
	}
	free(key);
	memset(&x, 0, sizeof x);
	x.m = m;
	buf_init(&x.builders);
	for (i = 0; i < np; i++)
		walk_def(m, &p->defs[pick[i]], rule_tok, &x);
	if (np) {
		const struct cs_def *d = &p->defs[pick[0]];
		out->at = loc_of(m, d->file, d->at);
		out->meta = d->overload ? xasprintf("%s(%s, %s)", d->hmacro, d->name,
		                                    d->overload)
		                        : xasprintf("%s(%s)", d->hmacro, d->name);
		out->rejects = x.rejects;
		out->reject_at = x.reject_at;
		if (x.rules == 0)
			out->rule = CS_RULE_UNKNOWN;
		else if ((x.rules & (x.rules - 1)) != 0)
			out->rule = CS_RULE_MIXED;
		else
			out->rule = x.rules & (1 << CS_RULE_SAME)    ? CS_RULE_SAME
			            : x.rules & (1 << CS_RULE_FLOAT) ? CS_RULE_FLOAT
			            : x.rules & (1 << CS_RULE_BOOL)  ? CS_RULE_BOOL
			                                             : CS_RULE_UNKNOWN;
		out->builder = x.builders.data ? x.builders.data : xstrdup("");
		buf_printf(&why, "%s (%s:%lu%s%s) calls %s: %s", out->meta, out->at.file,
		           out->at.line, d->wmacro ? ", from " : "",
		           d->wmacro ? d->wmacro : "",
		           *out->builder ? out->builder : "no known builder",
		           cs_rule_name(out->rule));
		if (np > 1)
			buf_printf(&why, " (%lu meta functions read)", (unsigned long)np);
	} else {
		free(x.builders.data);
		buf_printf(&why, "no structured meta function of %s", op ? op : "");
	}
	/* handled before the stub */
	{
		char *kname = kernel ? xstrdup(kernel) : xasprintf("%s_out", base);
		const struct cs_ilist *kl = imap_get(&p->defname, kname, strlen(kname));
		if (!kl && !kernel) {
			free(kname);
			kname = xstrdup(base);
			kl = imap_get(&p->defname, kname, strlen(kname));
		}
		for (i = 0; kl && i < kl->n; i++) {
			const struct cs_def *d = &p->defs[kl->v[i]];
			if (p->files[d->file].cpu || !ns_is(d->ns, "at::native") || d->owner)
				continue;
			if (!out->impl)
				out->impl = xstrdup(kname);
			before_stub(m, d, out);
		}
		free(kname);
		if (out->before_stub) {
			char *names = cs_dtset_names(out->before_stub, ", ");
			buf_printf(&why, "; %s handles %s before the stub (%s:%lu)",
			           out->impl, names, out->before_at.file,
			           out->before_at.line);
			free(names);
		}
	}
	out->why = why.data;
	free(base);
	return out->rule;
}

void cs_outrule_free(struct cs_outrule *r)
{
	free(r->meta);
	free(r->builder);
	free(r->impl);
	free(r->why);
	memset(r, 0, sizeof *r);
}

/* ---------------- B. the TensorIterator of a shared kernel ---------------- */

/* The TensorIterator builders of TensorIterator.h (2.6.0) a shared kernel
 * that is not structured calls: static members (TensorIterator::
 * unary_float_op) and, as a meta function does, build_* on an iterator. */
static int iter_builder_rule(const char *s, size_t n)
{
	static const struct named_rule b[] = {
		{"unary_op", CS_RULE_SAME},
		{"borrowing_unary_op", CS_RULE_SAME},
		{"binary_op", CS_RULE_SAME},
		{"borrowing_binary_op", CS_RULE_SAME},
		{"nullary_op", CS_RULE_SAME},
		{"borrowing_nullary_op", CS_RULE_SAME},
		{"unary_float_op", CS_RULE_FLOAT},
		{"binary_float_op", CS_RULE_FLOAT},
		{"comparison_op", CS_RULE_BOOL},
		{NULL, 0}};
	return table_rule(b, s, n);
}

/* the arguments of the call t[open..close] from index `from` on,
 * ", "-joined (malloc'd); NULL when there are none */
static char *args_from(const char *t, size_t open, size_t close, size_t from)
{
	size_t na, i;
	char **args = lex_split_args(t, open, close, &na);
	struct buf b;
	buf_init(&b);
	for (i = from; i < na; i++)
		buf_printf(&b, "%s%s", i > from ? ", " : "", args[i]);
	lex_strv_free(args, na);
	if (!b.len) {
		buf_free(&b);
		return NULL;
	}
	return b.data;
}

/* the stub token k (named stub) passed as a value: the arguments that
 * follow it in the call around it (unary_op_impl_float_out(result, self,
 * logit_stub, Scalar(...)) gives "Scalar(...)"); NULL when none */
static char *args_after_passed(const struct cs_tok *k, const char *stub)
{
	const char *t = k->t;
	size_t i = k->s, open, close, na, j, from = NOSZ;
	long depth = 0;
	char **args;
	while (i > 0) {
		i--;
		if (t[i] == ')')
			depth++;
		else if (t[i] == '(' && depth-- == 0)
			break;
		else if (t[i] == ';' || t[i] == '{' || t[i] == '}')
			return NULL;
	}
	if (t[i] != '(')
		return NULL;
	open = i;
	close = lex_match_close(t, k->tn, open, '(', ')');
	if (close >= k->tn)
		return NULL;
	args = lex_split_args(t, open, close, &na);
	for (j = 0; j < na && from == NOSZ; j++) {
		size_t e = strlen(args[j]), b = e;
		while (b > 0 && lex_idc(args[j][b - 1]))
			b--;
		if (strcmp(args[j] + b, stub) == 0)
			from = j + 1;
	}
	lex_strv_free(args, na);
	return from == NOSZ ? NULL : args_from(t, open, close, from);
}

struct irx {
	struct disc d;        /* first member: disc_resolve takes it */
	struct cs_iterrule *out;
	const char *stub;
	int rule_depth;       /* depth of the builder found, -1 none */
	int stub_depth;       /* of the stub's reach found, -1 none */
};

static void ir_tok(void *ctx, const struct cs_tok *k)
{
	struct irx *x = ctx;
	const struct cs_priv *p = P(x->d.m);
	const struct cs_def *cur = &p->defs[x->d.cur];
	const char *s = k->t + k->s;
	size_t n = k->e - k->s;
	int r;
	char *q;

	if (x->stub && x->stub_depth < 0 && lex_span_is(s, n, x->stub) &&
	    !k->member && !k->scope) {
		char *a = k->call && k->close < k->tn
		              ? args_from(k->t, k->open, k->close, 2)
		              : args_after_passed(k, x->stub);
		x->stub_depth = x->d.depth;
		x->out->stub_args = a;
		x->out->stub_at = loc_of(x->d.m, k->file, k->loc);
		return;
	}
	if (!k->call || k->scope)
		return;
	if (x->rule_depth < 0) {
		char *qq = tok_qual(k);
		size_t ql = strlen(qq);
		int stat = ql >= 14 && strcmp(qq + ql - 14, "TensorIterator") == 0;
		int config = 0;
		free(qq);
		r = stat ? iter_builder_rule(s, n) : -1;
		if (r < 0 && !k->member && !stat)
			r = builder_rule(s, n);
		if (r < 0 && !k->member && lex_span_is(s, n, "TensorIteratorConfig")) {
			/* the chain up to the end of its statement; one that lets
			 * operands differ (check_all_same_dtype(false)) and neither
			 * promotes nor declares a dtype leaves the output's dtype to
			 * the caller's out tensor (complex_out, logical_not_out) */
			size_t e = stmt_end(k->t, k->tn, k->s), i2;
			r = config_rule(k->t, k->s, e, &config);
			for (i2 = k->s; r == CS_RULE_SAME && i2 < e; i2++)
				if (lex_word_at(k->t, e, i2, "check_all_same_dtype")) {
					size_t o = lex_skip_ws(k->t, e, i2 + 20);
					if (o < e && k->t[o] == '(' &&
					    lex_word_at(k->t, e, lex_skip_ws(k->t, e, o + 1), "false"))
						r = CS_RULE_MIXED;
				}
		}
		if (r >= 0) {
			x->rule_depth = x->d.depth;
			x->out->rule = r;
			x->out->builder = stat ? xasprintf("TensorIterator::%.*s", (int)n, s)
			                  : config ? xstrdup("TensorIteratorConfig()...build()")
			                           : xstrndup(s, n);
			x->out->in = xstrdup(cur->name);
			x->out->at = loc_of(x->d.m, k->file, k->loc);
			return;
		}
	}
	if (k->member || lex_is_keyword(s, n) || lex_starts_with(s, n, "AT_DISPATCH"))
		return;
	q = tok_qual(k);
	disc_resolve(&x->d, s, n, q);
	free(q);
}

int cs_iter_rule(const struct cs_model *m, const char *kernel,
                 const char *stub, struct cs_iterrule *out)
{
	const struct cs_priv *p = P(m);
	const struct cs_ilist *l;
	struct cs_discovery scratch;
	struct irx x;
	size_t i;

	memset(out, 0, sizeof *out);
	if (!m->have_sources || !kernel) {
		out->why = xstrdup("no C++ sources in this tree (" CS_NATIVE_REL
		                   " holds no .cpp file)");
		return out->rule;
	}
	memset(&x, 0, sizeof x);
	memset(&scratch, 0, sizeof scratch);
	x.d.m = m;
	x.d.out = &scratch;
	x.d.here = DEV_ANY;
	x.out = out;
	x.stub = stub;
	x.rule_depth = x.stub_depth = -1;
	l = imap_get(&p->defname, kernel, strlen(kernel));
	for (i = 0; l && i < l->n; i++) {
		const struct cs_def *d = &p->defs[l->v[i]];
		if (p->files[d->file].cpu || !ns_is(d->ns, "at::native") || d->owner)
			continue;
		disc_push(&x.d, l->v[i], 0);
	}
	for (i = 0; i < x.d.qn; i++) {
		x.d.cur = x.d.q[i];
		x.d.depth = x.d.qd[i];
		if (x.d.depth > CS_CPU_DEPTH ||
		    (x.rule_depth >= 0 && x.d.depth > x.rule_depth &&
		     (!stub || x.stub_depth >= 0)))
			break;
		walk_def(m, &p->defs[x.d.cur], ir_tok, &x);
	}
	free(x.d.q);
	free(x.d.qd);
	vis_free(&x.d.vis);
	cs_discovery_free(&scratch);
	if (x.rule_depth >= 0)
		out->why = xasprintf("%s%s%s (%s:%lu) builds its iterator with %s: %s%s",
		                     kernel, strcmp(kernel, out->in) ? " reaches " : "",
		                     strcmp(kernel, out->in) ? out->in : "",
		                     out->at.file, out->at.line, out->builder,
		                     cs_rule_name(out->rule),
		                     out->rule == CS_RULE_MIXED
		                         ? " (check_all_same_dtype(false): the out "
		                           "tensor's dtype, not the inputs')"
		                         : "");
	else
		out->why = xasprintf("%s builds no TensorIterator that could be read "
		                     "(within %d calls)", kernel, CS_CPU_DEPTH);
	return out->rule;
}

void cs_iterrule_free(struct cs_iterrule *r)
{
	free(r->builder);
	free(r->in);
	free(r->stub_args);
	free(r->why);
	memset(r, 0, sizeof *r);
}
