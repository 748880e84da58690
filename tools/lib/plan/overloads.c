/* overloads.c — see overloads.h. */
#include "plan/overloads.h"
#include "base/diag.h"
#include "plan/fold.h"
#include "read/hostscan.h"

#include <stdlib.h>
#include <string.h>

size_t *ov_order(const struct nf_index *ix)
{
	size_t *ord = xmalloc((ix->nfuncs + 1) * sizeof *ord), n = 0, i, j;
	size_t *next = xmalloc((ix->nfuncs + 1) * sizeof *next);
	size_t *head = xmalloc((ix->nentries + 1) * sizeof *head), *tail;
	tail = xmalloc((ix->nentries + 1) * sizeof *tail);
	/* chain the autogen'd functions behind their declaring entry */
	for (i = 0; i < ix->nentries; i++)
		head[i] = tail[i] = (size_t)-1;
	for (j = ix->nentries; j < ix->nfuncs; j++) {
		size_t d = (size_t)ix->funcs[j].declared_by;
		next[j] = (size_t)-1;
		if (head[d] == (size_t)-1)
			head[d] = j;
		else
			next[tail[d]] = j;
		tail[d] = j;
	}
	for (i = 0; i < ix->nentries; i++) {
		ord[n++] = i;
		for (j = head[i]; j != (size_t)-1; j = next[j])
			ord[n++] = j;
	}
	free(next);
	free(head);
	free(tail);
	return ord;
}

int ov_matches(const struct nf_func *f, const char *op)
{
	size_t n = strlen(op);
	if (strchr(op, '.'))
		return strcmp(f->name, op) == 0;
	return strcmp(f->base, op) == 0 ||
	       (strncmp(f->name, op, n) == 0 && (f->name[n] == '\0' || f->name[n] == '.'));
}

size_t ov_select(const struct nf_index *ix, const size_t *ord, const char *op,
                 int legacy, size_t *rows, size_t *found)
{
	size_t i, n = 0, nf = 0;
	for (i = 0; i < ix->nfuncs; i++) {
		const struct nf_func *f = &ix->funcs[ord[i]];
		if (op && !ov_matches(f, op))
			continue;
		nf++;
		if (!legacy || f->route == ROUTE_MPS_SPECIFIC)
			rows[n++] = ord[i];
	}
	if (found)
		*found = nf;
	return n;
}

/* the Levenshtein distance of a and b */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, *row, best;
	row = xmalloc((lb + 1) * sizeof *row);
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t cur = row[j];
			size_t sub = prev + (a[i - 1] != b[j - 1]);
			size_t del = row[j] + 1, ins = row[j - 1] + 1;
			row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
			prev = cur;
		}
	}
	best = row[lb];
	free(row);
	return best;
}

size_t ov_nearest(const struct nf_index *ix, const char *op,
                  const char *best[3])
{
	size_t bd[3] = {(size_t)-1, (size_t)-1, (size_t)-1}, i, k, n = 0;
	size_t limit = strlen(op) / 3 > 2 ? strlen(op) / 3 : 2;
	best[0] = best[1] = best[2] = NULL;
	for (i = 0; i < ix->nfuncs; i++) {
		const char *b = ix->funcs[i].base;
		size_t d;
		int dup = 0;
		for (k = 0; k < 3; k++)
			if (best[k] && strcmp(best[k], b) == 0)
				dup = 1;
		if (dup)
			continue;
		d = distance(op, b);
		if (d > limit)
			continue;
		for (k = 0; k < 3; k++)
			if (d < bd[k]) {
				size_t m;
				for (m = 2; m > k; m--) {
					bd[m] = bd[m - 1];
					best[m] = best[m - 1];
				}
				bd[k] = d;
				best[k] = b;
				break;
			}
	}
	while (n < 3 && best[n])
		n++;
	return n;
}

