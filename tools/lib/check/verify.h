/* verify.h — the rules of mps-verify: what a migration of an MPS operator
 * left behind, and which findings are defects and which are to-do.
 *
 * Inputs are the models the other modules build: the yaml index
 * (nfyaml.h) of the tree and, optionally, of an older yaml (--before),
 * the model of the MPS host and kernel sources and test lists
 * (hostscan.h), and, when the tree has them, the C++ sources of
 * aten/src/ATen/native (stubs.h: which DispatchStubs a shared kernel
 * reaches).  vf_run applies every rule once and returns the findings, each
 * with its rule, layer, operator and class; printing is report.h's.
 * Shared by mps-verify and mps-migrate (which verifies what it wrote).
 *
 * Defects and to-do.  A *defect* is an inconsistent state: something
 * that is wrong whatever the plan (a dead or undefined function, a
 * kernel nobody launches, a stub registered twice or not at all, a
 * placeholder left in a functor, ...), or an old path left beside a new
 * one (an operator with a REGISTER_*_OP Metal kernel or an MPS stub
 * registration whose rows still route MPS alone to an MPSGraph kernel;
 * some rows of a kernel family shared and others not; a stub registered through an MPSGraph body while a Metal
 * kernel of that name exists; an expected failure of an operator whose
 * rows are shared).  *To-do* is an operator consistently on its old path
 * (its own MPS kernel, usually MPSGraph, and nothing new: Metal kernels
 * written without the REGISTER_*_OP macros, which its own kernel may
 * launch, are not new: sort.values_stable's `MPS: sort_stable_out_mps`
 * beside Sort.metal in a tree shaped like main, issue #25), or not on
 * MPS at all.  With an operator named (vf_input.all 0) every finding of it is
 * reported as found: naming OP says it was migrated.
 *
 * Layer: check/.  May call base/, edit/, read/ and check/ (calls base/
 * and read/ nfyaml, hostscan, stubs).
 */
#ifndef MK_VERIFY_H
#define MK_VERIFY_H

#include <stddef.h>

#include "read/hostscan.h"
#include "read/nfyaml.h"

struct cs_model; /* cppmodel.h; may be absent */

enum vf_rule {
	VF_LEGACY_ROW,      /* legacy-dispatch-row */
	VF_PARTIAL,         /* partial-migration */
	VF_NO_KERNEL,       /* no-mps-kernel */
	VF_GRAPH_PATH,      /* mpsgraph-host-path */
	VF_GRAPH_LEFT,      /* graph-left-beside-metal */
	VF_DEAD_DEF,        /* dead-mps-definition */
	VF_UNDEFINED_CALL,  /* undefined-call */
	VF_STUB_GRAPH,      /* stub-wraps-mpsgraph */
	VF_DUP_STUB,        /* duplicate-stub */
	VF_MISSING_STUB,    /* missing-stub */
	VF_OTHER_STUB,      /* unregistered-path-stub */
	VF_UNREGISTERED,    /* unregistered-kernel */
	VF_PLACEHOLDER,     /* functor-placeholder */
	VF_NO_OVERLOAD,     /* missing-overload */
	VF_UNUSED_KERNEL,   /* unused-kernel */
	VF_STALE_INCLUDE,   /* stale-include */
	VF_XFAIL,           /* xfail-leftover */
	VF_NRULES
};

enum vf_sev { VF_ERROR, VF_WARNING, VF_NOTE };

/* Where the fault is: the yaml rows, the Metal code, the host binding
 * (.mm/.cpp under mps/), or the test lists. */
enum vf_layer { VF_DISPATCH, VF_KERNEL, VF_HOST, VF_TEST };

struct vf_rule_info {
	const char *id;       /* "legacy-dispatch-row" */
	enum vf_sev sev;
	enum vf_layer layer;
	const char *summary;  /* one line, for --help and SARIF shortDescription */
	const char *help;     /* what to do about it (SARIF help text) */
};

/* The rules, indexed by enum vf_rule. */
extern const struct vf_rule_info vf_rules[VF_NRULES];

/* vf_rule_parse: the rule whose id is s, or -1. */
int vf_rule_parse(const char *s);

/* "error"/"warning"/"note", "dispatch"/"kernel"/"host"/"test". */
const char *vf_sev_name(enum vf_sev s);
const char *vf_layer_name(enum vf_layer l);

struct vf_finding {
	const char *path;     /* relative to the root (borrowed from the models) */
	unsigned long line, col; /* 1-based */
	int rule;             /* enum vf_rule */
	long op;              /* index into vf_report.ops, -1 for none */
	int defect;           /* 1 defect, 0 to-do (see the top of this file) */
	char *msg;            /* owned */
};

/* Families of operators, for the to-do summary and the checklist: from
 * the yaml alone, so that every tree has them.  Pointwise (tag pointwise,
 * or structured_inherits TensorIteratorBase in trees without the tag)
 * operators are unary or binary by their inputs (nf_func.ninputs of the
 * structured out row, else of the first row), else "pointwise"; then
 * "reduction" (tag), else "other". */
