/* cppscan.c — see cppscan.h.
 *
 * Loading reads every file once and masks it in place (scan.h
 * mask_code_in_place), which also lists the braces met in code; blanks
 * the preprocessor lines (keeping function-like #defines as macros);
 * pairs the braces from that list (struct pairs: no second pass over the
 * text, and no scope rescans the scopes inside it); then parses the
 * namespace-level structure in one forward pass: namespaces, structs,
 * function definitions with the extent of their bodies, stub declarations,
 * definitions and registrations, and the macro calls written at namespace
 * level (expanded, their expansion parsed the same way and kept).  Bodies
 * are passed over through the brace pairs; the model's strings and index
 * lists are cut from one pool.
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
 * a PCRE2 pattern per question would cost a pass each.  PCRE2 reads the
 * dispatch macro names (cs_dispatch_macro_types), where a pattern says
 * the rule most plainly.
 */
#include "read/cppscan.h"
#include "base/diag.h"
#include "base/lex.h"
#include "base/scan.h"
#include "base/walk.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NOSZ ((size_t)-1)
#define MAX_MDEPTH 8      /* macro expansion depth */
#define DT_DEPTH 3        /* dtype reading: helper calls followed */

/* ---------------- characters ---------------- */

enum { K_ID0 = 1, K_ID = 2, K_SP = 4, K_QUOTE = 8 };
static void stops_init(void);
static unsigned char kls[256];
/* the bytes parse_scope acts on: identifier starts, digits, quotes,
 * ( { } ; */
static unsigned char scope_stop[256];
static int kls_ready;

static void kls_init(void)
{
	int c;
	if (kls_ready)
		return;
	for (c = 0; c < 256; c++) {
		unsigned char k = 0;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
			k |= K_ID0 | K_ID;
		if (c >= '0' && c <= '9')
			k |= K_ID;
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
		    c == '\v')
			k |= K_SP;
		if (c == '"' || c == '\'')
			k |= K_QUOTE;
		kls[c] = k;
		scope_stop[c] = (k & (K_ID0 | K_ID | K_QUOTE)) || c == '(' ||
		                c == '{' || c == '}' || c == ';';
	}
	stops_init();
	kls_ready = 1;
}

static int id0(char c) { return kls[(unsigned char)c] & K_ID0; }
static int idc(char c) { return kls[(unsigned char)c] & K_ID; }
static int sp(char c) { return kls[(unsigned char)c] & K_SP; }

static size_t skip_ws(const char *t, size_t n, size_t i)
{
	while (i < n && sp(t[i]))
		i++;
	return i;
}

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
		if (i >= n || !sp(t[i]))
			return i;
		i++; /* a newline, a tab, a last space: then words again */
	}
}

static size_t back_ws(const char *t, size_t lo, size_t i)
{
	while (i > lo && sp(t[i - 1]))
		i--;
	return i;
}

static size_t ident_end(const char *t, size_t n, size_t i)
{
	while (i < n && idc(t[i]))
		i++;
	return i;
}

/* Stop tables for match_close: the quotes and one bracket pair. */
static unsigned char stop_paren[256], stop_brace[256], stop_other[256];

static void stops_init(void)
{
	stop_paren['"'] = stop_paren['\''] = stop_paren['('] = stop_paren[')'] = 1;
	stop_brace['"'] = stop_brace['\''] = stop_brace['{'] = stop_brace['}'] = 1;
	stop_other['"'] = stop_other['\''] = 1;
	stop_other['['] = stop_other[']'] = stop_other['<'] = stop_other['>'] = 1;
}

/* The closing bracket matching the one at t[i] (open/close given), or n
 * when it is not closed before n. */
static size_t match_close(const char *t, size_t n, size_t i, char open,
                          char close)
{
	const unsigned char *stop = open == '(' ? stop_paren
	                            : open == '{' ? stop_brace : stop_other;
	long depth = 0;
	while (i < n) {
		char c;
		/* four bytes a step while four remain, then one */
		while (i + 4 <= n && !stop[(unsigned char)t[i]] &&
		       !stop[(unsigned char)t[i + 1]] &&
		       !stop[(unsigned char)t[i + 2]] &&
		       !stop[(unsigned char)t[i + 3]])
			i += 4;
		while (i < n && !stop[(unsigned char)t[i]])
			i++;
		if (i >= n)
			break;
		c = t[i];
		if (c == '"' || c == '\'') {
			i = lex_skip_literal(t, n, i);
			continue;
		}
		if (c == open)
			depth++;
		else if (c == close && --depth == 0)
			return i;
		i++;
	}
	return n;
}

/* After the identifier ending at e: a balanced template argument list
 * `<...>` (parentheses and literals skipped) — the index after it, or e
 * when there is none or it is not closed before the next ';', '{' or
 * '}'. */
static size_t skip_targs(const char *t, size_t n, size_t e)
{
	size_t i = skip_ws(t, n, e);
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
			i = match_close(t, n, i, '(', ')');
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

static int span_is(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w);
	return n == k && memcmp(s, w, k) == 0;
}

static int starts_with(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w);
	return n >= k && memcmp(s, w, k) == 0;
}

static int ends_with(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w);
	return n >= k && memcmp(s + n - k, w, k) == 0;
}

static int word_at_rest(const char *t, size_t n, size_t i, const char *w)
{
	size_t k = strlen(w);
	return i + k <= n && memcmp(t + i, w, k) == 0 &&
	       (i + k == n || !idc(t[i + k])) && (i == 0 || !idc(t[i - 1]));
}

/* Is the word w at t[i] (a whole identifier)?  (The first byte is
 * compared where the call is.) */
static inline int word_at(const char *t, size_t n, size_t i, const char *w)
{
	return i < n && t[i] == w[0] && word_at_rest(t, n, i, w);
}

static int is_keyword(const char *s, size_t n)
{
	static const char *const kw[] = {
	    "if", "for", "while", "switch", "return", "sizeof", "catch",
	    "decltype", "alignof", "alignas", "static_assert", "defined", "do",
	    "else", "case", "new", "delete", "throw", "typeid", "noexcept",
	    "__attribute__", "using", "typedef", "co_return", "requires", NULL};
	static size_t len[sizeof kw / sizeof *kw];
	size_t i;
	if (!len[0])
		for (i = 0; kw[i]; i++)
			len[i] = strlen(kw[i]);
	if (n < 2 || n > 13 || s[0] < '_' || s[0] > 'w')
		return 0; /* every keyword is 2 to 13 bytes, from '_' to 'w' */
	for (i = 0; kw[i]; i++)
		if (len[i] == n && kw[i][0] == s[0] && memcmp(s, kw[i], n) == 0)
			return 1;
	return 0;
}

/* ---------------- a pool: memory released all at once ---------------- */

/* The model's strings and index lists live until cs_free: they are cut
 * from large blocks instead of being allocated (and freed) one by one. */
struct pool {
	char **blocks;
	size_t nb, cb;
	char *cur;
	size_t left;
};

#define POOL_BLOCK 65536

static void *pool_alloc(struct pool *pl, size_t n)
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

static char *pool_strndup(struct pool *pl, const char *s, size_t n)
{
	char *r = pool_alloc(pl, n + 1);
	memcpy(r, s, n);
	r[n] = '\0';
	return r;
}

static char *pool_strdup(struct pool *pl, const char *s)
{
	return pool_strndup(pl, s, strlen(s));
}

static void pool_free(struct pool *pl)
{
	size_t i;
	for (i = 0; i < pl->nb; i++)
		free(pl->blocks[i]);
	free(pl->blocks);
	memset(pl, 0, sizeof *pl);
}

/* ---------------- a map: string → long ---------------- */

struct smap {
	struct pool *pool;  /* holds the keys */
	char **keys;
	size_t *lens;
	uint64_t *hash;     /* of each key: compared first, and kept so that
	                       growing never hashes a key again */
	long *vals;
	size_t cap, n;
};

