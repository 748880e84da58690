/* cli.h — one option table per tool drives parsing, the short usage
 * (stderr, exit 2) and --help (stdout, exit 0), as in pcre2grep and git's
 * parse-options.  Also: finding the PyTorch checkout root.
 *
 * Layer: base/ (the first: calls no other layer).  Calls base/ (diag).
 */
#ifndef MK_CLI_H
#define MK_CLI_H

#include <stddef.h>

enum opt_type {
	OPT_FLAG,   /* sets *(int *)dest = 1 */
	OPT_STRING, /* takes a value: *(const char **)dest = value */
	OPT_LIST,   /* takes a value, may repeat: appended to
	               *(struct opt_list *)dest (its array is malloc'd) */
	OPT_END
};

/* The values of an OPT_LIST option, in command-line order. */
struct opt_list {
	char **v;
	size_t n;
};

struct opt {
	const char *name;   /* long name without "--", e.g. "root" */
	char shortname;     /* 0 when none */
	enum opt_type type;
	void *dest;
	const char *argname;/* value placeholder in help, e.g. "DIR" */
	const char *help;   /* one line */
};

/* Entries that several tools share, each with its one help text; the
 * table's last entry is CLI_OPT_END. */
#define CLI_OPT_ROOT(dest)                                              \
	{"root", 0, OPT_STRING, (dest), "DIR",                          \
	 "PyTorch checkout (default: walk up from the current folder)"}
#define CLI_OPT_JOURNAL(dest)                                           \
	{"journal", 0, OPT_STRING, (dest), "DIR",                       \
	 "undo journal folder (default: the checkout's own, see below)"}
#define CLI_OPT_END {NULL, 0, OPT_END, NULL, NULL, NULL}

/* A tool's description for --help. */
struct tool_info {
	const char *name;     /* "mps-overloads" */
	const char *usage;    /* "[options] OP..." (after the name) */
	const char *summary;  /* one line */
	const char *details;  /* free text printed after the options: files
	                         read and written, network, exit status */
};

/* cli_parse: parse argv against opts (terminated by OPT_END).  --help
 * prints the full help to stdout and exits 0; --version prints
 * "NAME VERSION" and exits 0; an unknown option or a missing value
 * prints "prog: error: ..." plus the short usage to stderr and exits 2.
 * "--" ends options.  Accepts "--name=value" and "--name value".
 * Returns the number of operands, moved to argv[0..n) in order. */
int cli_parse(const struct tool_info *t, const struct opt *opts, int argc,
              char **argv);

/* cli_usage: print the short usage to stderr and exit 2. */
void cli_usage(const struct tool_info *t, const struct opt *opts)
#if defined(__GNUC__)
	__attribute__((noreturn))
#endif
	;

/* cli_error: print "prog: error: MESSAGE" (fmt as printf's) and the
 * short usage to stderr; exit 2.  For a call whose words are off. */
void cli_error(const struct tool_info *t, const struct opt *opts,
               const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((noreturn, format(printf, 3, 4)))
#endif
	;

/* cli_operator_count: n operators given (the operands): none, or more
 * than one when one is 1, is an error of use (cli_error: "no operator
 * given", "one operator at a time"). */
void cli_operator_count(const struct tool_info *t, const struct opt *opts,
                        int n, int one);

/* cli_operators_valid: 1 when valid(argv[k]) holds for each of the n
 * operands; else prints "prog: error: 'X' is not an operator name" for
 * the first X that fails and returns 0.  valid is read/nfyaml.h's
 * nf_valid_op_arg (base/ calls no other layer: the caller passes it). */
int cli_operators_valid(char *const *argv, int n, int (*valid)(const char *));

/* find_root: the PyTorch checkout to work on.  With given != NULL: that
 * folder, which must hold aten/src/ATen/native/native_functions.yaml.
 * Without: walk up from the current folder to the first one that holds
 * it.  Returns a malloc'd path (caller frees), or prints
 * "prog: error: ..." and returns NULL. */
char *find_root(const char *given);

/* find_checkout: the walk of find_root without a message: the first
 * folder from the current one up that holds NF_YAML_REL (malloc'd), or
 * NULL when there is none (or the current folder cannot be read). */
char *find_checkout(void);

/* The relative paths of the PyTorch layout. */
#define NF_YAML_REL "aten/src/ATen/native/native_functions.yaml"
#define MPS_DIR_REL "aten/src/ATen/native/mps"
#define MPS_KERNELS_REL "aten/src/ATen/native/mps/kernels"
#define MPS_OPS_REL "aten/src/ATen/native/mps/operations"
#define COMMON_MPS_REL "torch/testing/_internal/common_mps.py"

#define MK_VERSION "0.1.0"

/* The marker every tool carries in its binary, in the manner of SCCS
 * what(1): "@(#)metal-kernel VERSION sources ID", ID a checksum of the C
 * sources the Makefile computes (MK_SOURCE_ID; "unknown" when built
 * without it).  VERSION starts with a digit, which tells the marker from
 * text that only describes it.  mps-doctor reads it from the bytes of installed copies
 * (setup.h), which it never runs.  MK_IDENT_PREFIX is its fixed start. */
#define MK_IDENT_PREFIX "@(#)metal-kernel "
extern const char mk_ident[];

#endif
