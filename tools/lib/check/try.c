/* try.c — mps-try's plan: registrations, the functor and what it uses,
 * the headers, the dense kernel templates, the schema; the texts of the
 * harness, the manifest and the reference script.  See try.h. */
#include "check/try.h"
#include "base/cli.h"
#include "base/diag.h"
#include "base/lex.h"
#include "base/scan.h"
#include "base/walk.h"
#include "read/metalreg.h"
#include "read/nfyaml.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static int ident_start(int c) { return isalpha(c) || c == '_'; }
static int ident_char(int c) { return isalnum(c) || c == '_'; }

static void note(struct try_plan *pl, const char *fmt, const char *a,
                 const char *b)
{
	pl->notes = xrealloc(pl->notes, (pl->nnotes + 1) * sizeof *pl->notes);
	pl->notes[pl->nnotes++] = xasprintf(fmt, a, b ? b : "");
}

/* ------------------------------------------------------------------ */
/* top-level items of a kernel file                                    */

enum item_kind { IT_DIRECTIVE, IT_DECL, IT_REGCALL };

struct item {
	size_t a, b;       /* extent in the file (b exclusive) */
	int kind;
	char *declares;    /* the name it declares, or NULL */
	int keep;          /* always kept (#include, using, conditionals) */
	int selected;
};

static size_t skip_ws(const char *t, size_t n, size_t i)
{
	while (i < n && isspace((unsigned char)t[i]))
		i++;
	return i;
}

/* the end of the balanced <...> whose '<' is t[i] (index after '>') */
static size_t skip_angles(const char *t, size_t n, size_t i)
{
	int depth = 0, paren = 0;
	for (; i < n; i++) {
		char c = t[i];
		if (c == '(')
			paren++;
		else if (c == ')')
			paren--;
		else if (paren == 0 && c == '<')
			depth++;
		else if (paren == 0 && c == '>') {
			if (--depth == 0)
				return i + 1;
		} else if (c == ';' || c == '{')
			return i;
	}
	return n;
}

/* the name an item (t[a, b), masked) declares */
static char *decl_name(const char *t, size_t a, size_t b)
{
	size_t i = skip_ws(t, b, a), last_s = 0, last_e = 0;
	int paren = 0;

	if (b - i > 8 && strncmp(t + i, "template", 8) == 0 &&
	    !ident_char((unsigned char)t[i + 8])) {
		i = skip_ws(t, b, i + 8);
		if (i < b && t[i] == '<')
			i = skip_angles(t, b, i);
	}
	/* struct/class/union/enum NAME, using NAME = */
	{
		size_t j = skip_ws(t, b, i);
		static const char *const kw[] = {"struct", "class", "union", "enum",
		                                 "using", NULL};
		size_t k;
		for (k = 0; kw[k]; k++) {
			size_t l = strlen(kw[k]);
			if (b - j > l && strncmp(t + j, kw[k], l) == 0 &&
			    !ident_char((unsigned char)t[j + l])) {
				size_t s = skip_ws(t, b, j + l), e = s;
				if (k == 3 && b - s > 5 && strncmp(t + s, "class", 5) == 0)
					s = e = skip_ws(t, b, s + 5);
				while (e < b && ident_char((unsigned char)t[e]))
					e++;
				if (e > s && !(k == 4 && e - s == 9 &&
				               strncmp(t + s, "namespace", 9) == 0))
					return xstrndup(t + s, e - s);
				return NULL;
			}
		}
	}
	/* a function (the identifier before the first '(') or a variable (the
	 * last identifier before '=', '[', '{' or ';') */
	for (; i < b; i++) {
		char c = t[i];
		if (c == '"' || c == '\'') {
			i = lex_skip_literal(t, b, i) - 1;
			continue;
		}
		if (c == '<' && paren == 0 && last_e == i) {
			/* template arguments of a type: skipped */
			size_t e = skip_angles(t, b, i);
			i = e - 1;
			continue;
		}
		if (ident_start((unsigned char)c)) {
			size_t e = i;
			while (e < b && ident_char((unsigned char)t[e]))
				e++;
			last_s = i;
			last_e = e;
			i = e - 1;
			continue;
		}
		if (c == '(' || c == '=' || c == '[' || c == '{' || c == ';')
			break;
	}
	if (last_e > last_s)
		return xstrndup(t + last_s, last_e - last_s);
	return NULL;
}

/* split the masked text into top-level items */
static void items_of(const char *m, size_t n, struct item **out, size_t *nout)
{
	struct item *v = NULL;
	size_t nv = 0, cap = 0, i = 0;

	while (i < n) {
		size_t a;
		i = skip_ws(m, n, i);
		if (i >= n)
			break;
		a = i;
		if (m[i] == '#') {
			size_t e = lex_directive_end(m, n, i);
			GROW(v, nv, cap);
			memset(&v[nv], 0, sizeof v[nv]);
			v[nv].a = a;
			v[nv].b = e;
			v[nv].kind = IT_DIRECTIVE;
			{
				size_t j = skip_ws(m, e, i + 1);
				if (e - j >= 6 && strncmp(m + j, "define", 6) == 0) {
					size_t s = skip_ws(m, e, j + 6), q = s;
					while (q < e && ident_char((unsigned char)m[q]))
						q++;
					v[nv].declares = xstrndup(m + s, q - s);
				} else
					v[nv].keep = 1; /* include, if/endif, pragma */
			}
			nv++;
			i = e;
			continue;
		}
		{
			int depth = 0, paren = 0;
			size_t j = i;
			for (; j < n; j++) {
				char c = m[j];
				if (c == '"' || c == '\'') {
					j = lex_skip_literal(m, n, j) - 1;
					continue;
				}
				if (c == '#' && depth == 0 && paren == 0) {
					/* a directive inside an unfinished item: stop here */
					size_t ls = text_line_start(m, j);
					if (text_blank(m, ls, j))
						break;
				}
				if (c == '(')
					paren++;
				else if (c == ')')
					paren--;
				else if (c == '{')
					depth++;
				else if (c == '}') {
					if (--depth == 0 && paren == 0) {
						size_t k = skip_ws(m, n, j + 1);
						j = k < n && m[k] == ';' ? k + 1 : j + 1;
						break;
					}
				} else if (c == ';' && depth == 0 && paren == 0) {
					j++;
					break;
				}
			}
			if (j > n)
				j = n;
			if (j == i)
				j = i + 1;
			GROW(v, nv, cap);
			memset(&v[nv], 0, sizeof v[nv]);
			v[nv].a = a;
			v[nv].b = j;
			v[nv].kind = IT_DECL;
			{
				size_t s = skip_ws(m, j, a);
				if (j - s > 5 && strncmp(m + s, "using", 5) == 0 &&
				    !ident_char((unsigned char)m[s + 5])) {
					size_t q = skip_ws(m, j, s + 5);
					if (j - q > 9 && strncmp(m + q, "namespace", 9) == 0)
						v[nv].keep = 1;
				}
			}
			if (!v[nv].keep)
				v[nv].declares = decl_name(m, a, j);
			nv++;
			i = j;
		}
	}
	*out = v;
	*nout = nv;
}

/* ------------------------------------------------------------------ */
/* the kernels a registration runs                                     */

/* what the driver can pass a kernel of registration R: its parameters,
 * blanks squeezed as metalreg gives them, must be the output pointer,
 * R's inputs (one, binary kinds two), the alpha when R has one, an
 * optional `constant uint& numel` (the ILP kernels: each thread computes
 * a run of elements, threads past numel nothing), and the thread index.
 * Returns 0 (one element per thread), 1 (with numel), or -1 (anything
 * else: strides, byte offsets, runtime dtypes, a scalar operand). */
static int run_shape(const struct try_reg *r, const struct mr_inst *k)
{
	size_t i = 0, nin = (size_t)mr_kind_arity(r->kind), j;
	char *in = xasprintf("constant %s*", r->in);
	char *al = r->alpha ? xasprintf("constant %s&", r->alpha) : NULL;
	int numel = 0, ok = 1;
	const char *const *p = (const char *const *)k->params;
	size_t n = k->nparams;

	if (n < 1 || strncmp(p[0], "device", 6) != 0 || !strchr(p[0], '*') ||
	    strstr(p[0], "void") || !strncmp(p[0], "device const", 12))
		ok = 0;
	i = 1;
	for (j = 0; ok && j < nin; j++, i++)
		if (i >= n || strncmp(p[i], in, strlen(in)) != 0)
			ok = 0;
	if (ok && al) {
		if (i < n && !strncmp(p[i], al, strlen(al)))
			i++;
		else
			ok = 0;
	}
	if (ok && i < n && !strncmp(p[i], "constant uint&", 14)) {
		numel = 1;
		i++;
	}
	if (ok && !(i + 1 == n && !strncmp(p[i], "uint ", 5)))
		ok = 0;
	free(in);
	free(al);
	return ok ? numel : -1;
}

/* the kernels of R that the driver runs: R->run[0] the one compared with
 * the CPU (one element per thread, a "dense..." variant first), then the
 * others it can run (at most TRY_MAX_RUNS in all) */
static void choose_runs(struct try_reg *r)
{
	size_t i;
	int pass;
	r->nrun = 0;
	for (pass = 0; pass < 4; pass++)
		for (i = 0; i < r->nkernels && r->nrun < TRY_MAX_RUNS; i++) {
			int sh = run_shape(r, &r->kernels[i]), dense =
			    !strncmp(r->kernels[i].variant, "dense", 5), seen = 0;
			size_t j;
			if (sh < 0)
				continue;
			for (j = 0; j < r->nrun; j++)
				if (r->run[j] == i)
					seen = 1;
			if (seen)
				continue;
			/* pass 0: dense, one element per thread; 1: any one
			 * element per thread; 2: dense with numel; 3: the rest */
			if ((pass == 0 && sh == 0 && dense) || (pass == 1 && sh == 0) ||
			    (pass == 2 && dense) || pass == 3) {
				r->run[r->nrun] = i;
				r->run_numel[r->nrun] = sh;
				r->nrun++;
			}
		}
}

/* ------------------------------------------------------------------ */
/* headers                                                             */

static int safe_rel(const char *r)
{
	return r[0] && r[0] != '/' && !strstr(r, "..");
}

