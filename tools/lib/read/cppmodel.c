/* cppmodel.c — see cppmodel.h.
 *
 * Loading reads every file once into one scratch buffer and masks it
 * there (scan.h mask_code_again), which also lists the braces met in
 * code; blanks
 * the preprocessor lines (keeping function-like #defines as macros);
 * pairs the braces from that list (struct cs_pairs: no second pass over the
 * text, and no scope rescans the scopes inside it); then parses the
 * namespace-level structure in one forward pass: namespaces, structs,
 * function definitions with the extent of their bodies, stub declarations,
 * definitions and registrations, and the macro calls written at namespace
 * level (expanded, their expansion parsed the same way and kept).  Bodies
 * are passed over through the brace pairs; the model's strings and index
 * lists are cut from one pool.  The texts are not kept (cs_def_text).
 *
 * Bodies are not read at load time.  A query reads the few bodies it
 * needs with one token walker (walk_text) that skips literals, expands
 * the macros visible from the file and reports identifiers with their
 * qualifier, whether they are member accesses and whether they are
 * called; discovery, dtype reading and the output rule are visitors of
 * that walk.
 *
 * The scanners are hand-written loops over a character-class table, as
 * hostscan's are: the structural pass already visits every byte once, and
 * a PCRE2 pattern per question would cost a pass each.
 */
#include "read/cppmodel.h"

#include "base/diag.h"
#include "base/lex.h"
#include "base/scan.h"
#include "base/walk.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_MDEPTH CS_MACRO_DEPTH

/* ---------------- characters ---------------- */

/* the bytes parse_scope acts on: identifier starts, digits, quotes,
 * ( { } ; */
