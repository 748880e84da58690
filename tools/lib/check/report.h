/* report.h — mps-verify's findings (verify.h) in the formats its readers
 * use: text for people and agents, JSON Lines for scripts, SARIF 2.1.0
 * for GitHub code scanning, Markdown task lists for tracking issues.
 * Shared by mps-verify and mps-migrate.
 *
 * Layer: check/.  May call base/, edit/, read/ and check/ (calls base/
 * and check/ verify's findings). */
#ifndef MK_REPORT_H
#define MK_REPORT_H

#include <stdio.h>

#include "check/verify.h"

enum rp_format { RP_TEXT, RP_JSON, RP_SARIF, RP_MARKDOWN };

/* rp_format_parse: "text", "json", "sarif", "markdown" → format; -1 else. */
int rp_format_parse(const char *s);

/* Which findings are shown.  rules: a bit per enum vf_rule, 0 for all;
 * path: an fnmatch(3) pattern (no flags: '*' also matches '/') that the
 * finding's path must match, NULL for all. */
struct rp_filter {
	unsigned rules;
	const char *path;
};

/* rp_write: write report r in format fmt.
 *   RP_TEXT: findings on err as "PROG: PATH:LINE:COL: SEVERITY: MESSAGE
 *     [LAYER: RULE]"; with r->all the defects only, grouped by rule (in
 *     rule order), and on out a summary: the defects by rule with counts,
 *     the to-do by family, the operators done, the totals; without, the
 *     findings sorted by place and "OP: N errors, N warnings, N notes"
 *     per named operator (OPS, the NOPS names as given) on out.
 *   RP_JSON: one object per finding on out (to-do ones too, "class" says
 *     which): path, line, column, severity, rule, layer, class, op,
 *     message.
 *   RP_SARIF: one SARIF 2.1.0 log on out: one run, the tool's rules
 *     (id, short and full description, help, default level, the layer as
 *     a property), one result per listed finding with its location
 *     relative to the checkout (uriBaseId %SRCROOT%), level from severity,
 *     layer, class and operator as properties.
 *   RP_MARKDOWN: a tracking checklist on out: per family, each operator
 *     that is on MPS or has a CPU kernel as a task-list item: done ([x]),
 *     to do, or its defects with file:line.
 * PROG prefixes the text lines.  Returns the exit status: 1 when a
 * listed finding has severity error or warning, else 0.  Output errors
 * are the caller's (close_stdout). */
int rp_write(FILE *out, FILE *err, const char *prog, const struct vf_report *r,
             const struct rp_filter *flt, enum rp_format fmt,
             const char *const *ops, size_t nops);

/* rp_write_todo: the MPSGraph to-do list (r->graphs; only the selected
 * operators unless r->all) in format fmt:
 *   RP_TEXT: one line per function on out, columns aligned: kind,
 *     operator, function, PATH:LINE, and "row NAME" or "stub NAME"
 *     (what reaches it); then "N functions of M operators build an
 *     MPSGraph" and a table of operators and functions per kind (every
 *     kind, zeros included, then the total).
 *   RP_JSON: one object per function: op, kind, function, path, line,
 *     column, via ("row" or "stub"), row or stub (the name), why (the
 *     MPSGraph marker, or "NAME()" of the callee building one), macro
 *     (or null).
 *   RP_MARKDOWN: a GitHub task list on out: a heading per kind that has
 *     operators (with its count), one "- [ ] `op`: `function`
 *     (`PATH:LINE`)[, ...]" item per operator.
 *   RP_SARIF: not a list format: the caller refuses it.
 * Returns the exit status: 1 when something is listed, else 0. */
int rp_write_todo(FILE *out, const struct vf_report *r, enum rp_format fmt);

#endif
