/* regplan.c — see regplan.h.  The planning code of mps-register, moved
 * here so that mps-register and mps-migrate share it. */
#include "plan/regplan.h"
#include "base/cli.h"
#include "base/diag.h"
#include "edit/edit.h"
#include "base/scan.h"
#include "base/walk.h"
#include "base/lex.h"
#include "read/clangfmt.h"

#include <ctype.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- plan bookkeeping ---- */

static struct rg_item *new_item(struct rg_plan *p, enum rg_what w, int file)
{
	struct rg_item *it;
	GROW(p->items, p->nitems, p->capitems);
	it = &p->items[p->nitems++];
	memset(it, 0, sizeof *it);
	it->what = w;
	it->file = file;
	return it;
}

static void msg(struct rg_plan *p, int error, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
static void msg(struct rg_plan *p, int error, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;
	GROW(p->msgs, p->nmsgs, p->capmsgs);
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	s = xmalloc((size_t)(n < 0 ? 0 : n) + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)(n < 0 ? 0 : n) + 1, fmt, ap);
	va_end(ap);
	p->msgs[p->nmsgs].error = error;
	p->msgs[p->nmsgs].text = s;
	p->nmsgs++;
	if (error)
		p->nerrors++;
}

/* "PATH:LINE:COL: " for offset off of text t */
static void msg_at(struct rg_plan *p, int error, const char *display,
                   const char *t, size_t off, const char *text)
{
	unsigned long line, col;
	line_col(t, off, &line, &col);
	msg(p, error, "%s:%lu:%lu: %s", display, line, col, text);
}

/* ---- small text helpers ---- */

/* 1 when the line before offset off (a line start) is blank or absent */
static int prev_line_blank(const char *t, size_t len, size_t off)
{
	size_t s;
	if (off == 0)
		return 1;
	if (off == len && t[len - 1] != '\n')
		return text_blank(t, text_line_start(t, len), len);
	s = text_line_start(t, off - 1);
	return text_blank(t, s, off);
}

/* 1 when the line starting at off is blank or absent */
static int next_line_blank(const char *t, size_t len, size_t off)
{
	return off >= len || text_blank(t, off, text_next_line(t, len, off));
}

static char *indent_of(const char *t, size_t off)
{
	size_t s = text_line_start(t, off), e = s;
	while (t[e] == ' ' || t[e] == '\t')
		e++;
	return xstrndup(t + s, e - s);
}

/* offset after the '}' matching the '{' at t[open], or len */
static size_t match_brace(const char *t, size_t len, size_t open)
{
	size_t i = open;
	int depth = 0;
	for (; i < len; i++) {
		char c = t[i];
		if (c == '"' || c == '\'') {
			char q = c;
			for (i++; i < len && t[i] != q && t[i] != '\n'; i++)
				if (t[i] == '\\')
					i++;
			continue;
		}
		if (c == '{')
			depth++;
		else if (c == '}' && --depth == 0)
			return i + 1;
	}
	return len;
}

/* the offset of the ')' matching the '(' at t[open] (literals skipped),
 * or len */
static size_t match_paren(const char *t, size_t len, size_t open)
{
	size_t i;
	long depth = 0;
	for (i = open; i < len; i++) {
		char c = t[i];
		if (c == '"' || c == '\'') {
			i = lex_skip_literal(t, len, i) - 1;
			continue;
		}
		if (c == '(')
			depth++;
		else if (c == ')' && --depth == 0)
			return i;
	}
	return len;
}

static int find_last(const char *pattern, const char *t, size_t len,
                     size_t limit, size_t *ov, size_t nov)
{
	struct mk_re re;
	size_t start = 0, tmp[20];
	int found = 0;
	re_compile(&re, pattern, PCRE2_MULTILINE);
	while (start <= len && re_match(&re, t, len, start, tmp, nov)) {
		if (tmp[0] > limit)
			break;
		memcpy(ov, tmp, 2 * nov * sizeof *ov);
		found = 1;
		start = tmp[1] > tmp[0] ? tmp[1] : tmp[0] + 1;
	}
	re_free(&re);
	return found;
}

/* ---- dtype classes ---- */

static int is_float(const char *d)
{
	return !strcmp(d, "float") || !strcmp(d, "half") || !strcmp(d, "bfloat");
}
static int is_complex(const char *d)
{
	return !strcmp(d, "float2") || !strcmp(d, "half2");
}

static char *pair_args(int kind, const struct mr_pair *p)
{
	if (mr_kind_alpha(kind))
		return xasprintf("%s, %s, %s", p->in, p->alpha, p->out);
	return xasprintf("%s, %s", p->in, p->out);
}

/* ---- the functor skeleton ---- */

/* the lines TEXT ('\n'-ended) into b with EOL line ends */
static void put_lines(struct buf *b, const char *text, const char *eol)
{
	const char *p = text, *q;
	while (*p) {
		q = strchr(p, '\n');
		if (!q) {
			buf_puts(b, p);
			buf_puts(b, eol);
			return;
		}
		buf_add(b, p, (size_t)(q - p));
		buf_puts(b, eol);
		p = q + 1;
	}
}

static const char *const cls_trait[RG_NCLS] = {
    "is_scalar_floating_point_v", "is_scalar_integral_v", NULL,
    "is_complex_v"};

/* one operator() of class CLS; COND: NULL the class's own enable_if
 * condition, "" none (a template for every T), else the trait expression
 * written (one overload for classes whose bodies coincide) */
static void functor_overload(struct buf *b, const char *ns_metal,
                             const char *ns_c10, const char *eol, int kind,
                             const char *name, int cls,
                             const struct mr_pair *p, const struct rg_math *math,
                             const char *cond_expr)
{
	static const char *const cls_words[RG_NCLS] = {
	    "floating-point", "integral", "bool", "complex"};
	int same = p->in == p->out;
	const char *ret = same ? "T" : p->out;
	const char *tin = cls == RG_CLS_BOOL ? "bool" : "T";
	const char *v0 = mr_kind_arity(kind) == 1 ? "x" : "a";
	const char *n0 = v0, *n1 = "b", *n2 = "c";
	char *args;
	char *retexpr;

	if (cls == RG_CLS_BOOL && same)
		ret = "bool";
	if (math && math->params[cls][0])
		n0 = math->params[cls][0];
	if (math && math->params[cls][1])
		n1 = math->params[cls][1];
	if (math && math->params[cls][2])
		n2 = math->params[cls][2];
	switch (kind) {
	case MR_UNARY: args = xasprintf("const %s %s", tin, n0); break;
	case MR_UNARY_ALPHA:
		args = xasprintf("const %s %s, const A alpha", tin, n0);
		break;
	case MR_BINARY:
		args = xasprintf("const %s %s, const %s %s", tin, n0, tin, n1);
		break;
	case MR_TERNARY:
		args = xasprintf("const %s %s, const %s %s, const %s %s", tin, n0,
		                 tin, n1, tin, n2);
		break;
	case MR_TERNARY_ALPHA:
		args = xasprintf("const %s %s, const %s %s, const %s %s, const A alpha",
		                 tin, n0, tin, n1, tin, n2);
		break;
	case MR_BINARY_PARAMS: {
		char *st = mr_params_struct(name);
		args = xasprintf("const %s %s, const %s %s, const %s<float> params",
		                 tin, n0, tin, n1, st);
		free(st);
		break;
	}
	default:
		args = xasprintf("const %s %s, const %s %s, const A alpha", tin, n0,
		                 tin, n1);
		break;
	}
	if (same)
		retexpr = xstrdup(n0);
	else if (is_complex(p->in) && !is_complex(p->out))
		retexpr = xasprintf("%s(%s.x)", p->out, n0);
	else
		retexpr = xasprintf("static_cast<%s>(%s)", p->out, n0);
	if (cls == RG_CLS_BOOL) {
		/* a plain overload: exact for bool, preferred to the templates */
		if (mr_kind_alpha(kind))
			buf_printf(b, "  template <typename A>%s", eol);
	} else if (cond_expr && !*cond_expr) {
		buf_printf(b, "  template <typename T%s>%s",
		           mr_kind_alpha(kind) ? ", typename A" : "", eol);
	} else {
		char *cond = cond_expr
		    ? xasprintf("%senable_if_t<%s, bool> = true", ns_metal, cond_expr)
		    : xasprintf("%senable_if_t<%s%s<T>, bool> = true", ns_metal,
		                ns_c10, cls_trait[cls]);
		char *one = xasprintf("  template <typename T, %s%s>",
		                      mr_kind_alpha(kind) ? "typename A, " : "", cond);
		if (strlen(one) <= 80)
			buf_printf(b, "%s%s", one, eol);
		else if (mr_kind_alpha(kind))
			buf_printf(b, "  template <%s      typename T,%s      typename A,%s"
			              "      %s>%s",
			           eol, eol, eol, cond, eol);
		else
			buf_printf(b, "  template <%s      typename T,%s      %s>%s", eol,
			           eol, cond, eol);
		free(one);
		free(cond);
	}
	buf_printf(b, "  inline %s operator()(%s) {%s", ret, args, eol);
	if (math && math->body[cls]) {
		put_lines(b, math->body[cls], eol);
	} else {
		if (math && math->note[cls])
			put_lines(b, math->note[cls], eol);
		buf_printf(b, "    // TODO(mps-register): the math of %s for %s inputs "
		              "goes here%s",
		           name, cls_words[cls], eol);
		buf_printf(b, "    return %s;%s", retexpr, eol);
	}
	buf_printf(b, "  }%s", eol);
	free(args);
	free(retexpr);
}

void rg_overloads(const struct mr_pair *pairs, size_t n, int split_bool,
                  const struct mr_pair *out[RG_NCLS])
{
	size_t i;
	int c;
	for (c = 0; c < RG_NCLS; c++)
		out[c] = NULL;
	for (i = 0; i < n; i++) {
		if (is_float(pairs[i].in))
			c = RG_CLS_FLOAT;
		else if (is_complex(pairs[i].in))
			c = RG_CLS_COMPLEX;
		else if (split_bool && !strcmp(pairs[i].in, "bool"))
			c = RG_CLS_BOOL;
		else
			c = RG_CLS_INTEGRAL;
		if (!out[c])
			out[c] = &pairs[i];
	}
}

/* classes C and D (pairs PC, PD) have one translated body, the same
 * parameter names and the same return type */
static int same_overload(const struct rg_math *m, int c,
                         const struct mr_pair *pc, int d,
                         const struct mr_pair *pd)
{
	int k;
	if (!m || !m->body[c] || !m->body[d] || strcmp(m->body[c], m->body[d]))
		return 0;
	for (k = 0; k < 3; k++)
		if ((m->params[c][k] == NULL) != (m->params[d][k] == NULL) ||
		    (m->params[c][k] && strcmp(m->params[c][k], m->params[d][k])))
			return 0;
	/* the return type: T when the class keeps its dtype, else the out
	 * dtype written */
	if ((pc->in == pc->out) != (pd->in == pd->out))
		return 0;
	return pc->in == pc->out || strcmp(pc->out, pd->out) == 0;
}

