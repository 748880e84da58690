/* migrate.h — the whole mechanical migration of one operator from its own
 * MPS kernel (usually MPSGraph) to a native Metal kernel, as one change of
 * several files (issue #14):
 *
 *   rows      fold.h: every MPS-specific row folds into its shared line
 *             (a new operator: MPS joins the shared line of its out rows);
 *             the stubs the shared kernels reach (stubs.h cs_discover);
 *             several, each of a kind its row and type give (lerp): the
 *             parts below once per stub, a kernel each (mg_plan.kernels);
 *   kind      from the out row's schema (nfyaml.h ninputs) and the
 *             scalars its stub takes besides the iterator (stubs.h
 *             cs_stub_signature; without the sources, the schema's
 *             nf_schema_scalars): one tensor unary, two binary, one
 *             scalar more the -alpha kinds, with the scalar's Metal type
 *             (float? eps float, int decimals long, Scalar alpha the
 *             input's) and how the host stub takes and passes it;
 *             NAME the operator's name unless given;
 *   dtypes    from the CPU kernel the stub registers (cs_cpu_dtypes) and
 *             the structured meta function (cs_output_rule), or, for a
 *             shared kernel that is not structured, the TensorIterator it
 *             builds (cs_iter_rule), see mg_derive_pairs; or given;
 *   metal     regplan.h: the functor and its registrations, the math
 *             of its overloads translated from the CUDA and CPU kernels
 *             of the stub where it can be (translate.h), else the
 *             placeholder with both kernels' bodies in a comment;
 *   host      regplan.h: the host stub registering the discovered stub,
 *             with a TORCH_CHECK_TYPE when the registered inputs do not
 *             cover what the meta function lets through;
 *   old path  retire.h: the MPS definitions no remaining row names, the
 *             helpers only they used, the includes left unused, the
 *             operator's expected-failure and skip entries.
 * What cannot be planned is said, with why (a tree before c10/metal has no
 * core macros for the Metal side; a tree without C++ sources cannot give
 * the dtypes); that is no error.  No printing (but mg_write_*), no writing:
 * the change is an edit set for the edit engine (edit.h).
 *
 * Layer: plan/.  May call base/, edit/, read/, check/ and plan/ (calls
 * base/, read/, check/ verify and report, plan/ fold, regplan, retire).
 */
#ifndef MK_MIGRATE_H
#define MK_MIGRATE_H

#include <stddef.h>
#include <stdio.h>

#include "read/outrule.h"
#include "read/stubs.h"
#include "edit/edit.h"
#include "plan/fold.h"
#include "read/hostscan.h"
#include "read/metalreg.h"
#include "read/nfyaml.h"
#include "plan/regplan.h"
#include "plan/ownkernel.h"
#include "plan/retire.h"
#include "plan/translate.h"
#include "check/try.h"

struct mg_opts {
	const char *op;       /* base operator name (nf_valid_op_arg, no '.') */
	int kind;             /* enum mr_kind, or -1: from the out row's schema */
	const char *name;     /* kernel NAME, NULL: the operator's name */
	const char *dtypes;   /* IN:OUT,... (metalreg.h mr_parse_dtypes), NULL:
	                         from the CPU kernel.  One stub: these pairs
	                         instead of the CPU kernel's.  Several stubs
	                         (a kernel each): a filter of each kernel's
	                         pairs (an item T keeps the pair of input T,
	                         IN:OUT the pair equal to it); an item no
	                         kernel keeps is an error, a kernel left with
	                         no pair is left out (a note says so) */
	const struct try_env *try_env; /* where mps-try's host run of the
	                         translated functor happens (check/try.h
	                         try_env_default); NULL: not tried */
	const char *try_why;  /* with try_env NULL: why not (a plan note), or
	                         NULL: not asked */
};

/* How the rows stand. */
enum mg_mode {
	MG_FOLD,              /* some row routes MPS alone: fold */
	MG_ADD,               /* no row reaches MPS: MPS joins the out rows */
	MG_SHARED             /* every row reaching MPS is shared already */
};

/* Where the dtypes come from. */
enum mg_dtsource {
	MG_DT_NONE,
	MG_DT_CPU,
	MG_DT_GIVEN,
	MG_DT_GIVEN_CPU       /* several stubs, the output dtype undecided: the
	                         given pairs whose input the CPU kernel handles
	                         (the others in given_out) */
};

/* A line for people: a part not planned, or what is left to do. */
struct mg_note {
	char *what;           /* "metal", "host", "dtypes", "kernel", "stub",
	                         "rows", "functor", "tests" (owned) */
	char *text;           /* one line (owned) */
	char *path;           /* a place, or NULL (owned) */
	unsigned long line;
};

struct mg_stub {
	char *name;           /* "frac_stub" */
	char *where;          /* "aten/src/ATen/native/UnaryOps.cpp:40" */
	char *by;             /* the shared kernel that reaches it */
	int declared;
};

