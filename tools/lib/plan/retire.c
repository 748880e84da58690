/* retire.c — see retire.h. */
#include "plan/retire.h"
#include "base/diag.h"
#include "base/lex.h"
#include "base/scan.h"

#include <stdlib.h>
#include <string.h>

/* ---- per-file working copies ---- */

struct work {
	const struct hs_model *hm;
	char **masked;      /* per file: comments and #if 0 blanked (lazy) */
	char **ids;         /* per host file: masked, string literals and
	                       #include lines blanked too (lazy) */
	struct rt_plan *p;
};

static const char *masked_of(struct work *w, size_t f)
{
	const struct hs_file *hf = &w->hm->files[f];
	if (!w->masked[f])
		w->masked[f] = mask_code(hf->text, hf->len,
		                         hf->kind == HS_PYTHON ? LANG_PYTHON : LANG_C);
	return w->masked[f];
}

static int id_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

static void blank(char *t, size_t a, size_t b)
{
	for (; a < b; a++)
		if (t[a] != '\n' && t[a] != '\r')
			t[a] = ' ';
}

/* the identifier text of host file f: masked, string and character
 * literals and #include lines blanked */
static const char *ids_of(struct work *w, size_t f)
{
	size_t n = w->hm->files[f].len, i = 0;
	char *t;
	if (w->ids[f])
		return w->ids[f];
	t = xstrdup(masked_of(w, f));
	while (i < n) {
		char c = t[i];
		if (c == 'R' && i + 1 < n && t[i + 1] == '"' &&
		    (i == 0 || !id_char(t[i - 1]))) {
			/* R"delim( ... )delim" */
			size_t d = i + 2, e;
			while (d < n && t[d] != '(' && t[d] != '\n' && d - i < 20)
				d++;
			if (d < n && t[d] == '(') {
				size_t dl = d - (i + 2);
				for (e = d + 1; e < n; e++)
					if (t[e] == ')' && e + 1 + dl < n &&
					    memcmp(t + e + 1, t + i + 2, dl) == 0 &&
					    t[e + 1 + dl] == '"')
						break;
				e = e < n ? e + 2 + dl : n;
				blank(t, i, e);
				i = e;
				continue;
			}
		}
		if (c == '"' || (c == '\'' && !(i > 0 && id_char(t[i - 1]) &&
		                                 i + 1 < n && id_char(t[i + 1])))) {
			size_t e = i + 1;
			while (e < n && t[e] != c && t[e] != '\n') {
				if (t[e] == '\\')
					e++;
				e++;
			}
			e = e < n ? e + 1 : n;
			blank(t, i, e);
			i = e;
			continue;
		}
		if (c == '#') {
			size_t j = i + 1;
			while (j < n && (t[j] == ' ' || t[j] == '\t'))
				j++;
			if (n - j >= 7 && memcmp(t + j, "include", 7) == 0) {
				size_t e = j;
				while (e < n && t[e] != '\n')
					e++;
				blank(t, i, e);
				i = e;
				continue;
			}
		}
		i++;
	}
	w->ids[f] = t;
	return t;
}

/* ---- the plan ---- */

static struct rt_item *add_item(struct rt_plan *p, enum rt_what what,
                                size_t file, size_t start, size_t end,
                                const char *name)
{
	struct rt_item *it;
	GROW(p->items, p->n, p->cap);
	it = &p->items[p->n++];
	memset(it, 0, sizeof *it);
	it->what = what;
	it->file = file;
	it->start = start;
	it->end = end;
	it->name = xstrdup(name);
	return it;
}

/* 1 when [off, off + n) of the identifier text of file f lies inside a
 * deletion of the plan (kept items do not count) */
static int deleted_at(const struct rt_plan *p, size_t f, size_t off)
{
	size_t i;
	for (i = 0; i < p->n; i++) {
		const struct rt_item *it = &p->items[i];
		if (!it->kept && it->file == f && off >= it->start && off < it->end)
			return 1;
	}
	return 0;
}

/* the first place, outside the plan's deletions and outside [skip_a,
 * skip_b) of file skip_f, where the code of a host file names identifier
 * NAME: 1 and *file, *off set, or 0 */