static char *functor_text(const char *ns_metal, const char *ns_c10,
                          const char *eol, int kind, const char *name,
                          const struct mr_pair *pairs, size_t n,
                          const struct rg_math *math)
{
	/* the order of the overloads in the text */
	static const int order[RG_NCLS] = {RG_CLS_FLOAT, RG_CLS_INTEGRAL,
	                                   RG_CLS_COMPLEX, RG_CLS_BOOL};
	struct buf b;
	const struct mr_pair *ov[RG_NCLS];
	int i, j, done[RG_NCLS] = {0}, ntempl = 0;
	rg_overloads(pairs, n, math ? math->split_bool : 0, ov);
	for (i = 0; i < RG_NCLS; i++)
		ntempl += ov[i] && i != RG_CLS_BOOL;
	buf_init(&b);
	buf_printf(&b, "struct %s_functor {%s", name, eol);
	for (i = 0; i < RG_NCLS; i++) {
		int c = order[i], group[RG_NCLS], ng = 0, excl = -1;
		char *cond = NULL;
		if (!ov[c] || done[c])
			continue;
		/* the template classes whose translated bodies coincide (same
		 * text, parameter names and return type) are one overload, as
		 * PyTorch's kernel files write one template (issue #25) */
		group[ng++] = c;
		for (j = i + 1; c != RG_CLS_BOOL && j < RG_NCLS; j++) {
			int d = order[j];
			if (ov[d] && d != RG_CLS_BOOL && !done[d] &&
			    same_overload(math, c, ov[c], d, ov[d]))
				group[ng++] = d;
		}
		if (ng > 1) {
			if (ng == ntempl)
				cond = xstrdup("");
			else {
				/* ntempl 3, ng 2: all but one class */
				for (j = 0; j < RG_NCLS; j++)
					if (ov[j] && j != RG_CLS_BOOL && j != group[0] &&
					    j != group[1])
						excl = j;
				cond = xasprintf("!%s%s<T>", ns_c10, cls_trait[excl]);
			}
		}
		for (j = 0; j < ng; j++)
			done[group[j]] = 1;
		functor_overload(&b, ns_metal, ns_c10, eol, kind, name, c, ov[c], math,
		                 cond);
		free(cond);
	}
	buf_printf(&b, "};%s", eol);
	return b.data;
}

char *rg_functor_text(int kind, const char *name, const struct mr_pair *pairs,
                      size_t n, const struct rg_math *math, const char *eol,
                      int using_metal, int using_c10)
{
	return functor_text(using_metal ? "" : "::metal::",
	                    using_c10 ? "" : "::c10::metal::", eol, kind, name,
	                    pairs, n, math);
}

/* ---- does the tree have the c10/metal kernels? (see regplan.h) ---- */

/* 1 when the bytes needle occur in t[0..len) (a cheap filter before
 * masking and matching) */
static int test_define(const char *m, size_t len, const void *macro)
{
	return mr_text_defines_macro(m, len, macro);
}
static int test_exec(const char *m, size_t len, const void *binary)
{
	return mr_text_has_exec(m, len, *(const int *)binary);
}
static int test_stub(const char *m, size_t len, const void *stub)
{
	return mr_text_declares_stub(m, len, stub);
}

/* the first c10/metal/NAME.h under root that #defines macro, as a
 * malloc'd path relative to the root; NULL when none does */
static char *core_header(const char *root, const char *macro)
{
	static const char *const sufs[] = {".h", NULL};
	return first_source_file(root, "c10/metal", 0, sufs, macro, test_define,
	                         macro);
}

/* 1 when a source file under REL (walk.h's rules) whose name ends in one
 * of SUFS passes test */
static int tree_test(const char *root, const char *rel, int depth,
                     const char *const *sufs, const char *needle,
                     text_test_fn test, const void *arg)
{
	char *f = first_source_file(root, rel, depth, sufs, needle, test, arg);
	int found = f != NULL;
	free(f);
	return found;
}

/* the kernel file (masked) may receive registrations of kind: its core
 * macro is used or #defined there, or #defined in c10/metal/NAME.h (then
 * core_hdr names the header).  Otherwise a refusal. */
static int check_core(struct rg_plan *p, const char *root, const char *masked,
                      size_t len, const char *display, int kind,
                      const char *name)
{
	const char *macro = mr_kind_macro(kind);
	if (mr_text_uses_macro(masked, len, macro))
		return 0;
	p->core_hdr = core_header(root, macro);
	if (p->core_hdr)
		return 0;
	msg(p, 1,
	    "%s: error: %s is neither used nor #defined in this file, nor "
	    "#defined in a c10/metal/*.h header under the root: the tree predates "
	    "the c10/metal kernels (PyTorch 2.6 and older) and the code "
	    "mps-register writes would not compile there; register %s by hand "
	    "following the file's own style [no-c10-metal]",
	    display, macro, name);
	return -1;
}

/* the host file (masked text m) may receive a stub calling
 * lib.exec_*_kernel: it or a file under MPS_DIR_REL mentions it */
/* a call of any exec_*_kernel_with_params (2.14.1's MetalShaderLibrary) */
static int test_exec_params(const char *m, size_t len, const void *unused)
{
	(void)unused;
	return re_has_match("\\bexec_(?:unary|binary)_kernel_with_params\\s*\\(",
	                    PCRE2_MULTILINE, m, len);
}

static int check_exec(struct rg_plan *p, const char *root, const char *m,
                      size_t len, const char *display, int kind,
                      const char *name)
{
	int binary = mr_kind_arity(kind) - 1; /* mr_text_has_exec's which */
	const char *exec = mr_kind_exec(kind);
	static const char *const src_sufs[] = {".h", ".hpp", ".mm", ".m", ".cpp",
	                                       ".cc", NULL};
	if (mr_kind_params(kind)
	        ? test_exec_params(m, len, NULL) ||
	              tree_test(root, MPS_DIR_REL, WALK_MAX_DEPTH, src_sufs,
	                        "_kernel_with_params", test_exec_params, NULL)
	        : mr_text_has_exec(m, len, binary))
		return 0;
	if (mr_kind_params(kind))
		goto refuse;
	if (tree_test(root, MPS_DIR_REL, WALK_MAX_DEPTH, src_sufs,
	              mr_kind_exec(mr_kind_of(binary + 1, 0)), test_exec, &binary))
		return 0;
refuse:
	msg(p, 1,
	    "%s: error: neither this file nor any file under %s/ mentions lib.%s, "
	    "which the host stub would call: the tree predates the c10/metal "
	    "kernels (PyTorch 2.6 and older); write the host stub of %s by hand "
	    "following the file's own style [no-exec-kernel]",
	    display, MPS_DIR_REL, exec, name);
	return -1;
}

/* the stub the host stub registers is declared in
 * aten/src/ATen/native/NAME.h or aten/src/ATen/native/DIR/NAME.h */
static int check_stub(struct rg_plan *p, const char *root, const char *display,
                      const char *stub)
{
	static const char *const sufs[] = {".h", NULL};
	int found = tree_test(root, "aten/src/ATen/native", 1, sufs, stub, test_stub,
	                      stub);
	if (!found)
		msg(p, 1,
		    "%s: error: %s is not declared (no DECLARE_DISPATCH(..., %s) in "
		    "aten/src/ATen/native/*.h or */*.h): the host stub registers the "
		    "stub the shared kernel reaches; when it is not NAME_stub (kernel "
		    "add_alpha, stub add_stub), name it with --stub [undeclared-stub]",
		    display, stub, stub);
	return found ? 0 : -1;
}

/* blank (spaces, newlines kept) every preprocessor directive of masked
 * text m, continuation lines included, so that the body of a #define never
 * looks like code at the start of a line */
static void blank_directives(char *m, size_t len)
{
	size_t i = 0;
	while (i < len) {
		size_t j = i, e;
		while (j < len && (m[j] == ' ' || m[j] == '\t'))
			j++;
		e = text_next_line(m, len, i);
		if (j < len && m[j] == '#') {
			for (;;) {
				size_t b = e;
				if (b > 0 && m[b - 1] == '\n')
					b--;
				if (b > 0 && m[b - 1] == '\r')
					b--;
				if (e >= len || b == 0 || m[b - 1] != '\\')
					break;
				e = text_next_line(m, len, e);
			}
			for (j = i; j < e; j++)
				if (m[j] != '\n' && m[j] != '\r')
					m[j] = ' ';
		}
		i = e;
	}
}

/* ---- planning the .metal file ---- */

#define OPMATH_MACRO mr_kind_opmath_macro(kind)

struct kfile {
	const struct rg_file *f;
	int opmath_ok;       /* REGISTER_OPMATH_BINARY_OP is used or #defined
	                        in the file, or #defined in c10/metal/ */
	char *masked;        /* comments and #if 0 blanked */
	char *code;          /* masked, directives blanked too */
	struct mr_file mf;
};

static int present_or_conflict(struct rg_plan *p, struct kfile *k, int kind,
                               const char *name, const struct mr_pair *want,
                               size_t nwant, struct mr_pair *missing,
                               size_t *nmissing)
{
	size_t i, j;
	int conflicts = 0;
	struct rg_item *pres = NULL;

	*nmissing = 0;
	for (i = 0; i < nwant; i++) {
		const struct mr_pair *w = &want[i];
		int found = 0;
		for (j = 0; j < k->mf.nregs; j++) {
			const struct mr_reg *r = &k->mf.regs[j];
			if (r->core->kind != kind || strcmp(r->name, name) != 0 ||
			    strcmp(r->in, w->in) != 0)
				continue;
			if (strcmp(r->out, w->out) != 0) {
				const struct mr_call *c = &k->mf.calls[r->call];
				char *t = xasprintf("error: %s is already registered for input "
				                    "%s with output %s (by %s); asked for "
				                    "output %s [conflicting-registration]",
				                    name, w->in, r->out, c->macro, w->out);
				msg_at(p, 1, k->f->display, k->f->text, c->start, t);
				free(t);
				conflicts++;
				found = 1;
				break;
			}
			if ((!r->alpha && !w->alpha) ||
			    (r->alpha && w->alpha && strcmp(r->alpha, w->alpha) == 0)) {
				if (!pres) {
					unsigned long col;
					pres = new_item(p, RG_REG, RG_KERNEL);
					pres->present = 1;
					pres->macro = mr_kind_macro(kind);
					line_col(k->f->text, k->mf.calls[r->call].start,
					         &pres->line, &col);
				}
				pres->pairs[pres->npairs++] = *w;
				found = 1;
				break;
			}
		}
		if (!found)
			missing[(*nmissing)++] = *w;
	}
	return conflicts;
}

/* the offset where NAME's first existing registration call starts its
 * line, or len */
static size_t first_call_of(struct kfile *k, const char *name)
{
	size_t j;
	for (j = 0; j < k->mf.nregs; j++)
		if (strcmp(k->mf.regs[j].name, name) == 0)
			return text_line_start(k->f->text, k->mf.calls[k->mf.regs[j].call].start);
	return k->f->len;
}

/* 1 when top-level call c registers only NAME (at least once) with kind */
static int call_registers_only(const struct kfile *k, size_t c, int kind,
                               const char *name, size_t nlen)
{
	size_t j, n = 0;
	for (j = 0; j < k->mf.nregs; j++) {
		const struct mr_reg *r = &k->mf.regs[j];
		if (r->call != c)
			continue;
		if (r->core->kind != kind || strlen(r->name) != nlen ||
		    strncmp(r->name, name, nlen) != 0)
			return 0;
		n++;
	}
	return n > 0;
}

/* The end (the start of the line after it) of the last complete group of
 * kind: `struct X_functor {...};` then calls registering only X with kind
 * (see regplan.h).  0 when the file has none. */