struct mg_plan {
	char *root;                   /* owned copy */
	const char *op;
	struct nf_index ix;           /* the yaml as read */
	struct cs_lazy cs;            /* the C++ sources, read on need */
	struct hs_model hm;           /* the MPS sources and test lists */
	struct fold_plan fold;
	enum mg_mode mode;
	int stuck;                    /* rows needed folding and none could be:
	                                 nothing is planned (not an error) */
	size_t xfail_stay;            /* when stuck: OP's entries in the test
	                                 lists, which stay with its kernel */
	struct ok_plan own;           /* when stuck: the plan for the body
	                                 behind OP's own MPS rows (ownkernel.h;
	                                 own.planned 0: none) */
	const struct nf_func **shared;/* out rows already shared */
	size_t nshared;

	/* the kernel */
	const struct nf_func *out;    /* the out row the kind comes from */
	int kind;                     /* enum mr_kind, -1 unknown */
	int kind_given;
	char *name;                   /* kernel NAME */

	/* the scalar an -alpha kind takes besides its tensors (mg_scalar) */
	int have_sig;                 /* sig read (the C++ sources told) */
	struct cs_signature sig;      /* the planned stub's function type */
	const char *alpha;            /* its Metal type, an mr_dtypes token
	                                 ("float" for float? eps, "long" for
	                                 int decimals); NULL: the input's
	                                 dtype (Scalar alpha) */
	char *scalar_name;            /* "eps" (owned) */
	char *scalar_decl;            /* the host stub's parameter, "const
	                                 Scalar& eps", "int64_t decimals" */
	char *scalar_pass;            /* what it hands exec_*_kernel: "eps",
	                                 "Scalar(decimals)" */
	char *scalar_dtype;           /* "ScalarType::Float", NULL: none (the
	                                 host then uses the common dtype) */
	char *scalar_from;            /* for people: where it comes from */
	char **fields;                /* binary-params: the stub's scalars,
	                                 the schema's names in its order
	                                 ("min_val", "max_val"): the members of
	                                 NAMEParams and the host stub's
	                                 parameters (owned) */
	size_t nfields;
	char **field_args;            /* the try's "NAME=VALUE" for each field
	                                 the schema gives no default: the
	                                 forward operator's default (hardtanh's
	                                 min_val=-1 for hardtanh_backward), the
	                                 values its OpInfo samples by default
	                                 (owned) */
	size_t nfield_args;
	char *params_rel;             /* binary-params: the header of the
	                                 struct (regplan.h rg_params_header_rel) */
	char *scalar_none;            /* an optional scalar (float? eps): how
	                                 the shared kernel hands it to the stub,
	                                 "Scalar(eps ? eps.value() : -1.0) at
	                                 FILE:LINE", NULL when not optional or
	                                 not read (owned) */

	/* the stubs */
	struct mg_stub *stubs;        /* every stub the shared kernels reach */
	size_t nstubs;
	int stubs_known;              /* the C++ sources told */
	const char *stub;             /* the stub planned (one of stubs, or
	                                 NAME_stub when the sources cannot
	                                 tell), NULL when none */
	struct mg_plan *kernels;      /* several stubs, each of a kind the
	                                 sources give (lerp: a binary-alpha
	                                 and a ternary one): the kernels
	                                 planned before the last, in the order
	                                 of stubs, each a plan of which only
	                                 the kernel's fields are set (out,
	                                 kind, name, the scalar, stub, the
	                                 dtypes, math, rg, kernel_rel,
	                                 host_rel); the last stub's kernel is
	                                 this plan's own.  Owned */
	size_t nkernels;

	/* the dtypes */
	enum mg_dtsource dtsource;
	int have_cpu, have_rule;
	struct cs_dtypes cpu;         /* when have_cpu */
	struct cs_outrule rule;       /* when have_rule */
	int have_iter;                /* no meta function: the rule is the
	                                 iterator's (rule.rule set from it) */
	struct cs_iterrule iter;      /* when have_iter */
	int cond_input;               /* a tensor input every lambda of the
	                                 stub's CUDA kernel takes as bool (where's
	                                 cond_val): its 1-based index, 0 none.
	                                 The kernel gets it in the inputs' dtype
	                                 (2.14.1's _cast_ kernels); an iterator
	                                 whose dtypes are mixed only by it gives
	                                 the output the other inputs' dtype */
	char *cond_at;                /* that lambda, "FILE:LINE" (owned) */
	struct mr_pair pairs[MR_MAX_PAIRS];
	size_t npairs;
	struct mr_pair given_out[MR_MAX_PAIRS]; /* several stubs and --dtypes:
	                                 the pairs the CPU kernel gives that
	                                 the list leaves out (mg_opts.dtypes
	                                 filters each kernel's pairs there);
	                                 MG_DT_GIVEN_CPU: the given pairs
	                                 whose input the CPU kernel lacks */
	size_t ngiven_out;
	cs_dtset dropped;             /* CPU dtypes without a Metal type */
	unsigned check;               /* host check: inputs let through (bits
	                                 as regplan.h), 0 none */
	int opmath;                   /* the CPU kernel computes half and
	                                 bfloat in float (cs_cpu_opmath) */
	int have_opmath;
	struct cs_opmath om;          /* when have_opmath */

