/* mps-register — insert REGISTER_*_OP registrations of a native Metal
 * kernel, optionally its functor skeleton and its host stub (issue #5).
 *
 * Flow: validate KIND, NAME and dtypes (no file access yet); find the
 * root; load the .metal file (and the host file with --host) through the
 * edit engine; read what the files already register (metalreg.h); plan the
 * insertions (skipping what is present, refusing conflicts); build the new
 * bytes keeping the file's line endings, indentation and semicolon style;
 * hand them to edit_finish() (diff, or atomic write + journal).
 */
/* realpath() is POSIX.1-2008 with the XSI option: ask for it explicitly */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif

#include "cli.h"
#include "diag.h"
#include "edit.h"
#include "metalreg.h"
#include "scan.h"
#include "walk.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static struct {
	const char *dtypes, *preset, *kernel_file, *host_file, *root, *journal;
	int functor, host, in_place, json, undo;
} opt;

static const struct opt opts[] = {
	{"dtypes", 0, OPT_STRING, &opt.dtypes, "LIST",
	 "IN:OUT pairs, comma-separated; T alone means T:T (alpha kinds: "
	 "IN:ALPHA:OUT too)"},
	{"preset", 0, OPT_STRING, &opt.preset, "P",
	 "float, int2float, integer, complex or all"},
	{"functor", 0, OPT_FLAG, &opt.functor, NULL,
	 "add a struct NAME_functor skeleton when none exists"},
	{"host", 0, OPT_FLAG, &opt.host, NULL,
	 "add the host stub to the host file when none exists"},
	{"in-place", 0, OPT_FLAG, &opt.in_place, NULL,
	 "write the files (atomically, with an undo journal entry)"},
	{"kernel-file", 0, OPT_STRING, &opt.kernel_file, "F",
	 "the .metal file (default: kernels/UnaryKernel.metal or Binary...)"},
	{"host-file", 0, OPT_STRING, &opt.host_file, "F",
	 "the host file (implies --host; default: operations/UnaryKernel.mm...)"},
	{"root", 0, OPT_STRING, &opt.root, "DIR",
	 "the PyTorch checkout (default: found from the current folder up)"},
	{"json", 0, OPT_FLAG, &opt.json, NULL,
	 "print what would be (or was) inserted as JSON Lines"},
	{"undo", 0, OPT_FLAG, &opt.undo, NULL,
	 "restore the files of the newest --in-place edit of any tool"},
	{"journal", 0, OPT_STRING, &opt.journal, "DIR",
	 "undo journal folder (default: the checkout's own, see below)"},
	{NULL, 0, OPT_END, NULL, NULL, NULL},
};

static const struct tool_info info = {
	"mps-register",
	"KIND NAME (--dtypes LIST | --preset P) [--functor] [--host] "
	"[--in-place] [options]\n       mps-register --undo [--root DIR] [--journal DIR]",
	"Register the native Metal kernel NAME for a set of dtypes, in the style "
	"of the file.",
	"KIND is one of:\n"
	"  unary         REGISTER_UNARY_OP(NAME, IN, OUT)\n"
	"  unary-alpha   REGISTER_UNARY_ALPHA_OP(NAME, IN, ALPHA, OUT)\n"
	"  binary        REGISTER_BINARY_OP(NAME, IN, OUT)\n"
	"  binary-alpha  REGISTER_BINARY_ALPHA_OP(NAME, IN, ALPHA, OUT)\n"
	"Each produces the kernels NAME_dense_OUT_IN and NAME_strided_OUT_IN\n"
	"(alpha kinds: ..._OUT_IN_ALPHA); the host asks for them as \"NAME\".\n"
	"A file-local helper such as REGISTER_FLOAT_BINARY_OP(NAME) is used\n"
	"when its #define registers exactly dtypes that are asked for.\n"
	"\n"
	"Presets: float (float, half, bfloat -> same), int2float (long, int,\n"
	"short, uchar, char, bool -> float), integer (the same six -> same),\n"
	"complex (float2, half2 -> same), all (float + integer + complex).\n"
	"Metal dtypes: float half bfloat long int short char uchar bool\n"
	"float2 half2.  In --dtypes a lone dtype T means T:T (so --dtypes\n"
	"float registers float -> float only).  Alpha kinds use ALPHA = IN\n"
	"unless given IN:ALPHA:OUT.\n"
	"\n"
	"Files read (under the root): aten/src/ATen/native/mps/kernels/\n"
	"UnaryKernel.metal or BinaryKernel.metal, and with --host\n"
	"aten/src/ATen/native/mps/operations/UnaryKernel.mm or BinaryKernel.mm\n"
	"(or the files given, which must lie under the root); to check the\n"
	"tree also c10/metal/*.h, the source files under\n"
	"aten/src/ATen/native/mps/, and aten/src/ATen/native/*.h and */*.h.\n"
	"Files written: the kernel and host file, only with --in-place;\n"
	"--in-place and --undo also write the undo journal, in the checkout:\n"
	"ROOT/.git/metal-kernel/journal/ in a git work tree, else\n"
	"ROOT/.metal-kernel/journal/ (--journal DIR moves it).  Nothing else,\n"
	"nowhere else.  A temporary .NAME.mk-XXXXXX left beside a file by a\n"
	"killed --in-place is removed by the next one, which says so.  The tool\n"
	"never uses the network and never runs other programs.\n"
	"\n"
	"The code written needs the c10/metal kernels of current PyTorch; a tree\n"
	"that predates them (PyTorch 2.6 and older) is refused, exit 2, nothing\n"
	"written, when the core macro of KIND is neither used nor #defined in\n"
	"the kernel file nor #defined in a c10/metal/*.h header, or (with\n"
	"--host) when neither the host file nor a file under\n"
	"aten/src/ATen/native/mps/ mentions lib.exec_unary_kernel (unary kinds)\n"
	"or lib.exec_binary_kernel (binary kinds).  A new host stub also needs\n"
	"NAME_stub declared (DECLARE_DISPATCH) in aten/src/ATen/native/*.h or\n"
	"*/*.h, and a namespace block in the host file to put it in.\n"
	"\n"
	"Registrations already present (however spaced) are not added again.\n"
	"--json prints one object per insertion: file, line (1-based, in the\n"
	"new file), what (registration, functor, host-stub), action (insert,\n"
	"inserted, present), kind, name, calls, dtypes, kernels, text.  With\n"
	"--undo, --json prints {\"action\":\"restored\",\"path\":FILE} per file.\n"
	"Exit status: 0 nothing to do, or written; 1 a change is proposed (the\n"
	"diff is printed); 2 error, e.g. a conflicting registration (same NAME\n"
	"and input dtype, another output) - nothing is written then.\n",
};

