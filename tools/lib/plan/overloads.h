/* overloads.h — what mps-overloads lists, computed here so that its face
 * only prints: the rows of an operator in the order they are listed, the
 * rule that selects them from an OP argument, their counts per route, the
 * survey of every operator, the nearest operator names for an OP that
 * matches nothing, and the stubs the kernel of a row reaches.  Issue #2.
 *
 * Layer: plan/.  May call base/, edit/, read/, check/ and plan/ (calls
 * base/, read/ nfyaml, stubs and hostscan's map, plan/ fold: the kernel a
 * row reaches MPS through).
 */
#ifndef MK_OVERLOADS_H
#define MK_OVERLOADS_H

#include "read/hostscan.h"
#include "read/nfyaml.h"
#include "read/stubs.h"

#include <stddef.h>

/* ov_order: the indexes of every function of ix (ix->nfuncs) in the order
 * they are listed: yaml order, the functions an entry's `autogen:` list
 * generates right after that entry (in generation order).  malloc'd
 * (caller frees). */
size_t *ov_order(const struct nf_index *ix);

/* ov_matches: an OP argument selects function f.  With a '.', OP is a
 * full name ("atan2.out": that function); without, every function whose
 * base name is OP ("atan2": atan2.out, atan2_, atan2) or whose name
 * before the overload is OP ("add_": add_.Tensor, add_.Scalar;
 * "__and__": __and__.Scalar, __and__.Tensor). */
int ov_matches(const struct nf_func *f, const char *op);

/* ov_select: the rows of ord (every function of ix, as ov_order gives
 * them) that OP selects (ov_matches; every row when OP is NULL), and of
 * those only the mps-specific ones when LEGACY, in ord's order: into
 * rows[] (room for ix->nfuncs); returns their count.  *found (when FOUND
 * is not NULL): how many OP selects, LEGACY aside. */
size_t ov_select(const struct nf_index *ix, const size_t *ord, const char *op,
                 int legacy, size_t *rows, size_t *found);

/* ov_nearest: the base names of ix nearest to OP, at most 3, nearest
 * first (ties in yaml order): Levenshtein distance at most
 * max(2, strlen(OP) / 3), each name once.  Fills best[] (pointing into
 * ix) and returns how many. */
size_t ov_nearest(const struct nf_index *ix, const char *op,
                  const char *best[3]);

/* The counts of a list of rows: per route, and the distinct
 * structured_delegate targets of the delegate rows, first seen first
 * (the first 64; they point into the index). */
struct ov_counts {
	size_t n[NF_NROUTES];
	const char *targets[64];
	size_t ntargets;
};

/* ov_count: the counts of rows[0, n) of ix into *c. */
void ov_count(const struct nf_index *ix, const size_t *rows, size_t n,
              struct ov_counts *c);

/* One operator (a base name) of the survey. */
struct ov_op {
	const char *base;     /* points into the index */
	size_t n[NF_NROUTES]; /* its functions per route */
	size_t total;
};

/* The survey: every operator of ix, those with the most mps-specific
 * rows first, then by name (strcmp); totals per route over every
 * function; the longest base name (at least 8, a column width); how many
 * operators have an mps-specific row. */
struct ov_survey {
	struct ov_op *ops;    /* owned */
	size_t nops;
	size_t tot[NF_NROUTES];
	size_t width;
	size_t with_legacy;
};

/* ov_survey: fill *s from ix; free with ov_survey_free. */
void ov_survey(const struct nf_index *ix, struct ov_survey *s);
void ov_survey_free(struct ov_survey *s);

/* The stubs of the rows' kernels, discovered once per kernel (stubs.h
 * cs_discover) from the C++ sources of cs->root (NULL: none, as with
 * --yaml).  Zero it, set cs, free with ov_stubs_free. */
struct ov_stubs {
	struct cs_lazy *cs;
	struct ov_reach {
		char *kernel;             /* owned */
		int known;                /* stubs, or device-generic ([]) */
		const struct cs_stub **v; /* owned array; into d */
		size_t n;
		struct cs_discovery d;
	} *k;
	size_t nk, cap;
	struct hs_map index;          /* kernel -> k[] */
};

/* ov_row_stubs: the stubs MPS needs for row f: those its shared kernel
 * reaches when f is shared, or would reach once folded when f is
 * MPS-specific and can be (plan/fold.h fold_row_kernel), those reached
 * only on other devices (cs_stub.guard) left out; an empty list for a
 * kernel that calls other operators only.  NULL when the sources cannot
 * tell (no sources, a CPU-only kernel, no definition) or the row has no
 * such kernel.  Reads the sources on first need (cs_lazy_get: an
 * unreadable source exits 2).  The answer lives until ov_stubs_free. */
const struct ov_reach *ov_row_stubs(struct ov_stubs *st,
                                    const struct nf_func *f);
void ov_stubs_free(struct ov_stubs *st);

#endif
