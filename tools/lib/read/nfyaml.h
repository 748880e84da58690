/* nfyaml.h — the index of native_functions.yaml.
 *
 * Reads the file with libyaml (event API) and builds one struct nf_func
 * per native function, including the functions torchgen generates from
 * `autogen:` lists.  The meaning of every field follows PyTorch's own
 * torchgen (torchgen/model.py NativeFunction.from_yaml, OperatorName,
 * FunctionSchema.kind; torchgen/native_function_generation.py
 * add_generated_native_functions); tests/real/ compares the result with
 * torchgen on real trees.
 *
 * Layer: read/.  May call base/, edit/ and read/ (calls base/ diag, scan).
 */
#ifndef MK_NFYAML_H
#define MK_NFYAML_H

#include <stddef.h>

/* torchgen's SchemaKind. */
enum nf_kind { NF_FUNCTIONAL, NF_INPLACE, NF_OUT, NF_MUTABLE, NF_SCRATCH };

/* How the MPS backend reaches a function (issue #2). */
enum nf_route {
	ROUTE_SHARED,       /* MPS's kernel is also another dispatch key's kernel
	                       (`CPU, CUDA, MPS: x_out`): the shared structured
	                       implementation whose stub MPS registers */
	ROUTE_MPS_SPECIFIC, /* `MPS: x_out_mps`: a kernel of MPS alone */
	ROUTE_DELEGATE,     /* structured_delegate: follows its out row */
	ROUTE_COMPOSITE,    /* a CompositeImplicitAutograd / CompositeExplicit-
	                       Autograd(NonFunctional) kernel covers it */
	ROUTE_NONE          /* no MPS kernel at all */
};
#define NF_NROUTES 5

/* One line of a `dispatch:` map: "KEY, KEY: kernel". */
struct nf_dispatch {
	char **keys;          /* keys split on ',' and trimmed (owned) */
	size_t nkeys;
	char *kernel;         /* value as written (namespace included) */
	unsigned long line;   /* 1-based line of the key */
	unsigned long col;    /* 1-based column of the key */
	size_t key_start;     /* byte offset of the key's first character */
	size_t value_end;     /* byte offset just past the value scalar */
};

struct nf_func {
	char *name;           /* full operator name: "add.Tensor", "atan2_" */
	char *base;           /* torchgen's BaseOperatorName.base: "add" */
	char *overload;       /* overload name, "" when none */
	int inplace;          /* name has the in-place '_' (or a dunder i-op) */
	enum nf_kind kind;
	unsigned long line;   /* 1-based line of the entry's `- func:`; for an
	                         autogen'd function, the line torchgen reports
	                         (that of the entry which declares it) */
	int structured;       /* `structured: True` */
	char *structured_delegate; /* operator name or NULL */
	int autogen;          /* generated from an `autogen:` list */
	int composite;        /* torchgen's has_composite_kernel */
	const char *mps_kernel; /* MPS BackendIndex kernel or NULL (points into
	                           dispatch[].kernel, or a generated name) */
	enum nf_route route;
	struct nf_dispatch *dispatch; /* written dispatch lines, file order */
	size_t ndispatch;
	int has_dispatch;     /* a `dispatch:` key is present */
	unsigned long dispatch_line; /* line of `dispatch:` (0 when absent) */
	size_t entry_start;   /* byte offset of the entry's mapping */
	size_t entry_end;     /* byte offset just past its last value */
	long delegate;        /* index of the structured_delegate target, -1 */
	long declared_by;     /* autogen'd: index of the declaring entry, -1 */
	char *schema;         /* the `func:` value as written; NULL for an
	                         autogen'd function */
	unsigned ninputs;     /* positional arguments that are read, of type
	                         Tensor or Scalar (not Tensor?, Tensor[] or an
	                         out/written one; `Scalar alpha` not counted):
	                         1 for a unary operator, 2 for a binary one */
	int alpha;            /* an argument `Scalar alpha` (add, sub, ...) */
	int pointwise;        /* tags: pointwise (an autogen'd function has its
	                         declaring entry's) */
	int reduction;        /* tags: reduction (likewise) */
	int seeded;           /* tags: nondeterministic_seeded (likewise): an
	                         operator drawing random numbers */
	int iterator;         /* structured_inherits: TensorIteratorBase (the
	                         structured kernels built on TensorIterator,
	                         also in trees without the pointwise tag) */
};

struct nf_index {
	char *path;           /* file as named by the caller (owned) */
	char *text;           /* whole file, NUL-terminated (owned) */
	size_t len;
	struct nf_func *funcs;/* yaml entries in file order, then autogen'd */
	size_t nfuncs;
	size_t nentries;      /* how many of funcs come from yaml entries */
	/* private: name hash */
	size_t *hash;
	size_t hashcap;
};

/* nf_load: read and index PATH; messages name the file DISPLAY (e.g.
 * the path relative to the checkout root), or PATH when DISPLAY is NULL.
 * Returns 0, or prints a diagnostic ("prog: cannot open 'DISPLAY':
 * REASON", or "prog: DISPLAY:LINE:COL: error:
 * MESSAGE" for malformed YAML from libyaml's problem mark, an entry
 * without `func`, an empty dispatch value, a schema that does not parse,
 * a structured_delegate naming no function) and returns -1 with ix
 * released.  ix is owned by the caller: nf_free(). */