enum vf_family { VF_FAM_UNARY, VF_FAM_BINARY, VF_FAM_POINTWISE,
                 VF_FAM_REDUCTION, VF_FAM_OTHER, VF_NFAMILIES };
const char *vf_family_name(enum vf_family f);

/* Kinds, for the MPSGraph to-do list (mps-verify --todo): what sort of
 * kernel replacing a graph takes.  Decided per entry of the list (an
 * operator and one graph-building function its MPS dispatch reaches:
 * max.other is pointwise, max.dim a reduction) from facts of the
 * checkout, the first rule that applies winning:
 *   1. the operator's name: holding "loss" → loss, "softmax" → softmax,
 *      "fft" → fft; starting "cum", or logcumsumexp → reduction (scans
 *      count as reductions); sort, argsort, msort, topk, kthvalue → other;
 *   2. the yaml row reaching the function (for a stub: any row of the
 *      operator) is tagged `pointwise`, or is structured_inherits
 *      TensorIteratorBase (trees without the tag) → pointwise;
 *   3. the host file defining the function, by PyTorch's file names
 *      under operations/ (the table kind_files in verify.c): ReduceOps, SummaryOps,
 *      HistogramKernel → reduction; Normalization, WeightNorm,
 *      RenormKernel → norm; SoftMax → softmax; LossOps → loss; Indexing,
 *      ScatterGather, Bucketization → indexing; Pooling, AdaptivePooling,
 *      Pad, UpSample, GridSampler, Im2Col → pooling; LinearAlgebra,
 *      Linear, Blas, Inverse, CrossKernel, TriangularOps → linalg;
 *      Distributions → random; FastFourierTransform → fft; Shape, View,
 *      Repeat, PixelShuffle, UnfoldBackward, RangeFactories, Eye, Copy →
 *      shape; UnaryOps, BinaryOps, BitwiseOps, PointwiseOps, Activation,
 *      TensorCompare, Lerp, Gamma, SpecialOps, ConstantOps → pointwise;
 *      Convolution, RnnOps, Attention, Quantized, Sort, Unique, Scalar →
 *      other (their tags say nothing of the kernel: _lstm_mps is tagged
 *      nondeterministic_seeded for its dropout);
 *   4. the row (any row, for a stub) tagged `nondeterministic_seeded` →
 *      random; tagged `reduction` → reduction;
 *   5. the operator's name starting "linalg_" → linalg;
 *   6. else other.
 * "pooling" stands for pooling, padding and upsampling. */
enum vf_kind { VF_KIND_POINTWISE, VF_KIND_REDUCTION, VF_KIND_NORM,
               VF_KIND_SOFTMAX, VF_KIND_LOSS, VF_KIND_INDEXING,
               VF_KIND_POOLING, VF_KIND_LINALG, VF_KIND_RANDOM, VF_KIND_FFT,
               VF_KIND_SHAPE, VF_KIND_OTHER, VF_NKINDS };
/* "pointwise", "reduction", ..., "pooling", ..., "other" */
const char *vf_kind_name(enum vf_kind k);

/* One MPS function that builds an MPSGraph (hs_def.graph, transitively)
 * and that an operator's MPS dispatch reaches directly: the definition(s)
 * named by a row whose MPS kernel is its own (`MPS: x_out_mps` alone on
 * its line: the same test as vf_op.old_graph), or the function a stub of
 * the operator is registered with (REGISTER_DISPATCH(x_stub, &x_mps):
 * vf_op.stub_graph).  One entry per operator and definition. */
struct vf_graph {
	long op;              /* index into vf_report.ops */
	long def;             /* index into hs_model.defs */
	const char *row;      /* the first row naming it ("sum.IntList_out";
	                         borrowed from the yaml index), or NULL */
	const char *stub;     /* else the stub registered with it (borrowed
	                         from the host model) */
	enum vf_kind kind;    /* by the rules of enum vf_kind */
	/* the definition, borrowed from the host model: */
	const char *function; /* its name ("sum_out_mps") */
	const char *path;     /* its file, relative to the root */
	unsigned long line, col; /* 1-based: the name, or the macro call
	                         that generates it */
	const char *why;      /* the MPSGraph marker seen, or "NAME()" of
	                         the host callee that builds one */
	const char *macro;    /* the macro generating it, or NULL */
};

/* An operator's state, for the checklist. */
enum vf_state {
	VF_STATE_NONE,    /* composite only: nothing for MPS to do */
	VF_STATE_DONE,    /* on MPS, no finding */
	VF_STATE_TODO,    /* to-do findings only */
	VF_STATE_DEFECT   /* at least one defect */
};