static int used_at(struct work *w, const char *name, size_t skip_f,
                   size_t skip_a, size_t skip_b, size_t *file, size_t *off)
{
	size_t f, nl = strlen(name);
	if (nl == 0)
		return 0;
	for (f = 0; f < w->hm->nfiles; f++) {
		const char *t, *q;
		size_t n;
		if (w->hm->files[f].kind != HS_HOST)
			continue;
		n = w->hm->files[f].len;
		/* a cheap filter on the raw text first */
		if (!strstr(w->hm->files[f].text, name))
			continue;
		t = ids_of(w, f);
		for (q = t; (q = strstr(q, name)) != NULL; q += nl) {
			size_t o = (size_t)(q - t);
			if (o + nl > n)
				break;
			if ((o > 0 && id_char(t[o - 1])) || id_char(t[o + nl]))
				continue;
			if (f == skip_f && o >= skip_a && o < skip_b)
				continue;
			if (deleted_at(w->p, f, o))
				continue;
			*file = f;
			*off = o;
			return 1;
		}
	}
	return 0;
}

/* ---- widening a deletion to whole lines ---- */

/* the line [s, next_line) is blank in t */
static int line_blank(const char *t, size_t len, size_t s)
{
	return text_blank(t, s, text_next_line(t, len, s));
}

/* first non-blank character of the line at s, or 0 */
static char line_first(const char *t, size_t len, size_t s)
{
	size_t e = text_next_line(t, len, s);
	for (; s < e; s++)
		if (t[s] != ' ' && t[s] != '\t' && t[s] != '\r' && t[s] != '\n')
			return t[s];
	return 0;
}

/* [*a, *b) of file f, widened as retire.h says; m is the masked text */
static void widen(const char *t, const char *m, size_t len, size_t *a,
                  size_t *b)
{
	size_t s = text_line_start(m, *a), e = text_next_line(m, len, *b > *a ? *b - 1 : *a);
	size_t k;
	int para_below;
	if (!text_blank(m, s, *a) || !text_blank(m, *b, e))
		return; /* shares its lines with other code */
	/* comment lines right above: masked blank, text not */
	k = s;
	while (k > 0) {
		size_t p = text_line_start(m, k - 1);
		if (!line_blank(m, len, p) || line_blank(t, len, p))
			break;
		k = p;
	}
	/* they are its own when nothing follows it in the same paragraph
	 * (they could head a group otherwise) */
	para_below = e >= len || line_blank(t, len, e) || line_first(m, len, e) == '}';
	if (k < s && para_below)
		s = k;
	/* a blank line that would double up */
	if (s == 0 || line_blank(t, len, text_line_start(t, s - 1))) {
		if (e < len && line_blank(t, len, e))
			e = text_next_line(t, len, e);
		else if (s > 0 && (e >= len || line_first(m, len, e) == '}'))
			s = text_line_start(t, s - 1);
	}
	*a = s;
	*b = e;
}

/* ---- definitions and helpers ---- */

static int is_header(const char *rel)
{
	size_t n = strlen(rel);
	return (n > 2 && strcmp(rel + n - 2, ".h") == 0) ||
	       (n > 4 && strcmp(rel + n - 4, ".hpp") == 0);
}

static long planned(const struct rt_plan *p, enum rt_what what, size_t file,
                    size_t start)
{
	size_t i;
	for (i = 0; i < p->n; i++)
		if (p->items[i].what == what && p->items[i].file == file &&
		    p->items[i].start == start)
			return (long)i;
	return -1;
}

static void set_lines(const struct hs_model *hm, struct rt_item *it, size_t a,
                      size_t b)
{
	unsigned long col;
	const char *t = hm->files[it->file].text;
	line_col(t, a, &it->line, &col);
	line_col(t, b > a ? b - 1 : a, &it->last, &col);
}

/* why definition d (index di) must stay, or NULL: host code calls it, or a
 * stub registers it */
