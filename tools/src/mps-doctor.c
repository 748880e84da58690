/* mps-doctor — the setup record: where the skill is installed and which
 * copy loads, what the settings let the agent do, what the tree offers
 * the tools, what this build is made of; --save keeps it, --check
 * compares the present state with a kept record.  Issue #15.
 *
 * The record is built by the library (setup.h); this file parses the
 * options, loads and writes the record file, and prints. */
/* realpath() is POSIX.1-2008 with the XSI option (see edit.c) */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#include "base/cli.h"
#include "base/diag.h"
#include "check/setup.h"

#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *opt_root, *opt_save, *opt_check;
static int opt_json;

static const struct opt opts[] = {
	{"root", 0, OPT_STRING, &opt_root, "DIR",
	 "PyTorch checkout (default: walk up from the current folder; none is fine)"},
	{"json", 'j', OPT_FLAG, &opt_json, NULL,
	 "the record as one JSON object (with --check: one object per difference)"},
	{"save", 0, OPT_STRING, &opt_save, "FILE",
	 "also write the record (JSON) to FILE, the only file ever written"},
	{"check", 0, OPT_STRING, &opt_check, "FILE",
	 "compare the present state with the record in FILE; exit 1 if it drifted"},
	CLI_OPT_END};

static const struct tool_info info = {
	"mps-doctor",
	"[--root DIR] [--json] [--save FILE | --check FILE]",
	"Record the setup of the metal-kernel skill (installs, permissions, tree, "
	"build), or check it has not drifted.",
	"The record: every copy of the skill found - the checkout's\n"
	".claude/skills/metal-kernel/, ~/.claude/skills/metal-kernel/ (and any\n"
	"other folder there whose SKILL.md is named metal-kernel), plugins in\n"
	"~/.claude/plugins/installed_plugins.json - each with its version,\n"
	"checksums and whether it matches this build; which copy a client started\n"
	"in the checkout loads; the permissions of the settings files; the tree's\n"
	"version and era and which tools work on it; the compiler, architecture\n"
	"and libraries of this build; warnings.\n"
	"\n"
	"Which copy loads (Claude Code docs, \"Where skills live\"): personal\n"
	"skills (~/.claude/skills) come before project skills (.claude/skills) of\n"
	"the same name, so a user install shadows a project one; plugin skills are\n"
	"namespaced (metal-kernel:metal-kernel) and load beside them.  Enterprise\n"
	"(managed) skills and settings are not read.  A plugin given to one session\n"
	"with `claude --plugin-dir DIR` is recorded nowhere and cannot be seen.\n"
	"Permissions: the rules of every settings file apply, deny before ask\n"
	"before allow; defaultMode comes from the highest file (local, project,\n"
	"user).\n"
	"\n"
	"This build: the folder above tools/bin holding the running binary (found\n"
	"from argv[0] and PATH).  \"identical\" means the same bytes (crc32) of\n"
	"SKILL.md and of every tools/bin/mps-* file; \"same-sources\" the same\n"
	"version and sources built into other bytes.  Versions are read from the\n"
	"marker \"@(#)metal-kernel VERSION sources ID\" in each tool's bytes.\n"
	"\n"
	"Files read: this build's tools/bin/mps-*, SKILL.md and\n"
	".claude-plugin/plugin.json; in ~ (HOME): .claude/settings.json,\n"
	".claude/skills/*/SKILL.md and */tools/bin/mps-*,\n"
	".claude/plugins/installed_plugins.json, known_marketplaces.json and each\n"
	"metal-kernel plugin's folder; in the checkout: .claude/settings.json,\n"
	".claude/settings.local.json, .claude/skills/ (as in ~), version.txt,\n"
	"c10/metal/*.h, the source files under aten/src/ATen/native/mps/, and\n"
	"whether torch/testing/_internal/common_mps.py and test/test_mps.py exist;\n"
	"with --check, FILE.\n"
	"Files written: only FILE of --save (atomically, through a temporary file\n"
	"in its folder).  Never uses the network, never runs other programs (the\n"
	"installed tools are read, not run), never uses the store of parsed models.\n"
	"\n"
	"--check prints one line per difference, \"drift: SECTION: SUBJECT: ...\",\n"
	"then a count: another version or build, an install appeared or gone,\n"
	"another copy loading first, permission rules added or removed (widened\n"
	"or narrowed), another tree era, other libraries.  Warnings are not\n"
	"compared.  The record's schema has a \"format\" number (1); a record of\n"
	"another format is an error.\n"
	"\n"
	"Exit status: 0 the record was printed (and saved), or --check found no\n"
	"difference; 1 --check found differences; 2 error (bad option, a --root\n"
	"that is not a checkout, an unreadable or malformed FILE, FILE cannot be\n"
	"written) - nothing is written then.\n"};