static size_t last_group_end(const struct kfile *k, int kind)
{
	const char *t = k->f->text, *c = k->code;
	size_t len = k->f->len, start = 0, ov[4], best = 0;
	struct mk_re re;
	re_compile(&re, "^[ \\t]*struct[ \\t]+(\\w+)_functor\\b[^;{]*\\{",
	           PCRE2_MULTILINE);
	while (start < len && re_match(&re, c, len, start, ov, 2)) {
		size_t open = ov[1] - 1, e = match_brace(c, len, open), j, at, end = 0;
		const char *x = c + ov[2];
		size_t xlen = ov[3] - ov[2];
		start = ov[1];
		if (e >= len && (e == 0 || c[e - 1] != '}'))
			continue;
		at = e;
		while (at < len && (c[at] == ' ' || c[at] == '\t'))
			at++;
		if (at < len && c[at] == ';')
			at++;
		for (j = 0; j < k->mf.ncalls; j++) {
			const struct mr_call *call = &k->mf.calls[j];
			if (call->start < at)
				continue;
			if (!text_blank(c, at, call->start) ||
			    !call_registers_only(k, j, kind, x, xlen))
				break;
			end = call->end;
			at = call->end;
		}
		if (end > 0) {
			size_t g = text_next_line(t, len, end > 0 ? end - 1 : 0);
			if (g > best)
				best = g;
		}
	}
	re_free(&re);
	return best;
}

struct unit {
	size_t pos;     /* index of its first pair in the wanted list */
	char *call;     /* "REGISTER_X(...)" without ';' */
	const char *macro;
	struct mr_pair pairs[MR_MAX_PAIRS];
	size_t npairs;
};

static int unit_cmp(const void *a, const void *b)
{
	const struct unit *x = a, *y = b;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static size_t pair_index(const struct mr_pair *list, size_t n,
                         const struct mr_pair *p)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (mr_pair_eq(&list[i], p))
			return i;
	return (size_t)-1;
}

/* ---- a kernel file that keeps its functors together ---- */

/* 1 when top-level call c registers only NAME (at least once), any kind */
static int call_names_only(const struct kfile *k, size_t c, const char *name)
{
	size_t j, n = 0;
	for (j = 0; j < k->mf.nregs; j++) {
		if (k->mf.regs[j].call != c)
			continue;
		if (strcmp(k->mf.regs[j].name, name) != 0)
			return 0;
		n++;
	}
	return n > 0;
}

/* the dtype class of input token d: 'f' float, half, bfloat; 'c' float2,
 * half2; 'i' the integral ones and bool */
static char dclass(const char *d)
{
	return is_float(d) ? 'f' : is_complex(d) ? 'c' : 'i';
}

/* the class of the inputs call c registers: 'f', 'c', 'i', or 'm' mixed,
 * 0 none */
static char call_class(const struct kfile *k, size_t c)
{
	size_t j;
	char cl = 0;
	for (j = 0; j < k->mf.nregs; j++) {
		char x;
		if (k->mf.regs[j].call != c)
			continue;
		x = dclass(k->mf.regs[j].in);
		cl = !cl ? x : cl == x ? cl : 'm';
	}
	return cl;
}

/* The layout of the kernel file: 1 when it keeps its functors together
 * and its registrations in blocks of their own (BinaryKernel.metal of
 * PyTorch main: each functor followed by the next functor), 0 when each
 * functor is followed by its own registrations (UnaryKernel.metal).  The
 * functors are `struct X_functor {...};` and DEFINE_*FUNCTOR(X...) lines;
 * what follows one (blanks, comments and preprocessor lines skipped) is
 * another functor, X's registrations, or anything else; blocked when
 * functors followed by a functor are at least two and more than those
 * followed by their own registrations.  *end: the end (the start of the
 * line after it) of the last functor before the file's first top-level
 * registration call, 0 when none. */
static int blocked_layout(const struct kfile *k, size_t *end)
{
	const char *c = k->code;
	size_t len = k->f->len, start = 0, ov[6], first_call = len;
	struct mk_re re;
	struct fn {
		size_t s, e;
		char *name;
	} *v = NULL;
	size_t n = 0, cap = 0, i, stacked = 0, paired = 0;
	if (k->mf.ncalls)
		first_call = k->mf.calls[0].start;
	re_compile(&re, "^[ \\t]*(?:struct[ \\t]+(\\w+)_functor\\b[^;{]*\\{|"
	                "DEFINE_\\w*FUNCTOR\\s*\\(\\s*(\\w+))", PCRE2_MULTILINE);
	while (start < len && re_match(&re, c, len, start, ov, 3)) {
		size_t e;
		GROW(v, n, cap);
		if (ov[2] != (size_t)-1 && ov[3] > ov[2]) {
			e = match_brace(c, len, ov[1] - 1);
			while (e < len && (c[e] == ' ' || c[e] == '\t'))
				e++;
			if (e < len && c[e] == ';')
				e++;
			v[n].name = xstrndup(c + ov[2], ov[3] - ov[2]);
		} else {
			const char *semi = memchr(c + ov[1], ';', len - ov[1]);
			e = semi ? (size_t)(semi - c) + 1 : text_next_line(c, len, ov[1]);
			v[n].name = xstrndup(c + ov[4], ov[5] - ov[4]);
		}
		v[n].s = ov[0];
		v[n].e = e;
		start = e > ov[1] ? e : ov[1];
		n++;
	}
	re_free(&re);
	*end = 0;
	for (i = 0; i < n; i++) {
		size_t q = v[i].e, j;
		while (q < len && (c[q] == ' ' || c[q] == '\t' || c[q] == '\n' ||
		                   c[q] == '\r'))
			q++;
		if (i + 1 < n && q == v[i + 1].s)
			stacked++;
		else
			for (j = 0; j < k->mf.ncalls; j++)
				if (k->mf.calls[j].start == q) {
					if (call_names_only(k, j, v[i].name))
						paired++;
					break;
				}
		if (v[i].e <= first_call)
			*end = text_next_line(k->f->text, len, v[i].e > 0 ? v[i].e - 1 : 0);
	}
	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	return stacked >= 2 && stacked > paired;
}

/* The blocks of registration calls: runs of top-level calls with no
 * blank line (comments are blank in k->code) and no other code between
 * them.  block[i] is the block of call i; returns the count. */
static size_t call_blocks(const struct kfile *k, size_t *block)
{
	const char *c = k->code;
	size_t i, nb = 0;
	for (i = 0; i < k->mf.ncalls; i++) {
		int split = i == 0;
		if (i > 0) {
			size_t a = k->mf.calls[i - 1].end, e = k->mf.calls[i].start, q;
			int nl = 0;
			for (q = a; q < e && !split; q++) {
				if (c[q] == '\n') {
					if (++nl >= 2)
						split = 1;
				} else if (c[q] != ' ' && c[q] != '\t' && c[q] != '\r') {
					split = 1;
				}
			}
		}
		if (split)
			nb++;
		block[i] = nb - 1;
	}
	return nb;
}

/* Where a unit goes in a blocked file: after the last call, in the block
 * holding most calls written with the same macro (and, for a core macro,
 * of the same input class; the later block on a tie), that has that
 * macro and class, extended over the calls that follow it registering
 * the same NAME (another operator's calls stay together).  Returns the
 * call index, or -1 when no block has such a call. */
static long unit_anchor(const struct kfile *k, const size_t *block, size_t nb,
                        const struct unit *u)
{
	size_t *count = xcalloc(nb + 1, sizeof *count), i, best_b = 0, best_n = 0;
	char ucl = dclass(u->pairs[0].in);
	int core = mr_core_find(u->macro, strlen(u->macro)) != NULL;
	long at = -1;
	for (i = 0; i < k->mf.ncalls; i++) {
		const struct mr_call *c = &k->mf.calls[i];
		if (strcmp(c->macro, u->macro) != 0 ||
		    (core && call_class(k, i) != ucl))
			continue;
		if (++count[block[i]] >= best_n) {
			best_n = count[block[i]];
			best_b = block[i];
		}
	}
	for (i = 0; best_n && i < k->mf.ncalls; i++) {
		const struct mr_call *c = &k->mf.calls[i];
		if (block[i] == best_b && strcmp(c->macro, u->macro) == 0 &&
		    (!core || call_class(k, i) == ucl))
			at = (long)i;
	}
	free(count);
	if (at >= 0) {
		/* the rest of that operator's run */
		size_t j;
		const char *nm = NULL;
		for (j = 0; j < k->mf.nregs && !nm; j++)
			if (k->mf.regs[j].call == (size_t)at)
				nm = k->mf.regs[j].name;
		while (nm && (size_t)at + 1 < k->mf.ncalls &&
		       block[at + 1] == block[at] && call_names_only(k, (size_t)at + 1, nm))
			at++;
	}
	return at;
}

/* the call a unit follows by class alone: the last call of the file, of
 * the same kind, whose inputs are all of the unit's class */
static long class_anchor(const struct kfile *k, int kind, const struct unit *u)
{
	size_t i, j;
	long at = -1;
	char ucl = dclass(u->pairs[0].in);
	for (i = 0; i < k->mf.ncalls; i++) {
		int same_kind = 0;
		for (j = 0; j < k->mf.nregs; j++)
			if (k->mf.regs[j].call == i && k->mf.regs[j].core->kind == kind)
				same_kind = 1;
		if (same_kind && call_class(k, i) == ucl)
			at = (long)i;
	}
	return at;
}

/* Plan the units (and the functor, FUNCTOR set) of a blocked kernel file
 * (blocked_layout): the functor after the last functor of the file's
 * functor block (FEND), each unit in its block (unit_anchor), the units
 * of one block together.  Returns 1 when planned, 0 when some unit has no
 * block (the caller plans as for a file of groups). */
static int plan_blocked(struct rg_plan *p, const struct kfile *k, int kind,
                        const char *name, struct unit *units, size_t nunits,
                        char *functor, const struct mr_pair *want,
                        size_t nwant, size_t fend)
{
	const char *t = k->f->text, *eol = edit_eol(k->f->text, k->f->len);
	size_t len = k->f->len, i, j;
	size_t *block = xcalloc(k->mf.ncalls + 1, sizeof *block);
	long anchor[MR_MAX_PAIRS];
	int done[MR_MAX_PAIRS];
	size_t nb = call_blocks(k, block);
	struct buf b;

	/* NAME registered already: the new calls join its last one */
	long own = -1;
	for (i = 0; i < k->mf.nregs; i++)
		if (strcmp(k->mf.regs[i].name, name) == 0)
			own = (long)k->mf.regs[i].call;
	for (i = 0; i < nunits; i++) {
		anchor[i] = own >= 0 ? own : unit_anchor(k, block, nb, &units[i]);
		if (anchor[i] < 0)
			anchor[i] = class_anchor(k, kind, &units[i]);
		if (anchor[i] < 0) {
			free(block);
			return 0;
		}
		done[i] = 0;
	}
	if (functor && fend == 0) {
		free(block);
		return 0;
	}
	if (functor) {
		struct rg_item *fi = new_item(p, RG_FUNCTOR, RG_KERNEL);
		fi->off = fend;
		buf_init(&b);
		if (!prev_line_blank(t, len, fend))
			buf_puts(&b, eol);
		buf_puts(&b, functor);
		if (!next_line_blank(t, len, fend))
			buf_puts(&b, eol);
		fi->text = b.data;
		fi->label = xasprintf("struct %s_functor", name);
		memcpy(fi->pairs, want, nwant * sizeof *want);
		fi->npairs = nwant;
	}
	for (i = 0; i < nunits; i++) {
		const struct mr_call *c;
		struct rg_item *reg;
		char *indent;
		if (done[i])
			continue;
		c = &k->mf.calls[anchor[i]];
		reg = new_item(p, RG_REG, RG_KERNEL);
		reg->off = text_next_line(t, len, c->end > 0 ? c->end - 1 : 0);
		reg->macro = mr_kind_macro(kind);
		indent = indent_of(t, c->start);
		buf_init(&b);
		for (j = i; j < nunits; j++) {
			size_t q;
			if (done[j] || block[anchor[j]] != block[anchor[i]])
				continue;
			done[j] = 1;
			buf_printf(&b, "%s%s%s%s", indent, units[j].call, c->semi ? ";" : "",
			           eol);
			reg->calls[reg->ncalls++] =
			    xasprintf("%s%s", units[j].call, c->semi ? ";" : "");
			for (q = 0; q < units[j].npairs; q++)
				reg->pairs[reg->npairs++] = units[j].pairs[q];
		}
		reg->text = b.data;
		reg->label = xstrdup(reg->calls[0]);
		free(indent);
	}
	for (i = 0; i < nunits; i++)
		free(units[i].call);
	free(block);
	return 1;
}

