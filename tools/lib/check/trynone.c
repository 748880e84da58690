/* trynone.c — try.h's try_none_value: what the host gives a kernel for an
 * optional scalar argument that is None, read from the checkout's own
 * sources (hostscan for the MPS host files, cppscan for the shared C++
 * kernel that calls the stub). */
#include "check/try.h"
#include "base/diag.h"
#include "base/lex.h"
#include "base/scan.h"
#include "read/stubs.h"
#include "read/hostscan.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define LIT "([-+]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][-+]?[0-9]+)?)[fFlL]?"

/* EXPR without blanks and without the wrappers that do not change its
 * value: Scalar(...), static_cast<T>(...), a C cast to a scalar type,
 * outer parentheses; "(*N)" and "(N.value())" lose theirs */
static char *compact(const char *expr)
{
	struct buf b;
	char *s;
	int changed = 1;
	const char *p;
	buf_init(&b);
	for (p = expr; *p; p++)
		if (!isspace((unsigned char)*p))
			buf_add(&b, p, 1);
	s = b.data;
	while (changed) {
		size_t n = strlen(s), k;
		static const char *const heads[] = {"c10::Scalar(", "at::Scalar(", "Scalar(", NULL};
		changed = 0;
		for (k = 0; heads[k]; k++) {
			size_t l = strlen(heads[k]);
			if (n > l && !strncmp(s, heads[k], l) && s[n - 1] == ')') {
				memmove(s, s + l, n - l - 1);
				s[n - l - 1] = '\0';
				changed = 1;
				break;
			}
		}
		if (changed)
			continue;
		if (!strncmp(s, "static_cast<", 12)) {
			char *gt = strchr(s, '>');
			if (gt && gt[1] == '(' && s[n - 1] == ')') {
				size_t a = (size_t)(gt + 2 - s);
				memmove(s, s + a, n - a - 1);
				s[n - a - 1] = '\0';
				changed = 1;
				continue;
			}
		}
		if (s[0] == '(' && s[n - 1] == ')') {
			/* outer parentheses, when they pair with each other */
			size_t i;
			int d = 0, outer = 1;
			for (i = 0; i < n && outer; i++) {
				d += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
				if (d == 0 && i < n - 1)
					outer = 0;
			}
			if (outer) {
				memmove(s, s + 1, n - 2);
				s[n - 2] = '\0';
				changed = 1;
			}
		}
	}
	/* casts and parentheses inside: "(double)" "(float)", "static_cast<T>(x)" */
	{
		static const char *const casts[] = {"(double)", "(float)", NULL};
		size_t k;
		for (k = 0; casts[k]; k++) {
			char *q;
			size_t l = strlen(casts[k]);
			while ((q = strstr(s, casts[k])) != NULL)
				memmove(q, q + l, strlen(q + l) + 1);
		}
		for (;;) {
			char *q = strstr(s, "static_cast<"), *gt;
			if (!q || !(gt = strchr(q, '>')))
				break;
			memmove(q, gt + 1, strlen(gt + 1) + 1);
		}
	}
	return s;
}

/* the literal EXPR gives for None of the optional NAME, or NULL:
 * NAME ? *NAME : L, NAME ? NAME.value() : L, NAME.has_value() ? ... : L,
 * NAME.value_or(L), !NAME ? L : *NAME, NAME == nullopt ? L : *NAME */