/* ---------------- text output ---------------- */

static const char *s_(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static const char *or_(const char *s, const char *dflt)
{
	return s ? s : dflt;
}

static void print_list(const json_t *a)
{
	size_t i;
	json_t *x;
	json_array_foreach(a, i, x)
		printf("%s%s", i ? ", " : "", json_string_value(x));
}

static void print_allowed(const json_t *at, const char *indent)
{
	const json_t *un = json_object_get(at, "unlisted"), *ab = json_object_get(at, "absent");
	if (!json_is_object(at)) {
		printf("%sallowed-tools: none\n", indent);
		return;
	}
	printf("%sallowed-tools: %zu entries, tools ", indent,
	       json_array_size(json_object_get(at, "entries")));
	print_list(json_object_get(at, "tools"));
	if (!json_array_size(json_object_get(at, "tools")))
		printf("none");
	if (!json_array_size(un) && !json_array_size(ab))
		printf("; every tool there is listed");
	if (json_array_size(un)) {
		printf("; not listed: ");
		print_list(un);
	}
	if (json_array_size(ab)) {
		printf("; listed but missing: ");
		print_list(ab);
	}
	printf("\n");
}

static void print_build(const json_t *b)
{
	const json_t *arch = json_object_get(b, "arch"), *tools = json_object_get(b, "tools"),
	             *x;
	const char *name;
	size_t i;
	int first = 1;

	printf("this build: %s\n", or_(s_(b, "path"), "unknown (the running binary was not "
	                                               "found)"));
	printf("  version %s, sources %s, checksum %s\n", or_(s_(b, "version"), "unknown"),
	       or_(s_(b, "sources"), "unknown"), or_(s_(b, "checksum"), "none"));
	printf("  SKILL.md %s; tools:", or_(s_(b, "skill_md"), "absent"));
	json_object_foreach((json_t *)tools, name, x) {
		printf("%s %s %s", first ? "" : ",", name, json_string_value(x));
		first = 0;
	}
	printf("%s\n", first ? " none" : "");
	printf("  compiler %s; %s binary on %s %s%s\n", or_(s_(b, "compiler"), "unknown"),
	       or_(s_(arch, "binary"), "?"), or_(s_(arch, "system"), "?"),
	       or_(s_(arch, "machine"), "?"),
	       json_is_true(json_object_get(arch, "translated")) ? ", translated by Rosetta"
	                                                         : "");
	json_array_foreach(json_object_get(b, "libraries"), i, x) {
		const json_t *jit = json_object_get(x, "jit");
		printf("  %s %s (built against %s)%s\n", s_(x, "name"), s_(x, "running"),
		       s_(x, "built"),
		       jit ? (json_is_true(jit) ? ", JIT available" : ", no JIT") : "");
	}
	if (json_object_get(b, "allowed_tools"))
		print_allowed(json_object_get(b, "allowed_tools"), "  ");
	if (json_is_true(json_object_get(b, "plugin_manifest")))
		printf("  a plugin folder (.claude-plugin/plugin.json): `claude --plugin-dir %s`\n"
		       "  loads it for one session; nothing records that flag, so such a\n"
		       "  session cannot be seen here\n",
		       s_(b, "path"));
	printf("\n");
}

static void print_installs(const json_t *rec)
{
	const json_t *lf = json_object_get(rec, "loads_first"), *o,
	             *reg = json_object_get(rec, "plugin_registry");
	size_t i;

	printf("installs (personal ~/.claude/skills before project .claude/skills; "
	       "plugins load beside them):\n");
	if (!json_array_size(json_object_get(rec, "installs")))
		printf("  none found\n");
	json_array_foreach(json_object_get(rec, "installs"), i, o) {
		const char *m = s_(o, "matches");
		const json_t *p = json_object_get(o, "plugin");
		printf("  %-8s %s\n", s_(o, "kind"), s_(o, "path"));
		if (p)
			printf("           %s, scope %s%s%s, marketplace source %s\n", s_(p, "id"),
			       or_(s_(p, "scope"), "user"), s_(p, "project_path") ? " for " : "",
			       or_(s_(p, "project_path"), ""),
			       or_(s_(p, "marketplace_source"), "unknown"));
		if (!s_(o, "skill_md") && !json_object_size(json_object_get(o, "tools"))) {
			printf("           no SKILL.md, no tools\n");
		} else if (m && !strcmp(m, "identical")) {
			printf("           version %s, identical to this build%s%s\n",
			       or_(s_(o, "version"), "unknown"),
			       json_is_true(json_object_get(o, "this_build")) ? " (it is this build)"
			                                                     : "",
			       json_is_true(json_object_get(o, "manifest")) ? ", installed by "
			                                                      "tools/install.sh"
			                                                    : "");
		} else {
			printf("           version %s, sources %s, checksum %s%s\n",
			       or_(s_(o, "version"), "unknown"), or_(s_(o, "sources"), "unknown"),
			       or_(s_(o, "checksum"), "none"),
			       json_is_true(json_object_get(o, "manifest")) ? ", installed by "
			                                                      "tools/install.sh"
			                                                    : "");
			if (m && !strcmp(m, "same-sources"))
				printf("           built from the same sources as this build, other "
				       "bytes: ");
			else
				printf("           differs from this build: ");
			print_list(json_object_get(o, "differs"));
			printf("\n");
		}
		if (s_(o, "frontmatter_error"))
			printf("           SKILL.md:%s\n", s_(o, "frontmatter_error"));
		if (s_(o, "skill_md"))
			print_allowed(json_object_get(o, "allowed_tools"), "           ");
		printf("           %s: %s\n", s_(o, "state"), s_(o, "why"));
	}
	if (json_is_object(reg))
		printf("  plugin registry %s: %s\n", s_(reg, "path"),
		       s_(reg, "error") ? s_(reg, "error")
		       : json_is_true(json_object_get(reg, "present")) ? "read"
		                                                      : "absent");
	if (json_is_object(lf))
		printf("a client started in the checkout loads the %s copy at %s\n",
		       s_(lf, "kind"), s_(lf, "path"));
	else
		printf("a client started in the checkout loads no copy of the skill\n");
	printf("\n");
}

static void print_state(const char *label, const json_t *st)
{
	printf("    %-14s %s", label, s_(st, "state"));
	if (s_(st, "by"))
		printf(" (%s)", s_(st, "by"));
	else if (!strcmp(s_(st, "state"), "ask"))
		printf(" (no rule: the client asks)");
	printf("\n");
}

static void print_permissions(const json_t *perm)
{
	const json_t *eff = json_object_get(perm, "effective"), *f, *x;
	static const char *const lists[] = {"allow", "ask", "deny"};
	const char *name;
	size_t i, j;
	int k;

	printf("permissions (the rules of every file apply: deny, then ask, then allow):\n");
	json_array_foreach(json_object_get(perm, "files"), i, f) {
		printf("  %-8s %s: ", s_(f, "scope"), s_(f, "path"));
		if (s_(f, "error")) {
			printf("cannot be read: %s\n", s_(f, "error"));
			continue;
		}
		if (!json_is_true(json_object_get(f, "present"))) {
			printf("absent\n");
			continue;
		}
		printf("%zu allow, %zu ask, %zu deny%s%s\n",
		       json_array_size(json_object_get(f, "allow")),
		       json_array_size(json_object_get(f, "ask")),
		       json_array_size(json_object_get(f, "deny")),
		       s_(f, "default_mode") ? ", defaultMode " : "", or_(s_(f, "default_mode"), ""));
		for (k = 0; k < 3; k++)
			json_array_foreach(json_object_get(f, lists[k]), j, x) {
				char *t = NULL;
				const char *c = setup_rule_class(json_string_value(x), &t);
				printf("    %-5s %s  [%s%s%s]\n", lists[k], json_string_value(x), c,
				       t ? " " : "", t ? t : "");
				free(t);
			}
		json_object_foreach(json_object_get(f, "enabled_plugins"), name, x)
			printf("    enabledPlugins %s: %s\n", name, json_is_true(x) ? "true" : "false");
	}
	printf("  in effect (defaultMode %s):\n", s_(eff, "default_mode"));
	json_object_foreach(json_object_get(eff, "tools"), name, x) print_state(name, x);
	x = json_object_get(eff, "bash");
	if (!strcmp(s_(x, "state"), "some")) {
		printf("    %-14s some commands: ", "Bash");
		print_list(json_object_get(x, "allow"));
		printf("\n");
	} else {
		print_state("Bash", x);
	}
	x = json_object_get(eff, "edit");
	if (!strcmp(s_(x, "state"), "some")) {
		printf("    %-14s some files: ", "Edit/Write");
		print_list(json_object_get(x, "allow"));
		printf("\n");
	} else {
		print_state("Edit/Write", x);
	}
	printf("\n");
}

static void print_tree(const json_t *t)
{
	const json_t *x;
	const char *name;

	if (!json_is_object(t)) {
		printf("tree: none (no PyTorch checkout from the current folder up; use --root "
		       "DIR)\n\n");
		return;
	}
	printf("tree: %s\n", s_(t, "root"));
	if (s_(t, "version"))
		printf("  version %s (version.txt)\n", s_(t, "version"));
	else
		printf("  version unknown (no version.txt)\n");
	printf("  era %s (c10/metal/ %s, MPS sources %s)\n", s_(t, "era"),
	       json_is_true(json_object_get(t, "c10_metal")) ? "present" : "absent",
	       json_is_true(json_object_get(t, "mps_sources")) ? "present" : "absent");
	json_object_foreach(json_object_get(t, "macros"), name, x) {
		printf("  %-26s ", name);
		if (s_(x, "defined"))
			printf("#defined in %s\n", s_(x, "defined"));
		else if (s_(x, "used"))
			printf("used in %s\n", s_(x, "used"));
		else
			printf("not found\n");
	}
	json_object_foreach(json_object_get(t, "exec"), name, x)
		printf("  %-26s %s\n", name, json_is_string(x) ? json_string_value(x) : "not found");
	printf("  common_mps.py %s, test/test_mps.py %s\n",
	       json_is_true(json_object_get(t, "common_mps")) ? "present" : "absent",
	       json_is_true(json_object_get(t, "test_mps")) ? "present" : "absent");
	json_object_foreach(json_object_get(t, "tools"), name, x)
		printf("  %-14s %-6s %s\n", name, s_(x, "works"), s_(x, "why"));
	printf("\n");
}

static void print_text(const json_t *rec)
{
	const json_t *w = json_object_get(rec, "warnings"), *x;
	size_t i;
	printf("%s: the setup record (format %lld)\n\n", s_(rec, "doctor"),
	       (long long)json_integer_value(json_object_get(rec, "format")));
	print_build(json_object_get(rec, "build"));
	print_installs(rec);
	print_permissions(json_object_get(rec, "permissions"));
	print_tree(json_object_get(rec, "tree"));
	if (!json_array_size(w))
		printf("warnings: none\n");
	else
		printf("warnings (%zu):\n", json_array_size(w));
	json_array_foreach(w, i, x)
		printf("  [%s] %s\n", s_(x, "id"), s_(x, "text"));
}

int main(int argc, char **argv)
{
	const char *argv0 = argv[0];
	char *root = NULL, rbuf[PATH_MAX], *home;
	struct setup_opts so;
	json_t *rec, *saved = NULL;
	int n, status = MK_EXIT_CLEAN;

	diag_init(argv[0]);
	n = cli_parse(&info, opts, argc, argv);
	if (n > 0)
		cli_error(&info, opts, "unexpected argument '%s'", argv[0]);
	if (opt_save && opt_check)
		cli_error(&info, opts, "--save and --check cannot be used together");
	if (opt_save && !*opt_save)
		cli_error(&info, opts, "--save needs a file name");
	if (opt_root) {
		if (!(root = find_root(opt_root)))
			return MK_EXIT_ERROR;
	} else {
		/* no checkout is a fact of the record, not an error */
		root = find_checkout();
	}
	if (root && realpath(root, rbuf)) {
		free(root);
		root = xstrdup(rbuf);
	}
	if (opt_check && !(saved = setup_read_record(opt_check))) {
		free(root);
		return MK_EXIT_ERROR;
	}

	home = getenv("HOME");
	so.root = root;
	so.argv0 = argv0;
	so.home = home && *home ? home : NULL;
	rec = setup_record(&so);

	if (opt_save && setup_write_record(rec, opt_save) != 0) {
		json_decref(rec);
		free(root);
		return MK_EXIT_ERROR;
	}
	if (saved) {
		struct setup_diff *d;
		size_t nd = setup_compare(saved, rec, &d), i;
		for (i = 0; i < nd; i++) {
			if (opt_json) {
				json_t *o = json_pack("{s:s, s:s, s:s, s:s?, s:s?, s:s}", "section",
				                      d[i].section, "subject", d[i].subject, "change",
				                      d[i].change, "was", d[i].was, "now", d[i].now,
				                      "text", d[i].text);
				char *s = json_dumps(o, JSON_COMPACT);
				printf("%s\n", s);
				free(s);
				json_decref(o);
			} else {
				printf("drift: %s\n", d[i].text);
			}
		}
		if (!opt_json) {
			if (nd)
				printf("%zu difference%s from the record in '%s'\n", nd,
				       nd == 1 ? "" : "s", opt_check);
			else
				printf("no difference from the record in '%s'\n", opt_check);
		}
		status = nd ? MK_EXIT_FINDINGS : MK_EXIT_CLEAN;
		setup_diffs_free(d, nd);
		json_decref(saved);
	} else if (opt_json) {
		char *s = json_dumps(rec, JSON_COMPACT);
		printf("%s\n", s);
		free(s);
	} else {
		print_text(rec);
	}
	json_decref(rec);
	free(root);
	return close_stdout(status);
}