void try_includes(const char *text, size_t len, char ***names, char **kinds,
                  unsigned long **lines, size_t *n)
{
	char *m = mask_code(text, len, LANG_C);
	size_t i = 0, cap = 0, counted = 0;
	unsigned long line = 1;
	*names = NULL;
	*kinds = NULL;
	if (lines)
		*lines = NULL;
	*n = 0;
	while (i < len) {
		size_t j = skip_ws(m, len, i);
		if (j < len && m[j] == '#') {
			size_t e = lex_directive_end(m, len, j), k = skip_ws(m, e, j + 1);
			for (; counted < j; counted++)
				line += m[counted] == '\n';
			if (e - k > 7 && strncmp(m + k, "include", 7) == 0) {
				size_t s = skip_ws(m, e, k + 7);
				char close = s < e && m[s] == '<' ? '>' : '"';
				if (s < e && (m[s] == '<' || m[s] == '"')) {
					const char *q = memchr(m + s + 1, close, e - s - 1);
					if (q) {
						if (*n == cap) {
							cap = cap ? cap * 2 : 8;
							*names = xrealloc(*names, cap * sizeof **names);
							*kinds = xrealloc(*kinds, cap);
							if (lines)
								*lines = xrealloc(*lines, cap * sizeof **lines);
						}
						(*names)[*n] = xstrndup(m + s + 1, (size_t)(q - m - s - 1));
						(*kinds)[*n] = m[s];
						if (lines)
							(*lines)[*n] = line;
						(*n)++;
					}
				}
			}
			i = e;
		}
		i = text_next_line(m, len, i);
	}
	free(m);
}

static void includes_of(const char *text, size_t len, char ***names,
                        char **kinds, size_t *n)
{
	try_includes(text, len, names, kinds, NULL, n);
}

/* the checkout file an `#include` of NAME (KIND '<' or '"') in the file
 * FROM (relative to ROOT) names, as the compiler finds it with the
 * contract's include path (-I<TMP> -I<TMP>/aten/src over a copy of the
 * checkout's layout; "..." looks beside FROM first): malloc'd, relative
 * to ROOT, or NULL when it is none of the checkout's files (a system or
 * host-layer header such as <metal_stdlib>) */
char *try_include_resolve(const char *root, const char *from, const char *name,
                          char kind)
{
	static const char *const dirs[] = {"", "aten/src/", NULL};
	const char *sl = strrchr(from, '/');
	size_t d;
	if (!safe_rel(name))
		return NULL;
	if (kind == '"') {
		char *c = sl ? xasprintf("%.*s/%s", (int)(sl - from), from, name)
		             : xstrdup(name);
		if (walk_is_file(root, c))
			return c;
		free(c);
	}
	for (d = 0; dirs[d]; d++) {
		char *c = xasprintf("%s%s", dirs[d], name);
		if (walk_is_file(root, c))
			return c;
		free(c);
	}
	return NULL;
}

/* header REL of the checkout, after the headers it includes (so that the
 * list is in the order a preprocessor first meets them: each header after
 * those it needs), rewritten for the host; returns -1 after a diagnostic
 * when one cannot be read */
/* the header try_plan_build reads from the options (try_opts.hdr_rel)
 * while it runs, else NULL */
static const struct try_opts *planned_hdr;

int try_header_add(struct try_header **hdrs, size_t *nhdrs, const char *root,
                   const char *rel, struct mr_defs *ms, char ***seen, size_t *nseen)
{
	char *path, *data, *rw, **names, *kinds;
	size_t len, rwl, n, i;
	int rc = 0;

	for (i = 0; i < *nseen; i++)
		if (!strcmp((*seen)[i], rel))
			return 0;
	*seen = xrealloc(*seen, (*nseen + 1) * sizeof **seen);
	(*seen)[(*nseen)++] = xstrdup(rel);
	path = xasprintf("%s/%s", root, rel);
	if (planned_hdr && !strcmp(planned_hdr->hdr_rel, rel)) {
		/* mps-migrate's planned text of the header */
		data = xmalloc(planned_hdr->hdr_len + 1);
		memcpy(data, planned_hdr->hdr_text, planned_hdr->hdr_len);
		data[planned_hdr->hdr_len] = '\0';
		len = planned_hdr->hdr_len;
	} else if (read_source_file(path, &data, &len) != 0) {
		free(path);
		return -1;
	}
	free(path);
	includes_of(data, len, &names, &kinds, &n);
	for (i = 0; i < n; i++) {
		char *cand = try_include_resolve(root, rel, names[i], kinds[i]);
		if (cand && rc == 0)
			rc = try_header_add(hdrs, nhdrs, root, cand, ms, seen, nseen);
		free(cand);
		free(names[i]);
	}
	free(names);
	free(kinds);
	rw = try_rewrite(data, len, &rwl);
	if (ms)
		mr_defs_add(ms, data, len);
	*hdrs = xrealloc(*hdrs, (*nhdrs + 1) * sizeof **hdrs);
	(*hdrs)[*nhdrs].rel = xstrdup(rel);
	(*hdrs)[*nhdrs].text = data;
	(*hdrs)[*nhdrs].host = rw;
	(*nhdrs)++;
	return rc;
}

/* ------------------------------------------------------------------ */
/* the schema                                                          */

static int type_is(const char *t, const char *base)
{
	size_t l = strlen(base);
	return strncmp(t, base, l) == 0 && (t[l] == '\0' || t[l] == '?');
}

static int is_tensor_type(const char *t)
{
	return strncmp(t, "Tensor", 6) == 0 && (t[6] == '\0' || t[6] == '(');
}

static int is_scalar_type(const char *t)
{
	return type_is(t, "Scalar") || type_is(t, "int") || type_is(t, "float") ||
	       type_is(t, "bool");
}

/* is NAME (n bytes) the name of one of the --arg NAME=VALUE options */
static int arg_given(const struct try_opts *o, const char *name)
{
	size_t i, l = strlen(name);
	for (i = 0; i < o->nargs; i++)
		if (!strncmp(o->args[i], name, l) && o->args[i][l] == '=')
			return 1;
	return 0;
}

/* choose the functional overload of base BASE whose Tensor inputs fit the
 * kernel kind and that has every argument --arg names (an argument with
 * no default that is no Tensor or scalar is then acceptable when --arg
 * gives it: div.Tensor_mode's rounding_mode); *why on failure */
static const struct nf_func *pick_overload_pass(const struct nf_index *ix,
                                                const char *base, const char *ov,
                                                int kind, const struct try_opts *o,
                                                int use_args, const char **why)
{
	size_t i;
	int want = mr_kind_arity(kind);
	int alpha = mr_kind_alpha(kind);
	const struct nf_func *best = NULL;
	int best_score = -1;

	*why = NULL;
	for (i = 0; i < ix->nfuncs; i++) {
		const struct nf_func *f = &ix->funcs[i];
		struct nf_arg *a;
		long na, k;
		int tensors = 0, scalars = 0, required_scalars = 0, other = 0, score, lead = 0;
		if (strcmp(f->base, base) != 0 || f->kind != NF_FUNCTIONAL ||
		    f->inplace || !f->schema)
			continue;
		if (ov && strcmp(f->overload, ov) != 0)
			continue;
		na = nf_schema_args(f->schema, &a);
		if (na < 0)
			continue;
		/* a Tensor --arg gives is a constant, no input of the kernel's */
		for (k = 0; k < na && is_tensor_type(a[k].type) && !a[k].write; k++)
			if (!(use_args && arg_given(o, a[k].name)))
				lead++;
		for (k = 0; k < na; k++) {
			if (is_tensor_type(a[k].type) && !a[k].write) {
				if (!(use_args && arg_given(o, a[k].name)))
					tensors++;
			}
			else if (is_scalar_type(a[k].type)) {
				scalars++;
				/* a scalar --arg gives is no input of the kernel's:
				 * polygamma(n, self) --arg n=1 for trigamma */
				if (!a[k].def && !(use_args && arg_given(o, a[k].name)))
					required_scalars++;
			} else if (!a[k].def && !(use_args && arg_given(o, a[k].name)))
				other++;
		}
		{
			/* every --arg must name one of its arguments */
			size_t g;
			for (g = 0; use_args && g < o->nargs && !ov; g++) {
				const char *eq = strchr(o->args[g], '=');
				int has = 0;
				for (k = 0; eq && k < na && !has; k++)
					has = strlen(a[k].name) == (size_t)(eq - o->args[g]) &&
					      !strncmp(a[k].name, o->args[g], (size_t)(eq - o->args[g]));
				if (!has)
					other++;
			}
		}
		nf_args_free(a, (size_t)na);
		if (ov) {
			best = f;
			break;
		}
		if (tensors != want || other)
			continue;
		if (alpha && scalars == 0)
			continue;
		if (!alpha && required_scalars)
			continue;
		/* prefer, without alpha, no scalars at all; with alpha, one; then
		 * the Tensors first, as the kernel's inputs come before its
		 * scalar (pow.Tensor_Scalar, not pow.Scalar, for x ** alpha) */
		score = (alpha ? (scalars == 1 ? 2 : 1) : (scalars == 0 ? 2 : 1)) * 2 +
		        (lead == want);
		if (score > best_score) {
			best = f;
			best_score = score;
		}
	}
	if (!best)
		*why = ov ? "no such overload" : "no functional overload with inputs of the kernel's kind";
	return best;
}

/* pick_overload_pass with --arg's names, else without them (so that an
 * --arg no overload has is reported as such) */
static const struct nf_func *pick_overload(const struct nf_index *ix,
                                           const char *base, const char *ov,
                                           int kind, const struct try_opts *o,
                                           const char **why)
{
	const struct nf_func *f = pick_overload_pass(ix, base, ov, kind, o, 1, why);
	return f ? f : pick_overload_pass(ix, base, ov, kind, o, 0, why);
}

/* 1 when DT is one of the Metal dtypes a registration names */
static int is_metal_scalar(const char *dt)
{
	static const char *const names[] = {"float", "half", "bfloat", "long", "int", "short",
	                                    "char", "uchar", "bool", "float2", "half2", NULL};
	size_t i;
	for (i = 0; names[i]; i++)
		if (!strcmp(dt, names[i]))
			return 1;
	return 0;
}

/* the identifier at T[*I] (spaces skipped) into a new string, or NULL */
static char *ident_at(const char *t, size_t *i)
{
	size_t s;
	while (t[*i] == ' ' || t[*i] == '\t' || t[*i] == '\n')
		(*i)++;
	s = *i;
	while (ident_char((unsigned char)t[*i]))
		(*i)++;
	return *i > s ? xasprintf("%.*s", (int)(*i - s), t + s) : NULL;
}

/* the members of struct NAME in TEXT (`struct NAME {` then `TYPE m;`
 * lines, TYPE the template parameter TP or float): into *F; returns how
 * many, 0 when not found or a member is of another kind */