struct vf_op {
	char *name;           /* base name, "atan2" */
	enum vf_family family;
	enum vf_state state;
	int selected;         /* named (or --all) */
	int on_mps;           /* some row reaches MPS (shared or MPS alone) */
	int old_path;         /* some row routes MPS alone */
	int old_graph;        /* and a definition of that row's MPS kernel
	                         builds an MPSGraph */
	size_t count[3];      /* findings by severity */
	size_t ndefects, ntodo;
	/* private to verify.c */
	size_t *rows, nrows, *brows, nbrows, nregs, nmetal;
	size_t nraw;          /* of nmetal: kernels written without the
	                         REGISTER_*_OP macros (hs_rawkernel) */
	int cpu;              /* some row has a CPU kernel */
	int started;          /* --all: a piece of the shared path exists (an
	                         MPS stub registration, a REGISTER_*_OP
	                         kernel, a shared row reaching a stub); an
	                         operator's own Metal kernels (Sort.metal's,
	                         launched by sort_stable_out_mps) are not one */
	int stub_graph;       /* a stub of it is registered through a body
	                         that builds an MPSGraph */
	int own_metal;        /* a definition of a row's own MPS kernel
	                         (`MPS: K` alone on its line) launches a Metal
	                         kernel (vf_metal_calls), in its body or through
	                         functions of its own file it calls: its MPS
	                         kernel stays its own and has a Metal path */
	size_t ngraphs;       /* its entries in vf_report.graphs */
};

struct vf_report {
	struct vf_finding *f; /* sorted by path, line, column, rule */
	size_t n;
	struct vf_op *ops;    /* every operator of the yaml(s), yaml order */
	size_t nops;
	int all;
	size_t nhost, nkern;  /* host and kernel files read */
	int lists_checked;    /* common_mps.py or test_mps.py was read */
	int have_sources;     /* the C++ of aten/src/ATen/native was read */
	struct vf_graph *graphs; /* the MPSGraph to-do list: every operator's
	                         graph-building functions (whether selected
	                         or not), sorted by kind, operator name,
	                         path, offset (owned) */
	size_t ngraphs;
	void *priv;
};

struct vf_input {
	const struct nf_index *ix;      /* the tree's yaml */
	const struct nf_index *before;  /* --before FILE, or NULL */
	struct hs_model *hm;            /* hs_load()ed (lazy indexes inside) */
	const struct cs_model *cs;      /* cs_load()ed, or NULL: then, when root
	                                   is set, read from root on first
	                                   need (an operator with shared rows),
	                                   and an unreadable source exits 2 */
	const char *root;               /* the checkout, for that; NULL: never */
	int all;                        /* every operator */
	const char *const *ops;         /* else these operator names */
	size_t nops;
};

/* Graph left beside a Metal path (rule graph-left-beside-metal).  For an
 * operator whose own MPS kernel K has a Metal path (vf_op.own_metal), the
 * graph path is *left* when
 *   (a) a definition named K still builds an MPSGraph (hs_def.graph:
 *       directly or through a host function it calls, such as a graph
 *       helper another operator also uses: K must stop calling it), or
 *   (b) a host file defining K holds a definition D that builds an
 *       MPSGraph and that nothing uses any more: no dispatch row names D,
 *       and D's name occurs in no host code but D's own definition (other
 *       files included; a call through a template, helper<T>(...), counts
 *       as a use; so does a mention in a comment, to stay on the safe
 *       side).  A definition that dead-mps-definition reports is not
 *       reported again.
 * A graph helper still called by another operator's kernel is not left.
 * Named operators: every such finding is an error.  With --all, (a) is
 * to-do (an operator launching its own Metal kernels and still building
 * a graph is not migrated yet, issue #25) and (b) a defect.
 *
 * vf_metal_calls: the host calls that launch a Metal kernel, NULL ended:
 * getPipelineStateForFunc (MetalShaderLibrary), mtl_dispatch1DJob,
 * exec_unary_kernel, exec_binary_kernel, exec_ternary_kernel. */
extern const char *const vf_metal_calls[];

/* vf_run: apply every rule.  Operators are named as on a command line
 * ("atan2", "div.out": the base name counts).  Returns 0 with *r filled
 * (owned: vf_report_free), or -1 after "prog: error: no operator 'X' in
 * ..." (nothing to free).  May read the DECLARE_DISPATCH headers through
 * hs_load_decls (exit 2 on an unreadable one). */
int vf_run(const struct vf_input *in, struct vf_report *r);

void vf_report_free(struct vf_report *r);

/* The names PyTorch's contributors gave the MPS kernels of an operator,
 * as mps-verify spells them (and mps-migrate deletes them by): for
 * operator OP and one overload name OVERLOAD of its rows ("" for the
 * operator itself), each of OP{,_}OVL{,_out}{_mps,_mps_out} where OVL is
 * "" for "", else "_" + OVERLOAD lower-cased and, when that ends in
 * "_out", also without it.  Each name is handed to fn(name, arg) (the
 * string lives only for the call; a name may come twice); a nonzero
 * return stops the walk and is returned, else 0. */
typedef int (*vf_name_fn)(const char *name, void *arg);
int vf_old_names_spelled(const char *op, const char *overload, vf_name_fn fn,
                         void *arg);

#endif
