/* setup.h — the setup record of mps-doctor (issue #15): where the skill is
 * installed and which copy a client loads, what the settings let the agent
 * do, what the PyTorch tree offers the tools, and what this build is made
 * of; and the comparison of two records (drift).
 *
 * The record is a jansson object (the model: the text output, --save and
 * --check all read it), schema SETUP_FORMAT:
 *
 *   format       1
 *   doctor       "mps-doctor VERSION"
 *   build        this build: the folder two levels above the running
 *                binary when that is tools/bin (a checkout of this
 *                repository, or an install), else the binary's folder:
 *                path, version, sources, skill_md, tools, checksum,
 *                allowed_tools, plugin_manifest, compiler, arch {binary,
 *                system, machine, translated}, libraries [{name, built,
 *                running, jit}]
 *   installs     [{kind, path, name, skill_md, frontmatter_error, version,
 *                sources, tools, checksum, matches, differs, this_build,
 *                manifest, allowed_tools, state, why, plugin}]
 *   loads_first  {kind, path} of the copy a client started in the checkout
 *                loads under the skill's own name, or null
 *   permissions  {files: [{scope, path, present, error, default_mode,
 *                allow, ask, deny, enabled_plugins}], effective: {...}}
 *   tree         null without a checkout, else {root, version, era,
 *                c10_metal, mps_sources, macros, exec, common_mps,
 *                test_mps, tools}
 *   warnings     [{id, text}]  (derived; not compared by --check)
 *
 * Checksums are zlib crc32 as 8 lower-case hex digits.  "checksum" of an
 * install or build is the crc32 of the lines "NAME CRC\n" of SKILL.md and
 * of every tools/bin/mps-* file, in byte order of NAME.  "version" and
 * "sources" come from the marker "@(#)metal-kernel VERSION sources ID"
 * (cli.h mk_ident) found in the bytes of the tools; never by running them.
 *
 * Rules followed, and where they come from:
 *  - Which copy of a skill loads: Claude Code documents the skill
 *    locations enterprise (managed), personal (~/.claude/skills/NAME/),
 *    project (.claude/skills/NAME/) and plugin (PLUGIN/skills/NAME/); when
 *    skills share a name, enterprise overrides personal and personal
 *    overrides project, while plugin skills are namespaced PLUGIN:NAME and
 *    cannot conflict (Claude Code docs, "Extend Claude with skills", "Where
 *    skills live", code.claude.com/docs/en/skills).  So a user install
 *    shadows a project install, and an enabled plugin loads beside either
 *    as metal-kernel:metal-kernel.  A skill's name is its frontmatter
 *    `name`, else its folder's.  Enterprise (managed) skills are not read.
 *  - Installed plugins: ~/.claude/plugins/installed_plugins.json, the
 *    client's registry ({"version": 2, "plugins": {"NAME@MARKETPLACE":
 *    [{"scope", "installPath", "version", "projectPath"?, ...}]}}; version
 *    1 files map the id to one object), enabled by "enabledPlugins":
 *    {"NAME@MARKETPLACE": true|false} in a settings file (docs,
 *    "Plugins reference", "Plugin settings"); marketplaces in
 *    known_marketplaces.json beside it.  A plugin given with
 *    `claude --plugin-dir DIR` is loaded for one session and recorded
 *    nowhere: it cannot be seen offline.
 *  - Settings: user ~/.claude/settings.json, project .claude/settings.json
 *    and local .claude/settings.local.json of the checkout; higher wins for
 *    one value (local > project > user, docs "Settings precedence"), and
 *    permission rules of every file apply, deny first, then ask, then
 *    allow (docs "Configure permissions").  `Bash` and `Bash(*)` match
 *    every command; `Bash(CMD:*)` and `Bash(CMD *)` commands starting with
 *    CMD; Edit rules cover the tools that edit files.  defaultMode
 *    "acceptEdits" allows edits, "bypassPermissions" everything.  Managed
 *    settings are not read.
 *  - The tree's era: as mps-register decides it (metalreg.h): the core
 *    REGISTER_*_OP macros #defined in a c10/metal/NAME.h header or used in the kernel
 *    file, and the MetalShaderLibrary members exec_unary_kernel /
 *    exec_binary_kernel under aten/src/ATen/native/mps/.
 *
 * Reading only: no function here writes a file, uses the store of parsed
 * models (cache.h) or runs a program.
 *
 * Layer: check/.  May call base/, edit/, read/ and check/ (calls base/,
 * edit/ edit_write_file, read/ hostscan and metalreg).
 */