static uint64_t hspan(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;
	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

static size_t smap_slot(const struct smap *mp, const char *s, size_t n,
                        uint64_t h)
{
	size_t i = (size_t)h & (mp->cap - 1);
	while (mp->keys[i] &&
	       !(mp->hash[i] == h && mp->lens[i] == n &&
	         memcmp(mp->keys[i], s, n) == 0))
		i = (i + 1) & (mp->cap - 1);
	return i;
}

static long smap_get(const struct smap *mp, const char *s, size_t n)
{
	size_t i;
	if (!mp->cap)
		return -1;
	i = smap_slot(mp, s, n, hspan(s, n));
	return mp->keys[i] ? mp->vals[i] : -1;
}

static long smap_gets(const struct smap *mp, const char *s)
{
	return smap_get(mp, s, strlen(s));
}

static void smap_put_h(struct smap *mp, const char *s, size_t n, uint64_t h,
                       long v)
{
	size_t i;
	if ((mp->n + 1) * 2 > mp->cap) {
		struct smap nm;
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

static void smap_put(struct smap *mp, const char *s, size_t n, long v)
{
	smap_put_h(mp, s, n, hspan(s, n), v);
}

/* The value of s, or, when s is not in the map yet, v (put there): one
 * hash instead of smap_get's then smap_put's. */
static long smap_intern(struct smap *mp, const char *s, size_t n, long v)
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

static void smap_free(struct smap *mp)
{
	free(mp->keys);
	free(mp->lens);
	free(mp->hash);
	free(mp->vals);
	memset(mp, 0, sizeof *mp);
}

/* index lists: a map to an index into an array of lists of longs (the
 * lists in the keys' pool) */
struct ilist {
	long *v;
	size_t n, cap;
};

struct imap {
	struct smap keys;
	struct ilist *lists;
	size_t n, cap;
};

static void imap_add(struct imap *im, const char *s, size_t n, long x)
{
	long k = smap_intern(&im->keys, s, n, (long)im->n);
	struct ilist *l;
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

static const struct ilist *imap_get(const struct imap *im, const char *s,
                                    size_t n)
{
	long k = smap_get(&im->keys, s, n);
	return k < 0 ? NULL : &im->lists[k];
}

static void imap_free(struct imap *im)
{
	free(im->lists);
	smap_free(&im->keys);
	memset(im, 0, sizeof *im);
}

/* ---------------- the private model ---------------- */

struct cfile {
	char *rel;        /* relative to the root */
	char *code;       /* masked, preprocessor lines blanked */
	size_t len;
	size_t *ls;       /* line starts */
	size_t nls;
	int cpu;          /* in CS_NATIVE_REL/cpu */
	int header;       /* a .h file */
};

struct macro {
	struct lex_macro m;
	size_t file;        /* where it is defined */
};

enum { D_FN = 0, D_IMPL, D_META };

struct def {                /* its strings are in the model's pool */
	char *name;
	char *owner;      /* struct holding it or qualifier written, or NULL */
	const char *ns;   /* interned namespace ("at::native"), "" global */
	char *overload;   /* TORCH_META_FUNC2's second argument */
	char *hmacro;     /* TORCH_IMPL_FUNC etc. as written before (name) */
	char *wmacro;     /* the macro call written in the file that produced
	                     it, or NULL */
	int kind;
	int is_static;    /* `static` written before the name, or in an
	                     anonymous namespace: not visible from other files */
	size_t file;
	const char *t;    /* the text holding the body */
	size_t tn;
	size_t bs, be;    /* '{' and its '}' (be == tn when unbalanced) */
	size_t ps, pe;    /* the parameter list's parentheses in t */
	size_t at;        /* file offset for its location */
	size_t inv;       /* NOSZ: offsets in t are file offsets; else the
	                     file offset of the macro call */
};

struct reg {
	char *stub;
	char *fn;         /* NULL: nullptr */
	char *macro;      /* outermost macro written, or the REGISTER_ name */
	size_t file;
	size_t at;
};

struct sdecl {
	size_t file;
	size_t at;
};

struct priv {
	struct cfile *files;
	size_t cap_files;
	struct macro *mac;
	size_t nmac, cap_mac;
	struct imap macros;       /* name → macro indexes */
	unsigned char macfirst[256];
	struct def *defs;
	size_t cap_defs;
	struct imap defname;      /* name → defs (D_FN and D_IMPL) */
	struct imap owners;       /* struct name → member defs */
	struct imap metas;        /* "base" / "base_overload" → D_META defs */
	struct imap metabase;     /* FUNC2 base → D_META defs */
	struct reg *regs;
	size_t cap_regs;
	struct imap regname;      /* stub → regs */
	struct sdecl *decls;
	size_t ndecls, cap_decls;
	struct imap declname;     /* stub → decls (headers first) */
	struct imap defined;      /* DEFINE_DISPATCH stubs → file */
	struct smap nsintern;
	struct pool pool;         /* the maps' keys and lists, the strings of
	                             defs and regs */
	char **nss;
	size_t nns, cap_ns;
	char **exps;              /* macro expansions the defs point into */
	size_t nexps, cap_exps;
};

#define P(m) ((struct priv *)(m)->priv)

static const char *intern_ns(struct priv *p, const char *s)
{
	long k = smap_gets(&p->nsintern, s);
	if (k >= 0)
		return p->nss[k];
	GROW(p->nss, p->nns, p->cap_ns);
	p->nss[p->nns] = xstrdup(s);
	smap_put(&p->nsintern, s, strlen(s), (long)p->nns);
	return p->nss[p->nns++];
}

/* The line starts of a file, found on the first question about a line
 * (most files are never asked). */
static void file_lines(struct cfile *f)
{
	size_t cap = f->len / 32 + 16, i;
	f->ls = xmalloc(cap * sizeof *f->ls);
	f->ls[0] = 0;
	f->nls = 1;
	for (i = 0; i < f->len; i++) {
		const char *q = memchr(f->code + i, '\n', f->len - i);
		if (!q)
			break;
		i = (size_t)(q - f->code);
		if (f->nls == cap) {
			cap *= 2;
			f->ls = xrealloc(f->ls, cap * sizeof *f->ls);
		}
		f->ls[f->nls++] = i + 1;
	}
}

static unsigned long line_of(const struct cs_model *m, size_t file, size_t off)
{
	struct cfile *f = &P(m)->files[file];
	if (!f->ls)
		file_lines(f);
	return (unsigned long)last_le(f->ls, f->nls, off) + 1;
}

static struct cs_loc loc_of(const struct cs_model *m, size_t file, size_t off)
{
	struct cs_loc l;
	l.file = P(m)->files[file].rel;
	l.line = line_of(m, file, off);
	return l;
}

/* ---------------- files ---------------- */

static char *path_join(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	char *r = xmalloc(na + nb + 2);
	memcpy(r, a, na);
	r[na] = '/';
	memcpy(r + na + 1, b, nb + 1);
	return r;
}

/* Folders whose code serves other devices only (cppscan.h). */
static const char *const device_folders[] = {"cuda", "hip", "miopen", "cudnn",
                                             "mps", "xpu", "vulkan", "metal",
                                             "mtia", "hpu", NULL};

/* ---------------- preprocessor lines and macros ---------------- */

static const struct macro *find_macro(const struct priv *p, size_t file,
                                      const char *s, size_t n)
{
	const struct ilist *l;
	const struct macro *hdr = NULL;
	size_t i;
	if (!p->macfirst[(unsigned char)s[0]])
		return NULL;
	l = imap_get(&p->macros, s, n);
	if (!l)
		return NULL;
	for (i = 0; i < l->n; i++) {
		const struct macro *mc = &p->mac[l->v[i]];
		if (mc->file == file)
			return mc;
		if (!hdr && p->files[mc->file].header)
			hdr = mc;
	}
	return hdr;
}

/* "#define NAME(params) body" spanning c[a, b): keep it as a macro of file
 * (the first definition of a name in a file wins). */
static void take_define(struct priv *p, size_t file, const char *c, size_t a,
                        size_t b)
{
	size_t ns, ne, open, close, k;
	struct macro *mc;
	const struct ilist *l;

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
 * listed, to count a branch's braces without reading it (NULL: read). */
static void directives(struct priv *p, size_t file, char *c, size_t n,
                       const struct mask_braces *br)
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
			take_define(p, file, c, j, e);
			w = skip_ws(c, e, j + 1);
			we = ident_end(c, e, w);
			if (span_is(c + w, we - w, "if") || span_is(c + w, we - w, "ifdef") ||
			    span_is(c + w, we - w, "ifndef")) {
				GROW(g, ng, capg);
				memset(&g[ng], 0, sizeof g[ng]);
				GROW(g[ng].br, g[ng].n, g[ng].cap);
				g[ng].bd = xrealloc(g[ng].bd, g[ng].cap * sizeof *g[ng].bd);
				g[ng].br[g[ng].n] = e;
				g[ng].bd[g[ng].n++] = NOSZ;
				ng++;
			} else if (ng && (span_is(c + w, we - w, "else") ||
			                  starts_with(c + w, we - w, "elif"))) {
				struct cgroup *t = &g[ng - 1];
				t->bd[t->n - 1] = i;
				GROW(t->br, t->n, t->cap);
				t->bd = xrealloc(t->bd, t->cap * sizeof *t->bd);
				t->br[t->n] = e;
				t->bd[t->n++] = NOSZ;
			} else if (ng && span_is(c + w, we - w, "endif")) {
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

/* The braces of a text paired in one forward pass: every '{' outside
 * literals, in order, with the index of the '}' that closes it (NOSZ:
 * none does).  Literals are skipped as match_close skips them, so
 * pairs_close(bp, i, to) equals match_close(t, to, i, '{', '}') for each
 * brace the structural pass meets (that pass and this one skip the same
 * literals: both start one at every quote they reach outside a literal).
 * Each byte is read once, instead of once for every scope around it.
 * (Parentheses are matched where they are met: the structural pass
 * reads only those at namespace level, each once.) */
struct pairs {
	size_t *open, *close;       /* parallel; open ascending */
	size_t n, cap;
	size_t hint;                /* the entry after the last one asked for */
};

/* the quotes, the braces, and the NUL after the text */
static const unsigned char stop_pair[256] = {
	['"'] = 1, ['\''] = 1, ['{'] = 1, ['}'] = 1, ['\0'] = 1};

/* t[n] must be readable and NUL (the texts are: masked files, macro
 * expansions); it ends the scan without a bound check per byte. */
static void pairs_build(struct pairs *bp, const char *t, size_t n)
{
	size_t *st = NULL, nst = 0, cst = 0;
	size_t i = 0;
	memset(bp, 0, sizeof *bp);
	for (;;) {
		char c;
		for (;;) {
			if (stop_pair[(unsigned char)t[i]])
				break;
			if (stop_pair[(unsigned char)t[i + 1]]) {
				i += 1;
				break;
			}
			if (stop_pair[(unsigned char)t[i + 2]]) {
				i += 2;
				break;
			}
			if (stop_pair[(unsigned char)t[i + 3]]) {
				i += 3;
				break;
			}
			i += 4;
		}
		if (i >= n)
			break;
		c = t[i];
		if (c == '"' || c == '\'') {
			i = lex_skip_literal(t, n, i);
			continue;
		}
		if (c == '{') {
			if (bp->n == bp->cap) {
				bp->cap = bp->cap ? bp->cap * 2 : 64;
				bp->open = xrealloc(bp->open, bp->cap * sizeof *bp->open);
				bp->close = xrealloc(bp->close, bp->cap * sizeof *bp->close);
			}
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
static void pairs_from(struct pairs *bp, const char *t,
                       const struct mask_braces *br)
{
	size_t *st = NULL, nst = 0, cst = 0, k;
	memset(bp, 0, sizeof *bp);
	for (k = 0; k < br->n; k++) {
		size_t i = br->pos[k];
		if (t[i] == '{') {
			if (bp->n == bp->cap) {
				bp->cap = bp->cap ? bp->cap * 2 : 64;
				bp->open = xrealloc(bp->open, bp->cap * sizeof *bp->open);
				bp->close = xrealloc(bp->close, bp->cap * sizeof *bp->close);
			}
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

static void pairs_free(struct pairs *bp)
{
	free(bp->open);
	free(bp->close);
	memset(bp, 0, sizeof *bp);
}

/* The '}' closing the '{' at i, as match_close(t, to, i, '{', '}') would
 * find it; NOSZ when i is not in the table. */
static size_t pairs_close(struct pairs *bp, size_t i, size_t to)
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

struct unit {
	const char *t;
	size_t n;
	size_t file;
	size_t inv;                 /* NOSZ, or the file offset of the call */
	int depth;
	const char *stack[MAX_MDEPTH + 1];
	const char *outer;          /* outermost macro written in the file */
	struct pairs bp;            /* the braces of t */
};

/* match_close(u->t, to, i, ..) for the '{' or '(' at u->t[i]: braces
 * from the unit's pairs */
static size_t unit_close(struct unit *u, size_t i, size_t to)
{
	size_t c;
	if (u->t[i] == '(')
		return match_close(u->t, to, i, '(', ')');
	c = pairs_close(&u->bp, i, to);
	return c != NOSZ ? c : match_close(u->t, to, i, '{', '}');
}

static size_t unit_off(const struct unit *u, size_t off)
{
	return u->inv == NOSZ ? off : u->inv;
}

/* the stub registration and declaration macros (DispatchStub.h) */
enum { R_NONE = 0, R_REG, R_REG_ARCH, R_REG_NONE, R_DECL, R_DEFINE, R_DEVICE };

static int reg_macro(const char *s, size_t n)
{
	if (n < 15 || (s[0] != 'R' && s[0] != 'A' && s[0] != 'D'))
		return R_NONE;
	if (span_is(s, n, "REGISTER_DISPATCH") ||
	    span_is(s, n, "ALSO_REGISTER_AVX512_DISPATCH") ||
	    span_is(s, n, "ALSO_REGISTER_SVE256_DISPATCH") ||
	    span_is(s, n, "REGISTER_ALL_CPU_DISPATCH") ||
	    span_is(s, n, "REGISTER_AVX512_DISPATCH") ||
	    span_is(s, n, "REGISTER_AVX2_DISPATCH") ||
	    span_is(s, n, "REGISTER_VSX_DISPATCH") ||
	    span_is(s, n, "REGISTER_ZVECTOR_DISPATCH") ||
	    span_is(s, n, "REGISTER_SVE256_DISPATCH"))
		return R_REG;
	if (span_is(s, n, "REGISTER_ARCH_DISPATCH"))
		return R_REG_ARCH;
	if (span_is(s, n, "REGISTER_NO_CPU_DISPATCH"))
		return R_REG_NONE;
	if (span_is(s, n, "DECLARE_DISPATCH"))
		return R_DECL;
	if (span_is(s, n, "DEFINE_DISPATCH"))
		return R_DEFINE;
	if (span_is(s, n, "REGISTER_CUDA_DISPATCH") ||
	    span_is(s, n, "REGISTER_HIP_DISPATCH") ||
	    span_is(s, n, "REGISTER_MPS_DISPATCH") ||
	    span_is(s, n, "REGISTER_XPU_DISPATCH") ||
	    span_is(s, n, "REGISTER_MTIA_DISPATCH") ||
	    span_is(s, n, "REGISTER_PRIVATEUSE1_DISPATCH"))
		return R_DEVICE;
	return R_NONE;
}

/* The last name of a possibly qualified, '&'-prefixed expression with
 * template arguments: "&CPU_CAPABILITY::f<x>" → "f"; NULL for nullptr,
 * NULL, 0 or nothing. */
static char *fn_name(const char *s)
{
	size_t n = strlen(s), e, b;
	/* drop trailing template arguments */
	while (n > 0 && sp(s[n - 1]))
		n--;
	if (n > 0 && s[n - 1] == '>') {
		long depth = 0;
		size_t k = n;
		while (k > 0) {
			k--;
			if (s[k] == '>')
				depth++;
			else if (s[k] == '<' && --depth == 0)
				break;
		}
		n = k;
	}
	e = n;
	while (e > 0 && sp(s[e - 1]))
		e--;
	b = e;
	while (b > 0 && idc(s[b - 1]))
		b--;
	if (b == e || !id0(s[b]) || span_is(s + b, e - b, "nullptr") ||
	    span_is(s + b, e - b, "NULL"))
		return NULL;
	return xstrndup(s + b, e - b);
}

static void record_macro_event(struct cs_model *m, struct unit *u, int kind,
                               const char *name, size_t nn, char **args,
                               size_t na, size_t at)
{
	struct priv *p = P(m);
	char *stub;
	if (kind == R_DEVICE || na == 0)
		return;
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
		struct reg *r;
		GROW(p->regs, m->nregs, p->cap_regs);
		r = &p->regs[m->nregs];
		r->stub = stub;
		r->fn = kind == R_REG_NONE ? NULL
		        : kind == R_REG_ARCH ? (na >= 3 ? fn_name(args[2]) : NULL)
		                             : (na >= 2 ? fn_name(args[1]) : NULL);
		r->macro = xstrdup(u->outer ? u->outer : "");
		if (!u->outer) {
			free(r->macro);
			r->macro = xstrndup(name, nn);
		}
		r->file = u->file;
		r->at = unit_off(u, at);
		imap_add(&p->regname, stub, strlen(stub), (long)m->nregs);
		m->nregs++;
	}
}

enum { H_SKIP = 0, H_SCOPE_NS, H_SCOPE_EXTERN, H_SCOPE_STRUCT, H_FUNC };

struct header {
	size_t ns, ne;      /* name (function, namespace or struct) */
	size_t qs, qe;      /* qualifier written before the function's name */
	size_t ms, me;      /* MACRO in MACRO(name)(params) */
	size_t os, oe;      /* overload in TORCH_META_FUNC2(name, overload) */
	int op_call;        /* the name is operator() */
	int is_static;      /* `static` before the name */
	size_t ps, pe;      /* the parameter list's parentheses */
};

/* Skip `template <...>` prefixes at t[i]. */
static size_t skip_template_prefix(const char *t, size_t n, size_t i)
{
	for (;;) {
		size_t k;
		i = skip_ws(t, n, i);
		if (!word_at(t, n, i, "template"))
			return i;
		k = skip_ws(t, n, i + 8);
		if (k >= n || t[k] != '<')
			return i;
		{
			long depth = 0;
			while (k < n) {
				char c = t[k];
				if (c == '(') {
					k = match_close(t, n, k, '(', ')');
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
		e = back_ws(t, i, e);
		if (e > i && idc(t[e - 1])) {
			size_t s = e;
			while (s > i && idc(t[s - 1]))
				s--;
			if (span_is(t + s, e - s, "const") ||
			    span_is(t + s, e - s, "override") ||
			    span_is(t + s, e - s, "final") ||
			    span_is(t + s, e - s, "noexcept") ||
			    span_is(t + s, e - s, "mutable") ||
			    span_is(t + s, e - s, "volatile") ||
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
			w = back_ws(t, i, o);
			if (w >= i + 8 && word_at(t, e, w - 8, "noexcept")) {
				e = w - 8;
				*open = NOSZ;
				continue;
			}
			if (w >= i + 5 && word_at(t, e, w - 5, "throw")) {
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
                    const struct group *last, struct header *h)
{
	size_t i, k, e, close, open, w;
	long depth = 0;
	int has_paren = 0, quoted = 0;
	size_t arrow = NOSZ;

	memset(h, 0, sizeof *h);
	i = skip_blanks(t, brace, hs);
	if (i >= brace)
		return H_SKIP;
	/* namespace: `[inline] namespace [a::b] {`, also after stray text */
	{
		size_t j = back_ws(t, i, brace), s = j;
		while (s > i && (idc(t[s - 1]) || t[s - 1] == ':' || sp(t[s - 1])))
			s--;
		for (k = s; k < j; k++)
			if (word_at(t, j, k, "namespace")) {
				size_t a = skip_ws(t, j, k + 9);
				for (w = a; w < j; w++)
					if (!(idc(t[w]) || t[w] == ':' || sp(t[w])))
						break;
				if (w == j) {
					h->ns = a;
					h->ne = j;
					return H_SCOPE_NS;
				}
			}
	}
	if (word_at(t, brace, i, "extern")) {
		k = skip_ws(t, brace, i + 6);
		if (k < brace && t[k] == '"')
			return H_SCOPE_EXTERN;
	}
	i = skip_template_prefix(t, brace, i);
	if (i >= brace)
		return H_SKIP;
	/* one walk finds a top-level '=' (not a function) and the first
	 * `->` at paren depth 0 (a trailing return type, read below); only
	 * the bytes of head_stop matter, and t[brace] is one of them */
	for (k = i; k < brace; k++) {
		char c;
		while (!head_stop[(unsigned char)t[k]]) {
			if (head_stop[(unsigned char)t[k + 1]]) {
				k += 1;
				break;
			}
			if (head_stop[(unsigned char)t[k + 2]]) {
				k += 2;
				break;
			}
			if (head_stop[(unsigned char)t[k + 3]]) {
				k += 3;
				break;
			}
			k += 4;
		}
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
			size_t b = back_ws(t, i, k);
			if (nc == '=' || pc == '=' || pc == '!' || pc == '<' ||
			    pc == '>')
				continue;
			if (b >= i + 8 && word_at(t, brace, b - 8, "operator"))
				continue;
			return H_SKIP; /* an initializer or a lambda */
		}
	}
	if (!has_paren) {
		/* struct / class / union NAME [final] [: bases] */
		for (k = i; k < brace; k++) {
			size_t kw = 0;
			/* the keywords start a word: only word starts are tried,
			 * and a word that is none of them is passed at once */
			if (!id0(t[k]) || (k > 0 && idc(t[k - 1])))
				continue;
			if (word_at(t, brace, k, "struct"))
				kw = 6;
			else if (word_at(t, brace, k, "class"))
				kw = 5;
			else if (word_at(t, brace, k, "union"))
				kw = 5;
			if (kw) {
				size_t a = k + kw, last_s = 0, last_e = 0;
				for (;;) {
					a = skip_ws(t, brace, a);
					if (a < brace && t[a] == '[') { /* [[attr]] */
						a = match_close(t, brace, a, '[', ']') + 1;
						continue;
					}
					if (a < brace && id0(t[a])) {
						size_t b2 = ident_end(t, brace, a);
						if (!span_is(t + a, b2 - a, "final")) {
							last_s = a;
							last_e = b2;
						}
						a = b2;
						if (a < brace && t[a] == '(') /* ALIGN(x) */
							a = match_close(t, brace, a, '(', ')') + 1;
						continue;
					}
					break;
				}
				if (!last_e)
					return H_SKIP;
				h->ns = last_s;
				h->ne = last_e;
				return H_SCOPE_STRUCT;
			}
			k = ident_end(t, brace, k) - 1;
		}
		return H_SKIP;
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
		return H_SKIP;
	close = e - 1;
	if (open == NOSZ)
		return H_SKIP;
	h->ps = open;
	h->pe = close;
	k = back_ws(t, i, open);
	if (k > i && t[k - 1] == ')') {
		/* MACRO(name[, overload])(params), or operator()(params) */
		size_t c2 = k - 1, o2 = open_of(t, i, c2), s, q, mb, me;
		if (o2 == NOSZ)
			return H_SKIP;
		s = skip_ws(t, c2, o2 + 1);
		me = back_ws(t, i, o2);
		mb = me;
		while (mb > i && idc(t[mb - 1]))
			mb--;
		if (s == c2) {
			if (span_is(t + mb, me - mb, "operator")) {
				h->ns = mb;
				h->ne = me;
				h->op_call = 1;
				goto qualifier;
			}
			return H_SKIP;
		}
		q = ident_end(t, c2, s);
		if (q == s || !id0(t[s]) || mb == me)
			return H_SKIP;
		h->ms = mb;
		h->me = me;
		h->ns = s;
		h->ne = q;
		q = skip_ws(t, c2, q);
		if (q < c2 && t[q] == ',') {
			size_t a = skip_ws(t, c2, q + 1), b2 = ident_end(t, c2, a);
			if (b2 == a || skip_ws(t, c2, b2) != c2)
				return H_SKIP;
			h->os = a;
			h->oe = b2;
		} else if (q != c2) {
			return H_SKIP;
		}
		return H_FUNC;
	}
	if (k > i && t[k - 1] == '>') {
		/* an explicit specialization: name<args>(params) */
		long d2 = 0;
		size_t x = k;
		while (x > i) {
			x--;
			if (t[x] == '>')
				d2++;
			else if (t[x] == '<' && --d2 == 0)
				break;
		}
		if (d2 == 0 && x > i)
			k = back_ws(t, i, x);
	}
	if (k > i && idc(t[k - 1])) {
		size_t s = k;
		while (s > i && idc(t[s - 1]))
			s--;
		if (!id0(t[s]) || is_keyword(t + s, k - s))
			return H_SKIP;
		if (s > i && t[s - 1] == '~')
			return H_SKIP; /* a destructor */
		h->ns = s;
		h->ne = k;
		goto qualifier;
	}
	/* operator+ (...) and friends */
	{
		size_t s = k;
		while (s > i && strchr("+-*/%^&|!=<>[]", t[s - 1]))
			s--;
		s = back_ws(t, i, s);
		if (s >= i + 8 && word_at(t, k, s - 8, "operator") && s != k) {
			h->ns = s - 8;
			h->ne = s;
			goto qualifier;
		}
	}
	return H_SKIP;
qualifier:
	for (k = i; k < h->ns; k++)
		if (t[k] == 's' && word_at(t, h->ns, k, "static")) {
			h->is_static = 1;
			break;
		}
	/* Owner::name, Owner<T>::name */
	w = back_ws(t, i, h->ns);
	if (w >= i + 2 && t[w - 1] == ':' && t[w - 2] == ':') {
		size_t qe = back_ws(t, i, w - 2), qs;
		if (qe > i && t[qe - 1] == '>') {
			long d2 = 0;
			size_t x = qe;
			while (x > i) {
				x--;
				if (t[x] == '>')
					d2++;
				else if (t[x] == '<' && --d2 == 0)
					break;
			}
			qe = back_ws(t, i, x);
		}
		qs = qe;
		while (qs > i && idc(t[qs - 1]))
			qs--;
		if (qs < qe) {
			h->qs = qs;
			h->qe = qe;
		}
	}
	return H_FUNC;
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
		i = skip_ws(t, b, i);
		while (i < b && (t[i] == ':' || sp(t[i])))
			i++;
		s = i;
		e = ident_end(t, b, i);
		if (e == s)
			break;
		if (!span_is(t + s, e - s, "inline")) {
			if (o.len)
				buf_puts(&o, "::");
			buf_add(&o, t + s, e - s);
		}
		i = e;
	}
	return o.data ? o.data : xstrdup("");
}

static void add_def(struct cs_model *m, struct unit *u, const struct header *h,
                    size_t brace, size_t close, const char *ns,
                    const char *owner)
{
	struct priv *p = P(m);
	struct def *d;
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
		if (span_is(mac, ml, "TORCH_IMPL_FUNC"))
			d->kind = D_IMPL;
		else if (span_is(mac, ml, "TORCH_META_FUNC") ||
		         span_is(mac, ml, "TORCH_META_FUNC2") ||
		         span_is(mac, ml, "TORCH_PRECOMPUTE_META_FUNC") ||
		         span_is(mac, ml, "TORCH_PRECOMPUTE_META_FUNC2"))
			d->kind = D_META;
	}
	if (h->oe > h->os)
		d->overload = pool_strndup(&p->pool, t + h->os, h->oe - h->os);
	d->wmacro = u->outer ? pool_strdup(&p->pool, u->outer) : NULL;
	d->file = u->file;
	d->t = t;
	d->tn = u->n;
	d->bs = brace;
	d->be = close;
	d->ps = h->ps;
	d->pe = h->pe;
	d->inv = u->inv;
	d->at = unit_off(u, h->ns);
	m->ndefs++;
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

static void parse_scope(struct cs_model *m, struct unit *u, size_t from,
                        size_t to, const char *ns, const char *owner);

/* Expand the call of mc at u->t[a] ('(' at open, ')' at close) and parse
 * the expansion as code written there; the expansion is kept (the defs it
 * holds point into it). */
static void expand_scope_call(struct cs_model *m, struct unit *u,
                              const struct macro *mc, size_t a, size_t open,
                              size_t close, const char *ns, const char *owner)
{
	struct priv *p = P(m);
	struct unit c;
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
	pairs_build(&c.bp, c.t, c.n);
	parse_scope(m, &c, 0, c.n, ns, owner);
	pairs_free(&c.bp);
}

static void parse_scope(struct cs_model *m, struct unit *u, size_t from,
                        size_t to, const char *ns, const char *owner)
{
	struct priv *p = P(m);
	const char *t = u->t;
	size_t i = from, hs = from;
	struct group last = {NOSZ, NOSZ, 0};

	while (i < to) {
		char c = t[i];
		unsigned char k = kls[(unsigned char)c];
		if (!scope_stop[(unsigned char)c]) {
			/* blank runs (comments and preprocessor lines blanked)
			 * are long at namespace level */
			i = sp(c) ? skip_blanks(t, to, i) : i + 1;
			continue;
		}
		if (c >= '0' && c <= '9') {
			i = ident_end(t, to, i);
			continue;
		}
		if (k & K_QUOTE) {
			i = lex_skip_literal(t, to, i);
			continue;
		}
		if (k & K_ID0) {
			size_t e = ident_end(t, to, i), q;
			int rk;
			const struct macro *mc;
			if (i > from && idc(t[i - 1])) {
				i = e;
				continue;
			}
			q = skip_ws(t, to, e);
			if (q < to && t[q] == '(') {
				rk = reg_macro(t + i, e - i);
				if (rk != R_NONE) {
					size_t close = unit_close(u, q, to);
					if (close < to) {
						char **args;
						size_t na;
						args = lex_split_args(t, q, close, &na);
						record_macro_event(m, u, rk, t + i, e - i, args, na, i);
						lex_strv_free(args, na);
						i = close + 1;
						hs = i;
						continue;
					}
				} else if (skip_blanks(t, i, hs) == i &&
				           (mc = find_macro(p, u->file, t + i, e - i))) {
					size_t close = unit_close(u, q, to), nx;
					nx = close < to ? skip_ws(t, to, close + 1) : to;
					/* MACRO(x)(params) { or MACRO(x) {: a header the
					 * macro begins, read as written */
					if (close < to &&
					    (nx >= to || (t[nx] != '(' && t[nx] != '{'))) {
						expand_scope_call(m, u, mc, i, q, close, ns, owner);
						i = skip_ws(t, to, close + 1);
						if (i < to && t[i] == ';')
							i++;
						hs = i;
						continue;
					}
				}
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
			struct header h;
			size_t close = unit_close(u, i, to);
			int kind = classify(t, hs, i, &last, &h);
			size_t end = close < to ? close : to;
			if (kind == H_SCOPE_NS) {
				char *nns = ns_join(ns, t, h.ns, h.ne);
				const char *in = intern_ns(p, nns);
				free(nns);
				parse_scope(m, u, i + 1, end, in, NULL);
			} else if (kind == H_SCOPE_EXTERN) {
				parse_scope(m, u, i + 1, end, ns, owner);
			} else if (kind == H_SCOPE_STRUCT) {
				char *sn = xstrndup(t + h.ns, h.ne - h.ns);
				parse_scope(m, u, i + 1, end, ns, sn);
				free(sn);
			} else if (kind == H_FUNC) {
				add_def(m, u, &h, i, end, ns, owner);
			}
			i = close < to ? close + 1 : to;
			hs = i;
		}
	}
}

/* ---------------- loading ---------------- */

static int load_file(struct cs_model *m, const char *rel)
{
	struct priv *p = P(m);
	char *path = path_join(m->root, rel), *data;
	size_t len;
	struct cfile *f;
	struct unit u;
	struct mask_braces br;
	size_t idx;

	if (read_source_file(path, &data, &len) != 0) {
		free(path);
		return -1;
	}
	free(path);
	GROW(p->files, m->nfiles, p->cap_files);
	idx = m->nfiles++;
	f = &p->files[idx];
	memset(f, 0, sizeof *f);
	f->rel = xstrdup(rel);
	mask_code_in_place(data, len, &br);
	f->code = data;
	f->len = len;
	f->header = str_ends_with(rel, ".h");
	f->cpu = strncmp(rel, CS_NATIVE_REL "/cpu/", strlen(CS_NATIVE_REL "/cpu/")) == 0;
	directives(p, idx, f->code, len, br.edge ? NULL : &br);
	if (!f->header)
		m->have_sources = 1;
	memset(&u, 0, sizeof u);
	u.t = f->code;
	u.n = len;
	u.file = idx;
	u.inv = NOSZ;
	if (br.edge)
		pairs_build(&u.bp, u.t, u.n);
	else
		pairs_from(&u.bp, u.t, &br);
	mask_braces_free(&br);
	parse_scope(m, &u, 0, len, intern_ns(p, ""), NULL);
	pairs_free(&u.bp);
	return 0;
}

int cs_load(struct cs_model *m, const char *root)
{
	static const char *const sufs[] = {".cpp", ".h", NULL};
	struct walk_list files = {NULL, 0};
	struct stat st;
	char *dir;
	size_t i;

	kls_init();
	memset(m, 0, sizeof *m);
	m->root = xstrdup(root);
	m->priv = xcalloc(1, sizeof(struct priv));
	{
		struct priv *p = P(m);
		struct imap *maps[] = {&p->macros, &p->defname, &p->owners,
		                       &p->metas, &p->metabase, &p->regname,
		                       &p->declname, &p->defined};
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
		if (str_ends_with(files.paths[i], ".h") && load_file(m, files.paths[i]) != 0)
			goto fail;
	for (i = 0; i < files.n; i++)
		if (!str_ends_with(files.paths[i], ".h") && load_file(m, files.paths[i]) != 0)
			goto fail;
	walk_free(&files);
	return 0;
fail:
	walk_free(&files);
	cs_free(m);
	return -1;
}

void cs_free(struct cs_model *m)
{
	struct priv *p = P(m);
	size_t i;
	if (p) {
		for (i = 0; i < m->nfiles; i++) {
			free(p->files[i].rel);
			free(p->files[i].code);
			free(p->files[i].ls);
		}
		free(p->files);
		for (i = 0; i < p->nmac; i++)
			lex_macro_free(&p->mac[i].m);
		free(p->mac);
		free(p->defs);
		for (i = 0; i < m->nregs; i++) {
			free(p->regs[i].stub);
			free(p->regs[i].fn);
			free(p->regs[i].macro);
		}
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
		smap_free(&p->nsintern);
		pool_free(&p->pool);
		free(p);
	}
	free(m->root);
	memset(m, 0, sizeof *m);
}

/* ---------------- dtypes ---------------- */

static const char *const dt_names[CS_NDTYPES] = {
    "Double", "Float", "Half", "BFloat16", "Long", "Int", "Short", "Char",
    "Byte", "Bool", "ComplexDouble", "ComplexFloat", "ComplexHalf", "UInt64",
    "UInt32", "UInt16", "Float8_e5m2", "Float8_e5m2fnuz", "Float8_e4m3fn",
    "Float8_e4m3fnuz", "QInt8", "QUInt8", "QInt32", "QUInt4x2", "QUInt2x4"};

/* Metal tokens (metalreg.h spelling); NULL: no Metal kernel takes it */
static const char *const dt_metal[CS_NDTYPES] = {
    NULL, "float", "half", "bfloat", "long", "int", "short", "char", "uchar",
    "bool", NULL, "float2", "half2", NULL, NULL, NULL, NULL, NULL, NULL,
    NULL, NULL, NULL, NULL, NULL, NULL};

const char *cs_dtype_name(int d)
{
	return d >= 0 && d < CS_NDTYPES ? dt_names[d] : NULL;
}

const char *cs_metal_token(int d)
{
	return d >= 0 && d < CS_NDTYPES ? dt_metal[d] : NULL;
}

static int dtype_span(const char *s, size_t n)
{
	int d;
	while (n && sp(*s)) {
		s++;
		n--;
	}
	while (n && sp(s[n - 1]))
		n--;
	/* qualifiers: ::, at::, c10::, ScalarType::, at::ScalarType:: ... */
	for (;;) {
		if (starts_with(s, n, "::")) {
			s += 2;
			n -= 2;
		} else if (starts_with(s, n, "at::")) {
			s += 4;
			n -= 4;
		} else if (starts_with(s, n, "c10::")) {
			s += 5;
			n -= 5;
		} else if (starts_with(s, n, "ScalarType::")) {
			s += 12;
			n -= 12;
			for (d = 0; d < CS_NDTYPES; d++)
				if (span_is(s, n, dt_names[d]))
					return d;
			return -1;
		} else {
			break;
		}
	}
	if (n > 1 && s[0] == 'k' && s[1] >= 'A' && s[1] <= 'Z') {
		for (d = 0; d < CS_NDTYPES; d++)
			if (span_is(s + 1, n - 1, dt_names[d]))
				return d;
		return -1;
	}
	for (d = 0; d < CS_NDTYPES; d++)
		if (span_is(s, n, dt_names[d]) ||
		    (dt_metal[d] && span_is(s, n, dt_metal[d])))
			return d;
	return -1;
}

int cs_dtype_parse(const char *s)
{
	return s ? dtype_span(s, strlen(s)) : -1;
}

static char *dtset_join(cs_dtset set, const char *sep, int metal)
{
	struct buf o;
	int d;
	buf_init(&o);
	for (d = 0; d < CS_NDTYPES; d++) {
		const char *w = metal ? dt_metal[d] : dt_names[d];
		if (!(set & CS_BIT(d)) || !w)
			continue;
		if (o.len)
			buf_puts(&o, sep);
		buf_puts(&o, w);
	}
	return o.data ? o.data : xstrdup("");
}

char *cs_dtset_names(cs_dtset set, const char *sep)
{
	return dtset_join(set, sep, 0);
}

char *cs_dtset_metal(cs_dtset set, const char *sep)
{
	return dtset_join(set, sep, 1);
}

/* The type families of ATen/Dispatch.h (AT_DISPATCH_CASE_<family>...) and
 * the type lists of ATen/Dispatch_v2.h, as the 2.6.0 headers define them
 * (our own table). */
#define B(d) CS_BIT(CS_##d)
#define T_INTEGRAL (B(BYTE) | B(CHAR) | B(INT) | B(LONG) | B(SHORT))
#define T_FLOATING (B(DOUBLE) | B(FLOAT))
#define T_COMPLEX (B(COMPLEX_DOUBLE) | B(COMPLEX_FLOAT))
#define T_UNSIGNED (B(UINT16) | B(UINT32) | B(UINT64))
#define T_FLOAT8                                                               \
	(B(FLOAT8_E5M2) | B(FLOAT8_E5M2FNUZ) | B(FLOAT8_E4M3FN) | B(FLOAT8_E4M3FNUZ))
#define T_QINT (B(QINT8) | B(QUINT8) | B(QINT32))

static const struct family {
	const char *name;
	cs_dtset types;
} families[] = {
    {"FLOATING_AND_COMPLEX_TYPES", T_FLOATING | T_COMPLEX},
    {"FLOATING_TYPES_AND_HALF", T_FLOATING | B(HALF)},
    {"REDUCED_FLOATING_TYPES", B(HALF) | B(BFLOAT16)},
    {"ALL_TYPES_AND_COMPLEX", T_INTEGRAL | T_FLOATING | T_COMPLEX},
    {"ALL_TYPES_AND_HALF", T_INTEGRAL | T_FLOATING | B(HALF)}, /* 1.13 */
    {"QINT_AND_SUB_BYTE_TYPES", T_QINT | B(QUINT4X2) | B(QUINT2X4)},
    {"QINT_BYTE_TYPES", B(QINT8) | B(QUINT8)},
    {"FLOATING_TYPES", T_FLOATING},
    {"INTEGRAL_TYPES", T_INTEGRAL},
    {"COMPLEX_TYPES", T_COMPLEX},
    {"QINT_TYPES", T_QINT},
    {"ALL_TYPES", T_INTEGRAL | T_FLOATING},
    {NULL, 0}};

static const struct family v2_lists[] = {
    {"AT_INTEGRAL_TYPES_V2", T_INTEGRAL | T_UNSIGNED},
    {"AT_INTEGRAL_TYPES", T_INTEGRAL},
    {"AT_FLOATING_TYPES", T_FLOATING},
    {"AT_COMPLEX_TYPES", T_COMPLEX},
    {"AT_ALL_TYPES_AND_COMPLEX", T_INTEGRAL | T_FLOATING | T_COMPLEX},
    {"AT_ALL_TYPES", T_INTEGRAL | T_FLOATING},
    {"AT_FLOAT8_TYPES", T_FLOAT8},
    {"AT_BAREBONES_UNSIGNED_TYPES", T_UNSIGNED},
    {"AT_QINT_TYPES", T_QINT},
    {NULL, 0}};

/* AT_DISPATCH_[CASE_]FAMILY[_AND[n]]: the family and the count.  The lazy
 * family group leaves a trailing _AND / _ANDn to the count, and keeps an
 * _AND that a family name holds (FLOATING_TYPES_AND_HALF,
 * ALL_TYPES_AND_COMPLEX).  Compiled once, on first use. */
static struct mk_re re_family;
static int re_family_ready;

int cs_dispatch_macro_types(const char *name, cs_dtset *out, int *extra)
{
	size_t ov[6], k;
	if (!name)
		return -1;
	for (k = 0; v2_lists[k].name; k++)
		if (strcmp(name, v2_lists[k].name) == 0) {
			*out = v2_lists[k].types;
			*extra = 0;
			return 0;
		}
	if (!re_family_ready) {
		re_compile(&re_family,
		           "^AT_DISPATCH_(?:CASE_)?([A-Z0-9_]+?)(?:_AND([1-9]?))?$", 0);
		re_family_ready = 1;
	}
	if (!re_match(&re_family, name, strlen(name), 0, ov, 3))
		return -1;
	for (k = 0; families[k].name; k++)
		if (span_is(name + ov[2], ov[3] - ov[2], families[k].name)) {
			*out = families[k].types;
			*extra = ov[4] == PCRE2_UNSET ? 0
			         : ov[5] == ov[4] ? 1 : name[ov[4]] - '0';
			return 0;
		}
	return -1;
}

/* A type argument of a dispatch macro: one scalar type, or
 * AT_EXPAND(list); -1 when unreadable. */
static int type_arg(const char *a, cs_dtset *out)
{
	size_t n = strlen(a);
	int d;
	while (n && sp(a[n - 1]))
		n--;
	while (n && sp(*a)) {
		a++;
		n--;
	}
	if (starts_with(a, n, "AT_EXPAND(") && a[n - 1] == ')') {
		char *inner = lex_trim_dup(a, 10, n - 1);
		size_t k;
		for (k = 0; v2_lists[k].name; k++)
			if (strcmp(inner, v2_lists[k].name) == 0) {
				*out |= v2_lists[k].types;
				free(inner);
				return 0;
			}
		free(inner);
		return -1;
	}
	d = dtype_span(a, n);
	if (d < 0)
		return -1;
	*out |= CS_BIT(d);
	return 0;
}

int cs_dispatch_call_types(const char *name, char *const *args, size_t na,
                           cs_dtset *out)
{
	cs_dtset base = 0;
	int extra = 0, bad = 0;
	size_t i, from = 0, to = 0;
	*out = 0;
	if (strcmp(name, "AT_DISPATCH_CASE") == 0) {
		from = 0;
		to = na ? 1 : 0;
	} else if (strcmp(name, "AT_DISPATCH_V2") == 0) {
		from = 3;
		to = na;
	} else if (cs_dispatch_macro_types(name, &base, &extra) == 0) {
		*out = base;
		to = (size_t)extra < na ? (size_t)extra : na;
	} else {
		return -1;
	}
	for (i = from; i < to; i++)
		if (type_arg(args[i], out) != 0)
			bad = 1;
	return bad ? -1 : 0;
}

/* ---------------- the body walker ---------------- */

struct tok {
	const char *t;        /* the text the token is in */
	size_t tn;
	size_t s, e;          /* the identifier */
	size_t qs, qe;        /* its qualifier chain before "::" (none: equal) */
	int member;           /* after '.' or '->' */
	int scope;            /* followed by "::" (it is itself a qualifier) */
	int call;             /* followed by '(' (after template arguments) */
	size_t ta, tb;        /* the template arguments `<...>` (ta == tb none) */
	size_t open, close;   /* the call's parentheses */
	size_t file;
	size_t loc;           /* file offset for the location */
	size_t site;          /* where it is in the text walked first (the
	                         definition's): itself, or the macro call
	                         written there that produced it */
	unsigned long tid;    /* which walk of a text (an expansion is walked
	                         once, then freed: pointers may repeat) */
};

typedef void (*tok_fn)(void *ctx, const struct tok *k);

struct walker {
	const struct cs_model *m;
	size_t file;
	tok_fn fn;
	void *ctx;
	int expand;           /* expand macros visible from the file */
	unsigned long tids;   /* texts walked so far */
	size_t site;          /* the token or macro call being read in the
	                         text walked first */
};

static void walk_text(struct walker *w, const char *t, size_t tn, size_t a,
                      size_t b, size_t inv, int depth, const char **stack);

static void walk_macro(struct walker *w, const struct macro *mc,
                       const char *t, size_t open, size_t close, size_t loc,
                       int depth, const char **stack)
{
	const char *st[MAX_MDEPTH + 1];
	char **args, *x;
	size_t na;
	int k;
	for (k = 0; k < depth; k++)
		st[k] = stack[k];
	st[depth] = mc->m.name;
	args = lex_split_args(t, open, close, &na);
	x = lex_expand(&mc->m, args, na);
	lex_strv_free(args, na);
	walk_text(w, x, strlen(x), 0, strlen(x), loc, depth + 1, st);
	free(x);
}

static void walk_text(struct walker *w, const char *t, size_t tn, size_t a,
                      size_t b, size_t inv, int depth, const char **stack)
{
	const struct priv *p = P(w->m);
	size_t i = a;
	unsigned long tid = ++w->tids;
	if (b > tn)
		b = tn;
	while (i < b) {
		char c = t[i];
		unsigned char k = kls[(unsigned char)c];
		struct tok tk;
		size_t e, q, j;
		if (k & K_QUOTE) {
			i = lex_skip_literal(t, b, i);
			continue;
		}
		if (c >= '0' && c <= '9') {
			i = ident_end(t, b, i);
			continue;
		}
		if (!(k & K_ID0)) {
			i++;
			continue;
		}
		e = ident_end(t, b, i);
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
		j = back_ws(t, a, i);
		tk.qs = tk.qe = i;
		{
			size_t qend = NOSZ;
			while (j >= a + 2 && t[j - 1] == ':' && t[j - 2] == ':') {
				size_t c = j - 2, x = back_ws(t, a, c), y;
				if (qend == NOSZ)
					qend = x;
				if (x > a && t[x - 1] == '>') {
					long d2 = 0;
					while (x > a) {
						x--;
						if (t[x] == '>')
							d2++;
						else if (t[x] == '<' && --d2 == 0)
							break;
					}
					x = back_ws(t, a, x);
				}
				y = x;
				while (y > a && idc(t[y - 1]))
					y--;
				if (y == x) { /* a leading "::" */
					tk.qs = c;
					j = c;
					break;
				}
				tk.qs = y;
				j = back_ws(t, a, y);
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
		q = skip_ws(t, b, e);
		if (q + 1 < b && t[q] == ':' && t[q + 1] == ':')
			tk.scope = 1;
		{
			size_t ta = skip_ws(t, b, e), tb = skip_targs(t, b, e);
			if (tb > e) {
				tk.ta = ta;
				tk.tb = tb;
				q = skip_ws(t, b, tb);
			}
		}
		if (q < b && t[q] == '(') {
			size_t close = match_close(t, b, q, '(', ')');
			tk.call = 1;
			tk.open = q;
			tk.close = close;
			if (w->expand && !tk.member && tk.qs == tk.qe &&
			    depth < MAX_MDEPTH && close < b) {
				const struct macro *mc = find_macro(p, w->file, t + i, e - i);
				int d, self = 0;
				for (d = 0; mc && d < depth; d++)
					if (strcmp(stack[d], mc->m.name) == 0)
						self = 1;
				if (mc && !self) {
					walk_macro(w, mc, t, q, close, tk.loc, depth, stack);
					i = close + 1;
					continue;
				}
			}
		}
		w->fn(w->ctx, &tk);
		i = e;
	}
}

static void walk_def(const struct cs_model *m, const struct def *d,
                     tok_fn fn, void *ctx)
{
	struct walker w;
	w.m = m;
	w.file = d->file;
	w.fn = fn;
	w.ctx = ctx;
	w.expand = 1;
	w.tids = 0;
	w.site = d->bs + 1;
	walk_text(&w, d->t, d->tn, d->bs + 1, d->be, d->inv, 0, NULL);
}

/* The qualifier of k without blanks ("at::native"), malloc'd. */
static char *tok_qual(const struct tok *k)
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
		else if (!angle && !sp(c))
			*o++ = c;
	}
	*o = '\0';
	if (q[0] == ':' && q[1] == ':')
		memmove(q, q + 2, strlen(q + 2) + 1);
	return q;
}

/* ---------------- A. discovery ---------------- */

const char *cs_kind_name(int kind)
{
	switch (kind) {
	case CS_STUB_BACKED: return "stubs";
	case CS_DEVICE_GENERIC: return "device-generic";
	case CS_CPU_ONLY: return "cpu-only";
	default: return "unknown";
	}
}

int cs_stub_declared(const struct cs_model *m, const char *name,
                     struct cs_loc *at)
{
	const struct priv *p = P(m);
	const struct ilist *l;
	size_t i;
	long best = -1;
	if (!p || !name)
		return 0;
	l = imap_get(&p->declname, name, strlen(name));
	if (!l)
		return 0;
	for (i = 0; i < l->n; i++) {
		const struct sdecl *s = &p->decls[l->v[i]];
		if (best < 0 || (p->files[s->file].header &&
		                 !p->files[p->decls[best].file].header))
			best = l->v[i];
	}
	if (at)
		*at = loc_of(m, p->decls[best].file, p->decls[best].at);
	return 1;
}

/* The names of d's parameters (malloc'd vector of malloc'd strings):
 * the last identifier of each parameter, before a default value and
 * array brackets. */
static char **param_names(const struct def *d, size_t *np)
{
	char **args, **v = NULL;
	size_t na, i, n = 0;
	*np = 0;
	if (d->pe <= d->ps || d->pe >= d->tn)
		return NULL;
	args = lex_split_args(d->t, d->ps, d->pe, &na);
	for (i = 0; i < na; i++) {
		const char *a = args[i];
		size_t e = strlen(a), k, s;
		long depth = 0;
		for (k = 0; k < e; k++) {
			if (a[k] == '(' || a[k] == '<' || a[k] == '[' || a[k] == '{')
				depth++;
			else if (a[k] == ')' || a[k] == '>' || a[k] == ']' || a[k] == '}')
				depth--;
			else if (a[k] == '=' && depth == 0) {
				e = k;
				break;
			}
		}
		while (e > 0 && (sp(a[e - 1]) || a[e - 1] == ']')) {
			if (a[e - 1] == ']') {
				while (e > 0 && a[e - 1] != '[')
					e--;
			}
			if (e > 0)
				e--;
		}
		s = e;
		while (s > 0 && idc(a[s - 1]))
			s--;
		if (s < e && id0(a[s])) {
			v = xrealloc(v, (n + 1) * sizeof *v);
			v[n++] = xstrndup(a + s, e - s);
		}
	}
	lex_strv_free(args, na);
	*np = n;
	return v;
}

/* The end of the statement or block starting at t[i] (after an if's
 * condition or an else): the index after it. */
static size_t stmt_end(const char *t, size_t n, size_t i)
{
	i = skip_ws(t, n, i);
	if (i < n && t[i] == '{') {
		size_t c = match_close(t, n, i, '{', '}');
		return c < n ? c + 1 : n;
	}
	while (i < n && t[i] != ';') {
		if (t[i] == '"' || t[i] == '\'') {
			i = lex_skip_literal(t, n, i);
			continue;
		}
		if (t[i] == '(' || t[i] == '{') {
			size_t c = match_close(t, n, i, t[i], t[i] == '(' ? ')' : '}');
			i = c < n ? c + 1 : n;
			continue;
		}
		i++;
	}
	return i < n ? i + 1 : n;
}

/* ---------------- A. device guards ---------------- */

/* Devices a condition can require: DeviceType names (c10/core/DeviceType.h)
 * in the order guards are written; the Tensor methods is_cpu() ...
 * is_maia() test them.  A set of them is a bit mask; DEV_ANY: a path any
 * device may take. */
typedef uint32_t devset;
#define DEV_ANY ((devset)0xffffffffu)

static const struct {
	const char *name;     /* DeviceType::NAME, kNAME */
	const char *method;   /* is_METHOD() */
} devices[] = {
	{"CPU", "cpu"}, {"CUDA", "cuda"}, {"HIP", "hip"}, {"XPU", "xpu"},
	{"MPS", "mps"}, {"Meta", "meta"}, {"MTIA", "mtia"}, {"HPU", "hpu"},
	{"XLA", "xla"}, {"Lazy", "lazy"}, {"IPU", "ipu"}, {"Vulkan", "vulkan"},
	{"Metal", "metal"}, {"PrivateUse1", "privateuseone"}, {"MAIA", "maia"},
	{NULL, NULL}};

static int dev_mps(void)
{
	return 4; /* devices[4] */
}

/* t[a, b) trimmed */
static void trim_span(const char *t, size_t *a, size_t *b)
{
	while (*a < *b && sp(t[*a]))
		(*a)++;
	while (*b > *a && sp(t[*b - 1]))
		(*b)--;
}

/* A device written as a constant: kCUDA, DeviceType::CUDA, with the
 * qualifiers ::, at::, c10::; its index, or -1. */
static int dev_const(const char *t, size_t a, size_t b)
{
	int d;
	trim_span(t, &a, &b);
	for (;;) {
		if (starts_with(t + a, b - a, "::"))
			a += 2;
		else if (starts_with(t + a, b - a, "at::"))
			a += 4;
		else if (starts_with(t + a, b - a, "c10::"))
			a += 5;
		else
			break;
	}
	if (starts_with(t + a, b - a, "DeviceType::"))
		a += 12;
	else if (b - a > 1 && t[a] == 'k')
		a++;
	else
		return -1;
	for (d = 0; devices[d].name; d++)
		if (span_is(t + a, b - a, devices[d].name))
			return d;
	return -1;
}

/* t[a, b) is a device test written directly: `E.is_cuda()` (also ->, or
 * a bare is_cuda()), or `E.device().type() == kCUDA` / `E.device_type()
 * == DeviceType::CUDA` (either side; the other one ending in type()):
 * the device, else -1.  NEG: the test is `!=` instead of `==` (then the
 * result is the device compared against). */
static int dev_test(const char *t, size_t a, size_t b, int *neg)
{
	size_t i, eq = NOSZ;
	long depth = 0;
	int d;
	*neg = 0;
	trim_span(t, &a, &b);
	if (b - a > 5 && t[b - 1] == ')' && t[b - 2] == '(') {
		size_t e = b - 2, st = e;
		while (st > a && idc(t[st - 1]))
			st--;
		if (starts_with(t + st, e - st, "is_") &&
		    (st == a || t[st - 1] == '.' || (t[st - 1] == '>' && st - 1 > a &&
		                                     t[st - 2] == '-')))
			for (d = 0; devices[d].name; d++)
				if (span_is(t + st + 3, e - st - 3, devices[d].method))
					return d;
	}
	for (i = a; i + 1 < b; i++) {
		if (t[i] == '"' || t[i] == '\'') {
			i = lex_skip_literal(t, b, i) - 1;
			continue;
		}
		if (t[i] == '(')
			depth++;
		else if (t[i] == ')')
			depth--;
		else if (depth == 0 && (t[i] == '=' || t[i] == '!') && t[i + 1] == '=') {
			eq = i;
			break;
		}
	}
	if (eq == NOSZ)
		return -1;
	*neg = t[eq] == '!';
	{
		size_t la = a, lb = eq, ra = eq + 2, rb = b;
		trim_span(t, &la, &lb);
		trim_span(t, &ra, &rb);
		if ((d = dev_const(t, ra, rb)) >= 0 && ends_with(t + la, lb - la, "type()"))
			return d;
		if ((d = dev_const(t, la, lb)) >= 0 && ends_with(t + ra, rb - ra, "type()"))
			return d;
	}
	return -1;
}

/* The end of the branch of an if starting at t[i] (after its condition):
 * a block, or one simple statement up to its ';'; NOSZ for a compound
 * statement (for, while, another if ...), whose end is not looked for. */
static size_t branch_end(const char *t, size_t n, size_t i)
{
	static const char *const compound[] = {"if", "for", "while", "do",
	                                      "switch", "else", "try", NULL};
	size_t k;
	i = skip_ws(t, n, i);
	if (i < n && t[i] == '{') {
		size_t c = match_close(t, n, i, '{', '}');
		return c < n ? c + 1 : NOSZ;
	}
	for (k = 0; compound[k]; k++)
		if (word_at(t, n, i, compound[k]))
			return NOSZ;
	while (i < n && t[i] != ';') {
		if (t[i] == '"' || t[i] == '\'') {
			i = lex_skip_literal(t, n, i);
			continue;
		}
		if (t[i] == '(' || t[i] == '{') {
			size_t c = match_close(t, n, i, t[i], t[i] == '(' ? ')' : '}');
			if (c >= n)
				return NOSZ;
			i = c + 1;
			continue;
		}
		i++;
	}
	return i < n ? i + 1 : NOSZ;
}

/* The branch t[a, b) is `return false;` or `{ return false; }`. */
static int returns_false(const char *t, size_t a, size_t b)
{
	trim_span(t, &a, &b);
	if (b - a >= 2 && t[a] == '{' && t[b - 1] == '}') {
		a++;
		b--;
		trim_span(t, &a, &b);
	}
	if (!word_at(t, b, a, "return"))
		return 0;
	a += 6;
	trim_span(t, &a, &b);
	if (b == a || t[b - 1] != ';')
		return 0;
	b--;
	trim_span(t, &a, &b);
	return span_is(t + a, b - a, "false");
}

static int has_word(const char *t, size_t a, size_t b, const char *w)
{
	size_t i;
	for (i = a; i < b; i++)
		if (word_at(t, b, i, w))
			return 1;
	return 0;
}

/* A helper that returns true only on some devices: before its first
 * `return` of anything but false, a top-level `if (!DEVICE_TEST) return
 * false;` (or `if (E.device().type() != kCPU) return false;`), e.g.
 * `if (!self.device().is_cpu()) return false;`.  The devices it needs to
 * return true, or DEV_ANY. */
static devset helper_devices(const struct def *d)
{
	const char *t = d->t;
	size_t i = d->bs + 1, b = d->be < d->tn ? d->be : d->tn, e;
	int n;
	for (n = 0; n < 32; n++) {
		i = skip_ws(t, b, i);
		if (i >= b)
			break;
		if (word_at(t, b, i, "if")) {
			size_t o = skip_ws(t, b, i + 2), c;
			int neg, dv = -1;
			if (o >= b || t[o] != '(')
				break;
			c = match_close(t, b, o, '(', ')');
			if (c >= b || (e = branch_end(t, b, c + 1)) == NOSZ)
				break;
			if (returns_false(t, c + 1, e)) {
				size_t ca = o + 1, cb = c;
				trim_span(t, &ca, &cb);
				if (ca < cb && t[ca] == '!') {
					dv = dev_test(t, ca + 1, cb, &neg);
					if (neg)
						dv = -1;
				} else {
					dv = dev_test(t, ca, cb, &neg);
					if (!neg)
						dv = -1;
				}
				if (dv >= 0)
					return (devset)1 << dv;
			} else if (has_word(t, c + 1, e, "return")) {
				break;
			}
			i = e;
			continue;
		}
		if (t[i] == '{') {
			size_t c = match_close(t, b, i, '{', '}');
			if (c >= b || has_word(t, i, c, "return"))
				break;
			i = c + 1;
			continue;
		}
		e = stmt_end(t, b, i);
		if (has_word(t, i, e, "return") && !returns_false(t, i, e))
			break;
		i = e;
	}
	return DEV_ANY;
}

static devset cond_devices(const struct cs_model *m, const struct def *from,
                           const char *t, size_t a, size_t b);

/* A condition's atom: a device test, or a call of a helper that returns
 * true only on some devices (helper_devices; every definition of it, in
 * the caller's file when it has one, must agree). */
static devset atom_devices(const struct cs_model *m, const struct def *from,
                           const char *t, size_t a, size_t b)
{
	const struct priv *p = P(m);
	const struct ilist *l;
	size_t e, o, i;
	int neg, dv, same = 0;
	devset got = 0;
	trim_span(t, &a, &b);
	if (a >= b)
		return DEV_ANY;
	dv = dev_test(t, a, b, &neg);
	if (dv >= 0)
		return neg ? DEV_ANY : (devset)1 << dv;
	/* NAME(...) or Q::NAME(...) and nothing else */
	e = a;
	for (;;) {
		size_t s0 = e;
		e = ident_end(t, b, e);
		if (e == s0 || !id0(t[s0]))
			return DEV_ANY;
		o = skip_ws(t, b, e);
		if (o + 1 < b && t[o] == ':' && t[o + 1] == ':') {
			e = skip_ws(t, b, o + 2);
			continue;
		}
		break;
	}
	if (o >= b || t[o] != '(' || match_close(t, b, o, '(', ')') != b - 1)
		return DEV_ANY;
	{
		size_t ns = e;
		while (ns > a && idc(t[ns - 1]))
			ns--;
		l = imap_get(&p->defname, t + ns, e - ns);
	}
	if (!l)
		return DEV_ANY;
	for (i = 0; i < l->n; i++)
		if (p->defs[l->v[i]].file == from->file)
			same = 1;
	for (i = 0; i < l->n; i++) {
		const struct def *d = &p->defs[l->v[i]];
		devset h;
		if (p->files[d->file].cpu || (same && d->file != from->file))
			continue;
		h = helper_devices(d);
		if (h == DEV_ANY || (got && h != got))
			return DEV_ANY;
		got = h;
	}
	return got ? got : DEV_ANY;
}

/* The devices a condition t[a, b) requires: `||` joins alternatives
 * (union), `&&` terms that each must hold (intersection; a term that
 * tests no device allows any), parentheses group, `!` allows any. */
static devset cond_or(const struct cs_model *m, const struct def *from,
                      const char *t, size_t *i, size_t b);

static devset cond_unary(const struct cs_model *m, const struct def *from,
                         const char *t, size_t *i, size_t b)
{
	size_t a = skip_ws(t, b, *i), k;
	long depth = 0;
	if (a < b && t[a] == '(') {
		size_t c = match_close(t, b, a, '(', ')'), n;
		if (c < b) {
			n = skip_ws(t, b, c + 1);
			if (n >= b || (n + 1 < b && ((t[n] == '&' && t[n + 1] == '&') ||
			                             (t[n] == '|' && t[n + 1] == '|')))) {
				size_t in = a + 1;
				devset r = cond_or(m, from, t, &in, c);
				*i = c + 1;
				return r;
			}
		}
	}
	/* an atom: up to a top-level && or || */
	for (k = a; k < b; k++) {
		if (t[k] == '"' || t[k] == '\'') {
			k = lex_skip_literal(t, b, k) - 1;
			continue;
		}
		if (t[k] == '(' || t[k] == '[' || t[k] == '{')
			depth++;
		else if (t[k] == ')' || t[k] == ']' || t[k] == '}')
			depth--;
		else if (depth == 0 && k + 1 < b &&
		         ((t[k] == '&' && t[k + 1] == '&') ||
		          (t[k] == '|' && t[k + 1] == '|')))
			break;
	}
	*i = k;
	if (a < b && t[a] == '!')
		return DEV_ANY;
	return atom_devices(m, from, t, a, k);
}

static devset cond_and(const struct cs_model *m, const struct def *from,
                       const char *t, size_t *i, size_t b)
{
	devset r = cond_unary(m, from, t, i, b);
	for (;;) {
		size_t k = skip_ws(t, b, *i);
		if (k + 1 < b && t[k] == '&' && t[k + 1] == '&') {
			*i = k + 2;
			r &= cond_unary(m, from, t, i, b);
			continue;
		}
		return r;
	}
}

static devset cond_or(const struct cs_model *m, const struct def *from,
                      const char *t, size_t *i, size_t b)
{
	devset r = cond_and(m, from, t, i, b);
	for (;;) {
		size_t k = skip_ws(t, b, *i);
		if (k + 1 < b && t[k] == '|' && t[k + 1] == '|') {
			*i = k + 2;
			r |= cond_and(m, from, t, i, b);
			continue;
		}
		return r;
	}
}

static devset cond_devices(const struct cs_model *m, const struct def *from,
                           const char *t, size_t a, size_t b)
{
	size_t i = a;
	devset r = cond_or(m, from, t, &i, b);
	return skip_ws(t, b, i) == b ? r : DEV_ANY;
}

/* A span of a body that runs only on some devices: the branch of an `if`
 * whose condition requires them. */
struct gspan {
	size_t a, b;
	devset devs;
};

/* "CUDA, XPU" for a set without MPS, NULL for one with it (MPS may take
 * that path); "" for an empty set (no device does). */
static char *devset_guard(devset s)
{
	struct buf o;
	int d;
	if (s & ((devset)1 << dev_mps()))
		return NULL;
	buf_init(&o);
	for (d = 0; devices[d].name; d++)
		if (s & ((devset)1 << d))
			buf_printf(&o, "%s%s", o.len ? ", " : "", devices[d].name);
	return o.data ? o.data : xstrdup("");
}

struct disc {
	const struct cs_model *m;
	char **params;        /* the current definition's parameter names */
	size_t nparams;
	struct cs_discovery *out;
	long *q;
	int *qd;
	size_t qn, qcap;
	struct visited {      /* the definitions reached so far */
		long *def;        /* open addressing on the def index (-1 free) */
		devset *reach;    /* the devices the paths found to it run on */
		int *depth;       /* the depth of its first reach */
		size_t cap, n;
	} vis;
	long cur;
	devset cur_reach;     /* vis.reach of cur when its walk began */
	int depth;
	size_t cap_stubs;
	int ops;              /* calls of operators seen (at::, methods) */
	devset *sdevs;        /* per stub found: the same for its reaches */
	struct gspan *spans;  /* the guarded branches of the current body met
	                         so far (its `if`s come before their branches) */
	size_t nspans, cap_spans;
	devset here;          /* the devices the current token runs on */
};

static int ns_is(const char *ns, const char *w)
{
	return strcmp(ns, w) == 0;
}

/* ns ends with "::tail", or is tail */
static int ns_ends(const char *ns, const char *tail)
{
	size_t a = strlen(ns), b = strlen(tail);
	if (a == b)
		return strcmp(ns, tail) == 0;
	return a > b + 2 && strcmp(ns + a - b, tail) == 0 &&
	       ns[a - b - 1] == ':' && ns[a - b - 2] == ':';
}

/* caller's namespace is ns or nested in it */
static int ns_visible(const char *callee_ns, const char *caller_ns)
{
	size_t a = strlen(callee_ns);
	if (!a)
		return 1;
	return strncmp(caller_ns, callee_ns, a) == 0 &&
	       (caller_ns[a] == '\0' || caller_ns[a] == ':');
}

static void disc_enqueue(struct disc *x, long d, int depth)
{
	if (x->qn == x->qcap) {
		x->qcap = x->qcap ? x->qcap * 2 : 32;
		x->q = xrealloc(x->q, x->qcap * sizeof *x->q);
		x->qd = xrealloc(x->qd, x->qcap * sizeof *x->qd);
	}
	x->q[x->qn] = d;
	x->qd[x->qn] = depth;
	x->qn++;
}

/* The slot of definition d in v (free or holding d). */
static size_t vis_slot(const struct visited *v, long d)
{
	size_t i = ((size_t)d * 2654435761u) & (v->cap - 1);
	while (v->def[i] >= 0 && v->def[i] != d)
		i = (i + 1) & (v->cap - 1);
	return i;
}

static size_t vis_add(struct visited *v, long d)
{
	size_t i;
	if ((v->n + 1) * 2 > v->cap) {
		struct visited o = *v;
		size_t k;
		v->cap = o.cap ? o.cap * 2 : 64;
		v->def = xmalloc(v->cap * sizeof *v->def);
		v->reach = xmalloc(v->cap * sizeof *v->reach);
		v->depth = xmalloc(v->cap * sizeof *v->depth);
		for (k = 0; k < v->cap; k++)
			v->def[k] = -1;
		for (k = 0; k < o.cap; k++)
			if (o.def[k] >= 0) {
				i = vis_slot(v, o.def[k]);
				v->def[i] = o.def[k];
				v->reach[i] = o.reach[k];
				v->depth[i] = o.depth[k];
			}
		free(o.def);
		free(o.reach);
		free(o.depth);
	}
	i = vis_slot(v, d);
	v->def[i] = d;
	v->n++;
	return i;
}

static void vis_free(struct visited *v)
{
	free(v->def);
	free(v->reach);
	free(v->depth);
	memset(v, 0, sizeof *v);
}

/* Reach definition d at depth on the devices x->here.  A definition is
 * walked once; reached again on devices not counted yet, it is walked
 * again at the depth of its first reach, which finds the same stubs and
 * calls and only widens their devices. */
static void disc_push(struct disc *x, long d, int depth)
{
	size_t i = x->vis.cap ? vis_slot(&x->vis, d) : 0;
	if (x->vis.cap && x->vis.def[i] == d) {
		if (x->here & ~x->vis.reach[i]) {
			x->vis.reach[i] |= x->here;
			disc_enqueue(x, d, x->vis.depth[i]);
		}
		return;
	}
	if (depth > CS_MAX_DEPTH) {
		x->out->truncated = 1;
		return;
	}
	i = vis_add(&x->vis, d);
	x->vis.reach[i] = x->here;
	x->vis.depth[i] = depth;
	disc_enqueue(x, d, depth);
}

/* Push the definitions of name reached from def `from` with qualifier q
 * (cppscan.h, cs_discover). */
static void disc_resolve(struct disc *x, const char *name, size_t nn,
                         const char *q)
{
	const struct priv *p = P(x->m);
	const struct def *from = &p->defs[x->cur];
	const struct ilist *l = imap_get(&p->defname, name, nn);
	size_t i;
	int same = 0, mode;
	const char *tail = NULL;
	if (!l)
		return;
	if (!*q)
		mode = 0;
	else if (strcmp(q, "at::native") == 0 || strcmp(q, "native") == 0)
		mode = 1;
	else if (strncmp(q, "at::native::", 12) == 0) {
		mode = 2;
		tail = q + 12;
	} else if (strncmp(q, "native::", 8) == 0) {
		mode = 2;
		tail = q + 8;
	} else if (strcmp(q, "at") == 0 || strncmp(q, "at::", 4) == 0 ||
	           strcmp(q, "std") == 0 || strncmp(q, "std::", 5) == 0 ||
	           strcmp(q, "c10") == 0 || strncmp(q, "c10::", 5) == 0) {
		x->ops++;
		return;
	} else {
		mode = 3;
		tail = q;
	}
	for (i = 0; i < l->n; i++) {
		const struct def *d = &p->defs[l->v[i]];
		if (d->file == from->file && !p->files[d->file].cpu)
			same = 1;
	}
	for (i = 0; i < l->n; i++) {
		const struct def *d = &p->defs[l->v[i]];
		const char *last;
		if (p->files[d->file].cpu)
			continue;
		switch (mode) {
		case 0:
			if (same ? d->file != from->file
			         : (d->is_static && !p->files[d->file].header))
				continue;
			if (!same && !ns_visible(d->ns, from->ns))
				continue;
			break;
		case 1:
			if (!ns_is(d->ns, "at::native"))
				continue;
			break;
		case 2:
			if (!ns_ends(d->ns, tail))
				continue;
			break;
		default:
			last = strrchr(tail, ':');
			last = last ? last + 1 : tail;
			if (!ns_ends(d->ns, tail) &&
			    !(d->owner && strcmp(d->owner, last) == 0))
				continue;
			break;
		}
		if (d->file != from->file && d->is_static && !p->files[d->file].header)
			continue;
		disc_push(x, l->v[i], x->depth + 1);
	}
}

/* The member functions of struct name (same file first). */
static void disc_struct(struct disc *x, const char *name, size_t nn)
{
	const struct priv *p = P(x->m);
	const struct def *from = &p->defs[x->cur];
	const struct ilist *l = imap_get(&p->owners, name, nn);
	size_t i;
	int same = 0;
	if (!l)
		return;
	for (i = 0; i < l->n; i++)
		if (p->defs[l->v[i]].file == from->file)
			same = 1;
	for (i = 0; i < l->n; i++) {
		const struct def *d = &p->defs[l->v[i]];
		if (p->files[d->file].cpu || d->kind == D_META)
			continue;
		if (same && d->file != from->file)
			continue;
		disc_push(x, l->v[i], x->depth + 1);
	}
}

static int strstr_n(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w), i;
	for (i = 0; i + k <= n; i++)
		if (memcmp(s + i, w, k) == 0)
			return 1;
	return 0;
}

/* A stub: declared by DECLARE_DISPATCH, or named *_stub and not a
 * function defined under CS_NATIVE_REL (2.6.0 has kernels named
 * empty_affine_quantized_other_backends_stub). */
static int is_stub_name(const struct priv *p, const char *s, size_t n)
{
	if (imap_get(&p->declname, s, n))
		return 1;
	return n > 5 && ends_with(s, n, "_stub") && !imap_get(&p->defname, s, n);
}

static void disc_stub(struct disc *x, const struct tok *k)
{
	const struct priv *p = P(x->m);
	const struct def *from = &p->defs[x->cur];
	struct cs_discovery *o = x->out;
	struct cs_stub *s;
	size_t i, n = k->e - k->s;
	for (i = 0; i < o->nstubs; i++)
		if (span_is(k->t + k->s, n, o->stubs[i].name)) {
			x->sdevs[i] |= x->here;
			return;
		}
	if (o->nstubs == x->cap_stubs) {
		x->cap_stubs = x->cap_stubs ? x->cap_stubs * 2 : 16;
		o->stubs = xrealloc(o->stubs, x->cap_stubs * sizeof *o->stubs);
		x->sdevs = xrealloc(x->sdevs, x->cap_stubs * sizeof *x->sdevs);
	}
	x->sdevs[o->nstubs] = x->here;
	s = &o->stubs[o->nstubs++];
	memset(s, 0, sizeof *s);
	s->name = xstrndup(k->t + k->s, n);
	s->at = loc_of(x->m, k->file, k->loc);
	s->in = from->owner ? xasprintf("%s::%s", from->owner, from->name)
	                    : xstrdup(from->name);
	s->how = k->call ? CS_CALLED : CS_PASSED;
	s->depth = x->depth;
	s->declared = cs_stub_declared(x->m, s->name, &s->decl);
	s->defined = imap_get(&p->defined, s->name, n) != NULL;
}

static void disc_cpu(struct disc *x, const struct tok *k, const char *what)
{
	if (x->out->cpu.file || x->depth > CS_CPU_DEPTH)
		return;
	x->out->cpu = loc_of(x->m, k->file, k->loc);
	x->out->cpu_why = xstrdup(what);
	x->out->cpu_depth = x->depth;
}

/* An `if` written in the body being walked (not in a macro expansion):
 * when its condition requires some devices, its branch is guarded. */
static void disc_if(struct disc *x, const struct tok *k)
{
	const struct def *d = &P(x->m)->defs[x->cur];
	const char *t = k->t;
	size_t o = k->open, c = k->close, e;
	devset dv;
	if (!k->call) { /* if constexpr (...) */
		o = skip_ws(t, k->tn, k->e);
		if (!word_at(t, k->tn, o, "constexpr"))
			return;
		o = skip_ws(t, k->tn, o + 9);
		if (o >= k->tn || t[o] != '(')
			return;
		c = match_close(t, k->tn, o, '(', ')');
	}
	if (c >= k->tn)
		return;
	dv = cond_devices(x->m, d, t, o + 1, c);
	if (dv == DEV_ANY || (e = branch_end(t, k->tn, c + 1)) == NOSZ)
		return;
	GROW(x->spans, x->nspans, x->cap_spans);
	x->spans[x->nspans].a = c + 1;
	x->spans[x->nspans].b = e;
	x->spans[x->nspans].devs = dv;
	x->nspans++;
}

static void disc_tok(void *ctx, const struct tok *k)
{
	struct disc *x = ctx;
	const struct priv *p = P(x->m);
	const char *s = k->t + k->s;
	size_t n = k->e - k->s;
	char *q;

	if (n == 2 && s[0] == 'i' && s[1] == 'f') {
		if (k->t == p->defs[x->cur].t && k->qs == k->qe && !k->member)
			disc_if(x, k);
		return;
	}

	if (k->member) {
		if (k->call)
			x->ops++;
		return;
	}
	if (k->scope)
		return;
	if (k->qs == k->qe) {
		size_t i;
		for (i = 0; i < x->nparams; i++)
			if (span_is(s, n, x->params[i]))
				return; /* a parameter: `stub(iter.device_type(), iter)` */
	}
	{
		/* the devices this token runs on: those of the paths to this
		 * definition, within the guarded branches around it */
		size_t i;
		x->here = x->cur_reach;
		for (i = 0; i < x->nspans; i++)
			if (x->spans[i].a <= k->site && k->site < x->spans[i].b)
				x->here &= x->spans[i].devs;
	}
	if (is_stub_name(p, s, n)) {
		disc_stub(x, k);
		return;
	}
	if (!k->call) {
		return;
	}
	if (starts_with(s, n, "AT_DISPATCH_") && !strstr_n(s, n, "LAYOUTS")) {
		char *w = xstrndup(s, n);
		disc_cpu(x, k, w);
		free(w);
		return;
	}
	if (is_keyword(s, n))
		return;
	q = tok_qual(k);
	if (starts_with(s, n, "cpu_") ||
	    (strlen(q) >= 3 && strcmp(q + strlen(q) - 3, "cpu") == 0 &&
	     (strlen(q) == 3 || q[strlen(q) - 4] == ':'))) {
		char *w = *q ? xasprintf("%s::%.*s", q, (int)n, s)
		             : xstrndup(s, n);
		disc_cpu(x, k, w);
		free(w);
		free(q);
		return;
	}
	/* functors named in the template arguments, or constructed */
	if (k->tb > k->ta) {
		size_t i = k->ta;
		while (i < k->tb) {
			if (id0(k->t[i]) && (i == 0 || !idc(k->t[i - 1]))) {
				size_t e = ident_end(k->t, k->tb, i);
				disc_struct(x, k->t + i, e - i);
				i = e;
			} else {
				i++;
			}
		}
	}
	disc_struct(x, s, n);
	disc_resolve(x, s, n, q);
	free(q);
}

int cs_discover(const struct cs_model *m, const char *kernel,
                struct cs_discovery *out)
{
	const struct priv *p = P(m);
	const struct ilist *l;
	struct disc x;
	size_t i, n;
	struct buf why;

	memset(out, 0, sizeof *out);
	n = kernel ? strlen(kernel) : 0;
	for (i = 0; i < n; i++)
		if (!idc(kernel[i]))
			break;
	if (!n || i < n || !id0(kernel[0])) {
		out->why = xasprintf("'%s' is not a kernel name", kernel ? kernel : "");
		return out->kind;
	}
	if (!m->have_sources) {
		out->no_sources = 1;
		out->why = xstrdup("no C++ sources in this tree (" CS_NATIVE_REL
		                   " holds no .cpp file)");
		return out->kind;
	}
	memset(&x, 0, sizeof x);
	x.m = m;
	x.out = out;
	x.here = DEV_ANY;
	l = imap_get(&p->defname, kernel, n);
	for (i = 0; l && i < l->n; i++) {
		const struct def *d = &p->defs[l->v[i]];
		if (p->files[d->file].cpu || !ns_is(d->ns, "at::native") || d->owner)
			continue;
		if (!out->ndefs)
			out->def = loc_of(m, d->file, d->at);
		out->ndefs++;
		disc_push(&x, l->v[i], 0);
	}
	if (!out->ndefs) {
		vis_free(&x.vis);
		out->why = xasprintf("no definition of %s in namespace at::native under "
		                     CS_NATIVE_REL " (%lu files read)",
		                     kernel, (unsigned long)m->nfiles);
		return out->kind;
	}
	for (i = 0; i < x.qn; i++) {
		x.cur = x.q[i];
		x.depth = x.qd[i];
		x.cur_reach = x.vis.reach[vis_slot(&x.vis, x.cur)];
		x.params = param_names(&p->defs[x.cur], &x.nparams);
		x.nspans = 0;
		walk_def(m, &p->defs[x.cur], disc_tok, &x);
		lex_strv_free(x.params, x.nparams);
		x.params = NULL;
		x.nparams = 0;
	}
	for (i = 0; i < out->nstubs; i++)
		out->stubs[i].guard = devset_guard(x.sdevs[i]);
	free(x.q);
	free(x.qd);
	vis_free(&x.vis);
	free(x.sdevs);
	free(x.spans);
	buf_init(&why);
	if (out->nstubs) {
		out->kind = CS_STUB_BACKED;
		buf_printf(&why, "%s reaches ", kernel);
		for (i = 0; i < out->nstubs; i++) {
			const struct cs_stub *s = &out->stubs[i];
			buf_printf(&why, "%s%s (%s %s:%lu%s%s%s%s%s)", i ? ", " : "",
			           s->name,
			           s->how == CS_CALLED ? "called at" : "passed at",
			           s->at.file, s->at.line, s->depth ? ", in " : "",
			           s->depth ? s->in : "", s->declared ? "" : ", undeclared",
			           s->guard ? ", only on " : "", s->guard ? s->guard : "");
		}
	} else if (out->cpu.file) {
		out->kind = CS_CPU_ONLY;
		buf_printf(&why, "%s reaches no stub and runs CPU code itself: %s at %s:%lu",
		           kernel, out->cpu_why, out->cpu.file, out->cpu.line);
	} else {
		out->kind = CS_DEVICE_GENERIC;
		buf_printf(&why, "%s (%s:%lu) reaches no stub and dispatches no dtype: "
		           "it calls only other operators", kernel, out->def.file,
		           out->def.line);
	}
	if (out->truncated && out->kind != CS_STUB_BACKED)
		buf_printf(&why, " (calls deeper than %d not followed)", CS_MAX_DEPTH);
	out->why = why.data;
	return out->kind;
}

void cs_discovery_free(struct cs_discovery *d)
{
	size_t i;
	for (i = 0; i < d->nstubs; i++) {
		free(d->stubs[i].name);
		free(d->stubs[i].in);
		free(d->stubs[i].guard);
	}
	free(d->stubs);
	free(d->cpu_why);
	free(d->why);
	memset(d, 0, sizeof *d);
}

/* ---------------- B. CPU dtypes ---------------- */

struct dtx {
	const struct cs_model *m;
	struct cs_dtypes *out;
	struct buf notes;
	size_t sites;         /* dispatch macros read in this function */
	int nested;           /* a dispatch inside another one's arguments */
	unsigned long in_tid; /* the outermost dispatch being read: its text */
	size_t in_close;      /* and its ')' */
	long *calls;          /* callee definitions, for the helper fallback */
	size_t ncalls, capcalls;
	long cur;
};

static void add_note(struct buf *b, const char *fmt, const char *arg)
{
	char *s = xasprintf(fmt, arg);
	if (!b->data || !strstr(b->data, s)) {
		if (b->len)
			buf_puts(b, "; ");
		buf_puts(b, s);
	}
	free(s);
}

/* `==` comparisons with a dtype in t[a, b): the dtypes compared */
static cs_dtset eq_dtypes(const char *t, size_t a, size_t b)
{
	cs_dtset set = 0;
	size_t i;
	for (i = a; i + 1 < b; i++) {
		size_t l0, l1, r0, r1;
		int d;
		if (t[i] == '"' || t[i] == '\'') {
			i = lex_skip_literal(t, b, i) - 1;
			continue;
		}
		if (t[i] != '=' || t[i + 1] != '=' || (i > a && (t[i - 1] == '=' ||
		    t[i - 1] == '!' || t[i - 1] == '<' || t[i - 1] == '>')))
			continue;
		/* right operand: a qualified name */
		r0 = skip_ws(t, b, i + 2);
		r1 = r0;
		while (r1 < b && (idc(t[r1]) || t[r1] == ':'))
			r1++;
		d = r1 > r0 ? dtype_span(t + r0, r1 - r0) : -1;
		if (d >= 0)
			set |= CS_BIT(d);
		/* left operand */
		l1 = back_ws(t, a, i);
		l0 = l1;
		while (l0 > a && (idc(t[l0 - 1]) || t[l0 - 1] == ':'))
			l0--;
		d = l1 > l0 ? dtype_span(t + l0, l1 - l0) : -1;
		if (d >= 0)
			set |= CS_BIT(d);
		i++;
	}
	return set;
}

static void dt_site(struct dtx *x, const struct tok *k, const char *name)
{
	struct cs_dtypes *o = x->out;
	char **args;
	size_t na, i, first = 0, last = 0;
	cs_dtset base = 0;
	int extra = 0;

	if (k->close >= k->tn)
		return;
	args = lex_split_args(k->t, k->open, k->close, &na);
	if (x->in_tid == k->tid && k->s < x->in_close &&
	    strcmp(name, "AT_DISPATCH_SWITCH") != 0 &&
	    strncmp(name, "AT_DISPATCH_CASE", 16) != 0)
		x->nested = 1;
	if (strcmp(name, "AT_DISPATCH_SWITCH") == 0) {
		x->sites++;
	} else if (strcmp(name, "AT_DISPATCH_CASE") == 0) {
		if (na >= 1 && type_arg(args[0], &o->types) != 0)
			add_note(&x->notes, "cannot read the type '%s' of AT_DISPATCH_CASE",
			         args[0]);
	} else if (strcmp(name, "AT_DISPATCH_V2") == 0) {
		x->sites++;
		for (i = 3; i < na; i++)
			if (type_arg(args[i], &o->types) != 0)
				add_note(&x->notes, "cannot read the type '%s' of AT_DISPATCH_V2",
				         args[i]);
	} else if (strcmp(name, "AT_DISPATCH_INDEX_TYPES") == 0) {
		add_note(&x->notes, "%s (index tensors) left out", name);
	} else if (cs_dispatch_macro_types(name, &base, &extra) == 0) {
		o->types |= base;
		if (strncmp(name, "AT_DISPATCH_CASE_", 17) != 0)
			x->sites++;
		first = 0;
		last = (size_t)extra < na ? (size_t)extra : na;
		for (i = first; i < last; i++)
			if (type_arg(args[i], &o->types) != 0)
				add_note(&x->notes, "cannot read a type argument of %s", name);
	} else {
		add_note(&x->notes, "cannot read the dispatch macro %s", name);
	}
	if (strncmp(name, "AT_DISPATCH_CASE", 16) != 0 &&
	    strcmp(name, "AT_DISPATCH_SWITCH") != 0 &&
	    (x->in_tid != k->tid || k->s >= x->in_close)) {
		x->in_tid = k->tid;
		x->in_close = k->close;
	}
	lex_strv_free(args, na);
}

static void dt_tok(void *ctx, const struct tok *k)
{
	struct dtx *x = ctx;
	const struct priv *p = P(x->m);
	const char *s = k->t + k->s;
	size_t n = k->e - k->s;
	if (k->member || k->scope || !k->call)
		return;
	if (starts_with(s, n, "AT_DISPATCH")) {
		char *name = xstrndup(s, n);
		dt_site(x, k, name);
		free(name);
		return;
	}
	if (span_is(s, n, "if") && k->close < k->tn) {
		cs_dtset b = eq_dtypes(k->t, k->open + 1, k->close);
		if (b) {
			char *names = cs_dtset_names(b, ", ");
			x->out->branch |= b;
			x->out->types |= b;
			add_note(&x->notes, "a dtype branch handles %s", names);
			free(names);
		}
		return;
	}
	if (is_keyword(s, n))
		return;
	/* calls, for the helper fallback: a qualified name in a namespace
	 * ending in its qualifier; else the same file, then the cpu/ folder;
	 * a struct's name: its member functions (a functor called) */
	{
		const struct def *from = &p->defs[x->cur];
		char *q = tok_qual(k);
		int pass;
		for (pass = 0; pass < 2; pass++) {
			const struct ilist *l = pass == 0 ? imap_get(&p->defname, s, n)
			                                  : imap_get(&p->owners, s, n);
			size_t i;
			int same = 0, qual = 0;
			if (!l)
				continue;
			for (i = 0; i < l->n; i++) {
				const struct def *d = &p->defs[l->v[i]];
				if (l->v[i] == x->cur || d->kind == D_META)
					continue;
				if (*q && pass == 0 && ns_ends(d->ns, q))
					qual = 1;
				if (d->file == from->file)
					same = 1;
			}
			for (i = 0; i < l->n; i++) {
				const struct def *d = &p->defs[l->v[i]];
				if (l->v[i] == x->cur || d->kind == D_META)
					continue;
				if (qual ? !ns_ends(d->ns, q)
				         : same ? d->file != from->file
				                : !p->files[d->file].cpu)
					continue;
				GROW(x->calls, x->ncalls, x->capcalls);
				x->calls[x->ncalls++] = l->v[i];
			}
		}
		free(q);
	}
}

/* The definitions of the registered function fn: in the registering file
 * first, else in the cpu/ folder, else anywhere. */
static size_t reg_fn_defs(const struct cs_model *m, const struct reg *r,
                          long *v, size_t max)
{
	const struct priv *p = P(m);
	const struct ilist *l = imap_get(&p->defname, r->fn, strlen(r->fn));
	size_t i, n = 0;
	int pass;
	if (!l)
		return 0;
	for (pass = 0; pass < 3 && n == 0; pass++)
		for (i = 0; i < l->n && n < max; i++) {
			const struct def *d = &p->defs[l->v[i]];
			if ((pass == 0 && d->file == r->file) ||
			    (pass == 1 && p->files[d->file].cpu) || pass == 2)
				v[n++] = l->v[i];
		}
	return n;
}

int cs_cpu_dtypes(const struct cs_model *m, const char *stub,
                  struct cs_dtypes *out)
{
	const struct priv *p = P(m);
	const struct ilist *l;
	const struct reg *r = NULL;
	struct dtx x;
	long defs[16], *queue = NULL;
	int *qdepth = NULL;
	unsigned char *seen;
	size_t nd, i, qn = 0, qcap = 0;
	int depth_used = 0;

	memset(out, 0, sizeof *out);
	if (!m->have_sources) {
		out->why = xstrdup("no C++ sources in this tree (" CS_NATIVE_REL
		                   " holds no .cpp file)");
		out->notes = xstrdup("");
		return 1;
	}
	l = stub ? imap_get(&p->regname, stub, strlen(stub)) : NULL;
	for (i = 0; l && i < l->n; i++) {
		const struct reg *c = &p->regs[l->v[i]];
		if (!r || (p->files[c->file].cpu && !p->files[r->file].cpu))
			r = c;
	}
	if (!r) {
		out->why = xasprintf("no CPU registration of %s under " CS_NATIVE_REL
		                     " (REGISTER_DISPATCH and friends)", stub ? stub : "");
		out->notes = xstrdup("");
		return 1;
	}
	out->registered = 1;
	out->reg = loc_of(m, r->file, r->at);
	out->macro = xstrdup(r->macro);
	if (!r->fn) {
		out->null_kernel = 1;
		out->why = xasprintf("%s registers no CPU kernel (nullptr) at %s:%lu",
		                     stub, out->reg.file, out->reg.line);
		out->notes = xstrdup("");
		return 1;
	}
	out->fn = xstrdup(r->fn);
	nd = reg_fn_defs(m, r, defs, sizeof defs / sizeof *defs);
	if (!nd) {
		out->why = xasprintf("%s registers %s (%s:%lu), whose definition was "
		                     "not found", stub, r->fn, out->reg.file,
		                     out->reg.line);
		out->notes = xstrdup("");
		return 1;
	}
	out->def = loc_of(m, p->defs[defs[0]].file, p->defs[defs[0]].at);
	memset(&x, 0, sizeof x);
	x.m = m;
	x.out = out;
	buf_init(&x.notes);
	seen = xcalloc(m->ndefs, 1);
	for (i = 0; i < nd; i++) {
		GROW(queue, qn, qcap);
		qdepth = xrealloc(qdepth, qcap * sizeof *qdepth);
		queue[qn] = defs[i];
		qdepth[qn++] = 0;
		seen[defs[i]] = 1;
	}
	/* breadth first: the function itself; its callees only while nothing
	 * dispatches */
	for (i = 0; i < qn; i++) {
		size_t k, before = x.sites;
		int d = qdepth[i];
		if (d > 0 && out->nsites + x.sites > 0 && d > depth_used)
			break;
		x.cur = queue[i];
		x.ncalls = 0;
		x.in_tid = 0;
		walk_def(m, &p->defs[queue[i]], dt_tok, &x);
		if (x.sites > before && d > 0) {
			add_note(&x.notes, "read through the helper %s",
			         p->defs[queue[i]].name);
			depth_used = d;
		}
		if (d < DT_DEPTH)
			for (k = 0; k < x.ncalls; k++)
				if (!seen[x.calls[k]]) {
					seen[x.calls[k]] = 1;
					GROW(queue, qn, qcap);
					qdepth = xrealloc(qdepth, qcap * sizeof *qdepth);
					queue[qn] = x.calls[k];
					qdepth[qn++] = d + 1;
				}
		if (d == 0 && i + 1 < qn && qdepth[i + 1] > 0 && x.sites > 0)
			break; /* the function itself dispatches: callees not read */
	}
	out->nsites = x.sites;
	if (x.nested)
		add_note(&x.notes, "%s", "nested dispatch (union of all levels)");
	if (x.sites > 1)
		add_note(&x.notes, "%s", "several dispatch sites (union)");
	free(queue);
	free(qdepth);
	free(x.calls);
	free(seen);
	out->notes = x.notes.data ? x.notes.data : xstrdup("");
	if (!out->types) {
		out->why = xasprintf("no dtype dispatch could be read in %s (%s:%lu)",
		                     r->fn, out->def.file, out->def.line);
		return 1;
	}
	out->found = 1;
	return 0;
}

void cs_dtypes_free(struct cs_dtypes *d)
{
	free(d->fn);
	free(d->macro);
	free(d->notes);
	free(d->why);
	memset(d, 0, sizeof *d);
}

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

static int builder_rule(const char *s, size_t n)
{
	static const struct {
		const char *name;
		int rule;
	} b[] = {{"build_borrowing_unary_op", CS_RULE_SAME},
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
	size_t i;
	for (i = 0; b[i].name; i++)
		if (span_is(s, n, b[i].name))
			return b[i].rule;
	return -1;
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
			size_t r0 = skip_ws(t, b, i + 2), r1 = r0, l1, l0;
			int d;
			while (r1 < b && (idc(t[r1]) || t[r1] == ':'))
				r1++;
			d = r1 > r0 ? dtype_span(t + r0, r1 - r0) : -1;
			if (d < 0) {
				l1 = back_ws(t, a, i);
				l0 = l1;
				while (l0 > a && (idc(t[l0 - 1]) || t[l0 - 1] == ':'))
					l0--;
				d = l1 > l0 ? dtype_span(t + l0, l1 - l0) : -1;
			}
			if (d >= 0)
				set |= CS_BIT(d);
		} else if (t[i] == '!' && i + 1 < b) {
			size_t r = skip_ws(t, b, i + 1), e;
			int neg_complex = 0;
			/* !x.is_complex() */
			e = r;
			while (e < b && (idc(t[e]) || t[e] == '.' || t[e] == ':' ||
			                 t[e] == '(' || t[e] == ')' || t[e] == '-' ||
			                 t[e] == '>'))
				e++;
			{
				size_t k;
				for (k = r; k + 10 <= e; k++)
					if (word_at(t, e, k, "is_complex") ||
					    word_at(t, e, k, "isComplexType"))
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
		if (!id0(t[i]) || (i > a && idc(t[i - 1])))
			continue;
		if (word_at(t, b, i, "TensorIteratorConfig"))
			*config = 1;
		if (word_at(t, b, i, "promote_integer_inputs_to_float")) {
			size_t q = skip_ws(t, b, i + 31);
			if (q < b && t[q] == '(' &&
			    word_at(t, b, skip_ws(t, b, q + 1), "true"))
				rr = CS_RULE_FLOAT;
		}
		if (word_at(t, b, i, "declare_static_dtype") ||
		    word_at(t, b, i, "declare_static_dtype_and_device")) {
			size_t q = skip_ws(t, b, ident_end(t, b, i));
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

static void rule_tok(void *ctx, const struct tok *k)
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
	if (span_is(s, n, "build") && k->close < k->tn) {
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
	if ((span_is(s, n, "TORCH_CHECK") || span_is(s, n, "TORCH_CHECK_TYPE")) &&
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
 * tests (cppscan.h cs_output_rule); 0 when it is not one. */
static cs_dtset cond_dtypes(const char *t, size_t a, size_t b)
{
	cs_dtset set = 0;
	size_t i = a;
	a = skip_ws(t, b, a);
	b = back_ws(t, a, b);
	while (a < b && t[a] == '(' && match_close(t, b, a, '(', ')') == b - 1) {
		a = skip_ws(t, b, a + 1);
		b = back_ws(t, a, b - 1);
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
			size_t s = skip_ws(t, e, i), k;
			if (s < e && t[s] == '!')
				return 0;
			one = eq_dtypes(t, s, e);
			for (k = s; k < e && !one; k++) {
				if (word_at(t, e, k, "isIntegralType")) {
					size_t o = skip_ws(t, e, k + 14), c;
					if (o < e && t[o] == '(') {
						c = match_close(t, e, o, '(', ')');
						one = T_INTEGRAL | T_UNSIGNED;
						{
							size_t q = back_ws(t, o, c);
							if (q >= o + 4 && word_at(t, c, q - 4, "true"))
								one |= B(BOOL);
						}
					}
				} else if (word_at(t, e, k, "isFloatingType") ||
				           word_at(t, e, k, "is_floating_point")) {
					one = T_FLOATING | B(HALF) | B(BFLOAT16);
				} else if (word_at(t, e, k, "isComplexType") ||
				           word_at(t, e, k, "is_complex")) {
					one = T_COMPLEX | B(COMPLEX_HALF);
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
	const struct priv *p;
	int found;
};

static void stub_tok(void *ctx, const struct tok *k)
{
	struct stubseen *x = ctx;
	if (!k->member && !k->scope && is_stub_name(x->p, k->t + k->s, k->e - k->s))
		x->found = 1;
}

static int span_has_stub(const struct cs_model *m, const struct def *d,
                         size_t a, size_t b)
{
	struct walker w;
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
	walk_text(&w, d->t, d->tn, a, b, d->inv, 0, NULL);
	return x.found;
}


static void before_stub(const struct cs_model *m, const struct def *d,
                        struct cs_outrule *out)
{
	const char *t = d->t;
	size_t a = d->bs + 1, b = d->be < d->tn ? d->be : d->tn, i;
	for (i = a; i < b; i++) {
		size_t o, c, then_e, e2;
		cs_dtset set;
		int then_stub, rest_stub, returns = 0;
		if (t[i] == '"' || t[i] == '\'') {
			i = lex_skip_literal(t, b, i) - 1;
			continue;
		}
		if (!word_at(t, b, i, "if"))
			continue;
		o = skip_ws(t, b, i + 2);
		if (o >= b || t[o] != '(')
			continue;
		c = match_close(t, b, o, '(', ')');
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
				if (word_at(t, then_e, k, "return"))
					returns = 1;
		}
		e2 = skip_ws(t, b, then_e);
		if (word_at(t, b, e2, "else"))
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
	const struct priv *p = P(m);
	const char *dot = op ? strchr(op, '.') : NULL;
	char *base = op ? (dot ? xstrndup(op, (size_t)(dot - op)) : xstrdup(op))
	                : xstrdup("");
	const struct ilist *l = NULL;
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
				const struct ilist *l2 = &p->metas.lists[p->metas.keys.vals[k]];
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
		const struct def *d = &p->defs[pick[0]];
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
		const struct ilist *kl = imap_get(&p->defname, kname, strlen(kname));
		if (!kl && !kernel) {
			free(kname);
			kname = xstrdup(base);
			kl = imap_get(&p->defname, kname, strlen(kname));
		}
		for (i = 0; kl && i < kl->n; i++) {
			const struct def *d = &p->defs[kl->v[i]];
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
	static const struct {
		const char *name;
		int rule;
	} b[] = {{"unary_op", CS_RULE_SAME},
	         {"borrowing_unary_op", CS_RULE_SAME},
	         {"binary_op", CS_RULE_SAME},
	         {"borrowing_binary_op", CS_RULE_SAME},
	         {"nullary_op", CS_RULE_SAME},
	         {"borrowing_nullary_op", CS_RULE_SAME},
	         {"unary_float_op", CS_RULE_FLOAT},
	         {"binary_float_op", CS_RULE_FLOAT},
	         {"comparison_op", CS_RULE_BOOL},
	         {NULL, 0}};
	size_t i;
	for (i = 0; b[i].name; i++)
		if (span_is(s, n, b[i].name))
			return b[i].rule;
	return -1;
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
static char *args_after_passed(const struct tok *k, const char *stub)
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
	close = match_close(t, k->tn, open, '(', ')');
	if (close >= k->tn)
		return NULL;
	args = lex_split_args(t, open, close, &na);
	for (j = 0; j < na && from == NOSZ; j++) {
		size_t e = strlen(args[j]), b = e;
		while (b > 0 && idc(args[j][b - 1]))
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

static void ir_tok(void *ctx, const struct tok *k)
{
	struct irx *x = ctx;
	const struct priv *p = P(x->d.m);
	const struct def *cur = &p->defs[x->d.cur];
	const char *s = k->t + k->s;
	size_t n = k->e - k->s;
	int r;
	char *q;

	if (x->stub && x->stub_depth < 0 && span_is(s, n, x->stub) &&
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
		if (r < 0 && !k->member && span_is(s, n, "TensorIteratorConfig")) {
			/* the chain up to the end of its statement; one that lets
			 * operands differ (check_all_same_dtype(false)) and neither
			 * promotes nor declares a dtype leaves the output's dtype to
			 * the caller's out tensor (complex_out, logical_not_out) */
			size_t e = stmt_end(k->t, k->tn, k->s), i2;
			r = config_rule(k->t, k->s, e, &config);
			for (i2 = k->s; r == CS_RULE_SAME && i2 < e; i2++)
				if (word_at(k->t, e, i2, "check_all_same_dtype")) {
					size_t o = skip_ws(k->t, e, i2 + 20);
					if (o < e && k->t[o] == '(' &&
					    word_at(k->t, e, skip_ws(k->t, e, o + 1), "false"))
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
	if (k->member || is_keyword(s, n) || starts_with(s, n, "AT_DISPATCH"))
		return;
	q = tok_qual(k);
	disc_resolve(&x->d, s, n, q);
	free(q);
}

int cs_iter_rule(const struct cs_model *m, const char *kernel,
                 const char *stub, struct cs_iterrule *out)
{
	const struct priv *p = P(m);
	const struct ilist *l;
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
		const struct def *d = &p->defs[l->v[i]];
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

/* ---------------- B. the stub's function type ---------------- */

/* the kind of a parameter type written t (blanks removed) */
static int param_kind(const char *t)
{
	static const struct {
		const char *w;
		int k;
	} tab[] = {{"constScalar&", CS_PARAM_SCALAR}, {"constc10::Scalar&", CS_PARAM_SCALAR},
	           {"constat::Scalar&", CS_PARAM_SCALAR}, {"Scalar", CS_PARAM_SCALAR},
	           {"c10::Scalar", CS_PARAM_SCALAR}, {"at::Scalar", CS_PARAM_SCALAR},
	           {"int64_t", CS_PARAM_INT}, {"constint64_t", CS_PARAM_INT},
	           {"long", CS_PARAM_INT}, {"int", CS_PARAM_INT},
	           {"double", CS_PARAM_DOUBLE}, {"constdouble", CS_PARAM_DOUBLE},
	           {"float", CS_PARAM_DOUBLE}, {"bool", CS_PARAM_BOOL},
	           {"constbool", CS_PARAM_BOOL},
	           {"std::optional<double>", CS_PARAM_OPT_DOUBLE},
	           {"conststd::optional<double>", CS_PARAM_OPT_DOUBLE},
	           {"c10::optional<double>", CS_PARAM_OPT_DOUBLE},
	           {"std::optional<int64_t>", CS_PARAM_OPT_INT},
	           {"c10::optional<int64_t>", CS_PARAM_OPT_INT},
	           {NULL, 0}};
	size_t i;
	for (i = 0; tab[i].w; i++)
		if (strcmp(t, tab[i].w) == 0)
			return tab[i].k;
	return CS_PARAM_OTHER;
}

/* s without blanks, malloc'd */
static char *no_blanks(const char *s, size_t n)
{
	char *o = xmalloc(n + 1), *w = o;
	size_t i;
	for (i = 0; i < n; i++)
		if (!sp(s[i]))
			*w++ = s[i];
	*w = '\0';
	return o;
}

/* the parameter list of a function pointer type "void(*)(A, B)" or
 * "void (*NAME)(A, B)" in t[a, b): offsets of its '(' and ')' */
static int fnptr_params(const char *t, size_t a, size_t b, size_t *po,
                        size_t *pc)
{
	size_t i;
	for (i = a; i + 1 < b; i++)
		if (t[i] == '(' && t[skip_ws(t, b, i + 1)] == '*') {
			size_t c = match_close(t, b, i, '(', ')'), o;
			if (c >= b)
				return -1;
			o = skip_ws(t, b, c + 1);
			if (o >= b || t[o] != '(')
				return -1;
			*pc = match_close(t, b, o, '(', ')');
			if (*pc >= b)
				return -1;
			*po = o;
			return 0;
		}
	return -1;
}

/* the type an alias NAME stands for: `using NAME = T;` or `typedef R
 * (*NAME)(...)`, in file f first, then every header; fills the span of
 * the whole declaration in *file, [*a, *b) */
static int find_alias(const struct cs_model *m, size_t f0, const char *name,
                      size_t *file, size_t *a, size_t *b)
{
	const struct priv *p = P(m);
	size_t k, nl = strlen(name);
	for (k = 0; k <= m->nfiles; k++) {
			size_t f = k == 0 ? f0 : k - 1;
			const struct cfile *cf = &p->files[f];
			const char *t = cf->code;
			size_t n = cf->len, i;
			if (k > 0 && (!cf->header || f == f0))
				continue;
			for (i = 0; t && i + nl < n; i++) {
				size_t e, s0;
				if (!(word_at(t, n, i, "using") || word_at(t, n, i, "typedef")))
					continue;
				s0 = i;
				e = i;
				while (e < n && t[e] != ';')
					e++;
				if (t[i] == 'u') {
					size_t q = skip_ws(t, n, i + 5);
					if (word_at(t, n, q, name) &&
					    t[skip_ws(t, n, q + nl)] == '=') {
						*file = f;
						*a = skip_ws(t, n, skip_ws(t, n, q + nl) + 1);
						*b = e;
						return 0;
					}
				} else {
					size_t k;
					for (k = s0; k + nl <= e; k++)
						if (word_at(t, e, k, name) && k > 0 &&
						    t[back_ws(t, s0, k) - 1] == '*') {
							*file = f;
							*a = skip_ws(t, n, s0 + 7);
							*b = e;
							return 0;
						}
				}
				i = e;
			}
		}
	return -1;
}

int cs_stub_signature(const struct cs_model *m, const char *stub,
                      struct cs_signature *out)
{
	const struct priv *p = P(m);
	const struct ilist *l;
	const struct sdecl *sd = NULL;
	const struct cfile *cf;
	size_t i, open, close, na, file, a, b, po, pc;
	char **args;

	memset(out, 0, sizeof *out);
	l = stub ? imap_get(&p->declname, stub, strlen(stub)) : NULL;
	for (i = 0; l && i < l->n; i++) {
		const struct sdecl *s = &p->decls[l->v[i]];
		if (!sd || (p->files[s->file].header && !p->files[sd->file].header))
			sd = s;
	}
	if (!sd) {
		out->why = xasprintf("no DECLARE_DISPATCH of %s", stub ? stub : "");
		return -1;
	}
	cf = &p->files[sd->file];
	out->at = loc_of(m, sd->file, sd->at);
	open = sd->at;
	while (open < cf->len && cf->code[open] != '(')
		open++;
	close = open < cf->len ? match_close(cf->code, cf->len, open, '(', ')')
	                       : cf->len;
	if (close >= cf->len) {
		out->why = xasprintf("the DECLARE_DISPATCH of %s cannot be read", stub);
		return -1;
	}
	args = lex_split_args(cf->code, open, close, &na);
	if (na < 2) {
		lex_strv_free(args, na);
		out->why = xasprintf("the DECLARE_DISPATCH of %s cannot be read", stub);
		return -1;
	}
	out->type = xstrdup(args[0]);
	lex_strv_free(args, na);
	file = sd->file;
	{
		/* the type written there, or the alias it names */
		size_t ta = open + 1, tb = ta;
		long depth = 0;
		while (tb < close && !(cf->code[tb] == ',' && depth == 0)) {
			if (cf->code[tb] == '(' || cf->code[tb] == '<')
				depth++;
			else if (cf->code[tb] == ')' || cf->code[tb] == '>')
				depth--;
			tb++;
		}
		a = ta;
		b = tb;
		if (fnptr_params(cf->code, a, b, &po, &pc) != 0) {
			char *name = no_blanks(cf->code + a, b - a);
			if (find_alias(m, sd->file, name, &file, &a, &b) != 0) {
				out->why = xasprintf("the function type %s of %s is not "
				                     "found", name, stub);
				free(name);
				return -1;
			}
			free(name);
			cf = &p->files[file];
			if (fnptr_params(cf->code, a, b, &po, &pc) != 0) {
				out->why = xasprintf("the function type %s of %s is not a "
				                     "function pointer", out->type, stub);
				return -1;
			}
			free(out->type);
			out->type = lex_trim_dup(cf->code, a, b);
		}
	}
	{
		/* one line: blank runs made one space, none inside parentheses'
		 * edges */
		char *w = out->type, *r = out->type;
		int blank = 0;
		for (; *r; r++) {
			if (sp(*r)) {
				blank = 1;
				continue;
			}
			if (blank && w > out->type && w[-1] != '(' && *r != ')' &&
			    *r != ',')
				*w++ = ' ';
			blank = 0;
			*w++ = *r;
		}
		*w = '\0';
	}
	args = lex_split_args(cf->code, po, pc, &na);
	out->found = 1;
	out->iterator = na > 0 && strstr(args[0], "TensorIterator") != NULL;
	for (i = 1; i < na; i++) {
		struct cs_param *pr;
		size_t e = strlen(args[i]), nb;
		out->params = xrealloc(out->params, (out->nparams + 1) * sizeof *out->params);
		pr = &out->params[out->nparams++];
		/* a trailing identifier after the type is the parameter's name */
		while (e > 0 && sp(args[i][e - 1]))
			e--;
		nb = e;
		while (nb > 0 && idc(args[i][nb - 1]))
			nb--;
		pr->name = NULL;
		if (nb < e && nb > 0 && !span_is(args[i] + nb, e - nb, "int64_t") &&
		    (sp(args[i][nb - 1]) || args[i][nb - 1] == '&' ||
		     args[i][nb - 1] == '*')) {
			pr->name = xstrndup(args[i] + nb, e - nb);
			e = nb;
		}
		pr->type = lex_trim_dup(args[i], 0, e);
		{
			char *nbk = no_blanks(pr->type, strlen(pr->type));
			pr->kind = param_kind(nbk);
			free(nbk);
		}
	}
	lex_strv_free(args, na);
	return 0;
}

void cs_signature_free(struct cs_signature *s)
{
	size_t i;
	for (i = 0; i < s->nparams; i++) {
		free(s->params[i].type);
		free(s->params[i].name);
	}
	free(s->params);
	free(s->type);
	free(s->why);
	memset(s, 0, sizeof *s);
}

/* ---------------- B. half and bfloat computed in float ---------------- */

struct omx {
	const struct cs_model *m;
	struct cs_opmath *out;
	size_t converts;      /* reduced-float sites that convert */
};

/* the conversion to float a dispatch site's text t[a, b) makes: a
 * static string naming it, or NULL */
static const char *float_marker(const char *t, size_t a, size_t b)
{
	size_t i;
	for (i = a; i < b; i++) {
		if (t[i] == '"' || t[i] == '\'') {
			i = lex_skip_literal(t, b, i) - 1;
			continue;
		}
		if (!id0(t[i]) || (i > a && (idc(t[i - 1]) || t[i - 1] == ':')))
			continue;
		if (word_at(t, b, i, "opmath_type") || word_at(t, b, i, "opmath_t"))
			return "opmath_type";
		if (word_at(t, b, i, "acc_type"))
			return "acc_type";
		if (word_at(t, b, i, "convert_to_float"))
			return "convert_to_float";
		if (word_at(t, b, i, "static_cast")) {
			size_t q = skip_ws(t, b, i + 11);
			if (q < b && t[q] == '<' &&
			    word_at(t, b, skip_ws(t, b, q + 1), "float"))
				return "static_cast<float>";
		}
		if (word_at(t, b, i, "float")) {
			size_t q = skip_ws(t, b, i + 5);
			if (q < b && t[q] == '(' && (i == a || t[i - 1] != '<'))
				return "float(...)";
		}
	}
	return NULL;
}

static void om_tok(void *ctx, const struct tok *k)
{
	struct omx *x = ctx;
	struct cs_opmath *o = x->out;
	const char *s = k->t + k->s;
	size_t n = k->e - k->s, na, i;
	char **args;
	char *name;
	cs_dtset types = 0, base = 0;
	int extra = 0;
	const char *mk;
	if (k->member || k->scope || !k->call || k->close >= k->tn ||
	    !starts_with(s, n, "AT_DISPATCH") || span_is(s, n, "AT_DISPATCH_SWITCH"))
		return;
	name = xstrndup(s, n);
	args = lex_split_args(k->t, k->open, k->close, &na);
	if (strcmp(name, "AT_DISPATCH_V2") == 0) {
		for (i = 3; i < na; i++)
			type_arg(args[i], &types);
	} else if (strcmp(name, "AT_DISPATCH_CASE") == 0) {
		if (na >= 1)
			type_arg(args[0], &types);
	} else if (cs_dispatch_macro_types(name, &base, &extra) == 0) {
		types = base;
		for (i = 0; i < (size_t)extra && i < na; i++)
			type_arg(args[i], &types);
	}
	lex_strv_free(args, na);
	free(name);
	if (!(types & (CS_BIT(CS_HALF) | CS_BIT(CS_BFLOAT16))))
		return;
	/* the scalar-operand special case (iter.is_scalar(2): the scalar kept
	 * in opmath_t, removed from the iterator) is not the kernel's math */
	for (i = k->open; i < k->close; i++)
		if (word_at(k->t, k->close, i, "remove_operand") ||
		    word_at(k->t, k->close, i, "original_scalar_value"))
			return;
	mk = float_marker(k->t, k->open, k->close);
	if (!o->nsites)
		o->at = loc_of(x->m, k->file, k->loc);
	o->nsites++;
	if (mk) {
		x->converts++;
		if (!o->marker) {
			o->marker = xstrdup(mk);
			o->marker_at = loc_of(x->m, k->file, k->loc);
		}
	}
}

int cs_cpu_opmath(const struct cs_model *m, const char *stub,
                  struct cs_opmath *out)
{
	const struct priv *p = P(m);
	const struct ilist *l;
	const struct reg *r = NULL;
	struct omx x;
	long defs[16];
	size_t nd, i;

	memset(out, 0, sizeof *out);
	l = m->have_sources && stub ? imap_get(&p->regname, stub, strlen(stub))
	                            : NULL;
	for (i = 0; l && i < l->n; i++) {
		const struct reg *c = &p->regs[l->v[i]];
		if (!r || (p->files[c->file].cpu && !p->files[r->file].cpu))
			r = c;
	}
	if (!r || !r->fn) {
		out->why = xasprintf("no CPU kernel of %s to read", stub ? stub : "");
		return 0;
	}
	nd = reg_fn_defs(m, r, defs, sizeof defs / sizeof *defs);
	if (!nd) {
		out->why = xasprintf("the CPU kernel %s of %s is not found", r->fn, stub);
		return 0;
	}
	out->found = 1;
	memset(&x, 0, sizeof x);
	x.m = m;
	x.out = out;
	for (i = 0; i < nd; i++)
		walk_def(m, &p->defs[defs[i]], om_tok, &x);
	out->opmath = out->nsites > 0 && x.converts == out->nsites;
	if (!out->nsites)
		out->why = xasprintf("%s dispatches no Half or BFloat16 of its own",
		                     r->fn);
	else if (out->opmath)
		out->why = xasprintf("%s computes Half and BFloat16 in float (%s, "
		                     "%s:%lu)", r->fn, out->marker, out->marker_at.file,
		                     out->marker_at.line);
	else
		out->why = xasprintf("%s computes Half and BFloat16 in their own type "
		                     "(%s:%lu)%s", r->fn, out->at.file, out->at.line,
		                     x.converts ? " in some of its dispatch sites" : "");
	return out->opmath;
}

void cs_opmath_free(struct cs_opmath *o)
{
	free(o->marker);
	free(o->why);
	memset(o, 0, sizeof *o);
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