static size_t struct_members(const char *text, const char *name, const char *tp,
                             char ***f)
{
	const char *p = text;
	size_t nl = strlen(name), n = 0;
	*f = NULL;
	while ((p = strstr(p, "struct ")) != NULL) {
		const char *q = p + 7, *e;
		p = q;
		while (*q == ' ')
			q++;
		if (strncmp(q, name, nl) != 0 || ident_char((unsigned char)q[nl]))
			continue;
		q += nl;
		while (*q == ' ' || *q == '\n')
			q++;
		if (*q != '{' || !(e = strchr(q, '}')))
			continue;
		q++;
		while (q < e) {
			size_t i = 0;
			char *ty, *m;
			const char *semi = strchr(q, ';');
			if (!semi || semi > e)
				break;
			ty = ident_at(q, &i);
			m = ident_at(q, &i);
			while (q[i] == ' ')
				i++;
			if (!ty || !m || q + i != semi ||
			    !(!strcmp(ty, "float") || (tp && !strcmp(ty, tp)))) {
				free(ty);
				free(m);
				lex_strv_free(*f, n);
				*f = NULL;
				return 0;
			}
			free(ty);
			*f = xrealloc(*f, (n + 1) * sizeof **f);
			(*f)[n++] = m;
			q = semi + 1;
			while (q < e && (*q == ' ' || *q == '\n' || *q == '\t'))
				q++;
		}
		return n;
	}
	return 0;
}

/* the members of the struct alpha A: `typedef X<float> A;` or `using A =
 * X<float>;` with `template <typename T> struct X {...}`, or `struct A
 * {...}`, looked for in the kernel file and its headers */
static size_t alpha_members_of(const struct try_plan *pl, const char *a,
                               char ***f, char **basep);

/* the members of alpha A: its own typedef, else one a helper pastes per
 * dtype, `typedef BASE<float> BASE_##T;` for A = BASE_float (main's
 * REGISTER_ELU_OP, mps-register's binary-params helpers) */
static size_t alpha_members(struct try_plan *pl, const char *a, char ***f)
{
	size_t n = alpha_members_of(pl, a, f, NULL);
	const char *us = strrchr(a, '_');
	if (!n && us) {
		char *pasted = xasprintf("%.*s_##", (int)(us - a), a);
		n = alpha_members_of(pl, pasted, f, &pl->alpha_base);
		free(pasted);
	}
	return n;
}

static size_t alpha_members_of(const struct try_plan *pl, const char *a,
                               char ***f, char **basep)
{
	size_t h, n = 0;
	for (h = 0; h <= pl->nhdrs && !n; h++) {
		const char *t = h == 0 ? pl->metal_text : pl->hdrs[h - 1].text;
		const char *p = t;
		size_t al = strlen(a);
		n = struct_members(t, a, NULL, f);
		while (!n && p && (p = strstr(p, a)) != NULL) {
			/* typedef BASE<float> A;  /  using A = BASE<float>; */
			const char *ls = p, *le = strchr(p, ';');
			char *base = NULL;
			p += al;
			while (ls > t && ls[-1] != '\n')
				ls--;
			if (!le)
				break;
			{
				char *line = xasprintf("%.*s", (int)(le - ls), ls);
				char *lt = strchr(line, '<'), *gt = lt ? strchr(lt, '>') : NULL;
				size_t i = 0;
				char *w = ident_at(line, &i);
				if (w && lt && gt && (!strcmp(w, "typedef") || !strcmp(w, "using"))) {
					size_t j = i;
					char *x = ident_at(line, &j);
					if (!strcmp(w, "using")) { /* using A = BASE<...> */
						while (line[j] == ' ' || line[j] == '=')
							j++;
						free(x);
						x = ident_at(line, &j);
					}
					if (x && !strncmp(lt + 1, "float", 5) && gt == lt + 6)
						base = x;
					else
						free(x);
				}
				free(w);
				free(line);
			}
			if (base) {
				size_t h2;
				for (h2 = 0; h2 <= pl->nhdrs && !n; h2++) {
					const char *t2 = h2 == 0 ? pl->metal_text : pl->hdrs[h2 - 1].text;
					const char *tp = strstr(t2, "template <typename ");
					char *tpn = NULL;
					if (tp) {
						size_t i = 19;
						tpn = ident_at(tp, &i);
					}
					n = struct_members(t2, base, tpn, f);
					free(tpn);
				}
				if (n && basep && !*basep)
					*basep = xstrdup(base);
				free(base);
			}
		}
	}
	return n;
}

/* a struct alpha: its members from the kernel file's headers, each case's
 * value "v1,v2,..." from the schema scalars of the members' names (given
 * by --arg, else a default that is not None; a member with neither is an
 * error of use: what the host computes for None is not read).  Returns 0,
 * or -1 after a diagnostic. */
static int struct_alpha_cases(struct try_plan *pl)
{
	const char *a = pl->regs[0].alpha;
	size_t f, c;
	struct buf b;
	char *missing = NULL;
	pl->nalpha_fields = alpha_members(pl, a, &pl->alpha_fields);
	if (!pl->nalpha_fields) {
		warnx_("error: %s: the alpha type %s is no Metal scalar and no struct of float members "
		       "read in the file or its headers", pl->metal_rel, a);
		return -1;
	}
	buf_init(&b);
	for (f = 0; f < pl->nalpha_fields; f++) {
		size_t k;
		const char *v = NULL;
		for (k = 0; k < pl->nargs; k++)
			if (pl->args[k].scalar && !strcmp(pl->args[k].name, pl->alpha_fields[f])) {
				v = pl->args[k].given ? pl->args[k].given
				    : pl->args[k].def && strcmp(pl->args[k].def, "None") ? pl->args[k].def : NULL;
				if (!v && !missing)
					missing = xstrdup(pl->alpha_fields[f]);
				break;
			}
		if (k == pl->nargs) {
			warnx_("error: %s: member '%s' of the alpha %s is no scalar of %s",
			       pl->metal_rel, pl->alpha_fields[f], a, pl->func);
			buf_free(&b);
			return -1;
		}
		if (v) {
			const char *comma = strchr(v, ',');
			buf_printf(&b, "%s%.*s", f ? "," : "", (int)(comma ? (size_t)(comma - v) : strlen(v)), v);
		}
	}
	if (missing) {
		warnx_("error: %s=None: member '%s' of the kernel's alpha %s is a number the host "
		       "computes for None; give it with --arg %s=VALUE",
		       missing, missing, a, missing);
		free(missing);
		buf_free(&b);
		return -1;
	}
	for (c = 0; c < pl->ncases; c++) {
		free(pl->cases[c].alpha_value);
		pl->cases[c].alpha_value = xstrdup(b.data);
	}
	buf_free(&b);
	return 0;
}

/* 1 when a schema scalar of TYPE (int, float, bool, Scalar; optional or
 * not) can carry a kernel alpha of Metal dtype DT: a Scalar any, an int
 * an integer dtype, a float a floating or complex one, a bool bool */
static int scalar_fits(const char *type, const char *dt)
{
	if (!dt || type_is(type, "Scalar"))
		return 1;
	if (!strcmp(dt, "bool"))
		return type_is(type, "bool");
	if (try_is_integral(dt))
		return type_is(type, "int");
	if (try_is_float(dt) || try_is_complex(dt))
		return type_is(type, "float");
	return 0;
}

/* the extra values tried for a scalar of TYPE (beyond its default) */
static const char *const *extra_values(const char *type, const char *alpha_dt)
{
	static const char *const ints[] = {"0", "1", "2", "-1", NULL};
	static const char *const floats[] = {"0.5", "2", "-1.5", "1e-06", NULL};
	static const char *const bools[] = {"False", "True", NULL};
	if (type_is(type, "bool"))
		return bools;
	if (type_is(type, "int") || (alpha_dt && try_is_integral(alpha_dt)))
		return ints;
	return floats;
}

/* ------------------------------------------------------------------ */
/* the plan                                                            */

