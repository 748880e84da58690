/* regplan.h — the plan of what registering one native Metal kernel NAME
 * adds to a PyTorch checkout: the REGISTER_*_OP lines of the .metal file
 * (one per dtype pair, or a file-local helper call when its #define
 * registers exactly pairs asked for), a functor skeleton, and the host
 * stub of the .mm file.  No printing, no writing: mps-register prints the
 * plan and hands the new bytes to the edit engine; mps-migrate puts them
 * into a change of several files.  (Moved out of tools/src/mps-register.c.)
 *
 * Where things go (the files' own layout is kept: indentation, ';' or
 * not, line endings, a missing final newline):
 *   - registrations of a NAME that has a functor already: after the last
 *     top-level registration call of the same kind (a helper call counts
 *     when it expands to that kind), in its indentation and ';' style;
 *   - a new functor and its registrations go together, functor first: after
 *     the last complete group of the same kind, a group being
 *     `struct X_functor { ... };` followed (blank lines, comments and
 *     preprocessor lines between) by top-level calls that register only X
 *     with that kind; so never between another functor and its
 *     registrations (issue #14: logical_not_functor and its lines).  With
 *     no such group: after the last registration call of that kind; with
 *     none: at the end of the file.  When NAME is already registered but
 *     has no functor, the functor goes before NAME's first registration;
 *   - the host stub: REGISTER_UNARY_TI_DISPATCH(NAME); after the last such
 *     line (or the macro's #define) when the host file defines that macro,
 *     the kind is unary, the stub is NAME_stub and no dtype check is
 *     asked; otherwise `static void NAME_mps_kernel(TensorIteratorBase&
 *     iter[, const Scalar& alpha])` calling lib.exec_unary_kernel or
 *     lib.exec_binary_kernel with "NAME" (and alpha), plus
 *     REGISTER_DISPATCH(STUB, &NAME_mps_kernel), after the file's last
 *     such function and REGISTER_DISPATCH line, else before the '}' that
 *     closes its last namespace block.
 *
 * Refusals (rg_plan returns -1, the messages say why, with a rule id):
 *   no-c10-metal     the kind's core macro is neither used nor #defined in
 *                    the kernel file nor #defined in ROOT/c10/metal/NAME.h
 *                    (the tree predates the c10/metal kernels);
 *   no-exec-kernel   neither the host file nor a source under
 *                    aten/src/ATen/native/mps/ mentions
 *                    lib.exec_unary_kernel / lib.exec_binary_kernel;
 *   undeclared-stub  STUB has no DECLARE_DISPATCH in
 *                    ROOT/aten/src/ATen/native/NAME.h or DIR/NAME.h;
 *   no-host-anchor   no REGISTER_DISPATCH line and no namespace block
 *                    closing on its own line in the host file;
 *   conflicting-registration  NAME is registered for an input dtype with
 *                    another output than asked.
 *
 * Layer: plan/.  May call base/, edit/, read/, check/ and plan/ (calls
 * base/, edit/ and read/ metalreg).
 */
#ifndef MK_REGPLAN_H
#define MK_REGPLAN_H

#include <jansson.h>
#include <stddef.h>

#include "read/metalreg.h"

/* Which file an item goes to. */
enum { RG_KERNEL = 0, RG_HOST = 1 };

enum rg_what { RG_REG, RG_FUNCTOR, RG_HOST_STUB };

/* One planned insertion (or a part found present). */
struct rg_item {
	enum rg_what what;
	int file;              /* RG_KERNEL or RG_HOST */
	size_t off;            /* insertion offset in the file's text */
	char *text;            /* bytes to insert, the file's line endings;
	                          NULL when present */
	char *label;           /* one-line summary: the first code line */
	const char *macro;     /* RG_REG: the core macro of the kind */
	char *calls[MR_MAX_PAIRS]; /* RG_REG: each call written, ';' included */
	size_t ncalls;
	struct mr_pair pairs[MR_MAX_PAIRS]; /* RG_REG: the pairs these calls
	                          register; RG_FUNCTOR: the pairs asked for */
	size_t npairs;
	int present;           /* already in the file: nothing inserted */
	int check;             /* RG_HOST_STUB: holds the dtype check */
	unsigned long line;    /* 1-based: the old file when present, the new
	                          file (first non-blank inserted line) once
	                          rg_build ran */
	size_t newoff;         /* offset in the new file (rg_build) */
};

/* A message for people: TEXT is "PATH:LINE:COL: SEVERITY: ..." or
 * "PATH: SEVERITY: ...", without the program name (the caller adds
 * "prog: "), ending in " [rule-id]" for refusals. */