static char *still_called(const struct hs_model *hm, const struct rt_plan *p,
                          long di)
{
	const struct hs_def *d = &hm->defs[di];
	size_t i, j;
	for (i = 0; i < hm->nregs; i++)
		if (strcmp(hm->regs[i].fn, d->name) == 0 &&
		    planned(p, RT_REG, hm->regs[i].at.file, hm->regs[i].at.off) < 0) {
			unsigned long line, col;
			hs_line_col(hm, hm->regs[i].at, &line, &col);
			return xasprintf("%s registers it (%s:%lu)", hm->regs[i].stub,
			                 hm->files[hm->regs[i].at.file].rel, line);
		}
	for (i = 0; i < hm->ndefs; i++) {
		const struct hs_def *c = &hm->defs[i];
		long k;
		if ((long)i == di)
			continue;
		k = planned(p, RT_DEF, c->at.file, c->ext_start);
		if (k >= 0 && !p->items[k].kept)
			continue;
		k = planned(p, RT_HELPER, c->at.file, c->ext_start);
		if (k >= 0 && !p->items[k].kept)
			continue;
		for (j = 0; j < c->ncalls; j++)
			if (strcmp(lex_unqualified(c->calls[j]), d->name) == 0) {
				unsigned long line, col;
				hs_line_col(hm, c->at, &line, &col);
				return xasprintf("still called by %s (%s:%lu)", c->name,
				                 hm->files[c->at.file].rel, line);
			}
	}
	return NULL;
}

static char *def_detail(const struct hs_def *d, const char *text)
{
	struct buf b;
	buf_init(&b);
	if (d->macro) {
		size_t e = d->ext_end;
		while (e > d->ext_start && (text[e - 1] == ';' || text[e - 1] == ' '))
			e--;
		buf_puts(&b, "macro line ");
		if (e - d->ext_start <= 72)
			buf_add(&b, text + d->ext_start, e - d->ext_start);
		else
			buf_printf(&b, "%s(%s, ...)", d->macro, d->name);
	} else {
		buf_puts(&b, d->impl ? "TORCH_IMPL_FUNC body" : "function");
	}
	if (d->graph)
		buf_printf(&b, "; builds an MPSGraph (%s)", d->why ? d->why : "?");
	return b.data;
}

/* the end of the statement `MACRO(...);` starting at OFF of T (N bytes):
 * after the ';' (or the ')' when none follows), or OFF when unbalanced */
static size_t statement_end(const char *t, size_t n, size_t off)
{
	size_t i = off, close, j;
	while (i < n && t[i] != '(')
		i++;
	if (i >= n || (close = lex_match_close(t, n, i, '(', ')')) >= n)
		return off;
	j = close + 1;
	while (j < n && (t[j] == ' ' || t[j] == '\t'))
		j++;
	return j < n && t[j] == ';' ? j + 1 : close + 1;
}

/* the registrations of rq->replaced_stub whose function builds an
 * MPSGraph: deleted, and their functions planned as dead definitions */
static void plan_regs(struct work *w, const struct rt_request *rq)
{
	const struct hs_model *hm = w->hm;
	struct rt_plan *p = w->p;
	size_t i;
	if (!rq->replaced_stub)
		return;
	for (i = 0; i < hm->nregs; i++) {
		const struct hs_reg *r = &hm->regs[i];
		const struct hs_file *f = &hm->files[r->at.file];
		const struct hs_def *def;
		struct rt_item *it;
		size_t end;
		if (strcmp(r->stub, rq->replaced_stub) != 0 || r->macro || r->def < 0 ||
		    f->kind != HS_HOST || !hm->defs[r->def].graph)
			continue;
		end = statement_end(f->text, f->len, r->at.off);
		if (end == r->at.off)
			continue;
		def = &hm->defs[r->def];
		it = add_item(p, RT_REG, r->at.file, r->at.off, end, r->stub);
		it->detail = xasprintf("registers %s, whose body builds an MPSGraph",
		                       r->fn);
		set_lines(hm, it, r->at.off, end);
		if (hm->files[def->at.file].kind == HS_HOST &&
		    planned(p, RT_DEF, def->at.file, def->ext_start) < 0) {
			it = add_item(p, RT_DEF, def->at.file, def->ext_start,
			              def->ext_end, def->name);
			it->detail = def_detail(def, hm->files[def->at.file].text);
			it->graph = def->graph;
			set_lines(hm, it, def->ext_start, def->ext_end);
		}
	}
}