/* binary-params: the #define of NAME's helper HELPER, '\n'-ended lines,
 * the continuation backslashes aligned as clang-format aligns them */
static char *params_helper(const char *name, const char *helper,
                           const char *eol)
{
	char *st = mr_params_struct(name), *l[3], *r;
	size_t w = 0, i;
	(void)eol;
	l[0] = xasprintf("#define %s(T)", helper);
	l[1] = xasprintf("  typedef %s<float> %s_##T;", st, st);
	l[2] = xasprintf("  REGISTER_BINARY_ALPHA_OP(%s, T, %s_##T, T)", name, st);
	for (i = 0; i < 2; i++)
		if (strlen(l[i]) > w)
			w = strlen(l[i]);
	r = xasprintf("%-*s \\\n%-*s \\\n%s\n", (int)w, l[0], (int)w, l[1], l[2]);
	for (i = 0; i < 3; i++)
		free(l[i]);
	free(st);
	return r;
}

char *rg_params_header_rel(const char *kernel_rel)
{
	const char *dot = strrchr(kernel_rel, '.');
	size_t n = dot ? (size_t)(dot - kernel_rel) : strlen(kernel_rel);
	return xasprintf("%.*s.h", (int)n, kernel_rel);
}

char *rg_params_include(const char *kernel_rel)
{
	char *h = rg_params_header_rel(kernel_rel), *r;
	const char *s = strncmp(h, "aten/src/", 9) == 0 ? h + 9 : h;
	r = xstrdup(s);
	free(h);
	return r;
}

char *rg_params_header(const char *old, size_t len, const char *name,
                       char *const *fields, size_t n, size_t *outlen)
{
	char *st = mr_params_struct(name), *pat;
	const char *eol = old ? edit_eol(old, len) : "\n";
	struct buf b;
	size_t i;
	if (old) {
		char *m = mask_code(old, len, LANG_C);
		int has;
		pat = xasprintf("\\bstruct\\s+%s\\b", st);
		has = re_has_match(pat, 0, m, len);
		free(pat);
		free(m);
		if (has) {
			free(st);
			return NULL;
		}
	}
	buf_init(&b);
	if (old) {
		buf_add(&b, old, len);
		if (len > 0 && old[len - 1] != '\n')
			buf_puts(&b, eol);
	} else {
		buf_printf(&b, "#pragma once%s", eol);
	}
	buf_printf(&b, "%s// %s's scalars, at the precision its kernels compute "
	               "in%s",
	           eol, name, eol);
	buf_printf(&b, "template <typename T>%sstruct %s {%s", eol, st, eol);
	for (i = 0; i < n; i++)
		buf_printf(&b, "  T %s;%s", fields[i], eol);
	buf_printf(&b, "};%s", eol);
	free(st);
	*outlen = b.len;
	return b.data;
}

/* binary-params: `#include <INCLUDE>` into file FILE (after its last
 * #include line, else at its top), unless it is there */
static void plan_include(struct rg_plan *p, int file, const struct rg_file *f)
{
	char *m = mask_code(f->text, f->len, LANG_C), *pat;
	const char *eol = edit_eol(f->text, f->len);
	size_t o[4];
	struct rg_item *it;
	pat = xasprintf("^[ \\t]*#[ \\t]*include[ \\t]*[<\"]%s[>\"]",
	                p->include);
	it = new_item(p, RG_INCLUDE, file);
	it->label = xasprintf("#include <%s>", p->include);
	if (re_has_match(pat, PCRE2_MULTILINE, m, f->len)) {
		unsigned long col;
		find_last(pat, m, f->len, f->len, o, 1);
		it->present = 1;
		line_col(f->text, o[0], &it->line, &col);
	} else {
		/* after the last #include outside #if blocks (a .mm's
		 * AT_PER_OPERATOR_HEADERS branches), else the last one */
		size_t at = 0, last0 = (size_t)-1, lastany = (size_t)-1;
		int depth = 0;
		while (at < f->len) {
			size_t e = text_next_line(f->text, f->len, at), q = at;
			while (q < e && (m[q] == ' ' || m[q] == '\t'))
				q++;
			if (q < e && m[q] == '#') {
				q++;
				while (q < e && (m[q] == ' ' || m[q] == '\t'))
					q++;
				if (!strncmp(m + q, "if", 2))
					depth++;
				else if (!strncmp(m + q, "endif", 5) && depth > 0)
					depth--;
				else if (!strncmp(m + q, "include", 7)) {
					lastany = e;
					if (depth == 0)
						last0 = e;
				}
			}
			if (e <= at)
				break;
			at = e;
		}
		(void)o;
		it->off = last0 != (size_t)-1 ? last0 : lastany != (size_t)-1 ? lastany : 0;
		it->text = xasprintf("#include <%s>%s", p->include, eol);
	}
	free(pat);
	free(m);
}

static int plan_metal(struct rg_plan *p, struct kfile *k,
                      const struct rg_request *rq)
{
	const char *t = k->f->text, *eol = edit_eol(k->f->text, k->f->len);
	const char *name = rq->name;
	int kind = rq->kind;
	const struct mr_pair *want = rq->pairs;
	size_t nwant = rq->npairs;
	size_t len = k->f->len, i, j, nmissing, off, nunits = 0, reg_off;
	struct mr_pair missing[MR_MAX_PAIRS];
	int used[MR_MAX_PAIRS], opm[MR_MAX_PAIRS];
	int opmath = rq->opmath && OPMATH_MACRO && k->opmath_ok;
	struct unit units[MR_MAX_PAIRS];
	struct rg_item *reg = NULL;
	long anchor = -1;
	char *indent;
	int semi = 1, lead_blank = 0, trail_blank = 0, functor_exists;
	char *helper = NULL, *helper_def = NULL;
	struct buf b;

	if (present_or_conflict(p, k, kind, name, want, nwant, missing, &nmissing))
		return -1;
	if (mr_kind_params(kind)) {
		/* a registration of NAME's helper counts as present; its
		 * #define goes with the first calls */
		helper = mr_params_helper(name);
		for (i = 0, j = 0; i < nmissing; i++) {
			size_t c;
			int found = 0;
			for (c = 0; c < k->mf.ncalls && !found; c++)
				found = !strcmp(k->mf.calls[c].macro, helper) &&
				        k->mf.calls[c].nargs == 1 &&
				        !strcmp(k->mf.calls[c].args[0], missing[i].in);
			if (!found)
				missing[j++] = missing[i];
		}
		nmissing = j;
		if (nmissing > 0 && !mr_helper_find(&k->mf, helper, strlen(helper)))
			helper_def = params_helper(name, helper, eol);
	}

	/* anchor: the last top-level call of the same family */
	for (j = 0; j < k->mf.nregs; j++)
		if (k->mf.regs[j].core->kind == kind)
			anchor = (long)k->mf.regs[j].call;
	if (anchor >= 0) {
		const struct mr_call *c = &k->mf.calls[anchor];
		off = text_next_line(t, len, c->end > 0 ? c->end - 1 : 0);
		indent = indent_of(t, c->start);
		semi = c->semi;
	} else {
		off = len;
		indent = xstrdup("");
		lead_blank = !prev_line_blank(t, len, len);
		if (nmissing > 0 && p->core_hdr)
			msg(p, 0,
			    "%s: note: no %s registration in this file yet; the new "
			    "ones go at its end (%s defines the macro)",
			    k->f->display, mr_kind_macro(kind), p->core_hdr);
		else if (nmissing > 0)
			msg(p, 0,
			    "%s: note: no %s registration in this file yet; the new "
			    "ones go at its end",
			    k->f->display, mr_kind_macro(kind));
	}
	reg_off = off;

	/* the functor */
	{
		char *pat = xasprintf("\\b%s_functor\\b|\\bDEFINE_\\w*FUNCTOR\\s*\\(\\s*%s\\s*[,)]",
		                      name, name);
		functor_exists = re_has_match(pat, PCRE2_MULTILINE, k->masked, len);
		free(pat);
	}
	p->functor_exists = functor_exists;
	if (rq->functor && !functor_exists && first_call_of(k, name) >= len) {
		/* the functor and its registrations, together: after the last
		 * complete group of the kind, else after the kind's last
		 * registration, else at the end */
		size_t g = last_group_end(k, kind);
		if (g > 0)
			reg_off = g;
	}

	if (nmissing > 0) {
		/* helpers that register exactly a subset of what is missing; the
		 * floating-point pairs of an opmath kernel only through helpers
		 * of REGISTER_OPMATH_BINARY_OP, the others through the kind's */
		int opm_pass;
		memset(used, 0, sizeof used);
		for (i = 0; i < nmissing; i++)
			opm[i] = opmath && is_float(missing[i].in);
		for (opm_pass = opmath ? 1 : 0; opm_pass >= 0; opm_pass--)
		for (;;) {
			const struct mr_helper *best = NULL;
			struct mr_pair bp[MR_MAX_PAIRS];
			size_t bn = 0;
			for (i = 0; i < k->mf.nhelpers; i++) {
				const struct mr_helper *h = &k->mf.helpers[i];
				struct mr_pair hp[MR_MAX_PAIRS];
				size_t hn;
				int ok = 1;
				if (h->end > reg_off)
					continue;
				hn = mr_helper_pairs_via(&k->mf, h, kind,
				                         opm_pass ? OPMATH_MACRO
				                                  : mr_kind_macro(kind), hp);
				if (hn == 0 || hn <= bn)
					continue;
				for (j = 0; j < hn && ok; j++) {
					size_t x = pair_index(missing, nmissing, &hp[j]);
					ok = x != (size_t)-1 && !used[x] && opm[x] == opm_pass;
				}
				if (ok) {
					best = h;
					bn = hn;
					memcpy(bp, hp, hn * sizeof *hp);
				}
			}
			if (!best)
				break;
			units[nunits].pos = (size_t)-1;
			for (j = 0; j < bn; j++) {
				size_t x = pair_index(missing, nmissing, &bp[j]);
				size_t w = pair_index(want, nwant, &bp[j]);
				used[x] = 1;
				if (w < units[nunits].pos)
					units[nunits].pos = w;
			}
			units[nunits].call = xasprintf("%s(%s)", best->name, name);
			units[nunits].macro = best->name;
			memcpy(units[nunits].pairs, bp, bn * sizeof *bp);
			units[nunits].npairs = bn;
			nunits++;
		}
		for (i = 0; i < nmissing; i++) {
			char *a;
			const char *mac = opm[i] ? OPMATH_MACRO : mr_kind_macro(kind);
			if (used[i])
				continue;
			a = pair_args(kind, &missing[i]);
			units[nunits].pos = pair_index(want, nwant, &missing[i]);
			if (mr_kind_params(kind))
				/* through the kernel's own helper (see params_helper) */
				units[nunits].call = xasprintf("%s(%s)", helper, missing[i].in);
			else
				units[nunits].call = xasprintf("%s(%s, %s)", mac, name, a);
			units[nunits].macro = mac;
			units[nunits].pairs[0] = missing[i];
			units[nunits].npairs = 1;
			nunits++;
			free(a);
		}
		qsort(units, nunits, sizeof *units, unit_cmp);
	}

	if (re_has_match("^[ \\t]*using[ \\t]+namespace[ \\t]+metal[ \\t]*;",
	                 PCRE2_MULTILINE, k->masked, len))
		p->ns_metal = "";
	if (re_has_match("^[ \\t]*using[ \\t]+namespace[ \\t]+c10::metal[ \\t]*;",
	                 PCRE2_MULTILINE, k->masked, len))
		p->ns_c10 = "";
	{
		/* a file that keeps its functors together and its registrations
		 * in blocks: each in its place (see regplan.h) */
		size_t fend;
		if ((nunits > 0 || (rq->functor && !functor_exists)) &&
		    !mr_kind_params(kind) && blocked_layout(k, &fend)) {
			char *body = rq->functor && !functor_exists
			                 ? functor_text(p->ns_metal, p->ns_c10, eol, kind,
			                                name, want, nwant, rq->math)
			                 : NULL;
			int ok = plan_blocked(p, k, kind, name, units, nunits, body, want,
			                      nwant, fend);
			free(body);
			if (ok) {
				p->blocked = 1;
				if (!rq->functor && !functor_exists && nmissing > 0)
					msg(p, 0,
					    "%s: note: no %s_functor found; write one before the "
					    "registrations, or rerun with --functor",
					    k->f->display, name);
				free(indent);
				return 0;
			}
		}
	}

	if (rq->functor && !functor_exists) {
		size_t first = first_call_of(k, name);
		struct rg_item *fi;
		char *body;
		fi = new_item(p, RG_FUNCTOR, RG_KERNEL);
		body = functor_text(p->ns_metal, p->ns_c10, eol, kind, name, want,
		                    nwant, rq->math);
		buf_init(&b);
		if (first < len) {
			/* NAME is registered already: its functor goes before */
			fi->off = first;
			if (lead_blank || !prev_line_blank(t, len, first))
				buf_puts(&b, eol);
			lead_blank = 0;
			buf_puts(&b, body);
			buf_puts(&b, eol);
		} else {
			fi->off = reg_off;
			if (!prev_line_blank(t, len, reg_off))
				buf_puts(&b, eol);
			buf_puts(&b, body);
			if (nunits > 0)
				buf_puts(&b, eol);
			else if (!next_line_blank(t, len, reg_off))
				buf_puts(&b, eol);
			lead_blank = 0;
			trail_blank = nunits > 0 && !next_line_blank(t, len, reg_off);
		}
		fi->text = b.data;
		fi->label = xasprintf("struct %s_functor", name);
		memcpy(fi->pairs, want, nwant * sizeof *want);
		fi->npairs = nwant;
		free(body);
	} else if (!functor_exists && nmissing > 0) {
		msg(p, 0,
		    "%s: note: no %s_functor found; write one before the "
		    "registrations, or rerun with --functor",
		    k->f->display, name);
	}

	if (nunits > 0) {
		reg = new_item(p, RG_REG, RG_KERNEL);
		reg->off = reg_off;
		reg->macro = mr_kind_macro(kind);
		buf_init(&b);
		if (lead_blank)
			buf_puts(&b, eol);
		if (helper_def) {
			put_lines(&b, helper_def, eol);
			buf_puts(&b, eol);
		}
		for (i = 0; i < nunits; i++) {
			buf_printf(&b, "%s%s%s%s", indent, units[i].call, semi ? ";" : "",
			           eol);
			reg->calls[reg->ncalls++] =
			    xasprintf("%s%s", units[i].call, semi ? ";" : "");
			for (j = 0; j < units[i].npairs; j++)
				reg->pairs[reg->npairs++] = units[i].pairs[j];
			free(units[i].call);
		}
		if (trail_blank)
			buf_puts(&b, eol);
		reg->text = b.data;
		reg->label = xstrdup(reg->calls[0]);
	}
	if (mr_kind_params(kind) && (nunits > 0 || (rq->functor && !functor_exists)))
		plan_include(p, RG_KERNEL, k->f);
	free(helper);
	free(helper_def);
	free(indent);
	return 0;
}

