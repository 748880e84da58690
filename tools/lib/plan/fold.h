/* fold.h — the plan of a change to the dispatch rows of
 * native_functions.yaml: fold an operator's MPS-specific rows into their
 * shared line (`CPU, CUDA: x` + `MPS: x_mps` → `CPU, CUDA, MPS: x`), or,
 * for a new operator, add MPS to the shared line of its out rows.  No
 * printing, no writing: mps-dispatch prints the plan, mps-migrate puts it
 * into a change of several files.
 *
 * Which rows fold (PyTorch's own migrations, 2.6.0 → 2.14.1, are the
 * truth: tests/real/t-migrations-real.sh replays them):
 *   - a structured row folds onto its CPU/CUDA line (its kernel is the
 *     shared structured implementation whose stub MPS registers);
 *   - a row that is not structured folds when its shared kernel reaches
 *     the device through DispatchStubs, or needs none (device-generic),
 *     as the C++ sources say (stubs.h cs_discover); it is refused when
 *     the kernel dispatches dtypes on the CPU itself, when no definition
 *     is found, or when the tree has no C++ sources;
 *   - refused too: no CPU or CUDA line to join, CPU and CUDA kernels that
 *     differ, a dispatch map not in block style.
 * For every row that folds (or gets MPS added), the stubs its kernel
 * reaches are the ones MPS must now register (those reached only on
 * other devices, stubs.h cs_stub.guard, are left out).
 *
 * Key order: when the keys of the line being joined are in alphabetical
 * order ignoring case (`CPU, CUDA, XPU`, `CPU, CUDA, Meta`), MPS goes to
 * its alphabetical place (`CPU, CUDA, MPS, XPU`, `CPU, CUDA, Meta, MPS`),
 * as 240 of the 260 shared lines listing MPS with CPU in 2.14.1 have it;
 * otherwise at the end.  Only the joined line and the MPS line change.
 *
 * Layer: plan/.  May call base/, edit/, read/, check/ and plan/ (calls
 * base/ and read/ nfyaml, stubs).
 */
#ifndef MK_FOLD_H
#define MK_FOLD_H

#include <stddef.h>

#include "read/stubs.h"
#include "read/nfyaml.h"

enum fold_action {
	FOLD_FOLD,        /* MPS joins the shared line, its own line goes */
	FOLD_ADD,         /* --add: MPS joins the shared line of an out row */
	FOLD_REFUSED,     /* a row that needed folding and cannot be */
	FOLD_REFUSED_ADD  /* an out row --add cannot give MPS */
};

struct fold_stub {
	char *name;           /* "abs_stub" (owned) */
	char *where;          /* "aten/src/ATen/native/UnaryOps.cpp:544" (owned) */
	int declared;         /* DECLARE_DISPATCH in a header */
};

struct fold_row {
	const struct nf_func *f;   /* the row (borrowed from the index) */
	enum fold_action action;
	const struct nf_dispatch *at; /* the line to name in messages */
	char *why;            /* refused: why (owned), NULL otherwise */
	char *hint;           /* refused: what to do instead (owned) */
	const char *kernel;   /* the shared kernel joined, NULL when none */
	int reach;            /* enum cs_kind of that kernel; -1 when the C++
	                         sources were not asked (a structured row in a
	                         tree without them) */
	struct fold_stub *stubs; /* what MPS must register (owned) */
	size_t nstubs;
	int no_out;           /* --add on an operator without any out= row (f
	                         is its first entry; no line to name) */
};

struct fold_edit {
	size_t start, end;    /* byte range of the yaml text replaced */
	char *text;           /* by these bytes (owned) */
};

struct fold_plan {
	struct fold_row *rows;   /* acted on or refused, yaml order per call */
	size_t nrows;
	struct fold_edit *edits; /* unordered; fold_apply sorts */
	size_t nedits;
	size_t nacted, nrefused;
	size_t caprows, capedits;
};

/* fold_plan_op: add to plan p (zero it before the first call) what
 * folding operator OP means for the yaml index ix, or with ADD what
 * giving its out rows MPS means.  OP is a base name ("pow": every row of
 * the operator) or a function's full name ("pow.Tensor_Scalar_out": that
 * row alone, as a migration one overload at a time does).
 * cs: the C++ sources, for rows that are not structured and for the stubs
 * (cs_lazy_get is called only when a row needs it; NULL: a tree read
 * without them).  Returns the number of functions OP names (0: no
 * operator or function of ix; nothing added).  Never prints. */
size_t fold_plan_op(struct fold_plan *p, const struct nf_index *ix,
                    struct cs_lazy *cs, const char *op, int add);

/* fold_row_kernel: the shared kernel through which row f reaches MPS
 * (f->mps_kernel when the row is shared), or would once folded (the
 * kernel of its CPU/CUDA line when the row is MPS-specific and has one
 * line to join), namespace removed; NULL for any other row.  Points into
 * the index. */
const char *fold_row_kernel(const struct nf_func *f);

/* fold_apply: the yaml text of ix with every edit of p made, malloc'd
 * (caller frees), *len its length.  Edits never overlap (each row's own
 * lines). */
char *fold_apply(const struct nf_index *ix, const struct fold_plan *p,
                 size_t *len);

/* fold_action_name: "fold", "add", "refused", "refused-add"; with DONE
 * (the change was written) "folded", "added" for the first two. */
const char *fold_action_name(enum fold_action a, int done);

void fold_plan_free(struct fold_plan *p);

#endif
