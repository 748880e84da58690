/* ownkernel.h — the plan for an operator whose MPS kernel stays its own
 * (issue #27): its MPS-specific rows cannot fold into a shared line (its
 * CPU and CUDA kernels differ, or there is no line to join), so what a
 * migration off MPSGraph changes is the body behind the row, not the row.
 * A loss, a norm, a reduction: nll_loss_forward is the model.
 *
 * What it plans (no printing, no writing; mps-migrate prints it and, with
 * --script, writes the script ok_script makes):
 *   old path  the MPS definitions the operator's own rows name, each to
 *             be given a new (Metal) body, and the host helpers they call,
 *             by retire.h's rules with those definitions as the dead ones:
 *             a helper only they use is deleted once the new bodies land;
 *             one that other code still calls is kept, with that caller
 *             named and, when one is found, the dispatch row of another
 *             operator it is reached from (its kernel calls the caller,
 *             directly or through other host functions);
 *   read      the out row's CPU and CUDA kernels (its `CPU:` and `CUDA:`
 *             lines), where they are defined (cppmodel.h; the CUDA one in
 *             the .cu files of CK_CUDA_REL, read as added files), and the
 *             structured meta function (outrule.h), which sizes the
 *             outputs and makes the checks;
 *   dtypes    the CPU kernel's (dtypes.h cs_fn_dtypes: its dispatch
 *             sites, else those of the helpers it calls), as Metal types;
 *             the dtypes of `if (x.scalar_type() == kT)` branches are left
 *             out when dispatch sites were read (such a branch is usually
 *             about another tensor, such as a Byte target).
 *
 * Layer: plan/.  May call base/, edit/, read/, check/ and plan/ (calls
 * base/, read/ cppmodel, dtypes, outrule, cudakern's CK_CUDA_REL,
 * hostscan, nfyaml and plan/ retire).
 */
#ifndef MK_OWNKERNEL_H
#define MK_OWNKERNEL_H

#include <stddef.h>

#include "read/cppmodel.h"
#include "read/dtypes.h"
#include "read/hostscan.h"
#include "read/nfyaml.h"
#include "plan/retire.h"

enum ok_what {
	OK_REPLACE,           /* a row's MPS definition: its body is replaced */
	OK_DELETE,            /* a helper only the replaced bodies use */
	OK_KEEP               /* a helper other code still calls */
};

struct ok_fn {
	enum ok_what what;
	char *name;           /* the function (owned) */
	const char *file;     /* relative to the root (the model's) */
	unsigned long line, last; /* 1-based, its whole definition */
	int graph;            /* it builds an MPSGraph (hostscan.h) */
	char *detail;         /* retire.h's words: "TORCH_IMPL_FUNC body;
	                         builds an MPSGraph (X())", "still called by
	                         F (FILE:LINE)" (owned) */
	char *follows;        /* OK_REPLACE: the other replaced definition its
	                         MPSGraph comes from (a functional kernel that
	                         calls the out one): nothing to change in it
	                         once that one is replaced; else NULL (owned) */
	char *row;            /* OK_KEEP: "nll_loss2d_forward.output
	                         (nll_loss2d_forward_out_mps)", the row of
	                         another operator that reaches it; NULL when
	                         none was found (owned) */
};

/* A kernel to read: the CPU or CUDA kernel of the out row, or its meta
 * function. */
struct ok_read {
	char *fn;             /* "nll_loss_forward_out_cpu",
	                         "TORCH_META_FUNC(nll_loss_forward)"; NULL: the
	                         row names none (owned) */
	struct cs_loc at;     /* file NULL: not found under the sources */
};

struct ok_plan {
	int planned;          /* 1: some row of OP has an MPS kernel of its own,
	                         defined in the MPS sources, and the rest below
	                         is filled */
	const struct nf_func *out;        /* the out row whose kernels are read
	                                     (the first MPS-specific out row,
	                                     else the first MPS-specific row) */
	const struct nf_func *functional; /* the functional row, the CPU
	                                     reference of a script; NULL: none */
	struct ok_fn *fns;    /* replace, then delete and keep items, in
	                         retire.h's order */
	size_t nfns;
	struct ok_read cpu, cuda, meta;
	int have_dtypes;      /* the CPU kernel's dtypes were read */
	struct cs_dtypes dt;  /* when have_dtypes */
	char *dt_why;         /* when not: why (cs_dtypes.why), or NULL when
	                         the tree has no C++ sources (owned) */
	cs_dtset types;       /* the ones the Metal kernel takes: dt.types,
	                         minus dtype branches (when dispatch sites were
	                         read) and dtypes without a Metal type */
	int done;             /* no definition to replace builds an MPSGraph
	                         and no helper is left to delete: the
	                         migration is made (nothing to do) */
	cs_dtset dropped;     /* the CPU's dtypes left out for want of a Metal
	                         type (Double...) */
};

/* ok_plan_op: plan the own-kernel migration of operator OP into o (zeroed
 * first; ok_plan_free).  ix: the yaml; cs: the C++ sources, read on need
 * (the CUDA folder is added to the model: cs_add_folder); hm: the MPS
 * sources as hostscan read them; is_op / op_arg: as rt_request's (the
 * test-list rule; may be NULL).  o->planned is 0 when no row of OP names
 * an MPS kernel of its own, or the MPS sources define none of those
 * kernels (nothing else is filled).  Never prints but
 * the diagnostics of reading the CUDA folder (an unreadable file; the
 * CUDA kernel is then not found). */
void ok_plan_op(struct ok_plan *o, const struct nf_index *ix,
                struct cs_lazy *cs, const struct hs_model *hm, const char *op,
                int (*is_op)(const char *name, int prefix, void *op_arg),
                void *op_arg);

/* ok_script: a starting mps-run script for the plan's operator OP, as
 * Python text (malloc'd, NUL-terminated; caller frees).  SCRIPT: the name
 * the script is written under (for its comments).  The script, runnable
 * by mps-run here and by python on a Mac (device "mps" when there is
 * one), holds: the dtypes of the CPU kernel that Metal has; the
 * tolerances test_mps.py's test_output_match uses for most operators
 * (torch.testing's defaults per dtype: float32 atol 1e-5 rtol 1.3e-6,
 * float16 1e-5 1e-3, bfloat16 1e-5 1.6e-2; other dtypes exact); a TODO
 * stub kernel per dtype (DTYPE replaced by each, compiled in one
 * compile_shader call); the arguments of the functional row in schema
 * order (the first tensor in the dtype under test, the others made
 * alike, optional ones None, scalars their default or 0); the host side
 * (`run`: outputs allocated as the CPU's, the stub's buffers, threads and
 * group_size); the cases: partial groups, several groups, one element,
 * empty, non-contiguous; the CPU reference through torch.ops.aten (in
 * float32, said, when the torch at hand lacks the dtype on its CPU); the
 * comparison per output, one line per case and dtype; exit 1 on any
 * mismatch.  The parts to write are between "# >>> NAME" and "# <<< NAME"
 * lines (kernel, inputs, run, cases), each marked TODO(mps-run script). */
char *ok_script(const struct ok_plan *o, const char *op, const char *script);

void ok_plan_free(struct ok_plan *o);

#endif