/* ---- one planned insertion ---- */

enum what { W_REG, W_FUNCTOR, W_HOST };

struct item {
	enum what what;
	int file;              /* index into the edit set */
	size_t off;            /* insertion offset in the old text */
	char *text;            /* bytes to insert, line endings included */
	char *label;           /* one-line summary: the first code line */
	const char *macro;     /* W_REG: the core macro of the kind */
	char *calls[MR_MAX_PAIRS]; /* W_REG: each call written, with ';' */
	size_t ncalls;
	struct mr_pair pairs[MR_MAX_PAIRS];
	size_t npairs;
	int present;           /* already in the file: nothing inserted */
	unsigned long line;    /* 1-based: old file when present, new file
	                          (first non-blank inserted line) otherwise */
	size_t newoff;
};

static struct item *items;
static size_t nitems, capitems;

static struct item *new_item(enum what w, int file)
{
	struct item *it;
	if (nitems == capitems) {
		capitems = capitems ? capitems * 2 : 8;
		items = xrealloc(items, capitems * sizeof *items);
	}
	it = &items[nitems++];
	memset(it, 0, sizeof *it);
	it->what = w;
	it->file = file;
	return it;
}

/* ---- small text helpers ---- */

static size_t line_start(const char *t, size_t off)
{
	while (off > 0 && t[off - 1] != '\n')
		off--;
	return off;
}

/* offset just after the end of the line holding off (len at the end) */
static size_t next_line(const char *t, size_t len, size_t off)
{
	const char *nl = off < len ? memchr(t + off, '\n', len - off) : NULL;
	return nl ? (size_t)(nl - t) + 1 : len;
}

static int blank_range(const char *t, size_t a, size_t b)
{
	for (; a < b; a++)
		if (t[a] != ' ' && t[a] != '\t' && t[a] != '\r' && t[a] != '\n')
			return 0;
	return 1;
}

/* 1 when the line before offset off (a line start) is blank or absent */
static int prev_line_blank(const char *t, size_t len, size_t off)
{
	size_t s;
	if (off == 0)
		return 1;
	if (off == len && t[len - 1] != '\n')
		return blank_range(t, line_start(t, len), len);
	s = line_start(t, off - 1);
	return blank_range(t, s, off);
}

/* 1 when the line starting at off is blank or absent */
static int next_line_blank(const char *t, size_t len, size_t off)
{
	return off >= len || blank_range(t, off, next_line(t, len, off));
}