#ifndef MK_SETUP_H
#define MK_SETUP_H

#include <stddef.h>

#include <jansson.h>

#define SETUP_FORMAT 1
#define SETUP_SKILL "metal-kernel"

struct setup_opts {
	const char *root;  /* the PyTorch checkout (absolute), or NULL */
	const char *argv0; /* argv[0] of the running tool: finds this build */
	const char *home;  /* $HOME, or NULL when unset */
};

/* setup_self: the running binary's own path, resolved without /proc:
 * ARGV0 itself when it holds a '/', else the first executable regular
 * file named ARGV0 in the folders of $PATH (an empty entry is the current
 * folder); then realpath().  Returns a malloc'd absolute path (caller
 * frees), or NULL when it cannot be found. */
char *setup_self(const char *argv0);

/* setup_record: the record of the present setup (see above).  Reads the
 * files named in mps-doctor --help.  Problems of the setup (a settings
 * file that does not parse, a SKILL.md without frontmatter, a missing
 * tool) are part of the record, never errors.  Returns a new reference
 * (caller json_decref()s); dies only when out of memory. */
json_t *setup_record(const struct setup_opts *o);

/* setup_validate: 0 when REC has the shape of a record of format
 * SETUP_FORMAT (object; "format" 1; "build" object; "installs" and
 * "permissions.files" arrays of objects with string "kind"/"scope" and
 * "path"; "tree" object or null); else -1 with *why set to a malloc'd
 * reason (caller frees). */
int setup_validate(const json_t *rec, char **why);

/* setup_read_record: the record in the file PATH (a regular file of at
 * most 64 MiB), parsed and validated (setup_validate): a new reference.
 * NULL after a diagnostic: "prog: error: cannot read record 'PATH':
 * REASON", "prog: PATH:LINE:COL: error: not a JSON record: ...", or
 * "prog: PATH: error: WHY" for a record of the wrong shape. */
json_t *setup_read_record(const char *path);

/* setup_write_record: write REC to PATH (JSON indented by 2, a final
 * newline; atomically, edit.h edit_write_file, mode 0644).  0, or -1
 * after "prog: error: cannot write the record to 'PATH': REASON". */
int setup_write_record(const json_t *rec, const char *path);

/* One difference between two records. */
struct setup_diff {
	char *section; /* "build", "install", "loads-first", "permissions",
	                  "allowed-tools", "tree" */
	char *subject; /* what it is about: "version", "user /h/.claude/...",
	                  "project /t/.claude/settings.json allow", ... */
	char *change;  /* "changed", "added", "removed", "widened", "narrowed" */
	char *was, *now; /* the values as text; NULL when absent */
	char *text;    /* one line for people, without "drift: " */
};

/* setup_compare: every difference between the saved record WAS and the
 * present record NOW (both validated), in the order build, installs,
 * loads-first, permissions, allowed-tools, tree.  Compared: build version,
 * sources, checksum, SKILL.md, compiler, architecture, libraries; each
 * install (by kind and path): presence, version, sources, checksum,
 * match with this build, state, plugin enablement; which copy loads
 * first; each settings file (by scope): presence, parse error,
 * defaultMode, every allow/ask/deny rule, enabledPlugins; each install's
 * allowed-tools; the tree's root, version, era, macros, helpers, test
 * lists and tool verdicts.  An added allow rule, a removed deny or ask
 * rule, a wider defaultMode or a newly listed allowed tool is "widened",
 * the reverse "narrowed".  Returns the count and *out (malloc'd array,
 * free with setup_diffs_free; NULL when the count is 0). */
size_t setup_compare(const json_t *was, const json_t *now,
                     struct setup_diff **out);

/* setup_diffs_free: release N diffs at D. */
void setup_diffs_free(struct setup_diff *d, size_t n);

/* setup_rule_class: the class of a permission rule or allowed-tools
 * entry RULE: "skill-tool" (Bash(...) whose command is a tools/bin/mps-*
 * tool; *tool set to a malloc'd "mps-NAME", or "mps-*" for a wildcard),
 * "bash-any" (Bash, Bash(*), Bash(:*)), "bash" (any other Bash(...)),
 * "edit-any" (Edit, Write, MultiEdit, NotebookEdit without a path or
 * with * or **), "edit" (those with a path), or "other".  tool may be
 * NULL; it is set to NULL for classes other than skill-tool. */
const char *setup_rule_class(const char *rule, char **tool);

#endif