struct rg_msg {
	int error;             /* 1 error (a refusal), 0 note */
	char *text;            /* owned */
};

/* A file's text as the plan sees it (not necessarily what is on disk:
 * mps-migrate plans on the text after its deletions). */
struct rg_file {
	const char *display;   /* path relative to the root, for messages */
	const char *text;
	size_t len;
};

struct rg_request {
	int kind;              /* enum mr_kind */
	const char *name;      /* kernel NAME (mr_valid_name) */
	const char *stub;      /* the stub the host stub registers; NULL:
	                          NAME_stub */
	const char *op;        /* operator named in the dtype check message;
	                          NULL: NAME */
	const struct mr_pair *pairs; /* dtypes (interned mr_dtypes tokens) */
	size_t npairs;
	int functor;           /* add a functor skeleton when none exists */
	int host;              /* plan the host stub (host file given) */
	unsigned check;        /* host dtype check: the input dtypes the stub
	                          lets through, a bit (1u << i) per mr_dtypes[i];
	                          0: no check.  See rg_check_text. */
};

struct rg_plan {
	struct rg_item *items; /* kernel file items first, then host file's */
	size_t nitems, capitems;
	struct rg_msg *msgs;   /* in the order found */
	size_t nmsgs, capmsgs;
	size_t nerrors;
	char *core_hdr;        /* c10/metal header defining the core macro
	                          when the kernel file does not use it (owned) */
	int functor_exists;    /* NAME_functor (or DEFINE_*FUNCTOR(NAME)) is
	                          in the kernel file already */
	int host_ti;           /* the host stub uses REGISTER_UNARY_TI_DISPATCH */
	const char *ns_metal, *ns_c10; /* private: prefixes of the skeleton */
};

/* rg_plan: plan rq on the kernel file K (and, with rq->host, the host
 * file H) of the checkout ROOT (read for the checks above: c10/metal/NAME.h,
 * the sources under aten/src/ATen/native/mps/, aten/src/ATen/native/NAME.h
 * and DIR/NAME.h; unreadable files there count as not matching).  p is zeroed
 * first; release with rg_plan_free.  Returns 0, or -1 when refused (the
 * errors are in p->msgs; the host is checked before the kernel file's
 * registrations are planned so every refusal is reported).  Prints
 * nothing.  A PCRE2 match error exits 2 (scan.h). */
int rg_plan(struct rg_plan *p, const char *root, const struct rg_request *rq,
            const struct rg_file *k, const struct rg_file *h);

/* rg_build: the text of file F (RG_KERNEL or RG_HOST; the same text the
 * plan was made on) with the plan's insertions, malloc'd (caller frees),
 * *len its length; NULL when nothing is inserted there.  Sets each
 * item's line and newoff in the new text. */
char *rg_build(struct rg_plan *p, int file, const struct rg_file *f,
               size_t *len);

void rg_plan_free(struct rg_plan *p);

/* rg_what_name: "registration", "functor" or "host-stub" (the `what` of
 * the tools' JSON rows). */
const char *rg_what_name(enum rg_what w);

/* rg_pairs_json: the dtype pairs v[0, n) as a new JSON array (caller owns
 * the reference) of {"in", "alpha" (only when set), "out"} objects. */
json_t *rg_pairs_json(const struct mr_pair *v, size_t n);

/* rg_check_text: the host dtype check of a stub that lets through only the
 * input dtypes ALLOWED (bits as rg_request.check; the Metal dtypes stand
 * for the PyTorch types Float, Half, BFloat16, Long, Int, Short, Char,
 * Byte, Bool, ComplexFloat, ComplexHalf): "TORCH_CHECK_TYPE(COND,\n
 * INDENT  MESSAGE);" (no leading indent, no line end), COND on
 * iter.common_dtype() written with isFloatingType, isIntegralType(t,
 * includeBool), isComplexType and == kT, naming the allowed set (so a
 * dtype outside the eleven, uint16 or float8, is refused as well);
 * MESSAGE "OP on MPS supports only DESC inputs, got " followed by the
 * dtype.
 * EOL and INDENT (the body's indentation) shape the second line.
 * malloc'd (caller frees).  ALLOWED 0 or every dtype: NULL. */
char *rg_check_text(const char *op, unsigned allowed, const char *eol,
                    const char *indent);

/* rg_dtype_bit: the bit of Metal dtype token T in rg_request.check (T an
 * interned mr_dtypes element or any equal string); 0 for anything else. */
unsigned rg_dtype_bit(const char *t);

/* RG_ALL_DTYPES: every bit (all mr_dtypes). */
#define RG_ALL_DTYPES ((1u << 11) - 1)

#endif