static void plan_defs(struct work *w, const struct rt_request *rq)
{
	const struct hs_model *hm = w->hm;
	struct rt_plan *p = w->p;
	size_t i, j, k;
	plan_regs(w, rq);
	for (i = 0; i < rq->ndead; i++) {
		const long *d;
		for (d = hs_defs_named(hm, rq->dead[i]); *d >= 0; d++) {
			const struct hs_def *def = &hm->defs[*d];
			struct rt_item *it;
			if (hm->files[def->at.file].kind != HS_HOST ||
			    planned(p, RT_DEF, def->at.file, def->ext_start) >= 0)
				continue;
			it = add_item(p, RT_DEF, def->at.file, def->ext_start,
			              def->ext_end, def->name);
			it->detail = def_detail(def, hm->files[def->at.file].text);
			it->graph = def->graph;
			set_lines(hm, it, def->ext_start, def->ext_end);
		}
	}
	/* what must stay: called, or a macro line that defines more */
	for (i = 0; i < p->n; i++) {
		struct rt_item *it = &p->items[i];
		const long *d = hs_defs_named(hm, it->name);
		char *why = NULL;
		if (it->what != RT_DEF)
			continue;
		for (; *d >= 0 && !why; d++) {
			const struct hs_def *def = &hm->defs[*d];
			size_t uf, uo;
			if (def->at.file != it->file || def->ext_start != it->start)
				continue;
			why = still_called(hm, p, *d);
			if (!why && !def->impl && !def->macro &&
			    used_at(w, def->name, def->at.file, def->ext_start,
			            def->ext_end, &uf, &uo)) {
				unsigned long line, col;
				line_col(hm->files[uf].text, uo, &line, &col);
				why = xasprintf("still used at %s:%lu", hm->files[uf].rel, line);
			}
		}
		for (j = 0; j < hm->ndefs && !why; j++) {
			const struct hs_def *o = &hm->defs[j];
			int dead = 0;
			if (o->at.file != it->file || o->ext_start != it->start ||
			    strcmp(o->name, it->name) == 0)
				continue;
			for (k = 0; k < rq->ndead && !dead; k++)
				dead = strcmp(rq->dead[k], o->name) == 0;
			if (!dead)
				why = xasprintf("its macro line also defines %s, which stays",
				                o->name);
		}
		if (why) {
			it->kept = 1;
			free(it->detail);
			it->detail = why;
		}
	}
}

/* helpers of the deleted definitions (and of deleted helpers) */
static void plan_helpers(struct work *w, const struct rt_request *rq)
{
	const struct hs_model *hm = w->hm;
	struct rt_plan *p = w->p;
	size_t i, j;
	for (i = 0; i < p->n; i++) {
		const long *d;
		if (p->items[i].kept ||
		    (p->items[i].what != RT_DEF && p->items[i].what != RT_HELPER))
			continue;
		for (d = hs_defs_named(hm, p->items[i].name); *d >= 0; d++) {
			const struct hs_def *def = &hm->defs[*d];
			if (def->at.file != p->items[i].file ||
			    def->ext_start != p->items[i].start)
				continue;
			for (j = 0; j < def->ncalls; j++) {
				const char *c = lex_unqualified(def->calls[j]);
				const long *h = hs_defs_named(hm, c);
				const struct hs_def *hd;
				struct rt_item *it;
				size_t uf, uo;
				unsigned long line, col;
				if (h[0] < 0 || h[1] >= 0)
					continue; /* unknown, or overloaded */
				hd = &hm->defs[h[0]];
				if (hd->macro || hd->impl || hd->at.file != def->at.file ||
				    (rq->named && rq->named(hd->name, rq->arg)) ||
				    hm->files[hd->at.file].kind != HS_HOST ||
				    is_header(hm->files[hd->at.file].rel) ||
				    planned(p, RT_HELPER, hd->at.file, hd->ext_start) >= 0 ||
				    planned(p, RT_DEF, hd->at.file, hd->ext_start) >= 0)
					continue;
				it = add_item(p, RT_HELPER, hd->at.file, hd->ext_start,
				              hd->ext_end, hd->name);
				it->graph = hd->graph;
				set_lines(hm, it, hd->ext_start, hd->ext_end);
				/* note p->items may have moved; code that stays calls
				 * it (also through a macro that pastes its name
				 * together), or names it */
				{
					char *why = still_called(hm, p, h[0]);
					if (why) {
						it = &p->items[p->n - 1];
						it->kept = 1;
						it->detail = why;
						continue;
					}
				}
				if (used_at(w, hd->name, hd->at.file, hd->ext_start,
				            hd->ext_end, &uf, &uo)) {
					it = &p->items[p->n - 1];
					it->kept = 1;
					line_col(hm->files[uf].text, uo, &line, &col);
					it->detail = xasprintf("still used at %s:%lu",
					                       hm->files[uf].rel, line);
				} else {
					it = &p->items[p->n - 1];
					it->detail = xasprintf("called only by the deleted "
					                       "definitions%s",
					                       hd->graph ? "; builds an MPSGraph"
					                                 : "");
				}
			}
		}
	}
}

