/* cppmodel.h — the C++ model of the sources under aten/src/ATen/native
 * of a PyTorch checkout: files, scopes, function definitions with the
 * extent of their bodies, function-like macros and their expansion, stub
 * declarations, definitions and registrations, structured meta
 * functions; and a token walker over bodies (macros expanded) on which
 * the questions are built: stub discovery and device guards (stubs.h),
 * CPU dtypes (dtypes.h), output rules (outrule.h).
 *
 * Layer: read/ (readers of sources).  May call base/, edit/ and read/
 * (calls base/ diag, lex, scan, walk).
 *
 * What it reads (CS_NATIVE_REL, recursively): every *.cpp and *.h file,
 * except in folders for other devices, whose code never runs for a CPU,
 * CUDA and MPS shared line: any folder named cuda, hip, miopen, cudnn, mps,
 * xpu, vulkan, metal, mtia or hpu, at any depth (so quantized/cuda,
 * sparse/cuda, nested/cuda, mkldnn/xpu, transformers/cuda are skipped too).
 * Files in the folder `cpu` directly under CS_NATIVE_REL are the CPU kernel
 * side: their definitions are used to read dtypes, never followed by stub
 * discovery (a shared kernel reaches them only through a stub).
 *
 * How it reads (the rules, from reading PyTorch 2.6.0 and 1.13.1):
 *   - every file goes through mask_code_in_place() (scan.h, the bytes
 *     mask_code gives): comments and `#if 0`
 *     groups never count; string and character literals are skipped by
 *     every scanner (a stub name inside a message is not a stub);
 *   - preprocessor lines are not code; function-like `#define`s are kept
 *     and expanded where they are called (arguments substituted, # and ##
 *     applied, nested calls expanded, at most 8 deep, a macro never inside
 *     itself): a macro defined in the same file first, else one defined in
 *     a header under CS_NATIVE_REL; the first definition of a name in a
 *     file wins (the `#if !defined(C10_MOBILE)` branch comes first in the
 *     real files);
 *   - other conditional groups (#if X / #elif / #else) are read in all
 *     their branches, except when a branch leaves braces unpaired (a
 *     function header written once per platform, `if constexpr (x) {`
 *     against `if (x) {`): then only the first branch is read, so that the
 *     braces of the file still pair up;
 *   - the namespace-level structure is parsed (cs_parse_scope below, the
 *     parser hostscan uses too): `namespace` blocks (also
 *     `namespace a::b`, `inline namespace`, anonymous ones, also after a
 *     stray token), `extern "C"` (likewise),
 *     struct/class/union bodies (their member functions are kept with the
 *     struct's name as owner), and function definitions: `RET name(...)
 *     [const|noexcept|override...] {`, `Owner::name(...) {`, `operator()`,
 *     templates, and `MACRO(name)(...) {` (TORCH_IMPL_FUNC,
 *     TORCH_META_FUNC, TORCH_META_FUNC2(name, overload),
 *     TORCH_PRECOMPUTE_META_FUNC(2)), explicit specializations
 *     `template <> void f<float>(...) {`, also when a macro call written
 *     at namespace level such as `CREATE_UNARY_TORCH_IMPL_FUNC(frac_out,
 *     frac_stub)` produces them (a file-local macro call followed by `(`
 *     or `{` begins a header and is read as written, not expanded);
 *   - an unbalanced brace or parenthesis ends the scan of that file (or
 *     body) at the end of the file: nothing is read past it twice.
 *
 * Locations are a file (path relative to the root, owned by the model:
 * valid until cs_free) and a 1-based line; for things a macro call
 * produces, the line of the macro call written in the file.
 *
 * Not thread-safe: one thread at a time (queries make file texts and
 * line tables on first need, and dtypes.h keeps one compiled pattern).
 *
 * Memory and speed (PyTorch 2.6.0, 588 files, 9 MB): every file is read
 * into one buffer of the largest file's size, masked, and parsed; only
 * the model is kept (definitions, macros, registrations: about 4 MB),
 * never the texts: a query that reads a body reads its file again (45
 * files for every operator of 2.6.0).  cs_load is about 105 M
 * instructions (callgrind), one masking pass and one structural pass per
 * file; a query reads a few bodies, well under a millisecond.
 */