/* ---- planning the host file ---- */

/* where a new host stub goes when no REGISTER_DISPATCH line leads the
 * way: the start of the line holding the '}' that closes the last named
 * namespace block of masked code c (the innermost one when blocks close
 * together, as in "} }").  Returns 0 and sets *at, or -1 when the file
 * has no named namespace block or its '}' does not start its line. */
static int namespace_end(const char *c, size_t len, size_t *at)
{
	struct mk_re re;
	size_t ov[2], start = 0, bo = 0, bc = 0, n = 0, cap = 0, i;
	size_t *opens = NULL, *closes = NULL;
	int changed;

	re_compile(&re, "\\bnamespace\\s+[A-Za-z_][\\w:]*\\s*\\{", 0);
	while (start < len && re_match(&re, c, len, start, ov, 1)) {
		size_t open = ov[1] - 1, close = match_brace(c, len, open);
		if (close > open && c[close - 1] == '}') {
			if (n == cap) {
				cap = cap ? cap * 2 : 8;
				opens = xrealloc(opens, cap * sizeof *opens);
				closes = xrealloc(closes, cap * sizeof *closes);
			}
			opens[n] = open;
			closes[n++] = close;
			if (close > bc) {
				bo = open;
				bc = close;
			}
		}
		start = ov[1];
	}
	re_free(&re);
	do {
		changed = 0;
		for (i = 0; i < n; i++)
			if (opens[i] > bo && closes[i] < bc &&
			    text_blank(c, closes[i], bc - 1)) {
				bo = opens[i];
				bc = closes[i];
				changed = 1;
			}
	} while (changed);
	free(opens);
	free(closes);
	if (bc == 0 || !text_blank(c, text_line_start(c, bc - 1), bc - 1))
		return -1;
	*at = text_line_start(c, bc - 1);
	return 0;
}

/* ---- lines within the file's column limit (clangfmt.h) ---- */

/* the pieces of a condition `a || b || c` at top level (a copy each);
 * one piece when it has no top-level || */
static size_t or_pieces(const char *s, char **out, size_t max)
{
	size_t n = 0, i, start = 0, len = strlen(s);
	long depth = 0;
	for (i = 0; i + 1 < len && n + 1 < max; i++) {
		if (s[i] == '"') {
			for (i++; i < len && s[i] != '"'; i++)
				if (s[i] == '\\')
					i++;
			continue;
		}
		if (s[i] == '(')
			depth++;
		else if (s[i] == ')')
			depth--;
		else if (depth == 0 && s[i] == '|' && s[i + 1] == '|') {
			size_t e = i;
			while (e > start && s[e - 1] == ' ')
				e--;
			out[n++] = xstrndup(s + start, e - start);
			i += 2;
			while (i < len && s[i] == ' ')
				i++;
			start = i;
			i--;
		}
	}
	out[n++] = xstrdup(s + start);
	return n;
}

/* a string literal "..." too wide for COL at column AT: split at blanks
 * into adjacent literals (the compiler joins them), each piece's line
 * within the limit where a blank allows; a copy, pieces joined by EOL and
 * INDENT */
static char *split_literal(const char *lit, size_t at, unsigned col,
                           const char *eol, const char *indent)
{
	size_t n = strlen(lit), i = 1, room;
	struct buf b;
	if (!col || at + n + 1 <= col || n < 2 || lit[0] != '"' || lit[n - 1] != '"')
		return xstrdup(lit);
	buf_init(&b);
	room = col > at + 3 ? col - at - 3 : 8;
	while (i < n - 1) {
		size_t take = n - 1 - i, k;
		if (take > room) {
			/* the last blank that fits (kept at the end of the piece) */
			for (k = i + room; k > i && lit[k - 1] != ' '; k--)
				;
			take = k > i ? k - i : room;
		}
		if (b.len)
			buf_printf(&b, "%s%s", eol, indent);
		buf_printf(&b, "\"%.*s\"", (int)take, lit + i);
		i += take;
		room = col > strlen(indent) + 3 ? col - strlen(indent) - 3 : 8;
	}
	return b.data;
}

/* INDENT HEAD ARG, ARG, ... TAIL, where HEAD ends with '(' (a call or a
 * function header) and TAIL starts with ')', written as clang-format
 * would within st (PyTorch's BinPackArguments/Parameters false): on one
 * line; else broken after '(' with every argument on the next line,
 * ContinuationIndentWidth in; else one argument a line, aligned after
 * '(' (Align) or indented (AlwaysBreak, DontAlign), or as many a line
 * as fit with BinPackArguments.  An argument that still does not fit is
 * broken after its top-level || and a string literal at its blanks.
 * Every line ends with EOL. */
static void fit_call(struct buf *b, const char *indent, const char *head,
                     char *const *args, size_t na, const char *tail,
                     const struct cf_style *st, const char *eol)
{
	size_t il = strlen(indent), hl = strlen(head), tl = strlen(tail), i;
	size_t one = il + hl + tl, rest = tl;
	unsigned lim = st->column ? st->column : (unsigned)-1;
	char *cind = xasprintf("%s%*s", indent, (int)st->cont, "");
	char *aind = xasprintf("%*s", (int)(il + hl), "");
	for (i = 0; i < na; i++) {
		one += strlen(args[i]) + (i ? 2 : 0);
		rest += strlen(args[i]) + (i ? 2 : 0);
	}
	if (one <= lim) {
		buf_printf(b, "%s%s", indent, head);
		for (i = 0; i < na; i++)
			buf_printf(b, "%s%s", i ? ", " : "", args[i]);
		buf_printf(b, "%s%s", tail, eol);
	} else if (strlen(cind) + rest <= lim) {
		buf_printf(b, "%s%s%s%s", indent, head, eol, cind);
		for (i = 0; i < na; i++)
			buf_printf(b, "%s%s", i ? ", " : "", args[i]);
		buf_printf(b, "%s%s", tail, eol);
	} else {
		int align = st->align == CF_ALIGN && il + hl + 24 <= lim;
		const char *ai = align ? aind : cind;
		buf_printf(b, "%s%s", indent, head);
		if (!align)
			buf_printf(b, "%s", eol);
		size_t used = align ? il + hl : 0;
		for (i = 0; i < na; i++) {
			const char *end = i + 1 < na ? "," : tail;
			size_t col = strlen(ai);
			char *pieces[16];
			size_t np = 1, k;
			if (st->binpack && i > 0 && used > 0 &&
			    used + 1 + strlen(args[i]) + strlen(end) <= lim) {
				/* packed after the previous argument */
				b->len -= strlen(eol);
				b->data[b->len] = '\0';
				buf_printf(b, " %s%s%s", args[i], end, eol);
				used += 1 + strlen(args[i]) + strlen(end);
				continue;
			}
			if (i > 0 || !align)
				buf_puts(b, ai);
			used = col + strlen(args[i]) + strlen(end);
			if (col + strlen(args[i]) + strlen(end) > lim)
				np = or_pieces(args[i], pieces, 16);
			else
				pieces[0] = xstrdup(args[i]);
			for (k = 0; k < np; k++) {
				const char *pe = k + 1 < np ? " ||" : end;
				char *deep = xasprintf("%s%*s", ai, k ? (int)st->cont : 0, "");
				char *lit = pieces[k][0] == '"'
				                ? split_literal(pieces[k], strlen(deep), lim, eol,
				                                deep)
				                : xstrdup(pieces[k]);
				if (k > 0)
					buf_printf(b, "%s", deep);
				buf_printf(b, "%s%s%s", lit, pe, eol);
				free(lit);
				free(deep);
				free(pieces[k]);
			}
			if (np > 1)
				used = 0; /* nothing packed after a broken argument */
		}
	}
	free(cind);
	free(aind);
}