static char *none_literal(const char *expr, const char *name)
{
	char *s = compact(expr), *pat, *r = NULL;
	struct mk_re re;
	size_t ov[40];
	const char *n = name;
	int g;
	pat = xasprintf(
		"^(?:\\(?%s(?:\\.has_value\\(\\))?\\)?\\?\\(?(?:\\*%s|%s\\.value\\(\\))\\)?:" LIT
		"|%s\\.value_or\\(" LIT "\\)"
		"|\\(?(?:!%s|!%s\\.has_value\\(\\)|%s==(?:std::|c10::)?nullopt)\\)?\\?" LIT
		":\\(?(?:\\*%s|%s\\.value\\(\\))\\)?)$",
		n, n, n, n, n, n, n, n, n);
	re_compile(&re, pat, 0);
	if (re_match(&re, s, strlen(s), 0, ov, 20))
		for (g = 1; g <= 3 && !r; g++)
			if (ov[2 * g] != (size_t)-1 && ov[2 * g + 1] > ov[2 * g])
				r = xstrndup(s + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
	re_free(&re);
	free(pat);
	free(s);
	return r;
}

static int is_ident(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return 0;
	return 1;
}

/* the initializer of the local V in the masked text t[a, b): `V = X;`,
 * `V{X}` or `V(X)` after a type; malloc'd, or NULL */
static char *initializer(const char *t, size_t a, size_t b, const char *v)
{
	size_t l = strlen(v), i;
	for (i = a; i + l < b; i++) {
		size_t j, e;
		if (strncmp(t + i, v, l) || (i > a && (isalnum((unsigned char)t[i - 1]) || t[i - 1] == '_')) ||
		    isalnum((unsigned char)t[i + l]) || t[i + l] == '_')
			continue;
		j = i + l;
		while (j < b && isspace((unsigned char)t[j]))
			j++;
		if (j < b && t[j] == '=' && j + 1 < b && t[j + 1] != '=') {
			for (e = j + 1; e < b && t[e] != ';'; e++)
				;
			if (e < b)
				return lex_trim_dup(t, j + 1, e);
		}
	}
	return NULL;
}

/* the call of, or passing, the identifier S at line LINE of the masked
 * text t: its arguments; NULL when none is found */
static char **call_args_at(const char *t, size_t n, unsigned long line,
                           const char *s, size_t *na)
{
	size_t i = 0, l = strlen(s);
	unsigned long ln = 1;
	*na = 0;
	for (i = 0; i < n && ln < line; i++)
		ln += t[i] == '\n';
	for (; i + l <= n && t[i] != '\n'; i++) {
		size_t open = n, j, close;
		int d = 0;
		if (strncmp(t + i, s, l) || (i > 0 && (isalnum((unsigned char)t[i - 1]) || t[i - 1] == '_')) ||
		    (i + l < n && (isalnum((unsigned char)t[i + l]) || t[i + l] == '_')))
			continue;
		j = i + l;
		while (j < n && isspace((unsigned char)t[j]))
			j++;
		if (j < n && t[j] == '(')
			open = j; /* S(...) */
		else
			for (j = i; j-- > 0;) { /* the call S is passed to */
				if (t[j] == ')')
					d++;
				else if (t[j] == '(' && d-- == 0) {
					open = j;
					break;
				} else if (t[j] == ';' || t[j] == '{' || t[j] == '}')
					break;
			}
		if (open == n)
			continue;
		close = lex_match_close(t, n, open, '(', ')');
		if (close < n)
			return lex_split_args(t, open, close, na);
	}
	return NULL;
}

int try_none_value(const char *root, const char *kernel, const char *arg,
                   char *const *cpu_kernels, size_t ncpu, char **value,
                   char **where)
{
	struct hs_model hm;
	size_t i;
	int found = 0;

	*value = NULL;
	*where = NULL;
	if (hs_load(&hm, root) != 0)
		return -1;
	for (i = 0; i < hm.nreqs && !found; i++) {
		const struct hs_req *r = &hm.reqs[i];
		const struct hs_file *f = &hm.files[r->at.file];
		char *e, *v;
		unsigned long ln, col;
		int depth;
		if (strcmp(r->kernel, kernel) != 0 || r->nargs == 0)
			continue;
		hs_line_col(&hm, r->at, &ln, &col);
		e = xstrdup(r->args[0]);
		/* the expression itself, or a local it names (a few levels) */
		for (depth = 0; depth < 4 && e; depth++) {
			char *c = compact(e);
			if ((v = none_literal(e, arg)) != NULL) {
				*value = v;
				*where = xasprintf("%s:%lu", f->rel, ln);
				found = 1;
				free(c);
				break;
			}
			if (!is_ident(c) || r->in_def < 0) {
				free(c);
				break;
			}
			{
				const struct hs_def *d = &hm.defs[r->in_def];
				char *m = mask_code(f->text, f->len, LANG_C);
				char *init = initializer(m, d->ext_start, d->ext_end, c);
				free(m);
				if (!init) {
					/* a parameter: the stub the function is registered
					 * as, called by the shared C++ kernel */
					size_t k;
					const char *stub = NULL;
					for (k = 0; k < hm.nregs && !stub; k++)
						if (hm.regs[k].def == r->in_def)
							stub = hm.regs[k].stub;
					if (stub && ncpu) {
						struct cs_model cm;
						if (cs_load(&cm, root) != 0) {
							free(c);
							free(e);
							hs_free(&hm);
							return -1;
						}
						for (k = 0; k < ncpu && !found; k++) {
							struct cs_discovery dsc;
							size_t s;
							cs_discover(&cm, lex_unqualified(cpu_kernels[k]), &dsc);
							for (s = 0; s < dsc.nstubs && !found; s++) {
								const struct cs_stub *st = &dsc.stubs[s];
								char *path, *data, *mt, **av;
								size_t len, na, q;
								if (strcmp(st->name, stub) || !st->at.file)
									continue;
								path = xasprintf("%s/%s", root, st->at.file);
								if (read_source_file(path, &data, &len) != 0) {
									free(path);
									continue;
								}
								free(path);
								mt = mask_code(data, len, LANG_C);
								av = call_args_at(mt, len, st->at.line, stub, &na);
								for (q = 0; q < na && !found; q++)
									if ((v = none_literal(av[q], arg)) != NULL) {
										*value = v;
										*where = xasprintf("%s:%lu", st->at.file, st->at.line);
										found = 1;
									}
								lex_strv_free(av, na);
								free(mt);
								free(data);
							}
							cs_discovery_free(&dsc);
						}
						cs_free(&cm);
					}
					free(c);
					break;
				}
				free(e);
				e = init;
			}
			free(c);
		}
		free(e);
	}
	hs_free(&hm);
	return found;
}