#ifndef MK_CPPMODEL_H
#define MK_CPPMODEL_H

#include "base/lex.h"

#include <stddef.h>
#include <stdint.h>

#define CS_NATIVE_REL "aten/src/ATen/native"

#define NOSZ ((size_t)-1)

struct cs_model {
	char *root;          /* as given (owned) */
	int have_native;     /* CS_NATIVE_REL exists */
	int have_sources;    /* it holds at least one .cpp file */
	size_t nfiles;       /* files read (.cpp and .h) */
	size_t ndefs;        /* function definitions found */
	size_t ndecls;       /* DECLARE_DISPATCH stubs (in headers) */
	size_t nregs;        /* CPU stub registrations */
	size_t nmetas;       /* structured meta functions */
	void *priv;
};

/* cs_load: read and index every file of root/CS_NATIVE_REL (see the top
 * of this file) into m (zeroed first).  Bodies are not parsed here: only
 * names, body extents, macros, DECLARE_DISPATCH, DEFINE_DISPATCH, stub
 * registrations and meta functions; queries parse the few bodies they
 * need.  Returns 0; a root without the folder, or a folder without .cpp
 * files, is fine (have_sources 0; queries then say so).  Returns -1 after
 * a diagnostic, m released: "prog: cannot open 'PATH': REASON" when a
 * folder or file that exists cannot be read, "prog: error: 'PATH' is not
 * a text file (it holds a NUL byte)" for a file holding a NUL byte.
 * m is owned by the caller: cs_free(). */
int cs_load(struct cs_model *m, const char *root);

void cs_free(struct cs_model *m);

/* A model read on first need: the tools that answer some questions from
 * the yaml alone read the C++ sources only when an operator needs them.
 * Set root (the checkout; NULL: never read) and zero the rest. */
struct cs_lazy {
	const char *root;
	struct cs_model m;
	int tried;           /* cs_lazy_get ran once */
	int ok;              /* and cs_load succeeded */
};

/* cs_lazy_get: the model, read (cs_load) the first time; NULL when root
 * is NULL.  An unreadable source prints its diagnostic and exits 2 (the
 * question cannot be answered).  Free with cs_lazy_free. */
const struct cs_model *cs_lazy_get(struct cs_lazy *l);

void cs_lazy_free(struct cs_lazy *l);

/* ---- more folders, definitions and their bodies (a reader of other
 * C++, such as the CUDA kernels' math, builds on these) ----
 *
 * cs_add_folder: after cs_load, read the files of root/REL (recursively,
 * every depth; names ending in one of SUFS, NULL-terminated; NULL: .cu,
 * .cuh, .h) into m, by cs_load's rules (masking, directives, macros, the
 * structure parser), as its "added" files: REL = CS_NATIVE_REL "/cuda"
 * reads the CUDA kernels.  Their definitions are found by cs_find_defs
 * with ADDED 1 only, their macros are seen from added files only, their
 * stub registrations are not kept: stub discovery, CPU dtypes and output
 * rules answer as they did before.  Returns 0, or -1 after the
 * diagnostics of cs_load (m stays usable: the files read so far stay). */
int cs_add_folder(struct cs_model *m, const char *rel, const char *const *sufs);

/* cs_find_defs: the definitions named NAME (unqualified, as written
 * before the parameter list; "operator()" for call operators): those of
 * the added files when ADDED, else those of cs_load's files (not the
 * structured meta functions).  *n of them, in file order: indexes for
 * cs_def_at, a pointer into the model (valid until cs_free); NULL and
 * *n 0 when there is none. */
const long *cs_find_defs(const struct cs_model *m, const char *name, int added,
                         size_t *n);

/* cs_def_at: definition I (an index from cs_find_defs).  Its body is
 * cs_def_text(m, d)[d->bs + 1, d->be): after the '{', before the '}'
 * (d->be is d->tn when the body is not closed); its parameter list is
 * [d->ps, d->pe]; its place loc_of(m, d->file, d->at); d->ns the
 * namespace ("at::native"), d->owner the struct or written qualifier. */
const struct cs_def *cs_def_at(const struct cs_model *m, long i);

