/* translate.c — see translate.h.
 *
 * A lambda body is read in three steps: tokens (the masked text, so no
 * comment counts), a syntax tree of the statements and expressions a
 * kernel's math is written with (recursive descent, C++ precedence), and
 * the Metal text, written from the tree with the class's types.  Every
 * name is looked up in TR_TABLE (trtable.c), the lambda's parameters and
 * locals, or the helpers of its file and included headers; anything
 * else stops the translation with the construct named.
 */
#include "plan/translate.h"
#include "base/diag.h"
#include "base/lex.h"
#include "read/clangfmt.h"

#include <stdlib.h>
#include <string.h>


/* ---- environment (tr_env_load: trtable.c) ---- */

static int env_has(const struct tr_env *env, const char *name)
{
	size_t i;
	for (i = 0; env && i < env->nc10; i++)
		if (strcmp(env->c10[i], name) == 0)
			return 1;
	return 0;
}

/* ---- tokens ---- */

enum { K_END = 0, K_ID, K_NUM, K_OP, K_LIT, K_DIR };

struct tok {
	int k;
	size_t s, e;
};

static int id0(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static int dig(char c) { return c >= '0' && c <= '9'; }
static int idc(char c) { return id0(c) || dig(c); }
static int sp(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
	       c == '\v';
}

/* ">>" is never one token: it may close two template argument lists
 * (`static_cast<opmath_type<T>>(x)`); the expression parser reads two
 * adjacent '>' as a shift */
static const char *const ops3[] = {"<<=", "...", NULL};
static const char *const ops2[] = {"::", "->", "++", "--", "<<", "<=",
                                   ">=", "==", "!=", "&&", "||", "+=", "-=",
                                   "*=", "/=", "%=", "&=", "|=", "^=", NULL};

static struct tok *tokenize(const char *t, size_t n, size_t *nt)
{
	struct tok *v = NULL;
	size_t cap = 0, k = 0, i = 0;
	while (1) {
		struct tok tk;
		while (i < n && sp(t[i]))
			i++;
		GROW(v, k, cap);
		if (i >= n) {
			v[k].k = K_END;
			v[k].s = v[k].e = n;
			k++;
			break;
		}
		tk.s = i;
		if (id0(t[i])) {
			while (i < n && idc(t[i]))
				i++;
			tk.k = K_ID;
		} else if (dig(t[i]) || (t[i] == '.' && i + 1 < n && dig(t[i + 1]))) {
			/* a pp-number: digits, letters, '.', ' and e+ e- p+ p- */
			i++;
			while (i < n) {
				if (idc(t[i]) || t[i] == '.' || t[i] == '\'')
					i++;
				else if ((t[i] == '+' || t[i] == '-') &&
				         (t[i - 1] == 'e' || t[i - 1] == 'E' ||
				          t[i - 1] == 'p' || t[i - 1] == 'P'))
					i++;
				else
					break;
			}
			tk.k = K_NUM;
		} else if (t[i] == '"' || t[i] == '\'') {
			i = lex_skip_literal(t, n, i);
			tk.k = K_LIT;
		} else if (t[i] == '#') {
			while (i < n && t[i] != '\n')
				i++;
			tk.k = K_DIR;
		} else {
			size_t j, l = 1;
			for (j = 0; ops3[j]; j++)
				if (i + 3 <= n && memcmp(t + i, ops3[j], 3) == 0)
					l = 3;
			if (l == 1)
				for (j = 0; ops2[j]; j++)
					if (i + 2 <= n && memcmp(t + i, ops2[j], 2) == 0)
						l = 2;
			i += l;
			tk.k = K_OP;
		}
		tk.e = i;
		v[k++] = tk;
	}
	*nt = k;
	return v;
}

/* ---- the tree ---- */

enum nkind {
	N_NUM, N_NAME, N_CALL, N_METHOD, N_UNARY, N_BINARY, N_TERN, N_ASSIGN,
	N_CAST, N_PAREN, N_LIMIT
};

struct type {               /* a type as written */
	char *name;             /* qualified name, "at::opmath_type" */
	struct type *args[2];   /* template arguments that are types */
	size_t nargs;
	int konst;
};

struct node {
	int k;
	char op[4];
	char *text;             /* N_NUM: the literal; N_NAME: the name;
	                           N_METHOD / N_LIMIT: the member */
	struct type *ty;        /* N_CAST, N_LIMIT */
	struct node *a, *b, *c;
	struct node *args[8];
	size_t nargs;
	size_t off;
};

enum skind { S_RETURN, S_IF, S_BLOCK, S_DECL, S_EXPR, S_USING, S_EMPTY };

struct stmt {
	int k;
	struct node *e;         /* return value, if condition, expression */
	struct stmt *then, *els;
	struct stmt **v;        /* S_BLOCK */
	size_t n;
	struct type *ty;        /* S_DECL, S_USING */
	char *names[8];         /* S_DECL declarators; S_USING: the alias */
	struct node *inits[8];
	size_t ndecl;
	size_t off;
};

/* everything the parser allocates, freed at once */
struct arena {
	void **v;
	size_t n, cap;
};

static void *anew(struct arena *ar, size_t sz)
{
	void *p = xcalloc(1, sz);
	GROW(ar->v, ar->n, ar->cap);
	ar->v[ar->n++] = p;
	return p;
}
static char *astr(struct arena *ar, const char *s, size_t n)
{
	char *p = anew(ar, n + 1);
	memcpy(p, s, n);
	return p;
}
static void arena_free(struct arena *ar)
{
	size_t i;
	for (i = 0; i < ar->n; i++)
		free(ar->v[i]);
	free(ar->v);
	memset(ar, 0, sizeof *ar);
}

/* ---- the parser ---- */

struct parser {
	const char *t;
	struct tok *tk;
	size_t nt, i;
	struct arena *ar;
	char *err;              /* the construct that stopped it (malloc'd) */
	size_t err_off;
	char **aliases;         /* `using X = ...` names seen: types */
	size_t naliases;
	int depth;              /* nesting of the calls below */
};

/* how deep expressions, statements and types may nest (the recursion of
 * the parser, and of the writer that follows the tree) */
#define TR_MAX_DEPTH 200

/* enter one level: 0, or -1 (an error set) when too deep */
static int deeper(struct parser *p);

/* keep MSG (owned) at OFF in *ERR and *ERR_OFF unless an error is kept
 * already: the first error is the one reported, a later one is freed.
 * Returns 1 when MSG was kept. */
static int first_error(char **err, size_t *err_off, size_t off, char *msg)
{
	if (*err) {
		free(msg);
		return 0;
	}
	*err = msg;
	*err_off = off;
	return 1;
}

static void perr(struct parser *p, size_t off, char *msg)
{
	first_error(&p->err, &p->err_off, off, msg);
}

static const struct tok *cur(const struct parser *p) { return &p->tk[p->i]; }

static int deeper(struct parser *p)
{
	if (++p->depth > TR_MAX_DEPTH) {
		perr(p, p->tk[p->i].s, xasprintf("nesting deeper than %d levels",
		                                 TR_MAX_DEPTH));
		return -1;
	}
	return 0;
}

/* NAME(p): NAME_in(p) one level deeper, refused past the depth limit (a
 * nesting that deep is no kernel's math): the guard of each recursive
 * rule */
#define DEPTH_GUARDED(T, NAME)                        \
	static T *NAME##_in(struct parser *p);            \
	static T *NAME(struct parser *p)                  \
	{                                                 \
		T *r_ = deeper(p) == 0 ? NAME##_in(p) : NULL; \
		p->depth--;                                   \
		return r_;                                    \
	}
/* token I is of kind KIND (K_OP, K_ID) and reads TEXT */
static int tok_is(const struct parser *p, size_t i, int kind, const char *text)
{
	const struct tok *k = &p->tk[i];
	return k->k == kind && k->e - k->s == strlen(text) &&
	       memcmp(p->t + k->s, text, k->e - k->s) == 0;
}
static int is_op_at(const struct parser *p, size_t i, const char *op)
{
	return tok_is(p, i, K_OP, op);
}
static int is_op(const struct parser *p, const char *op)
{
	return is_op_at(p, p->i, op);
}
static int is_word_at(const struct parser *p, size_t i, const char *w)
{
	return tok_is(p, i, K_ID, w);
}
static int is_word(const struct parser *p, const char *w)
{
	return is_word_at(p, p->i, w);
}
static char *tok_dup(const struct parser *p, size_t i)
{
	return xstrndup(p->t + p->tk[i].s, p->tk[i].e - p->tk[i].s);
}
static int expect(struct parser *p, const char *op)
{
	if (is_op(p, op)) {
		p->i++;
		return 0;
	}
	{
		char *w = tok_dup(p, p->i);
		perr(p, cur(p)->s,
		     xasprintf("a construct the translator does not read (`%s` where "
		               "`%s` was expected)",
		               *w ? w : "end", op));
		free(w);
	}
	return -1;
}

static const char *const refused_words[] = {
    "for", "a loop (for)", "while", "a loop (while)", "do", "a loop (do)",
    "switch", "a switch", "goto", "goto", "break", "break", "continue",
    "continue", "throw", "throw", "try", "try", "case", "a switch",
    "sizeof", "sizeof", "new", "new", "delete", "delete", "asm", "asm",
    "reinterpret_cast", "reinterpret_cast", "const_cast", "const_cast",
    "dynamic_cast", "dynamic_cast", "static_assert", "static_assert",
    "Vectorized", "Vectorized", "thrust", "thrust", "printf", "printf",
    "this", "this", NULL};

static const char *refused(const struct parser *p, size_t i)
{
	size_t k;
	if (p->tk[i].k != K_ID)
		return NULL;
	for (k = 0; refused_words[k]; k += 2)
		if (is_word_at(p, i, refused_words[k]))
			return refused_words[k + 1];
	return NULL;
}

/* a qualified name at the cursor: "::a::b", "std::sin"; NULL when none */
static char *parse_qname(struct parser *p)
{
	struct buf b;
	size_t i = p->i;
	buf_init(&b);
	if (is_op_at(p, i, "::")) {
		buf_puts(&b, "::");
		i++;
	}
	if (p->tk[i].k != K_ID) {
		buf_free(&b);
		return NULL;
	}
	while (p->tk[i].k == K_ID) {
		buf_add(&b, p->t + p->tk[i].s, p->tk[i].e - p->tk[i].s);
		i++;
		if (is_op_at(p, i, "::") && p->tk[i + 1].k == K_ID) {
			buf_puts(&b, "::");
			i++;
		} else {
			break;
		}
	}
	p->i = i;
	return b.data;
}

static struct type *parse_type(struct parser *p);

/* `<` type-or-literal, ... `>` at the cursor: the types into ty; -1
 * (cursor unchanged) when it is not a template argument list */
static int parse_targs(struct parser *p, struct type *ty)
{
	size_t save = p->i;
	if (!is_op(p, "<"))
		return -1;
	p->i++;
	while (!is_op(p, ">")) {
		if (cur(p)->k == K_NUM || is_word(p, "true") || is_word(p, "false")) {
			p->i++;
		} else {
			struct type *a = parse_type(p);
			if (!a) {
				p->i = save;
				return -1;
			}
			if (ty->nargs < 2)
				ty->args[ty->nargs++] = a;
		}
		if (is_op(p, ","))
			p->i++;
		else if (!is_op(p, ">")) {
			p->i = save;
			return -1;
		}
	}
	p->i++;
	return 0;
}

static int builtin_word(const struct parser *p, size_t i)
{
	static const char *const w[] = {"unsigned", "signed", "short", "long",
	                                "char", "int", "float", "double", "bool",
	                                "void", NULL};
	size_t k;
	for (k = 0; w[k]; k++)
		if (is_word_at(p, i, w[k]))
			return 1;
	return 0;
}

/* a type at the cursor, or NULL (cursor unchanged) */
DEPTH_GUARDED(struct type, parse_type)

static struct type *parse_type_in(struct parser *p)
{
	size_t save = p->i;
	struct type *ty = anew(p->ar, sizeof *ty);
	while (is_word(p, "const") || is_word(p, "constexpr") ||
	       is_word(p, "volatile")) {
		ty->konst = 1;
		p->i++;
	}
	if (builtin_word(p, p->i)) {
		struct buf b;
		buf_init(&b);
		while (builtin_word(p, p->i)) {
			if (b.len)
				buf_puts(&b, " ");
			buf_add(&b, p->t + cur(p)->s, cur(p)->e - cur(p)->s);
			p->i++;
		}
		ty->name = astr(p->ar, b.data, b.len);
		buf_free(&b);
	} else {
		char *q = parse_qname(p);
		if (!q) {
			p->i = save;
			return NULL;
		}
		ty->name = astr(p->ar, q, strlen(q));
		free(q);
		if (is_op(p, "<") && parse_targs(p, ty) != 0) {
			p->i = save;
			return NULL;
		}
		/* `opmath_type<T>::type` and the like */
		if (is_op(p, "::") && p->tk[p->i + 1].k == K_ID &&
		    is_word_at(p, p->i + 1, "type"))
			p->i += 2;
	}
	while (is_word(p, "const")) {
		ty->konst = 1;
		p->i++;
	}
	return ty;
}

static int alias_known(const struct parser *p, const char *name)
{
	size_t i;
	for (i = 0; i < p->naliases; i++)
		if (strcmp(p->aliases[i], name) == 0)
			return 1;
	return 0;
}

/* the unqualified part of a name and its qualifier bits */
static const char *split_qual(const char *name, unsigned *q)
{
	static const struct {
		const char *pre;
		unsigned bit;
	} pre[] = {{"::", TQ_GLOBAL},
	           {"std::", TQ_STD},
	           {"c10::cuda::compat::", TQ_COMPAT},
	           {"at::native::", TQ_AT},
	           {"at::", TQ_AT},
	           {"c10::", TQ_C10},
	           {NULL, 0}};
	size_t k;
	for (k = 0; pre[k].pre; k++) {
		size_t l = strlen(pre[k].pre);
		if (strncmp(name, pre[k].pre, l) == 0 && !strchr(name + l, ':')) {
			*q = pre[k].bit;
			return name + l;
		}
	}
	*q = strchr(name, ':') ? 0 : TQ_BARE;
	return name;
}

/* the row of kind WHAT for NAME (qualified as written), or NULL; with
 * TQ_F, `sinf` finds sin */
static const struct tr_row *row_find(const char *name, int what, int nargs)
{
	unsigned q;
	const char *base = split_qual(name, &q);
	size_t i, l = strlen(base);
	if (!q)
		return NULL;
	size_t nrows;
	const struct tr_row *rows = tr_table(&nrows);
	for (i = 0; i < nrows; i++) {
		const struct tr_row *r = &rows[i];
		if (r->what != what || !(r->quals & q))
			continue;
		if (r->what == TR_FN && r->nargs >= 0 && nargs >= 0 && r->nargs != nargs)
			continue;
		if (strcmp(r->cxx, base) == 0)
			return r;
		if ((r->quals & TQ_F) && l == strlen(r->cxx) + 1 && base[l - 1] == 'f' &&
		    strncmp(r->cxx, base, l - 1) == 0)
			return r;
	}
	return NULL;
}

/* NAME (qualified) is a type: a type row or an alias */
static int type_name(const struct parser *p, size_t i)
{
	struct parser tmp = *p;
	char *q;
	int yes;
	if (builtin_word(p, i))
		return 1;
	tmp.i = i;
	q = parse_qname(&tmp);
	if (!q)
		return 0;
	yes = row_find(q, TR_TYPE, -1) != NULL || alias_known(p, q);
	free(q);
	return yes;
}

/* NAME(p, k, off): a new struct T of kind K at offset OFF in the code,
 * zeroed and owned by the parser's arena: the constructor of the
 * expression (node) and the statement (stmt) trees */
#define KIND_NEW(T, NAME)                                         \
	static struct T *NAME(struct parser *p, int k, size_t off)    \
	{                                                             \
		struct T *x_ = anew(p->ar, sizeof *x_);                   \
		x_->k = k;                                                \
		x_->off = off;                                            \
		return x_;                                                \
	}
KIND_NEW(node, nnew)
KIND_NEW(stmt, snew)

/* what no expression or statement may start with: a word the translator
 * refuses (refused_words) or a preprocessor directive.  Returns -1 after
 * the error, else 0. */
static int refused_start(struct parser *p)
{
	size_t off = cur(p)->s;
	const char *why = refused(p, p->i);
	if (why)
		perr(p, off, xstrdup(why));
	else if (cur(p)->k == K_DIR)
		perr(p, off, xstrdup("a preprocessor directive"));
	else
		return 0;
	return -1;
}

/* the operator OP then a type (static_cast<T>, using A = T), or NULL
 * after the error: OP missing, or WHAT, the construct, when the type is
 * one the translator does not read */
static struct type *parse_type_after(struct parser *p, const char *op,
                                     const char *what)
{
	struct type *ty;
	if (expect(p, op) != 0)
		return NULL;
	ty = parse_type(p);
	if (!ty)
		perr(p, cur(p)->s, xstrdup(what));
	return ty;
}

static struct node *parse_expr(struct parser *p);
static struct node *parse_assign(struct parser *p);
static struct node *parse_unary(struct parser *p);

static int parse_call_args(struct parser *p, struct node *n, const char *close)
{
	p->i++; /* ( or { */
	while (!is_op(p, close)) {
		struct node *a = parse_assign(p);
		if (!a)
			return -1;
		if (n->nargs == 8) {
			perr(p, a->off, xstrdup("a call with more than 8 arguments"));
			return -1;
		}
		n->args[n->nargs++] = a;
		if (is_op(p, ","))
			p->i++;
		else if (!is_op(p, close))
			return expect(p, close);
	}
	p->i++;
	return 0;
}

static struct node *parse_primary(struct parser *p)
{
	const struct tok *k = cur(p);
	size_t off = k->s;
	if (refused_start(p) != 0)
		return NULL;
	if (k->k == K_NUM) {
		struct node *n = nnew(p, N_NUM, off);
		n->text = astr(p->ar, p->t + k->s, k->e - k->s);
		p->i++;
		return n;
	}
	if (k->k == K_LIT) {
		perr(p, off, xstrdup("a string or character literal"));
		return NULL;
	}
	if (is_op(p, "(")) {
		struct node *n = nnew(p, N_PAREN, off);
		p->i++;
		n->a = parse_expr(p);
		if (!n->a || expect(p, ")") != 0)
			return NULL;
		return n;
	}
	if (is_op(p, "[")) {
		perr(p, off, xstrdup("a lambda"));
		return NULL;
	}
	if (is_word(p, "static_cast")) {
		struct node *n = nnew(p, N_CAST, off);
		p->i++;
		n->ty = parse_type_after(p, "<", "a cast to a type the translator "
		                                 "does not read");
		if (!n->ty)
			return NULL;
		if (expect(p, ">") != 0 || expect(p, "(") != 0)
			return NULL;
		n->a = parse_expr(p);
		if (!n->a || expect(p, ")") != 0)
			return NULL;
		return n;
	}
	if (k->k == K_ID || is_op(p, "::")) {
		size_t save = p->i;
		/* a type used as a value: T(x), T{x}, complex<T>(re, im) */
		if (type_name(p, p->i)) {
			struct type *ty = parse_type(p);
			if (ty && (is_op(p, "(") || is_op(p, "{"))) {
				struct node *n = nnew(p, N_CAST, off);
				n->ty = ty;
				if (parse_call_args(p, n, is_op(p, "(") ? ")" : "}") != 0)
					return NULL;
				return n;
			}
			p->i = save;
		}
		{
			char *q = parse_qname(p);
			struct node *n;
			struct type targs;
			memset(&targs, 0, sizeof targs);
			if (!q) {
				perr(p, off, xstrdup("a construct the translator does not "
				                     "read"));
				return NULL;
			}
			/* template arguments: `std::max<T>(`, `numeric_limits<T>::` */
			if (is_op(p, "<")) {
				size_t before = p->i;
				if (parse_targs(p, &targs) != 0 ||
				    !(is_op(p, "(") || is_op(p, "::") ||
				      row_find(q, TR_CONST, -1))) {
					p->i = before;
					targs.nargs = 0;
				}
			}
			if (strcmp(split_qual(q, &(unsigned){0}), "numeric_limits") == 0 &&
			    targs.nargs == 1 && is_op(p, "::") &&
			    p->tk[p->i + 1].k == K_ID) {
				n = nnew(p, N_LIMIT, off);
				n->ty = targs.args[0];
				n->text = astr(p->ar, p->t + p->tk[p->i + 1].s,
				               p->tk[p->i + 1].e - p->tk[p->i + 1].s);
				p->i += 2;
				free(q);
				if (expect(p, "(") != 0 || expect(p, ")") != 0)
					return NULL;
				return n;
			}
			n = nnew(p, N_NAME, off);
			n->text = astr(p->ar, q, strlen(q));
			free(q);
			if (is_op(p, "(")) {
				struct node *c = nnew(p, N_CALL, off);
				c->a = n;
				if (parse_call_args(p, c, ")") != 0)
					return NULL;
				return c;
			}
			return n;
		}
	}
	{
		char *w = tok_dup(p, p->i);
		perr(p, off,
		     xasprintf("a construct the translator does not read (near `%s`)",
		               *w ? w : "the end"));
		free(w);
	}
	return NULL;
}

static struct node *parse_postfix(struct parser *p)
{
	struct node *n = parse_primary(p);
	while (n) {
		size_t off = cur(p)->s;
		if (is_op(p, ".") || is_op(p, "->")) {
			struct node *m;
			if (is_op(p, "->")) {
				perr(p, off, xstrdup("a pointer (->)"));
				return NULL;
			}
			p->i++;
			if (cur(p)->k != K_ID) {
				expect(p, "a member name");
				return NULL;
			}
			m = nnew(p, N_METHOD, off);
			m->a = n;
			m->text = tok_dup(p, p->i);
			{
				char *t = m->text;
				m->text = astr(p->ar, t, strlen(t));
				free(t);
			}
			p->i++;
			if (!is_op(p, "(")) {
				perr(p, off, xasprintf("a member .%s", m->text));
				return NULL;
			}
			if (parse_call_args(p, m, ")") != 0)
				return NULL;
			n = m;
		} else if (is_op(p, "[")) {
			perr(p, off, xstrdup("an index ([])"));
			return NULL;
		} else if (is_op(p, "++") || is_op(p, "--")) {
			perr(p, off, xstrdup("an increment (++ or --)"));
			return NULL;
		} else {
			break;
		}
	}
	return n;
}

DEPTH_GUARDED(struct node, parse_unary)

static struct node *parse_unary_in(struct parser *p)
{
	size_t off = cur(p)->s;
	if (is_op(p, "!") || is_op(p, "~") || is_op(p, "-") || is_op(p, "+")) {
		struct node *n = nnew(p, N_UNARY, off);
		memcpy(n->op, p->t + cur(p)->s, 1);
		p->i++;
		n->a = parse_unary(p);
		return n->a ? n : NULL;
	}
	if (is_op(p, "++") || is_op(p, "--")) {
		perr(p, off, xstrdup("an increment (++ or --)"));
		return NULL;
	}
	if (is_op(p, "*") || is_op(p, "&")) {
		perr(p, off, xstrdup("a pointer (* or &)"));
		return NULL;
	}
	/* (type) e */
	if (is_op(p, "(") && type_name(p, p->i + 1)) {
		size_t save = p->i;
		struct type *ty;
		p->i++;
		ty = parse_type(p);
		if (ty && is_op(p, ")")) {
			struct node *n = nnew(p, N_CAST, off);
			p->i++;
			n->ty = ty;
			n->args[0] = parse_unary(p);
			n->nargs = 1;
			return n->args[0] ? n : NULL;
		}
		p->i = save;
	}
	return parse_postfix(p);
}

static int binprec(const struct parser *p, char *op)
{
	static const struct {
		const char *op;
		int prec;
	} t[] = {{"||", 1}, {"&&", 2}, {"|", 3},  {"^", 4},  {"&", 5},
	         {"==", 6}, {"!=", 6}, {"<", 7},  {">", 7},  {"<=", 7},
	         {">=", 7}, {"<<", 8}, {">>", 8}, {"+", 9},  {"-", 9},
	         {"*", 10}, {"/", 10}, {"%", 10}, {NULL, 0}};
	size_t k;
	const struct tok *tk = cur(p);
	if (tk->k != K_OP)
		return 0;
	/* two adjacent '>': a shift */
	if (tk->e - tk->s == 1 && p->t[tk->s] == '>' && p->tk[p->i + 1].k == K_OP &&
	    p->tk[p->i + 1].s == tk->e && p->t[tk->e] == '>' &&
	    p->tk[p->i + 1].e - p->tk[p->i + 1].s == 1) {
		strcpy(op, ">>");
		return 8;
	}
	for (k = 0; t[k].op; k++)
		if (tk->e - tk->s == strlen(t[k].op) &&
		    memcmp(p->t + tk->s, t[k].op, tk->e - tk->s) == 0) {
			strcpy(op, t[k].op);
			return t[k].prec;
		}
	return 0;
}

static struct node *parse_bin(struct parser *p, int minprec)
{
	struct node *l = parse_unary(p);
	while (l) {
		char op[4];
		int prec = binprec(p, op);
		struct node *n;
		if (!prec || prec < minprec)
			break;
		n = nnew(p, N_BINARY, cur(p)->s);
		strcpy(n->op, op);
		p->i += !strcmp(op, ">>") ? 2 : 1;
		n->a = l;
		n->b = parse_bin(p, prec + 1);
		if (!n->b)
			return NULL;
		l = n;
	}
	return l;
}

static struct node *parse_cond(struct parser *p)
{
	struct node *c = parse_bin(p, 1);
	if (c && is_op(p, "?")) {
		struct node *n = nnew(p, N_TERN, cur(p)->s);
		p->i++;
		n->a = c;
		n->b = parse_assign(p);
		if (!n->b || expect(p, ":") != 0)
			return NULL;
		n->c = parse_assign(p);
		return n->c ? n : NULL;
	}
	return c;
}

DEPTH_GUARDED(struct node, parse_assign)

static struct node *parse_assign_in(struct parser *p)
{
	static const char *const aops[] = {"=",  "+=", "-=", "*=", "/=", "%=",
	                                   "&=", "|=", "^=", NULL};
	struct node *l = parse_cond(p);
	size_t k;
	if (!l)
		return NULL;
	for (k = 0; aops[k]; k++)
		if (is_op(p, aops[k])) {
			struct node *n = nnew(p, N_ASSIGN, cur(p)->s);
			strcpy(n->op, aops[k]);
			p->i++;
			n->a = l;
			n->b = parse_assign(p);
			return n->b ? n : NULL;
		}
	return l;
}

static struct node *parse_expr(struct parser *p)
{
	struct node *n = parse_assign(p);
	if (n && is_op(p, ",")) {
		perr(p, cur(p)->s, xstrdup("a comma expression"));
		return NULL;
	}
	return n;
}

static struct stmt *parse_stmt(struct parser *p);

static struct stmt *parse_block_items(struct parser *p, const char *close,
                                      size_t off)
{
	struct stmt *b = snew(p, S_BLOCK, off);
	size_t cap = 0;
	while (!(close ? is_op(p, close) : cur(p)->k == K_END)) {
		struct stmt *s;
		if (cur(p)->k == K_END) {
			expect(p, close);
			return NULL;
		}
		s = parse_stmt(p);
		if (!s)
			return NULL;
		if (b->n == cap) {
			struct stmt **nv = anew(p->ar, (cap ? cap * 2 : 8) * sizeof *nv);
			if (b->n)
				memcpy(nv, b->v, b->n * sizeof *nv);
			b->v = nv;
			cap = cap ? cap * 2 : 8;
		}
		b->v[b->n++] = s;
	}
	if (close)
		p->i++;
	return b;
}

/* a declaration at the cursor: a type then a name */
static int decl_ahead(struct parser *p)
{
	size_t save = p->i;
	struct type *ty;
	int yes;
	if (!(is_word(p, "const") || is_word(p, "constexpr") ||
	      type_name(p, p->i)))
		return 0;
	ty = parse_type(p);
	yes = ty && cur(p)->k == K_ID && !refused(p, p->i);
	p->i = save;
	return yes;
}

DEPTH_GUARDED(struct stmt, parse_stmt)

static struct stmt *parse_stmt_in(struct parser *p)
{
	size_t off = cur(p)->s;
	if (refused_start(p) != 0)
		return NULL;
	if (is_op(p, ";")) {
		p->i++;
		return snew(p, S_EMPTY, off);
	}
	if (is_op(p, "{")) {
		p->i++;
		return parse_block_items(p, "}", off);
	}
	if (is_word(p, "return")) {
		struct stmt *s = snew(p, S_RETURN, off);
		p->i++;
		if (!is_op(p, ";")) {
			s->e = parse_expr(p);
			if (!s->e)
				return NULL;
		}
		return expect(p, ";") == 0 ? s : NULL;
	}
	if (is_word(p, "if")) {
		struct stmt *s = snew(p, S_IF, off);
		p->i++;
		if (is_word(p, "constexpr")) {
			perr(p, cur(p)->s, xstrdup("if constexpr"));
			return NULL;
		}
		if (expect(p, "(") != 0)
			return NULL;
		s->e = parse_expr(p);
		if (!s->e || expect(p, ")") != 0)
			return NULL;
		s->then = parse_stmt(p);
		if (!s->then)
			return NULL;
		if (is_word(p, "else")) {
			p->i++;
			s->els = parse_stmt(p);
			if (!s->els)
				return NULL;
		}
		return s;
	}
	if (is_word(p, "using")) {
		struct stmt *s = snew(p, S_USING, off);
		p->i++;
		if (is_word(p, "namespace")) {
			perr(p, off, xstrdup("using namespace"));
			return NULL;
		}
		if (cur(p)->k != K_ID) {
			perr(p, off, xstrdup("a using declaration"));
			return NULL;
		}
		s->names[0] = tok_dup(p, p->i);
		{
			char *t = s->names[0];
			s->names[0] = astr(p->ar, t, strlen(t));
			free(t);
		}
		p->i++;
		s->ty = parse_type_after(p, "=", "a using declaration of a type "
		                                 "the translator does not read");
		if (!s->ty)
			return NULL;
		p->aliases = xrealloc(p->aliases, (p->naliases + 1) * sizeof *p->aliases);
		p->aliases[p->naliases++] = s->names[0];
		return expect(p, ";") == 0 ? s : NULL;
	}
	if (is_word(p, "static")) {
		perr(p, off, xstrdup("a static local"));
		return NULL;
	}
	if (decl_ahead(p)) {
		struct stmt *s = snew(p, S_DECL, off);
		s->ty = parse_type(p);
		while (1) {
			char *name;
			if (cur(p)->k != K_ID) {
				expect(p, "a name");
				return NULL;
			}
			if (s->ndecl == 8) {
				perr(p, off, xstrdup("a declaration of more than 8 names"));
				return NULL;
			}
			name = tok_dup(p, p->i);
			s->names[s->ndecl] = astr(p->ar, name, strlen(name));
			free(name);
			p->i++;
			if (is_op(p, "=")) {
				p->i++;
				s->inits[s->ndecl] = parse_assign(p);
				if (!s->inits[s->ndecl])
					return NULL;
			} else if (is_op(p, "{") || is_op(p, "(")) {
				const char *close = is_op(p, "{") ? "}" : ")";
				p->i++;
				s->inits[s->ndecl] = parse_assign(p);
				if (!s->inits[s->ndecl] || expect(p, close) != 0)
					return NULL;
			}
			s->ndecl++;
			if (is_op(p, ",")) {
				p->i++;
				continue;
			}
			break;
		}
		return expect(p, ";") == 0 ? s : NULL;
	}
	{
		struct stmt *s = snew(p, S_EXPR, off);
		s->e = parse_expr(p);
		if (!s->e)
			return NULL;
		return expect(p, ";") == 0 ? s : NULL;
	}
}

/* ---- writing Metal ---- */

enum mode {
	M_FLOAT,   /* float, half, bfloat: computed in float */
	M_I2F,     /* integers and bool to float: computed in float */
	M_INT,     /* integers to themselves (or to bool): computed in T */
	M_BOOL,    /* bool: computed in bool */
	M_CPLX     /* float2, half2: computed in float2 */
};

struct var {
	const char *name;
	char *emit;             /* what a use writes (owned) */
	int ty;
	int flt;                /* its Metal type is float */
	int barrier;            /* a helper's scope starts here: the caller's
	                           names are not visible past it */
};

struct aliasv {
	const char *name;
	char *metal;            /* owned */
	int ty;
};

struct wctx {
	const struct tr_target *t;
	const struct tr_env *env;
	int mode;
	const char *captures;   /* the lambda's capture list, "" none */
	const struct ck_code *helpers;
	size_t nh;
	int depth;              /* helpers inlined into one another */
	struct var *vars;
	size_t nvars, capvars;
	struct aliasv *al;
	size_t nal, capal;
	char *err;
	size_t err_off;
	const struct ck_code *err_code; /* the code the offset is in */
	const struct ck_code *code;     /* the code being written */
	struct buf out;
	int ind;
	int assigned_params;    /* bits: the lambda assigns parameter i */
	char *alpha_src;        /* the Scalar the captured alpha comes from */
	int outer;              /* declaring the captured values (emit_outer):
	                           their uses are in the body, not their
	                           declarations */
	char **kept;            /* names kept for vars (owned) */
	size_t nkept, capkept;
};

static void werr(struct wctx *w, size_t off, char *msg)
{
	if (first_error(&w->err, &w->err_off, off, msg))
		w->err_code = w->code;
}

static const char *scalar_metal(const struct wctx *w, int *ty)
{
	switch (w->mode) {
	case M_FLOAT: *ty = TY_REAL; return "T";
	case M_I2F: *ty = TY_REAL; return "float";
	case M_INT: *ty = TY_INT; return "T";
	case M_BOOL: *ty = TY_BOOL; return "bool";
	default: *ty = TY_CPLX; return "float2";
	}
}
static const char *opmath_metal(const struct wctx *w, int *ty)
{
	switch (w->mode) {
	case M_FLOAT:
	case M_I2F: *ty = TY_REAL; return "float";
	case M_INT: *ty = TY_INT; return "T";
	case M_BOOL: *ty = TY_BOOL; return "bool";
	default: *ty = TY_CPLX; return "float2";
	}
}
static const char *acc_metal(const struct wctx *w, int *ty)
{
	if (w->mode == M_INT) {
		*ty = TY_INT;
		return "long";
	}
	return opmath_metal(w, ty);
}

/* inside an inlined helper, NAME is the type of one of its parameters
 * (a template parameter, `weight_t` of Lerp.h's lerp): the caller's
 * values, of the branch's type */
static int helper_param_type(const struct wctx *w, const char *name)
{
	size_t i;
	if (w->depth == 0 || !w->code)
		return 0;
	for (i = 0; i < w->code->nparams; i++)
		if (ck_type_is(w->code->params[i].type, name))
			return 1;
	return 0;
}

/* the Metal spelling and value type of a type as written; NULL when
 * unknown (an error is set) */
static char *type_metal(struct wctx *w, const struct type *ty, size_t off,
                        int *vt)
{
	const struct tr_row *r;
	size_t i;
	for (i = w->nal; i-- > 0;)
		if (strcmp(w->al[i].name, ty->name) == 0) {
			*vt = w->al[i].ty;
			return xstrdup(w->al[i].metal);
		}
	if (strcmp(ty->name, "long") == 0 || strcmp(ty->name, "long long") == 0 ||
	    strcmp(ty->name, "long int") == 0) {
		*vt = TY_INT;
		return xstrdup("long");
	}
	if (strcmp(ty->name, "unsigned") == 0 || strcmp(ty->name, "unsigned int") == 0) {
		*vt = TY_INT;
		return xstrdup("uint");
	}
	r = row_find(ty->name, TR_TYPE, -1);
	if (!r) {
		werr(w, off, xasprintf("the type %s", ty->name));
		return NULL;
	}
	if (r->nargs > 0 && r->ty != TY_CPLX) {
		/* opmath_type<scalar_t>, acc_type<scalar_t, true>: of the branch's
		 * type only */
		if (ty->nargs < 1 || (strcmp(ty->args[0]->name, "scalar_t") != 0 &&
		                      strcmp(ty->args[0]->name, "T") != 0 &&
		                      !helper_param_type(w, ty->args[0]->name))) {
			werr(w, off, xasprintf("the type %s<...> of another type than "
			                       "scalar_t", ty->name));
			return NULL;
		}
	}
	if (strcmp(r->real ? r->real : "", "$scalar") == 0)
		return xstrdup(scalar_metal(w, vt));
	if (strcmp(r->real ? r->real : "", "$opmath") == 0)
		return xstrdup(opmath_metal(w, vt));
	if (strcmp(r->real ? r->real : "", "$acc") == 0)
		return xstrdup(acc_metal(w, vt));
	if (r->ty == TY_CPLX) {
		if (w->mode != M_CPLX) {
			werr(w, off, xasprintf("the complex type %s outside the complex "
			                       "overload", ty->name));
			return NULL;
		}
		*vt = TY_CPLX;
		return xstrdup(r->cplx);
	}
	*vt = r->ty;
	return xstrdup(r->real);
}

static struct var *var_find(struct wctx *w, const char *name)
{
	size_t i;
	for (i = w->nvars; i-- > 0;) {
		if (strcmp(w->vars[i].name, name) == 0)
			return &w->vars[i];
		if (w->vars[i].barrier)
			break;
	}
	return NULL;
}

static void var_push(struct wctx *w, const char *name, char *emit, int ty,
                     int barrier)
{
	GROW(w->vars, w->nvars, w->capvars);
	w->vars[w->nvars].name = name;
	w->vars[w->nvars].emit = emit;
	w->vars[w->nvars].ty = ty;
	w->vars[w->nvars].flt = 0;
	w->vars[w->nvars].barrier = barrier;
	w->nvars++;
}

/* s needs no parentheses as an operand: a name, a number, a call or a
 * cast written `f(...)` / `f<..>(...)`, or a parenthesised whole */
static int is_atom(const char *s)
{
	size_t n = strlen(s), i = 0;
	int depth = 0;
	if (n == 0)
		return 1;
	if (s[0] == '(') {
		for (i = 0; i < n; i++) {
			if (s[i] == '(')
				depth++;
			else if (s[i] == ')' && --depth == 0)
				return i == n - 1;
		}
		return 0;
	}
	while (i < n && (idc(s[i]) || s[i] == ':' || s[i] == '.'))
		i++;
	if (i == n)
		return 1;
	if (s[i] == '<') { /* static_cast<T>(, numeric_limits<T>:: */
		int ad = 0;
		for (; i < n; i++) {
			if (s[i] == '<')
				ad++;
			else if (s[i] == '>' && --ad == 0)
				break;
		}
		i++;
		while (i < n && (idc(s[i]) || s[i] == ':'))
			i++;
	}
	if (i >= n || s[i] != '(' || i == 0)
		return 0;
	for (; i < n; i++) {
		if (s[i] == '(')
			depth++;
		else if (s[i] == ')' && --depth == 0)
			return i == n - 1 || (i + 1 < n && s[i + 1] == '.' && is_atom(s + i + 2));
	}
	return 0;
}

/* s without one pair of parentheses around all of it (malloc'd) */
static char *unwrap(const char *s)
{
	size_t n = strlen(s);
	if (n >= 2 && s[0] == '(' && is_atom(s))
		return xstrndup(s + 1, n - 2);
	return xstrdup(s);
}

/* s as an operand: parenthesised unless it is an atom (malloc'd) */
static char *operand(const char *s)
{
	return is_atom(s) ? xstrdup(s) : xasprintf("(%s)", s);
}

static void vars_pop(struct wctx *w, size_t to)
{
	while (w->nvars > to)
		free(w->vars[--w->nvars].emit);
}

/* the common type of arithmetic on A and B */
static int arith_ty(int a, int b)
{
	if (a == TY_CPLX || b == TY_CPLX)
		return TY_CPLX;
	if (a == TY_REAL || b == TY_REAL)
		return TY_REAL;
	return TY_INT;
}

/* a float literal: '.' or an exponent (not hex) */
static int float_lit(const char *s)
{
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return strchr(s, 'p') || strchr(s, 'P');
	return strchr(s, '.') || strchr(s, 'e') || strchr(s, 'E');
}

/* apply a row template to the arguments */
static char *apply(const char *tpl, char *const *args, size_t na,
                   const char *tsub)
{
	struct buf b;
	const char *p;
	buf_init(&b);
	for (p = tpl; *p; p++) {
		if (*p == '$' && p[1] >= '1' && p[1] <= '9') {
			size_t k = (size_t)(p[1] - '1');
			if (k < na) {
				char *o = operand(args[k]);
				buf_puts(&b, o);
				free(o);
			}
			p++;
		} else if (*p == '$' && p[1] == '*') {
			size_t k;
			for (k = 0; k < na; k++) {
				char *u = unwrap(args[k]);
				buf_printf(&b, "%s%s", k ? ", " : "", u);
				free(u);
			}
			p++;
		} else if (*p == '$' && p[1] == 'T') {
			buf_puts(&b, tsub ? tsub : "T");
			p++;
		} else {
			buf_add(&b, p, 1);
		}
	}
	return b.data;
}

static int emit_expr(struct wctx *w, const struct node *n, char **out,
                     int *ty);

/* the emitted arguments of a call */
static int emit_args(struct wctx *w, const struct node *n, char **args,
                     int *tys)
{
	size_t i;
	for (i = 0; i < n->nargs; i++)
		if (emit_expr(w, n->args[i], &args[i], &tys[i]) != 0) {
			while (i-- > 0)
				free(args[i]);
			return -1;
		}
	return 0;
}

static void free_args(char **args, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		free(args[i]);
}

/* a helper of the file whose body is one `return E;`, inlined */
static int inline_helper(struct wctx *w, const struct node *call,
                         const char *name, char **args, int *tys, char **out,
                         int *ty);
static const char *keep_name(struct wctx *w, const char *name);

/* a call of a table row: the Metal text */
static int emit_row_call(struct wctx *w, const struct tr_row *r,
                         const char *name, size_t off, char **args, int *tys,
                         size_t na, char **out, int *ty)
{
	int cplx = 0, allint = 1;
	size_t i;
	const char *tpl;
	char *conv[8] = {0};
	for (i = 0; i < na; i++) {
		if (tys[i] == TY_CPLX)
			cplx = 1;
		if (tys[i] != TY_INT && tys[i] != TY_BOOL)
			allint = 0;
	}
	if (na == 0)
		allint = 0;
	/* the tree's c10/metal helper: for complex values when the tree has
	 * it, and for the others when Metal has no function of the row */
	if (r->helper && env_has(w->env, r->helper) &&
	    (cplx ? (r->cplx || r->ty == TY_CPLX)
	          : (!r->real && !(allint && r->integer)))) {
		char *a = apply("$*", args, na, NULL);
		*out = xasprintf("c10::metal::%s(%s)", r->helper, a);
		free(a);
		*ty = r->ty == TY_ARG || r->ty == TY_ARG_REAL
		          ? (cplx ? (r->ty == TY_ARG ? TY_CPLX : TY_REAL)
		                  : allint ? TY_INT : TY_REAL)
		          : r->ty;
		if ((r->ty == TY_ARG || r->ty == TY_ARG_REAL) && allint && !r->integer)
			*ty = TY_REAL;
		return 0;
	}
	if (cplx) {
		tpl = r->cplx;
		if (!tpl) {
			werr(w, off, r->ty == TY_CPLX
			                 ? xasprintf("%s (the tree's c10/metal defines no %s)",
			                             name, r->helper)
			                 : xasprintf("%s on complex values", name));
			return -1;
		}
		*ty = r->ty == TY_ARG ? TY_CPLX : r->ty == TY_ARG_REAL ? TY_REAL : r->ty;
		*out = apply(tpl, args, na, NULL);
		return 0;
	}
	if (allint && r->integer) {
		*out = apply(r->integer, args, na, NULL);
		*ty = r->ty == TY_ARG || r->ty == TY_ARG_REAL ? TY_INT : r->ty;
		return 0;
	}
	tpl = r->real;
	if (!tpl) {
		werr(w, off, xasprintf("%s (no Metal function, and the tree's "
		                       "c10/metal defines no %s)",
		                       name, r->helper ? r->helper : name));
		return -1;
	}
	/* integers given to real math are converted to float, as C++ does */
	for (i = 0; i < na; i++)
		conv[i] = tys[i] == TY_INT || tys[i] == TY_BOOL
		              ? xasprintf("static_cast<float>(%s)", args[i])
		              : xstrdup(args[i]);
	*out = apply(tpl, conv, na, NULL);
	free_args(conv, na);
	*ty = r->ty == TY_ARG || r->ty == TY_ARG_REAL ? TY_REAL : r->ty;
	return 0;
}

/* wrap a real value for a complex operation: float2(x, 0) */
static char *as_cplx(const char *s, int ty)
{
	if (ty == TY_CPLX)
		return xstrdup(s);
	return xasprintf("float2(%s, 0)", s);
}

static int emit_binary(struct wctx *w, const struct node *n, char **out,
                       int *ty)
{
	char *a, *b;
	int ta, tb;
	const char *op = n->op;
	if (emit_expr(w, n->a, &a, &ta) != 0)
		return -1;
	if (emit_expr(w, n->b, &b, &tb) != 0) {
		free(a);
		return -1;
	}
	if (ta == TY_CPLX || tb == TY_CPLX) {
		int both = ta == TY_CPLX && tb == TY_CPLX;
		if (!strcmp(op, "+") || !strcmp(op, "-")) {
			char *x = as_cplx(a, ta), *y = as_cplx(b, tb);
			*out = xasprintf("%s %s %s", x, op, y);
			free(x);
			free(y);
			*ty = TY_CPLX;
		} else if ((!strcmp(op, "*") || !strcmp(op, "/")) && !both &&
		           (tb != TY_CPLX || !strcmp(op, "*"))) {
			/* complex times or over a real: elementwise is right */
			*out = xasprintf("%s %s %s", a, op, b);
			*ty = TY_CPLX;
		} else if (!strcmp(op, "*") || !strcmp(op, "/")) {
			const struct tr_row *r =
			    row_find(!strcmp(op, "*") ? "operator*" : "operator/", TR_FN, 2);
			char *args[2];
			int tys[2] = {TY_CPLX, TY_CPLX};
			int rc;
			args[0] = as_cplx(a, ta);
			args[1] = as_cplx(b, tb);
			rc = emit_row_call(w, r, !strcmp(op, "*") ? "complex *" : "complex /",
			                   n->off, args, tys, 2, out, ty);
			free(args[0]);
			free(args[1]);
			if (rc != 0) {
				free(a);
				free(b);
				return -1;
			}
		} else if (!strcmp(op, "==") || !strcmp(op, "!=")) {
			const struct tr_row *r =
			    row_find(!strcmp(op, "==") ? "operator==" : "operator!=", TR_FN, 2);
			char *args[2];
			args[0] = as_cplx(a, ta);
			args[1] = as_cplx(b, tb);
			*out = apply(r->cplx, args, 2, NULL);
			*ty = r->ty;
			free(args[0]);
			free(args[1]);
		} else {
			werr(w, n->off, xasprintf("the operator %s on complex values", op));
			free(a);
			free(b);
			return -1;
		}
		free(a);
		free(b);
		return 0;
	}
	*out = xasprintf("%s %s %s", a, op, b);
	free(a);
	free(b);
	if (!strcmp(op, "==") || !strcmp(op, "!=") || !strcmp(op, "<") ||
	    !strcmp(op, ">") || !strcmp(op, "<=") || !strcmp(op, ">=") ||
	    !strcmp(op, "&&") || !strcmp(op, "||"))
		*ty = TY_BOOL;
	else if (!strcmp(op, "&") || !strcmp(op, "|") || !strcmp(op, "^") ||
	         !strcmp(op, "<<") || !strcmp(op, ">>") || !strcmp(op, "%")) {
		if (ta == TY_REAL || tb == TY_REAL) {
			werr(w, n->off, xasprintf("the operator %s on floating values", op));
			free(*out);
			return -1;
		}
		*ty = TY_INT;
	} else
		*ty = arith_ty(ta, tb);
	return 0;
}

static int emit_cast(struct wctx *w, const struct node *n, char **out, int *ty)
{
	int vt;
	char *mt = type_metal(w, n->ty, n->off, &vt);
	const struct node *arg = n->k == N_CAST && n->a ? n->a : NULL;
	char *args[8];
	int tys[8];
	size_t na;
	if (!mt)
		return -1;
	if (arg) {
		na = 1;
		if (emit_expr(w, arg, &args[0], &tys[0]) != 0) {
			free(mt);
			return -1;
		}
	} else {
		na = n->nargs;
		if (emit_args(w, n, args, tys) != 0) {
			free(mt);
			return -1;
		}
	}
	if (vt == TY_CPLX && na == 2) {
		*out = xasprintf("float2(%s, %s)", args[0], args[1]);
		*ty = TY_CPLX;
	} else if (na == 1 && vt == TY_CPLX) {
		*out = tys[0] == TY_CPLX ? xstrdup(args[0]) : as_cplx(args[0], tys[0]);
		*ty = TY_CPLX;
	} else if (na == 1 && tys[0] == TY_CPLX) {
		werr(w, n->off, xasprintf("a complex value cast to %s", mt));
		free_args(args, na);
		free(mt);
		return -1;
	} else if (na == 1 && strcmp(mt, "auto") != 0) {
		const struct node *a0 = arg ? arg : n->args[0];
		struct var *v = a0->k == N_NAME ? var_find(w, a0->text) : NULL;
		char *u = unwrap(args[0]);
		if (v && v->flt && !strcmp(mt, "float"))
			*out = u; /* float to float: nothing to do */
		else if (a0->k == N_NUM && !float_lit(a0->text) && !strcmp(mt, "float") &&
		         strspn(a0->text, "0123456789") == strlen(a0->text)) {
			*out = xasprintf("%s.0f", a0->text); /* float(1): 1.0f */
			free(u);
		}
		else {
			*out = xasprintf("static_cast<%s>(%s)", mt, u);
			free(u);
		}
		*ty = vt;
	} else if (na == 0 && strcmp(mt, "auto") != 0) {
		*out = xasprintf("%s(0)", mt);
		*ty = vt;
	} else {
		werr(w, n->off, xasprintf("a %s built from %zu values", mt, na));
		free_args(args, na);
		free(mt);
		return -1;
	}
	free_args(args, na);
	free(mt);
	return 0;
}

/* the condition E of an if or a ?: at OFF into *OUT: refused when it is
 * a complex value (Metal does not read a float2 as a truth value) */
static int emit_cond(struct wctx *w, const struct node *e, size_t off,
                     char **out)
{
	int ty;
	if (emit_expr(w, e, out, &ty) != 0)
		return -1;
	if (ty == TY_CPLX) {
		werr(w, off, xstrdup("a complex value as a condition"));
		free(*out);
		return -1;
	}
	return 0;
}

static int emit_expr(struct wctx *w, const struct node *n, char **out, int *ty)
{
	switch (n->k) {
	case N_NUM: {
		const char *s = n->text;
		size_t l = strlen(s);
		if (strchr(s, '\'')) {
			werr(w, n->off, xstrdup("a digit separator"));
			return -1;
		}
		if (float_lit(s)) {
			char last = s[l - 1];
			if (last == 'f' || last == 'F')
				*out = xstrdup(s);
			else if (last == 'l' || last == 'L')
				*out = xasprintf("%.*sf", (int)(l - 1), s);
			else
				*out = xasprintf("%sf", s);
			*ty = TY_REAL;
		} else {
			*out = xstrdup(s);
			*ty = TY_INT;
		}
		return 0;
	}
	case N_NAME: {
		struct var *v = var_find(w, n->text);
		const struct tr_row *r;
		if (v) {
			*out = xstrdup(v->emit);
			*ty = v->ty;
			return 0;
		}
		r = row_find(n->text, TR_CONST, -1);
		if (r) {
			*out = xstrdup(r->real);
			*ty = r->ty;
			return 0;
		}
		if (w->captures && *w->captures && !strchr(n->text, ':'))
			werr(w, n->off, xasprintf("the captured value %s", n->text));
		else
			werr(w, n->off, xasprintf("the name %s", n->text));
		return -1;
	}
	case N_PAREN: {
		char *a;
		if (emit_expr(w, n->a, &a, ty) != 0)
			return -1;
		*out = xasprintf("(%s)", a);
		free(a);
		return 0;
	}
	case N_UNARY: {
		char *a;
		int ta;
		if (emit_expr(w, n->a, &a, &ta) != 0)
			return -1;
		if (ta == TY_CPLX && n->op[0] != '-' && n->op[0] != '+') {
			werr(w, n->off, xasprintf("the operator %s on complex values", n->op));
			free(a);
			return -1;
		}
		if (n->op[0] == '~' && ta == TY_REAL) {
			werr(w, n->off, xstrdup("the operator ~ on floating values"));
			free(a);
			return -1;
		}
		*out = xasprintf("%s%s", n->op, a);
		free(a);
		*ty = n->op[0] == '!' ? TY_BOOL
		      : (ta == TY_BOOL ? TY_INT : ta);
		return 0;
	}
	case N_BINARY:
		return emit_binary(w, n, out, ty);
	case N_TERN: {
		char *c, *a, *b;
		int ta, tb;
		if (emit_cond(w, n->a, n->off, &c) != 0)
			return -1;
		if (emit_expr(w, n->b, &a, &ta) != 0) {
			free(c);
			return -1;
		}
		if (emit_expr(w, n->c, &b, &tb) != 0) {
			free(c);
			free(a);
			return -1;
		}
		if ((ta == TY_CPLX) != (tb == TY_CPLX)) {
			char *x = as_cplx(a, ta), *y = as_cplx(b, tb);
			free(a);
			free(b);
			a = x;
			b = y;
			ta = tb = TY_CPLX;
		}
		*out = xasprintf("%s ? %s : %s", c, a, b);
		*ty = ta == tb ? ta : arith_ty(ta, tb);
		free(c);
		free(a);
		free(b);
		return 0;
	}
	case N_ASSIGN: {
		char *b;
		int tb;
		struct var *v;
		if (n->a->k != N_NAME || !(v = var_find(w, n->a->text))) {
			werr(w, n->off, xstrdup("an assignment to something other than a "
			                        "local"));
			return -1;
		}
		if (emit_expr(w, n->b, &b, &tb) != 0)
			return -1;
		if (v->ty == TY_CPLX && (n->op[0] == '*' || n->op[0] == '/') &&
		    tb == TY_CPLX) {
			werr(w, n->off, xasprintf("the operator %s on complex values", n->op));
			free(b);
			return -1;
		}
		*out = xasprintf("%s %s %s", v->emit, n->op, b);
		*ty = v->ty;
		free(b);
		return 0;
	}
	case N_CAST:
		return emit_cast(w, n, out, ty);
	case N_LIMIT: {
		const struct tr_row *r = row_find(n->text, TR_LIMIT, -1);
		int vt;
		char *mt;
		if (!r) {
			werr(w, n->off, xasprintf("numeric_limits::%s", n->text));
			return -1;
		}
		mt = type_metal(w, n->ty, n->off, &vt);
		if (!mt)
			return -1;
		if (vt == TY_CPLX || (vt != TY_REAL && !r->integer)) {
			werr(w, n->off, xasprintf("numeric_limits<%s>::%s", n->ty->name,
			                          n->text));
			free(mt);
			return -1;
		}
		*out = apply(vt == TY_REAL ? r->real : r->integer, NULL, 0, mt);
		*ty = r->ty == TY_ARG ? vt : r->ty;
		free(mt);
		return 0;
	}
	case N_METHOD: {
		const struct tr_row *r = row_find(n->text, TR_METHOD, -1);
		char *a;
		int ta;
		if (!r || n->nargs != 0) {
			werr(w, n->off, xasprintf("the member function .%s()", n->text));
			return -1;
		}
		if (emit_expr(w, n->a, &a, &ta) != 0)
			return -1;
		{
			char *args[1] = {a};
			char *wrapped = NULL;
			if (n->a->k != N_NAME && n->a->k != N_PAREN) {
				wrapped = xasprintf("(%s)", a);
				args[0] = wrapped;
			}
			*out = apply(ta == TY_CPLX ? r->cplx : r->real, args, 1, NULL);
			free(wrapped);
		}
		*ty = ta == TY_CPLX ? TY_REAL : (ta == TY_INT ? TY_INT : TY_REAL);
		free(a);
		return 0;
	}
	case N_CALL: {
		const char *name = n->a->text;
		const struct tr_row *r;
		char *args[8];
		int tys[8], rc;
		if (emit_args(w, n, args, tys) != 0)
			return -1;
		r = row_find(name, TR_FN, (int)n->nargs);
		if (r) {
			rc = emit_row_call(w, r, name, n->off, args, tys, n->nargs, out, ty);
		} else {
			rc = inline_helper(w, n, name, args, tys, out, ty);
		}
		free_args(args, n->nargs);
		return rc;
	}
	}
	werr(w, n->off, xstrdup("a construct the translator does not read"));
	return -1;
}

/* ---- statements ---- */

static void put_ind(struct wctx *w)
{
	int i;
	for (i = 0; i < w->ind; i++)
		buf_puts(&w->out, "  ");
}

/* `return E;` as the overload returns: the output type from the value */
static char *ret_value(const struct wctx *w, const char *e0, int ty)
{
	const char *out = w->t->out;
	int same = w->t->in == w->t->out || !strcmp(w->t->in, w->t->out);
	char *e = unwrap(e0), *r;
	if (w->mode == M_CPLX && same)
		r = ty == TY_CPLX ? xasprintf("T(%s)", e) : xasprintf("T(%s, 0)", e);
	else if (same && w->mode != M_BOOL)
		r = !strncmp(e, "static_cast<T>(", 15) && is_atom(e)
		        ? xstrdup(e)
		        : xasprintf("static_cast<T>(%s)", e);
	else if (!strcmp(out, "bool"))
		r = ty == TY_BOOL ? xstrdup(e) : xasprintf("static_cast<bool>(%s)", e);
	else if (!strcmp(out, "float"))
		r = ty == TY_REAL ? xstrdup(e) : xasprintf("static_cast<float>(%s)", e);
	else
		r = xasprintf("static_cast<%s>(%s)", out, e);
	free(e);
	return r;
}

static int emit_stmt(struct wctx *w, const struct stmt *s);

/* how often NAME stands as a whole identifier in T */
static size_t ident_count(const char *t, const char *name)
{
	size_t l = strlen(name), n = 0;
	const char *p = t;
	if (l == 0)
		return 0;
	while ((p = strstr(p, name)) != NULL) {
		if ((p == t || !idc(p[-1])) && !idc(p[l]))
			n++;
		p += l;
	}
	return n;
}

/* E assigns something (an assignment anywhere in it) */
static int node_assigns(const struct node *e)
{
	size_t i;
	if (!e)
		return 0;
	if (e->k == N_ASSIGN)
		return 1;
	if (node_assigns(e->a) || node_assigns(e->b) || node_assigns(e->c))
		return 1;
	for (i = 0; i < e->nargs; i++)
		if (node_assigns(e->args[i]))
			return 1;
	return 0;
}

/* declarator K of the declaration S in BODY (the lambda's text) is a
 * local nothing reads: its name stands there once, and its value
 * assigns nothing.  Left out (2.6.0's complex lerp lambdas copy their
 * parameters to opmath locals they never use) */
static int decl_unread(const char *body, const struct stmt *s, size_t k)
{
	return s->inits[k] && ident_count(body, s->names[k]) == 1 &&
	       !node_assigns(s->inits[k]);
}

/* how often the name NAME is read in E */
static size_t node_reads(const struct node *e, const char *name)
{
	size_t i, n = 0;
	if (!e)
		return 0;
	if (e->k == N_NAME && strcmp(e->text, name) == 0)
		n++;
	n += node_reads(e->a, name) + node_reads(e->b, name) + node_reads(e->c, name);
	for (i = 0; i < e->nargs; i++)
		n += node_reads(e->args[i], name);
	return n;
}

/* how often NAME is read by the values of the locals left out in S
 * (decl_unread) */
static size_t unread_reads(const char *body, const struct stmt *s,
                           const char *name)
{
	size_t i, n = 0;
	if (!s)
		return 0;
	if (s->k == S_DECL)
		for (i = 0; i < s->ndecl; i++)
			if (decl_unread(body, s, i))
				n += node_reads(s->inits[i], name);
	n += unread_reads(body, s->then, name) + unread_reads(body, s->els, name);
	for (i = 0; i < s->n; i++)
		n += unread_reads(body, s->v[i], name);
	return n;
}

/* a `using NAME = TYPE;` of the lambda or an inlined helper: NAME stands
 * for the Metal type MT (owned by the alias list) of value type VT */
static void push_alias(struct wctx *w, const char *name, char *mt, int vt)
{
	GROW(w->al, w->nal, w->capal);
	w->al[w->nal].name = name;
	w->al[w->nal].metal = mt;
	w->al[w->nal].ty = vt;
	w->nal++;
}

static int emit_block(struct wctx *w, const struct stmt *s)
{
	size_t i, mark = w->nvars, mal = w->nal;
	for (i = 0; i < s->n; i++)
		if (emit_stmt(w, s->v[i]) != 0)
			return -1;
	vars_pop(w, mark);
	while (w->nal > mal)
		free(w->al[--w->nal].metal);
	return 0;
}

/* a statement as the body of an if/else: always in braces */
static int emit_sub(struct wctx *w, const struct stmt *s)
{
	int rc;
	w->ind++;
	rc = s->k == S_BLOCK ? emit_block(w, s) : emit_stmt(w, s);
	w->ind--;
	return rc;
}

static int emit_stmt(struct wctx *w, const struct stmt *s)
{
	char *e;
	int ty;
	switch (s->k) {
	case S_EMPTY:
		return 0;
	case S_BLOCK:
		put_ind(w);
		buf_puts(&w->out, "{\n");
		if (emit_sub(w, s) != 0)
			return -1;
		put_ind(w);
		buf_puts(&w->out, "}\n");
		return 0;
	case S_RETURN:
		if (!s->e) {
			werr(w, s->off, xstrdup("a return without a value"));
			return -1;
		}
		if (emit_expr(w, s->e, &e, &ty) != 0)
			return -1;
		{
			char *r = ret_value(w, e, ty);
			put_ind(w);
			buf_printf(&w->out, "return %s;\n", r);
			free(r);
		}
		free(e);
		return 0;
	case S_EXPR:
		if (s->e->k != N_ASSIGN) {
			werr(w, s->off, xstrdup("a statement that is not an assignment"));
			return -1;
		}
		if (emit_expr(w, s->e, &e, &ty) != 0)
			return -1;
		put_ind(w);
		buf_printf(&w->out, "%s;\n", e);
		free(e);
		return 0;
	case S_USING: {
		int vt;
		char *mt = type_metal(w, s->ty, s->off, &vt);
		if (!mt)
			return -1;
		push_alias(w, s->names[0], mt, vt);
		return 0;
	}
	case S_DECL: {
		int vt;
		size_t i;
		char *mt = type_metal(w, s->ty, s->off, &vt);
		if (!mt)
			return -1;
		for (i = 0; i < s->ndecl; i++) {
			int dt = vt;
			char *init = NULL;
			if (s->inits[i] && emit_expr(w, s->inits[i], &init, &ty) != 0) {
				free(mt);
				return -1;
			}
			if (!strcmp(mt, "auto")) {
				if (!init) {
					werr(w, s->off, xstrdup("auto without an initializer"));
					free(mt);
					return -1;
				}
				dt = ty;
			} else if (init && vt == TY_CPLX && ty != TY_CPLX) {
				char *x = as_cplx(init, ty);
				free(init);
				init = x;
			} else if (init && vt != TY_CPLX && ty == TY_CPLX) {
				werr(w, s->off, xasprintf("a complex value stored in a %s", mt));
				free(init);
				free(mt);
				return -1;
			}
			if (w->depth == 0 && !w->outer && w->code && w->code->body &&
			    decl_unread(w->code->body, s, i)) {
				/* left out, its value translated all the same */
				free(init);
				continue;
			}
			put_ind(w);
			if (!strcmp(mt, "auto") && dt == TY_CPLX)
				buf_printf(&w->out, "%sfloat2 %s", s->ty->konst ? "const " : "",
				           s->names[i]);
			else
				buf_printf(&w->out, "%s%s %s", s->ty->konst ? "const " : "", mt,
				           s->names[i]);
			if (init)
				buf_printf(&w->out, " = %s", init);
			buf_puts(&w->out, ";\n");
			free(init);
			var_push(w, s->names[i], xstrdup(s->names[i]), dt, 0);
			w->vars[w->nvars - 1].flt = !strcmp(mt, "float");
		}
		free(mt);
		return 0;
	}
	case S_IF: {
		/* the chain if, else if ..., else at one level, each branch one
		 * level in; every condition through emit_cond (an else-if's was
		 * once written as it stood, a complex value included) */
		const char *lead = "";
		if (emit_cond(w, s->e, s->off, &e) != 0)
			return -1;
		while (1) {
			put_ind(w);
			buf_printf(&w->out, "%sif (%s) {\n", lead, e);
			free(e);
			if (emit_sub(w, s->then) != 0)
				return -1;
			if (!s->els || s->els->k != S_IF)
				break;
			s = s->els;
			lead = "} else ";
			if (emit_cond(w, s->e, s->off, &e) != 0)
				return -1;
		}
		if (s->els) {
			put_ind(w);
			buf_puts(&w->out, "} else {\n");
			if (emit_sub(w, s->els) != 0)
				return -1;
		}
		put_ind(w);
		buf_puts(&w->out, "}\n");
		return 0;
	}
	}
	werr(w, s->off, xstrdup("a statement the translator does not read"));
	return -1;
}

/* ---- parsing one piece of code ---- */

static struct stmt *parse_code(const char *text, struct arena *ar, char **err,
                               size_t *err_off)
{
	struct parser p;
	struct stmt *s;
	memset(&p, 0, sizeof p);
	p.t = text;
	p.tk = tokenize(text, strlen(text), &p.nt);
	p.ar = ar;
	s = parse_block_items(&p, NULL, 0);
	*err = p.err;
	*err_off = p.err_off;
	if (!s && !*err)
		*err = xstrdup("a construct the translator does not read");
	free(p.tk);
	free(p.aliases);
	return *err ? NULL : s;
}

/* the line of offset OFF in CODE's body */
static unsigned long code_line(const struct ck_code *c, size_t off)
{
	unsigned long l = c->body_line;
	size_t i, n = strlen(c->body);
	for (i = 0; i < off && i < n; i++)
		if (c->body[i] == '\n')
			l++;
	return l;
}

static int param_is_complex(const char *type)
{
	return strstr(type, "complex") != NULL;
}

/* a parameter type of a template helper that stands for whatever the
 * caller passes: one plain name (`scalar_t`, `weight_t`, `T`), possibly
 * const or a reference, that is no type of the table with a value type
 * of its own (float, int, bool, ...) */
static int param_is_generic(const char *type)
{
	const struct tr_row *r;
	char *t;
	size_t n;
	int yes;
	if (strncmp(type, "const ", 6) == 0)
		type += 6;
	n = strspn(type, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                 "0123456789_");
	if (n == 0 || (type[n] && strcmp(type + n, " const") != 0 &&
	               strcmp(type + n, "&") != 0 && strcmp(type + n, " &") != 0 &&
	               strcmp(type + n, " const&") != 0 &&
	               strcmp(type + n, " const &") != 0))
		return 0;
	t = xstrndup(type, n);
	r = row_find(t, TR_TYPE, -1);
	yes = (!r || r->ty == TY_NONE) && strcmp(t, "long") != 0 &&
	      strcmp(t, "unsigned") != 0;
	free(t);
	return yes;
}

/* a helper that serves the complex overload without being written for
 * complex values: a template whose every parameter is of a generic type
 * (Lerp.h's lerp(scalar_t, scalar_t, weight_t), which 2.6.0's CUDA
 * lambdas call for complex dtypes too) */
static int helper_is_generic(const struct ck_code *c)
{
	size_t i;
	if (!c->templ || c->nparams == 0)
		return 0;
	for (i = 0; i < c->nparams; i++)
		if (!param_is_generic(c->params[i].type))
			return 0;
	return 1;
}

/* the name X of a parameter type `[const] [c10::|std::]complex<X>[&]`
 * (malloc'd), or NULL */
static char *complex_part_type(const char *type)
{
	const char *lt = strchr(type, '<'), *gt = strrchr(type, '>');
	char *x;
	size_t k;
	if (!param_is_complex(type) || !lt || !gt || gt < lt)
		return NULL;
	x = lex_trim_dup(lt + 1, 0, (size_t)(gt - lt - 1));
	for (k = 0; x[k]; k++)
		if (!idc(x[k]))
			break;
	if (!x[0] || x[k]) {
		free(x);
		return NULL;
	}
	return x;
}

/* a helper body inlined: `using A = T;` aliases and declarations with
 * an initializer, then one `return E;` (Lerp.h's lerp: opmath aliases,
 * opmath locals, the return) */
static int helper_shape(const struct stmt *body)
{
	size_t i, k;
	if (body->n < 1 || body->v[body->n - 1]->k != S_RETURN ||
	    !body->v[body->n - 1]->e)
		return 0;
	for (i = 0; i + 1 < body->n; i++) {
		const struct stmt *s = body->v[i];
		if (s->k == S_USING)
			continue;
		if (s->k != S_DECL)
			return 0;
		for (k = 0; k < s->ndecl; k++)
			if (!s->inits[k])
				return 0;
	}
	return 1;
}

/* one statement before a helper's return: an alias is pushed; a local
 * names its initializer's value (substituted where it is used, as a
 * parameter is: the helper's expression stays one expression) in the
 * local's type (a complex local of a real value made complex) */
static int helper_stmt(struct wctx *w, const struct stmt *s)
{
	int vt, ty;
	size_t k;
	char *mt = type_metal(w, s->ty, s->off, &vt);
	if (!mt)
		return -1;
	if (s->k == S_USING) {
		push_alias(w, s->names[0], mt, vt);
		return 0;
	}
	for (k = 0; k < s->ndecl; k++) {
		char *init;
		if (emit_expr(w, s->inits[k], &init, &ty) != 0) {
			free(mt);
			return -1;
		}
		if (!strcmp(mt, "auto"))
			vt = ty;
		else if (vt == TY_CPLX && ty != TY_CPLX) {
			char *x = as_cplx(init, ty);
			free(init);
			init = x;
		} else if (vt != TY_CPLX && ty == TY_CPLX) {
			werr(w, s->off, xasprintf("a complex value stored in a %s", mt));
			free(init);
			free(mt);
			return -1;
		}
		var_push(w, s->names[k], operand(init), vt, 0);
		free(init);
	}
	free(mt);
	return 0;
}

static int inline_helper(struct wctx *w, const struct node *call,
                         const char *name, char **args, int *tys, char **out,
                         int *ty)
{
	const struct ck_code *h = NULL, *save_code = w->code;
	size_t i, mark, mal;
	int want_cplx = w->mode == M_CPLX, rc = -1, h_cx = 0;
	struct arena ar;
	struct stmt *body;
	char *err = NULL;
	size_t err_off = 0;
	const char *base = lex_unqualified(name);

	/* the overload for the class's values: for complex ones the helper
	 * written for complex values, else a generic template; for the
	 * others one that is not written for complex values */
	for (i = 0; i < w->nh; i++) {
		const struct ck_code *c = &w->helpers[i];
		int cx;
		if (strcmp(c->name, base) != 0 || c->nparams != call->nargs)
			continue;
		cx = c->nparams && param_is_complex(c->params[0].type);
		if (want_cplx ? !cx && !helper_is_generic(c) : cx)
			continue;
		if (c->nparams && (strstr(c->params[0].type, "double") ||
		                   !strcmp(c->params[0].type, "int64_t")))
			continue;
		if (!h || (want_cplx && cx && !h_cx) ||
		    (cx == h_cx && c->templ && !h->templ)) {
			h = c;
			h_cx = cx;
		}
	}
	if (!h) {
		werr(w, call->off, xasprintf("the helper %s (not a function of the "
		                             "lambda's file whose body is one return)",
		                             name));
		return -1;
	}
	if (w->depth >= 4) {
		werr(w, call->off, xasprintf("the helper %s (helpers nested too deep)",
		                             name));
		return -1;
	}
	memset(&ar, 0, sizeof ar);
	body = parse_code(h->body, &ar, &err, &err_off);
	free(err);
	if (!body || !helper_shape(body)) {
		werr(w, call->off, xasprintf("the helper %s (%s:%lu: more than "
		                             "aliases, locals with a value and one "
		                             "return)",
		                             name, h->file, h->line));
		arena_free(&ar);
		return -1;
	}
	mark = w->nvars;
	mal = w->nal;
	/* a parameter `c10::complex<X>`: X is the type of its parts, float
	 * (Lerp.h's is_lerp_weight_small compares with X(0.25)) */
	for (i = 0; w->mode == M_CPLX && i < h->nparams; i++) {
		char *x = complex_part_type(h->params[i].type);
		if (x) {
			push_alias(w, keep_name(w, x), xstrdup("float"), TY_REAL);
			free(x);
		}
	}
	for (i = 0; i < h->nparams; i++)
		var_push(w, h->params[i].name, operand(args[i]), tys[i], i == 0);
	if (h->nparams == 0)
		var_push(w, "", xstrdup(""), TY_NONE, 1);
	w->depth++;
	w->code = h;
	for (i = 0; i + 1 < body->n; i++)
		if (helper_stmt(w, body->v[i]) != 0)
			break;
	if (i + 1 == body->n) {
		char *e;
		if (emit_expr(w, body->v[i]->e, &e, ty) == 0) {
			*out = operand(e);
			free(e);
			rc = 0;
		}
	}
	w->code = save_code;
	w->depth--;
	vars_pop(w, mark);
	while (w->nal > mal)
		free(w->al[--w->nal].metal);
	arena_free(&ar);
	return rc;
}

static const char *const default_params[3][3] = {
    {"x", NULL, NULL}, {"a", "b", NULL}, {"a", "b", "c"}};

/* the text assigns to NAME: `NAME =`, `NAME +=`, ... (not `==`) */
static int text_assigns(const char *t, const char *name)
{
	size_t l = strlen(name);
	const char *p = t;
	while ((p = strstr(p, name)) != NULL) {
		if ((p == t || !idc(p[-1])) && !idc(p[l])) {
			const char *q = p + l;
			while (sp(*q))
				q++;
			if (strchr("+-*/%&|^", *q) && q[1] == '=')
				return 1;
			if (q[0] == '=' && q[1] != '=')
				return 1;
		}
		p += l;
	}
	return 0;
}

/* every identifier of a text, to keep parameter names apart */
static int text_has_ident(const char *t, const char *w)
{
	return ident_count(t, w) != 0;
}

static int mode_of(const struct tr_target *t)
{
	switch (t->cls) {
	case RG_CLS_FLOAT: return M_FLOAT;
	case RG_CLS_COMPLEX: return M_CPLX;
	case RG_CLS_BOOL:
		return !strcmp(t->out, "float") ? M_I2F : M_BOOL;
	default:
		if (!strcmp(t->out, "float"))
			return M_I2F;
		return !strcmp(t->in, "bool") ? M_BOOL : M_INT;
	}
}

/* the parameter's type as written is one the class gives a value of:
 * its value type, or -1 */
static int param_ok(struct wctx *w, const char *type)
{
	const char *t = type;
	int vt;
	if (strncmp(t, "const ", 6) == 0)
		t += 6;
	if (!strcmp(t, "scalar_t") || !strcmp(t, "T") || !strcmp(t, "opmath_t") ||
	    !strcmp(t, "auto") || !strcmp(t, "scalar_t const") || !strcmp(t, "T const")) {
		scalar_metal(w, &vt);
		if (w->mode == M_I2F || w->mode == M_FLOAT)
			vt = TY_REAL;
		return vt;
	}
	if (!strcmp(t, "bool"))
		return w->mode == M_BOOL || w->mode == M_INT ? TY_BOOL : -1;
	if (!strcmp(t, "float") || !strcmp(t, "double"))
		return w->mode == M_FLOAT || w->mode == M_I2F ? TY_REAL : -1;
	return -1;
}

/* `[const] TYPE NAME = S.to<X>();` (an at::Scalar's value): 1, and *src
 * the variable S (malloc'd) */
static int scalar_source(const char *t, char **src)
{
	const char *eq = strchr(t, '='), *p, *q, *e;
	if (!eq || eq[1] == '=')
		return 0;
	p = eq + 1;
	while (sp(*p))
		p++;
	q = p;
	while (idc(*q))
		q++;
	if (q == p)
		return 0;
	e = q;
	while (sp(*e))
		e++;
	if (strncmp(e, ".to", 3) != 0 || idc(e[3]))
		return 0;
	*src = xstrndup(p, (size_t)(q - p));
	return 1;
}

/* the Metal type of `S.to<X>()` in the declaration T (X translated; the
 * declared type when it is not auto); NULL when unknown */
static char *to_type(struct wctx *w, const char *t, int *vt)
{
	const char *lt = strstr(t, ".to"), *gt;
	struct type ty;
	char *name, *m;
	size_t k;
	if (!lt)
		return NULL;
	lt = strchr(lt, '<');
	gt = lt ? strchr(lt, '>') : NULL;
	if (!lt || !gt)
		return NULL;
	memset(&ty, 0, sizeof ty);
	name = lex_trim_dup(lt, 1, (size_t)(gt - lt));
	for (k = 0; name[k]; k++)
		if (!idc(name[k]) && name[k] != ':')
			break;
	if (name[k]) {
		free(name);
		return NULL;
	}
	ty.name = name;
	m = type_metal(w, &ty, 0, vt);
	free(name);
	return m;
}

/* a copy of NAME the context frees at its end */
static const char *keep_name(struct wctx *w, const char *name)
{
	GROW(w->kept, w->nkept, w->capkept);
	w->kept[w->nkept] = xstrdup(name);
	return w->kept[w->nkept++];
}

/* the captured values CODE uses, declared from OUTER: 0, or -1 with the
 * construct in r */
static int emit_outer(struct wctx *w, const struct ck_code *code,
                      char *const *outer, size_t nouter, struct arena *ar,
                      struct tr_out *r)
{
	char *need = nouter ? xcalloc(nouter, 1) : NULL;
	char **names = nouter ? xcalloc(nouter, sizeof *names) : NULL;
	size_t i, j;
	int rc = 0;
	/* the declared names: the word before the first '=', '(' or '{' */
	for (i = 0; i < nouter; i++) {
		const char *t = outer[i];
		size_t e = strcspn(t, "=({"), b;
		while (e > 0 && sp(t[e - 1]))
			e--;
		b = e;
		while (b > 0 && idc(t[b - 1]))
			b--;
		names[i] = xstrndup(t + b, e - b);
	}
	for (i = nouter; i-- > 0;) {
		if (!*names[i] || var_find(w, names[i]))
			continue;
		if (text_has_ident(code->body, names[i]))
			need[i] = 1;
		for (j = i + 1; j < nouter && !need[i]; j++) {
			const char *init = strpbrk(outer[j], "=({");
			if (need[j] && init && text_has_ident(init, names[i]))
				need[i] = 1;
		}
	}
	for (i = 0; i < nouter && rc == 0; i++) {
		struct stmt *st;
		char *err = NULL;
		size_t eo;
		char *src = NULL;
		if (!need[i])
			continue;
		/* `NAME = S.to<X>()`: the kernel's Scalar argument, which is the
		 * functor's alpha in the alpha kinds */
		if (scalar_source(outer[i], &src) && mr_kind_params(w->t->kind)) {
			/* binary-params: each captured Scalar is a member of the
			 * functor's params, named as the value it is captured in
			 * (hardtanh_backward's min_val, max_val), at float */
			char *tx = to_type(w, outer[i], &(int){TY_NONE});
			int vt = TY_REAL;
			free(src);
			if (!tx) {
				r->construct = xasprintf("the captured value %s (its type)",
				                         names[i]);
				r->line = code->line;
				rc = -1;
				break;
			}
			var_push(w, names[i], xasprintf("params.%s", names[i]), vt, 0);
			w->vars[w->nvars - 1].name = keep_name(w, names[i]);
			free(tx);
			continue;
		}
		if (src) {
			free(src);
			src = NULL;
		}
		if (scalar_source(outer[i], &src)) {
			char *tx = NULL;
			int vt = TY_NONE;
			if (!mr_kind_alpha(w->t->kind) ||
			    (w->alpha_src && strcmp(w->alpha_src, src) != 0) ||
			    !(tx = to_type(w, outer[i], &vt))) {
				r->construct = mr_kind_alpha(w->t->kind)
				                   ? xasprintf("the captured value %s (a second "
				                               "scalar argument)", names[i])
				                   : xasprintf("the captured value %s (from a "
				                               "scalar argument: a kernel with "
				                               "an alpha)", names[i]);
				r->line = code->line;
				free(src);
				free(w->err);
				w->err = NULL;
				rc = -1;
				break;
			}
			if (!w->alpha_src)
				w->alpha_src = src;
			else
				free(src);
			var_push(w, names[i],
			         vt == TY_CPLX ? xasprintf("%s(alpha)", tx)
			                       : xasprintf("static_cast<%s>(alpha)", tx),
			         vt, 0);
			/* the name must outlive NAMES: the context keeps a copy */
			w->vars[w->nvars - 1].name = keep_name(w, names[i]);
			free(tx);
			continue;
		}
		/* the tree lives in AR: the locals it declares name into it */
		st = parse_code(outer[i], ar, &err, &eo);
		if (st && st->n == 1 && st->v[0]->k == S_DECL) {
			w->outer = 1;
			if (emit_stmt(w, st->v[0]) != 0)
				st = NULL;
			w->outer = 0;
		} else {
			st = NULL;
		}
		if (!st) {
			free(err);
			free(w->err);
			w->err = NULL;
			r->construct = xasprintf("the captured value %s", names[i]);
			r->line = code->line;
			rc = -1;
		}
	}
	for (i = 0; i < nouter; i++)
		free(names[i]);
	free(names);
	free(need);
	return rc;
}

int tr_code(const struct ck_code *code, const struct ck_code *helpers,
            size_t nh, char *const *outer, size_t nouter,
            const struct tr_target *t, const struct tr_env *env,
            struct tr_out *r)
{
	struct wctx w;
	struct arena ar;
	struct stmt *body;
	char *err = NULL;
	size_t err_off = 0, i, arity;
	int ar_ix = mr_kind_arity(t->kind) - 1;
	char *opn[3] = {NULL, NULL, NULL};
	static const char *const kind_words[3] = {"unary", "binary", "ternary"};

	memset(r, 0, sizeof *r);
	memset(&ar, 0, sizeof ar);
	arity = (size_t)ar_ix + 1;
	if (code->nparams != arity) {
		r->construct = xasprintf("%zu parameters for a %s kernel",
		                         code->nparams, kind_words[ar_ix]);
		r->line = code->line;
		return 0;
	}
	body = parse_code(code->body, &ar, &err, &err_off);
	if (!body) {
		r->construct = err;
		r->line = code_line(code, err_off);
		arena_free(&ar);
		return 0;
	}
	memset(&w, 0, sizeof w);
	w.t = t;
	w.env = env;
	w.mode = mode_of(t);
	w.captures = code->captures;
	w.helpers = helpers;
	w.nh = nh;
	w.code = code;
	w.ind = 2;
	buf_init(&w.out);

	/* the parameters: converted to the computing type, or used as they
	 * are (integers, bool) */
	{
		int conv = w.mode == M_FLOAT || w.mode == M_I2F || w.mode == M_CPLX;
		const char *ctype = w.mode == M_CPLX ? "float2" : "float";
		int clash = 0;
		for (i = 0; i < arity; i++) {
			const char *d = default_params[ar_ix][i];
			size_t k;
			for (k = 0; k < arity; k++)
				if (!strcmp(code->params[k].name, d))
					clash = 1;
			if (text_has_ident(code->body, d))
				clash = 1;
		}
		for (i = 0; i < arity; i++) {
			const char *pn = code->params[i].name;
			int vt = param_ok(&w, code->params[i].type);
			if (vt < 0 && conv && ck_type_is(code->params[i].type, "bool")) {
				/* a condition (where's cond_val): the kernel hands it
				 * over in the inputs' dtype, cast from bool (2.14.1's
				 * ternary _cast_ kernels); nonzero is true, as bool(x)
				 * and torch's .bool() (NaN true; complex: either part) */
				opn[i] = clash ? xasprintf("%s_in", pn)
				               : xstrdup(default_params[ar_ix][i]);
				if (*pn && text_has_ident(code->body, pn)) {
					if (w.mode == M_CPLX)
						buf_printf(&w.out, "    const bool %s = %s.x != 0 || %s.y != 0;\n",
						           pn, opn[i], opn[i]);
					else
						buf_printf(&w.out, "    const bool %s = static_cast<float>(%s) != 0.0f;\n",
						           pn, opn[i]);
					var_push(&w, pn, xstrdup(pn), TY_BOOL, 0);
				}
				continue;
			}
			if (vt < 0) {
				r->construct = xasprintf("a parameter of type %s",
				                         code->params[i].type);
				r->line = code->line;
				goto out;
			}
			if (!*pn) {
				opn[i] = xstrdup(default_params[ar_ix][i]);
				continue;
			}
			if (!conv && !text_assigns(code->body, pn)) {
				opn[i] = xstrdup(pn);
				var_push(&w, pn, xstrdup(pn), vt, 0);
				continue;
			}
			opn[i] = clash ? xasprintf("%s_in", pn)
			               : xstrdup(default_params[ar_ix][i]);
			if (ident_count(code->body, pn) > unread_reads(code->body, body, pn)) {
				const char *k = text_assigns(code->body, pn) ? "" : "const ";
				if (!conv)
					buf_printf(&w.out, "    %s%s %s = %s;\n", k,
					           w.mode == M_BOOL ? "bool" : "T", pn, opn[i]);
				else if (w.mode == M_CPLX)
					buf_printf(&w.out, "    %sfloat2 %s = float2(%s);\n", k, pn,
					           opn[i]);
				else
					buf_printf(&w.out, "    %s%s %s = static_cast<%s>(%s);\n", k,
					           ctype, pn, ctype, opn[i]);
			}
			var_push(&w, pn, xstrdup(pn), conv ? (w.mode == M_CPLX ? TY_CPLX : TY_REAL) : vt, 0);
			w.vars[w.nvars - 1].flt = conv && w.mode != M_CPLX;
		}
	}
	if (nouter && emit_outer(&w, code, outer, nouter, &ar, r) != 0)
		goto out;
	if (emit_block(&w, body) != 0) {
		r->construct = w.err ? w.err : xstrdup("?");
		w.err = NULL;
		r->line = code_line(w.err_code ? w.err_code : code, w.err_off);
		goto out;
	}
	r->ok = 1;
	r->text = w.out.data;
	w.out.data = NULL;
	r->params[0] = opn[0];
	r->params[1] = opn[1];
	r->params[2] = opn[2];
	opn[0] = opn[1] = opn[2] = NULL;
out:
	free(opn[0]);
	free(opn[1]);
	free(opn[2]);
	vars_pop(&w, 0);
	free(w.vars);
	while (w.nal)
		free(w.al[--w.nal].metal);
	free(w.al);
	free(w.err);
	free(w.alpha_src);
	lex_strv_free(w.kept, w.nkept);
	buf_free(&w.out);
	arena_free(&ar);
	return r->ok;
}

void tr_out_free(struct tr_out *r)
{
	free(r->text);
	free(r->params[0]);
	free(r->params[1]);
	free(r->params[2]);
	free(r->construct);
	memset(r, 0, sizeof *r);
}

char *tr_expr_text(const char *expr, int cls, const char *out,
                   const struct tr_env *env, char **why)
{
	struct ck_code c;
	struct ck_param ps[2];
	struct tr_target t;
	struct tr_out r;
	char *res = NULL;
	memset(&c, 0, sizeof c);
	ps[0].type = "scalar_t";
	ps[0].name = "a";
	ps[1].type = "scalar_t";
	ps[1].name = "b";
	c.params = ps;
	c.nparams = 2;
	c.captures = "";
	c.file = "expr";
	c.body = xasprintf("return %s;", expr);
	t.cls = cls;
	t.kind = MR_BINARY;
	switch (cls) {
	case RG_CLS_FLOAT: t.in = "float"; break;
	case RG_CLS_INTEGRAL: t.in = "int"; break;
	case RG_CLS_BOOL: t.in = "bool"; break;
	default: t.in = "float2"; break;
	}
	t.out = out ? out : t.in;
	*why = NULL;
	tr_code(&c, NULL, 0, NULL, 0, &t, env, &r);
	if (r.ok) {
		/* the expression of the last line: "    return E;" */
		const char *l = strstr(r.text, "return ");
		const char *last = l;
		while (l) {
			last = l;
			l = strstr(l + 1, "return ");
		}
		if (last) {
			const char *e = strchr(last, ';');
			res = xstrndup(last + 7, (size_t)(e - last - 7));
		}
	} else {
		*why = r.construct;
		r.construct = NULL;
	}
	tr_out_free(&r);
	free(c.body);
	return res;
}