/* ---- the host file's own conventions ---- */

/* A host kernel of the file: `static void FN(TensorIteratorBase& ...) {`
 * and the first kernel name its body asks for. */
struct hostfn {
	char *fn;
	char *kname;        /* exec_*_kernel(iter, "KNAME"), or NULL */
	size_t open, close; /* its body's braces (offsets in the masked text) */
};

static size_t host_functions(const char *code, const char *m, size_t len,
                             struct hostfn **out)
{
	struct mk_re re, rk;
	size_t ov[4], start = 0, n = 0, cap = 0;
	struct hostfn *v = NULL;
	re_compile(&re, "\\bstatic[ \\t]+void[ \\t]+(\\w+)[ \\t]*\\([ \\t]*"
	                "(?:const[ \\t]+)?TensorIteratorBase[ \\t]*&", 0);
	re_compile(&rk, "\\bexec_\\w+_kernel\\s*\\(\\s*\\w+\\s*,\\s*\"(\\w+)\"", 0);
	while (start < len && re_match(&re, code, len, start, ov, 2)) {
		const char *br = memchr(m + ov[1], '{', len - ov[1]);
		const char *semi = memchr(m + ov[1], ';', len - ov[1]);
		size_t ko[4];
		start = ov[1];
		if (!br || (semi && semi < br))
			continue; /* a declaration */
		GROW(v, n, cap);
		v[n].fn = xstrndup(code + ov[2], ov[3] - ov[2]);
		v[n].open = (size_t)(br - m);
		v[n].close = match_brace(m, len, v[n].open);
		v[n].kname = NULL;
		if (re_match(&rk, m, v[n].close, v[n].open, ko, 2))
			v[n].kname = xstrndup(m + ko[2], ko[3] - ko[2]);
		start = v[n].close > start ? v[n].close : start;
		n++;
	}
	re_free(&re);
	re_free(&rk);
	*out = v;
	return n;
}

static void host_functions_free(struct hostfn *v, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		free(v[i].fn);
		free(v[i].kname);
	}
	free(v);
}

/* The suffix the file's host kernels put after the kernel name they ask
 * for: "_kernel" (UnaryKernel.mm's erfcx_kernel asks "erfcx"),
 * "_mps_kernel" (BinaryKernel.mm's hypot_mps_kernel); the most common,
 * the later one on a tie; "_mps_kernel" when no function tells. */
static const char *learn_suffix(const struct hostfn *v, size_t n, char **own)
{
	size_t i, j, best = 0;
	const char *pick = NULL;
	*own = NULL;
	for (i = 0; i < n; i++) {
		size_t kl, c = 0;
		if (!v[i].kname || strncmp(v[i].fn, v[i].kname, kl = strlen(v[i].kname)) ||
		    v[i].fn[kl] != '_')
			continue;
		for (j = 0; j < n; j++) {
			size_t jl;
			if (v[j].kname && !strncmp(v[j].fn, v[j].kname, jl = strlen(v[j].kname)) &&
			    strcmp(v[j].fn + jl, v[i].fn + kl) == 0)
				c++;
		}
		if (c >= best) {
			best = c;
			pick = v[i].fn + kl;
		}
	}
	if (!pick)
		return "_mps_kernel";
	*own = xstrdup(pick);
	return *own;
}

/* s with its blank runs made one space, malloc'd */
static char *squeeze(const char *s)
{
	char *o = xmalloc(strlen(s) + 1), *w = o;
	int blank = 0;
	for (; *s; s++) {
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') {
			blank = 1;
			continue;
		}
		if (blank && w > o)
			*w++ = ' ';
		blank = 0;
		*w++ = *s;
	}
	*w = '\0';
	return o;
}

/* LIT (a literal, quotes included) with its first FROM replaced by TO */
static char *replace_first(const char *lit, const char *from, const char *to)
{
	const char *at = from && *from ? strstr(lit, from) : NULL;
	if (!at)
		return xstrdup(lit);
	return xasprintf("%.*s%s%s", (int)(at - lit), lit, to, at + strlen(from));
}

static char *check_cond(unsigned allowed, const char *dt, char **adesc,
                        char **rdesc);

/* the stem of a host function's name: FN without a trailing _mps_kernel,
 * _kernel_mps, _out_mps, _mps or _kernel (malloc'd) */
static char *fn_stem(const char *fn)
{
	static const char *const tails[] = {"_mps_kernel", "_kernel_mps", "_out_mps",
	                                    "_mps", "_kernel"};
	size_t n = strlen(fn), i;
	for (i = 0; i < sizeof tails / sizeof *tails; i++) {
		size_t t = strlen(tails[i]);
		if (n > t && !strcmp(fn + n - t, tails[i]))
			return xstrndup(fn, n - t);
	}
	return xstrdup(fn);
}

/* a neighbour's check message LIT (a string literal) with the name it
 * gives made ours: its function's name (V->fn) becomes FN, its kernel
 * name NAME, else the stem of its function's name (nextafter_mps_kernel
 * says "nextafter_mps not implemented ...") the stem of FN; NULL when the
 * message names none of them (it would name another operator) */
static char *named_ours(const char *lit, const struct hostfn *v, const char *fn,
                        const char *name)
{
	char *from, *to, *r = NULL;
	if (strstr(lit, v->fn))
		return replace_first(lit, v->fn, fn);
	if (v->kname && *v->kname && strstr(lit, v->kname))
		return replace_first(lit, v->kname, name);
	from = fn_stem(v->fn);
	to = fn_stem(fn);
	if (*from && strstr(lit, from))
		r = replace_first(lit, from, to);
	free(from);
	free(to);
	return r;
}

/* The arguments of the host stub's TORCH_CHECK_TYPE (args[0] the
 * condition), worded as the file's own checks word theirs: a check of the
 * same condition gives its message, with its function's or kernel's name
 * made ours (BinaryKernel.mm: "zeta_mps not implemented for non-floating
 * types"); a message "... not implemented for ..." of another condition
 * gives the same shape, naming the dtypes refused; else "OP on MPS
 * supports only DESC inputs, got " and the dtype.  Returns the count
 * (at most 4); *how says which. */
static size_t check_args(const char *op, const char *name, const char *fn,
                         unsigned allowed, const struct hostfn *v, size_t nv,
                         const char *m, char **args, const char **how)
{
	static const char dt[] = "iter.common_dtype()";
	char *adesc, *rdesc, *cond = check_cond(allowed, dt, &adesc, &rdesc);
	char *mc = mask_code(cond, strlen(cond), LANG_C); /* as the file's: no
	                                                   comments */
	char *ncond = squeeze(mc);
	char *tmpl = NULL;
	const struct hostfn *tv = NULL;
	size_t n = 0, i;
	args[n++] = cond;
	*how = "default";
	for (i = 0; i < nv && n == 1; i++) {
		size_t k;
		for (k = v[i].open; k + 17 < v[i].close && n == 1; k++) {
			size_t o, c, na, j;
			char **a, *c0;
			if (!(m[k] == 'T' && strncmp(m + k, "TORCH_CHECK_TYPE", 16) == 0 &&
			      (k == 0 || !(isalnum((unsigned char)m[k - 1]) || m[k - 1] == '_'))))
				continue;
			o = k + 16;
			while (o < v[i].close && (m[o] == ' ' || m[o] == '\t' ||
			                          m[o] == '\n' || m[o] == '\r'))
				o++;
			if (o >= v[i].close || m[o] != '(')
				continue;
			c = match_paren(m, v[i].close, o);
			if (c >= v[i].close)
				continue;
			a = lex_split_args(m, o, c, &na);
			c0 = na >= 2 ? squeeze(a[0]) : NULL;
			char *said = NULL;
			if (c0 && strcmp(c0, ncond) == 0 && a[1][0] == '"' &&
			    (said = named_ours(a[1], &v[i], fn, name)) != NULL) {
				/* the same check: its words, the name made ours */
				args[n++] = said;
				for (j = 2; j < na && n < 4; j++)
					args[n++] = xstrdup(a[j]);
				*how = "same";
			} else if (c0 && !tmpl && a[1][0] == '"' &&
			           strstr(a[1], " not implemented for ")) {
				tmpl = xstrdup(a[1]);
				tv = &v[i];
			}
			free(c0);
			lex_strv_free(a, na);
			k = c;
		}
	}
	if (n == 1 && tmpl) {
		/* its shape: SUBJECT ... not implemented for REFUSED types */
		const char *subj_n = NULL, *subj = NULL, *rest, *nif;
		if (strncmp(tmpl + 1, tv->fn, strlen(tv->fn)) == 0) {
			subj_n = tv->fn;
			subj = fn;
		} else if (tv->kname && strncmp(tmpl + 1, tv->kname, strlen(tv->kname)) == 0) {
			subj_n = tv->kname;
			subj = name;
		}
		if (subj) {
			rest = tmpl + 1 + strlen(subj_n);
			nif = strstr(rest, " not implemented for ");
			args[n++] = xasprintf("\"%s%.*s not implemented for %s types\"",
			                      subj, (int)(nif - rest), rest, rdesc);
			*how = "shape";
		}
	}
	if (n == 1) {
		args[n++] = xasprintf("\"%s on MPS supports only %s inputs, got \"",
		                      op, adesc);
		args[n++] = xstrdup(dt);
	}
	free(tmpl);
	free(ncond);
	free(mc);
	free(adesc);
	free(rdesc);
	return n;
}