/* cs_expand_body: the body of d (as cs_def_at says) with every call of a
 * function-like macro visible from d's file expanded: an unqualified
 * name, not a member access, followed by its argument list, of a macro
 * defined in the same file first, else in a header (lex.h lex_expand:
 * arguments put in, # and ## applied); the expansion expanded again, at
 * most CS_MACRO_DEPTH deep, a macro never inside its own expansion (the
 * rules of the token walker).  Literals are copied as written.  A
 * malloc'd string (caller frees). */
char *cs_expand_body(const struct cs_model *m, const struct cs_def *d);

/* A place in the sources: file NULL when there is none. */
struct cs_loc {
	const char *file;    /* relative to the root, owned by the model */
	unsigned long line;  /* 1-based */
};

/* ---- the structure parser (the C++ model's, hostscan's too) ----
 *
 * One forward pass over a text at namespace level: literals and blank
 * runs are passed over, parenthesized groups skipped whole, and each '{'
 * is classified by the header before it (the text since the last ';',
 * '}', scope opening or call the caller consumed): a namespace
 * (`namespace a::b {`, `inline namespace`, anonymous, also after a stray
 * token), `extern "C" {`, a struct/class/union body, or a function
 * definition (the rules at the top of this file: `RET name(...)
 * [const|noexcept(..)|override|-> T ...] {`, `Owner::name(...)`,
 * `operator()`, templates, `MACRO(name[, overload])(...)`, explicit
 * specializations); any other brace (an initializer, a lambda, an enum)
 * is skipped whole.  The scopes are read the same way inside; a
 * function's body is not read.  The caller's hooks (struct cs_parse_ops)
 * say what each thing means to it. */

/* Macros expand at most this deep (a macro never inside itself). */
#define CS_MACRO_DEPTH 8

/* The braces of a text paired in one forward pass: every '{' outside
 * literals, in order, with the index of the '}' that closes it (NOSZ:
 * none does).  Literals are skipped as lex_match_close skips them, so
 * the pair of a brace equals lex_match_close(t, to, i, '{', '}') for
 * each brace the parser meets.  Each byte is read once, instead of once
 * for every scope around it. */
struct cs_pairs {
	size_t *open, *close;       /* parallel; open ascending */
	size_t n, cap;
	size_t hint;                /* the entry after the last one asked for */
};

/* cs_pairs_build: the pairs of t[0, n) (t[n] must be readable and NUL:
 * it ends the scan).  cs_pairs_from: the same table from the braces a
 * masking pass listed (scan.h mask_code_in_place) that are still braces
 * in t (directives blanked since); exact when br->edge is 0.
 * cs_pairs_free: release them.  Owned by bp. */
void cs_pairs_build(struct cs_pairs *bp, const char *t, size_t n);
struct mask_braces;
void cs_pairs_from(struct cs_pairs *bp, const char *t,
                   const struct mask_braces *br);
void cs_pairs_free(struct cs_pairs *bp);

/* What the header before a '{' is (cs_parse_ops.brace). */
enum { CS_H_SKIP = 0, CS_H_SCOPE_NS, CS_H_SCOPE_EXTERN, CS_H_SCOPE_STRUCT,
       CS_H_FUNC };

/* A classified header: byte ranges [s, e) of the unit's text (empty
 * when s == e). */
struct cs_header {
	size_t ns, ne;      /* name (function, namespace or struct) */
	size_t qs, qe;      /* qualifier written before the function's name */
	size_t ms, me;      /* MACRO in MACRO(name)(params) */
	size_t os, oe;      /* overload in TORCH_META_FUNC2(name, overload) */
	int op_call;        /* the name is operator() */
	int is_static;      /* `static` before the name */
	size_t ps, pe;      /* the parameter list's parentheses */
};

struct cs_unit;

/* The caller's side of a parse.
 *   call:  an identifier t[i, e) followed by '(' at q (below to);
 *          at_head: only blanks stand between the header's start and i.
 *          Returns the index the parse goes on at (the call consumed,
 *          and a new header starts there), or 0 to read on.
 *   brace: a '{' at brace, closed at close (to when unbalanced), whose
 *          header t[hs, brace) is KIND (never CS_H_SKIP) with the parts
 *          in *h.  For a scope, returns the scope value its inside is
 *          parsed with (the parser's `scope` argument, opaque to it);
 *          for CS_H_FUNC the value is not used (a body is not read). */