void ov_count(const struct nf_index *ix, const size_t *rows, size_t n,
              struct ov_counts *c)
{
	size_t i, k;
	memset(c, 0, sizeof *c);
	for (i = 0; i < n; i++) {
		const struct nf_func *f = &ix->funcs[rows[i]];
		c->n[f->route]++;
		if (f->route == ROUTE_DELEGATE) {
			for (k = 0; k < c->ntargets; k++)
				if (strcmp(c->targets[k], f->structured_delegate) == 0)
					break;
			if (k == c->ntargets && c->ntargets < 64)
				c->targets[c->ntargets++] = f->structured_delegate;
		}
	}
}

static int cmp_survey(const void *a, const void *b)
{
	const struct ov_op *x = a, *y = b;
	size_t lx = x->n[ROUTE_MPS_SPECIFIC], ly = y->n[ROUTE_MPS_SPECIFIC];
	if (lx != ly)
		return lx > ly ? -1 : 1;
	return strcmp(x->base, y->base);
}

void ov_survey(const struct nf_index *ix, struct ov_survey *s)
{
	struct ov_op *ops = xcalloc(ix->nfuncs + 1, sizeof *ops);
	size_t nops = 0, i;
	/* operators by base name; a simple open hash over indexes */
	size_t cap = 16, *h;
	memset(s, 0, sizeof *s);
	while (cap < ix->nfuncs * 2)
		cap *= 2;
	h = xmalloc(cap * sizeof *h);
	for (i = 0; i < cap; i++)
		h[i] = (size_t)-1;
	for (i = 0; i < ix->nfuncs; i++) {
		const struct nf_func *f = &ix->funcs[i];
		size_t k = 0, hv = 5381;
		const char *c;
		for (c = f->base; *c; c++)
			hv = hv * 33 + (unsigned char)*c;
		k = hv & (cap - 1);
		while (h[k] != (size_t)-1 && strcmp(ops[h[k]].base, f->base) != 0)
			k = (k + 1) & (cap - 1);
		if (h[k] == (size_t)-1) {
			h[k] = nops;
			ops[nops].base = f->base;
			nops++;
		}
		ops[h[k]].n[f->route]++;
		ops[h[k]].total++;
		s->tot[f->route]++;
	}
	free(h);
	qsort(ops, nops, sizeof *ops, cmp_survey);
	s->width = 8;
	for (i = 0; i < nops; i++) {
		if (strlen(ops[i].base) > s->width)
			s->width = strlen(ops[i].base);
		s->with_legacy += ops[i].n[ROUTE_MPS_SPECIFIC] > 0;
	}
	s->ops = ops;
	s->nops = nops;
}

void ov_survey_free(struct ov_survey *s)
{
	free(s->ops);
	memset(s, 0, sizeof *s);
}

const struct ov_reach *ov_row_stubs(struct ov_stubs *st,
                                    const struct nf_func *f)
{
	const char *k = fold_row_kernel(f);
	const struct cs_model *m;
	struct ov_reach *r;
	size_t i;
	long at;
	if (!k || !st->cs || !(m = cs_lazy_get(st->cs)) || !m->have_sources)
		return NULL;
	if ((at = hs_map_get(&st->index, k)) >= 0)
		return st->k[at].known ? &st->k[at] : NULL;
	hs_map_put(&st->index, k, (long)st->nk);
	GROW(st->k, st->nk, st->cap);
	r = &st->k[st->nk++];
	memset(r, 0, sizeof *r);
	r->kernel = xstrdup(k);
	cs_discover(m, k, &r->d);
	r->known = r->d.kind == CS_STUB_BACKED || r->d.kind == CS_DEVICE_GENERIC;
	r->v = xmalloc((r->d.nstubs + 1) * sizeof *r->v);
	for (i = 0; i < r->d.nstubs; i++)
		if (!r->d.stubs[i].guard) /* reached only on other devices */
			r->v[r->n++] = &r->d.stubs[i];
	return r->known ? r : NULL;
}

void ov_stubs_free(struct ov_stubs *st)
{
	size_t i;
	for (i = 0; i < st->nk; i++) {
		free(st->k[i].kernel);
		free(st->k[i].v);
		cs_discovery_free(&st->k[i].d);
	}
	free(st->k);
	hs_map_free(&st->index);
	st->k = NULL;
	st->nk = st->cap = 0;
}
