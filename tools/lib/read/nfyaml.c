/* nfyaml.c — see nfyaml.h.  The rules cited in comments are torchgen's
 * (PyTorch's own model of native_functions.yaml). */
#include "read/nfyaml.h"
#include "base/diag.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "base/scan.h"

/* ------------------------------------------------------------------ */
/* small helpers                                                       */

static const char *kind_names[] = {"functional", "inplace", "out", "mutable",
                                   "scratch"};
static const char *route_names[] = {"shared", "mps-specific", "delegate",
                                    "composite", "none"};

const char *nf_kind_name(enum nf_kind k) { return kind_names[k]; }
const char *nf_route_name(enum nf_route r) { return route_names[r]; }

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

/* ------------------------------------------------------------------ */
/* operator names (torchgen OperatorName.parse / BaseOperatorName.parse) */

/* torchgen's AUGMENTED_ASSIGNMENT_NAMES: dunders "__iX__" are in-place. */
static const char *const augmented[] = {
	"add", "sub", "mul", "div", "mod", "pow", "lshift", "rshift",
	"and", "xor", "or", NULL};

int nf_parse_opname(const char *name, char **base, char **overload,
                    int *inplace)
{
	const char *dot = strchr(name, '.');
	size_t n = dot ? (size_t)(dot - name) : strlen(name);
	char *b;
	size_t i, bl;
	int inp = 0;

	if (n == 0)
		return -1;
	for (i = 0; i < n; i++)
		if (!(isalnum((unsigned char)name[i]) || name[i] == '_'))
			return -1;
	if (dot)
		for (i = 1; dot[i]; i++)
			if (!(isalnum((unsigned char)dot[i]) || dot[i] == '_'))
				return -1;
	b = xstrndup(name, n);
	bl = n;
	if (bl > 4 && strncmp(b, "__", 2) == 0 && strcmp(b + bl - 2, "__") == 0 &&
	    !memchr(b + 2, '_', bl - 4)) {
		/* dunder: "__iand__" is in-place "and" */
		const char *const *a;
		char *inner = xstrndup(b + 2, bl - 4);
		for (a = augmented; *a; a++)
			if (inner[0] == 'i' && strcmp(inner + 1, *a) == 0)
				break;
		free(b);
		if (*a) {
			b = xstrdup(inner + 1);
			inp = 1;
		} else {
			b = xstrdup(inner);
		}
		free(inner);
	} else if (b[bl - 1] == '_') {
		b[--bl] = '\0';
		inp = 1;
		if (bl == 0) {
			free(b);
			return -1;
		}
	}
	bl = strlen(b);
	if (bl > 11 && strcmp(b + bl - 11, "_functional") == 0 && !inp)
		b[bl - 11] = '\0';
	*base = b;
	*overload = xstrdup(dot ? dot + 1 : "");
	*inplace = inp;
	return 0;
}

int nf_valid_op_arg(const char *s)
{
	int dots = 0;
	if (!*s || *s == '.' || strlen(s) > 200) /* ".add": no base name */
		return 0;
	for (; *s; s++) {
		if (*s == '.') {
			if (++dots > 1 || s[1] == '\0' || s[1] == '.')
				return 0;
		} else if (!(isalnum((unsigned char)*s) || *s == '_'))
			return 0;
	}
	return 1;
}

/* ------------------------------------------------------------------ */
/* schema strings (torchgen FunctionSchema.parse, Arguments._preparse,
 * Argument.parse, Annotation.parse, FunctionSchema.kind)              */

struct schema_info {
	enum nf_kind kind;
	int view;      /* a non-write alias annotation on a return, or a
	                  wildcard "-> *" on an argument (part of is_view_op) */
	unsigned ninputs; /* positional, not written, Tensor or Scalar */
	int alpha;     /* an argument `Scalar alpha` */
};

/* Annotation.parse: ^([a-z])(\|[a-z])*(!?)( -> (\*|[a-z](\|[a-z])*))?$
 * Sets *write and *wild ("*" in the alias set after). 0 ok, -1 bad. */
static int parse_annotation(const char *s, size_t n, int *write, int *wild)
{
	size_t i = 0;
	*write = *wild = 0;
	if (i >= n || !islower((unsigned char)s[i]))
		return -1;
	i++;
	while (i + 1 < n && s[i] == '|' && islower((unsigned char)s[i + 1]))
		i += 2;
	if (i < n && s[i] == '!') {
		*write = 1;
		i++;
	}
	if (i == n)
		return 0;
	if (n - i < 5 || strncmp(s + i, " -> ", 4) != 0)
		return -1;
	i += 4;
	if (s[i] == '*' && i + 1 == n) {
		*wild = 1;
		return 0;
	}
	if (!islower((unsigned char)s[i]))
		return -1;
	i++;
	while (i + 1 < n && s[i] == '|' && islower((unsigned char)s[i + 1]))
		i += 2;
	return i == n ? 0 : -1;
}

/* The "Tensor(ANN)SUFFIX" form of a type; returns 1 with the annotation
 * decoded, 0 when the type has no annotation, -1 when malformed. */
static int type_annotation(const char *t, size_t n, int *write, int *wild)
{
	const char *open, *close;
	size_t rest;
	*write = *wild = 0;
	if (n < 7 || strncmp(t, "Tensor(", 7) != 0)
		return memchr(t, '(', n) ? -1 : 0;
	open = t + 6;
	close = NULL;
	{
		const char *p;
		for (p = t + n - 1; p > open; p--)
			if (*p == ')') {
				close = p;
				break;
			}
	}
	if (!close)
		return -1;
	rest = (size_t)(t + n - close - 1);
	if (!(rest == 0 || (rest == 1 && close[1] == '?') ||
	      (rest == 2 && close[1] == '[' && close[2] == ']')))
		return -1;
	if (parse_annotation(open + 1, (size_t)(close - open - 1), write, wild) != 0)
		return -1;
	return 1;
}

/* Parses FUNC (namespace already removed).  On failure returns -1 and a
 * static message in *why. */
static int parse_schema(const char *func, char **name_out,
                        struct schema_info *si, const char **why)
{
	const char *paren = strchr(func, '(');
	const char *arrow, *args, *args_end, *p;
	int kwarg = 0, in_out = 0, is_out = 0, is_scratch = 0, is_mutable = 0;
	int seen_self = 0, saw_star = 0, write, wild;
	int write_before_self = 0, write_after_self = 0;
	size_t n;