static char *indent_of(const char *t, size_t off)
{
	size_t s = line_start(t, off), e = s;
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

/* namespace prefixes the functor skeleton needs: none where the file says
 * "using namespace metal;" / "using namespace c10::metal;" */
static const char *ns_metal = "::metal::", *ns_c10 = "::c10::metal::";

static void functor_overload(struct buf *b, const char *eol, int kind,
                             const char *name, const char *trait,
                             const char *cls, const struct mr_pair *p)
{
	int same = p->in == p->out;
	const char *ret = same ? "T" : p->out;
	const char *args;
	char *retexpr;

	switch (kind) {
	case MR_UNARY: args = "const T x"; break;
	case MR_UNARY_ALPHA: args = "const T x, const A alpha"; break;
	case MR_BINARY: args = "const T a, const T b"; break;
	default: args = "const T a, const T b, const A alpha"; break;
	}
	{
		const char *v = kind == MR_UNARY || kind == MR_UNARY_ALPHA ? "x" : "a";
		if (same)
			retexpr = xstrdup(v);
		else if (is_complex(p->in) && !is_complex(p->out))
			retexpr = xasprintf("%s(%s.x)", p->out, v);
		else
			retexpr = xasprintf("static_cast<%s>(%s)", p->out, v);
	}
	{
		char *cond = xasprintf("%senable_if_t<%s%s<T>, bool> = true", ns_metal,
		                       ns_c10, trait);
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
	buf_printf(b, "    // TODO(mps-register): the math of %s for %s inputs "
	              "goes here%s",
	           name, cls, eol);
	buf_printf(b, "    return %s;%s", retexpr, eol);
	buf_printf(b, "  }%s", eol);
	free(retexpr);
}

static char *functor_text(const char *eol, int kind, const char *name,
                          const struct mr_pair *pairs, size_t n)
{
	struct buf b;
	const struct mr_pair *fl = NULL, *in = NULL, *cx = NULL;
	size_t i;
	for (i = 0; i < n; i++) {
		if (is_float(pairs[i].in)) {
			if (!fl)
				fl = &pairs[i];
		} else if (is_complex(pairs[i].in)) {
			if (!cx)
				cx = &pairs[i];
		} else if (!in) {
			in = &pairs[i];
		}
	}
	buf_init(&b);
	buf_printf(&b, "struct %s_functor {%s", name, eol);
	if (fl)
		functor_overload(&b, eol, kind, name, "is_scalar_floating_point_v",
		                 "floating-point", fl);
	if (in)
		functor_overload(&b, eol, kind, name, "is_scalar_integral_v",
		                 "integral", in);
	if (cx)
		functor_overload(&b, eol, kind, name, "is_complex_v", "complex", cx);
	buf_printf(&b, "};%s", eol);
	return b.data;
}

/* ---- does the tree have the c10/metal kernels? (see --help) ---- */

static const char *tree_root;   /* the root, for the checks below */
static char *core_hdr;          /* c10/metal header defining the core macro */

static int ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

/* 1 when the bytes needle occur in t[0..len) (a cheap filter before
 * masking and matching) */
static int has_bytes(const char *t, size_t len, const char *needle)
{
	size_t n = strlen(needle), i;
	for (i = 0; i + n <= len; i++)
		if (t[i] == needle[0] && memcmp(t + i, needle, n) == 0)
			return 1;
	return 0;
}

/* test(masked text) on the regular file at path when it holds needle;
 * unreadable files count as not matching */
static int file_test(const char *path, const char *needle,
                     int (*test)(const char *, size_t, const void *),
                     const void *arg)
{
	char *t, *m;
	size_t len;
	int r = 0;
	if (read_file(path, &t, &len) != 0)
		return 0;
	if (has_bytes(t, len, needle)) {
		m = mask_code(t, len, LANG_C);
		r = test(m, len, arg);
		free(m);
	}
	free(t);
	return r;
}

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

/* the first c10/metal/NAME.h under the root that #defines macro, as a
 * malloc'd path relative to the root; NULL when none does */
static char *core_header(const char *macro)
{
	static const char *const sufs[] = {".h", NULL};
	struct walk_list l;
	char *r = NULL;
	size_t i;
	if (walk_files(tree_root, "c10/metal", 0, NULL, sufs, &l) != 0)
		return NULL;
	for (i = 0; i < l.n && !r; i++) {
		char *p = xasprintf("%s/%s", tree_root, l.paths[i]);
		if (file_test(p, macro, test_define, macro))
			r = xstrdup(l.paths[i]);
		free(p);
	}
	walk_free(&l);
	return r;
}

/* 1 when a source file under REL (walk.h's rules, WALK_MAX_DEPTH deep)
 * whose name ends in one of SUFS passes test */
static int tree_test(const char *rel, int depth, const char *const *sufs,
                     const char *needle,
                     int (*test)(const char *, size_t, const void *),
                     const void *arg)
{
	struct walk_list l;
	size_t i;
	int found = 0;
	if (walk_files(tree_root, rel, depth, NULL, sufs, &l) != 0)
		return 0;
	for (i = 0; i < l.n && !found; i++) {
		char *p = xasprintf("%s/%s", tree_root, l.paths[i]);
		found = file_test(p, needle, test, arg);
		free(p);
	}
	walk_free(&l);
	return found;
}

/* the kernel file k (masked) may receive registrations of kind: its core
 * macro is used or #defined there, or #defined in c10/metal/NAME.h (then
 * core_hdr names the header).  Otherwise prints why and returns -1. */
static int check_core(const char *masked, size_t len, const char *display,
                      int kind, const char *name)
{
	const char *macro = mr_kind_macro(kind);
	if (mr_text_uses_macro(masked, len, macro))
		return 0;
	core_hdr = core_header(macro);
	if (core_hdr)
		return 0;
	fprintf(stderr,
	        "%s: %s: error: %s is neither used nor #defined in this file, "
	        "nor #defined in a c10/metal/*.h header under the root: the tree "
	        "predates the c10/metal kernels (PyTorch 2.6 and older) and the "
	        "code mps-register writes would not compile there; register %s "
	        "by hand following the file's own style [no-c10-metal]\n",
	        diag_prog(), display, macro, name);
	return -1;
}

/* the host file (masked text m) may receive a stub calling
 * lib.exec_*_kernel: it or a file under MPS_DIR_REL mentions it */
static int check_exec(const char *m, size_t len, const char *display,
                      int kind, const char *name)
{
	int binary = kind == MR_BINARY || kind == MR_BINARY_ALPHA;
	const char *exec = binary ? "exec_binary_kernel" : "exec_unary_kernel";
	static const char *const src_sufs[] = {".h", ".hpp", ".mm", ".m", ".cpp",
	                                       ".cc", NULL};
	int ok;
	if (mr_text_has_exec(m, len, binary))
		return 0;
	ok = tree_test(MPS_DIR_REL, WALK_MAX_DEPTH, src_sufs, exec, test_exec,
	               &binary);
	if (ok)
		return 0;
	fprintf(stderr,
	        "%s: %s: error: neither this file nor any file under %s/ "
	        "mentions lib.%s, which the host stub would call: the tree "
	        "predates the c10/metal kernels (PyTorch 2.6 and older); write "
	        "the host stub of %s by hand following the file's own style "
	        "[no-exec-kernel]\n",
	        diag_prog(), display, MPS_DIR_REL, exec, name);
	return -1;
}

/* NAME_stub, which the host stub registers, is declared in
 * aten/src/ATen/native/NAME.h or aten/src/ATen/native/DIR/NAME.h */
static int check_stub(const char *display, const char *name)
{
	static const char *const sufs[] = {".h", NULL};
	char *stub = xasprintf("%s_stub", name);
	int found = tree_test("aten/src/ATen/native", 1, sufs, stub, test_stub,
	                      stub);
	if (!found)
		fprintf(stderr,
		        "%s: %s: error: %s is not declared (no DECLARE_DISPATCH(..., "
		        "%s) in aten/src/ATen/native/*.h or */*.h): the host stub "
		        "registers NAME_stub; when the kernel name is not the stub's "
		        "(kernel add_alpha, stub add_stub), write the host stub by "
		        "hand [undeclared-stub]\n",
		        diag_prog(), display, stub, stub);
	free(stub);
	return found ? 0 : -1;
}

/* ---- planning the .metal file ---- */

struct kfile {
	struct edit_file *ef;
	int idx;
	char *masked;
	struct mr_file mf;
};

static int present_or_conflict(struct kfile *k, int kind, const char *name,
                               const struct mr_pair *want, size_t nwant,
                               struct mr_pair *missing, size_t *nmissing,
                               struct item **present)
{
	size_t i, j;
	int conflicts = 0;
	struct item *pres = NULL;

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
				unsigned long line, col;
				const struct mr_call *c = &k->mf.calls[r->call];
				line_col(k->ef->old, c->start, &line, &col);
				diag_at(k->ef->display, line, col,
				        "error: %s is already registered for input %s with "
				        "output %s (by %s); asked for output %s "
				        "[conflicting-registration]",
				        name, w->in, r->out, c->macro, w->out);
				conflicts++;
				found = 1;
				break;
			}
			if ((!r->alpha && !w->alpha) ||
			    (r->alpha && w->alpha && strcmp(r->alpha, w->alpha) == 0)) {
				if (!pres) {
					unsigned long col;
					pres = new_item(W_REG, k->idx);
					pres->present = 1;
					pres->macro = mr_kind_macro(kind);
					line_col(k->ef->old, k->mf.calls[r->call].start,
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
	*present = pres;
	return conflicts;
}

/* the offset where NAME's first existing registration call starts its
 * line, or len */
static size_t first_call_of(struct kfile *k, const char *name)
{
	size_t j;
	for (j = 0; j < k->mf.nregs; j++)
		if (strcmp(k->mf.regs[j].name, name) == 0)
			return line_start(k->ef->old, k->mf.calls[k->mf.regs[j].call].start);
	return k->ef->oldlen;
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

static int plan_metal(struct kfile *k, int kind, const char *name,
                      const struct mr_pair *want, size_t nwant)
{
	const char *t = k->ef->old, *eol = edit_eol(k->ef->old, k->ef->oldlen);
	size_t len = k->ef->oldlen, i, j, nmissing, off, nunits = 0;
	struct mr_pair missing[MR_MAX_PAIRS];
	int used[MR_MAX_PAIRS];
	struct unit units[MR_MAX_PAIRS];
	struct item *pres, *reg = NULL;
	long anchor = -1;
	char *indent;
	int semi = 1, lead_blank = 0, functor_exists;
	struct buf b;

	if (present_or_conflict(k, kind, name, want, nwant, missing, &nmissing,
	                        &pres))
		return -1;

	/* anchor: the last top-level call of the same family */
	for (j = 0; j < k->mf.nregs; j++)
		if (k->mf.regs[j].core->kind == kind)
			anchor = (long)k->mf.regs[j].call;
	if (anchor >= 0) {
		const struct mr_call *c = &k->mf.calls[anchor];
		off = next_line(t, len, c->end > 0 ? c->end - 1 : 0);
		indent = indent_of(t, c->start);
		semi = c->semi;
	} else {
		off = len;
		indent = xstrdup("");
		lead_blank = !prev_line_blank(t, len, len);
		if (nmissing > 0 && core_hdr)
			fprintf(stderr,
			        "%s: %s: note: no %s registration in this file yet; "
			        "the new ones go at its end (%s defines the macro)\n",
			        diag_prog(), k->ef->display, mr_kind_macro(kind),
			        core_hdr);
		else if (nmissing > 0)
			fprintf(stderr,
			        "%s: %s: note: no %s registration in this file yet; "
			        "the new ones go at its end\n",
			        diag_prog(), k->ef->display, mr_kind_macro(kind));
	}

	if (nmissing > 0) {
		/* helpers that register exactly a subset of what is missing */
		memset(used, 0, sizeof used);
		for (;;) {
			const struct mr_helper *best = NULL;
			struct mr_pair bp[MR_MAX_PAIRS];
			size_t bn = 0;
			for (i = 0; i < k->mf.nhelpers; i++) {
				const struct mr_helper *h = &k->mf.helpers[i];
				struct mr_pair hp[MR_MAX_PAIRS];
				size_t hn;
				int ok = 1;
				if (h->end > off)
					continue;
				hn = mr_helper_pairs(&k->mf, h, kind, hp);
				if (hn == 0 || hn <= bn)
					continue;
				for (j = 0; j < hn && ok; j++) {
					size_t x = pair_index(missing, nmissing, &hp[j]);
					ok = x != (size_t)-1 && !used[x];
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
			if (used[i])
				continue;
			a = pair_args(kind, &missing[i]);
			units[nunits].pos = pair_index(want, nwant, &missing[i]);
			units[nunits].call =
			    xasprintf("%s(%s, %s)", mr_kind_macro(kind), name, a);
			units[nunits].macro = mr_kind_macro(kind);
			units[nunits].pairs[0] = missing[i];
			units[nunits].npairs = 1;
			nunits++;
			free(a);
		}
		qsort(units, nunits, sizeof *units, unit_cmp);
	}

	/* the functor */
	{
		char *pat = xasprintf("\\b%s_functor\\b|\\bDEFINE_\\w*FUNCTOR\\s*\\(\\s*%s\\s*[,)]",
		                      name, name);
		functor_exists = re_has_match(pat, PCRE2_MULTILINE, k->masked, len);
		free(pat);
	}
	if (opt.functor && !functor_exists) {
		if (re_has_match("^[ \\t]*using[ \\t]+namespace[ \\t]+metal[ \\t]*;",
		                 PCRE2_MULTILINE, k->masked, len))
			ns_metal = "";
		if (re_has_match("^[ \\t]*using[ \\t]+namespace[ \\t]+c10::metal[ \\t]*;",
		                 PCRE2_MULTILINE, k->masked, len))
			ns_c10 = "";
		size_t limit = nmissing > 0 ? off : first_call_of(k, name);
		size_t ov[2], at;
		struct item *fi = new_item(W_FUNCTOR, k->idx);
		char *body = functor_text(eol, kind, name, want, nwant);
		int after = 0;
		if (find_last("^struct[ \\t]+\\w+_functor\\b", k->masked, len, limit,
		              ov, 1)) {
			const char *br = memchr(k->masked + ov[1], '{', len - ov[1]);
			if (br) {
				size_t e = match_brace(k->masked, len, (size_t)(br - k->masked));
				at = next_line(t, len, e > 0 ? e - 1 : 0);
				if (at <= limit)
					after = 1;
			}
		}
		buf_init(&b);
		if (after) {
			buf_puts(&b, eol);
			buf_puts(&b, body);
			if (!next_line_blank(t, len, at))
				buf_puts(&b, eol);
			fi->off = at;
		} else {
			fi->off = limit;
			if (lead_blank || !prev_line_blank(t, len, limit))
				buf_puts(&b, eol);
			lead_blank = 0;
			buf_puts(&b, body);
			buf_puts(&b, eol);
		}
		fi->text = b.data;
		fi->label = xasprintf("struct %s_functor", name);
		memcpy(fi->pairs, want, nwant * sizeof *want);
		fi->npairs = nwant;
		free(body);
	} else if (!functor_exists && nmissing > 0) {
		fprintf(stderr,
		        "%s: %s: note: no %s_functor found; write one before the "
		        "registrations, or rerun with --functor\n",
		        diag_prog(), k->ef->display, name);
	}

	if (nunits > 0) {
		reg = new_item(W_REG, k->idx);
		reg->off = off;
		reg->macro = mr_kind_macro(kind);
		buf_init(&b);
		if (lead_blank)
			buf_puts(&b, eol);
		for (i = 0; i < nunits; i++) {
			buf_printf(&b, "%s%s%s%s", indent, units[i].call, semi ? ";" : "",
			           eol);
			reg->calls[reg->ncalls++] =
			    xasprintf("%s%s", units[i].call, semi ? ";" : "");
			for (j = 0; j < units[i].npairs; j++)
				reg->pairs[reg->npairs++] = units[i].pairs[j];
			free(units[i].call);
		}
		reg->text = b.data;
		reg->label = xstrdup(reg->calls[0]);
	}
	(void)pres;
	free(indent);
	return 0;
}

/* ---- planning the host file ---- */

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
		e = next_line(m, len, i);
		if (j < len && m[j] == '#') {
			for (;;) {
				size_t b = e;
				if (b > 0 && m[b - 1] == '\n')
					b--;
				if (b > 0 && m[b - 1] == '\r')
					b--;
				if (e >= len || b == 0 || m[b - 1] != '\\')
					break;
				e = next_line(m, len, e);
			}
			for (j = i; j < e; j++)
				if (m[j] != '\n' && m[j] != '\r')
					m[j] = ' ';
		}
		i = e;
	}
}

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
			    blank_range(c, closes[i], bc - 1)) {
				bo = opens[i];
				bc = closes[i];
				changed = 1;
			}
	} while (changed);
	free(opens);
	free(closes);
	if (bc == 0 || !blank_range(c, line_start(c, bc - 1), bc - 1))
		return -1;
	*at = line_start(c, bc - 1);
	return 0;
}

static int plan_host(struct edit_file *ef, int idx, int kind, const char *name)
{
	const char *t = ef->old, *eol = edit_eol(ef->old, ef->oldlen);
	size_t len = ef->oldlen, ov[4];
	char *m = mask_code(t, len, LANG_C), *pat;
	char *code = xstrndup(m, len); /* m without directives */
	int present, ti;
	struct item *it;
	struct buf b;
	const char *exec = kind == MR_UNARY || kind == MR_UNARY_ALPHA
	                       ? "exec_unary_kernel"
	                       : "exec_binary_kernel";

	pat = xasprintf("^[ \\t]*REGISTER_UNARY_TI_DISPATCH\\s*\\(\\s*%s\\s*\\)|"
	                "\\bREGISTER_(?:MPS_)?DISPATCH\\s*\\(\\s*%s_stub\\s*,",
	                name, name);
	blank_directives(code, len);
	present = re_has_match(pat, PCRE2_MULTILINE, code, len);
	free(pat);
	if (present) {
		size_t o[2];
		unsigned long col;
		pat = xasprintf("^[ \\t]*REGISTER_UNARY_TI_DISPATCH\\s*\\(\\s*%s\\s*\\)|"
		                "\\bREGISTER_(?:MPS_)?DISPATCH\\s*\\(\\s*%s_stub\\s*,",
		                name, name);
		find_last(pat, code, len, len, o, 1);
		free(pat);
		it = new_item(W_HOST, idx);
		it->present = 1;
		line_col(t, o[0], &it->line, &col);
		it->label = xasprintf("host stub of %s", name);
		free(m);
		free(code);
		return 0;
	}
	{
		int bad = check_exec(m, len, ef->display, kind, name) != 0;
		if (check_stub(ef->display, name) != 0)
			bad = 1;
		if (bad) {
			free(m);
			free(code);
			return -1;
		}
	}
	ti = kind == MR_UNARY &&
	     re_has_match("^[ \\t]*#[ \\t]*define[ \\t]+REGISTER_UNARY_TI_DISPATCH\\(",
	                  PCRE2_MULTILINE, m, len);
	it = new_item(W_HOST, idx);
	buf_init(&b);
	if (ti) {
		int semi = 1;
		char *ind;
		if (find_last("^([ \\t]*)REGISTER_UNARY_TI_DISPATCH\\s*\\(", code, len,
		              len, ov, 2)) {
			const char *p = memchr(m + ov[1] - 1, ')', len - ov[1] + 1);
			size_t e = p ? (size_t)(p - m) + 1 : ov[1];
			while (e < len && (m[e] == ' ' || m[e] == '\t'))
				e++;
			semi = e < len && m[e] == ';';
			ind = xstrndup(t + ov[2], ov[3] - ov[2]);
			it->off = next_line(t, len, e > 0 ? e - 1 : 0);
		} else {
			size_t o[2];
			find_last("^[ \\t]*#[ \\t]*define[ \\t]+REGISTER_UNARY_TI_DISPATCH\\(",
			          m, len, len, o, 1);
			/* after the #define (and its continuation lines) */
			{
				size_t i = o[0];
				for (;;) {
					size_t e = next_line(t, len, i), b2 = e;
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
		char *fn, *regline, *bind = xstrdup("  ");
		const char *sig = mr_kind_alpha(kind)
		                      ? "TensorIteratorBase& iter, const Scalar& alpha"
		                      : "TensorIteratorBase& iter";

		have_fn = find_last("^([ \\t]*)static[ \\t]+void[ \\t]+\\w+[ \\t]*\\("
		                    "[ \\t]*(?:const[ \\t]+)?TensorIteratorBase[ \\t]*&",
		                    code, len, len, fo, 2);
		if (have_fn) {
			const char *br = memchr(m + fo[1], '{', len - fo[1]);
			if (br) {
				size_t bl = next_line(t, len, (size_t)(br - m));
				size_t s = bl, e = s;
				while (e < len && (t[e] == ' ' || t[e] == '\t'))
					e++;
				if (e > s && e < len && t[e] != '\n' && t[e] != '\r') {
					free(bind);
					bind = xstrndup(t + s, e - s);
				}
				fn_end = match_brace(m, len, (size_t)(br - m));
				fn_end = next_line(t, len, fn_end > 0 ? fn_end - 1 : 0);
			} else {
				have_fn = 0;
			}
		}
		have_reg = find_last("^([ \\t]*)REGISTER_DISPATCH\\s*\\(", code, len,
		                     len, ro, 2);
		if (have_reg) {
			const char *p = memchr(m + ro[1], ')', len - ro[1]);
			const char *comma = memchr(m + ro[1], ',', len - ro[1]);
			size_t e = p ? (size_t)(p - m) + 1 : ro[1];
			if (comma && p && comma < p) {
				const char *q = comma + 1;
				while (*q == ' ' || *q == '\t')
					q++;
				amp = *q == '&';
			}
			while (e < len && (m[e] == ' ' || m[e] == '\t'))
				e++;
			semi = e < len && m[e] == ';';
			reg_off = next_line(t, len, e > 0 ? e - 1 : 0);
		}
		fn = mr_kind_alpha(kind)
		         ? xasprintf("static void %s_mps_kernel(%s) {%s%slib.%s(iter, "
		                     "\"%s\", alpha);%s}%s",
		                     name, sig, eol, bind, exec, name, eol, eol)
		         : xasprintf("static void %s_mps_kernel(%s) {%s%slib.%s(iter, "
		                     "\"%s\");%s}%s",
		                     name, sig, eol, bind, exec, name, eol, eol);
		regline = xasprintf("REGISTER_DISPATCH(%s_stub, %s%s_mps_kernel)%s",
		                    name, amp ? "&" : "", name, semi ? ";" : "");
		if (have_fn && have_reg && fn_end <= ro[0]) {
			struct item *r2;
			char *rind = xstrndup(t + ro[2], ro[3] - ro[2]);
			buf_puts(&b, eol);
			buf_puts(&b, fn);
			it->off = fn_end;
			it->label = xasprintf("static void %s_mps_kernel(%s)", name, sig);
			r2 = new_item(W_HOST, idx);
			r2->off = reg_off;
			r2->text = xasprintf("%s%s%s", rind, regline, eol);
			r2->label = xstrdup(regline);
			free(rind);
		} else {
			size_t at;
			if (have_reg) {
				at = reg_off;
			} else if (namespace_end(code, len, &at) != 0) {
				fprintf(stderr,
				        "%s: %s: error: no REGISTER_DISPATCH line and no "
				        "namespace block closing on its own line: no place "
				        "for the host stub of %s (the host file is the "
				        ".mm file of the host stubs, e.g. %s/%s) "
				        "[no-host-anchor]\n",
				        diag_prog(), ef->display, name, MPS_OPS_REL,
				        kind == MR_UNARY || kind == MR_UNARY_ALPHA
				            ? "UnaryKernel.mm"
				            : "BinaryKernel.mm");
				free(fn);
				free(regline);
				free(bind);
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
			it->label = xasprintf("static void %s_mps_kernel(%s)", name, sig);
		}
		free(fn);
		free(regline);
		free(bind);
	}
	it->text = b.data;
	free(m);
	free(code);
	return 0;
}

/* ---- building the new bytes ---- */

static int item_cmp(const void *a, const void *b)
{
	const struct item *x = *(struct item *const *)a,
	                  *y = *(struct item *const *)b;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void build(struct edit_file *ef, int idx)
{
	const char *t = ef->old, *eol = edit_eol(ef->old, ef->oldlen);
	size_t len = ef->oldlen, n = 0, i, pos = 0;
	struct item **list = xcalloc(nitems + 1, sizeof *list);
	int noeol = len > 0 && t[len - 1] != '\n';
	struct buf b;

	for (i = 0; i < nitems; i++)
		if (items[i].file == idx && !items[i].present && items[i].text)
			list[n++] = &items[i];
	if (n == 0) {
		free(list);
		return;
	}
	qsort(list, n, sizeof *list, item_cmp);
	buf_init(&b);
	for (i = 0; i < n; i++) {
		struct item *it = list[i];
		buf_add(&b, t + pos, it->off - pos);
		pos = it->off;
		if (noeol && it->off == len) {
			/* at the end of a file without a final newline: end the old
			 * last line, and leave the new last line unterminated */
			size_t tl = strlen(it->text), el = strlen(eol);
			int last = 1;
			size_t k;
			for (k = i + 1; k < n; k++)
				if (list[k]->off == len)
					last = 0;
			if (i == 0 || list[i - 1]->off != len)
				buf_puts(&b, eol);
			it->newoff = b.len;
			if (last && tl >= el && memcmp(it->text + tl - el, eol, el) == 0)
				tl -= el;
			buf_add(&b, it->text, tl);
		} else {
			it->newoff = b.len;
			buf_puts(&b, it->text);
		}
	}
	buf_add(&b, t + pos, len - pos);
	for (i = 0; i < n; i++) {
		struct item *it = list[i];
		size_t o = it->newoff;
		unsigned long col;
		while (o < b.len && (b.data[o] == '\n' || b.data[o] == '\r'))
			o++;
		line_col(b.data, o, &it->line, &col);
	}
	edit_set_replace(ef, b.data, b.len);
	buf_free(&b);
	free(list);
}

/* ---- output ---- */

static json_t *pairs_json(const struct mr_pair *p, size_t n)
{
	json_t *a = json_array();
	size_t i;
	for (i = 0; i < n; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "in", json_string(p[i].in));
		if (p[i].alpha)
			json_object_set_new(o, "alpha", json_string(p[i].alpha));
		json_object_set_new(o, "out", json_string(p[i].out));
		json_array_append_new(a, o);
	}
	return a;
}

static void print_json(struct edit_set *set, const char *name, int kind,
                       int written)
{
	size_t i, j;
	for (i = 0; i < nitems; i++) {
		struct item *it = &items[i];
		json_t *o = json_object();
		char *s;
		static const char *const wn[] = {"registration", "functor",
		                                 "host-stub"};
		json_object_set_new(o, "file",
		                    json_string(set->files[it->file].display));
		json_object_set_new(o, "line", json_integer((json_int_t)it->line));
		json_object_set_new(o, "what", json_string(wn[it->what]));
		json_object_set_new(o, "action",
		                    json_string(it->present ? "present"
		                                : written  ? "inserted"
		                                           : "insert"));
		json_object_set_new(o, "kind", json_string(mr_kind_name(kind)));
		json_object_set_new(o, "name", json_string(name));
		if (it->what == W_REG && it->ncalls) {
			json_t *c = json_array();
			for (j = 0; j < it->ncalls; j++)
				json_array_append_new(c, json_string(it->calls[j]));
			json_object_set_new(o, "calls", c);
		}
		if (it->npairs) {
			json_t *k = json_array();
			json_object_set_new(o, "dtypes", pairs_json(it->pairs, it->npairs));
			for (j = 0; j < it->npairs && it->what == W_REG; j++) {
				char *d = mr_kernel_name(name, "dense", &it->pairs[j]);
				char *st = mr_kernel_name(name, "strided", &it->pairs[j]);
				json_array_append_new(k, json_string(d));
				json_array_append_new(k, json_string(st));
				free(d);
				free(st);
			}
			if (it->what == W_REG)
				json_object_set_new(o, "kernels", k);
			else
				json_decref(k);
		}
		if (it->what == W_HOST)
			json_object_set_new(o, "kernel", json_string(name));
		if (!it->present && it->text)
			json_object_set_new(o, "text", json_string(it->text));
		s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
		if (s)
			puts(s);
		free(s);
		json_decref(o);
	}
}

/* path and display name of a file: the default under root, or as given.
 * The file must lie under the root once symbolic links are resolved
 * (given files and defaults alike): otherwise prints why, in the words
 * of edit_finish, and returns -1 before anything is read.  A file that does not exist is left to the
 * loader, which reports "cannot open". */
static int resolve(const char *root, const char *given, const char *rel,
                   char **path, char **display)
{
	char *rr, *rg;
	size_t n;
	int inside = 0, exists;
	*path = given ? xstrdup(given) : xasprintf("%s/%s", root, rel);
	*display = given ? NULL : xstrdup(rel);
	rr = realpath(root, NULL);
	rg = realpath(*path, NULL);
	exists = rg != NULL;
	if (rr && rg) {
		n = strlen(rr);
		if (strncmp(rg, rr, n) == 0 && (rg[n] == '/' || rr[n - 1] == '/')) {
			inside = 1;
			if (!*display)
				*display = xstrdup(rg + n + (rg[n] == '/'));
		}
	}
	free(rr);
	free(rg);
	if (!*display)
		*display = xstrdup(given);
	if (exists && !inside) {
		/* the edit engine's wording (edit_finish), given before reading */
		char *r1 = realpath(*path, NULL), *r2 = realpath(root, NULL);
		warnx_("error: '%s' resolves to '%s', outside the root '%s'; "
		       "nothing written",
		       *display, r1 ? r1 : *path, r2 ? r2 : root);
		free(r1);
		free(r2);
		return -1;
	}
	return 0;
}

static struct edit_file *load(struct edit_set *set, const char *path,
                              const char *display)
{
	struct edit_file *f = edit_set_load(set, path, display);
	if (f && memchr(f->old, '\0', f->oldlen)) {
		warnx_("error: '%s' is not a text file (it holds a NUL byte)",
		       display);
		return NULL;
	}
	return f;
}

int main(int argc, char **argv)
{
	struct mr_pair want[MR_MAX_PAIRS];
	int n, kind, nwant, rc, changed;
	const char *name;
	char *root, *kpath, *kdisp, *hpath = NULL, *hdisp = NULL;
	struct edit_set set;
	struct edit_opts eo;
	struct kfile k;
	size_t i;

	diag_init("mps-register");
	n = cli_parse(&info, opts, argc, argv);
	memset(&eo, 0, sizeof eo);
	eo.journal = opt.journal;
	eo.tool = "mps-register";
	eo.out = stdout;
	if (opt.undo) {
		if (n != 0) {
			warnx_("error: --undo takes no KIND or NAME");
			cli_usage(&info, opts);
		}
		/* the journal is the checkout's own (edit.h edit_journal_dir):
		 * find the checkout unless --journal names the folder */
		if (opt.root || !opt.journal) {
			if (!(root = find_root(opt.root)))
				return MK_EXIT_ERROR;
			eo.root = root;
		}
		eo.json = opt.json;
		rc = edit_undo(&eo);
		free((char *)eo.root);
		return close_stdout(rc);
	}
	if (n != 2) {
		warnx_("error: expected KIND and NAME");
		cli_usage(&info, opts);
	}
	kind = mr_kind_parse(argv[0]);
	if (kind < 0) {
		warnx_("error: unknown kind '%s' (unary, unary-alpha, binary, "
		       "binary-alpha)",
		       argv[0]);
		return MK_EXIT_ERROR;
	}
	name = argv[1];
	if (!mr_valid_name(name)) {
		warnx_("error: invalid kernel name '%s': a NAME is a C identifier "
		       "(letters, digits, '_'; not starting with a digit)",
		       name);
		return MK_EXIT_ERROR;
	}
	if (!!opt.dtypes == !!opt.preset) {
		warnx_("error: give exactly one of --dtypes and --preset");
		return MK_EXIT_ERROR;
	}
	if (opt.preset) {
		nwant = mr_preset(opt.preset, kind, want);
		if (nwant < 0) {
			warnx_("error: unknown preset '%s' (float, int2float, integer, "
			       "complex, all)",
			       opt.preset);
			return MK_EXIT_ERROR;
		}
	} else {
		char *err;
		nwant = mr_parse_dtypes(opt.dtypes, kind, want, &err);
		if (nwant < 0) {
			warnx_("error: --dtypes: %s", err);
			free(err);
			return MK_EXIT_ERROR;
		}
	}

	if (opt.host_file)
		opt.host = 1;
	if (opt.host_file && ends_with(opt.host_file, ".metal")) {
		warnx_("error: --host-file '%s' is a .metal file; the host stub "
		       "goes into the .mm file of the host stubs (%s/UnaryKernel.mm "
		       "or BinaryKernel.mm)",
		       opt.host_file, MPS_OPS_REL);
		return MK_EXIT_ERROR;
	}
	root = find_root(opt.root);
	if (!root)
		return MK_EXIT_ERROR;
	eo.root = root;
	tree_root = root;
	memset(&set, 0, sizeof set);
	memset(&k, 0, sizeof k);
	rc = MK_EXIT_ERROR;
	{
		int unary = kind == MR_UNARY || kind == MR_UNARY_ALPHA;
		if (resolve(root, opt.kernel_file,
		            unary ? MPS_KERNELS_REL "/UnaryKernel.metal"
		                  : MPS_KERNELS_REL "/BinaryKernel.metal",
		            &kpath, &kdisp) != 0)
			goto out;
		if (opt.host &&
		    resolve(root, opt.host_file,
		            unary ? MPS_OPS_REL "/UnaryKernel.mm"
		                  : MPS_OPS_REL "/BinaryKernel.mm",
		            &hpath, &hdisp) != 0)
			goto out;
	}
	k.ef = load(&set, kpath, kdisp);
	if (!k.ef)
		goto out;
	k.idx = 0;
	if (opt.host) {
		struct edit_file *hf = load(&set, hpath, hdisp);
		if (!hf)
			goto out;
		if (set.n < 2) {
			warnx_("error: the host file and the kernel file are the same "
			       "file '%s'",
			       hdisp);
			goto out;
		}
		k.ef = &set.files[0]; /* the array may have moved */
	}
	k.masked = mask_code(k.ef->old, k.ef->oldlen, LANG_C);
	mr_file_parse(&k.mf, k.masked, k.ef->oldlen);

	{
		/* every refusal is reported, before any note, and before giving
		 * up; the host file is planned first for that, then its items
		 * are moved after the kernel file's */
		int bad = check_core(k.masked, k.ef->oldlen, k.ef->display, kind,
		                     name) != 0;
		size_t nhost;
		struct item *tmp;
		if (opt.host && plan_host(&set.files[1], 1, kind, name) != 0)
			bad = 1;
		if (bad)
			goto out;
		nhost = nitems;
		if (plan_metal(&k, kind, name, want, (size_t)nwant) != 0)
			goto out;
		tmp = xcalloc(nitems + 1, sizeof *tmp);
		memcpy(tmp, items + nhost, (nitems - nhost) * sizeof *tmp);
		memcpy(tmp + (nitems - nhost), items, nhost * sizeof *tmp);
		memcpy(items, tmp, nitems * sizeof *tmp);
		free(tmp);
	}

	for (i = 0; i < set.n; i++)
		build(&set.files[i], (int)i);
	changed = edit_set_changed(&set) > 0;

	if (!changed) {
		if (opt.json)
			print_json(&set, name, kind, 0);
		else
			puts("nothing to do");
		rc = MK_EXIT_CLEAN;
	} else {
		FILE *null = NULL;
		if (opt.json) {
			null = fopen("/dev/null", "w");
			if (!null)
				die("cannot open '/dev/null':");
			eo.out = null;
		}
		eo.in_place = opt.in_place;
		rc = edit_finish(&set, &eo);
		if (null)
			fclose(null);
		if (rc != MK_EXIT_ERROR) {
			if (opt.json) {
				print_json(&set, name, kind, opt.in_place);
			} else if (opt.in_place) {
				for (i = 0; i < nitems; i++) {
					struct item *it = &items[i];
					size_t j;
					if (it->present || !it->text)
						continue;
					if (it->ncalls == 0)
						printf("%s:%lu: added %s\n",
						       set.files[it->file].display, it->line,
						       it->label);
					for (j = 0; j < it->ncalls; j++)
						printf("%s:%lu: added %s\n",
						       set.files[it->file].display,
						       it->line + (unsigned long)j, it->calls[j]);
				}
			}
		}
	}

out:
	for (i = 0; i < nitems; i++) {
		size_t j;
		free(items[i].text);
		free(items[i].label);
		for (j = 0; j < items[i].ncalls; j++)
			free(items[i].calls[j]);
	}
	free(items);
	mr_file_free(&k.mf);
	free(k.masked);
	edit_set_free(&set);
	free(root);
	free(kpath);
	free(kdisp);
	free(hpath);
	free(hdisp);
	free(core_hdr);
	return close_stdout(rc);
}