static const unsigned char scope_stop[256] = {
	['"'] = 1, ['\''] = 1, ['('] = 1, ['{'] = 1, ['}'] = 1, [';'] = 1,
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1,
	['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1, ['_'] = 1,
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1,
	['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1,
	['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1,
	['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
	['y'] = 1, ['z'] = 1,
	['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1,
	['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1,
	['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1,
	['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1,
	['Y'] = 1, ['Z'] = 1};

/* skip_ws for long runs (comments and preprocessor lines blanked to
 * spaces): eight spaces a step first */
static size_t skip_blanks(const char *t, size_t n, size_t i)
{
	const uint64_t eight = 0x2020202020202020ULL; /* "        " */
	for (;;) {
		while (i + 8 <= n) {
			uint64_t w;
			memcpy(&w, t + i, 8);
			if (w != eight)
				break;
			i += 8;
		}
		if (i >= n || !lex_sp(t[i]))
			return i;
		i++; /* a newline, a tab, a last space: then words again */
	}
}

/* After the identifier ending at e: a balanced template argument list
 * `<...>` (parentheses and literals skipped) — the index after it, or e
 * when there is none or it is not closed before the next ';', '{' or
 * '}'. */
static size_t skip_targs(const char *t, size_t n, size_t e)
{
	size_t i = lex_skip_ws(t, n, e);
	long depth = 0;
	if (i >= n || t[i] != '<' || (i + 1 < n && (t[i + 1] == '<' || t[i + 1] == '=')))
		return e;
	while (i < n) {
		char c = t[i];
		if (c == '"' || c == '\'') {
			i = lex_skip_literal(t, n, i);
			continue;
		}
		if (c == '(') {
			i = lex_match_close(t, n, i, '(', ')');
			if (i >= n)
				return e;
			i++;
			continue;
		}
		if (c == ';' || c == '{' || c == '}')
			return e;
		if (c == '<')
			depth++;
		else if (c == '>' && --depth == 0)
			return i + 1;
		i++;
	}
	return e;
}

/* ---------------- a pool: memory released all at once ---------------- */

#define POOL_BLOCK 65536

static void *pool_alloc(struct cs_pool *pl, size_t n)
{
	void *r;
	n = (n + 7) & ~(size_t)7;
	if (n > pl->left) {
		size_t sz = n > POOL_BLOCK ? n : POOL_BLOCK;
		GROW(pl->blocks, pl->nb, pl->cb);
		pl->cur = pl->blocks[pl->nb++] = xmalloc(sz);
		pl->left = sz;
	}
	r = pl->cur;
	pl->cur += n;
	pl->left -= n;
	return r;
}

static char *pool_strndup(struct cs_pool *pl, const char *s, size_t n)
{
	char *r = pool_alloc(pl, n + 1);
	memcpy(r, s, n);
	r[n] = '\0';
	return r;
}

static char *pool_strdup(struct cs_pool *pl, const char *s)
{
	return pool_strndup(pl, s, strlen(s));
}

static void pool_free(struct cs_pool *pl)
{
	size_t i;
	for (i = 0; i < pl->nb; i++)
		free(pl->blocks[i]);
	free(pl->blocks);
	memset(pl, 0, sizeof *pl);
}

/* ---------------- a map: string → long ---------------- */

static uint64_t hspan(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;
	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

static size_t smap_slot(const struct cs_smap *mp, const char *s, size_t n,
                        uint64_t h)
{
	size_t i = (size_t)h & (mp->cap - 1);
	while (mp->keys[i] &&
	       !(mp->hash[i] == h && mp->lens[i] == n &&
	         memcmp(mp->keys[i], s, n) == 0))
		i = (i + 1) & (mp->cap - 1);
	return i;
}

static long smap_get(const struct cs_smap *mp, const char *s, size_t n)
{
	size_t i;
	if (!mp->cap)
		return -1;
	i = smap_slot(mp, s, n, hspan(s, n));
	return mp->keys[i] ? mp->vals[i] : -1;
}

static long smap_gets(const struct cs_smap *mp, const char *s)
{
	return smap_get(mp, s, strlen(s));
}

static void smap_put_h(struct cs_smap *mp, const char *s, size_t n, uint64_t h,
                       long v)
{
	size_t i;
	if ((mp->n + 1) * 2 > mp->cap) {
		struct cs_smap nm;
		size_t j;
		nm.cap = mp->cap ? mp->cap * 2 : 256;
		nm.n = mp->n;
		nm.pool = mp->pool;
		nm.keys = xcalloc(nm.cap, sizeof *nm.keys);
		nm.lens = xcalloc(nm.cap, sizeof *nm.lens);
		nm.hash = xcalloc(nm.cap, sizeof *nm.hash);
		nm.vals = xcalloc(nm.cap, sizeof *nm.vals);
		for (j = 0; j < mp->cap; j++)
			if (mp->keys[j]) {
				/* keys are distinct: the first free slot */
				size_t k = (size_t)mp->hash[j] & (nm.cap - 1);
				while (nm.keys[k])
					k = (k + 1) & (nm.cap - 1);
				nm.keys[k] = mp->keys[j];
				nm.lens[k] = mp->lens[j];
				nm.hash[k] = mp->hash[j];
				nm.vals[k] = mp->vals[j];
			}
		free(mp->keys);
		free(mp->lens);
		free(mp->hash);
		free(mp->vals);
		*mp = nm;
	}
	i = smap_slot(mp, s, n, h);
	if (!mp->keys[i]) {
		mp->keys[i] = pool_strndup(mp->pool, s, n);
		mp->lens[i] = n;
		mp->hash[i] = h;
		mp->n++;
	}
	mp->vals[i] = v;
}

static void smap_put(struct cs_smap *mp, const char *s, size_t n, long v)
{
	smap_put_h(mp, s, n, hspan(s, n), v);
}

/* The value of s, or, when s is not in the map yet, v (put there): one
 * hash instead of smap_get's then smap_put's. */
static long smap_intern(struct cs_smap *mp, const char *s, size_t n, long v)
{
	uint64_t h = hspan(s, n);
	if (mp->cap) {
		size_t i = smap_slot(mp, s, n, h);
		if (mp->keys[i])
			return mp->vals[i];
	}
	smap_put_h(mp, s, n, h, v);
	return v;
}

static void smap_free(struct cs_smap *mp)
{
	free(mp->keys);
	free(mp->lens);
	free(mp->hash);
	free(mp->vals);
	memset(mp, 0, sizeof *mp);
}

static void imap_add(struct cs_imap *im, const char *s, size_t n, long x)
{
	long k = smap_intern(&im->keys, s, n, (long)im->n);
	struct cs_ilist *l;
	if (k == (long)im->n) {
		GROW(im->lists, im->n, im->cap);
		im->n++;
		memset(&im->lists[k], 0, sizeof im->lists[k]);
	}
	l = &im->lists[k];
	if (l->n == l->cap) {
		long *v;
		l->cap = l->cap ? l->cap * 2 : 2;
		v = pool_alloc(im->keys.pool, l->cap * sizeof *v);
		if (l->n)
			memcpy(v, l->v, l->n * sizeof *v);
		l->v = v; /* the old list stays in the pool */
	}
	l->v[l->n++] = x;
}

const struct cs_ilist *imap_get(const struct cs_imap *im, const char *s,
                                    size_t n)
{
	long k = smap_get(&im->keys, s, n);
	return k < 0 ? NULL : &im->lists[k];
}

static void imap_free(struct cs_imap *im)
{
	free(im->lists);
	smap_free(&im->keys);
	memset(im, 0, sizeof *im);
}

/* ---------------- the private model ---------------- */

static const char *intern_ns(struct cs_priv *p, const char *s)
{
	long k = smap_gets(&p->nsintern, s);
	if (k >= 0)
		return p->nss[k];
	GROW(p->nss, p->nns, p->cap_ns);
	p->nss[p->nns] = xstrdup(s);
	smap_put(&p->nsintern, s, strlen(s), (long)p->nns);
	return p->nss[p->nns++];
}

static char *path_join(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	char *r = xmalloc(na + nb + 2);
	memcpy(r, a, na);
	r[na] = '/';
	memcpy(r + na + 1, b, nb + 1);
	return r;
}

/* The line starts of a file, found on the first question about a line
 * (most files are never asked): from its text as a query made it, else
 * from the file read for that. */
static void file_lines(const struct cs_model *m, struct cs_file *f)
{
	size_t cap = f->len / 32 + 16, i;
	char *own = NULL;
	const char *t = f->code;
	if (!t) {
		size_t len;
		char *path = path_join(m->root, f->rel);
		if (read_source_file(path, &own, &len) != 0 || len != f->len)
			die("error: '%s' changed while it was read", path);
		free(path);
		t = own;
	}
	f->ls = xmalloc(cap * sizeof *f->ls);
	f->ls[0] = 0;
	f->nls = 1;
	for (i = 0; i < f->len; i++) {
		const char *q = memchr(t + i, '\n', f->len - i);
		if (!q)
			break;
		i = (size_t)(q - t);
		if (f->nls == cap) {
			cap *= 2;
			f->ls = xrealloc(f->ls, cap * sizeof *f->ls);
		}
		f->ls[f->nls++] = i + 1;
	}
	free(own);
}

static unsigned long line_of(const struct cs_model *m, size_t file, size_t off)
{
	struct cs_file *f = &P(m)->files[file];
	if (!f->ls)
		file_lines(m, f);
	return (unsigned long)last_le(f->ls, f->nls, off) + 1;
}

struct cs_loc loc_of(const struct cs_model *m, size_t file, size_t off)
{
	struct cs_loc l;
	l.file = P(m)->files[file].rel;
	l.line = line_of(m, file, off);
	return l;
}

/* ---------------- files ---------------- */


/* Folders whose code serves other devices only (cppmodel.h). */
static const char *const device_folders[] = {"cuda", "hip", "miopen", "cudnn",
                                             "mps", "xpu", "vulkan", "metal",
                                             "mtia", "hpu", NULL};

/* ---------------- preprocessor lines and macros ---------------- */

static const struct cs_macro *find_macro(const struct cs_priv *p, size_t file,
                                      const char *s, size_t n)
{
	const struct cs_ilist *l;
	const struct cs_macro *hdr = NULL;
	size_t i;
	if (!p->macfirst[(unsigned char)s[0]])
		return NULL;
	l = imap_get(&p->macros, s, n);
	if (!l)
		return NULL;
	for (i = 0; i < l->n; i++) {
		const struct cs_macro *mc = &p->mac[l->v[i]];
		if (mc->file == file)
			return mc;
		/* an added file's macros are seen by added files only */
		if (!hdr && p->files[mc->file].header &&
		    (!p->files[mc->file].added || p->files[file].added))
			hdr = mc;
	}
	return hdr;
}

/* "#define NAME(params) body" spanning c[a, b): keep it as a macro of file
 * (the first definition of a name in a file wins). */
static void take_define(struct cs_priv *p, size_t file, const char *c, size_t a,
                        size_t b)
{
	size_t ns, ne, open, close, k;
	struct cs_macro *mc;
	const struct cs_ilist *l;

	if (!lex_define_head(c, a, b, &ns, &ne, &open, &close))
		return;
	l = imap_get(&p->macros, c + ns, ne - ns);
	if (l)
		for (k = 0; k < l->n; k++)
			if (p->mac[l->v[k]].file == file)
				return;
	GROW(p->mac, p->nmac, p->cap_mac);
	mc = &p->mac[p->nmac];
	lex_define_take(c, b, ns, ne, open, close, &mc->m);
	mc->file = file;
	imap_add(&p->macros, mc->m.name, strlen(mc->m.name), (long)p->nmac);
	p->macfirst[(unsigned char)mc->m.name[0]] = 1;
	p->nmac++;
}

/* The net count of '{' minus '}' in c[a, b) (literals skipped). */
static long brace_net(const char *c, size_t a, size_t b)
{
	long net = 0;
	while (a < b) {
		if (c[a] == '"' || c[a] == '\'') {
			a = lex_skip_literal(c, b, a);
			continue;
		}
		if (c[a] == '{')
			net++;
		else if (c[a] == '}')
			net--;
		a++;
	}
	return net;
}

/* The same count from the braces the masking pass listed (br, sorted):
 * those in [a, b) that are still braces.  Without literal edges the
 * masking pass and lex_skip_literal agree on every literal (none spans a line),
 * and a and b are line starts, so the two counts are equal. */
static long brace_net_listed(const char *c, const struct mask_braces *br,
                             size_t a, size_t b)
{
	size_t lo = 0, hi = br->n;
	long net = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (br->pos[mid] < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < br->n && br->pos[lo] < b; lo++) {
		if (c[br->pos[lo]] == '{')
			net++;
		else if (c[br->pos[lo]] == '}')
			net--;
	}
	return net;
}

/* Blank c[a, b) but its newlines: a line at a time. */
static void blank_span(char *c, size_t a, size_t b)
{
	while (a < b) {
		const char *nl = memchr(c + a, '\n', b - a);
		size_t e = nl ? (size_t)(nl - c) : b;
		memset(c + a, ' ', e - a);
		a = e + 1;
	}
}

/* A conditional group being read: where its branches start. */
struct cgroup {
	size_t *br;      /* start of each branch (after its directive line) */
	size_t *bd;      /* start of the directive line that ends it */
	size_t n, cap;
};

/* Blank every preprocessor directive of c (in place), taking #defines
 * first.  A directive runs to the end of its line and its continuation
 * lines.  Conditional groups (#if.. #elif/#else .. #endif) keep all their
 * branches, except when a branch opens or closes more braces than it
 * closes or opens (a function header written twice, `if constexpr (x) {`
 * against `if (x) {`): then only the first branch is kept, so that the
 * braces of the file still pair up.  br: the braces the masking pass
 * listed, to count a branch's braces without reading it (NULL: read).
 * TAKE: keep the #defines (loading); 0 when a query makes the text again. */
static void directives(struct cs_priv *p, size_t file, char *c, size_t n,
                       const struct mask_braces *br, int take)
{
	size_t i = 0, ng = 0, capg = 0, k;
	struct cgroup *g = NULL;
	while (i < n) {
		/* the next '#' that only blanks precede on its line: j; i its
		 * line's start (the walk back stops at the newline, or at the
		 * '#' or newline that ended the previous step) */
		const char *h = memchr(c + i, '#', n - i);
		size_t j, e;
		if (!h)
			break;
		j = (size_t)(h - c);
		e = j;
		while (e > 0 && (c[e - 1] == ' ' || c[e - 1] == '\t' ||
		                 c[e - 1] == '\r' || c[e - 1] == '\f' ||
		                 c[e - 1] == '\v'))
			e--;
		if (e > 0 && c[e - 1] != '\n') {
			i = j + 1;
			continue;
		}
		i = e;
		{
			size_t w, we;
			e = lex_directive_end(c, n, j);
			if (take)
				take_define(p, file, c, j, e);
			w = lex_skip_ws(c, e, j + 1);
			we = lex_ident_end(c, e, w);
			if (lex_span_is(c + w, we - w, "if") || lex_span_is(c + w, we - w, "ifdef") ||
			    lex_span_is(c + w, we - w, "ifndef")) {
				GROW(g, ng, capg);
				memset(&g[ng], 0, sizeof g[ng]);
				GROW(g[ng].br, g[ng].n, g[ng].cap);
				g[ng].bd = xrealloc(g[ng].bd, g[ng].cap * sizeof *g[ng].bd);
				g[ng].br[g[ng].n] = e;
				g[ng].bd[g[ng].n++] = NOSZ;
				ng++;
			} else if (ng && (lex_span_is(c + w, we - w, "else") ||
			                  lex_starts_with(c + w, we - w, "elif"))) {
				struct cgroup *t = &g[ng - 1];
				t->bd[t->n - 1] = i;
				GROW(t->br, t->n, t->cap);
				t->bd = xrealloc(t->bd, t->cap * sizeof *t->bd);
				t->br[t->n] = e;
				t->bd[t->n++] = NOSZ;
			} else if (ng && lex_span_is(c + w, we - w, "endif")) {
				struct cgroup *t = &g[ng - 1];
				int uneven = 0;
				t->bd[t->n - 1] = i;
				if (t->n > 1)
					for (k = 0; k < t->n; k++)
						if ((br ? brace_net_listed(c, br, t->br[k], t->bd[k])
						        : brace_net(c, t->br[k], t->bd[k])) != 0)
							uneven = 1;
				if (uneven)
					for (k = 1; k < t->n; k++)
						blank_span(c, t->br[k], t->bd[k]);
				free(t->br);
				free(t->bd);
				ng--;
			}
			blank_span(c, j, e);
		}
		i = e < n ? e + 1 : n;
	}
	for (k = 0; k < ng; k++) {
		free(g[k].br);
		free(g[k].bd);
	}
	free(g);
}

/* ---------------- namespace-level structure ---------------- */

/* the quotes, the braces, and the NUL after the text */
static const unsigned char stop_pair[256] = {
	['"'] = 1, ['\''] = 1, ['{'] = 1, ['}'] = 1, ['\0'] = 1};

/* t[n] must be readable and NUL (the texts are: masked files, macro
 * expansions); it ends the scan without a bound check per byte. */
void cs_pairs_build(struct cs_pairs *bp, const char *t, size_t n)
{
	size_t *st = NULL, nst = 0, cst = 0;
	size_t i = 0;
	memset(bp, 0, sizeof *bp);
	for (;;) {
		char c;
		i = lex_next_stop(t, i, stop_pair);
		if (i >= n)
			break;
		c = t[i];
		if (c == '"' || c == '\'') {
			i = lex_skip_literal(t, n, i);
			continue;
		}
		if (c == '{') {
			GROW2(bp->open, bp->close, bp->n, bp->cap);
			bp->open[bp->n] = i;
			bp->close[bp->n] = NOSZ;
			GROW(st, nst, cst);
			st[nst++] = bp->n++;
		} else if (c == '}' && nst) {
			bp->close[st[--nst]] = i;
		}
		i++;
	}
	free(st);
}

/* The same table from the braces the masking pass listed (scan.h
 * mask_code_in_place): those the preprocessor lines did not blank since.
 * Without literal edges (br->edge 0) the masking pass and lex_skip_literal agree
 * on every literal's extent, so these are the braces pairs_build meets:
 * the text is not read a second time. */
void cs_pairs_from(struct cs_pairs *bp, const char *t,
                       const struct mask_braces *br)
{
	size_t *st = NULL, nst = 0, cst = 0, k;
	memset(bp, 0, sizeof *bp);
	for (k = 0; k < br->n; k++) {
		size_t i = br->pos[k];
		if (t[i] == '{') {
			GROW2(bp->open, bp->close, bp->n, bp->cap);
			bp->open[bp->n] = i;
			bp->close[bp->n] = NOSZ;
			GROW(st, nst, cst);
			st[nst++] = bp->n++;
		} else if (t[i] == '}' && nst) {
			bp->close[st[--nst]] = i;
		}
	}
	free(st);
}

void cs_pairs_free(struct cs_pairs *bp)
{
	free(bp->open);
	free(bp->close);
	memset(bp, 0, sizeof *bp);
}

/* The '}' closing the '{' at i, as lex_match_close(t, to, i, '{', '}') would
 * find it; NOSZ when i is not in the table. */
static size_t pairs_close(struct cs_pairs *bp, size_t i, size_t to)
{
	size_t k = bp->hint, c;
	if (!(k < bp->n && bp->open[k] == i)) {
		size_t lo = 0, hi = bp->n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (bp->open[mid] < i)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo >= bp->n || bp->open[lo] != i)
			return NOSZ;
		k = lo;
	}
	bp->hint = k + 1;
	c = bp->close[k];
	return c != NOSZ && c < to ? c : to;
}

/* lex_match_close(u->t, to, i, ..) for the '{' or '(' at u->t[i]: braces
 * from the unit's pairs */
static size_t unit_close(struct cs_unit *u, size_t i, size_t to)
{
	size_t c;
	if (u->t[i] == '(')
		return lex_match_close(u->t, to, i, '(', ')');
	c = pairs_close(&u->bp, i, to);
	return c != NOSZ ? c : lex_match_close(u->t, to, i, '{', '}');
}

static size_t unit_off(const struct cs_unit *u, size_t off)
{
	return u->inv == NOSZ ? off : u->inv;
}

/* the stub registration and declaration macros (DispatchStub.h) */
enum { R_NONE = 0, R_REG, R_REG_ARCH, R_REG_NONE, R_DECL, R_DEFINE, R_DEVICE };

static int reg_macro(const char *s, size_t n)
{
	static const struct {
		const char *name;
		int kind;
	} macros[] = {
	    {"REGISTER_DISPATCH", R_REG}, {"ALSO_REGISTER_AVX512_DISPATCH", R_REG},
	    {"ALSO_REGISTER_SVE256_DISPATCH", R_REG},
	    {"REGISTER_ALL_CPU_DISPATCH", R_REG}, {"REGISTER_AVX512_DISPATCH", R_REG},
	    {"REGISTER_AVX2_DISPATCH", R_REG}, {"REGISTER_VSX_DISPATCH", R_REG},
	    {"REGISTER_ZVECTOR_DISPATCH", R_REG}, {"REGISTER_SVE256_DISPATCH", R_REG},
	    {"REGISTER_ARCH_DISPATCH", R_REG_ARCH},
	    {"REGISTER_NO_CPU_DISPATCH", R_REG_NONE},
	    {"DECLARE_DISPATCH", R_DECL}, {"DEFINE_DISPATCH", R_DEFINE},
	    {"REGISTER_CUDA_DISPATCH", R_DEVICE}, {"REGISTER_HIP_DISPATCH", R_DEVICE},
	    {"REGISTER_MPS_DISPATCH", R_DEVICE}, {"REGISTER_XPU_DISPATCH", R_DEVICE},
	    {"REGISTER_MTIA_DISPATCH", R_DEVICE},
	    {"REGISTER_PRIVATEUSE1_DISPATCH", R_DEVICE}, {NULL, R_NONE}};
	size_t k;
	if (n < 15 || (s[0] != 'R' && s[0] != 'A' && s[0] != 'D'))
		return R_NONE;
	for (k = 0; macros[k].name; k++)
		if (lex_span_is(s, n, macros[k].name))
			return macros[k].kind;
	return R_NONE;
}

/* The last name of a possibly qualified, '&'-prefixed expression with
 * template arguments: "&CPU_CAPABILITY::f<x>" → "f"; NULL for nullptr,
 * NULL, 0 or nothing. */
static char *fn_name(const char *s)
{
	size_t n = strlen(s), e, b;
	/* drop trailing template arguments */
	while (n > 0 && lex_sp(s[n - 1]))
		n--;
	if (n > 0 && s[n - 1] == '>')
		n = lex_angle_open(s, 0, n);
	e = n;
	while (e > 0 && lex_sp(s[e - 1]))
		e--;
	b = e;
	while (b > 0 && lex_idc(s[b - 1]))
		b--;
	if (b == e || !lex_id0(s[b]) || lex_span_is(s + b, e - b, "nullptr") ||
	    lex_span_is(s + b, e - b, "NULL"))
		return NULL;
	return xstrndup(s + b, e - b);
}

static void record_macro_event(struct cs_model *m, struct cs_unit *u, int kind,
                               const char *name, size_t nn, char **args,
                               size_t na, size_t at)
{
	struct cs_priv *p = P(m);
	char *stub;
	if (kind == R_DEVICE || na == 0 || p->files[u->file].added)
		return; /* added files register nothing the readers ask about */
	if (kind == R_DECL || kind == R_DEFINE) {
		const char *a = kind == R_DECL ? (na >= 2 ? args[na - 1] : NULL)
		                               : args[0];
		if (!a || !(stub = fn_name(a)))
			return;
		if (kind == R_DECL) {
			GROW(p->decls, p->ndecls, p->cap_decls);
			p->decls[p->ndecls].file = u->file;
			p->decls[p->ndecls].at = unit_off(u, at);
			imap_add(&p->declname, stub, strlen(stub), (long)p->ndecls);
			p->ndecls++;
			m->ndecls++;
		} else {
			imap_add(&p->defined, stub, strlen(stub), (long)u->file);
		}
		free(stub);
		return;
	}
	stub = fn_name(args[0]);
	if (!stub)
		return;
	{
		struct cs_reg *r;
		char *fn = kind == R_REG_NONE ? NULL
		           : kind == R_REG_ARCH ? (na >= 3 ? fn_name(args[2]) : NULL)
		                                : (na >= 2 ? fn_name(args[1]) : NULL);
		GROW(p->regs, m->nregs, p->cap_regs);
		r = &p->regs[m->nregs];
		r->stub = pool_strdup(&p->pool, stub);
		r->fn = fn ? pool_strdup(&p->pool, fn) : NULL;
		r->macro = u->outer ? pool_strdup(&p->pool, u->outer)
		                    : pool_strndup(&p->pool, name, nn);
		r->file = u->file;
		r->at = unit_off(u, at);
		imap_add(&p->regname, stub, strlen(stub), (long)m->nregs);
		free(stub);
		free(fn);
		m->nregs++;
	}
}


/* Skip `template <...>` prefixes at t[i]. */
static size_t skip_template_prefix(const char *t, size_t n, size_t i)
{
	for (;;) {
		size_t k;
		i = lex_skip_ws(t, n, i);
		if (!lex_word_at(t, n, i, "template"))
			return i;
		k = lex_skip_ws(t, n, i + 8);
		if (k >= n || t[k] != '<')
			return i;
		{
			long depth = 0;
			while (k < n) {
				char c = t[k];
				if (c == '(') {
					k = lex_match_close(t, n, k, '(', ')');
					if (k >= n)
						return n;
				} else if (c == '<')
					depth++;
				else if (c == '>' && --depth == 0)
					break;
				k++;
			}
			if (k >= n)
				return n;
			i = k + 1;
		}
	}
}

/* The '(' matching the ')' at t[close], searching back to lo; NOSZ when
 * none. */
static size_t open_of(const char *t, size_t lo, size_t close)
{
	long depth = 0;
	size_t k = close;
	for (;;) {
		if (t[k] == ')')
			depth++;
		else if (t[k] == '(' && --depth == 0)
			return k;
		if (k == lo)
			return NOSZ;
		k--;
	}
}

/* A parenthesized group read by parse_scope: '(' at open, ')' at close;
 * plain: no quote between them, so that counting parentheses back from
 * close without skipping literals (open_of) reaches open. */
struct group {
	size_t open, close;
	int plain;
};

/* Strip what may follow a function's parameter list before its body:
 * const, noexcept(...), override, final, mutable, attributes spelled
 * __x__ or [[x]], `-> type`.  Returns the new end; *open is the '('
 * matching the ')' the end then follows (open_of's answer, found on the
 * way), NOSZ when the end does not follow a ')' or none matches it. */
static size_t strip_tail(const char *t, size_t i, size_t e,
                         const struct group *last, size_t *open)
{
	*open = NOSZ;
	for (;;) {
		e = lex_back_ws(t, i, e);
		if (e > i && lex_idc(t[e - 1])) {
			size_t s = e;
			while (s > i && lex_idc(t[s - 1]))
				s--;
			if (lex_span_is(t + s, e - s, "const") ||
			    lex_span_is(t + s, e - s, "override") ||
			    lex_span_is(t + s, e - s, "final") ||
			    lex_span_is(t + s, e - s, "noexcept") ||
			    lex_span_is(t + s, e - s, "mutable") ||
			    lex_span_is(t + s, e - s, "volatile") ||
			    (e - s > 4 && t[s] == '_' && t[s + 1] == '_' &&
			     t[e - 1] == '_' && t[e - 2] == '_')) {
				e = s;
				continue;
			}
			break;
		}
		if (e >= i + 2 && t[e - 1] == ']' && t[e - 2] == ']') {
			size_t k = e - 2;
			while (k > i + 1 && !(t[k - 1] == '[' && t[k - 2] == '['))
				k--;
			if (k > i + 1) {
				e = k - 2;
				continue;
			}
			break;
		}
		if (e > i && t[e - 1] == ')') {
			/* noexcept(...) / throw(...) */
			size_t o, w;
			if (last && last->close == e - 1 && last->plain && last->open >= i)
				o = last->open; /* what open_of finds */
			else
				o = open_of(t, i, e - 1);
			if (o == NOSZ)
				break;
			*open = o;
			w = lex_back_ws(t, i, o);
			if (w >= i + 8 && lex_word_at(t, e, w - 8, "noexcept")) {
				e = w - 8;
				*open = NOSZ;
				continue;
			}
			if (w >= i + 5 && lex_word_at(t, e, w - 5, "throw")) {
				e = w - 5;
				*open = NOSZ;
				continue;
			}
		}
		break;
	}
	return e;
}


static const unsigned char head_stop[256] = {
	['"'] = 1, ['\''] = 1, ['('] = 1, [')'] = 1, ['-'] = 1, ['='] = 1,
	['{'] = 1};

/* Classify the text t[hs, brace) before the '{' at t[brace], at namespace
 * or struct level. */
static int classify(const char *t, size_t hs, size_t brace,
                    const struct group *last, struct cs_header *h)
{
	size_t i, k, e, close, open, w;
	long depth = 0;
	int has_paren = 0, quoted = 0;
	size_t arrow = NOSZ;

	memset(h, 0, sizeof *h);
	i = skip_blanks(t, brace, hs);
	if (i >= brace)
		return CS_H_SKIP;
	/* namespace: `[inline] namespace [a::b] {`, also after stray text */
	{
		size_t j = lex_back_ws(t, i, brace), s = j;
		while (s > i && (lex_idc(t[s - 1]) || t[s - 1] == ':' || lex_sp(t[s - 1])))
			s--;
		for (k = s; k < j; k++)
			if (lex_word_at(t, j, k, "namespace")) {
				size_t a = lex_skip_ws(t, j, k + 9);
				for (w = a; w < j; w++)
					if (!(lex_idc(t[w]) || t[w] == ':' || lex_sp(t[w])))
						break;
				if (w == j) {
					h->ns = a;
					h->ne = j;
					return CS_H_SCOPE_NS;
				}
			}
	}
	if (lex_word_at(t, brace, i, "extern")) {
		k = lex_skip_ws(t, brace, i + 6);
		if (k < brace && t[k] == '"')
			return CS_H_SCOPE_EXTERN;
	}
	/* `extern "C" {` / `extern "C++" {` after a stray token */
	{
		size_t e = lex_back_ws(t, i, brace);
		if (e > i && t[e - 1] == '"') {
			k = e - 1;
			while (k > i && t[k - 1] != '"' && t[k - 1] != '\n')
				k--;
			if (k > i && t[k - 1] == '"') {
				k = lex_back_ws(t, i, k - 1);
				if (k >= i + 6 && lex_word_at(t, brace, k - 6, "extern"))
					return CS_H_SCOPE_EXTERN;
			}
		}
	}
	i = skip_template_prefix(t, brace, i);
	if (i >= brace)
		return CS_H_SKIP;
	/* one walk finds a top-level '=' (not a function) and the first
	 * `->` at paren depth 0 (a trailing return type, read below); only
	 * the bytes of head_stop matter, and t[brace] is one of them */
	for (k = i; k < brace; k++) {
		char c;
		k = lex_next_stop(t, k, head_stop);
		if (k >= brace)
			break;
		c = t[k];
		if (c == '"' || c == '\'') {
			if (arrow == NOSZ)
				quoted = 1;
			k = lex_skip_literal(t, brace, k) - 1;
			continue;
		}
		if (c == '(') {
			depth++;
			has_paren = 1;
		} else if (c == ')') {
			depth--;
		} else if (c == '-' && depth == 0 && arrow == NOSZ && k + 1 < brace &&
		           t[k + 1] == '>') {
			arrow = k;
		} else if (c == '=' && depth == 0) {
			char pc = k > i ? t[k - 1] : ' ';
			char nc = k + 1 < brace ? t[k + 1] : ' ';
			size_t b = lex_back_ws(t, i, k);
			if (nc == '=' || pc == '=' || pc == '!' || pc == '<' ||
			    pc == '>')
				continue;
			if (b >= i + 8 && lex_word_at(t, brace, b - 8, "operator"))
				continue;
			return CS_H_SKIP; /* an initializer or a lambda */
		}
	}
	if (!has_paren) {
		/* struct / class / union NAME [final] [: bases] */
		for (k = i; k < brace; k++) {
			size_t kw = 0;
			/* the keywords start a word: only word starts are tried,
			 * and a word that is none of them is passed at once */
			if (!lex_id0(t[k]) || (k > 0 && lex_idc(t[k - 1])))
				continue;
			if (lex_word_at(t, brace, k, "struct"))
				kw = 6;
			else if (lex_word_at(t, brace, k, "class"))
				kw = 5;
			else if (lex_word_at(t, brace, k, "union"))
				kw = 5;
			if (kw) {
				size_t a = k + kw, last_s = 0, last_e = 0;
				for (;;) {
					a = lex_skip_ws(t, brace, a);
					if (a < brace && t[a] == '[') { /* [[attr]] */
						a = lex_match_close(t, brace, a, '[', ']') + 1;
						continue;
					}
					if (a < brace && lex_id0(t[a])) {
						size_t b2 = lex_ident_end(t, brace, a);
						if (!lex_span_is(t + a, b2 - a, "final")) {
							last_s = a;
							last_e = b2;
						}
						a = b2;
						if (a < brace && t[a] == '(') /* ALIGN(x) */
							a = lex_match_close(t, brace, a, '(', ')') + 1;
						continue;
					}
					break;
				}
				if (!last_e)
					return CS_H_SKIP;
				h->ns = last_s;
				h->ne = last_e;
				return CS_H_SCOPE_STRUCT;
			}
			k = lex_ident_end(t, brace, k) - 1;
		}
		return CS_H_SKIP;
	}
	/* a trailing return type `-> T` at paren depth 0, literals not
	 * skipped: the walk above found it unless a literal came first */
	e = arrow == NOSZ ? brace : arrow;
	if (quoted) {
		e = brace;
		depth = 0;
		for (k = i; k + 1 < brace; k++) {
			if (t[k] == '(')
				depth++;
			else if (t[k] == ')')
				depth--;
			else if (depth == 0 && t[k] == '-' && t[k + 1] == '>') {
				e = k;
				break;
			}
		}
	}
	e = strip_tail(t, i, e, last, &open);
	if (e <= i || t[e - 1] != ')')
		return CS_H_SKIP;
	close = e - 1;
	if (open == NOSZ)
		return CS_H_SKIP;
	h->ps = open;
	h->pe = close;
	k = lex_back_ws(t, i, open);
	if (k > i && t[k - 1] == ')') {
		/* MACRO(name[, overload])(params), or operator()(params) */
		size_t c2 = k - 1, o2 = open_of(t, i, c2), s, q, mb, me;
		if (o2 == NOSZ)
			return CS_H_SKIP;
		s = lex_skip_ws(t, c2, o2 + 1);
		me = lex_back_ws(t, i, o2);
		mb = me;
		while (mb > i && lex_idc(t[mb - 1]))
			mb--;
		if (s == c2) {
			if (lex_span_is(t + mb, me - mb, "operator")) {
				h->ns = mb;
				h->ne = me;
				h->op_call = 1;
				goto qualifier;
			}
			return CS_H_SKIP;
		}
		q = lex_ident_end(t, c2, s);
		if (q == s || !lex_id0(t[s]) || mb == me)
			return CS_H_SKIP;
		h->ms = mb;
		h->me = me;
		h->ns = s;
		h->ne = q;
		q = lex_skip_ws(t, c2, q);
		if (q < c2 && t[q] == ',') {
			size_t a = lex_skip_ws(t, c2, q + 1), b2 = lex_ident_end(t, c2, a);
			if (b2 == a || lex_skip_ws(t, c2, b2) != c2)
				return CS_H_SKIP;
			h->os = a;
			h->oe = b2;
		} else if (q != c2) {
			return CS_H_SKIP;
		}
		return CS_H_FUNC;
	}
	if (k > i && t[k - 1] == '>') {
		/* an explicit specialization: name<args>(params) */
		size_t x = lex_angle_open(t, i, k);
		if (x > i)
			k = lex_back_ws(t, i, x);
	}
	if (k > i && lex_idc(t[k - 1])) {
		size_t s = k;
		while (s > i && lex_idc(t[s - 1]))
			s--;
		if (!lex_id0(t[s]) || lex_is_keyword(t + s, k - s))
			return CS_H_SKIP;
		if (s > i && t[s - 1] == '~')
			return CS_H_SKIP; /* a destructor */
		h->ns = s;
		h->ne = k;
		goto qualifier;
	}
	/* operator+ (...) and friends */
	{
		size_t s = k;
		while (s > i && strchr("+-*/%^&|!=<>[]", t[s - 1]))
			s--;
		s = lex_back_ws(t, i, s);
		if (s >= i + 8 && lex_word_at(t, k, s - 8, "operator") && s != k) {
			h->ns = s - 8;
			h->ne = s;
			goto qualifier;
		}
	}
	return CS_H_SKIP;
qualifier:
	for (k = i; k < h->ns; k++)
		if (t[k] == 's' && lex_word_at(t, h->ns, k, "static")) {
			h->is_static = 1;
			break;
		}
	/* Owner::name, Owner<T>::name */
	w = lex_back_ws(t, i, h->ns);
	if (w >= i + 2 && t[w - 1] == ':' && t[w - 2] == ':') {
		size_t qe = lex_back_ws(t, i, w - 2), qs;
		if (qe > i && t[qe - 1] == '>')
			qe = lex_back_ws(t, i, lex_angle_open(t, i, qe));
		qs = qe;
		while (qs > i && lex_idc(t[qs - 1]))
			qs--;
		if (qs < qe) {
			h->qs = qs;
			h->qe = qe;
		}
	}
	return CS_H_FUNC;
}

static const char *const ANON = "(anonymous)";

static char *ns_join(const char *ns, const char *t, size_t a, size_t b)
{
	struct buf o;
	size_t i = a;
	buf_init(&o);
	buf_puts(&o, ns);
	if (a >= b) {
		if (o.len)
			buf_puts(&o, "::");
		buf_puts(&o, ANON);
		return o.data;
	}
	while (i < b) {
		size_t s, e;
		i = lex_skip_ws(t, b, i);
		while (i < b && (t[i] == ':' || lex_sp(t[i])))
			i++;
		s = i;
		e = lex_ident_end(t, b, i);
		if (e == s)
			break;
		if (!lex_span_is(t + s, e - s, "inline")) {
			if (o.len)
				buf_puts(&o, "::");
			buf_add(&o, t + s, e - s);
		}
		i = e;
	}
	return o.data ? o.data : xstrdup("");
}

static void add_def(struct cs_model *m, struct cs_unit *u, const struct cs_header *h,
                    size_t brace, size_t close, const char *ns,
                    const char *owner)
{
	struct cs_priv *p = P(m);
	struct cs_def *d;
	const char *t = u->t;
	size_t idx = m->ndefs;
	const char *mac = h->me > h->ms ? t + h->ms : NULL;
	size_t ml = h->me - h->ms;

	GROW(p->defs, m->ndefs, p->cap_defs);
	d = &p->defs[idx];
	memset(d, 0, sizeof *d);
	if (h->op_call)
		d->name = pool_strdup(&p->pool, "operator()");
	else
		d->name = pool_strndup(&p->pool, t + h->ns, h->ne - h->ns);
	if (h->qe > h->qs)
		d->owner = pool_strndup(&p->pool, t + h->qs, h->qe - h->qs);
	else if (owner)
		d->owner = pool_strdup(&p->pool, owner);
	d->ns = ns;
	d->kind = D_FN;
	d->is_static = h->is_static || strstr(ns, ANON) != NULL;
	if (mac) {
		d->hmacro = pool_strndup(&p->pool, mac, ml);
		if (lex_span_is(mac, ml, "TORCH_IMPL_FUNC"))
			d->kind = D_IMPL;
		else if (lex_span_is(mac, ml, "TORCH_META_FUNC") ||
		         lex_span_is(mac, ml, "TORCH_META_FUNC2") ||
		         lex_span_is(mac, ml, "TORCH_PRECOMPUTE_META_FUNC") ||
		         lex_span_is(mac, ml, "TORCH_PRECOMPUTE_META_FUNC2"))
			d->kind = D_META;
	}
	if (h->oe > h->os)
		d->overload = pool_strndup(&p->pool, t + h->os, h->oe - h->os);
	d->wmacro = u->outer ? pool_strdup(&p->pool, u->outer) : NULL;
	d->file = u->file;
	d->t = u->inv == NOSZ ? NULL : t;
	d->tn = u->n;
	d->bs = brace;
	d->be = close;
	d->ps = h->ps;
	d->pe = h->pe;
	d->inv = u->inv;
	d->at = unit_off(u, h->ns);
	m->ndefs++;
	if (p->files[u->file].added) {
		/* cs_find_defs' alone: the readers never see them */
		imap_add(&p->addname, d->name, strlen(d->name), (long)idx);
		return;
	}
	if (d->kind == D_META) {
		if (d->overload) {
			char *key = xasprintf("%s_%s", d->name, d->overload);
			imap_add(&p->metas, key, strlen(key), (long)idx);
			imap_add(&p->metabase, d->name, strlen(d->name), (long)idx);
			free(key);
		} else {
			imap_add(&p->metas, d->name, strlen(d->name), (long)idx);
		}
		m->nmetas++;
	} else {
		imap_add(&p->defname, d->name, strlen(d->name), (long)idx);
	}
	if (d->owner)
		imap_add(&p->owners, d->owner, strlen(d->owner), (long)idx);
}

void cs_parse_scope(struct cs_unit *u, size_t from, size_t to,
                    const void *scope)
{
	const char *t = u->t;
	size_t i = from, hs = from;
	struct group last = {NOSZ, NOSZ, 0};

	while (i < to) {
		char c = t[i];
		unsigned char k = lex_cls[(unsigned char)c];
		if (!scope_stop[(unsigned char)c]) {
			/* blank runs (comments and preprocessor lines blanked)
			 * are long at namespace level */
			i = lex_sp(c) ? skip_blanks(t, to, i) : i + 1;
			continue;
		}
		if (c >= '0' && c <= '9') {
			i = lex_ident_end(t, to, i);
			continue;
		}
		if (k & LEX_QUOTE) {
			i = lex_skip_literal(t, to, i);
			continue;
		}
		if (k & LEX_ID0) {
			size_t e = lex_ident_end(t, to, i), q, r;
			if (i > from && lex_idc(t[i - 1])) {
				i = e;
				continue;
			}
			q = lex_skip_ws(t, to, e);
			if (q < to && t[q] == '(' &&
			    (r = u->ops->call(u, i, e, q, to, skip_blanks(t, i, hs) == i,
			                      scope)) != 0) {
				i = hs = r;
				continue;
			}
			i = e;
			continue;
		}
		if (c == '(') {
			size_t close = unit_close(u, i, to);
			if (close < to) {
				/* the last group before a '{' is most often the
				 * parameter list classify looks for */
				last.open = i;
				last.close = close;
				last.plain = !memchr(t + i, '"', close - i) &&
				             !memchr(t + i, '\'', close - i);
			}
			i = close < to ? close + 1 : to;
			continue;
		}
		if (c == ';' || c == '}') {
			hs = i + 1;
			i++;
			continue;
		}
		/* c == '{' */
		{
			struct cs_header h;
			size_t close = unit_close(u, i, to);
			int kind = classify(t, hs, i, &last, &h);
			size_t end = close < to ? close : to;
			if (kind != CS_H_SKIP) {
				const void *in = u->ops->brace(u, kind, &h, hs, i, end, scope);
				if (kind != CS_H_FUNC)
					cs_parse_scope(u, i + 1, end, in);
			}
			i = close < to ? close + 1 : to;
			hs = i;
		}
	}
}

/* ---- the model's side of the parse: what the parser meets ---- */

/* The scope a definition is in: its namespace (interned) and the struct
 * holding it (NULL at namespace level), both in the model's pool. */
struct mscope {
	const char *ns;
	const char *owner;
};

static const struct cs_parse_ops model_ops;

/* Expand the call of mc at u->t[a] ('(' at open, ')' at close) and parse
 * the expansion as code written there; the expansion is kept (the defs it
 * holds point into it). */
static void expand_scope_call(struct cs_model *m, struct cs_unit *u,
                              const struct cs_macro *mc, size_t a, size_t open,
                              size_t close, const struct mscope *sc)
{
	struct cs_priv *p = P(m);
	struct cs_unit c;
	char **args, *x;
	size_t na;
	int k;

	if (u->depth >= MAX_MDEPTH)
		return;
	for (k = 0; k < u->depth; k++)
		if (strcmp(u->stack[k], mc->m.name) == 0)
			return;
	args = lex_split_args(u->t, open, close, &na);
	x = lex_expand(&mc->m, args, na);
	lex_strv_free(args, na);
	x = xrealloc(x, strlen(x) + 1); /* kept: not its buffer's slack */
	GROW(p->exps, p->nexps, p->cap_exps);
	p->exps[p->nexps++] = x;
	memset(&c, 0, sizeof c);
	c.t = x;
	c.n = strlen(x);
	c.file = u->file;
	c.inv = unit_off(u, a);
	c.depth = u->depth + 1;
	memcpy(c.stack, u->stack, sizeof c.stack);
	c.stack[u->depth] = mc->m.name;
	c.outer = u->outer ? u->outer : mc->m.name;
	c.ops = &model_ops;
	c.ctx = m;
	cs_pairs_build(&c.bp, c.t, c.n);
	cs_parse_scope(&c, 0, c.n, sc);
	cs_pairs_free(&c.bp);
}

/* A call at scope level: a stub registration or declaration macro
 * (recorded), or at the start of a header a file-local macro (expanded,
 * unless it begins a header itself: MACRO(x)(params) { or MACRO(x) {,
 * which are read as written). */
static size_t model_call(struct cs_unit *u, size_t i, size_t e, size_t q,
                         size_t to, int at_head, const void *scope)
{
	struct cs_model *m = u->ctx;
	struct cs_priv *p = P(m);
	const char *t = u->t;
	const struct cs_macro *mc;
	int rk = reg_macro(t + i, e - i);
	if (rk != R_NONE) {
		size_t close = unit_close(u, q, to);
		if (close < to) {
			char **args;
			size_t na;
			args = lex_split_args(t, q, close, &na);
			record_macro_event(m, u, rk, t + i, e - i, args, na, i);
			lex_strv_free(args, na);
			return close + 1;
		}
	} else if (at_head && (mc = find_macro(p, u->file, t + i, e - i))) {
		size_t close = unit_close(u, q, to), nx;
		nx = close < to ? lex_skip_ws(t, to, close + 1) : to;
		if (close < to && (nx >= to || (t[nx] != '(' && t[nx] != '{'))) {
			expand_scope_call(m, u, mc, i, q, close, scope);
			i = lex_skip_ws(t, to, close + 1);
			if (i < to && t[i] == ';')
				i++;
			return i;
		}
	}
	return 0;
}

/* A '{' the parser classified: a namespace, extern "C" or struct scope
 * (the scope inside), or a function definition (added). */
static const void *model_brace(struct cs_unit *u, int kind,
                               const struct cs_header *h, size_t hs,
                               size_t brace, size_t close, const void *scope)
{
	struct cs_model *m = u->ctx;
	struct cs_priv *p = P(m);
	const struct mscope *sc = scope;
	struct mscope *in;
	(void)hs;
	if (kind == CS_H_FUNC) {
		add_def(m, u, h, brace, close, sc->ns, sc->owner);
		return NULL;
	}
	if (kind == CS_H_SCOPE_EXTERN)
		return sc;
	in = pool_alloc(&p->pool, sizeof *in);
	if (kind == CS_H_SCOPE_NS) {
		char *nns = ns_join(sc->ns, u->t, h->ns, h->ne);
		in->ns = intern_ns(p, nns);
		in->owner = NULL;
		free(nns);
	} else {
		in->ns = sc->ns;
		in->owner = pool_strndup(&p->pool, u->t + h->ns, h->ne - h->ns);
	}
	return in;
}

static const struct cs_parse_ops model_ops = {model_call, model_brace};

/* ---------------- loading ---------------- */

/* add_entry: file REL (relative to the root) as the model's next file */
static void add_entry(struct cs_model *m, const char *rel, int added)
{
	struct cs_priv *p = P(m);
	struct cs_file *f;

	GROW(p->files, m->nfiles, p->cap_files);
	f = &p->files[m->nfiles++];
	memset(f, 0, sizeof *f);
	f->rel = pool_strdup(&p->pool, rel);
	f->added = added;
	f->header = str_ends_with(rel, ".h") || (added && str_ends_with(rel, ".cuh"));
	f->cpu = !added &&
	         strncmp(rel, CS_NATIVE_REL "/cpu/", strlen(CS_NATIVE_REL "/cpu/")) == 0;
	if (!f->header && !added)
		m->have_sources = 1;
}

/* parse_file: read file IDX into the model.  Its text is read and masked
 * in one buffer used for every file: only the model is kept (cs_def_text
 * reads a file again when a query needs its text).  0, or -1 after the
 * diagnostic of read_source_into. */
static int parse_file(struct cs_model *m, size_t idx, struct mask_braces *br)
{
	struct cs_priv *p = P(m);
	struct cs_file *f = &p->files[idx];
	char *path = path_join(m->root, f->rel), *c;
	size_t len;
	struct cs_unit u;
	int rc = read_source_into(path, &p->scratch, &p->cap_scratch, &len);

	free(path);
	if (rc != 0)
		return -1;
	c = p->scratch;
	f->len = len;
	mask_code_again(c, len, br);
	directives(p, idx, c, len, br->edge ? NULL : br, 1);
	memset(&u, 0, sizeof u);
	u.t = c;
	u.n = len;
	u.file = idx;
	u.inv = NOSZ;
	u.ops = &model_ops;
	u.ctx = m;
	if (br->edge)
		cs_pairs_build(&u.bp, u.t, u.n);
	else
		cs_pairs_from(&u.bp, u.t, br);
	{
		struct mscope top;
		top.ns = intern_ns(p, "");
		top.owner = NULL;
		cs_parse_scope(&u, 0, len, &top);
	}
	cs_pairs_free(&u.bp);
	return 0;
}

const char *cs_file_text(const struct cs_model *m, size_t file)
{
	struct cs_priv *p = P(m);
	struct cs_file *f = &p->files[file];
	struct mask_braces br;
	if (!f->code) {
		/* what parse_file read, made the same way */
		char *path = path_join(m->root, f->rel);
		size_t len;
		if (read_source_file(path, &f->code, &len) != 0 || len != f->len)
			die("error: '%s' changed while it was read", path);
		free(path);
		mask_code_in_place(f->code, f->len, &br);
		directives(p, file, f->code, f->len, br.edge ? NULL : &br, 0);
		mask_braces_free(&br);
	}
	return f->code;
}

const char *cs_def_text(const struct cs_model *m, const struct cs_def *d)
{
	return d->t ? d->t : cs_file_text(m, d->file);
}

int cs_load(struct cs_model *m, const char *root)
{
	static const char *const sufs[] = {".cpp", ".h", NULL};
	struct walk_list files = {NULL, 0, 0};
	struct stat st;
	char *dir;
	size_t i;

	memset(m, 0, sizeof *m);
	m->root = xstrdup(root);
	m->priv = xcalloc(1, sizeof(struct cs_priv));
	{
		struct cs_priv *p = P(m);
		struct cs_imap *maps[] = {&p->macros, &p->defname, &p->owners,
		                       &p->metas, &p->metabase, &p->regname,
		                       &p->declname, &p->defined, &p->addname};
		for (i = 0; i < sizeof maps / sizeof *maps; i++)
			maps[i]->keys.pool = &p->pool;
		p->nsintern.pool = &p->pool;
	}
	dir = xasprintf("%s/%s", root, CS_NATIVE_REL);
	if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		m->have_native = 1;
	free(dir);
	/* the files of the one folder walker (walk.h: regular files, links
	 * to folders not followed), device folders skipped at any depth */
	if (m->have_native &&
	    walk_tree(root, CS_NATIVE_REL, WALK_MAX_DEPTH, NULL, device_folders,
	              sufs, &files) != 0) {
		cs_free(m);
		return -1;
	}
	/* headers first: their macros are known when a .cpp file is parsed */
	for (i = 0; i < files.n; i++)
		if (str_ends_with(files.paths[i], ".h"))
			add_entry(m, files.paths[i], 0);
	for (i = 0; i < files.n; i++)
		if (!str_ends_with(files.paths[i], ".h"))
			add_entry(m, files.paths[i], 0);
	{
		struct cs_priv *p = P(m);
		struct mask_braces br;
		int rc = 0;
		/* one buffer of the largest file's size for every file (one
		 * that grew since the walk grows it) */
		p->cap_scratch = files.largest + 2;
		p->scratch = xmalloc(p->cap_scratch);
		walk_free(&files);
		memset(&br, 0, sizeof br);
		for (i = 0; i < m->nfiles && rc == 0; i++)
			rc = parse_file(m, i, &br);
		mask_braces_free(&br);
		free(p->scratch);
		p->scratch = NULL;
		p->cap_scratch = 0;
		if (rc != 0) {
			cs_free(m);
			return -1;
		}
	}
	return 0;
}

void cs_free(struct cs_model *m)
{
	struct cs_priv *p = P(m);
	size_t i;
	if (p) {
		for (i = 0; i < m->nfiles; i++) {
			free(p->files[i].code);
			free(p->files[i].ls);
		}
		free(p->scratch);
		free(p->files);
		for (i = 0; i < p->nmac; i++)
			lex_macro_free(&p->mac[i].m);
		free(p->mac);
		free(p->defs);
		free(p->regs);
		free(p->decls);
		for (i = 0; i < p->nns; i++)
			free(p->nss[i]);
		free(p->nss);
		for (i = 0; i < p->nexps; i++)
			free(p->exps[i]);
		free(p->exps);
		imap_free(&p->macros);
		imap_free(&p->defname);
		imap_free(&p->owners);
		imap_free(&p->metas);
		imap_free(&p->metabase);
		imap_free(&p->regname);
		imap_free(&p->declname);
		imap_free(&p->defined);
		imap_free(&p->addname);
		smap_free(&p->nsintern);
		pool_free(&p->pool);
		free(p);
	}
	free(m->root);
	memset(m, 0, sizeof *m);
}

/* ---------------- the body walker ---------------- */

void walk_text(struct cs_walker *w, const char *t, size_t tn, size_t a,
                      size_t b, size_t inv, int depth, const char **stack);

/* The macro a call of s[0, n) expands when DEPTH macros (STACK) are
 * being expanded already: one visible from FILE, not among them, and
 * CS_MACRO_DEPTH not reached; NULL when the call expands nothing. */
static const struct cs_macro *expanding(const struct cs_priv *p, size_t file,
                                        const char *s, size_t n, int depth,
                                        const char **stack)
{
	const struct cs_macro *mc;
	int k;
	if (depth >= MAX_MDEPTH || !(mc = find_macro(p, file, s, n)))
		return NULL;
	for (k = 0; k < depth; k++)
		if (strcmp(stack[k], mc->m.name) == 0)
			return NULL;
	return mc;
}

/* The expansion of the call of mc whose parentheses are t[open] and
 * t[close] (malloc'd); st[0, depth] gets STACK with mc pushed. */
static char *expand_with(const struct cs_macro *mc, const char *t, size_t open,
                         size_t close, int depth, const char **stack,
                         const char **st)
{
	char **args, *x;
	size_t na;
	int k;
	for (k = 0; k < depth; k++)
		st[k] = stack[k];
	st[depth] = mc->m.name;
	args = lex_split_args(t, open, close, &na);
	x = lex_expand(&mc->m, args, na);
	lex_strv_free(args, na);
	return x;
}

static void walk_macro(struct cs_walker *w, const struct cs_macro *mc,
                       const char *t, size_t open, size_t close, size_t loc,
                       int depth, const char **stack)
{
	const char *st[MAX_MDEPTH + 1];
	char *x = expand_with(mc, t, open, close, depth, stack, st);
	walk_text(w, x, strlen(x), 0, strlen(x), loc, depth + 1, st);
	free(x);
}

void walk_text(struct cs_walker *w, const char *t, size_t tn, size_t a,
                      size_t b, size_t inv, int depth, const char **stack)
{
	const struct cs_priv *p = P(w->m);
	size_t i = a;
	unsigned long tid = ++w->tids;
	if (b > tn)
		b = tn;
	while (i < b) {
		char c = t[i];
		unsigned char k = lex_cls[(unsigned char)c];
		struct cs_tok tk;
		size_t e, q, j;
		if (k & LEX_QUOTE) {
			i = lex_skip_literal(t, b, i);
			continue;
		}
		if (c >= '0' && c <= '9') {
			i = lex_ident_end(t, b, i);
			continue;
		}
		if (!(k & LEX_ID0)) {
			i++;
			continue;
		}
		e = lex_ident_end(t, b, i);
		memset(&tk, 0, sizeof tk);
		tk.t = t;
		tk.tn = b;
		tk.s = i;
		tk.e = e;
		tk.file = w->file;
		tk.tid = tid;
		tk.loc = inv == NOSZ ? i : inv;
		if (depth == 0)
			w->site = i;
		tk.site = w->site;
		/* the qualifier chain: (ident [<...>] ::)* before i; [qs, qe)
		 * spans it without the last "::" (empty: qs == qe) */
		j = lex_back_ws(t, a, i);
		tk.qs = tk.qe = i;
		{
			size_t qend = NOSZ;
			while (j >= a + 2 && t[j - 1] == ':' && t[j - 2] == ':') {
				size_t c = j - 2, x = lex_back_ws(t, a, c), y;
				if (qend == NOSZ)
					qend = x;
				if (x > a && t[x - 1] == '>')
					x = lex_back_ws(t, a, lex_angle_open(t, a, x));
				y = x;
				while (y > a && lex_idc(t[y - 1]))
					y--;
				if (y == x) { /* a leading "::" */
					tk.qs = c;
					j = c;
					break;
				}
				tk.qs = y;
				j = lex_back_ws(t, a, y);
			}
			if (qend != NOSZ) {
				tk.qe = qend;
				if (tk.qs > tk.qe)
					tk.qs = tk.qe;
			} else {
				tk.qs = tk.qe = i;
			}
		}
		if (j > a && t[j - 1] == '.')
			tk.member = 1;
		else if (j >= a + 2 && t[j - 1] == '>' && t[j - 2] == '-')
			tk.member = 1;
		q = lex_skip_ws(t, b, e);
		if (q + 1 < b && t[q] == ':' && t[q + 1] == ':')
			tk.scope = 1;
		{
			size_t ta = lex_skip_ws(t, b, e), tb = skip_targs(t, b, e);
			if (tb > e) {
				tk.ta = ta;
				tk.tb = tb;
				q = lex_skip_ws(t, b, tb);
			}
		}
		if (q < b && t[q] == '(') {
			size_t close = lex_match_close(t, b, q, '(', ')');
			tk.call = 1;
			tk.open = q;
			tk.close = close;
			const struct cs_macro *mc;
			if (w->expand && !tk.member && tk.qs == tk.qe && close < b &&
			    (mc = expanding(p, w->file, t + i, e - i, depth, stack))) {
				walk_macro(w, mc, t, q, close, tk.loc, depth, stack);
				i = close + 1;
				continue;
			}
		}
		w->fn(w->ctx, &tk);
		i = e;
	}
}

void walk_def(const struct cs_model *m, const struct cs_def *d,
                     cs_tok_fn fn, void *ctx)
{
	struct cs_walker w;
	w.m = m;
	w.file = d->file;
	w.fn = fn;
	w.ctx = ctx;
	w.expand = 1;
	w.tids = 0;
	w.site = d->bs + 1;
	walk_text(&w, cs_def_text(m, d), d->tn, d->bs + 1, d->be, d->inv, 0, NULL);
}

/* The qualifier of k without blanks ("at::native"), malloc'd. */
char *tok_qual(const struct cs_tok *k)
{
	char *q = xmalloc(k->qe - k->qs + 1), *o = q;
	size_t i;
	int angle = 0;
	for (i = k->qs; i < k->qe; i++) {
		char c = k->t[i];
		if (c == '<')
			angle++;
		else if (c == '>')
			angle--;
		else if (!angle && !lex_sp(c))
			*o++ = c;
	}
	*o = '\0';
	if (q[0] == ':' && q[1] == ':')
		memmove(q, q + 2, strlen(q + 2) + 1);
	return q;
}

/* The end of the statement or block starting at t[i] (after an if's
 * condition or an else): the index after it, or NONE when it does not
 * end before n. */
size_t stmt_end_or(const char *t, size_t n, size_t i, size_t none)
{
	i = lex_skip_ws(t, n, i);
	if (i < n && t[i] == '{') {
		size_t c = lex_match_close(t, n, i, '{', '}');
		return c < n ? c + 1 : none;
	}
	while (i < n && t[i] != ';') {
		if (t[i] == '"' || t[i] == '\'') {
			i = lex_skip_literal(t, n, i);
			continue;
		}
		if (t[i] == '(' || t[i] == '{') {
			size_t c = lex_match_close(t, n, i, t[i], t[i] == '(' ? ')' : '}');
			if (c >= n)
				return none;
			i = c + 1;
			continue;
		}
		i++;
	}
	return i < n ? i + 1 : none;
}

int ns_is(const char *ns, const char *w)
{
	return strcmp(ns, w) == 0;
}

/* ns ends with "::tail", or is tail */
int ns_ends(const char *ns, const char *tail)
{
	size_t a = strlen(ns), b = strlen(tail);
	if (a == b)
		return strcmp(ns, tail) == 0;
	return a > b + 2 && strcmp(ns + a - b, tail) == 0 &&
	       ns[a - b - 1] == ':' && ns[a - b - 2] == ':';
}

/* ---------------- more folders, definitions, expanded bodies ---------------- */

int cs_add_folder(struct cs_model *m, const char *rel, const char *const *sufs)
{
	static const char *const dflt[] = {".cu", ".cuh", ".h", NULL};
	struct cs_priv *p = P(m);
	struct walk_list files = {NULL, 0, 0};
	struct mask_braces br;
	size_t i, first = m->nfiles;
	int rc = 0;

	if (walk_tree(m->root, rel, WALK_MAX_DEPTH, NULL, NULL, sufs ? sufs : dflt,
	              &files) != 0)
		return -1;
	/* headers first, as cs_load reads them */
	for (i = 0; i < files.n; i++)
		if (str_ends_with(files.paths[i], ".h") ||
		    str_ends_with(files.paths[i], ".cuh"))
			add_entry(m, files.paths[i], 1);
	for (i = 0; i < files.n; i++)
		if (!str_ends_with(files.paths[i], ".h") &&
		    !str_ends_with(files.paths[i], ".cuh"))
			add_entry(m, files.paths[i], 1);
	p->cap_scratch = files.largest + 2;
	p->scratch = xmalloc(p->cap_scratch);
	walk_free(&files);
	memset(&br, 0, sizeof br);
	for (i = first; i < m->nfiles && rc == 0; i++)
		rc = parse_file(m, i, &br);
	mask_braces_free(&br);
	free(p->scratch);
	p->scratch = NULL;
	p->cap_scratch = 0;
	return rc;
}

const long *cs_find_defs(const struct cs_model *m, const char *name, int added,
                         size_t *n)
{
	const struct cs_priv *p = P(m);
	const struct cs_ilist *l =
	    imap_get(added ? &p->addname : &p->defname, name, strlen(name));
	*n = l ? l->n : 0;
	return l ? l->v : NULL;
}

const struct cs_def *cs_def_at(const struct cs_model *m, long i)
{
	return &P(m)->defs[i];
}

/* expand_into: t[a, b) into o with the calls of the macros visible from
 * FILE expanded (as walk_text expands them: an unqualified name, not a
 * member, followed by '(' closed before b), their expansions again */
static void expand_into(const struct cs_model *m, size_t file, struct buf *o,
                        const char *t, size_t a, size_t b, int depth,
                        const char **stack)
{
	const struct cs_priv *p = P(m);
	size_t i = a, run = a;
	while (i < b) {
		char c = t[i];
		size_t e, q, j;
		if (c == '"' || c == '\'') {
			i = lex_skip_literal(t, b, i);
			continue;
		}
		if (!lex_id0(c) || (i > a && lex_idc(t[i - 1]))) {
			i++;
			continue;
		}
		e = lex_ident_end(t, b, i);
		q = lex_skip_ws(t, b, e);
		j = lex_back_ws(t, a, i);
		if (q < b && t[q] == '(' &&
		    !(j > a && (t[j - 1] == '.' || t[j - 1] == ':' ||
		                (t[j - 1] == '>' && j >= a + 2 && t[j - 2] == '-')))) {
			const struct cs_macro *mc = expanding(p, file, t + i, e - i, depth,
			                                      stack);
			size_t close = mc ? lex_match_close(t, b, q, '(', ')') : b;
			if (close < b) {
				const char *st[MAX_MDEPTH + 1];
				char *x = expand_with(mc, t, q, close, depth, stack, st);
				buf_add(o, t + run, i - run);
				expand_into(m, file, o, x, 0, strlen(x), depth + 1, st);
				free(x);
				i = run = close + 1;
				continue;
			}
		}
		i = e;
	}
	buf_add(o, t + run, b - run);
}

char *cs_expand_body(const struct cs_model *m, const struct cs_def *d)
{
	struct buf o;
	const char *t = cs_def_text(m, d);
	size_t b = d->be < d->tn ? d->be : d->tn;
	buf_init(&o);
	if (d->bs + 1 < b)
		expand_into(m, d->file, &o, t, d->bs + 1, b, 0, NULL);
	return o.data;
}

const struct cs_model *cs_lazy_get(struct cs_lazy *l)
{
	if (!l->root)
		return NULL;
	if (!l->tried) {
		l->tried = 1;
		if (cs_load(&l->m, l->root) != 0)
			exit(MK_EXIT_ERROR);
		l->ok = 1;
	}
	return &l->m;
}

void cs_lazy_free(struct cs_lazy *l)
{
	if (l->ok)
		cs_free(&l->m);
	l->ok = l->tried = 0;
}