static int plan_host(struct rg_plan *p, const char *root,
                     const struct rg_file *ef, const struct rg_request *rq,
                     const char *stub)
{
	const char *t = ef->text, *eol = edit_eol(ef->text, ef->len);
	const char *name = rq->name;
	int kind = rq->kind;
	size_t len = ef->len, ov[4];
	char *m = mask_code(t, len, LANG_C), *pat, *own;
	char *code = xstrndup(m, len); /* m without directives */
	int present, ti, own_stub;
	struct rg_item *it;
	struct buf b;
	const char *exec = mr_kind_exec(kind);
	own = xasprintf("%s_stub", name);
	own_stub = strcmp(own, stub) == 0;
	free(own);
	if (own_stub)
		pat = xasprintf("^[ \\t]*REGISTER_UNARY_TI_DISPATCH\\s*\\(\\s*%s\\s*\\)|"
		                "\\bREGISTER_(?:MPS_)?DISPATCH\\s*\\(\\s*%s\\s*,",
		                name, stub);
	else
		pat = xasprintf("\\bREGISTER_(?:MPS_)?DISPATCH\\s*\\(\\s*%s\\s*,", stub);
	blank_directives(code, len);
	present = re_has_match(pat, PCRE2_MULTILINE, code, len);
	if (present) {
		size_t o[2];
		unsigned long col;
		find_last(pat, code, len, len, o, 1);
		free(pat);
		it = new_item(p, RG_HOST_STUB, RG_HOST);
		it->present = 1;
		line_col(t, o[0], &it->line, &col);
		it->label = xasprintf("host stub of %s", name);
		free(m);
		free(code);
		return 0;
	}
	free(pat);
	{
		int bad = check_exec(p, root, m, len, ef->display, kind, name) != 0;
		if (check_stub(p, root, ef->display, stub) != 0)
			bad = 1;
		if (bad) {
			free(m);
			free(code);
			return -1;
		}
	}
	ti = kind == MR_UNARY && own_stub && rq->check == 0 &&
	     re_has_match("^[ \\t]*#[ \\t]*define[ \\t]+REGISTER_UNARY_TI_DISPATCH\\(",
	                  PCRE2_MULTILINE, m, len);
	p->host_ti = ti;
	it = new_item(p, RG_HOST_STUB, RG_HOST);
	buf_init(&b);
	if (ti) {
		int semi = 1;
		char *ind;
		if (find_last("^([ \\t]*)REGISTER_UNARY_TI_DISPATCH\\s*\\(", code, len,
		              len, ov, 2)) {
			const char *q = memchr(m + ov[1] - 1, ')', len - ov[1] + 1);
			size_t e = q ? (size_t)(q - m) + 1 : ov[1];
			while (e < len && (m[e] == ' ' || m[e] == '\t'))
				e++;
			semi = e < len && m[e] == ';';
			ind = xstrndup(t + ov[2], ov[3] - ov[2]);
			it->off = text_next_line(t, len, e > 0 ? e - 1 : 0);
		} else {
			size_t o[2];
			find_last("^[ \\t]*#[ \\t]*define[ \\t]+REGISTER_UNARY_TI_DISPATCH\\(",
			          m, len, len, o, 1);
			/* after the #define (and its continuation lines) */
			{
				size_t i = o[0];
				for (;;) {
					size_t e = text_next_line(t, len, i), b2 = e;
					if (b2 > 0 && t[b2 - 1] == '\n')
						b2--;
					if (b2 > 0 && t[b2 - 1] == '\r')
						b2--;
					if (e >= len || b2 == 0 || t[b2 - 1] != '\\') {
						i = e;
						break;
					}
					i = e;
				}
				it->off = i;
			}
			ind = xstrdup("");
			buf_puts(&b, eol);
		}
		it->label = xasprintf("%sREGISTER_UNARY_TI_DISPATCH(%s)%s", ind, name,
		                      semi ? ";" : "");
		buf_printf(&b, "%s%s", it->label, eol);
		free(it->label);
		it->label = xasprintf("REGISTER_UNARY_TI_DISPATCH(%s)%s", name,
		                      semi ? ";" : "");
		free(ind);
	} else {
		size_t fo[4], ro[4], fn_end = 0, reg_off = 0;
		int have_fn, have_reg, semi = 1, amp = 1;
		char *fn, *regline, *bind = xstrdup("  "), *fname, *sigbuf;
		const char *sig;
		char *pdecl[8];
		size_t npd = 0, k2;
		if (mr_kind_params(kind)) {
			struct buf sb;
			buf_init(&sb);
			buf_puts(&sb, "TensorIteratorBase& iter");
			for (k2 = 0; k2 < rq->nfields && npd < 7; k2++) {
				pdecl[npd] = xasprintf("const Scalar& %s", rq->fields[k2]);
				buf_printf(&sb, ", %s", pdecl[npd++]);
			}
			sigbuf = sb.data;
		} else
		sigbuf = mr_kind_alpha(kind)
		             ? xasprintf("TensorIteratorBase& iter, %s",
		                         rq->scalar_decl ? rq->scalar_decl
		                                         : "const Scalar& alpha")
		             : xstrdup("TensorIteratorBase& iter");
		sig = sigbuf;

		have_fn = find_last("^([ \\t]*)static[ \\t]+void[ \\t]+\\w+[ \\t]*\\("
		                    "[ \\t]*(?:const[ \\t]+)?TensorIteratorBase[ \\t]*&",
		                    code, len, len, fo, 2);
		if (have_fn) {
			const char *br = memchr(m + fo[1], '{', len - fo[1]);
			if (br) {
				size_t bl = text_next_line(t, len, (size_t)(br - m));
				size_t s = bl, e = s;
				while (e < len && (t[e] == ' ' || t[e] == '\t'))
					e++;
				if (e > s && e < len && t[e] != '\n' && t[e] != '\r') {
					free(bind);
					bind = xstrndup(t + s, e - s);
				}
				fn_end = match_brace(m, len, (size_t)(br - m));
				fn_end = text_next_line(t, len, fn_end > 0 ? fn_end - 1 : 0);
			} else {
				have_fn = 0;
			}
		}
		have_reg = find_last("^([ \\t]*)REGISTER_DISPATCH\\s*\\(", code, len,
		                     len, ro, 2);
		if (have_reg) {
			const char *q = memchr(m + ro[1], ')', len - ro[1]);
			const char *comma = memchr(m + ro[1], ',', len - ro[1]);
			size_t e = q ? (size_t)(q - m) + 1 : ro[1];
			if (comma && q && comma < q) {
				const char *r = comma + 1;
				while (*r == ' ' || *r == '\t')
					r++;
				amp = *r == '&';
			}
			while (e < len && (m[e] == ' ' || m[e] == '\t'))
				e++;
			semi = e < len && m[e] == ';';
			reg_off = text_next_line(t, len, e > 0 ? e - 1 : 0);
		}
		{
			/* the file's conventions: its kernels' names, its checks'
			 * words, its clang-format column limit */
			struct hostfn *hv;
			size_t nh = host_functions(code, m, len, &hv), na, k;
			char *own = NULL, *args[10], *hd, *ex, *q;
			struct buf fb;
			struct cf_style st;
			const char *how = NULL;
			cf_style_for(root, cf_lang_of(ef->display), &st);
			fname = xasprintf("%s%s", name, learn_suffix(hv, nh, &own));
			free(own);
			buf_init(&fb);
			hd = xasprintf("static void %s(", fname);
			args[0] = "TensorIteratorBase& iter";
			args[1] = (char *)(rq->scalar_decl ? rq->scalar_decl
			                                   : "const Scalar& alpha");
			if (mr_kind_params(kind))
				for (k = 0; k < npd; k++)
					args[1 + k] = pdecl[k];
			fit_call(&fb, "", hd, args,
			         mr_kind_params(kind) ? 1 + npd : mr_kind_alpha(kind) ? 2 : 1,
			         ") {", &st, eol);
			free(hd);
			if (rq->check && (rq->check & RG_ALL_DTYPES) != RG_ALL_DTYPES) {
				na = check_args(rq->op ? rq->op : name, name, fname, rq->check,
				                hv, nh, m, args, &how);
				fit_call(&fb, bind, "TORCH_CHECK_TYPE(", args, na, ");", &st, eol);
				for (k = 0; k < na; k++)
					free(args[k]);
				it->check = 1;
			}
			if (mr_kind_params(kind)) {
				/* the struct at float, the precision the kernels compute
				 * in (the CUDA kernel's opmath); its typedef per input
				 * dtype names the kernels (params_helper) */
				char *stn = mr_params_struct(name), *h2, *fa[8] = {NULL};
				size_t nf = 0;
				for (k = 0; k < rq->nfields && nf < 8; k++)
					fa[nf++] = xasprintf("%s.to<float>()", rq->fields[k]);
				h2 = xasprintf("%s<float> params{", stn);
				fit_call(&fb, bind, h2, fa, nf, "};", &st, eol);
				free(h2);
				for (k = 0; k < nf; k++)
					free(fa[k]);
				/* the typedef naming the kernels of the input dtype */
				fa[0] = xasprintf("\"%s_{}\"", stn);
				fa[1] = "scalarToMetalTypeString(iter.common_dtype())";
				fit_call(&fb, bind, "const auto params_type = fmt::format(", fa,
				         2, ");", &st, eol);
				fa[1] = NULL;
				ex = xasprintf("lib.%s(", exec);
				q = xasprintf("\"%s\"", name);
				args[0] = "iter";
				args[1] = q;
				args[2] = "params";
				args[3] = "params_type";
				fit_call(&fb, bind, ex, args, 4, ");", &st, eol);
				free(fa[0]);
				free(stn);
				free(ex);
				free(q);
				goto stub_done;
			}
			ex = xasprintf("lib.%s(", exec);
			q = xasprintf("\"%s\"", name);
			na = 0;
			args[na++] = "iter";
			args[na++] = q;
			if (mr_kind_alpha(kind)) {
				args[na++] = (char *)(rq->scalar_pass ? rq->scalar_pass : "alpha");
				if (rq->scalar_dtype)
					args[na++] = (char *)rq->scalar_dtype;
			}
			fit_call(&fb, bind, ex, args, na, ");", &st, eol);
			free(ex);
			free(q);
		stub_done:
			buf_printf(&fb, "}%s", eol);
			fn = fb.data;
			host_functions_free(hv, nh);
			p->check_words = !how ? 0 : strcmp(how, "same") == 0 ? 2
			                 : strcmp(how, "shape") == 0 ? 3 : 1;
			p->column = st.column;
			snprintf(p->column_source, sizeof p->column_source, "%s",
			         st.source);
		}
		regline = xasprintf("REGISTER_DISPATCH(%s, %s%s)%s", stub,
		                    amp ? "&" : "", fname, semi ? ";" : "");
		if (have_fn && have_reg && fn_end <= ro[0]) {
			struct rg_item *r2;
			char *rind = xstrndup(t + ro[2], ro[3] - ro[2]);
			buf_puts(&b, eol);
			buf_puts(&b, fn);
			it->off = fn_end;
			it->label = xasprintf("static void %s(%s)", fname, sig);
			r2 = new_item(p, RG_HOST_STUB, RG_HOST);
			r2->off = reg_off;
			r2->text = xasprintf("%s%s%s", rind, regline, eol);
			r2->label = xstrdup(regline);
			free(rind);
		} else {
			size_t at;
			if (have_reg) {
				at = reg_off;
			} else if (namespace_end(code, len, &at) != 0) {
				msg(p, 1,
				    "%s: error: no REGISTER_DISPATCH line and no namespace "
				    "block closing on its own line: no place for the host "
				    "stub of %s (the host file is the .mm file of the host "
				    "stubs, e.g. %s/%s) [no-host-anchor]",
				    ef->display, name, MPS_OPS_REL,
				    mr_kind_arity(kind) == 1   ? "UnaryKernel.mm"
				    : mr_kind_arity(kind) == 2 ? "BinaryKernel.mm"
				                               : "PointwiseOps.mm");
				free(fn);
				free(fname);
				free(sigbuf);
				free(regline);
				free(bind);
				for (k2 = 0; k2 < npd; k2++)
					free(pdecl[k2]);
				buf_free(&b);
				free(m);
				free(code);
				return -1;
			}
			if (!prev_line_blank(t, len, at))
				buf_puts(&b, eol);
			buf_puts(&b, fn);
			buf_puts(&b, eol);
			buf_printf(&b, "%s%s", regline, eol);
			if (!next_line_blank(t, len, at))
				buf_puts(&b, eol);
			it->off = at;
			it->label = xasprintf("static void %s(%s)", fname, sig);
		}
		free(fn);
		free(fname);
		free(sigbuf);
		free(regline);
		free(bind);
		for (k2 = 0; k2 < npd; k2++)
			free(pdecl[k2]);
	}
	it->text = b.data;
	if (mr_kind_params(kind))
		plan_include(p, RG_HOST, ef);
	free(m);
	free(code);
	return 0;
}

/* ---- the plan ---- */