/* ---- includes ---- */

static int stub_of_op(const char *stub, const char *op)
{
	size_t n = strlen(op), s = strlen(stub);
	return strncmp(stub, op, n) == 0 && stub[n] == '_' && s > 5 &&
	       strcmp(stub + s - 5, "_stub") == 0;
}

/* 1 when the code of host file f names identifier NAME outside the plan's
 * deletions */
static int file_uses(struct work *w, size_t f, const char *name)
{
	const char *ids, *q;
	size_t nl = strlen(name);
	if (nl == 0 || !strstr(w->hm->files[f].text, name))
		return 0;
	ids = ids_of(w, f);
	for (q = ids; (q = strstr(q, name)) != NULL; q += nl) {
		size_t o = (size_t)(q - ids);
		if ((o > 0 && id_char(ids[o - 1])) || id_char(ids[o + nl]))
			continue;
		if (!deleted_at(w->p, f, o))
			return 1;
	}
	return 0;
}

static void plan_includes(struct work *w, const struct rt_request *rq)
{
	const struct hs_model *hm = w->hm;
	struct rt_plan *p = w->p;
	size_t i, j;
	for (i = 0; i < hm->nincs; i++) {
		const struct hs_include *in = &hm->incs[i];
		size_t f = in->at.file;
		const char *t = hm->files[f].text;
		size_t len = hm->files[f].len;
		int used = 0;
		struct rt_item *it;
		if (strcmp(in->op, rq->op) != 0 || hm->files[f].kind != HS_HOST)
			continue;
		for (j = 0; j < hm->nregs && !used; j++)
			used = hm->regs[j].at.file == f &&
			       stub_of_op(hm->regs[j].stub, rq->op);
		for (j = 0; j < rq->nnames && !used; j++) {
			char *s = xasprintf("structured_%s", rq->names[j]);
			used = file_uses(w, f, rq->names[j]) || file_uses(w, f, s);
			free(s);
		}
		if (used)
			continue;
		it = add_item(p, RT_INCLUDE, f, text_line_start(t, in->at.off),
		              text_next_line(t, len, in->at.off), rq->op);
		it->detail = xasprintf("#include <ATen/ops/%s_native.h>", rq->op);
		set_lines(hm, it, in->at.off, in->at.off + 1);
	}
}

/* ---- test lists ---- */

int rt_xfail_of_op(const char *key, const struct rt_request *rq)
{
	char *o;
	int same;
	if (hs_xfail_names_op(key, rq->op))
		return 1;
	if (!rq->is_op)
		return 0;
	o = hs_xfail_op(key, rq->is_op, rq->op_arg);
	same = o && strcmp(o, rq->op) == 0;
	free(o);
	return same;
}