	/* the new functor's math (translate.h): math.tried when it was
	   read, which is when the kernel file has no functor of NAME */
	struct tr_plan math;

	/* what is written */
	int rg_ok;                    /* regplan planned (rg valid) */
	const char *try_why;          /* why the translated math was not tried
	                                 (mg_opts.try_why), or NULL */
	struct rg_plan rg;
	const char *kernel_rel, *host_rel; /* the files it plans */
	struct rt_plan rt;
	struct edit_set set;
	struct mg_note *notplanned; size_t nnotplanned;
	struct mg_note *left; size_t nleft;
	/* private */
	void *priv;
};

/* mg_plan: plan the migration of o->op in the checkout ROOT into p (zeroed
 * first; release with mg_plan_free).  Reads ROOT's yaml, the MPS sources
 * and test lists (hostscan.h), the C++ sources when a row or the dtypes
 * need them, the kernel and host files of the kind.  Returns 0 (p->set
 * holds the new bytes of every file, unchanged files included; nothing
 * changed when there is nothing to do), or -1 after printing why: a file
 * that cannot be read or parsed, an operator the yaml does not have
 * ("prog: error: no operator 'X' in ..."), bad --dtypes, a file that
 * changed while it was read.  Rows that needed folding where none could
 * be are no error: p->stuck is set, the refusals are in p->fold, and
 * nothing else is planned. */
int mg_plan(struct mg_plan *p, const char *root, const struct mg_opts *o);

void mg_plan_free(struct mg_plan *p);

/* mg_derive_pairs: the registrations the CPU facts call for, into out
 * (MR_MAX_PAIRS), their count returned; -1 when the output rule does not
 * decide them (unknown, mixed).  cpu: the dtypes of the stub's CPU kernel;
 * rule: the meta function's output rule; before, rejects: input dtypes
 * the shared implementation handles before the stub, and that the meta
 * function refuses.  Inputs: the Metal dtype of each CPU dtype (Double and
 * the types Metal lacks dropped; ComplexFloat float2, ComplexHalf half2),
 * minus before and rejects; outputs: rule same, the input's; float,
 * floating and complex inputs keep theirs and the integral and bool
 * inputs (the meta function promotes them: all six, whatever the CPU
 * kernel lists) give float; bool, bool.  Alpha kinds: ALPHA = IN.  In the
 * order of mr_dtypes.  *allowed (when not NULL): the check set the host
 * stub needs, as rg_request.check (0 when every input the meta function
 * lets through reaches a registered kernel or is handled before the
 * stub). */
int mg_derive_pairs(int kind, cs_dtset cpu, int rule, cs_dtset before,
                    cs_dtset rejects, struct mr_pair *out, unsigned *allowed);

/* mg_check_of: the check set for given pairs (see mg_derive_pairs). */
unsigned mg_check_of(const struct mr_pair *pairs, size_t n, cs_dtset before,
                     cs_dtset rejects);

/* mg_write_text: the plan for people: what was found and why, part by
 * part (rows, stub, kernel, dtypes, Metal, host, deletions, kept helpers,
 * parts not planned, what is left), then nothing else (the caller prints
 * the diff).  Lines never start with "---", "+++", "@@", '-' or '+', so
 * `git apply` and `patch` skip them before the diff. */
void mg_write_text(FILE *out, const struct mg_plan *p);

/* mg_write_json: the plan as JSON Lines, one object per part, each with
 * "part": "row", "stub", "kernel", "dtypes", "insert" (what:
 * registration, functor, host-stub), "math" (one per overload of a new
 * functor: "overload", "in", "out", "status" translated or left, "side"
 * CUDA or CPU, "file", "line", "construct", "verdict" (null until mps-try
 * runs), "cuda_kernel" ("FILE:LINE: FN" of the CUDA function read, or
 * null), "cuda_lambdas" (how many were read in it), "text"), "delete" (what: definition, helper, include, xfail),
 * "keep", "not-planned", "left", and last "summary"
 * (files changed, action "plan", "written" or "nothing").  WRITTEN: the
 * change was written (actions then read "inserted", "deleted"). */
void mg_write_json(FILE *out, const struct mg_plan *p, int written);

/* mg_changed: number of files the plan changes. */
size_t mg_changed(const struct mg_plan *p);

/* mg_verify_written: mps-verify's rules on operator OP in the tree at
 * ROOT as it is on disk now (after --in-place), with OLD, the yaml before
 * the migration, as mps-verify's --before, and the C++ model CS already
 * read (not read again).  Prints the report to stdout: JSON Lines when
 * JSON, else text after a heading line; diagnostics on stderr.  Returns
 * the report's status (0 clean, 1 findings), or 2 when the written yaml
 * or the MPS sources cannot be read. */
int mg_verify_written(const char *root, const char *op,
                      const struct nf_index *old, struct cs_lazy *cs, int json);

#endif