/* each registration item's kernel names, from the checkout's macros */
static void plan_kernel_names(struct rg_plan *p, const char *root,
                              const char *name, int kind)
{
	struct mr_defs d;
	size_t i, j, q;
	memset(&d, 0, sizeof d);
	mr_defs_load(&d, root);
	for (i = 0; i < p->nitems; i++) {
		struct rg_item *it = &p->items[i];
		const struct mr_core *core;
		size_t cap = 0;
		if (it->what != RG_REG || !it->macro ||
		    !(core = mr_core_find(it->macro, strlen(it->macro))))
			continue;
		for (j = 0; j < it->npairs; j++) {
			char *args[4] = {NULL, NULL, NULL, NULL};
			struct mr_inst *v;
			size_t nv;
			args[0] = (char *)name;
			args[core->i_in] = (char *)it->pairs[j].in;
			args[core->i_out] = (char *)it->pairs[j].out;
			char *pa = mr_kind_params(kind) ? mr_params_alpha(name, it->pairs[j].in)
			                                : NULL;
			if (core->i_alpha >= 0)
				args[core->i_alpha] = pa ? pa
				                      : (char *)(it->pairs[j].alpha ? it->pairs[j].alpha
				                                                    : it->pairs[j].in);
			nv = mr_instantiate(&d, core->macro, args, (size_t)core->nargs, &v);
			free(pa);
			for (q = 0; q < nv; q++) {
				GROW(it->kernels, it->nkernels, cap);
				it->kernels[it->nkernels++] = xstrdup(v[q].name);
			}
			mr_insts_free(v, nv);
		}
	}
	mr_defs_free(&d);
}

int rg_plan(struct rg_plan *p, const char *root, const struct rg_request *rq,
            const struct rg_file *kf, const struct rg_file *hf)
{
	struct kfile k;
	char *stub;
	int bad;
	size_t nhost;
	struct rg_item *tmp;

	memset(p, 0, sizeof *p);
	p->ns_metal = "::metal::";
	p->ns_c10 = "::c10::metal::";
	memset(&k, 0, sizeof k);
	if (mr_kind_params(rq->kind))
		p->include = rg_params_include(kf->display);
	k.f = kf;
	k.masked = mask_code(kf->text, kf->len, LANG_C);
	k.code = xstrndup(k.masked, kf->len);
	blank_directives(k.code, kf->len);
	mr_file_parse(&k.mf, k.masked, kf->len);
	stub = rq->stub ? xstrdup(rq->stub) : xasprintf("%s_stub", rq->name);

	/* every refusal is reported, before any note, and before giving up;
	 * the host file is planned first for that, then its items are moved
	 * after the kernel file's */
	bad = check_core(p, root, k.masked, kf->len, kf->display, rq->kind,
	                 rq->name) != 0;
	if (rq->opmath && mr_kind_opmath_macro(rq->kind)) {
		const int kind = rq->kind;
		char *h = NULL;
		k.opmath_ok = mr_text_uses_macro(k.masked, kf->len, OPMATH_MACRO) ||
		              (h = core_header(root, OPMATH_MACRO)) != NULL;
		free(h);
		p->opmath = k.opmath_ok;
	}
	if (rq->host && hf && plan_host(p, root, hf, rq, stub) != 0)
		bad = 1;
	if (!bad) {
		nhost = p->nitems;
		if (plan_metal(p, &k, rq) != 0) {
			bad = 1;
		} else {
			tmp = xcalloc(p->nitems + 1, sizeof *tmp);
			memcpy(tmp, p->items + nhost, (p->nitems - nhost) * sizeof *tmp);
			memcpy(tmp + (p->nitems - nhost), p->items, nhost * sizeof *tmp);
			memcpy(p->items, tmp, p->nitems * sizeof *tmp);
			free(tmp);
		}
	}
	free(stub);
	mr_file_free(&k.mf);
	free(k.masked);
	free(k.code);
	if (!bad)
		plan_kernel_names(p, root, rq->name, rq->kind);
	return bad ? -1 : 0;
}

/* ---- building the new bytes ---- */

static int item_cmp(const void *a, const void *b)
{
	const struct rg_item *x = *(struct rg_item *const *)a,
	                     *y = *(struct rg_item *const *)b;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x < y ? -1 : x > y;
}

char *rg_build(struct rg_plan *p, int file, const struct rg_file *f,
               size_t *len)
{
	const char *t = f->text, *eol = edit_eol(f->text, f->len);
	size_t n = 0, i, pos = 0, flen = f->len;
	struct rg_item **list = xcalloc(p->nitems + 1, sizeof *list);
	int noeol = flen > 0 && t[flen - 1] != '\n';
	struct buf b;

	for (i = 0; i < p->nitems; i++)
		if (p->items[i].file == file && !p->items[i].present && p->items[i].text)
			list[n++] = &p->items[i];
	if (n == 0) {
		free(list);
		return NULL;
	}
	qsort(list, n, sizeof *list, item_cmp);
	buf_init(&b);
	for (i = 0; i < n; i++) {
		struct rg_item *it = list[i];
		size_t before;
		buf_add(&b, t + pos, it->off - pos);
		pos = it->off;
		before = b.len;
		if (noeol && it->off == flen) {
			/* at the end of a file without a final newline: end the old
			 * last line, and leave the new last line unterminated */
			size_t tl = strlen(it->text), el = strlen(eol);
			int last = 1;
			size_t k;
			for (k = i + 1; k < n; k++)
				if (list[k]->off == flen)
					last = 0;
			if (i == 0 || list[i - 1]->off != flen)
				buf_puts(&b, eol);
			it->newoff = b.len;
			if (last && tl >= el && memcmp(it->text + tl - el, eol, el) == 0)
				tl -= el;
			buf_add(&b, it->text, tl);
		} else {
			it->newoff = b.len;
			buf_puts(&b, it->text);
		}
		it->addlen = b.len - before;
	}
	buf_add(&b, t + pos, flen - pos);
	for (i = 0; i < n; i++) {
		struct rg_item *it = list[i];
		size_t o = it->newoff;
		unsigned long col;
		while (o < b.len && (b.data[o] == '\n' || b.data[o] == '\r'))
			o++;
		line_col(b.data, o, &it->line, &col);
	}
	free(list);
	*len = b.len;
	return b.data;
}

void rg_plan_free(struct rg_plan *p)
{
	size_t i, j;
	for (i = 0; i < p->nitems; i++) {
		free(p->items[i].text);
		free(p->items[i].label);
		for (j = 0; j < p->items[i].ncalls; j++)
			free(p->items[i].calls[j]);
		lex_strv_free(p->items[i].kernels, p->items[i].nkernels);
	}
	free(p->items);
	for (i = 0; i < p->nmsgs; i++)
		free(p->msgs[i].text);
	free(p->msgs);
	free(p->core_hdr);
	free(p->include);
	memset(p, 0, sizeof *p);
}

/* ---- the host dtype check ---- */

/* The Metal dtypes (mr_dtypes order) as PyTorch ScalarType names */
static const char *const st_names[] = {"Float", "Half", "BFloat16", "Long",
                                       "Int", "Short", "Char", "Byte",
                                       "Bool", "ComplexFloat", "ComplexHalf"};

unsigned rg_dtype_bit(const char *t)
{
	size_t i;
	for (i = 0; i < mr_ndtypes && i < 11; i++)
		if (strcmp(mr_dtypes[i], t) == 0)
			return 1u << i;
	return 0;
}

#define DT_FLOAT (7u << 0)      /* float half bfloat */
#define DT_INT (31u << 3)       /* long int short char uchar */
#define DT_BOOL (1u << 8)
#define DT_COMPLEX (3u << 9)    /* float2 half2 */

/* the terms that cover set s: class predicates and single dtypes; *desc
 * the words for people */
/* the terms of a dtype condition (malloc'd) and the words naming them,
 * "bool" a word of its own though isIntegralType covers it */
struct terms {
	char *t[16];
	size_t nt;
	const char *d[16];
	size_t nd;
};

static void terms_of(unsigned s, struct terms *x, const char *dt)
{
	size_t i;
	memset(x, 0, sizeof *x);
	if ((s & DT_FLOAT) == DT_FLOAT) {
		x->t[x->nt++] = xasprintf("isFloatingType(%s)", dt);
		x->d[x->nd++] = "floating-point";
		s &= ~DT_FLOAT;
	}
	if ((s & (DT_INT | DT_BOOL)) == (DT_INT | DT_BOOL)) {
		x->t[x->nt++] = xasprintf("isIntegralType(%s, /*includeBool=*/true)", dt);
		x->d[x->nd++] = "integral";
		x->d[x->nd++] = "bool";
		s &= ~(DT_INT | DT_BOOL);
	} else if ((s & DT_INT) == DT_INT) {
		x->t[x->nt++] = xasprintf("isIntegralType(%s, /*includeBool=*/false)", dt);
		x->d[x->nd++] = "integral";
		s &= ~DT_INT;
	}
	if ((s & DT_COMPLEX) == DT_COMPLEX) {
		x->t[x->nt++] = xasprintf("isComplexType(%s)", dt);
		x->d[x->nd++] = "complex";
		s &= ~DT_COMPLEX;
	}
	for (i = 0; i < 11; i++)
		if (s & (1u << i)) {
			x->t[x->nt++] = xasprintf("%s == k%s", dt, st_names[i]);
			x->d[x->nd++] = st_names[i];
		}
}

static void terms_free(struct terms *x)
{
	size_t i;
	for (i = 0; i < x->nt; i++)
		free(x->t[i]);
}

static void join_desc(struct buf *b, const struct terms *x)
{
	size_t i;
	for (i = 0; i < x->nd; i++)
		buf_printf(b, "%s%s", i == 0 ? "" : i + 1 == x->nd ? " and " : ", ",
		           x->d[i]);
}

/* the condition letting through ALLOWED (on the dtype expression DT),
 * malloc'd; *adesc the words for the allowed dtypes ("floating-point
 * and integral"), *rdesc for the others ("complex") */
static char *check_cond(unsigned allowed, const char *dt, char **adesc,
                        char **rdesc)
{
	struct terms a, r;
	struct buf b, d, e;
	size_t i;
	/* the allowed dtypes, always: one this set does not name (uint16,
	 * float8, ...) is refused too, with the message, instead of reaching
	 * a kernel that is not there */
	terms_of(allowed & RG_ALL_DTYPES, &a, dt);
	terms_of(~allowed & RG_ALL_DTYPES, &r, dt);
	buf_init(&b);
	for (i = 0; i < a.nt; i++)
		buf_printf(&b, "%s%s", i ? " || " : "", a.t[i]);
	buf_init(&d);
	join_desc(&d, &a);
	buf_init(&e);
	join_desc(&e, &r);
	*adesc = d.data ? d.data : xstrdup("");
	*rdesc = e.data ? e.data : xstrdup("");
	terms_free(&a);
	terms_free(&r);
	return b.data;
}

char *rg_check_text(const char *op, unsigned allowed, const char *eol,
                    const char *indent)
{
	static const char dt[] = "iter.common_dtype()";
	char *cond, *adesc, *rdesc, *t;
	allowed &= RG_ALL_DTYPES;
	if (allowed == 0 || allowed == RG_ALL_DTYPES)
		return NULL;
	cond = check_cond(allowed, dt, &adesc, &rdesc);
	t = xasprintf("TORCH_CHECK_TYPE(%s,%s%s\"%s on MPS supports only %s "
	              "inputs, got \", %s);", cond, eol, indent, op, adesc, dt);
	free(cond);
	free(adesc);
	free(rdesc);
	return t;
}

const char *rg_what_name(enum rg_what w)
{
	switch (w) {
	case RG_REG: return "registration";
	case RG_FUNCTOR: return "functor";
	case RG_INCLUDE: return "include";
	default: return "host-stub";
	}
}

json_t *rg_pairs_json(const struct mr_pair *v, size_t n)
{
	json_t *a = json_array();
	size_t i;
	for (i = 0; i < n; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "in", json_string(v[i].in));
		if (v[i].alpha)
			json_object_set_new(o, "alpha", json_string(v[i].alpha));
		json_object_set_new(o, "out", json_string(v[i].out));
		json_array_append_new(a, o);
	}
	return a;
}