int nf_load(struct nf_index *ix, const char *path, const char *display);

/* nf_load_buffer: as nf_load, on len bytes at data (copied); path is
 * used in messages only.  For fuzzing and tests. */
int nf_load_buffer(struct nf_index *ix, const char *path, const char *data,
                   size_t len);

/* nf_find: the function with full name NAME, or NULL. */
const struct nf_func *nf_find(const struct nf_index *ix, const char *name);

/* nf_kind_name / nf_route_name: "functional", ... / "shared", ... */
const char *nf_kind_name(enum nf_kind k);
const char *nf_route_name(enum nf_route r);

/* nf_dispatch_has_key: 1 when dispatch line d lists KEY exactly. */
int nf_dispatch_has_key(const struct nf_dispatch *d, const char *key);

/* nf_mps_dispatch: the written dispatch line of f that lists MPS, or
 * NULL (autogen'd functions and delegates have none). */
const struct nf_dispatch *nf_mps_dispatch(const struct nf_func *f);

void nf_free(struct nf_index *ix);

/* Operator names.  Matches torchgen's OperatorName.parse /
 * BaseOperatorName.parse: overload after the first '.', a trailing '_'
 * marks in-place, "__iX__" dunders are in-place for the augmented
 * assignment names, "_functional" suffix stripped from the base.
 * Returns 0 and fills base/overload (malloc'd) and *inplace, or -1 when
 * NAME is not a valid operator name (empty, bad characters). */
int nf_parse_opname(const char *name, char **base, char **overload,
                    int *inplace);

/* nf_parse_schema: parse FUNC, the value of an entry's `func:` key
 * ("ns::name.overload(Tensor self, *, Tensor(a!) out) -> Tensor(a!)";
 * one namespace level is dropped), with the rules nf_load applies
 * (torchgen FunctionSchema.parse, Argument/Return/Annotation.parse,
 * FunctionSchema.kind).  Returns 0 with *name (malloc'd full operator
 * name, caller frees) and *kind set, or -1 with *name NULL and *why a
 * static English message (the text nf_load prints after "schema does
 * not parse: ").  Prints nothing.  Exposed for fuzzing and tests. */
int nf_parse_schema(const char *func, char **name, enum nf_kind *kind,
                    const char **why);

/* A scalar argument of a schema that is not a tensor operand. */
struct nf_scalar {
	char type[8];         /* "int", "float", "Scalar" or "SymInt" */
	char name[64];        /* its name ("eps", "decimals", "alpha"), cut */
	int optional;         /* written with '?' ("float? eps=None") */
	int kwarg;            /* after the '*' of keyword-only arguments */
	int operand;          /* a positional non-optional Scalar other than
	                         alpha: an operand nf_func.ninputs counts */
};

/* nf_schema_scalars: the scalar arguments of SCHEMA (a `func:` value, as
 * nf_func.schema): each argument that is not written, positional or
 * keyword-only, of type int, SymInt, float or Scalar, optional or not
 * (torchgen's Arguments: flat_non_out minus the tensor-like ones).  A
 * positional non-optional `Scalar` other than `alpha` is marked operand:
 * nf_func.ninputs counts it (TensorIterator wraps it as a tensor; its
 * stub may take it as a scalar instead, pow.Tensor_Scalar).  Up to MAX
 * go to out[], in schema order; returns how many there are (possibly
 * more than MAX), or -1 when SCHEMA has no argument list.
 * logit.out(Tensor self, float? eps=None, *, Tensor(a!) out): one,
 * float, optional; add.out(..., *, Scalar alpha=1, ...): one, Scalar. */
int nf_schema_scalars(const char *schema, struct nf_scalar *out, size_t max);

/* nf_valid_op_arg: 1 when S may be given as an OP argument on a command
 * line: letters, digits, '_' and at most one '.' (not first or last),
 * no '/', "..", spaces or shell characters.  Tools check this before
 * touching any file. */
int nf_valid_op_arg(const char *s);

/* One argument of a schema, as torchgen's Argument.parse splits it:
 * "TYPE NAME" or "TYPE NAME=DEFAULT". */
struct nf_arg {
	char *type;     /* as written, annotation included: "Tensor(a!)",
	                   "Scalar", "float?", "int[1]" */
	char *name;
	char *def;      /* the default as written ("1", "None", "'none'"), or
	                   NULL when there is none */
	int kwarg;      /* after the '*' marker: keyword-only */
	int write;      /* the type has a '!' annotation (an out or mutated
	                   argument) */
};

/* nf_schema_args: the arguments of FUNC (a `func:` value; one namespace
 * level dropped), split on ", " between the '(' after the name and the
 * last ") -> " as torchgen's FunctionSchema.parse does, the '*' marker
 * setting kwarg for those after it.  Returns the count with *args a
 * malloc'd array (free with nf_args_free), or -1 (*args NULL) when FUNC
 * has no argument list or an argument has no type and name. */
long nf_schema_args(const char *func, struct nf_arg **args);

/* nf_args_free: release N arguments from nf_schema_args. */
void nf_args_free(struct nf_arg *args, size_t n);

/* nf_yaml_nesting: how a libyaml event of type TYPE (a yaml_event_type_t)
 * moves the nesting depth: 1 for a mapping or sequence start, -1 for its
 * end, 0 for any other event.  Also for the other YAML readers
 * (clangfmt.c). */
int nf_yaml_nesting(int type);

#endif
