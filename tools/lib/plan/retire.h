/* retire.h — the old MPS path of an operator that a migration to a native
 * Metal kernel leaves dead, as deletions: the MPS definitions no dispatch
 * row names any more, the helpers only they called, the
 * `#include <ATen/ops/OP_native.h>` lines nothing else in their file needs,
 * and the operator's entries in the test suite's expected-failure and
 * skip lists.  No printing, no writing: mps-migrate puts the deletions
 * into its change.  Works on the model hostscan.h builds (its texts are
 * the files as read).
 *
 * The rules (issue #14; mps-verify's rules dead-mps-definition,
 * stale-include and xfail-leftover find what is left when they are not
 * followed):
 *   - a definition: each host definition named by one of the DEAD kernel
 *     names (MPS kernels no remaining dispatch row names).  Deleted with
 *     its whole extent (hostscan.h hs_def ext_start..ext_end: the function
 *     with its body, or the macro call that generates it), unless host
 *     code still calls it (another definition's body that is not deleted,
 *     or a stub registration), or its macro call also generates a
 *     definition that stays: then it is kept, and why is said;
 *   - a helper: a function a deleted definition calls, defined once, in
 *     the same host source file (not a header), not by a macro, that no
 *     dispatch row names (rq->named), that no definition which stays
 *     calls (hostscan expands macros, so a name pasted together with ##
 *     counts), and whose name occurs nowhere else in the code of any host
 *     file (comments, string literals and #include lines do not count;
 *     #define bodies do) once the deletions are made: deleted too (and so
 *     on for the helpers it calls).  Helpers other code still uses are
 *     kept and listed with the first caller or place that uses them;
 *   - an include `#include <ATen/ops/OP_native.h>` of a host file is
 *     deleted when, after the deletions, the file's code names none of
 *     NAMES (every kernel of the operator's dispatch rows, and
 *     structured_ + each) and registers no stub whose name starts with
 *     OP + "_";
 *   - a stub registration: rq->replaced_stub's registrations whose
 *     function builds an MPSGraph (2.6.0's where_kernel registered with
 *     where_kernel_mps), the statement through its ';';
 *   - an xfail/skip entry whose key names OP (hs_xfail_names_op, or
 *     with rq->is_op hs_xfail_op: "divno_rounding_mode" names div), in
 *     any list hostscan reads (annotated `NAME: dict[...] = {` ones too):
 *     a dict entry `"op": value,` (the value may span lines) or a
 *     set/list item `"op",`; when it stands alone on its lines those lines go (a comment
 *     after it on the same line too); else only the entry and its comma.
 * Whole lines: when a deleted extent has nothing but blanks (or a comment)
 * around it on its first and last lines, those lines go entirely; the
 * comment lines right above it go too when nothing else follows in the
 * same paragraph (a blank line, a closing '}' line or the end of the file
 * below the extent: otherwise they may head a group); a blank line that
 * would double up with the one above is removed.  Otherwise only the
 * extent's bytes go.
 *
 * Layer: plan/.  May call base/, edit/, read/, check/ and plan/ (calls
 * base/ and read/ hostscan, nfyaml).
 */
#ifndef MK_RETIRE_H
#define MK_RETIRE_H

#include <stddef.h>

#include "read/hostscan.h"

enum rt_what { RT_DEF, RT_HELPER, RT_INCLUDE, RT_XFAIL, RT_REG };

struct rt_item {
	enum rt_what what;
	size_t file;             /* index into the model's files */
	size_t start, end;       /* bytes deleted from that file's text
	                            (whole lines once widened); for a kept
	                            item the extent it would have had */
	char *name;              /* the definition or helper; OP for an
	                            include; the key for an xfail entry */
	char *detail;            /* for people: "macro line
	                            CREATE_..._FUNC(x_out_mps, ...)",
	                            "builds an MPSGraph (unary_op())", the
	                            list name, why it is kept (owned) */
	unsigned long line, last;/* 1-based first and last line of the thing
	                            itself (its extent, not the widening) */
	int kept;                /* 1: not deleted; detail says why */
	int graph;               /* RT_DEF, RT_HELPER: it builds an MPSGraph */
};

struct rt_plan {
	struct rt_item *items;   /* definitions, helpers, includes, xfails; in
	                            file order within each */
	size_t n, cap;
};

struct rt_request {
	const char *op;                  /* the operator's base name */
	const char *const *dead;         /* MPS kernel names no remaining row
	                                    names (may repeat) */
	size_t ndead;
	const char *const *names;        /* every kernel name of the operator's
	                                    rows, for the include rule */
	size_t nnames;
	int (*named)(const char *name, void *arg); /* 1 when a dispatch row
	                                    that stays names kernel NAME (such
	                                    a function is never a helper to
	                                    delete); NULL: none is */
	void *arg;
	int (*is_op)(const char *name, int prefix, void *op_arg); /* 1
	                                    when NAME is an operator's base
	                                    name (PREFIX 0), or the start of
	                                    one (PREFIX 1), for the
	                                    entries named OpInfo name +
	                                    variant (hs_xfail_op); NULL: the
	                                    exact forms only */
	void *op_arg;
	const char *replaced_stub;       /* the stub the migration registers
	                                    anew (where_kernel), or NULL: each
	                                    MPS registration of it written as
	                                    `REGISTER_DISPATCH(stub, &fn);` (no
	                                    wrapper macro) whose fn builds an
	                                    MPSGraph is deleted (RT_REG, name
	                                    the stub), and fn is dead as the
	                                    DEAD names are */
};

/* rt_plan_op: fill p (zeroed first; rt_plan_free) with what retiring the
 * old path of rq->op deletes from the files of hm.  Never prints. */
void rt_plan_op(struct rt_plan *p, const struct hs_model *hm,
                const struct rt_request *rq);

/* rt_xfail_of_op: 1 when the xfail/skip entry KEY is rq->op's, the rule
 * of the entries rt_plan_op deletes (hs_xfail_names_op, or with rq->is_op
 * hs_xfail_op), else 0.  Also for counting OP's entries when nothing is
 * deleted (mps-migrate's plan when no row can move). */
int rt_xfail_of_op(const char *key, const struct rt_request *rq);

/* rt_apply: the text of hm's file FILE with p's deletions of that file
 * made, malloc'd (caller frees), *len its length; NULL when p deletes
 * nothing there. */
char *rt_apply(const struct rt_plan *p, const struct hs_model *hm, size_t file,
               size_t *len);

/* rt_deletes_in: 1 when p deletes something from file FILE. */
int rt_deletes_in(const struct rt_plan *p, size_t file);

/* rt_what_name: "definition", "helper", "include", "xfail",
 * "registration". */
const char *rt_what_name(enum rt_what w);

void rt_plan_free(struct rt_plan *p);

#endif