struct cs_parse_ops {
	size_t (*call)(struct cs_unit *u, size_t i, size_t e, size_t q,
	               size_t to, int at_head, const void *scope);
	const void *(*brace)(struct cs_unit *u, int kind,
	                     const struct cs_header *h, size_t hs, size_t brace,
	                     size_t close, const void *scope);
};

/* A text being parsed: a masked file with its preprocessor lines blanked,
 * or a macro's expansion (t[n] readable and NUL). */
struct cs_unit {
	const char *t;
	size_t n;
	size_t file;                /* the caller's file index */
	size_t inv;                 /* NOSZ: offsets are the file's; else the
	                               file offset of the macro call written
	                               there that produced t */
	int depth;                  /* macros being expanded */
	const char *stack[CS_MACRO_DEPTH + 1];
	const char *outer;          /* outermost macro written in the file,
	                               NULL in the file's own text */
	struct cs_pairs bp;         /* the braces of t (the caller builds) */
	const struct cs_parse_ops *ops;
	void *ctx;                  /* the caller's */
};

/* cs_parse_scope: parse u->t[from, to) at the level of SCOPE (passed to
 * the hooks), calling u->ops as things are met. */
void cs_parse_scope(struct cs_unit *u, size_t from, size_t to,
                    const void *scope);

/* ---- for the readers built on the model (stubs, dtypes, outrule) ----
 *
 * The model's tables, the token walker and the text helpers those
 * readers share.  Not for the tools: they ask the readers. */

/* The model's strings and index lists live until cs_free: they are cut
 * from large blocks instead of being allocated (and freed) one by one. */
struct cs_pool {
	char **blocks;
	size_t nb, cb;
	char *cur;
	size_t left;
};

struct cs_smap {
	struct cs_pool *pool;  /* holds the keys */
	char **keys;
	size_t *lens;
	uint64_t *hash;     /* of each key: compared first, and kept so that
	                       growing never hashes a key again */
	long *vals;
	size_t cap, n;
};

/* index lists: a map to an index into an array of lists of longs (the
 * lists in the keys' pool) */
struct cs_ilist {
	long *v;
	size_t n, cap;
};

struct cs_imap {
	struct cs_smap keys;
	struct cs_ilist *lists;
	size_t n, cap;
};

struct cs_file {
	char *rel;        /* relative to the root (in the model's pool) */
	char *code;       /* masked, preprocessor lines blanked: NULL until
	                     a query reads a body of the file (cs_def_text) */
	size_t len;
	size_t *ls;       /* line starts */
	size_t nls;
	int cpu;          /* in CS_NATIVE_REL/cpu */
	int added;        /* read by cs_add_folder */
	int header;       /* a .h file */
};

struct cs_macro {
	struct lex_macro m;
	size_t file;        /* where it is defined */
};

enum { D_FN = 0, D_IMPL, D_META };

struct cs_def {                /* its strings are in the model's pool */
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
	const char *t;    /* the macro expansion holding the body, or NULL:
	                     the file's text (cs_def_text gives either) */
	size_t tn;
	size_t bs, be;    /* '{' and its '}' (be == tn when unbalanced) */
	size_t ps, pe;    /* the parameter list's parentheses in t */
	size_t at;        /* file offset for its location */
	size_t inv;       /* NOSZ: offsets in t are file offsets; else the
	                     file offset of the macro call */
};

struct cs_reg {                /* its strings are in the model's pool */
	char *stub;
	char *fn;         /* NULL: nullptr */
	char *macro;      /* outermost macro written, or the REGISTER_ name */
	size_t file;
	size_t at;
};

struct cs_sdecl {
	size_t file;
	size_t at;
};