static void plan_xfails(struct work *w, const struct rt_request *rq)
{
	const struct hs_model *hm = w->hm;
	struct rt_plan *p = w->p;
	size_t i;
	for (i = 0; i < hm->nxfails; i++) {
		const struct hs_xfail *x = &hm->xfails[i];
		const char *t = hm->files[x->at.file].text;
		const char *m = masked_of(w, x->at.file);
		size_t len = hm->files[x->at.file].len, a = x->at.off, b = x->end, c;
		struct rt_item *it;
		if (!rt_xfail_of_op(x->key, rq))
			continue;
		/* the comma after it and the blanks up to the next item go with
		 * it; the last item of a literal written on one line takes the
		 * comma before it instead */
		c = b;
		while (c < len && (m[c] == ' ' || m[c] == '\t'))
			c++;
		if (c < len && m[c] == ',') {
			b = c + 1;
			while (b < len && (m[b] == ' ' || m[b] == '\t'))
				b++;
		} else if (!(text_blank(m, text_line_start(m, a), a) &&
		             text_blank(m, b, text_next_line(m, len, b)))) {
			size_t q = a;
			while (q > 0 && (m[q - 1] == ' ' || m[q - 1] == '\t'))
				q--;
			if (q > 0 && m[q - 1] == ',')
				a = q - 1;
		}
		it = add_item(p, RT_XFAIL, x->at.file, a, b, x->key);
		it->detail = xstrdup(x->list);
		set_lines(hm, it, x->at.off, x->end);
		widen(t, m, len, &it->start, &it->end);
	}
}

/* ---- applying ---- */

static int cmp_range(const void *x, const void *y)
{
	const size_t *a = x, *b = y;
	return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1];
}

int rt_deletes_in(const struct rt_plan *p, size_t file)
{
	size_t i;
	for (i = 0; i < p->n; i++)
		if (!p->items[i].kept && p->items[i].file == file)
			return 1;
	return 0;
}

char *rt_apply(const struct rt_plan *p, const struct hs_model *hm, size_t file,
               size_t *len)
{
	const char *t = hm->files[file].text;
	size_t n = 0, i, pos = 0, *r;
	struct buf b;
	if (!rt_deletes_in(p, file))
		return NULL;
	r = xcalloc(2 * p->n + 2, sizeof *r);
	for (i = 0; i < p->n; i++)
		if (!p->items[i].kept && p->items[i].file == file) {
			r[2 * n] = p->items[i].start;
			r[2 * n + 1] = p->items[i].end;
			n++;
		}
	qsort(r, n, 2 * sizeof *r, cmp_range);
	buf_init(&b);
	for (i = 0; i < n; i++) {
		if (r[2 * i] > pos)
			buf_add(&b, t + pos, r[2 * i] - pos);
		if (r[2 * i + 1] > pos)
			pos = r[2 * i + 1];
	}
	buf_add(&b, t + pos, hm->files[file].len - pos);
	free(r);
	*len = b.len;
	return b.data;
}

void rt_plan_op(struct rt_plan *p, const struct hs_model *hm,
                const struct rt_request *rq)
{
	struct work w;
	size_t i;
	memset(p, 0, sizeof *p);
	memset(&w, 0, sizeof w);
	w.hm = hm;
	w.p = p;
	w.masked = xcalloc(hm->nfiles + 1, sizeof *w.masked);
	w.ids = xcalloc(hm->nfiles + 1, sizeof *w.ids);
	plan_defs(&w, rq);
	plan_helpers(&w, rq);
	/* definitions and helpers: whole lines */
	for (i = 0; i < p->n; i++) {
		struct rt_item *it = &p->items[i];
		const struct hs_file *f = &hm->files[it->file];
		if (it->kept)
			continue;
		widen(f->text, masked_of(&w, it->file), f->len, &it->start, &it->end);
	}
	plan_includes(&w, rq);
	plan_xfails(&w, rq);
	for (i = 0; i < hm->nfiles; i++) {
		free(w.masked[i]);
		free(w.ids[i]);
	}
	free(w.masked);
	free(w.ids);
}

const char *rt_what_name(enum rt_what w)
{
	switch (w) {
	case RT_DEF: return "definition";
	case RT_HELPER: return "helper";
	case RT_INCLUDE: return "include";
	case RT_REG: return "registration";
	default: return "xfail";
	}
}

void rt_plan_free(struct rt_plan *p)
{
	size_t i;
	for (i = 0; i < p->n; i++) {
		free(p->items[i].name);
		free(p->items[i].detail);
	}
	free(p->items);
	memset(p, 0, sizeof *p);
}