	si->view = 0;
	si->ninputs = 0;
	si->alpha = 0;
	if (!paren || paren == func) {
		*why = "schema has no '(' after the operator name";
		return -1;
	}
	/* "(?P<name>[^\(]+)\((?P<args>.*)\) -> (?P<returns>.*)", greedy */
	arrow = NULL;
	for (p = func + strlen(func); p-- > paren;)
		if (strncmp(p, ") -> ", 5) == 0) {
			arrow = p;
			break;
		}
	if (!arrow) {
		*why = "schema has no ') -> RETURNS'";
		return -1;
	}
	*name_out = xstrndup(func, (size_t)(paren - func));
	args = paren + 1;
	args_end = arrow;

	/* arguments: split on ", " exactly as torchgen does */
	p = args;
	while (p < args_end) {
		const char *e = p, *sp, *eq;
		size_t tl;
		while (e < args_end && !(e[0] == ',' && e + 1 < args_end && e[1] == ' '))
			e++;
		n = (size_t)(e - p);
		if (n == 1 && *p == '*') {
			if (saw_star) {
				*why = "kwarg-only marker '*' appears twice";
				goto bad;
			}
			saw_star = kwarg = 1;
		} else if (n > 0) {
			sp = NULL;
			{
				const char *q;
				for (q = e; q-- > p;)
					if (*q == ' ') {
						sp = q;
						break;
					}
			}
			if (!sp || sp == p || sp + 1 == e) {
				*why = "argument without a type and a name";
				goto bad;
			}
			tl = (size_t)(sp - p);
			eq = memchr(sp + 1, '=', (size_t)(e - sp - 1));
			switch (type_annotation(p, tl, &write, &wild)) {
			case -1:
				*why = "bad alias annotation in an argument type";
				goto bad;
			case 0:
				write = wild = 0;
				break;
			}
			if (wild)
				si->view = 1;
			{
				size_t nl = eq ? (size_t)(eq - sp - 1) : (size_t)(e - sp - 1);
				const char *nm = sp + 1;
				if (nl == 0) {
					*why = "argument without a name";
					goto bad;
				}
				if (tl == 6 && strncmp(p, "Scalar", 6) == 0 && nl == 5 &&
				    strncmp(nm, "alpha", 5) == 0)
					si->alpha = 1;
				else if (!kwarg && !write &&
				         ((tl == 6 && strncmp(p, "Scalar", 6) == 0) ||
				          (tl >= 6 && strncmp(p, "Tensor", 6) == 0 &&
				           (tl == 6 || p[6] == '('))))
					si->ninputs++;
				if (!kwarg) {
					if (in_out) {
						*why = "positional argument after out arguments";
						goto bad;
					}
					if (nl == 4 && strncmp(nm, "self", 4) == 0 && !seen_self)
						seen_self = 1;
					else if (write && seen_self)
						write_after_self = 1;
					else if (write)
						write_before_self = 1;
				} else if (write) {
					in_out = 1;
					is_out = 1;
					if (nl >= 9 && strncmp(nm, "_scratch_", 9) == 0)
						is_scratch = 1;
				} else if (in_out) {
					*why = "non-out keyword argument after out arguments";
					goto bad;
				}
			}
		}
		p = e < args_end ? e + 2 : e;
	}
	/* post_self_positional: with a self argument only the positional
	 * arguments after it; without one, all of them (Arguments.parse). */
	is_mutable = seen_self ? write_after_self : write_before_self;

	/* returns: "T", "T name", "(T, T name, ...)", "()" */
	p = arrow + 5;
	n = strlen(p);
	if (n == 0) {
		*why = "schema has an empty return";
		goto bad;
	}
	{
		const char *r = p, *rend = p + n;
		if (*r == '(') {
			if (rend[-1] != ')') {
				*why = "unbalanced parentheses in the returns";
				goto bad;
			}
			r++;
			rend--;
		}
		while (r < rend) {
			const char *e = r, *sp = NULL, *q;
			size_t tl;
			int depth = 0;
			while (e < rend) {
				if (*e == '(')
					depth++;
				else if (*e == ')')
					depth--;
				else if (depth == 0 && e[0] == ',' && e + 1 < rend && e[1] == ' ')
					break;
				e++;
			}
			/* Return.parse: rsplit(" ", 1) gives type and name; a space
			 * inside the annotation ("Tensor(a -> *)") is not a name */
			for (q = e; q-- > r;)
				if (*q == ' ') {
					if (!memchr(q, ')', (size_t)(e - q)))
						sp = q;
					break;
				}
			tl = sp ? (size_t)(sp - r) : (size_t)(e - r);
			if (tl == 0) {
				*why = "empty return type";
				goto bad;
			}
			switch (type_annotation(r, tl, &write, &wild)) {
			case -1:
				*why = "bad alias annotation in a return type";
				goto bad;
			case 1:
				if (!write)
					si->view = 1;
				break;
			}
			r = e < rend ? e + 2 : e;
		}
	}

	/* FunctionSchema.kind() */
	{
		char *b, *o;
		int inplace;
		if (nf_parse_opname(*name_out, &b, &o, &inplace) != 0) {
			*why = "bad operator name";
			goto bad;
		}
		free(b);
		free(o);
		if (inplace && is_out) {
			*why = "an in-place operator cannot have out arguments";
			goto bad;
		}
		if (inplace)
			si->kind = NF_INPLACE;
		else if (is_scratch)
			si->kind = NF_SCRATCH;
		else if (is_out)
			si->kind = NF_OUT;
		else if (is_mutable)
			si->kind = NF_MUTABLE;
		else
			si->kind = NF_FUNCTIONAL;
	}
	return 0;
bad:
	free(*name_out);
	*name_out = NULL;
	return -1;
}

/* The schema of a `func:` value without its namespace: "ns::name(...)"
 * has one level at most (torchgen's NamespaceHelper). */
static const char *schema_body(const char *func)
{
	const char *colons = strstr(func, "::"), *paren = strchr(func, '(');
	return colons && (!paren || colons < paren) ? colons + 2 : func;
}