static char *core_call(const struct mr_core *c, const char *name,
                       const char *in, const char *alpha, const char *out)
{
	const char *args[4] = {NULL, NULL, NULL, NULL};
	struct buf b;
	int i;
	args[0] = name;
	args[c->i_in] = in;
	if (c->i_alpha >= 0)
		args[c->i_alpha] = alpha;
	args[c->i_out] = out;
	buf_init(&b);
	buf_printf(&b, "%s(", c->macro);
	for (i = 0; i < c->nargs; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", args[i] ? args[i] : "");
	buf_puts(&b, ")");
	return b.data;
}

static int mark_overloads(const char *m, size_t a, size_t b, size_t **at,
                          size_t *n)
{
	/* the '{' of every operator() defined at the functor's first level */
	size_t i, cap = 0;
	int depth = 0;
	*at = NULL;
	*n = 0;
	for (i = a; i < b; i++) {
		char c = m[i];
		if (c == '"' || c == '\'') {
			i = lex_skip_literal(m, b, i) - 1;
			continue;
		}
		if (c == '{')
			depth++;
		else if (c == '}')
			depth--;
		else if (depth == 1 && c == 'o' && b - i > 8 &&
		         strncmp(m + i, "operator", 8) == 0 &&
		         (i == 0 || !ident_char((unsigned char)m[i - 1]))) {
			size_t j = skip_ws(m, b, i + 8);
			if (j + 1 < b && m[j] == '(' && m[skip_ws(m, b, j + 1)] == ')') {
				/* the parameter list, then to '{' or ';' */
				size_t p = skip_ws(m, b, skip_ws(m, b, j + 1) + 1);
				int d = 0;
				if (p < b && m[p] == '(') {
					for (; p < b; p++) {
						if (m[p] == '(')
							d++;
						else if (m[p] == ')' && --d == 0)
							break;
					}
					for (; p < b && m[p] != '{' && m[p] != ';'; p++)
						;
					if (p < b && m[p] == '{') {
						if (*n == cap) {
							cap = cap ? cap * 2 : 8;
							*at = xrealloc(*at, cap * sizeof **at);
						}
						(*at)[(*n)++] = p;
					}
				}
				i = j;
			}
		}
	}
	return 0;
}

static int ident_in(const char *m, size_t a, size_t b, const char *name)
{
	size_t l = strlen(name), i;
	for (i = a; i + l <= b; i++)
		if (m[i] == name[0] && memcmp(m + i, name, l) == 0 &&
		    (i == a || !ident_char((unsigned char)m[i - 1])) &&
		    (i + l == b || !ident_char((unsigned char)m[i + l])))
			return 1;
	return 0;
}

static int plan_build(struct try_plan *pl, const struct try_opts *o);

int try_plan_build(struct try_plan *pl, const struct try_opts *o)
{
	int r;
	planned_hdr = o->hdr_rel && o->hdr_text ? o : NULL;
	r = plan_build(pl, o);
	planned_hdr = NULL;
	return r;
}

static int plan_build(struct try_plan *pl, const struct try_opts *o)
{
	static const char *const sufs[] = {".metal", NULL};
	struct walk_list wl;
	struct nf_index ix;
	struct mr_defs ms;
	char *base = NULL, *ovname = NULL, *yaml;
	int inplace, rc = -1;
	size_t fi, i;
	char *masked = NULL, **seen = NULL, **cpu_k = NULL;
	size_t nseen = 0, ncpu_k = 0;
	char *none_value = NULL, *none_where = NULL;
	int none_looked = 0;
	struct item *items = NULL;
	size_t nitems = 0;
	const char *kind_seen_file = NULL;

	memset(pl, 0, sizeof *pl);
	memset(&ms, 0, sizeof ms);
	pl->alpha_arg = -1;
	pl->bool_input = o->bool_input;
	pl->checkout_version = try_checkout_version(o->root);
	pl->root = o->root ? xstrdup(o->root) : NULL;
	if (nf_parse_opname(o->op, &base, &ovname, &inplace) != 0) {
		warnx_("error: '%s' is not an operator name", o->op);
		return -1;
	}
	pl->op_base = base;
	pl->kernel = xstrdup(o->kernel ? o->kernel : base);
	if (!mr_valid_name(pl->kernel)) {
		warnx_("error: '%s' is not a kernel name", pl->kernel);
		free(ovname);
		return -1;
	}

	/* 1. the registrations */
	if (walk_files(o->root, MPS_KERNELS_REL, 2, NULL, sufs, &wl) != 0) {
		free(ovname);
		return -1;
	}
	for (fi = 0; fi < wl.n; fi++) {
		char *path = xasprintf("%s/%s", o->root, wl.paths[fi]), *data, *m;
		size_t len;
		struct mr_file mf;
		int mine = 0;
		if (o->text_rel && strcmp(o->text_rel, wl.paths[fi]) == 0) {
			data = xmalloc(o->text_len + 1);
			memcpy(data, o->text, o->text_len);
			data[o->text_len] = '\0';
			len = o->text_len;
		} else if (read_source_file(path, &data, &len) != 0) {
			free(path);
			walk_free(&wl);
			free(ovname);
			goto out;
		}
		free(path);
		m = mask_code(data, len, LANG_C);
		memset(&mf, 0, sizeof mf);
		mr_file_parse(&mf, m, len);
		for (i = 0; i < mf.nregs; i++) {
			const struct mr_reg *r = &mf.regs[i];
			const struct mr_call *c = &mf.calls[r->call];
			struct try_reg *t;
			unsigned long ln, col;
			if (strcmp(r->name, pl->kernel) != 0)
				continue;
			if (pl->metal_rel && strcmp(pl->metal_rel, wl.paths[fi]) != 0) {
				if (!kind_seen_file || strcmp(kind_seen_file, wl.paths[fi])) {
					note(pl, "%s also registers kernel %s (not tried: only the file holding the first registration is)",
					     wl.paths[fi], pl->kernel);
					kind_seen_file = wl.paths[fi];
				}
				continue;
			}
			if (!pl->metal_rel) {
				pl->metal_rel = xstrdup(wl.paths[fi]);
				pl->metal_text = data;
				pl->metal_len = len;
				masked = m;
				mine = 1;
			}
			pl->regs = xrealloc(pl->regs, (pl->nregs + 1) * sizeof *pl->regs);
			t = &pl->regs[pl->nregs++];
			memset(t, 0, sizeof *t);
			t->kind = r->core->kind;
			t->macro = r->core->macro;
			t->in = xstrdup(r->in);
			t->out = xstrdup(r->out);
			t->alpha = r->alpha ? xstrdup(r->alpha) : NULL;
			t->call = core_call(r->core, r->name, r->in, r->alpha, r->out);
			t->via = mr_core_find(c->macro, strlen(c->macro)) ? NULL
			                                                  : xstrdup(c->macro);
			line_col(data, c->start, &ln, &col);
			t->line = ln;
		}
		mr_file_free(&mf);
		if (!mine) {
			free(m);
			free(data);
		}
	}
	walk_free(&wl);
	if (pl->nregs == 0) {
		warnx_("error: no registration of kernel '%s' in %s/*.metal%s",
		       pl->kernel, MPS_KERNELS_REL,
		       o->kernel ? "" : " (another kernel name: --kernel NAME)");
		free(ovname);
		goto out;
	}

	/* 2. --dtypes */
	if (o->dtypes) {
		struct mr_pair pairs[MR_MAX_PAIRS];
		char *err = NULL;
		int np = mr_parse_dtypes(o->dtypes, pl->regs[0].kind, pairs, &err), k;
		size_t keep = 0;
		if (np < 0) {
			warnx_("error: --dtypes: %s", err);
			free(err);
			free(ovname);
			goto out;
		}
		for (k = 0; k < np; k++) {
			int found = 0;
			for (i = 0; i < pl->nregs; i++)
				if (!strcmp(pl->regs[i].in, pairs[k].in) &&
				    !strcmp(pl->regs[i].out, pairs[k].out))
					found = 1;
			if (!found) {
				struct buf b;
				buf_init(&b);
				for (i = 0; i < pl->nregs; i++)
					buf_printf(&b, "%s%s:%s", i ? ", " : "", pl->regs[i].in,
					           pl->regs[i].out);
				warnx_("error: --dtypes: kernel '%s' has no registration %s:%s "
				       "(registered: %s)",
				       pl->kernel, pairs[k].in, pairs[k].out, b.data);
				buf_free(&b);
				free(ovname);
				goto out;
			}
		}
		for (i = 0; i < pl->nregs; i++) {
			int want = 0;
			for (k = 0; k < np; k++)
				if (!strcmp(pl->regs[i].in, pairs[k].in) &&
				    !strcmp(pl->regs[i].out, pairs[k].out))
					want = 1;
			if (want)
				pl->regs[keep++] = pl->regs[i];
			else {
				free(pl->regs[i].in);
				free(pl->regs[i].out);
				free(pl->regs[i].alpha);
				free(pl->regs[i].call);
				free(pl->regs[i].via);
			}
		}
		pl->nregs = keep;
	}

	/* 3. the schema */
	yaml = xasprintf("%s/%s", o->root, NF_YAML_REL);
	if (nf_load(&ix, yaml, NF_YAML_REL) != 0) {
		free(yaml);
		free(ovname);
		goto out;
	}
	free(yaml);
	{
		const char *why;
		const struct nf_func *f = pick_overload(&ix, base, *ovname ? ovname : NULL,
		                                        pl->regs[0].kind, o, &why);
		struct nf_arg *a;
		long na, k;
		if (!f) {
			int any = 0;
			for (i = 0; i < ix.nfuncs; i++)
				if (!strcmp(ix.funcs[i].base, base))
					any = 1;
			if (!any)
				warnx_("error: native_functions.yaml has no operator '%s'", base);
			else
				warnx_("error: operator '%s': %s (kernel %s is %s)", o->op, why,
				       pl->kernel, mr_kind_name(pl->regs[0].kind));
			nf_free(&ix);
			free(ovname);
			goto out;
		}
		pl->func = xstrdup(f->name);
		pl->overload = xstrdup(f->overload);
		{
			/* the CPU kernels of the row (or of its structured delegate):
			 * where a stub's None default may be written */
			const struct nf_func *rows[2];
			size_t nr = 0, r2, d2, k2;
			rows[nr++] = f;
			if (f->delegate >= 0)
				rows[nr++] = &ix.funcs[f->delegate];
			for (r2 = 0; r2 < nr; r2++)
				for (d2 = 0; d2 < rows[r2]->ndispatch; d2++)
					for (k2 = 0; k2 < rows[r2]->dispatch[d2].nkeys; k2++)
						if (!strcmp(rows[r2]->dispatch[d2].keys[k2], "CPU")) {
							cpu_k = xrealloc(cpu_k, (ncpu_k + 1) * sizeof *cpu_k);
							cpu_k[ncpu_k++] = xstrdup(rows[r2]->dispatch[d2].kernel);
						}
		}
		na = nf_schema_args(f->schema, &a);
		pl->args = xcalloc((size_t)(na > 0 ? na : 1), sizeof *pl->args);
		for (k = 0; k < na; k++) {
			struct try_arg *t = &pl->args[pl->nargs++];
			size_t tl = strlen(a[k].type);
			t->name = xstrdup(a[k].name);
			t->type = xstrdup(a[k].type);
			t->def = a[k].def ? xstrdup(a[k].def) : NULL;
			if (!strcmp(t->name, "reduction") && !strcmp(t->type, "int") &&
			    !arg_given(o, t->name)) {
				/* a loss's reduction (default Mean, at::Reduction):
				 * its stub's kernel is elementwise, so the CPU is asked
				 * for reduction None (0), the elementwise result */
				free(t->def);
				t->def = xstrdup("0");
				note(pl, "reduction=0 (%s): the kernel is elementwise, so the CPU result is taken before the reduction%s",
				     "None", "");
			}
			t->kwarg = a[k].kwarg;
			t->tensor = is_tensor_type(a[k].type);
			t->scalar = is_scalar_type(a[k].type);
			t->optional = tl && a[k].type[tl - 1] == '?';
		}
		nf_args_free(a, (size_t)(na > 0 ? na : 0));
		nf_free(&ix);
	}
	free(ovname);
	ovname = NULL;
	/* --arg NAME=VALUE */
	for (i = 0; i < o->nargs; i++) {
		const char *eq = strchr(o->args[i], '=');
		size_t k;
		int found = 0;
		if (!eq || eq == o->args[i] || !eq[1]) {
			warnx_("error: --arg '%s': expected NAME=VALUE", o->args[i]);
			goto out;
		}
		for (k = 0; k < pl->nargs; k++)
			if (strlen(pl->args[k].name) == (size_t)(eq - o->args[i]) &&
			    !strncmp(pl->args[k].name, o->args[i], (size_t)(eq - o->args[i]))) {
				if (pl->args[k].tensor) {
					char *end;
					errno = 0;
					(void)strtod(eq + 1, &end);
					if (end == eq + 1 || *end || errno || pl->args[k].given) {
						warnx_("error: --arg '%s': %s is a Tensor input: give it one "
						       "number (a constant tensor of the inputs' shape and dtype)",
						       o->args[i], pl->args[k].name);
						goto out;
					}
					pl->args[k].constant = 1;
					note(pl, "%s=%s: a tensor of the inputs' shape and dtype filled with "
					     "that number, no input of the kernel's",
					     pl->args[k].name, eq + 1);
				}
				if (pl->args[k].given) {
					char *j = xasprintf("%s,%s", pl->args[k].given, eq + 1);
					free(pl->args[k].given);
					pl->args[k].given = j;
				} else
					pl->args[k].given = xstrdup(eq + 1);
				found = 1;
			}
		if (!found) {
			struct buf b;
			buf_init(&b);
			for (k = 0; k < pl->nargs; k++)
				if (!pl->args[k].tensor)
					buf_printf(&b, "%s%s", b.len ? ", " : "", pl->args[k].name);
			warnx_("error: --arg '%s': %s has no argument '%.*s' (it has: %s)",
			       o->args[i], pl->func, (int)(eq - o->args[i]), o->args[i],
			       b.len ? b.data : "none");
			buf_free(&b);
			goto out;
		}
	}
	/* the scalar ALPHA stands for (none for a struct: its members are
	 * read with the headers, step 5) */
	if (mr_kind_alpha(pl->regs[0].kind) && pl->regs[0].alpha &&
	    is_metal_scalar(pl->regs[0].alpha)) {
		size_t k;
		for (k = 0; k < pl->nargs; k++)
			if (pl->args[k].scalar && !strcmp(pl->args[k].name, "alpha"))
				pl->alpha_arg = (long)k;
		/* else the first scalar whose type can hold the alpha's dtype
		 * (huber_loss's float delta, not its int reduction, for a
		 * float alpha), else the first scalar */
		for (k = 0; k < pl->nargs && pl->alpha_arg < 0; k++)
			if (pl->args[k].scalar && scalar_fits(pl->args[k].type, pl->regs[0].alpha))
				pl->alpha_arg = (long)k;
		for (k = 0; k < pl->nargs && pl->alpha_arg < 0; k++)
			if (pl->args[k].scalar)
				pl->alpha_arg = (long)k;
	}

	/* 4. cases: one per registration and value of the scalar */
	for (i = 0; i < pl->nregs; i++) {
		const struct try_reg *r = &pl->regs[i];
		const char *vals[16];
		size_t nv = 0, v;
		char *given_copy = NULL;
		if (pl->alpha_arg >= 0 && r->alpha) {
			const struct try_arg *t = &pl->args[pl->alpha_arg];
			if (t->given) {
				char *s, *save;
				given_copy = xstrdup(t->given);
				for (s = given_copy; (save = strchr(s, ',')) != NULL || *s;) {
					if (save)
						*save = '\0';
					if (nv < 16)
						vals[nv++] = s;
					if (!save)
						break;
					s = save + 1;
				}
			} else {
				const char *const *ex = extra_values(t->type, r->alpha);
				if (t->def && nv < 16)
					vals[nv++] = t->def;
				for (; *ex && nv < 16; ex++)
					if (!t->def || strcmp(*ex, t->def) != 0)
						vals[nv++] = *ex;
			}
		}
		if (!r->alpha || pl->alpha_arg < 0) {
			pl->cases = xrealloc(pl->cases, (pl->ncases + 1) * sizeof *pl->cases);
			pl->cases[pl->ncases].reg = i;
			pl->cases[pl->ncases].arg_value = NULL;
			pl->cases[pl->ncases].alpha_value = NULL;
			if (r->alpha && is_metal_scalar(r->alpha)) /* an alpha kernel with no scalar in the schema */
				pl->cases[pl->ncases].alpha_value = xstrdup("1");
			pl->ncases++;
		}
		for (v = 0; v < nv; v++) {
			const char *kv = vals[v];
			unsigned char tmp[8];
			if (!strcmp(kv, "None")) {
				if (!o->none_as && !none_looked) {
					int nr = try_none_value(o->root, pl->kernel, pl->args[pl->alpha_arg].name,
					                        cpu_k, ncpu_k, &none_value, &none_where);
					none_looked = 1;
					if (nr < 0) {
						free(given_copy);
						goto out;
					}
					if (nr > 0 && try_alpha_bytes(r->alpha, none_value, tmp) != 0) {
						free(none_value);
						none_value = NULL;
					}
					if (none_value) {
						char *what = xasprintf("%s passes %s", none_where, none_value);
						note(pl, "%s=None tried as the kernel gets it: %s", pl->args[pl->alpha_arg].name, what);
						free(what);
					} else
						note(pl, "%s=None not tried: no host code read says what the kernel gets for it; --none-as VALUE says what the host stub passes then%s",
						     pl->args[pl->alpha_arg].name, "");
				}
				if (!o->none_as && !none_value)
					continue;
			} else if (try_alpha_bytes(r->alpha, kv, tmp) != 0) {
				warnx_("error: --arg %s=%s: not a number of the kernel's alpha type %s",
				       pl->args[pl->alpha_arg].name, kv, r->alpha);
				free(given_copy);
				goto out;
			}
			pl->cases = xrealloc(pl->cases, (pl->ncases + 1) * sizeof *pl->cases);
			pl->cases[pl->ncases].reg = i;
			pl->cases[pl->ncases].arg_value = xstrdup(kv);
			pl->cases[pl->ncases].alpha_value =
				xstrdup(!strcmp(kv, "None") ? (o->none_as ? o->none_as : none_value) : kv);
			pl->ncases++;
		}
		free(given_copy);
	}
	if (o->none_as) {
		unsigned char tmp[8];
		if (!pl->regs[0].alpha || try_alpha_bytes(pl->regs[0].alpha, o->none_as, tmp) != 0) {
			warnx_("error: --none-as '%s': %s", o->none_as,
			       pl->regs[0].alpha ? "not a number" : "the kernel has no alpha");
			goto out;
		}
	}

	/* 5. the functor, its helpers, the headers */
	items_of(masked, pl->metal_len, &items, &nitems);
	{
		char *fname = xasprintf("%s_functor", pl->kernel);
		size_t nsel = 0, k;
		int grew = 1;
		long fitem = -1;
		for (k = 0; k < nitems; k++)
			if (items[k].declares && !strcmp(items[k].declares, fname) &&
			    items[k].kind == IT_DECL) {
				fitem = (long)k;
				break;
			}
		if (fitem < 0) /* a macro call that makes it: NAME among its arguments */
			for (k = 0; k < nitems && fitem < 0; k++)
				if (items[k].kind == IT_DECL && items[k].declares &&
				    ident_in(masked, items[k].a, items[k].b, pl->kernel)) {
					size_t s = skip_ws(masked, items[k].b, items[k].a), e = s;
					while (e < items[k].b && ident_char((unsigned char)masked[e]))
						e++;
					if (e > s && masked[skip_ws(masked, items[k].b, e)] == '(' &&
					    !mr_core_find(masked + s, e - s)) {
						int is_reg = 0;
						size_t r;
						for (r = 0; r < pl->nregs; r++)
							if (pl->regs[r].via &&
							    strlen(pl->regs[r].via) == e - s &&
							    !strncmp(pl->regs[r].via, masked + s, e - s))
								is_reg = 1;
						if (!is_reg && strncmp(masked + s, "REGISTER_", 9) != 0)
							fitem = (long)k;
					}
				}
		free(fname);
		if (fitem < 0) {
			warnx_("error: %s: no struct %s_functor (nor a macro call defining it) for kernel '%s'",
			       pl->metal_rel, pl->kernel, pl->kernel);
			goto out;
		}
		{
			unsigned long ln, col;
			line_col(pl->metal_text, items[fitem].a, &ln, &col);
			pl->functor_line = ln;
		}
		items[fitem].selected = 1;
		/* a struct alpha's type name (a typedef of the file) */
		for (k = 0; k < nitems; k++)
			if (items[k].declares && items[k].kind == IT_DECL && pl->nregs &&
			    pl->regs[0].alpha && !is_metal_scalar(pl->regs[0].alpha) &&
			    !strcmp(items[k].declares, pl->regs[0].alpha))
				items[k].selected = 1;
		/* registration calls are not declarations */
		for (k = 0; k < nitems; k++) {
			size_t s = skip_ws(masked, items[k].b, items[k].a), e = s;
			while (e < items[k].b && ident_char((unsigned char)masked[e]))
				e++;
			if (items[k].kind == IT_DECL && e > s &&
			    (mr_core_find(masked + s, e - s) ||
			     (e - s > 9 && !strncmp(masked + s, "REGISTER_", 9)) ||
			     (e - s == 13 && !strncmp(masked + s, "static_assert", 13))))
				items[k].kind = IT_REGCALL;
		}
		while (grew) {
			grew = 0;
			for (k = 0; k < nitems; k++) {
				size_t j;
				if (!items[k].selected)
					continue;
				for (j = 0; j < nitems; j++)
					if (!items[j].selected && items[j].kind != IT_REGCALL &&
					    items[j].declares &&
					    ident_in(masked, items[k].a, items[k].b, items[j].declares)) {
						items[j].selected = 1;
						grew = 1;
					}
			}
		}
		for (k = 0; k < nitems; k++)
			if (items[k].selected || items[k].keep)
				nsel++;
		(void)nsel;
		/* the source: kept items as written, the rest blanked */
		{
			char *src = xmalloc(pl->metal_len + 1);
			size_t *marks, nmarks, q;
			struct buf b;
			for (q = 0; q < pl->metal_len; q++)
				src[q] = pl->metal_text[q] == '\n' ? '\n' : ' ';
			src[pl->metal_len] = '\0';
			for (k = 0; k < nitems; k++)
				if (items[k].selected || items[k].keep)
					memcpy(src + items[k].a, pl->metal_text + items[k].a,
					       items[k].b - items[k].a);
			/* overload markers, after each operator()'s '{' */
			mark_overloads(masked, items[fitem].a, items[fitem].b, &marks, &nmarks);
			buf_init(&b);
			{
				size_t prev = 0, mi;
				for (mi = 0; mi < nmarks; mi++) {
					unsigned long ln, col;
					line_col(pl->metal_text, marks[mi], &ln, &col);
					buf_add(&b, src + prev, marks[mi] + 1 - prev);
					buf_printf(&b, " MK_TRY_HIT(%lu);", ln);
					prev = marks[mi] + 1;
				}
				buf_add(&b, src + prev, pl->metal_len - prev);
			}
			free(marks);
			free(src);
			pl->source = b.data;
			{
				size_t rl;
				pl->host_source = try_rewrite(b.data, b.len, &rl);
			}
		}
		/* headers: the kept #include lines */
		for (k = 0; k < nitems; k++) {
			char **names, *kinds;
			size_t nn, q;
			if (items[k].kind != IT_DIRECTIVE || !items[k].keep)
				continue;
			includes_of(pl->metal_text + items[k].a, items[k].b - items[k].a,
			            &names, &kinds, &nn);
			for (q = 0; q < nn; q++) {
				char *cand = try_include_resolve(o->root, pl->metal_rel, names[q], kinds[q]);
				int ok = !cand || try_header_add(&pl->hdrs, &pl->nhdrs, o->root, cand, &ms, &seen, &nseen) == 0;
				free(cand);
				free(names[q]);
				if (!ok) {
					for (q++; q < nn; q++)
						free(names[q]);
					free(names);
					free(kinds);
					goto out;
				}
			}
			free(names);
			free(kinds);
		}
		/* the file's own macros count too */
		mr_defs_add(&ms, pl->metal_text, pl->metal_len);
	}

	/* 5b. a struct alpha: its members, each from the schema scalar of
	 * its name */
	if (pl->nregs && pl->regs[0].alpha && !is_metal_scalar(pl->regs[0].alpha) &&
	    struct_alpha_cases(pl) != 0)
		goto out;

	/* 6. the kernels of each registration, read from its macro's
	 * #define: the dense one and the others the driver can run */
	for (i = 0; i < pl->nregs; i++) {
		struct try_reg *r = &pl->regs[i];
		const struct mr_core *core = mr_core_find(r->macro, strlen(r->macro));
		char *args[4] = {NULL, NULL, NULL, NULL};
		if (!core || !mr_defs_find(&ms, r->macro)) {
			r->dense_why = xasprintf("%s has no #define in the headers the file includes", r->macro);
			continue;
		}
		args[0] = pl->kernel;
		args[core->i_in] = r->in;
		args[core->i_out] = r->out;
		if (core->i_alpha >= 0)
			args[core->i_alpha] = r->alpha;
		r->nkernels = mr_instantiate(&ms, r->macro, args, (size_t)core->nargs, &r->kernels);
		choose_runs(r);
		if (r->nrun > 0)
			r->dense = mr_inst_call(&r->kernels[r->run[0]]);
		else if (r->nkernels == 0)
			r->dense_why = xasprintf("the expansion of %s instantiates no kernel template", r->macro);
		else
			r->dense_why = xasprintf("none of the %zu kernels %s instantiates takes only the output, the inputs%s, a count and the thread index", r->nkernels, r->macro, r->alpha ? ", the alpha" : "");
	}
	if (pl->bool_input > 0 && pl->nregs &&
	    pl->bool_input > mr_kind_arity(pl->regs[0].kind)) {
		warnx_("error: --bool-input %d: kernel %s takes %d tensor input%s",
		       pl->bool_input, pl->kernel, mr_kind_arity(pl->regs[0].kind),
		       mr_kind_arity(pl->regs[0].kind) == 1 ? "" : "s");
		goto out;
	}
	if (try_test_lists(pl, o->root) != 0)
		goto out;
	try_test_tolerances(pl, o->root);
	rc = 0;
out:
	for (i = 0; i < nitems; i++)
		free(items[i].declares);
	free(items);
	free(masked);
	lex_strv_free(seen, nseen);
	lex_strv_free(cpu_k, ncpu_k);
	free(none_value);
	free(none_where);
	mr_defs_free(&ms);
	return rc;
}

void try_plan_free(struct try_plan *pl)
{
	size_t i;
	for (i = 0; i < pl->nregs; i++) {
		struct try_reg *r = &pl->regs[i];
		free(r->in);
		free(r->alpha);
		free(r->out);
		free(r->call);
		free(r->via);
		free(r->dense);
		free(r->dense_why);
		mr_insts_free(r->kernels, r->nkernels);
	}
	free(pl->regs);
	for (i = 0; i < pl->ncases; i++) {
		free(pl->cases[i].arg_value);
		free(pl->cases[i].alpha_value);
	}
	free(pl->cases);
	for (i = 0; i < pl->nhdrs; i++) {
		free(pl->hdrs[i].rel);
		free(pl->hdrs[i].text);
		free(pl->hdrs[i].host);
	}
	free(pl->hdrs);
	for (i = 0; i < pl->nargs; i++) {
		free(pl->args[i].name);
		free(pl->args[i].type);
		free(pl->args[i].def);
		free(pl->args[i].given);
	}
	free(pl->args);
	for (i = 0; i < pl->nnotes; i++)
		free(pl->notes[i]);
	free(pl->notes);
	if (pl->untested)
		for (i = 0; i < pl->nregs; i++)
			free(pl->untested[i]);
	free(pl->untested);
	free(pl->tol);
	free(pl->checkout_version);
	free(pl->root);
	lex_strv_free(pl->alpha_fields, pl->nalpha_fields);
	free(pl->alpha_base);
	free(pl->kernel);
	free(pl->op_base);
	free(pl->func);
	free(pl->overload);
	free(pl->metal_rel);
	free(pl->metal_text);
	free(pl->source);
	free(pl->host_source);
	memset(pl, 0, sizeof *pl);
}

/* ------------------------------------------------------------------ */
/* the harness                                                         */

static int is_binary(int kind)
{
	return mr_kind_arity(kind) >= 2;
}

static int is_ternary(int kind)
{
	return mr_kind_arity(kind) == 3;
}

char *try_harness(const struct try_plan *pl)
{
	struct buf b;
	size_t i, k;

	buf_init(&b);
	buf_printf(&b,
	           "// mps-try harness: kernel %s of %s (generated; runs on the host)\n"
	           "// The Metal unit of the host layer's contract (metal_host.h): compiled\n"
	           "// with its FLAGS; of the system headers only those it lists as safe.\n"
	           "#include <cstdio>\n#include <new>\n#include <type_traits>\n"
	           "#include <metal_host_guard.h>\n"
	           "#ifndef MK_MODE\n#define MK_MODE 1\n#endif\n"
	           "namespace mk_try { static unsigned long hit; }\n"
	           "#define MK_TRY_HIT(n) (::mk_try::hit = (n))\n"
	           "#include <metal_stdlib>\n"
	           "#include \"%s\"\n",
	           pl->kernel, pl->metal_rel, pl->metal_rel);
	/* the struct alphas a helper's typedef names per dtype (the helper
	 * calls are not compiled: their core calls are, below) */
	for (i = 0; pl->alpha_base && i < pl->nregs; i++) {
		const char *a = pl->regs[i].alpha;
		size_t bl = strlen(pl->alpha_base);
		if (a && !strncmp(a, pl->alpha_base, bl) && a[bl] == '_')
			buf_printf(&b, "typedef %s<float> %s;\n", pl->alpha_base, a);
	}
	/* registrations (dense mode only) */
	for (i = 0; i < pl->nregs; i++) {
		const struct try_reg *r = &pl->regs[i];
		buf_printf(&b, "#if MK_MODE == 1 && (!defined(MK_SEL) || defined(MK_ON_%zu))\n", i);
		buf_printf(&b, "#line %lu \"%s\"\n%s;\n", r->line, pl->metal_rel, r->call);
		buf_puts(&b, "#endif\n");
	}
	/* the driver */
	buf_printf(&b, "#line 1 \"<mps-try driver>\"\n");
	buf_puts(&b,
	         "namespace mk_try {\n"
	         "/* a buffer of n T (std::vector<bool> would hand out proxies, not bools) */\n"
	         "template <class T> struct arr {\n"
	         "  T *p = nullptr; size_t n = 0;\n"
	         "  arr() = default; explicit arr(size_t k) { resize(k); }\n"
	         "  arr(const arr &) = delete; arr &operator=(const arr &) = delete;\n"
	         "  ~arr() { delete[] p; }\n"
	         "  void resize(size_t k) { delete[] p; p = k ? new T[k]() : nullptr; n = k; }\n"
	         "  T &operator[](size_t i) { return p[i]; }\n"
	         "  T *data() { return p; }\n"
	         "  size_t size() const { return n; }\n"
	         "  bool empty() const { return n == 0; }\n"
	         "};\n"
	         "template <class T> static bool rd(const char *dir, const char *name, arr<T> &v) {\n"
	         "  char p[4096]; std::snprintf(p, sizeof p, \"%s/%s\", dir, name);\n"
	         "  FILE *f = std::fopen(p, \"rb\"); if (!f) return false;\n"
	         "  std::fseek(f, 0, SEEK_END); long n = std::ftell(f); std::fseek(f, 0, SEEK_SET);\n"
	         "  v.resize(n > 0 ? (size_t)n / sizeof(T) : 0);\n"
	         "  bool ok = std::fread((void *)v.data(), sizeof(T), v.size(), f) == v.size();\n"
	         "  std::fclose(f);\n"
	         "  return ok;\n}\n"
	         "template <class T> static bool wr(const char *dir, const char *name, arr<T> &v) {\n"
	         "  char p[4096]; std::snprintf(p, sizeof p, \"%s/%s\", dir, name);\n"
	         "  FILE *f = std::fopen(p, \"wb\"); if (!f) return false;\n"
	         "  bool ok = std::fwrite((const void *)v.data(), sizeof(T), v.size(), f) == v.size();\n"
	         "  return std::fclose(f) == 0 && ok;\n}\n"
	         "/* the run after one past its time limit: the elements rR.sel marks\n"
	         " * (those the tests sample) only, the first kernel only */\n"
	         "static bool sampled = false;\n"
	         "static int fail(const char *what) { std::fprintf(stderr, \"harness: %s\\n\", what); return 3; }\n"
	         "/* every element under the layer's guard: a trap (an integer division\n"
	         " * by zero, MIN / -1) marks that element undefined on the GPU.  One\n"
	         " * guard runs the elements from i on; after a trap at element i (i is\n"
	         " * volatile: in memory when the signal comes) the next guard resumes at\n"
	         " * i + 1, so the result is that of one guard per element without a\n"
	         " * signal-mask system call per element */\n"
	         "template <class F> static void each(size_t n, arr<unsigned char> &trap, bool &trapped, F &&f) {\n"
	         "  volatile size_t i = 0;\n"
	         "  while (i < n) {\n"
	         "    if (::metal_host::guard([&] { for (; i < n; i = i + 1) f((size_t)i); }) == 0) break;\n"
	         "    trap[i] = 1; trapped = true; i = i + 1;\n"
	         "  }\n"
	         "}\n"
	         "#if MK_MODE == 2\n"
	         "template <class T> static double d1(T x) { return (double)(float)x; }\n"
	         "#endif\n"
	         "}\n");
	for (k = 0; k < pl->ncases; k++) {
		const struct try_case *c = &pl->cases[k];
		const struct try_reg *r = &pl->regs[c->reg];
		int bin = is_binary(r->kind), al = r->alpha != NULL;
		int ter = is_ternary(r->kind);
		/* the operands after a: b, and c for ternary kinds */
		const char *b0 = ter ? ", b[0], c[0]" : bin ? ", b[0]" : "";
		const char *bi = ter ? ", b[i], c[i]" : bin ? ", b[i]" : "";
		const char *bd = ter ? " b.data(), c.data()," : bin ? " b.data()," : "";
		char fn[64];
		snprintf(fn, sizeof fn, "%s_functor", pl->kernel);
		buf_printf(&b, "#if !defined(MK_SEL) || defined(MK_ON_%zu)\n", c->reg);
		buf_printf(&b, "static int case_%zu(const char *dir) {\n", k);
		buf_printf(&b, "  using IN = %s; using OUT = %s;%s%s%s\n", r->in, r->out,
		           al ? " using AL = " : "", al ? r->alpha : "", al ? ";" : "");
		buf_printf(&b, "  mk_try::arr<IN> a;%s%s\n", bin ? " mk_try::arr<IN> b;" : "",
		           ter ? " mk_try::arr<IN> c;" : "");
		buf_printf(&b, "  if (!mk_try::rd(dir, \"r%zu.a\", a)) return mk_try::fail(\"cannot read r%zu.a\");\n", c->reg, c->reg);
		if (bin)
			buf_printf(&b, "  if (!mk_try::rd(dir, \"r%zu.b\", b)) return mk_try::fail(\"cannot read r%zu.b\");\n", c->reg, c->reg);
		if (ter)
			buf_printf(&b, "  if (!mk_try::rd(dir, \"r%zu.c\", c)) return mk_try::fail(\"cannot read r%zu.c\");\n", c->reg, c->reg);
		if (al)
			buf_printf(&b, "  mk_try::arr<AL> alv; if (!mk_try::rd(dir, \"c%zu.alpha\", alv) || alv.empty()) return mk_try::fail(\"cannot read c%zu.alpha\");\n  const AL alpha = alv[0];\n", k, k);
		buf_printf(&b, "  mk_try::arr<unsigned char> sel;\n  if (mk_try::sampled && !mk_try::rd(dir, \"r%zu.sel\", sel)) return mk_try::fail(\"cannot read r%zu.sel\");\n", c->reg, c->reg);
		buf_printf(&b, "  %s f; (void)f;\n", fn);
		buf_puts(&b, "  mk_try::arr<unsigned char> trap(a.size()); bool trapped = false;\n");
		/* the result type of the functor, checked where the call is */
		buf_puts(&b, "#if MK_MODE == 0\n");
		buf_printf(&b, "#line %lu \"%s\"\n", r->line, pl->metal_rel);
		buf_printf(&b, "  static_assert(std::is_same<decltype(f(a[0]%s%s)), OUT>::value, \"%s: the functor's result type is not the registration's output %s\");\n",
		           b0, al ? ", alpha" : "", r->call, r->out);
		buf_printf(&b, "#line %lu \"<mps-try driver>\"\n", 1000 + k);
		buf_puts(&b, "#endif\n");
		buf_puts(&b, "#if MK_MODE == 2\n");
		if (try_is_float(r->in) && try_is_float(r->out)) {
			buf_puts(&b, "  mk_try::arr<double> o(a.size());\n");
			buf_printf(&b, "  mk_try::each(a.size(), trap, trapped, [&](size_t i) { if (mk_try::sampled && !sel[i]) return; o[i] = (double)f(mk_try::d1(a[i])%s%s); });\n",
			           ter ? ", mk_try::d1(b[i]), mk_try::d1(c[i])"
			           : bin ? ", mk_try::d1(b[i])" : "", al ? ", alpha" : "");
			buf_printf(&b, "  if (!mk_try::wr(dir, \"c%zu.f64\", o)) return mk_try::fail(\"cannot write\");\n", k);
		}
		buf_puts(&b, "#else\n  mk_try::arr<OUT> o(a.size());\n");
		buf_puts(&b, "#if MK_MODE == 1\n");
		if (r->dense) {
			size_t j;
			buf_puts(&b, "  const uint mk_n = (uint)a.size(); (void)mk_n;\n");
			buf_printf(&b, "  mk_try::each(a.size(), trap, trapped, [&](size_t i) { if (mk_try::sampled && !sel[i]) return; %s(o.data(), a.data(),%s%s%s (uint)i); });\n",
			           r->dense, bd, al ? " alpha," : "",
			           r->run_numel[0] ? " mk_n," : "");
			buf_printf(&b, "  std::printf(\"case %zu kernel %s 0\\n\");\n", k,
			           r->kernels[r->run[0]].name);
			/* the others: the same inputs, the bytes compared with the
			 * first's (not when an input trapped: an ILP thread stops at
			 * its trapping element) */
			for (j = 1; j < r->nrun; j++) {
				const struct mr_inst *kk = &r->kernels[r->run[j]];
				char *call = mr_inst_call(kk);
				buf_puts(&b, "  if (!mk_try::sampled) {\n    mk_try::arr<OUT> o2(a.size()); mk_try::arr<unsigned char> t2(a.size()); bool tr2 = false;\n");
				buf_printf(&b, "    mk_try::each(a.size(), t2, tr2, [&](size_t i) { %s(o2.data(), a.data(),%s%s%s (uint)i); });\n",
				           call, bd, al ? " alpha," : "",
				           r->run_numel[j] ? " mk_n," : "");
				buf_puts(&b, "    size_t d = 0;\n"
				             "    if (!trapped && !tr2)\n"
				             "      for (size_t i = 0; i < a.size(); i++) {\n"
				             "        const unsigned char *x = (const unsigned char *)&o[i], *y = (const unsigned char *)&o2[i];\n"
				             "        for (size_t q = 0; q < sizeof(OUT); q++) if (x[q] != y[q]) { d++; break; }\n"
				             "      }\n");
				buf_printf(&b, "    if (trapped || tr2) std::printf(\"case %zu kernel %s -\\n\");\n"
				               "    else std::printf(\"case %zu kernel %s %%zu\\n\", d);\n  }\n",
				           k, kk->name, k, kk->name);
				free(call);
			}
		} else
			buf_puts(&b, "#error no dense kernel template for this registration\n");
		buf_puts(&b, "#else\n");
		buf_printf(&b, "  mk_try::each(a.size(), trap, trapped, [&](size_t i) { if (mk_try::sampled && !sel[i]) return; o[i] = f(a[i]%s%s); });\n",
		           bi, al ? ", alpha" : "");
		buf_puts(&b, "#endif\n");
		buf_printf(&b, "  if (trapped && !mk_try::wr(dir, \"c%zu.trap\", trap)) return mk_try::fail(\"cannot write\");\n", k);
		buf_printf(&b, "  if (!mk_try::wr(dir, \"c%zu.out\", o)) return mk_try::fail(\"cannot write\");\n", k);
		buf_puts(&b, "#endif\n");
		/* the overload: one call on the first input */
		buf_puts(&b, "  mk_try::hit = 0;\n");
		buf_printf(&b, "  if (!a.empty()) (void)::metal_host::guard([&] { (void)f(a[0]%s%s); });\n",
		           b0, al ? ", alpha" : "");
		buf_printf(&b, "  std::printf(\"case %zu overload %%lu\\n\", mk_try::hit);\n", k);
		buf_puts(&b, "  return 0;\n}\n#endif\n");
	}
	buf_puts(&b, "int main(int argc, char **argv) {\n"
	             "  if (argc != 2 && argc != 3)\n"
	             "    return mk_try::fail(\"usage: harness DIR [sampled]\");\n"
	             "  mk_try::sampled = argc == 3;\n"
	             "  int rc = 0;\n");
	for (k = 0; k < pl->ncases; k++)
		buf_printf(&b, "#if !defined(MK_SEL) || defined(MK_ON_%zu)\n"
		               "  rc |= case_%zu(argv[1]);\n#endif\n",
		           pl->cases[k].reg, k);
	buf_puts(&b, "  std::fflush(stdout);\n  return rc;\n}\n");
	return b.data;
}

/* ------------------------------------------------------------------ */
/* the manifest and the reference script                               */

static const char *torch_dtype(const char *dt)
{
	const char *t = try_torch_dtype(dt, NULL);
	return t ? t : dt;
}

char *try_manifest(const struct try_plan *pl)
{
	json_t *m = json_object(), *args = json_array(), *cases = json_array();
	char *s;
	size_t i;
	json_object_set_new(m, "op", json_string(pl->op_base));
	json_object_set_new(m, "overload", json_string(pl->overload));
	json_object_set_new(m, "func", json_string(pl->func));
	if (pl->bool_input > 0)
		json_object_set_new(m, "bool_input", json_integer(pl->bool_input));
	for (i = 0; i < pl->nargs; i++) {
		const struct try_arg *a = &pl->args[i];
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(a->name));
		json_object_set_new(o, "type", json_string(a->type));
		json_object_set_new(o, "kwarg", json_boolean(a->kwarg));
		json_object_set_new(o, "tensor", json_boolean(a->tensor && !a->constant));
		json_object_set_new(o, "constant", json_boolean(a->constant));
		json_object_set_new(o, "alpha", json_boolean((long)i == pl->alpha_arg));
		if (a->given && (long)i != pl->alpha_arg)
			json_object_set_new(o, "value", json_string(a->given));
		else if (a->def)
			json_object_set_new(o, "value", json_string(a->def));
		json_array_append_new(args, o);
	}
	json_object_set_new(m, "args", args);
	for (i = 0; i < pl->ncases; i++) {
		const struct try_case *c = &pl->cases[i];
		const struct try_reg *r = &pl->regs[c->reg];
		json_t *o = json_object();
		json_object_set_new(o, "case", json_integer((json_int_t)i));
		json_object_set_new(o, "reg", json_integer((json_int_t)c->reg));
		json_object_set_new(o, "in", json_string(torch_dtype(r->in)));
		json_object_set_new(o, "out", json_string(torch_dtype(r->out)));
		json_object_set_new(o, "binary", json_boolean(is_binary(r->kind)));
		if (is_ternary(r->kind))
			json_object_set_new(o, "ternary", json_true());
		if (c->arg_value)
			json_object_set_new(o, "alpha", json_string(c->arg_value));
		json_array_append_new(cases, o);
	}
	json_object_set_new(m, "cases", cases);
	s = json_dumps(m, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(m);
	if (!s)
		die("out of memory");
	{
		char *r = xasprintf("%s\n", s);
		free(s);
		return r;
	}
}

static const char script[] =
	"# mps-try reference: PyTorch's CPU result of the same operator\n"
	"# (generated by mps-try; reads DIR/manifest.json and the input files,\n"
	"# writes DIR/cK.ref and DIR/cK.json; nothing else).  DIR sampled: the\n"
	"# run after the first ran past its time limit: the cases without a\n"
	"# cK.json, on the inputs DIR/rR.sel marks sampled (the others masked)\n"
	"import ast, json, os, sys\n"
	"d = sys.argv[1]\n"
	"sampled = sys.argv[2:] == ['sampled']\n"
	"m = json.load(open(os.path.join(d, 'manifest.json')))\n"
	"try:\n"
	"    import torch\n"
	"except Exception as e:\n"
	"    open(os.path.join(d, 'no-torch'), 'w').write(type(e).__name__ + ': ' + str(e) + '\\n')\n"
	"    sys.exit(0)\n"
	"open(os.path.join(d, 'torch-version'), 'w').write(torch.__version__ + '\\n')\n"
	"open(os.path.join(d, 'torch-dir'), 'w').write(os.path.dirname(torch.__file__) + '\\n')\n"
	"torch.set_num_threads(1)\n"
	"SIZE = {'float32': 4, 'float16': 2, 'bfloat16': 2, 'int64': 8, 'int32': 4,\n"
	"        'int16': 2, 'int8': 1, 'uint8': 1, 'bool': 1, 'complex64': 8, 'complex32': 4}\n"
	"def load(name, dt):\n"
	"    raw = bytearray(open(os.path.join(d, name), 'rb').read())\n"
	"    if dt in ('float16', 'bfloat16'):\n"
	"        return torch.frombuffer(raw, dtype=torch.int16).view(getattr(torch, dt))\n"
	"    if dt == 'complex32':\n"
	"        h = torch.frombuffer(raw, dtype=torch.int16).view(torch.float16).float()\n"
	"        return torch.complex(h[0::2], h[1::2])\n"
	"    if dt == 'complex64':\n"
	"        f = torch.frombuffer(raw, dtype=torch.float32)\n"
	"        return torch.complex(f[0::2], f[1::2])\n"
	"    return torch.frombuffer(raw, dtype=getattr(torch, dt)).clone()\n"
	"def value(s):\n"
	"    if s is None:\n"
	"        return None\n"
	"    try:\n"
	"        return ast.literal_eval(s)\n"
	"    except Exception:\n"
	"        return {'true': True, 'false': False, 'inf': float('inf'), '-inf': float('-inf'), 'nan': float('nan')}.get(s, s)\n"
	"fn = getattr(getattr(torch.ops.aten, m['op']), m['overload'] or 'default')\n"
	"def call(tensors, alpha):\n"
	"    pos, kw, ti = [], {}, 0\n"
	"    for a in m['args']:\n"
	"        if a.get('constant'):\n"
	"            v = torch.full_like(tensors[0], value(a['value']))\n"
	"        elif a['tensor']:\n"
	"            v = tensors[ti]; ti += 1\n"
	"        elif a['alpha'] and alpha is not None:\n"
	"            v = value(alpha)\n"
	"        elif 'value' in a:\n"
	"            v = value(a['value'])\n"
	"        else:\n"
	"            continue\n"
	"        if a['kwarg']:\n"
	"            kw[a['name']] = v\n"
	"        else:\n"
	"            pos.append(v)\n"
	"    return fn(*pos, **kw)\n"
	"def up(t):\n"
	"    if t.dtype in (torch.float16, torch.bfloat16):\n"
	"        return t.float()\n"
	"    return t\n"
	"def traps(args, alpha):\n"
	"    # 1 when the call dies of a signal (SIGFPE): tried in a child\n"
	"    pid = os.fork()\n"
	"    if pid == 0:\n"
	"        try:\n"
	"            call(args, alpha)\n"
	"        except Exception:\n"
	"            pass\n"
	"        os._exit(0)\n"
	"    return os.waitpid(pid, 0)[1] != 0\n"
	"def done(k):\n"
	"    try:\n"
	"        json.load(open(os.path.join(d, 'c%d.json' % k)))\n"
	"        return True\n"
	"    except Exception:\n"
	"        return False\n"
	"for c in m['cases']:\n"
	"    k = c['case']; info = {}\n"
	"    if sampled and done(k):\n"
	"        continue\n"
	"    ins = [load('r%d.a' % c['reg'], c['in'])]\n"
	"    if c['binary']:\n"
	"        ins.append(load('r%d.b' % c['reg'], c['in']))\n"
	"    if c.get('ternary'):\n"
	"        ins.append(load('r%d.c' % c['reg'], c['in']))\n"
	"    sel = None\n"
	"    if sampled:\n"
	"        sel = load('r%d.sel' % c['reg'], 'bool')\n"
	"        ins = [t[sel] for t in ins]\n"
	"    if m.get('bool_input'):\n"
	"        # a condition the operator reads as bool: nonzero is true\n"
	"        ins[m['bool_input'] - 1] = ins[m['bool_input'] - 1] != 0\n"
	"    mask = None\n"
	"    trap = False\n"
	"    if c['binary'] and not c.get('ternary') and not ins[0].dtype.is_floating_point and not ins[0].is_complex() and ins[0].dtype != torch.bool:\n"
	"        # the CPU itself may trap (SIGFPE) on x / 0 or MIN / -1: try in a child first\n"
	"        trap = traps(ins, c.get('alpha'))\n"
	"    try:\n"
	"        if c['in'] == 'complex32':\n"
	"            raise RuntimeError('complex32: computed in complex64')\n"
	"        if trap:\n"
	"            raise RuntimeError('ZeroDivision: the CPU traps (SIGFPE)')\n"
	"        out = call(ins, c.get('alpha'))\n"
	"    except Exception as e:\n"
	"        msg = str(e).splitlines()[0] if str(e) else type(e).__name__\n"
	"        try:\n"
	"            if 'ZeroDivision' in msg and c['binary'] and not c.get('ternary'):\n"
	"                info['note'] = 'the CPU traps or raises on an integer division by zero or MIN / -1: those inputs are not compared'\n"
	"                lo = torch.iinfo(ins[1].dtype).min\n"
	"                ins[1] = ins[1].clone()\n"
	"                mask = (ins[1] != 0) & ~((ins[0] == lo) & (ins[1] == -1))\n"
	"                if traps([ins[0], torch.where(mask, ins[1], torch.ones_like(ins[1]))], c.get('alpha')):\n"
	"                    # MIN inside the CPU's formula (lcm: abs(MIN) < 0, then MIN / -1)\n"
	"                    mask = mask & (ins[0] != lo) & (ins[1] != lo)\n"
	"                    info['note'] = 'the CPU traps or raises on an integer division by zero or MIN / -1, also inside its formula for an input of MIN: those inputs are not compared'\n"
	"                safe = torch.where(mask, ins[1], torch.ones_like(ins[1]))\n"
	"                a0 = torch.where(mask, ins[0], torch.ones_like(ins[0]))\n"
	"                if traps([a0, safe], c.get('alpha')):\n"
	"                    raise RuntimeError('the CPU traps (SIGFPE) on inputs past division by zero, MIN / -1 and MIN')\n"
	"                out = call([a0, safe], c.get('alpha'))\n"
	"            else:\n"
	"                out = call([up(t) for t in ins], c.get('alpha'))\n"
	"                info['note'] = 'computed in float32 and rounded to %s (the CPU: %s)' % (c['in'], msg)\n"
	"                info['upcast'] = True\n"
	"        except Exception as e2:\n"
	"            info['error'] = (str(e2).splitlines()[0] if str(e2) else type(e2).__name__)\n"
	"            json.dump(info, open(os.path.join(d, 'c%d.json' % k), 'w'))\n"
	"            continue\n"
	"    if not isinstance(out, torch.Tensor):\n"
	"        out = out[0]\n"
	"    info['dtype'] = str(out.dtype).replace('torch.', '')\n"
	"    if info.get('upcast') and out.dtype == torch.float32 and c['out'] in ('float16', 'bfloat16'):\n"
	"        out = out.to(getattr(torch, c['out']))\n"
	"        info['dtype'] = c['out']\n"
	"    if info.get('upcast') and out.dtype == torch.complex64 and c['out'] == 'complex32':\n"
	"        out = torch.complex(out.real.half().float(), out.imag.half().float())\n"
	"        info['dtype'] = 'complex32'\n"
	"    if c['in'] == 'complex32' and out.dtype == torch.complex64:\n"
	"        out = torch.complex(out.real.half().float(), out.imag.half().float())\n"
	"        info['dtype'] = 'complex32'\n"
	"        info['note'] = 'computed in complex64 and rounded to complex32'\n"
	"    out = out.reshape(-1)\n"
	"    if sel is not None:\n"
	"        # back to every input's place; the unsampled ones masked\n"
	"        full = torch.zeros(sel.numel(), dtype=out.dtype)\n"
	"        full[sel] = out\n"
	"        out = full\n"
	"        if mask is not None:\n"
	"            m2 = sel.clone(); m2[sel] = mask; mask = m2\n"
	"        else:\n"
	"            mask = sel\n"
	"        info['note'] = 'the reference ran past the time limit on every input: computed again on the %d the tests sample; the other %d are not compared' % (int(sel.sum()), sel.numel() - int(sel.sum())) + ('; ' + info['note'] if info.get('note') else '')\n"
	"    if out.is_complex():\n"
	"        data = torch.stack([out.real.double(), out.imag.double()], 1).reshape(-1)\n"
	"        info['format'] = 'c128'\n"
	"    elif out.dtype.is_floating_point:\n"
	"        data = out.double(); info['format'] = 'f64'\n"
	"    else:\n"
	"        data = out.long(); info['format'] = 'i64'\n"
	"    if mask is not None:\n"
	"        open(os.path.join(d, 'c%d.mask' % k), 'wb').write(mask.to(torch.uint8).numpy().tobytes())\n"
	"        info['mask'] = True\n"
	"    open(os.path.join(d, 'c%d.ref' % k), 'wb').write(data.numpy().tobytes())\n"
	"    json.dump(info, open(os.path.join(d, 'c%d.json' % k), 'w'))\n";

const char *try_reference_script(void)
{
	return script;
}