struct cs_priv {
	struct cs_file *files;
	size_t cap_files;
	struct cs_macro *mac;
	size_t nmac, cap_mac;
	struct cs_imap macros;       /* name → macro indexes */
	unsigned char macfirst[256];
	struct cs_def *defs;
	size_t cap_defs;
	struct cs_imap defname;      /* name → defs (D_FN and D_IMPL) */
	struct cs_imap owners;       /* struct name → member defs */
	struct cs_imap metas;        /* "base" / "base_overload" → D_META defs */
	struct cs_imap metabase;     /* FUNC2 base → D_META defs */
	struct cs_reg *regs;
	size_t cap_regs;
	struct cs_imap regname;      /* stub → regs */
	struct cs_sdecl *decls;
	size_t ndecls, cap_decls;
	struct cs_imap declname;     /* stub → decls (headers first) */
	struct cs_imap defined;      /* DEFINE_DISPATCH stubs → file */
	struct cs_imap addname;      /* name → defs of added files */
	struct cs_smap nsintern;
	struct cs_pool pool;         /* the maps' keys and lists, the strings of
	                             defs and regs */
	char **nss;
	size_t nns, cap_ns;
	char *scratch;            /* the text being loaded (cs_load only) */
	size_t cap_scratch;
	char **exps;              /* macro expansions the defs point into */
	size_t nexps, cap_exps;
};

#define P(m) ((struct cs_priv *)(m)->priv)

struct cs_tok {
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

typedef void (*cs_tok_fn)(void *ctx, const struct cs_tok *k);

struct cs_walker {
	const struct cs_model *m;
	size_t file;
	cs_tok_fn fn;
	void *ctx;
	int expand;           /* expand macros visible from the file */
	unsigned long tids;   /* texts walked so far */
	size_t site;          /* the token or macro call being read in the
	                         text walked first */
};

/* imap_get: the list stored for key s[0, n), or NULL. */
const struct cs_ilist *imap_get(const struct cs_imap *im, const char *s, size_t n);

/* loc_of: the place of byte off of file index FILE (line counted). */
struct cs_loc loc_of(const struct cs_model *m, size_t file, size_t off);

/* walk_text: walk t[a, b) (tn: the text's length) as code of the walker's
 * file: every identifier goes to w->fn as a struct cs_tok; calls of macros
 * visible from the file are expanded (when w->expand) and their
 * expansion walked in their place.  inv: NOSZ, or the file offset that
 * every token's location takes (text of a macro expansion); depth and
 * stack: the macros being expanded (0, NULL at the top).
 * walk_def: walk the body of d with fn(ctx, token). */
void walk_text(struct cs_walker *w, const char *t, size_t tn, size_t a,
               size_t b, size_t inv, int depth, const char **stack);
void walk_def(const struct cs_model *m, const struct cs_def *d, cs_tok_fn fn,
              void *ctx);

/* cs_def_text: the text holding the body of d: the macro expansion it
 * was found in, or its file as the structural pass read it (masked,
 * preprocessor lines blanked).  The model keeps no file's text: the
 * first time a query asks for one, the file is read and masked again,
 * then kept (queries read few files: 45 of 588 for every operator of
 * 2.6.0).  A file that cannot be read again, or whose size changed since
 * cs_load, is an error: "prog: error: 'PATH' changed while it was read",
 * exit 2. */
const char *cs_def_text(const struct cs_model *m, const struct cs_def *d);

/* cs_file_text: the text of file index FILE as cs_def_text gives it
 * (masked, preprocessor lines blanked), read again and kept the first
 * time it is asked for; its length is the file's len.  The same error. */
const char *cs_file_text(const struct cs_model *m, size_t file);

/* tok_qual: the qualifier of k without blanks ("at::native"), malloc'd. */
char *tok_qual(const struct cs_tok *k);

/* ns_is: namespace ns is w; ns_ends: ns is tail or ends with "::tail". */
int ns_is(const char *ns, const char *w);
int ns_ends(const char *ns, const char *tail);

/* stmt_end_or: the end of the statement or block starting at the first
 * non-blank from t[i] (after an if's condition or an else): the index
 * after its ';' or '}', or NONE when it does not end before n.
 * stmt_end: the same, n when it does not end. */
size_t stmt_end_or(const char *t, size_t n, size_t i, size_t none);
#define stmt_end(t, n, i) stmt_end_or((t), (n), (i), (n))

#endif