int nf_parse_schema(const char *func, char **name, enum nf_kind *kind,
                    const char **why)
{
	/* the same steps as read_entry; parse_schema also checks the
	 * operator name */
	struct schema_info si;
	*name = NULL;
	if (parse_schema(schema_body(func), name, &si, why) != 0)
		return -1;
	*kind = si.kind;
	return 0;
}

int nf_schema_scalars(const char *schema, struct nf_scalar *out, size_t max)
{
	static const char *const types[] = {"int", "SymInt", "float", "Scalar",
	                                    NULL};
	const char *func = schema_body(schema), *paren = strchr(func, '(');
	const char *end = NULL, *p, *q;
	int kwarg = 0, n = 0;
	if (!paren)
		return -1;
	for (q = func + strlen(func); q-- > paren;)
		if (strncmp(q, ") -> ", 5) == 0) {
			end = q;
			break;
		}
	if (!end)
		return -1;
	/* arguments: split on ", " as torchgen does */
	for (p = paren + 1; p < end;) {
		const char *e = p, *sp = NULL, *eq, *nm;
		size_t tl, nl, k;
		int opt;
		while (e < end && !(e[0] == ',' && e + 1 < end && e[1] == ' '))
			e++;
		if (e - p == 1 && *p == '*') {
			kwarg = 1;
			p = e < end ? e + 2 : e;
			continue;
		}
		for (q = e; q-- > p;)
			if (*q == ' ') {
				sp = q;
				break;
			}
		if (!sp) {
			p = e < end ? e + 2 : e;
			continue;
		}
		tl = (size_t)(sp - p);
		opt = tl > 0 && p[tl - 1] == '?';
		if (opt)
			tl--;
		nm = sp + 1;
		eq = memchr(nm, '=', (size_t)(e - nm));
		nl = eq ? (size_t)(eq - nm) : (size_t)(e - nm);
		for (k = 0; types[k]; k++)
			if (strlen(types[k]) == tl && strncmp(p, types[k], tl) == 0)
				break;
		if (types[k]) {
			if ((size_t)n < max) {
				struct nf_scalar *s = &out[n];
				snprintf(s->type, sizeof s->type, "%s", types[k]);
				snprintf(s->name, sizeof s->name, "%.*s",
				         (int)(nl < sizeof s->name ? nl : sizeof s->name - 1),
				         nm);
				s->optional = opt;
				s->kwarg = kwarg;
				s->operand = strcmp(types[k], "Scalar") == 0 && !opt &&
				             !kwarg &&
				             !(nl == 5 && strncmp(nm, "alpha", 5) == 0);
			}
			n++;
		}
		p = e < end ? e + 2 : e;
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* the yaml reader                                                     */

struct reader {
	struct nf_index *ix;
	yaml_parser_t parser;
	yaml_event_t ev;
	int have_ev;
	size_t *lines;   /* byte offset where each line starts (whole file) */
	size_t nlines;
	/* per-entry raw data, moved into nf_func */
	size_t cap;
	size_t nextra;        /* extra entries zeroed by grow */
	/* per entry extra fields not kept in nf_func */
	struct extra {
		int manual_cpp_binding;
		int core, inplace_view;
		int view;               /* schema's view part of is_view_op */
		char *autogen;          /* raw autogen string */
		unsigned long autogen_line, autogen_col;
		unsigned long delegate_line, delegate_col;
		unsigned long func_col;  /* column of the `func` value */
	} *extra;
};

/* byte offset of a libyaml mark (libyaml counts characters, not bytes) */
static size_t mark_offset(const struct reader *r, const yaml_mark_t *m)
{
	size_t off, c, line = m->line;
	if (line >= r->nlines)
		return r->ix->len;
	off = r->lines[line];
	for (c = 0; c < m->column && off < r->ix->len; c++) {
		unsigned char ch = (unsigned char)r->ix->text[off];
		off++;
		if (ch >= 0xC0)
			while (off < r->ix->len &&
			       ((unsigned char)r->ix->text[off] & 0xC0) == 0x80)
				off++;
	}
	return off;
}

static int error_at(struct reader *r, const yaml_mark_t *m, const char *fmt,
                    const char *arg)
{
	char *msg = xasprintf(fmt, arg ? arg : "");
	diag_at(r->ix->path, m->line + 1, m->column + 1,
	        "error: %s", msg);
	free(msg);
	return -1;
}

static int next(struct reader *r)
{
	if (r->have_ev)
		yaml_event_delete(&r->ev);
	r->have_ev = 0;
	if (!yaml_parser_parse(&r->parser, &r->ev)) {
		const yaml_mark_t *m = &r->parser.problem_mark;
		const char *problem = r->parser.problem ? r->parser.problem
		                                        : "malformed YAML";
		if (r->parser.error == YAML_READER_ERROR) {
			/* reader errors carry a byte offset, not a mark */
			unsigned long line, col;
			line_col(r->ix->text, r->parser.problem_offset,
			         &line, &col);
			diag_at(r->ix->path, line, col, "error: %s", problem);
		} else if (r->parser.context)
			diag_at(r->ix->path, m->line + 1, m->column + 1,
			        "error: %s %s", problem, r->parser.context);
		else
			diag_at(r->ix->path, m->line + 1, m->column + 1,
			        "error: %s", problem);
		return -1;
	}
	r->have_ev = 1;
	if (r->ev.type == YAML_ALIAS_EVENT)
		return error_at(r, &r->ev.start_mark,
		                "YAML aliases are not supported here%s", NULL);
	return 0;
}

int nf_yaml_nesting(int type)
{
	switch (type) {
	case YAML_MAPPING_START_EVENT:
	case YAML_SEQUENCE_START_EVENT:
		return 1;
	case YAML_MAPPING_END_EVENT:
	case YAML_SEQUENCE_END_EVENT:
		return -1;
	default:
		return 0;
	}
}

/* skip the value that starts with the current event */
static int skip_value(struct reader *r)
{
	int depth = 0;
	do {
		depth += nf_yaml_nesting(r->ev.type);
		if (depth == 0)
			return 0;
	} while (next(r) == 0);
	return -1;
}

static const char *scalar(const struct reader *r)
{
	return (const char *)r->ev.data.scalar.value;
}

/* YAML 1.1 booleans as PyYAML reads a plain scalar; -1 when not a bool */
static int yaml_bool(const struct reader *r)
{
	static const char *const t[] = {"true", "True", "TRUE", "yes", "Yes",
	                                "YES", "on", "On", "ON", NULL};
	static const char *const f[] = {"false", "False", "FALSE", "no", "No",
	                                "NO", "off", "Off", "OFF", NULL};
	const char *v = scalar(r);
	int i;
	if (r->ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return -1;
	for (i = 0; t[i]; i++)
		if (strcmp(v, t[i]) == 0)
			return 1;
	for (i = 0; f[i]; i++)
		if (strcmp(v, f[i]) == 0)
			return 0;
	return -1;
}

static int is_null_scalar(const struct reader *r)
{
	const char *v = scalar(r);
	if (r->ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	return *v == '\0' || strcmp(v, "~") == 0 || strcmp(v, "null") == 0 ||
	       strcmp(v, "Null") == 0 || strcmp(v, "NULL") == 0;
}

static char *trim_dup(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return xstrndup(s, n);
}

static int expect_scalar(struct reader *r, const char *key, const char *what)
{
	if (r->ev.type != YAML_SCALAR_EVENT) {
		char *k = xasprintf("'%s' must be %s", key, what);
		error_at(r, &r->ev.start_mark, "%s", k);
		free(k);
		return -1;
	}
	return 0;
}

static int read_dispatch(struct reader *r, struct nf_func *f)
{
	size_t cap = 4;
	if (r->ev.type != YAML_MAPPING_START_EVENT)
		return error_at(r, &r->ev.start_mark,
		                "'dispatch' must be a mapping of dispatch keys to "
		                "kernel names%s", NULL);
	f->dispatch = xcalloc(cap, sizeof *f->dispatch);
	for (;;) {
		struct nf_dispatch *d;
		const char *k, *c;
		size_t i;
		yaml_mark_t km;

		if (next(r))
			return -1;
		if (r->ev.type == YAML_MAPPING_END_EVENT)
			return 0;
		if (r->ev.type != YAML_SCALAR_EVENT || !*scalar(r))
			return error_at(r, &r->ev.start_mark,
			                "a dispatch key must be a non-empty string%s", NULL);
		if (f->ndispatch == cap)
			f->dispatch = xrealloc(f->dispatch, (cap *= 2) * sizeof *f->dispatch);
		d = &f->dispatch[f->ndispatch];
		memset(d, 0, sizeof *d);
		km = r->ev.start_mark;
		d->line = km.line + 1;
		d->col = km.column + 1;
		d->key_start = mark_offset(r, &km);
		k = scalar(r);
		/* split on ',' and trim (torchgen: ks.split(",") then strip) */
		{
			size_t nk = 1, j = 0;
			for (c = k; *c; c++)
				nk += *c == ',';
			d->keys = xcalloc(nk, sizeof *d->keys);
			for (c = k;;) {
				const char *e = strchr(c, ',');
				size_t len = e ? (size_t)(e - c) : strlen(c);
				d->keys[j] = trim_dup(c, len);
				if (!*d->keys[j]) {
					d->nkeys = j + 1;
					f->ndispatch++;
					return error_at(r, &km, "empty dispatch key in '%s'", k);
				}
				j++;
				if (!e)
					break;
				c = e + 1;
			}
			d->nkeys = j;
		}
		f->ndispatch++;
		/* duplicate dispatch keys (the yaml loader refuses duplicate keys) */
		for (i = 0; i + 1 < f->ndispatch; i++) {
			size_t a, b;
			for (a = 0; a < f->dispatch[i].nkeys; a++)
				for (b = 0; b < d->nkeys; b++)
					if (strcmp(f->dispatch[i].keys[a], d->keys[b]) == 0)
						return error_at(r, &km,
						                "dispatch key '%s' appears twice",
						                d->keys[b]);
		}
		if (next(r))
			return -1;
		if (r->ev.type != YAML_SCALAR_EVENT)
			return error_at(r, &r->ev.start_mark,
			                "a dispatch value must be a kernel name%s", NULL);
		if (is_null_scalar(r)) {
			char *keys = xstrdup(d->keys[0]);
			size_t a;
			for (a = 1; a < d->nkeys; a++) {
				char *t = xasprintf("%s, %s", keys, d->keys[a]);
				free(keys);
				keys = t;
			}
			error_at(r, &km, "empty dispatch value for '%s'", keys);
			free(keys);
			return -1;
		}
		d->kernel = xstrdup(scalar(r));
		d->value_end = mark_offset(r, &r->ev.end_mark);
	}
}

static void take_tag(const struct reader *r, struct extra *x, struct nf_func *f)
{
	const char *t = scalar(r);
	x->core |= strcmp(t, "core") == 0;
	x->inplace_view |= strcmp(t, "inplace_view") == 0;
	f->pointwise |= strcmp(t, "pointwise") == 0;
	f->reduction |= strcmp(t, "reduction") == 0;
	f->seeded |= strcmp(t, "nondeterministic_seeded") == 0;
}

static int read_tags(struct reader *r, struct extra *x, struct nf_func *f)
{
	if (r->ev.type == YAML_SCALAR_EVENT) {
		take_tag(r, x, f);
		return 0;
	}
	if (r->ev.type != YAML_SEQUENCE_START_EVENT)
		return error_at(r, &r->ev.start_mark,
		                "'tags' must be a string or a list%s", NULL);
	for (;;) {
		if (next(r))
			return -1;
		if (r->ev.type == YAML_SEQUENCE_END_EVENT)
			return 0;
		if (r->ev.type != YAML_SCALAR_EVENT)
			return error_at(r, &r->ev.start_mark,
			                "a tag must be a string%s", NULL);
		take_tag(r, x, f);
	}
}

static int read_entry(struct reader *r, struct nf_func *f, struct extra *x)
{
	const char *seen[32];
	size_t nseen = 0, i;
	yaml_mark_t start = r->ev.start_mark, funcm = start, last_end = start;
	char *func = NULL;
	int ret = -1;

	f->line = start.line + 1;
	f->entry_start = mark_offset(r, &start);
	f->delegate = f->declared_by = -1;
	for (;;) {
		char key[64];
		yaml_mark_t km;
		if (next(r))
			goto out;
		if (r->ev.type == YAML_MAPPING_END_EVENT)
			break;
		if (r->ev.type != YAML_SCALAR_EVENT) {
			error_at(r, &r->ev.start_mark, "an entry's keys must be strings%s",
			         NULL);
			goto out;
		}
		km = r->ev.start_mark;
		{
			/* keys longer than the buffer are truncated: no key this
			 * reader knows is that long */
			size_t kl = r->ev.data.scalar.length;
			if (kl >= sizeof key)
				kl = sizeof key - 1;
			memcpy(key, scalar(r), kl);
			key[kl] = '\0';
		}
		for (i = 0; i < nseen; i++)
			if (strcmp(seen[i], key) == 0) {
				error_at(r, &km, "key '%s' appears twice in one entry", key);
				goto out;
			}
		if (next(r))
			goto out;
		if (strcmp(key, "func") == 0) {
			seen[nseen++] = "func";
			if (expect_scalar(r, "func", "a schema string"))
				goto out;
			func = xstrdup(scalar(r));
			funcm = r->ev.start_mark;
			x->func_col = funcm.column + 1;
		} else if (strcmp(key, "dispatch") == 0) {
			seen[nseen++] = "dispatch";
			f->has_dispatch = 1;
			f->dispatch_line = km.line + 1;
			if (r->ev.type == YAML_SCALAR_EVENT && is_null_scalar(r)) {
				error_at(r, &km, "'dispatch' has no entries%s", NULL);
				goto out;
			}
			if (read_dispatch(r, f))
				goto out;
		} else if (strcmp(key, "structured") == 0 ||
		           strcmp(key, "manual_cpp_binding") == 0) {
			int b;
			seen[nseen++] = key[0] == 's' ? "structured" : "manual_cpp_binding";
			if (expect_scalar(r, key, "True or False"))
				goto out;
			if ((b = yaml_bool(r)) < 0) {
				error_at(r, &r->ev.start_mark, "'%s' must be True or False",
				         key);
				goto out;
			}
			if (key[0] == 's')
				f->structured = b;
			else
				x->manual_cpp_binding = b;
		} else if (strcmp(key, "structured_delegate") == 0) {
			seen[nseen++] = "structured_delegate";
			if (expect_scalar(r, key, "an operator name"))
				goto out;
			f->structured_delegate = xstrdup(scalar(r));
			x->delegate_line = r->ev.start_mark.line + 1;
			x->delegate_col = r->ev.start_mark.column + 1;
		} else if (strcmp(key, "autogen") == 0) {
			seen[nseen++] = "autogen";
			if (expect_scalar(r, key, "a list of operator names"))
				goto out;
			x->autogen = xstrdup(scalar(r));
			x->autogen_line = r->ev.start_mark.line + 1;
			x->autogen_col = r->ev.start_mark.column + 1;
		} else if (strcmp(key, "tags") == 0) {
			seen[nseen++] = "tags";
			if (read_tags(r, x, f))
				goto out;
		} else if (strcmp(key, "structured_inherits") == 0) {
			seen[nseen++] = "structured_inherits";
			if (expect_scalar(r, key, "a class name"))
				goto out;
			f->iterator = strcmp(scalar(r), "TensorIteratorBase") == 0;
		} else {
			/* other keys are not needed here; duplicates of them are
			 * still refused by remembering a copy of the name */
			static const char *const known[] = {
				"variants", "python_module", "device_check", "device_guard",
				"cpp_no_default_args", "use_const_ref_for_mutable_tensors",
				"manual_kernel_registration", "category_override",
				"precomputed", "ufunc_inner_loop",
				"__line__", NULL};
			const char *const *k;
			for (k = known; *k; k++)
				if (strcmp(*k, key) == 0)
					break;
			if (!*k) {
				/* torchgen: "leftover entries" */
				error_at(r, &km, "unknown key '%s' in an entry", key);
				goto out;
			}
			if (nseen < 32)
				seen[nseen++] = *k;
			if (skip_value(r))
				goto out;
		}
		last_end = r->ev.end_mark;
	}
	f->entry_end = mark_offset(r, &last_end);
	if (!func) {
		error_at(r, &start, "entry has no 'func'%s", NULL);
		goto out;
	}
	{
		const char *why = NULL;
		struct schema_info si;
		char *name = NULL;
		if (parse_schema(schema_body(func), &name, &si, &why) != 0) {
			char *msg = xasprintf("schema does not parse: %s", why);
			error_at(r, &funcm, "%s", msg);
			free(msg);
			goto out;
		}
		if (nf_parse_opname(name, &f->base, &f->overload, &f->inplace) != 0) {
			error_at(r, &funcm, "bad operator name '%s'", name);
			free(name);
			goto out;
		}
		f->name = name;
		f->kind = si.kind;
		f->ninputs = si.ninputs;
		f->alpha = si.alpha;
		x->view = si.view;
		f->schema = func;
		func = NULL;
	}
	ret = 0;
out:
	free(func);
	return ret;
}

/* ------------------------------------------------------------------ */
/* the index                                                           */

static void hash_insert(struct nf_index *ix, size_t i)
{
	size_t h = (size_t)hash_str(ix->funcs[i].name) & (ix->hashcap - 1);
	while (ix->hash[h] != (size_t)-1)
		h = (h + 1) & (ix->hashcap - 1);
	ix->hash[h] = i;
}

/* (Re)build the name hash with room for `room` functions in all. */
static void hash_build(struct nf_index *ix, size_t room)
{
	size_t i;
	ix->hashcap = 16;
	while (ix->hashcap < room * 2)
		ix->hashcap *= 2;
	free(ix->hash);
	ix->hash = xmalloc(ix->hashcap * sizeof *ix->hash);
	for (i = 0; i < ix->hashcap; i++)
		ix->hash[i] = (size_t)-1;
	for (i = 0; i < ix->nfuncs; i++)
		hash_insert(ix, i);
}

static long find_index(const struct nf_index *ix, const char *name)
{
	size_t h;
	if (!ix->hash)
		return -1;
	h = (size_t)hash_str(name) & (ix->hashcap - 1);
	while (ix->hash[h] != (size_t)-1) {
		if (strcmp(ix->funcs[ix->hash[h]].name, name) == 0)
			return (long)ix->hash[h];
		h = (h + 1) & (ix->hashcap - 1);
	}
	return -1;
}

const struct nf_func *nf_find(const struct nf_index *ix, const char *name)
{
	long i = find_index(ix, name);
	return i < 0 ? NULL : &ix->funcs[i];
}

int nf_dispatch_has_key(const struct nf_dispatch *d, const char *key)
{
	size_t i;
	for (i = 0; i < d->nkeys; i++)
		if (strcmp(d->keys[i], key) == 0)
			return 1;
	return 0;
}

const struct nf_dispatch *nf_mps_dispatch(const struct nf_func *f)
{
	size_t i;
	for (i = 0; i < f->ndispatch; i++)
		if (nf_dispatch_has_key(&f->dispatch[i], "MPS"))
			return &f->dispatch[i];
	return NULL;
}

static int has_key(const struct nf_func *f, const char *key)
{
	size_t i;
	for (i = 0; i < f->ndispatch; i++)
		if (nf_dispatch_has_key(&f->dispatch[i], key))
			return 1;
	return 0;
}

/* CompositeImplicitAutograd, written or implicit (NativeFunction.from_yaml:
 * no dispatch section, not structured, no structured_delegate). */
static int has_cia(const struct nf_func *f)
{
	if (f->autogen)
		return 0;
	if (!f->has_dispatch)
		return !f->structured && !f->structured_delegate;
	return has_key(f, "CompositeImplicitAutograd");
}

/* the kernel name without its namespace (NamespaceHelper.entity_name) */
static const char *entity_name(const char *k)
{
	const char *p = k, *c;
	while ((c = strstr(p, "::")) != NULL)
		p = c + 2;
	return p;
}

static void classify(struct nf_func *f)
{
	const struct nf_dispatch *mps = nf_mps_dispatch(f);
	if (f->autogen) {
		f->composite = 1;
		f->route = ROUTE_COMPOSITE;
		return;
	}
	f->composite = has_cia(f) || has_key(f, "CompositeExplicitAutograd") ||
	               has_key(f, "CompositeExplicitAutogradNonFunctional");
	if (mps) {
		size_t i, j;
		f->mps_kernel = entity_name(mps->kernel);
		f->route = ROUTE_MPS_SPECIFIC;
		for (i = 0; i < f->ndispatch; i++)
			for (j = 0; j < f->dispatch[i].nkeys; j++)
				if (!strstr(f->dispatch[i].keys[j], "MPS") &&
				    strcmp(entity_name(f->dispatch[i].kernel), f->mps_kernel) == 0)
					f->route = ROUTE_SHARED;
	} else if (f->structured_delegate) {
		f->route = ROUTE_DELEGATE;
	} else if (f->composite) {
		f->route = ROUTE_COMPOSITE;
	} else {
		f->route = ROUTE_NONE;
	}
}

/* grow: room for function ix->nfuncs, it and its extra zeroed (only the
 * entries taken are touched: the capacity beyond them costs no memory) */
static struct nf_func *grow(struct nf_index *ix, struct reader *r)
{
	if (ix->nfuncs == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 256;
		ix->funcs = xrealloc(ix->funcs, r->cap * sizeof *ix->funcs);
		r->extra = xrealloc(r->extra, r->cap * sizeof *r->extra);
	}
	memset(&ix->funcs[ix->nfuncs], 0, sizeof *ix->funcs);
	memset(&r->extra[ix->nfuncs], 0, sizeof *r->extra);
	if (ix->nfuncs + 1 > r->nextra)
		r->nextra = ix->nfuncs + 1;
	return &ix->funcs[ix->nfuncs];
}

/* is_view_op (NativeFunction.is_view_op) */
static int is_view_op(const struct nf_func *f, const struct extra *x)
{
	return x->view || (x->inplace_view && strcmp(f->name, "resize_") != 0 &&
	                   strcmp(f->name, "resize_as_") != 0);
}

/* Functions generated from `autogen:` lists, as
 * add_generated_native_functions does.  torchgen groups a function with
 * its in-place / out= / functional siblings by signature; for the rows
 * that declare `autogen:` those siblings are the functions named
 * BASE.O, BASE_.O and BASE.O_out (BASE.out when O is empty).  A group
 * is skipped when all its functions are manual_cpp_binding, when one is
 * a view (set_ excepted), when all are CompositeImplicitAutograd and
 * none is tagged core, when it has only an out= function, or for
 * polygamma_ (torchgen's INPLACE_OPS_THAT_DONT_GET_GROUPED_PROPERLY). */
static int add_autogen(struct reader *r)
{
	struct nf_index *ix = r->ix;
	size_t e, n = ix->nentries;
	for (e = 0; e < n; e++) {
		const struct nf_func *ef = &ix->funcs[e];
		const struct extra *ex = &r->extra[e];
		char *stem, *outname, *list, *tok, *save = NULL;
		long members[4];
		size_t nm = 0, i;
		int all_manual = 1, any_view = 0, all_cia = 1, core = 0;
		int has_out = 0, has_inplace = 0;
		size_t base_fn = e;

		if (!ex->autogen || !*ex->autogen)
			continue;
		if (ef->kind == NF_OUT) {
			size_t ol = strlen(ef->overload);
			if (strcmp(ef->overload, "out") == 0)
				stem = xstrdup("");
			else if (ol > 4 && strcmp(ef->overload + ol - 4, "_out") == 0)
				stem = xstrndup(ef->overload, ol - 4);
			else
				stem = xstrdup(ef->overload);
		} else {
			stem = xstrdup(ef->overload);
		}
		outname = *stem ? xasprintf("%s_out", stem) : xstrdup("out");
		{
			char *names[3];
			names[0] = *stem ? xasprintf("%s.%s", ef->base, stem) : xstrdup(ef->base);
			names[1] = *stem ? xasprintf("%s_.%s", ef->base, stem)
			                 : xasprintf("%s_", ef->base);
			names[2] = xasprintf("%s.%s", ef->base, outname);
			for (i = 0; i < 3; i++) {
				long k = find_index(ix, names[i]);
				if (k >= 0 && (size_t)k < n)
					members[nm++] = k;
				free(names[i]);
			}
			for (i = 0; i < nm && members[i] != (long)e; i++)
				;
			if (i == nm)
				members[nm++] = (long)e;
		}
		for (i = 0; i < nm; i++) {
			const struct nf_func *m = &ix->funcs[members[i]];
			const struct extra *mx = &r->extra[members[i]];
			all_manual &= mx->manual_cpp_binding;
			if (is_view_op(m, mx) &&
			    !(m->inplace && strcmp(m->base, "set") == 0))
				any_view = 1;
			all_cia &= has_cia(m);
			core |= mx->core;
			has_out |= m->kind == NF_OUT;
			if (m->kind == NF_INPLACE) {
				has_inplace = 1;
				if (strcmp(m->name, "polygamma_") == 0)
					any_view = 1; /* skipped the same way */
			}
		}
		/* base_fn: the mutable, else the in-place, else the out=, else
		 * the functional member; the generated functions carry its line */
		{
			static const enum nf_kind prio[] = {NF_MUTABLE, NF_INPLACE, NF_OUT,
			                                    NF_FUNCTIONAL};
			size_t p, best = nm;
			for (p = 0; p < 4 && best == nm; p++)
				for (i = 0; i < nm; i++)
					if (ix->funcs[members[i]].kind == prio[p]) {
						best = i;
						break;
					}
			if (best < nm)
				base_fn = (size_t)members[best];
		}
		(void)has_inplace;
		if (all_manual || any_view || (all_cia && !core) ||
		    (has_out && nm == 1)) {
			free(stem);
			free(outname);
			continue;
		}
		/* grow() moves funcs and extra: keep what is needed */
		list = xstrdup(ex->autogen);
		{
		unsigned long eline = ix->funcs[base_fn].line, agline = ex->autogen_line,
		              agcol = ex->autogen_col;
		size_t estart = ix->funcs[base_fn].entry_start,
		       eend = ix->funcs[base_fn].entry_end;
		for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			struct nf_func *g;
			char *name = trim_dup(tok, strlen(tok));
			if (find_index(ix, name) >= 0) {
				free(name);
				continue;
			}
			g = grow(ix, r);
			memset(g, 0, sizeof *g);
			if (nf_parse_opname(name, &g->base, &g->overload, &g->inplace) != 0) {
				diag_at(ix->path, agline, agcol,
				        "error: bad operator name '%s' in autogen", name);
				free(name);
				free(list);
				free(stem);
				free(outname);
				return -1;
			}
			g->name = name;
			g->kind = strcmp(g->overload, outname) == 0 ? NF_OUT : NF_FUNCTIONAL;
			g->line = eline;
			g->autogen = 1;
			g->delegate = -1;
			g->declared_by = (long)base_fn;
			g->pointwise = ix->funcs[base_fn].pointwise;
			g->reduction = ix->funcs[base_fn].reduction;
			g->seeded = ix->funcs[base_fn].seeded;
			g->entry_start = estart;
			g->entry_end = eend;
			classify(g);
			ix->nfuncs++;
			hash_insert(ix, ix->nfuncs - 1);
		}
		}
		free(list);
		free(stem);
		free(outname);
	}
	return 0;
}

static void free_func(struct nf_func *f)
{
	size_t i, j;
	free(f->name);
	free(f->base);
	free(f->overload);
	free(f->structured_delegate);
	free(f->schema);
	for (i = 0; i < f->ndispatch; i++) {
		for (j = 0; j < f->dispatch[i].nkeys; j++)
			free(f->dispatch[i].keys[j]);
		free(f->dispatch[i].keys);
		free(f->dispatch[i].kernel);
	}
	free(f->dispatch);
}

void nf_free(struct nf_index *ix)
{
	size_t i;
	for (i = 0; i < ix->nfuncs; i++)
		free_func(&ix->funcs[i]);
	free(ix->funcs);
	free(ix->hash);
	free(ix->text);
	free(ix->path);
	memset(ix, 0, sizeof *ix);
}

/* parse_entries: the YAML stream of r's slice, a list of entries, into
 * r->ix->funcs and r->extra (appended, file order) */
static int parse_entries(struct reader *r)
{
	struct nf_index *ix = r->ix;

	if (next(r) || r->ev.type != YAML_STREAM_START_EVENT)
		return -1;
	if (next(r))
		return -1;
	if (r->ev.type != YAML_DOCUMENT_START_EVENT)
		return error_at(r, &r->ev.start_mark,
		                "expected a list of native function entries%s", NULL);
	if (next(r))
		return -1;
	if (r->ev.type != YAML_SEQUENCE_START_EVENT)
		return error_at(r, &r->ev.start_mark,
		                "expected a list of native function entries%s", NULL);
	for (;;) {
		struct nf_func *f;
		if (next(r))
			return -1;
		if (r->ev.type == YAML_SEQUENCE_END_EVENT)
			break;
		if (r->ev.type != YAML_MAPPING_START_EVENT)
			return error_at(r, &r->ev.start_mark,
			                "expected an entry (a mapping with 'func')%s", NULL);
		f = grow(ix, r);
		memset(f, 0, sizeof *f);
		ix->nfuncs++;
		if (read_entry(r, f, &r->extra[ix->nfuncs - 1]))
			return -1;
	}
	if (next(r))
		return -1;
	if (r->ev.type != YAML_DOCUMENT_END_EVENT)
		return error_at(r, &r->ev.start_mark, "expected one YAML document%s",
		                NULL);
	if (next(r))
		return -1;
	if (r->ev.type != YAML_STREAM_END_EVENT)
		return error_at(r, &r->ev.start_mark, "expected one YAML document%s",
		                NULL);
	return 0;
}

/* finish: the rules over the whole list of entries — names declared
 * twice, routes, autogen'd functions, structured_delegate targets */
static int finish(struct reader *r)
{
	struct nf_index *ix = r->ix;
	size_t i;

	ix->nentries = ix->nfuncs;
	{
		size_t room = ix->nfuncs;
		for (i = 0; i < ix->nentries; i++) {
			const char *a = r->extra[i].autogen;
			if (a && *a)
				for (room++; *a; a++)
					room += *a == ',';
		}
		hash_build(ix, room);
	}
	for (i = 0; i < ix->nentries; i++) {
		if (find_index(ix, ix->funcs[i].name) != (long)i) {
			diag_at(ix->path, ix->funcs[i].line, r->extra[i].func_col,
			        "error: function '%s' is declared twice (first at line %lu)",
			        ix->funcs[i].name,
			        ix->funcs[find_index(ix, ix->funcs[i].name)].line);
			return -1;
		}
		classify(&ix->funcs[i]);
	}
	if (add_autogen(r))
		return -1;
	for (i = 0; i < ix->nentries; i++) {
		struct nf_func *f = &ix->funcs[i];
		if (f->structured_delegate) {
			f->delegate = find_index(ix, f->structured_delegate);
			if (f->delegate < 0) {
				diag_at(ix->path, r->extra[i].delegate_line,
				        r->extra[i].delegate_col,
				        "error: structured_delegate '%s' names no function",
				        f->structured_delegate);
				return -1;
			}
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* reading the file                                                    */

/* unicode_break: the length of a NEL (U+0085), LS (U+2028) or PS
 * (U+2029) at t[i] in UTF-8, else 0: libyaml breaks lines there too */
static size_t unicode_break(const char *t, size_t len, size_t i)
{
	const unsigned char *u = (const unsigned char *)t + i;
	if (u[0] == 0xC2 && i + 1 < len && u[1] == 0x85)
		return 2;
	if (u[0] == 0xE2 && i + 2 < len && u[1] == 0x80 &&
	    (u[2] == 0xA8 || u[2] == 0xA9))
		return 3;
	return 0;
}

/* line_starts: the byte offset of every line start, the lines being
 * those libyaml counts in its marks: CRLF, LF, a lone CR, NEL, LS and PS
 * each end one.  Caller frees. */
static size_t *line_starts(const char *data, size_t len, size_t *n)
{
	size_t cap = 1024, i, *lines = xmalloc(cap * sizeof *lines);
	*n = 0;
	lines[(*n)++] = 0;
	if (!memchr(data, '\r', len) && !memchr(data, 0xC2, len) &&
	    !memchr(data, 0xE2, len)) {
		const char *p = data, *end = data + len;
		while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
			if (*n == cap)
				lines = xrealloc(lines, (cap *= 2) * sizeof *lines);
			lines[(*n)++] = (size_t)(++p - data);
		}
		return lines;
	}
	for (i = 0; i < len; i++) {
		size_t u = unicode_break(data, len, i);
		int brk = data[i] == '\n' || u ||
		          (data[i] == '\r' && (i + 1 >= len || data[i + 1] != '\n'));
		if (brk) {
			if (*n == cap)
				lines = xrealloc(lines, (cap *= 2) * sizeof *lines);
			i += u ? u - 1 : 0;
			lines[(*n)++] = i + 1;
		}
	}
	return lines;
}

/* load: read DATA (len bytes and a NUL, malloc'd: ix takes it) into ix in
 * one serial pass */
static int load(struct nf_index *ix, const char *path, char *data, size_t len)
{
	struct reader r;
	int ret;

	memset(ix, 0, sizeof *ix);
	memset(&r, 0, sizeof r);
	ix->path = xstrdup(path);
	ix->text = data;
	ix->len = len;
	if (memchr(data, '\0', len)) {
		unsigned long line, col;
		line_col(data, (size_t)((const char *)memchr(data, '\0', len) - data),
		         &line, &col);
		diag_at(path, line, col, "error: file holds a NUL byte: not YAML text");
		nf_free(ix);
		return -1;
	}
	r.ix = ix;
	r.lines = line_starts(ix->text, len, &r.nlines);
	if (!yaml_parser_initialize(&r.parser))
		die("cannot initialise the YAML parser");
	yaml_parser_set_input_string(&r.parser, (const unsigned char *)ix->text,
	                             len);
	yaml_parser_set_encoding(&r.parser, YAML_UTF8_ENCODING);
	ret = parse_entries(&r);
	if (r.have_ev)
		yaml_event_delete(&r.ev);
	yaml_parser_delete(&r.parser);
	if (ret == 0)
		ret = finish(&r);
	for (size_t i = 0; i < r.nextra; i++)
		free(r.extra[i].autogen);
	free(r.extra);
	free(r.lines);
	if (ret) {
		nf_free(ix);
		return -1;
	}
	return 0;
}

int nf_load_buffer(struct nf_index *ix, const char *path, const char *data,
                   size_t len)
{
	char *copy = xmalloc(len + 1);
	memcpy(copy, data, len);
	copy[len] = '\0';
	return load(ix, path, copy, len);
}

int nf_load(struct nf_index *ix, const char *path, const char *display)
{
	char *data;
	size_t len;
	if (!display)
		display = path;
	if (read_file(path, &data, &len) != 0) {
		warnx_("cannot open '%s': %s", display, strerror(errno));
		memset(ix, 0, sizeof *ix);
		return -1;
	}
	return load(ix, display, data, len);
}

/* ------------------------------------------------------------------ */
/* the arguments of a schema (mps-try builds the CPU call from them)   */

long nf_schema_args(const char *func, struct nf_arg **out)
{
	const char *body = schema_body(func), *paren = strchr(body, '(');
	const char *arrow = NULL, *p, *q;
	struct nf_arg *v = NULL;
	size_t n = 0, cap = 0;
	int kwarg = 0;

	*out = NULL;
	if (!paren)
		return -1;
	for (q = body + strlen(body); q-- > paren;)
		if (strncmp(q, ") -> ", 5) == 0) {
			arrow = q;
			break;
		}
	if (!arrow)
		return -1;
	for (p = paren + 1; p < arrow;) {
		const char *e = p, *sp = NULL, *eq;
		while (e < arrow && !(e[0] == ',' && e + 1 < arrow && e[1] == ' '))
			e++;
		if (e - p == 1 && *p == '*') {
			kwarg = 1;
		} else if (e > p) {
			for (q = e; q-- > p;)
				if (*q == ' ') {
					sp = q;
					break;
				}
			/* a space inside the default ("int[] x=[1, 2]" is split
			 * by torchgen too; keep what it keeps) */
			if (!sp || sp == p || sp + 1 == e) {
				nf_args_free(v, n);
				return -1;
			}
			GROW(v, n, cap);
			eq = memchr(sp + 1, '=', (size_t)(e - sp - 1));
			v[n].type = xstrndup(p, (size_t)(sp - p));
			v[n].name = xstrndup(sp + 1, (size_t)((eq ? eq : e) - sp - 1));
			v[n].def = eq ? xstrndup(eq + 1, (size_t)(e - eq - 1)) : NULL;
			v[n].kwarg = kwarg;
			v[n].write = memchr(p, '!', (size_t)(sp - p)) != NULL;
			n++;
		}
		p = e < arrow ? e + 2 : e;
	}
	*out = v;
	return (long)n;
}

void nf_args_free(struct nf_arg *args, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		free(args[i].type);
		free(args[i].name);
		free(args[i].def);
	}
	free(args);
}
