/* setup.c — see setup.h. */
/* realpath() is POSIX.1-2008 with the XSI option (see edit.c) */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#include "check/setup.h"
#include "base/walk.h"

#include "base/buildinfo.h"
#include "base/cli.h"
#include "base/diag.h"
#include "edit/edit.h"
#include "read/hostscan.h"
#include "read/metalreg.h"
#include "base/scan.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#define MAX_TEXT ((size_t)4 << 20)    /* SKILL.md, settings, registries */
#define MAX_TOOL ((size_t)256 << 20)  /* one tool binary */

/* ---------------- small helpers ---------------- */

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_reg(const char *p)
{
	return walk_is_file(p, NULL);
}

static void crc_hex(uint32_t c, char out[9])
{
	snprintf(out, 9, "%08lx", (unsigned long)c);
}

/* o[k] = v, or null when v is NULL */
static void set_str(json_t *o, const char *k, const char *v)
{
	json_object_set_new(o, k, v ? json_string(v) : json_null());
}

/* the string o[k], or NULL */
static const char *get_str(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static int is_tool_name(const char *s)
{
	size_t i;
	if (strncmp(s, "mps-", 4) != 0 || !s[4])
		return 0;
	for (i = 4; s[i]; i++)
		if (!islower((unsigned char)s[i]) && !isdigit((unsigned char)s[i]) &&
		    s[i] != '-')
			return 0;
	return 1;
}

/* append s to the array of strings a unless already there */
static void add_unique(json_t *a, const char *s)
{
	size_t i;
	json_t *v;
	json_array_foreach(a, i, v)
		if (strcmp(json_string_value(v), s) == 0)
			return;
	json_array_append_new(a, json_string(s));
}

static int array_has(const json_t *a, const char *s)
{
	size_t i;
	json_t *v;
	json_array_foreach(a, i, v)
		if (json_is_string(v) && strcmp(json_string_value(v), s) == 0)
			return 1;
	return 0;
}

/* ---------------- the running binary ---------------- */

char *setup_self(const char *argv0)
{
	char buf[PATH_MAX], *r;
	const char *path, *p;

	if (!argv0 || !*argv0)
		return NULL;
	if (strchr(argv0, '/'))
		return realpath(argv0, buf) ? xstrdup(buf) : NULL;
	path = getenv("PATH");
	if (!path)
		return NULL;
	for (p = path;; p++) {
		const char *e = strchr(p, ':');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char *cand = n ? xasprintf("%.*s/%s", (int)n, p, argv0)
		               : xasprintf("./%s", argv0);
		if (is_reg(cand) && access(cand, X_OK) == 0) {
			r = realpath(cand, buf) ? xstrdup(buf) : NULL;
			free(cand);
			return r;
		}
		free(cand);
		if (!e)
			break;
		p = e;
	}
	return NULL;
}

/* ---------------- the marker in a tool's bytes ---------------- */

static int token_byte(char c)
{
	return c > ' ' && c < 0x7f;
}

/* copy the token at d[j..n) into out (at most cap-1 bytes); returns the
 * offset after it */
static size_t copy_token(const char *d, size_t n, size_t j, char *out,
                         size_t cap)
{
	size_t k = 0;
	while (j < n && k + 1 < cap && token_byte(d[j]))
		out[k++] = d[j++];
	out[k] = '\0';
	return j;
}

/* the first "@(#)metal-kernel VERSION[ sources ID]" in d[0..n) whose
 * VERSION starts with a digit */
static void find_ident(const char *d, size_t n, char *ver, size_t vcap,
                       char *src, size_t scap)
{
	const char *pre = MK_IDENT_PREFIX;
	size_t pl = strlen(pre), i = 0;
	ver[0] = src[0] = '\0';
	while (i + pl <= n) {
		const char *at = memchr(d + i, '@', n - i);
		size_t j;
		if (!at)
			return;
		i = (size_t)(at - d);
		if (i + pl > n)
			return;
		if (memcmp(at, pre, pl) != 0) {
			i++;
			continue;
		}
		j = copy_token(d, n, i + pl, ver, vcap);
		/* a version starts with a digit: the pattern also occurs in
		 * text, e.g. mps-doctor's --help ("... VERSION sources ID") */
		if (!isdigit((unsigned char)ver[0])) {
			ver[0] = '\0';
			i++;
			continue;
		}
		if (j + 9 <= n && memcmp(d + j, " sources ", 9) == 0)
			copy_token(d, n, j + 9, src, scap);
		return;
	}
}

/* ---------------- SKILL.md frontmatter (libyaml) ---------------- */

/* allowed-tools: items separated by commas or blanks outside parentheses
 * (both spellings are in use: "Read, Grep" and "Read Grep") */
static void split_tools(const char *s, json_t *out)
{
	int depth = 0;
	const char *start = NULL, *p;
	for (p = s;; p++) {
		int sep = !*p || (depth == 0 && (*p == ',' || isspace((unsigned char)*p)));
		if (sep) {
			if (start && p > start) {
				char *t = xstrndup(start, (size_t)(p - start));
				add_unique(out, t);
				free(t);
			}
			start = NULL;
			if (!*p)
				break;
			continue;
		}
		if (!start)
			start = p;
		if (*p == '(')
			depth++;
		else if (*p == ')' && depth > 0)
			depth--;
	}
}

struct fm {
	char *name;      /* frontmatter name, or NULL */
	json_t *allowed; /* allowed-tools entries, or NULL when absent */
	char *error;     /* "LINE:COL: problem" (1-based, in the file), or NULL */
};

static const char *scalar(yaml_document_t *doc, yaml_node_t *n)
{
	(void)doc;
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value
	                                        : NULL;
}

static void fm_parse(const char *t, size_t len, struct fm *f)
{
	size_t start, p, end = (size_t)-1;
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	yaml_node_pair_t *pair;

	memset(f, 0, sizeof *f);
	if (!(len >= 3 && memcmp(t, "---", 3) == 0 &&
	      (len == 3 || t[3] == '\n' || t[3] == '\r'))) {
		f->error = xstrdup("1:1: no frontmatter: the file does not start "
		                   "with a '---' line");
		return;
	}
	start = p = 3;
	while (p < len && t[p] != '\n')
		p++;
	start = p < len ? p + 1 : p;
	for (p = start; p < len;) {
		size_t e = p;
		while (e < len && t[e] != '\n')
			e++;
		if ((e - p == 3 || (e - p == 4 && t[p + 3] == '\r')) &&
		    memcmp(t + p, "---", 3) == 0) {
			end = p;
			break;
		}
		p = e < len ? e + 1 : e;
	}
	if (end == (size_t)-1) {
		f->error = xstrdup("1:1: the frontmatter has no closing '---' line");
		return;
	}
	if (!yaml_parser_initialize(&parser))
		die("out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)t + start,
	                             end - start);
	if (!yaml_parser_load(&parser, &doc)) {
		/* marks are 0-based and count from the line after '---' */
		f->error = xasprintf("%lu:%lu: frontmatter: %s",
		                     (unsigned long)parser.problem_mark.line + 2,
		                     (unsigned long)parser.problem_mark.column + 1,
		                     parser.problem ? parser.problem : "bad YAML");
		yaml_parser_delete(&parser);
		return;
	}
	root = yaml_document_get_root_node(&doc);
	if (!root || root->type != YAML_MAPPING_NODE) {
		f->error = xstrdup("2:1: frontmatter: not a mapping of keys");
		goto done;
	}
	for (pair = root->data.mapping.pairs.start;
	     pair < root->data.mapping.pairs.top; pair++) {
		const char *k = scalar(&doc, yaml_document_get_node(&doc, pair->key));
		yaml_node_t *v = yaml_document_get_node(&doc, pair->value);
		if (!k)
			continue;
		if (strcmp(k, "name") == 0 && scalar(&doc, v)) {
			free(f->name);
			f->name = xstrdup(scalar(&doc, v));
		} else if (strcmp(k, "allowed-tools") == 0) {
			if (f->allowed)
				json_decref(f->allowed);
			f->allowed = json_array();
			if (scalar(&doc, v)) {
				split_tools(scalar(&doc, v), f->allowed);
			} else if (v && v->type == YAML_SEQUENCE_NODE) {
				yaml_node_item_t *it;
				for (it = v->data.sequence.items.start;
				     it < v->data.sequence.items.top; it++) {
					const char *s =
						scalar(&doc, yaml_document_get_node(&doc, *it));
					if (s)
						split_tools(s, f->allowed);
				}
			}
		}
	}
done:
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
}

static void fm_free(struct fm *f)
{
	free(f->name);
	free(f->error);
	if (f->allowed)
		json_decref(f->allowed);
}

/* ---------------- permission rules ---------------- */

const char *setup_rule_class(const char *rule, char **tool)
{
	const char *open = strchr(rule, '(');
	size_t tl = open ? (size_t)(open - rule) : strlen(rule), rl = strlen(rule);
	char *spec = NULL;
	const char *cls = "other";

	if (tool)
		*tool = NULL;
	if (open) {
		if (rl < tl + 2 || rule[rl - 1] != ')')
			return "other";
		spec = xstrndup(open + 1, rl - tl - 2);
	}
	if (tl == 4 && strncmp(rule, "Bash", 4) == 0) {
		if (!spec || !*spec || !strcmp(spec, "*") || !strcmp(spec, ":*") ||
		    !strcmp(spec, " *")) {
			cls = "bash-any";
		} else {
			/* the command word: up to a blank or ':' (CMD:* and CMD *) */
			size_t cl = strcspn(spec, " \t:");
			char *cmd = xstrndup(spec, cl);
			const char *base = strrchr(cmd, '/');
			base = base ? base + 1 : cmd;
			if (is_tool_name(base) || strcmp(base, "mps-*") == 0) {
				cls = "skill-tool";
				if (tool)
					*tool = xstrdup(base);
			} else {
				cls = "bash";
			}
			free(cmd);
		}
	} else if ((tl == 4 && strncmp(rule, "Edit", 4) == 0) ||
	           (tl == 5 && strncmp(rule, "Write", 5) == 0) ||
	           (tl == 9 && strncmp(rule, "MultiEdit", 9) == 0) ||
	           (tl == 12 && strncmp(rule, "NotebookEdit", 12) == 0)) {
		cls = (!spec || !*spec || !strcmp(spec, "*") || !strcmp(spec, "**"))
		              ? "edit-any"
		              : "edit";
	}
	free(spec);
	return cls;
}

/* 1 when rule covers skill tool NAME: a skill-tool rule naming it or
 * mps-*, or a rule for any Bash command */
static int rule_covers_tool(const char *rule, const char *name)
{
	char *t;
	const char *c = setup_rule_class(rule, &t);
	int r = strcmp(c, "bash-any") == 0 ||
	        (t && (strcmp(t, name) == 0 || strcmp(t, "mps-*") == 0));
	free(t);
	return r;
}

/* ---------------- one copy of the skill: SKILL.md + tools/bin ---------------- */

/* describe SKILL.md at skill (may be missing) and the tools/bin/mps-*
 * files in bindir into o: name, skill_md, frontmatter_error, version,
 * sources, tools, checksum, allowed_tools */
static void describe_copy(json_t *o, const char *skill, const char *bindir,
                          const char *folder_name)
{
	char *data, hex[9], ver[40], src[40];
	size_t len, n, i;
	struct walk_list bin = {NULL, 0, 0};
	char **v;
	json_t *tools = json_object(), *vers = json_array(), *srcs = json_array();
	struct buf lines;
	struct fm f;

	if (bindir)
		walk_dir(bindir, 0, &bin);
	v = bin.paths;
	n = bin.n;
	memset(&f, 0, sizeof f);
	buf_init(&lines);
	if (skill && read_regular_file(skill, MAX_TEXT, &data, &len) == 0) {
		crc_hex(edit_crc32(data, len), hex);
		set_str(o, "skill_md", hex);
		buf_printf(&lines, "SKILL.md %s\n", hex);
		fm_parse(data, len, &f);
		free(data);
		set_str(o, "name", f.name ? f.name : folder_name);
		set_str(o, "frontmatter_error", f.error);
	} else {
		set_str(o, "skill_md", NULL);
		set_str(o, "name", NULL);
		set_str(o, "frontmatter_error", NULL);
	}
	for (i = 0; i < n; i++) {
		char *p;
		if (!is_tool_name(v[i]))
			continue;
		p = xasprintf("%s/%s", bindir, v[i]);
		if (read_regular_file(p, MAX_TOOL, &data, &len) == 0) {
			crc_hex(edit_crc32(data, len), hex);
			json_object_set_new(tools, v[i], json_string(hex));
			buf_printf(&lines, "%s %s\n", v[i], hex);
			find_ident(data, len, ver, sizeof ver, src, sizeof src);
			add_unique(vers, ver[0] ? ver : "unknown");
			add_unique(srcs, src[0] ? src : "unknown");
			free(data);
		}
		free(p);
	}
	walk_free(&bin);

	/* version / sources: one value, "mixed: A, B", or null */
	{
		json_t *pairs[2] = {vers, srcs};
		const char *keys[2] = {"version", "sources"};
		int k;
		for (k = 0; k < 2; k++) {
			json_t *a = pairs[k];
			if (json_array_size(a) == 0) {
				set_str(o, keys[k], NULL);
			} else if (json_array_size(a) == 1) {
				const char *s = json_string_value(json_array_get(a, 0));
				set_str(o, keys[k], strcmp(s, "unknown") ? s : NULL);
			} else {
				struct buf b;
				json_t *x;
				buf_init(&b);
				buf_puts(&b, "mixed: ");
				json_array_foreach(a, i, x) buf_printf(&b, "%s%s", i ? ", " : "",
				                                       json_string_value(x));
				set_str(o, keys[k], b.data);
				buf_free(&b);
			}
		}
	}
	json_decref(vers);
	json_decref(srcs);
	json_object_set_new(o, "tools", tools);
	if (lines.len) {
		crc_hex(edit_crc32(lines.data, lines.len), hex);
		set_str(o, "checksum", hex);
	} else {
		set_str(o, "checksum", NULL);
	}
	buf_free(&lines);

	/* allowed-tools against the tools that exist */
	if (f.allowed) {
		json_t *at = json_object(), *listed = json_array(), *unlisted = json_array(),
		       *absent = json_array(), *x;
		const char *name;
		int wildcard = 0;
		json_array_foreach(f.allowed, i, x) {
			char *t;
			setup_rule_class(json_string_value(x), &t);
			if (t) {
				if (strcmp(t, "mps-*") == 0)
					wildcard = 1;
				add_unique(listed, t);
				if (strcmp(t, "mps-*") && !json_object_get(tools, t))
					add_unique(absent, t);
				free(t);
			}
		}
		json_object_foreach(tools, name, x)
			if (!wildcard && !array_has(listed, name))
				add_unique(unlisted, name);
		json_object_set(at, "entries", f.allowed);
		json_object_set_new(at, "tools", listed);
		json_object_set_new(at, "unlisted", unlisted);
		json_object_set_new(at, "absent", absent);
		json_object_set_new(o, "allowed_tools", at);
	} else {
		json_object_set_new(o, "allowed_tools", json_null());
	}
	fm_free(&f);
}

/* ---------------- this build ---------------- */

static json_t *scan_build(const char *argv0)
{
	json_t *b = json_object(), *arch = json_object(), *libs = json_array();
	char *self = setup_self(argv0), *dir = NULL, *root = NULL, *skill = NULL;
	char ver[40], src[40];
	struct buildinfo bi;
	size_t i;

	if (self) {
		char *slash = strrchr(self, '/');
		dir = xstrndup(self, slash && slash != self ? (size_t)(slash - self) : 1);
		if (str_ends_with(dir, "/tools/bin")) {
			root = xstrndup(dir, strlen(dir) - strlen("/tools/bin"));
			if (!*root) {
				free(root);
				root = xstrdup("/");
			}
			skill = xasprintf("%s/SKILL.md", root);
		} else {
			root = xstrdup(dir);
		}
	}
	set_str(b, "path", root);
	find_ident(mk_ident, strlen(mk_ident), ver, sizeof ver, src, sizeof src);
	/* describe_copy sets version/sources from the files; this binary's own
	 * marker is the build's (set after) */
	describe_copy(b, skill, dir, NULL);
	json_object_del(b, "name");
	set_str(b, "version", ver[0] ? ver : NULL);
	set_str(b, "sources", src[0] ? src : NULL);
	if (root) {
		char *pm = xasprintf("%s/.claude-plugin/plugin.json", root);
		json_object_set_new(b, "plugin_manifest", json_boolean(is_reg(pm)));
		free(pm);
	} else {
		json_object_set_new(b, "plugin_manifest", json_false());
	}

	buildinfo_get(&bi);
	set_str(b, "compiler", bi.compiler);
	set_str(arch, "binary", bi.binary_arch);
	set_str(arch, "system", bi.system);
	set_str(arch, "machine", bi.machine);
	json_object_set_new(arch, "translated", bi.translated < 0
	                                            ? json_null()
	                                            : json_boolean(bi.translated));
	json_object_set_new(b, "arch", arch);
	for (i = 0; i < BI_NLIBS; i++) {
		json_t *l = json_object();
		set_str(l, "name", bi.libs[i].name);
		set_str(l, "built", bi.libs[i].built);
		set_str(l, "running", bi.libs[i].running);
		if (bi.libs[i].jit >= 0)
			json_object_set_new(l, "jit", json_boolean(bi.libs[i].jit));
		json_array_append_new(libs, l);
	}
	json_object_set_new(b, "libraries", libs);
	free(self);
	free(dir);
	free(root);
	free(skill);
	return b;
}

/* ---------------- standalone installs: SKILLS/<folder>/ ---------------- */

/* the frontmatter name of SKILL.md in folder, or NULL */
static char *skill_name(const char *folder)
{
	char *p = xasprintf("%s/SKILL.md", folder), *data, *r = NULL;
	size_t len;
	struct fm f;
	if (read_regular_file(p, MAX_TEXT, &data, &len) == 0) {
		fm_parse(data, len, &f);
		r = f.name ? xstrdup(f.name) : NULL;
		fm_free(&f);
		free(data);
	}
	free(p);
	return r;
}

static void scan_scope(json_t *installs, const char *kind, const char *skills)
{
	struct walk_list l;
	size_t n, i;
	char **v;
	walk_dir(skills, 1, &l);
	v = l.paths;
	n = l.n;
	for (i = 0; i < n; i++) {
		char *dir = xasprintf("%s/%s", skills, v[i]), *name = NULL;
		if (is_dir(dir) && (strcmp(v[i], SETUP_SKILL) == 0 ||
		                    ((name = skill_name(dir)) && !strcmp(name, SETUP_SKILL)))) {
			json_t *o = json_object();
			char *skill = xasprintf("%s/SKILL.md", dir);
			char *bin = xasprintf("%s/tools/bin", dir);
			char *man = xasprintf("%s/.installed", dir);
			set_str(o, "kind", kind);
			set_str(o, "path", dir);
			describe_copy(o, skill, bin, v[i]);
			json_object_set_new(o, "manifest", json_boolean(is_reg(man)));
			json_array_append_new(installs, o);
			free(skill);
			free(bin);
			free(man);
		}
		free(name);
		free(dir);
	}
	walk_free(&l);
}

/* ---------------- JSON files: settings, plugin registries ---------------- */

/* load the JSON file at path: 1 loaded (*out), 0 absent, -1 unreadable
 * ("cannot read: REASON") or malformed ("LINE:COL: text"); *err malloc'd */
static int load_json(const char *path, json_t **out, char **err)
{
	char *data;
	size_t len;
	json_error_t je;
	struct stat st;

	*out = NULL;
	*err = NULL;
	if (stat(path, &st) != 0 && errno == ENOENT)
		return 0;
	if (read_regular_file(path, MAX_TEXT, &data, &len) != 0) {
		*err = xasprintf("cannot read: %s", strerror(errno));
		return -1;
	}
	*out = json_loadb(data, len, 0, &je);
	free(data);
	if (!*out) {
		*err = xasprintf("%d:%d: %s", je.line > 0 ? je.line : 1,
		                 je.column > 0 ? je.column : 1, je.text);
		return -1;
	}
	if (!json_is_object(*out)) {
		json_decref(*out);
		*out = NULL;
		*err = xstrdup("1:1: the top level is not an object");
		return -1;
	}
	return 1;
}

static json_t *read_settings(const char *scope, const char *path)
{
	json_t *o = json_object(), *j, *perms, *ep, *keep = json_object();
	char *err;
	static const char *const lists[] = {"allow", "ask", "deny"};
	int r = load_json(path, &j, &err), k;

	set_str(o, "scope", scope);
	set_str(o, "path", path);
	json_object_set_new(o, "present", json_boolean(r != 0));
	set_str(o, "error", err);
	free(err);
	perms = r > 0 ? json_object_get(j, "permissions") : NULL;
	if (perms && !json_is_object(perms))
		perms = NULL;
	set_str(o, "default_mode",
	        perms ? json_string_value(json_object_get(perms, "defaultMode")) : NULL);
	for (k = 0; k < 3; k++) {
		json_t *a = json_array(), *src = perms ? json_object_get(perms, lists[k]) : NULL,
		       *x;
		size_t i;
		json_array_foreach(src, i, x)
			if (json_is_string(x))
				add_unique(a, json_string_value(x));
		json_object_set_new(o, lists[k], a);
	}
	ep = r > 0 ? json_object_get(j, "enabledPlugins") : NULL;
	if (json_is_object(ep)) {
		const char *id;
		json_t *x;
		json_object_foreach(ep, id, x)
			if (strncmp(id, SETUP_SKILL "@", strlen(SETUP_SKILL) + 1) == 0 &&
			    json_is_boolean(x))
				json_object_set(keep, id, x);
	}
	json_object_set_new(o, "enabled_plugins", keep);
	if (j)
		json_decref(j);
	return o;
}

/* ---------------- plugins ---------------- */

/* enabledPlugins[id] of the settings files, highest scope first */
static json_t *plugin_enabled(const json_t *files, const char *id,
                              const char **by)
{
	static const char *const order[] = {"local", "project", "user"};
	size_t k, i;
	json_t *f;
	*by = NULL;
	for (k = 0; k < 3; k++)
		json_array_foreach(files, i, f) {
			json_t *v;
			if (strcmp(get_str(f, "scope"), order[k]) != 0)
				continue;
			v = json_object_get(json_object_get(f, "enabled_plugins"), id);
			if (json_is_boolean(v)) {
				*by = order[k];
				return v;
			}
		}
	return NULL;
}

static char *plugin_manifest_name(const char *dir)
{
	char *p = xasprintf("%s/.claude-plugin/plugin.json", dir), *err, *r = NULL;
	json_t *j;
	if (load_json(p, &j, &err) > 0) {
		const char *n = get_str(j, "name");
		r = n ? xstrdup(n) : NULL;
		json_decref(j);
	}
	free(err);
	free(p);
	return r;
}

/* the source of marketplace m in known_marketplaces.json, as text */
static char *marketplace_source(const json_t *known, const char *m)
{
	const json_t *e = json_object_get(known, m), *s;
	const char *keys[] = {"repo", "url", "path"};
	size_t k;
	if (!e)
		return NULL;
	s = json_object_get(e, "source");
	for (k = 0; k < 3; k++)
		if (get_str(s, keys[k]))
			return xstrdup(get_str(s, keys[k]));
	return get_str(e, "installLocation") ? xstrdup(get_str(e, "installLocation"))
	                                     : NULL;
}

static void scan_plugin_entry(json_t *installs, const char *id,
                              const json_t *e, const json_t *files,
                              const json_t *known)
{
	const char *path = get_str(e, "installPath"), *by;
	size_t nl = strcspn(id, "@");
	char *pm, *skill, *bin, *src;
	json_t *o, *p, *en;

	if (!path)
		return;
	pm = plugin_manifest_name(path);
	if (!(nl == strlen(SETUP_SKILL) && strncmp(id, SETUP_SKILL, nl) == 0) &&
	    !(pm && strcmp(pm, SETUP_SKILL) == 0)) {
		free(pm);
		return;
	}
	free(pm);
	o = json_object();
	p = json_object();
	set_str(o, "kind", "plugin");
	set_str(o, "path", path);
	/* the plugin's skill: SKILL.md at its root (this repository's
	 * layout), else skills/metal-kernel/SKILL.md */
	skill = xasprintf("%s/SKILL.md", path);
	if (!is_reg(skill)) {
		free(skill);
		skill = xasprintf("%s/skills/%s/SKILL.md", path, SETUP_SKILL);
	}
	bin = xasprintf("%s/tools/bin", path);
	describe_copy(o, skill, bin, SETUP_SKILL);
	json_object_set_new(o, "manifest", json_false());
	free(skill);
	free(bin);
	set_str(p, "id", id);
	set_str(p, "scope", get_str(e, "scope") ? get_str(e, "scope") : "user");
	set_str(p, "project_path", get_str(e, "projectPath"));
	set_str(p, "registry_version", get_str(e, "version"));
	en = plugin_enabled(files, id, &by);
	json_object_set_new(p, "enabled", en ? json_incref(en) : json_null());
	set_str(p, "enabled_by", by);
	set_str(p, "marketplace", id[nl] == '@' ? id + nl + 1 : NULL);
	src = id[nl] == '@' ? marketplace_source(known, id + nl + 1) : NULL;
	set_str(p, "marketplace_source", src);
	free(src);
	json_object_set_new(o, "plugin", p);
	json_array_append_new(installs, o);
}

static json_t *scan_plugins(json_t *installs, const char *home,
                            const json_t *files)
{
	json_t *reg = json_object(), *j = NULL, *known = NULL, *plugins, *v;
	char *path = xasprintf("%s/.claude/plugins/installed_plugins.json", home);
	char *kpath = xasprintf("%s/.claude/plugins/known_marketplaces.json", home);
	char *err, *kerr;
	const char *id;
	int r = load_json(path, &j, &err);

	load_json(kpath, &known, &kerr);
	set_str(reg, "path", path);
	json_object_set_new(reg, "present", json_boolean(r != 0));
	set_str(reg, "error", err);
	plugins = j ? json_object_get(j, "plugins") : NULL;
	if (j && !json_is_object(plugins))
		set_str(reg, "error", "1:1: no \"plugins\" object");
	if (json_is_object(plugins))
		json_object_foreach(plugins, id, v) {
			if (json_is_array(v)) {
				size_t i;
				json_t *e;
				json_array_foreach(v, i, e) scan_plugin_entry(installs, id, e, files,
				                                              known);
			} else if (json_is_object(v)) {
				scan_plugin_entry(installs, id, v, files, known);
			}
		}
	if (j)
		json_decref(j);
	if (known)
		json_decref(known);
	free(err);
	free(kerr);
	free(path);
	free(kpath);
	return reg;
}

/* ---------------- states: which copy loads ---------------- */

static int same_path(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];
	if (!a || !b)
		return 0;
	if (strcmp(a, b) == 0)
		return 1;
	return realpath(a, ra) && realpath(b, rb) && strcmp(ra, rb) == 0;
}

static void set_state(json_t *o, const char *state, const char *fmt, ...)
{
	va_list ap;
	set_str(o, "state", state);
	va_start(ap, fmt);
	json_object_set_new(o, "why", json_vsprintf(fmt, ap));
	va_end(ap);
}

static int loadable(const json_t *o)
{
	const char *n = get_str(o, "name");
	return get_str(o, "skill_md") && n && strcmp(n, SETUP_SKILL) == 0;
}

static json_t *assign_states(json_t *installs, const char *root)
{
	const json_t *win = NULL, *first_plugin = NULL;
	static const char *const order[] = {"user", "project"};
	size_t i, k;
	json_t *o, *lf;

	/* personal overrides project (setup.h); the first folder in byte order
	 * within one scope (the client's choice there is not documented) */
	for (k = 0; k < 2 && !win; k++)
		json_array_foreach(installs, i, o)
			if (!strcmp(get_str(o, "kind"), order[k]) && loadable(o)) {
				win = o;
				break;
			}
	json_array_foreach(installs, i, o) {
		const char *kind = get_str(o, "kind");
		if (strcmp(kind, "plugin") == 0) {
			const json_t *p = json_object_get(o, "plugin");
			const char *scope = get_str(p, "scope"), *pp = get_str(p, "project_path");
			json_t *en = json_object_get(p, "enabled");
			if (!is_dir(get_str(o, "path")))
				set_state(o, "missing", "the registry's installPath does not exist");
			else if (scope && (!strcmp(scope, "project") || !strcmp(scope, "local")) &&
			         !(root && same_path(pp, root)))
				set_state(o, "other-project", "installed with scope %s for %s",
				          scope, pp ? pp : "another project");
			else if (json_is_false(en))
				set_state(o, "disabled", "enabledPlugins sets it false in the %s settings",
				          get_str(p, "enabled_by"));
			else if (!en)
				set_state(o, "not-enabled", "no settings file lists it in enabledPlugins");
			else if (!get_str(o, "skill_md"))
				set_state(o, "not-loaded", "the plugin holds no SKILL.md");
			else {
				set_state(o, "beside", "loads as %s:%s%s", SETUP_SKILL, SETUP_SKILL,
				          win ? ", beside the standalone skill" : "");
				if (!first_plugin)
					first_plugin = o;
			}
			continue;
		}
		if (!get_str(o, "skill_md"))
			set_state(o, "not-loaded", "no SKILL.md: the client loads nothing from it");
		else if (!loadable(o))
			set_state(o, "other-name", "its frontmatter names the skill '%s'",
			          get_str(o, "name") ? get_str(o, "name") : "");
		else if (o == win)
			set_state(o, "loaded", "%s",
			          strcmp(kind, "user") == 0
			                  ? "personal skills come before project skills"
			                  : "no personal copy comes before it");
		else if (strcmp(get_str(win, "kind"), kind) != 0)
			set_state(o, "shadowed", "the %s copy at %s has the same name and comes first",
			          get_str(win, "kind"), get_str(win, "path"));
		else
			set_state(o, "shadowed",
			          "another %s copy (%s) has the same name; which one a client "
			          "picks within one scope is not documented",
			          kind, get_str(win, "path"));
	}
	if (!win)
		win = first_plugin;
	if (!win)
		return json_null();
	lf = json_object();
	set_str(lf, "kind", get_str(win, "kind"));
	set_str(lf, "path", get_str(win, "path"));
	return lf;
}

/* matches / differs / this_build of every install against the build */
static void compare_to_build(json_t *installs, const json_t *build)
{
	size_t i;
	json_t *o;
	const json_t *bt = json_object_get(build, "tools");
	json_array_foreach(installs, i, o) {
		json_t *it = json_object_get(o, "tools"), *differs = json_array(), *x;
		const char *name, *m;
		const char *bs = get_str(build, "skill_md"), *is = get_str(o, "skill_md");
		int same_src;
		if ((bs || is) && !(bs && is && strcmp(bs, is) == 0))
			add_unique(differs, "SKILL.md");
		json_object_foreach((json_t *)bt, name, x) {
			const char *c = json_string_value(json_object_get(it, name));
			char *s;
			if (!c)
				s = xasprintf("%s (missing)", name);
			else if (strcmp(c, json_string_value(x)) != 0)
				s = xstrdup(name);
			else
				continue;
			add_unique(differs, s);
			free(s);
		}
		json_object_foreach(it, name, x)
			if (!json_object_get(bt, name)) {
				char *s = xasprintf("%s (not in this build)", name);
				add_unique(differs, s);
				free(s);
			}
		same_src = get_str(o, "sources") && get_str(build, "sources") &&
		           !strcmp(get_str(o, "sources"), get_str(build, "sources")) &&
		           get_str(o, "version") && get_str(build, "version") &&
		           !strcmp(get_str(o, "version"), get_str(build, "version"));
		if (!get_str(build, "checksum"))
			m = "unknown";
		else if (json_array_size(differs) == 0)
			m = "identical";
		else {
			/* only rebuilt: the same tools from the same sources and
			 * version, and the same SKILL.md, with other bytes */
			int only_crc = same_src;
			size_t j;
			json_array_foreach(differs, j, x)
				if (strchr(json_string_value(x), '(') ||
				    !strcmp(json_string_value(x), "SKILL.md"))
					only_crc = 0;
			m = only_crc ? "same-sources" : "differs";
		}
		set_str(o, "matches", m);
		json_object_set_new(o, "differs", differs);
		json_object_set_new(o, "this_build",
		                    json_boolean(same_path(get_str(o, "path"),
		                                           get_str(build, "path"))));
	}
}

/* ---------------- permissions in effect ---------------- */

static int mode_rank(const char *m)
{
	if (!m || !strcmp(m, "default"))
		return 2;
	if (!strcmp(m, "plan"))
		return 0;
	if (!strcmp(m, "dontAsk"))
		return 1;
	if (!strcmp(m, "acceptEdits"))
		return 3;
	if (!strcmp(m, "bypassPermissions"))
		return 4;
	return -1;
}

/* the first rule of list kind (allow/ask/deny) in any file that passes
 * test(rule, arg); *scope its file's scope */
static const char *find_rule(const json_t *files, const char *kind,
                             int (*test)(const char *, const void *),
                             const void *arg, const char **scope)
{
	size_t i, j;
	json_t *f, *r;
	json_array_foreach(files, i, f)
		json_array_foreach(json_object_get(f, kind), j, r)
			if (test(json_string_value(r), arg)) {
				*scope = get_str(f, "scope");
				return json_string_value(r);
			}
	return NULL;
}

static int t_tool(const char *r, const void *name)
{
	return rule_covers_tool(r, name);
}
static int t_class(const char *r, const void *cls)
{
	return strcmp(setup_rule_class(r, NULL), cls) == 0;
}
static int t_edit(const char *r, const void *unused)
{
	const char *c = setup_rule_class(r, NULL);
	(void)unused;
	return !strcmp(c, "edit") || !strcmp(c, "edit-any");
}

static void state_obj(json_t *parent, const char *key, const char *state,
                      const char *scope, const char *rule)
{
	json_t *o = json_object();
	set_str(o, "state", state);
	if (rule) {
		char *by = xasprintf("%s: %s", scope, rule);
		set_str(o, "by", by);
		free(by);
	} else {
		set_str(o, "by", NULL);
	}
	json_object_set_new(parent, key, o);
}

/* every rule of class cls (or, for "edit", edit and edit-any) in list
 * kind, as "SCOPE: RULE" */
static json_t *rules_of(const json_t *files, const char *kind, const char *cls)
{
	json_t *a = json_array(), *f, *r;
	size_t i, j;
	json_array_foreach(files, i, f)
		json_array_foreach(json_object_get(f, kind), j, r) {
			const char *c = setup_rule_class(json_string_value(r), NULL);
			if (!strcmp(c, cls) || (!strcmp(cls, "edit") && !strcmp(c, "edit-any"))) {
				char *s = xasprintf("%s: %s", get_str(f, "scope"), json_string_value(r));
				json_array_append_new(a, json_string(s));
				free(s);
			}
		}
	return a;
}

static json_t *effective(const json_t *files, const json_t *tool_names)
{
	static const char *const order[] = {"local", "project", "user"};
	json_t *e = json_object(), *tools = json_object(), *f, *x,
	       *bash = rules_of(files, "allow", "bash");
	const char *mode = NULL, *scope = NULL, *rule;
	size_t i, k;

	for (k = 0; k < 3 && !mode; k++)
		json_array_foreach(files, i, f)
			if (!strcmp(get_str(f, "scope"), order[k]) && get_str(f, "default_mode")) {
				mode = get_str(f, "default_mode");
				break;
			}
	set_str(e, "default_mode", mode ? mode : "default");
	json_array_foreach(tool_names, i, x) {
		const char *n = json_string_value(x);
		if ((rule = find_rule(files, "deny", t_tool, n, &scope)))
			state_obj(tools, n, "deny", scope, rule);
		else if ((rule = find_rule(files, "ask", t_tool, n, &scope)))
			state_obj(tools, n, "ask", scope, rule);
		else if ((rule = find_rule(files, "allow", t_tool, n, &scope)))
			state_obj(tools, n, "allow", scope, rule);
		else if (mode && !strcmp(mode, "bypassPermissions"))
			state_obj(tools, n, "allow", "defaultMode", mode);
		else
			state_obj(tools, n, "ask", NULL, NULL);
	}
	json_object_set_new(e, "tools", tools);

	if ((rule = find_rule(files, "deny", t_class, "bash-any", &scope)))
		state_obj(e, "bash", "deny", scope, rule);
	else if ((rule = find_rule(files, "allow", t_class, "bash-any", &scope)))
		state_obj(e, "bash", "any", scope, rule);
	else if (mode && !strcmp(mode, "bypassPermissions"))
		state_obj(e, "bash", "any", "defaultMode", mode);
	else
		state_obj(e, "bash", json_array_size(bash) ? "some" : "ask", NULL, NULL);
	json_object_set_new(json_object_get(e, "bash"), "allow", bash);

	if ((rule = find_rule(files, "deny", t_class, "edit-any", &scope)))
		state_obj(e, "edit", "deny", scope, rule);
	else if ((rule = find_rule(files, "allow", t_class, "edit-any", &scope)))
		state_obj(e, "edit", "any", scope, rule);
	else if (mode && (!strcmp(mode, "acceptEdits") || !strcmp(mode, "bypassPermissions")))
		state_obj(e, "edit", "any", "defaultMode", mode);
	else if ((rule = find_rule(files, "allow", t_edit, NULL, &scope)))
		state_obj(e, "edit", "some", NULL, NULL);
	else
		state_obj(e, "edit", "ask", NULL, NULL);
	json_object_set_new(json_object_get(e, "edit"), "allow",
	                    rules_of(files, "allow", "edit"));
	return e;
}

/* ---------------- the tree ---------------- */

static int test_define(const char *m, size_t len, const void *macro)
{
	return mr_text_defines_macro(m, len, macro);
}
static int test_use(const char *m, size_t len, const void *macro)
{
	return mr_text_uses_macro(m, len, macro);
}
static int test_exec(const char *m, size_t len, const void *binary)
{
	return mr_text_has_exec(m, len, *(const int *)binary);
}

static const char *const hdr_sufs[] = {".h", NULL};
static const char *const metal_sufs[] = {".metal", NULL};
static const char *const host_sufs[] = {".h", ".hpp", ".mm", ".m", ".cpp", ".cc", NULL};

static int rel_exists(const char *root, const char *rel, int dir)
{
	char *p = xasprintf("%s/%s", root, rel);
	int r = dir ? is_dir(p) : is_reg(p);
	free(p);
	return r;
}

static json_t *verdict(const char *works, const char *why)
{
	json_t *o = json_object();
	set_str(o, "works", works);
	set_str(o, "why", why);
	return o;
}

static json_t *scan_tree(const char *root)
{
	json_t *t = json_object(), *macros = json_object(), *exec = json_object(),
	       *tools = json_object();
	char *data, *kdir = xasprintf("%s", MPS_KERNELS_REL);
	size_t len;
	int c10, mps, k, nfound = 0, nexec = 0, binary;
	char *vpath = xasprintf("%s/version.txt", root);
	const char *macro_list[5];
	struct buf why;
	int kind_ok[4], host_ok[2], nkind = 0;

	set_str(t, "root", root);
	if (read_regular_file(vpath, 4096, &data, &len) == 0) {
		size_t n = 0;
		while (n < len && token_byte(data[n]))
			n++;
		data[n] = '\0';
		set_str(t, "version", n ? data : NULL);
		free(data);
	} else {
		set_str(t, "version", NULL);
	}
	free(vpath);
	c10 = rel_exists(root, "c10/metal", 1);
	mps = rel_exists(root, MPS_DIR_REL, 1);
	json_object_set_new(t, "c10_metal", json_boolean(c10));
	json_object_set_new(t, "mps_sources", json_boolean(mps));

	/* the core macros: #defined in a c10/metal header, or used in a kernel file */
	for (k = 0; k < 4; k++)
		macro_list[k] = mr_kind_macro(k);
	macro_list[4] = "REGISTER_OPMATH_BINARY_OP";
	for (k = 0; k < 5; k++) {
		json_t *m = json_object();
		char *def = c10 ? first_source_file(root, "c10/metal", 0, hdr_sufs,
		                                    macro_list[k], test_define,
		                                    macro_list[k])
		                : NULL;
		char *use = first_source_file(root, kdir, 0, metal_sufs,
		                              macro_list[k], test_use, macro_list[k]);
		set_str(m, "defined", def);
		set_str(m, "used", use);
		if (def || use)
			nfound++;
		json_object_set_new(macros, macro_list[k], m);
		free(def);
		free(use);
	}
	json_object_set_new(t, "macros", macros);
	for (binary = 0; binary < 2; binary++) {
		const char *name = binary ? "exec_binary_kernel" : "exec_unary_kernel";
		char *f = mps ? first_source_file(root, MPS_DIR_REL, WALK_MAX_DEPTH,
		                                  host_sufs, name, test_exec, &binary)
		              : NULL;
		set_str(exec, name, f);
		if (f)
			nexec++;
		free(f);
	}
	json_object_set_new(t, "exec", exec);
	json_object_set_new(t, "common_mps",
	                    json_boolean(rel_exists(root, COMMON_MPS_REL, 0)));
	json_object_set_new(t, "test_mps", json_boolean(rel_exists(root, TEST_MPS_REL, 0)));

	/* mps-register, kind by kind, as it decides (mps-register --help):
	 * the kernel file exists and the kind's macro is used there or
	 * #defined in c10/metal; --host needs lib.exec_*_kernel */
	for (k = 0; k < 4; k++) {
		int bin = k >= MR_BINARY;
		char *kf = xasprintf("%s/%s", kdir, bin ? "BinaryKernel.metal" : "UnaryKernel.metal");
		json_t *m = json_object_get(macros, mr_kind_macro(k));
		char *kp = xasprintf("%s/%s", root, kf);
		kind_ok[k] = is_reg(kp) &&
		             (get_str(m, "defined") ||
		              source_file_test(kp, mr_kind_macro(k), test_use,
		                               mr_kind_macro(k)));
		nkind += kind_ok[k];
		free(kf);
		free(kp);
	}
	host_ok[0] = get_str(exec, "exec_unary_kernel") != NULL;
	host_ok[1] = get_str(exec, "exec_binary_kernel") != NULL;

	if (!mps && !c10)
		set_str(t, "era", "unknown");
	else if (nkind == 4 && nexec == 2)
		set_str(t, "era", "c10/metal");
	else if (nfound == 0 && nexec == 0)
		set_str(t, "era", "pre-c10/metal");
	else
		set_str(t, "era", "partial");

	{
		/* the C++ sources beside the yaml name the stubs (read/stubs.h) */
		static const char *const cpp[] = {".cpp", NULL};
		struct walk_list l;
		int sources = walk_files(root, "aten/src/ATen/native", 0, NULL, cpp,
		                         &l) == 0 && l.n > 0;
		if (sources)
			walk_free(&l);
		json_object_set_new(tools, "mps-overloads",
		                    sources ? verdict("yes", "every field (the stubs from "
		                                             "the C++ sources)")
		                            : verdict("yes", "no C++ sources: the stubs "
		                                             "field is null"));
		json_object_set_new(tools, "mps-dispatch",
		                    sources ? verdict("yes", "structured rows, and rows "
		                                             "whose shared kernel reaches "
		                                             "stubs (the C++ sources)")
		                            : verdict("partly", "structured rows only: no "
		                                                "C++ sources to tell the "
		                                                "stubs of the others"));
	}
	buf_init(&why);
	if (nkind == 4 && host_ok[0] && host_ok[1]) {
		json_object_set_new(tools, "mps-register",
		                    verdict("yes", "every kind, and --host"));
	} else if (!mps && !c10) {
		json_object_set_new(tools, "mps-register",
		                    verdict("no", "the tree holds neither MPS sources (" MPS_DIR_REL
		                                  "/) nor c10/metal/"));
	} else if (nkind == 0 && !host_ok[0] && !host_ok[1]) {
		json_object_set_new(tools, "mps-register",
		                    verdict("no", "the tree predates the c10/metal kernels: no "
		                                  "REGISTER_*_OP macro of mps-register's kinds "
		                                  "is used in the kernel files or #defined in "
		                                  "c10/metal/, and no lib.exec_unary_kernel or "
		                                  "lib.exec_binary_kernel under " MPS_DIR_REL "/"));
	} else {
		const char *sep = "";
		for (k = 0; k < 4; k++)
			if (!kind_ok[k]) {
				buf_printf(&why, "%sno %s (%s not found)", sep, mr_kind_name(k),
				           mr_kind_macro(k));
				sep = "; ";
			}
		for (k = 0; k < 2; k++)
			if (!host_ok[k]) {
				buf_printf(&why, "%sno --host for %s kinds (no lib.%s)", sep,
				           k ? "binary" : "unary",
				           k ? "exec_binary_kernel" : "exec_unary_kernel");
				sep = "; ";
			}
		json_object_set_new(tools, "mps-register",
		                    verdict(nkind ? "partly" : "no", why.data));
	}
	buf_free(&why);
	if (!mps)
		json_object_set_new(tools, "mps-verify",
		                    verdict("partly", "no MPS sources under " MPS_DIR_REL
		                                      "/: only the rules on the yaml rows apply"));
	else if (rel_exists(root, COMMON_MPS_REL, 0))
		json_object_set_new(tools, "mps-verify", verdict("yes", "every rule"));
	else if (rel_exists(root, TEST_MPS_REL, 0))
		json_object_set_new(tools, "mps-verify",
		                    verdict("yes", "expected-failure lists read from " TEST_MPS_REL
		                                   " (no " COMMON_MPS_REL ")"));
	else
		json_object_set_new(tools, "mps-verify",
		                    verdict("partly", "no " COMMON_MPS_REL " nor " TEST_MPS_REL
		                                      ": expected-failure lists are not checked"));
	/* mps-migrate: the rows, the stub, the dtypes and the old path need no
	 * c10/metal; the dtypes need the C++ sources; the Metal side needs
	 * what mps-register needs */
	{
		static const char *const cpp[] = {".cpp", NULL};
		struct walk_list l;
		int sources = 0, metal = nkind == 4 && host_ok[0] && host_ok[1];
		if (walk_files(root, "aten/src/ATen/native", 0, NULL, cpp, &l) == 0) {
			sources = l.n > 0;
			walk_free(&l);
		}
		if (metal && sources)
			json_object_set_new(tools, "mps-migrate", verdict("yes", "every part"));
		else if (sources)
			json_object_set_new(tools, "mps-migrate",
			                    verdict("partly", "rows, stub, dtypes and the old "
			                                      "path; the Metal kernel and host "
			                                      "stub by hand (see mps-register)"));
		else if (metal)
			json_object_set_new(tools, "mps-migrate",
			                    verdict("partly", "no C++ sources under "
			                                      "aten/src/ATen/native: give --dtypes"));
		else
			json_object_set_new(tools, "mps-migrate",
			                    verdict("partly", "rows and the old path only: no C++ "
			                                      "sources, no c10/metal kernels"));
	}
	json_object_set_new(t, "tools", tools);
	free(kdir);
	return t;
}

/* ---------------- warnings ---------------- */

static void warn(json_t *w, const char *id, const char *fmt, ...)
{
	va_list ap;
	json_t *o = json_object();
	set_str(o, "id", id);
	va_start(ap, fmt);
	json_object_set_new(o, "text", json_vsprintf(fmt, ap));
	va_end(ap);
	json_array_append_new(w, o);
}

/* "PATH:LINE:COL: text" when err starts with a position, else "PATH: err" */
static void warn_at(json_t *w, const char *id, const char *path, const char *err)
{
	warn(w, id, isdigit((unsigned char)err[0]) ? "%s:%s" : "%s: %s", path, err);
}

static void join_array(struct buf *b, const json_t *a)
{
	size_t i;
	json_t *x;
	json_array_foreach(a, i, x)
		buf_printf(b, "%s%s", i ? ", " : "", json_string_value(x));
}

static void add_warnings(json_t *rec, const char *home)
{
	json_t *w = json_array(), *o, *x;
	const json_t *build = json_object_get(rec, "build"),
	             *perm = json_object_get(rec, "permissions"),
	             *tree = json_object_get(rec, "tree"),
	             *eff = json_object_get(perm, "effective"),
	             *arch = json_object_get(build, "arch");
	size_t i;
	int standalone = 0, plugin = 0;
	const char *mode;

	if (getenv("CLAUDE_CONFIG_DIR"))
		warn(w, "config-dir",
		     "CLAUDE_CONFIG_DIR is set: the client may read its configuration "
		     "there, while this record reads %s/.claude",
		     home ? home : "$HOME");
	if (!home)
		warn(w, "no-home", "HOME is not set: personal installs and settings were not read");
	if (json_is_true(json_object_get(arch, "translated")))
		warn(w, "rosetta",
		     "this %s build runs translated by Rosetta on an Apple silicon Mac: "
		     "build the tools natively (arm64 compiler and Homebrew libraries)",
		     get_str(arch, "binary"));
	if (!get_str(build, "path"))
		warn(w, "no-build", "the running binary was not found from argv[0] and PATH: "
		                    "installs cannot be compared with this build");
	json_array_foreach(json_object_get(rec, "installs"), i, o) {
		const char *st = get_str(o, "state"), *kind = get_str(o, "kind"),
		           *path = get_str(o, "path"), *m = get_str(o, "matches");
		const json_t *at = json_object_get(o, "allowed_tools");
		if (!strcmp(st, "loaded") || !strcmp(st, "beside")) {
			if (!strcmp(kind, "plugin"))
				plugin = 1;
			else
				standalone = 1;
		}
		if (!strcmp(st, "shadowed"))
			warn(w, "shadowed",
			     "the %s copy at %s is shadowed: %s%s", kind, path, get_str(o, "why"),
			     m && !strcmp(m, "identical") ? " (it is identical to this build)" : "");
		if ((!strcmp(st, "loaded") || !strcmp(st, "beside")) && m &&
		    strcmp(m, "identical") && strcmp(m, "unknown")) {
			struct buf b;
			buf_init(&b);
			join_array(&b, json_object_get(o, "differs"));
			warn(w, "loaded-differs",
			     "the %s copy the client loads (%s, version %s) is not this build "
			     "(%s): %s",
			     kind, path, get_str(o, "version") ? get_str(o, "version") : "unknown",
			     m, b.data ? b.data : "");
			buf_free(&b);
		}
		if (get_str(o, "skill_md") && !get_str(o, "version") &&
		    json_object_size(json_object_get(o, "tools")))
			warn(w, "no-version",
			     "the tools of the %s copy at %s carry no version marker: they "
			     "predate mps-doctor",
			     kind, path);
		if (get_str(o, "frontmatter_error"))
			warn(w, "frontmatter", "%s/SKILL.md:%s", path, get_str(o, "frontmatter_error"));
		if (at && json_is_object(at) &&
		    (json_array_size(json_object_get(at, "unlisted")) ||
		     json_array_size(json_object_get(at, "absent")))) {
			struct buf b;
			buf_init(&b);
			if (json_array_size(json_object_get(at, "unlisted"))) {
				buf_puts(&b, "tools not in allowed-tools: ");
				join_array(&b, json_object_get(at, "unlisted"));
			}
			if (json_array_size(json_object_get(at, "absent"))) {
				buf_puts(&b, b.len ? "; " : "");
				buf_puts(&b, "allowed-tools names missing tools: ");
				join_array(&b, json_object_get(at, "absent"));
			}
			warn(w, "allowed-tools", "%s/SKILL.md: %s", path, b.data);
			buf_free(&b);
		}
	}
	if (standalone && plugin)
		warn(w, "two-copies",
		     "both a standalone copy (%s) and the plugin (%s:%s) load: the agent "
		     "sees two skills with the same instructions",
		     SETUP_SKILL, SETUP_SKILL, SETUP_SKILL);
	json_array_foreach(json_object_get(perm, "files"), i, o)
		if (get_str(o, "error"))
			warn_at(w, "settings", get_str(o, "path"), get_str(o, "error"));
	{
		const json_t *reg = json_object_get(rec, "plugin_registry");
		if (get_str(reg, "error"))
			warn_at(w, "plugin-registry", get_str(reg, "path"), get_str(reg, "error"));
	}
	mode = get_str(eff, "default_mode");
	if (mode && !strcmp(mode, "bypassPermissions"))
		warn(w, "bypass", "defaultMode is bypassPermissions: every tool runs without asking");
	x = json_object_get(eff, "bash");
	if (!strcmp(get_str(x, "state"), "any"))
		warn(w, "bash-any", "any Bash command is allowed (%s)", get_str(x, "by"));
	json_object_foreach(json_object_get(eff, "tools"), mode, x)
		if (!strcmp(get_str(x, "state"), "deny"))
			warn(w, "tool-denied", "%s is denied (%s)", mode, get_str(x, "by"));
	if (!tree || json_is_null(tree)) {
		warn(w, "no-checkout", "no PyTorch checkout: the tree and the project's "
		                       "installs and settings were not read (use --root DIR)");
	} else {
		const char *era = get_str(tree, "era");
		const json_t *r = json_object_get(json_object_get(tree, "tools"), "mps-register");
		if (strcmp(get_str(r, "works"), "yes"))
			warn(w, "tree-era", "mps-register %s on this tree (era %s): %s",
			     !strcmp(get_str(r, "works"), "no") ? "cannot work" : "works only in part",
			     era, get_str(r, "why"));
	}
	json_object_set_new(rec, "warnings", w);
}

/* ---------------- the record ---------------- */

json_t *setup_record(const struct setup_opts *o)
{
	json_t *rec = json_object(), *build, *installs = json_array(), *files = json_array(),
	       *perm = json_object(), *names = json_array(), *x, *reg;
	const char *name;
	size_t i, j;
	char *s;

	json_object_set_new(rec, "format", json_integer(SETUP_FORMAT));
	s = xasprintf("mps-doctor %s", MK_VERSION);
	set_str(rec, "doctor", s);
	free(s);
	build = scan_build(o->argv0);
	json_object_set_new(rec, "build", build);

	/* settings first: plugins need enabledPlugins */
	if (o->home) {
		s = xasprintf("%s/.claude/settings.json", o->home);
		json_array_append_new(files, read_settings("user", s));
		free(s);
	}
	if (o->root) {
		s = xasprintf("%s/.claude/settings.json", o->root);
		json_array_append_new(files, read_settings("project", s));
		free(s);
		s = xasprintf("%s/.claude/settings.local.json", o->root);
		json_array_append_new(files, read_settings("local", s));
		free(s);
	}

	if (o->home) {
		s = xasprintf("%s/.claude/skills", o->home);
		scan_scope(installs, "user", s);
		free(s);
	}
	if (o->root) {
		s = xasprintf("%s/.claude/skills", o->root);
		scan_scope(installs, "project", s);
		free(s);
	}
	reg = o->home ? scan_plugins(installs, o->home, files) : json_null();
	compare_to_build(installs, build);
	json_object_set_new(rec, "loads_first", assign_states(installs, o->root));
	json_object_set_new(rec, "installs", installs);
	json_object_set_new(rec, "plugin_registry", reg);

	/* the tool names whose permissions are shown: this build's, and any
	 * a rule names */
	json_object_foreach(json_object_get(build, "tools"), name, x) add_unique(names, name);
	json_array_foreach(files, i, x) {
		static const char *const lists[] = {"allow", "ask", "deny"};
		int k;
		for (k = 0; k < 3; k++) {
			json_t *r;
			json_array_foreach(json_object_get(x, lists[k]), j, r) {
				char *t;
				setup_rule_class(json_string_value(r), &t);
				if (t && strcmp(t, "mps-*"))
					add_unique(names, t);
				free(t);
			}
		}
	}
	json_object_set_new(perm, "files", files);
	json_object_set_new(perm, "effective", effective(files, names));
	json_decref(names);
	json_object_set_new(rec, "permissions", perm);
	json_object_set_new(rec, "tree", o->root ? scan_tree(o->root) : json_null());
	add_warnings(rec, o->home);
	return rec;
}

/* ---------------- validation of a saved record ---------------- */

static int each_has(const json_t *a, const char *k1, const char *k2)
{
	size_t i;
	json_t *x;
	json_array_foreach(a, i, x)
		if (!json_is_object(x) || !get_str(x, k1) || !get_str(x, k2))
			return 0;
	return 1;
}

int setup_validate(const json_t *rec, char **why)
{
	const json_t *f, *perm, *tree;
	*why = NULL;
	if (!json_is_object(rec)) {
		*why = xstrdup("the top level is not an object");
		return -1;
	}
	f = json_object_get(rec, "format");
	if (!json_is_integer(f)) {
		*why = xstrdup("no \"format\": not a record of mps-doctor");
		return -1;
	}
	if (json_integer_value(f) != SETUP_FORMAT) {
		*why = xasprintf("the record has format %lld; this mps-doctor reads format %d",
		                 (long long)json_integer_value(f), SETUP_FORMAT);
		return -1;
	}
	perm = json_object_get(rec, "permissions");
	tree = json_object_get(rec, "tree");
	if (!json_is_object(json_object_get(rec, "build")) ||
	    !json_is_array(json_object_get(rec, "installs")) ||
	    !each_has(json_object_get(rec, "installs"), "kind", "path") ||
	    !json_is_object(perm) || !json_is_array(json_object_get(perm, "files")) ||
	    !each_has(json_object_get(perm, "files"), "scope", "path") ||
	    !(json_is_null(tree) || json_is_object(tree))) {
		*why = xstrdup("the record lacks \"build\", \"installs\", \"permissions\" "
		               "or \"tree\", or one of them has the wrong shape");
		return -1;
	}
	return 0;
}

/* ---------------- comparison ---------------- */

struct dlist {
	struct setup_diff *v;
	size_t n, cap;
};

/* a value as text: strings as they are, null "none", booleans yes/no */
static char *vtext(const json_t *v)
{
	if (!v || json_is_null(v))
		return NULL;
	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	if (json_is_true(v))
		return xstrdup("yes");
	if (json_is_false(v))
		return xstrdup("no");
	{
		char *d = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY), *r;
		r = xstrdup(d ? d : "?");
		free(d);
		return r;
	}
}

static void add_diff(struct dlist *l, const char *section, const char *subject,
                     const char *change, const char *was, const char *now,
                     const char *extra)
{
	struct setup_diff *d;
	struct buf b;
	if (l->n == l->cap)
		l->v = xrealloc(l->v, (l->cap = l->cap ? l->cap * 2 : 16) * sizeof *l->v);
	d = &l->v[l->n++];
	d->section = xstrdup(section);
	d->subject = xstrdup(subject);
	d->change = xstrdup(change);
	d->was = was ? xstrdup(was) : NULL;
	d->now = now ? xstrdup(now) : NULL;
	buf_init(&b);
	buf_printf(&b, "%s: %s: ", section, subject);
	if (!strcmp(change, "added") || (!was && now))
		buf_printf(&b, "added %s", now ? now : "");
	else if (!strcmp(change, "removed") || (was && !now))
		buf_printf(&b, "removed %s", was ? was : "");
	else
		buf_printf(&b, "%s -> %s", was ? was : "none", now ? now : "none");
	if (!strcmp(change, "widened") || !strcmp(change, "narrowed"))
		buf_printf(&b, " (%s)", change);
	if (extra)
		buf_printf(&b, " (%s)", extra);
	d->text = b.data ? b.data : xstrdup("");
}

/* compare a[k] and b[k]; record a "changed" diff when they differ */
static void cmp_field(struct dlist *l, const char *section, const char *subject,
                      const json_t *a, const json_t *b, const char *k)
{
	const json_t *x = json_object_get(a, k), *y = json_object_get(b, k);
	char *s, *t;
	if ((!x || json_is_null(x)) && (!y || json_is_null(y)))
		return;
	if (x && y && json_equal((json_t *)x, (json_t *)y))
		return;
	s = vtext(x);
	t = vtext(y);
	add_diff(l, section, subject, "changed", s ? s : "none", t ? t : "none", NULL);
	free(s);
	free(t);
}

/* cmp_field with the subject "NAME WHAT" */
static void cmp_named(struct dlist *l, const char *section, const char *name,
                      const char *what, const json_t *a, const json_t *b,
                      const char *k)
{
	char *s = xasprintf("%s %s", name, what);
	cmp_field(l, section, s, a, b, k);
	free(s);
}

/* the names of the tools (and SKILL.md) whose checksums differ */
static char *which_differ(const json_t *a, const json_t *b)
{
	struct buf r;
	const json_t *ta = json_object_get(a, "tools"), *tb = json_object_get(b, "tools");
	const char *name;
	json_t *x;
	const char *sa = get_str(a, "skill_md"), *sb = get_str(b, "skill_md");
	buf_init(&r);
	if ((sa || sb) && !(sa && sb && !strcmp(sa, sb)))
		buf_puts(&r, "SKILL.md");
	json_object_foreach((json_t *)ta, name, x) {
		const json_t *y = json_object_get(tb, name);
		if (!y || !json_equal(x, (json_t *)y))
			buf_printf(&r, "%s%s", r.len ? ", " : "", name);
	}
	json_object_foreach((json_t *)tb, name, x)
		if (!json_object_get(ta, name))
			buf_printf(&r, "%s%s", r.len ? ", " : "", name);
	if (!r.len) {
		buf_free(&r);
		return NULL;
	}
	{
		char *s = xasprintf("differs in %s", r.data);
		buf_free(&r);
		return s;
	}
}

static void cmp_checksum(struct dlist *l, const char *section, const char *subject,
                         const json_t *a, const json_t *b)
{
	const char *x = get_str(a, "checksum"), *y = get_str(b, "checksum");
	char *extra;
	if ((!x && !y) || (x && y && !strcmp(x, y)))
		return;
	extra = which_differ(a, b);
	add_diff(l, section, subject, "changed", x ? x : "none", y ? y : "none", extra);
	free(extra);
}

static void cmp_build(struct dlist *l, const json_t *a, const json_t *b)
{
	static const char *const keys[] = {"path", "version", "sources", "skill_md",
	                                   "compiler"};
	static const char *const akeys[] = {"binary", "system", "machine", "translated"};
	size_t k, i, j;
	const json_t *la = json_object_get(a, "libraries"), *lb = json_object_get(b, "libraries");
	json_t *x, *y;
	char sub[96];

	for (k = 0; k < 5; k++) {
		snprintf(sub, sizeof sub, "%s", keys[k]);
		if (!strcmp(keys[k], "skill_md"))
			snprintf(sub, sizeof sub, "SKILL.md checksum");
		cmp_field(l, "build", sub, a, b, keys[k]);
		if (k == 3) /* the tools' checksum after SKILL.md's */
			cmp_checksum(l, "build", "checksum", a, b);
	}
	for (k = 0; k < 4; k++) {
		snprintf(sub, sizeof sub, "architecture %s", akeys[k]);
		cmp_field(l, "build", sub, json_object_get(a, "arch"), json_object_get(b, "arch"),
		          akeys[k]);
	}
	json_array_foreach(la, i, x) {
		const char *n = get_str(x, "name");
		const json_t *m = NULL;
		json_array_foreach(lb, j, y)
			if (n && get_str(y, "name") && !strcmp(n, get_str(y, "name")))
				m = y;
		if (!m || !n)
			continue;
		snprintf(sub, sizeof sub, "%s running", n);
		cmp_field(l, "build", sub, x, m, "running");
		snprintf(sub, sizeof sub, "%s built against", n);
		cmp_field(l, "build", sub, x, m, "built");
		snprintf(sub, sizeof sub, "%s JIT", n);
		cmp_field(l, "build", sub, x, m, "jit");
	}
}

static const json_t *find_install(const json_t *list, const json_t *o)
{
	size_t i;
	json_t *x;
	json_array_foreach(list, i, x)
		if (!strcmp(get_str(x, "kind"), get_str(o, "kind")) &&
		    !strcmp(get_str(x, "path"), get_str(o, "path")))
			return x;
	return NULL;
}

static char *install_summary(const json_t *o)
{
	const char *v = get_str(o, "version"), *s = get_str(o, "state");
	return xasprintf("version %s, %s", v ? v : "unknown", s ? s : "unknown state");
}

/* rule-set differences of list k between a and b (objects with arrays
 * under k); direction: widened when an element appears in a granting list
 * (grant 1) or leaves a restricting one (grant 0) */
static void cmp_set(struct dlist *l, const char *section, const char *subject,
                    const json_t *a, const json_t *b, int grant)
{
	size_t i;
	json_t *x;
	json_array_foreach(b, i, x)
		if (json_is_string(x) && !array_has(a, json_string_value(x))) {
			char *q = xasprintf("'%s'", json_string_value(x));
			add_diff(l, section, subject, grant ? "widened" : "narrowed", NULL, q, NULL);
			free(q);
		}
	json_array_foreach(a, i, x)
		if (json_is_string(x) && !array_has(b, json_string_value(x))) {
			char *q = xasprintf("'%s'", json_string_value(x));
			add_diff(l, section, subject, grant ? "narrowed" : "widened", q, NULL, NULL);
			free(q);
		}
}

static void cmp_installs(struct dlist *l, const json_t *wa, const json_t *wb)
{
	size_t i;
	json_t *o;
	const json_t *a = json_object_get(wa, "installs"), *b = json_object_get(wb, "installs");
	json_array_foreach(a, i, o) {
		const json_t *m = find_install(b, o);
		char *sub = xasprintf("%s %s", get_str(o, "kind"), get_str(o, "path"));
		if (!m) {
			char *s = install_summary(o);
			add_diff(l, "install", sub, "removed", s, NULL, NULL);
			free(s);
		} else {
			char *f;
			static const char *const keys[] = {"version", "sources", "matches", "state"};
			size_t k;
			for (k = 0; k < 4; k++) {
				f = xasprintf("%s %s", sub, keys[k]);
				if (k == 2) {
					char *g = xasprintf("%s checksum", sub);
					cmp_checksum(l, "install", g, o, m);
					free(g);
					free(f);
					f = xasprintf("%s match with this build", sub);
				}
				cmp_field(l, "install", f, o, m, keys[k]);
				free(f);
			}
			cmp_named(l, "install", sub, "plugin enabled",
			          json_object_get(o, "plugin"), json_object_get(m, "plugin"),
			          "enabled");
		}
		free(sub);
	}
	json_array_foreach(b, i, o)
		if (!find_install(a, o)) {
			char *sub = xasprintf("%s %s", get_str(o, "kind"), get_str(o, "path"));
			char *s = install_summary(o);
			add_diff(l, "install", sub, "added", NULL, s, NULL);
			free(s);
			free(sub);
		}
}

/* the string o[k], or "?" (a saved record may have been edited by hand) */
static const char *str_or_q(const json_t *o, const char *k)
{
	const char *s = get_str(o, k);
	return s ? s : "?";
}

static char *where(const json_t *lf)
{
	return json_is_object(lf) ? xasprintf("%s %s", str_or_q(lf, "kind"), str_or_q(lf, "path"))
	                          : NULL;
}

static void cmp_loads_first(struct dlist *l, const json_t *a, const json_t *b)
{
	char *x = where(json_object_get(a, "loads_first")),
	     *y = where(json_object_get(b, "loads_first"));
	if ((x || y) && !(x && y && !strcmp(x, y)))
		add_diff(l, "loads first", "the copy a client started in the checkout loads",
		         "changed", x ? x : "none", y ? y : "none",
		         x && y ? "another copy shadows the one recorded" : NULL);
	free(x);
	free(y);
}

static const json_t *find_scope(const json_t *files, const char *scope)
{
	size_t i;
	json_t *x;
	json_array_foreach(files, i, x)
		if (!strcmp(get_str(x, "scope"), scope))
			return x;
	return NULL;
}

static void cmp_permissions(struct dlist *l, const json_t *wa, const json_t *wb)
{
	static const char *const scopes[] = {"user", "project", "local"};
	const json_t *fa = json_object_get(json_object_get(wa, "permissions"), "files"),
	             *fb = json_object_get(json_object_get(wb, "permissions"), "files");
	size_t k;
	for (k = 0; k < 3; k++) {
		const json_t *a = find_scope(fa, scopes[k]), *b = find_scope(fb, scopes[k]);
		const char *path;
		char *sub;
		if (!a && !b)
			continue;
		path = get_str(b ? b : a, "path");
		sub = xasprintf("%s %s", scopes[k], path);
		if (!a || !b) {
			add_diff(l, "permissions", sub, a ? "removed" : "added", a ? "read" : NULL,
			         b ? "read" : NULL, "the checkout was found in only one record");
		} else {
			static const char *const lists[] = {"allow", "ask", "deny"};
			const char *ma = get_str(a, "default_mode"), *mb = get_str(b, "default_mode");
			int j;
			char *f;
			cmp_named(l, "permissions", sub, "present", a, b, "present");
			cmp_named(l, "permissions", sub, "parse error", a, b, "error");
			if ((ma || mb) && !(ma && mb && !strcmp(ma, mb))) {
				int ra = mode_rank(ma), rb = mode_rank(mb);
				f = xasprintf("%s defaultMode", sub);
				add_diff(l, "permissions", f,
				         ra < 0 || rb < 0 ? "changed" : rb > ra ? "widened" : "narrowed",
				         ma ? ma : "default", mb ? mb : "default", NULL);
				free(f);
			}
			for (j = 0; j < 3; j++) {
				f = xasprintf("%s %s", sub, lists[j]);
				cmp_set(l, "permissions", f, json_object_get(a, lists[j]),
				        json_object_get(b, lists[j]), j == 0);
				free(f);
			}
			{
				const json_t *ea = json_object_get(a, "enabled_plugins"),
				             *eb = json_object_get(b, "enabled_plugins");
				const char *id;
				json_t *x;
				json_object_foreach((json_t *)eb, id, x) {
					f = xasprintf("%s enabledPlugins %s", sub, id);
					cmp_field(l, "permissions", f, ea, eb, id);
					free(f);
				}
				json_object_foreach((json_t *)ea, id, x)
					if (!json_object_get(eb, id)) {
						f = xasprintf("%s enabledPlugins %s", sub, id);
						cmp_field(l, "permissions", f, ea, eb, id);
						free(f);
					}
			}
		}
		free(sub);
	}
}

static void cmp_allowed_tools(struct dlist *l, const json_t *wa, const json_t *wb)
{
	size_t i;
	json_t *o;
	const json_t *b = json_object_get(wb, "installs");
	json_array_foreach(json_object_get(wa, "installs"), i, o) {
		const json_t *m = find_install(b, o);
		const json_t *x = json_object_get(json_object_get(o, "allowed_tools"), "entries"),
		             *y = m ? json_object_get(json_object_get(m, "allowed_tools"),
		                                      "entries")
		                    : NULL;
		char *sub;
		if (!m || (!x && !y))
			continue;
		sub = xasprintf("%s %s/SKILL.md", get_str(o, "kind"), get_str(o, "path"));
		if (x && y) {
			cmp_set(l, "allowed-tools", sub, x, y, 1);
		} else {
			add_diff(l, "allowed-tools", sub, x ? "narrowed" : "widened",
			         x ? "a list" : NULL, y ? "a list" : NULL,
			         x ? "allowed-tools is gone" : "allowed-tools appeared");
		}
		free(sub);
	}
}

static void cmp_tree(struct dlist *l, const json_t *wa, const json_t *wb)
{
	const json_t *a = json_object_get(wa, "tree"), *b = json_object_get(wb, "tree");
	static const char *const keys[] = {"root", "version", "era", "c10_metal",
	                                   "mps_sources", "common_mps", "test_mps"};
	size_t k;
	const char *name;
	json_t *x;
	if (json_is_null(a) && json_is_null(b))
		return;
	if (!json_is_object(a) || !json_is_object(b)) {
		add_diff(l, "tree", "checkout", "changed",
		         json_is_object(a) ? get_str(a, "root") : "none",
		         json_is_object(b) ? get_str(b, "root") : "none", NULL);
		return;
	}
	for (k = 0; k < 7; k++)
		cmp_field(l, "tree", keys[k], a, b, keys[k]);
	json_object_foreach(json_object_get(b, "macros"), name, x) {
		const json_t *y = json_object_get(json_object_get(a, "macros"), name);
		cmp_named(l, "tree", name, "#defined in", y, x, "defined");
		cmp_named(l, "tree", name, "used in", y, x, "used");
	}
	cmp_field(l, "tree", "exec_unary_kernel in", json_object_get(a, "exec"),
	          json_object_get(b, "exec"), "exec_unary_kernel");
	cmp_field(l, "tree", "exec_binary_kernel in", json_object_get(a, "exec"),
	          json_object_get(b, "exec"), "exec_binary_kernel");
	json_object_foreach(json_object_get(b, "tools"), name, x) {
		const json_t *y = json_object_get(json_object_get(a, "tools"), name);
		cmp_named(l, "tree", name, "works", y, x, "works");
	}
}

size_t setup_compare(const json_t *was, const json_t *now, struct setup_diff **out)
{
	struct dlist l = {NULL, 0, 0};
	cmp_build(&l, json_object_get(was, "build"), json_object_get(now, "build"));
	cmp_installs(&l, was, now);
	cmp_loads_first(&l, was, now);
	cmp_permissions(&l, was, now);
	cmp_allowed_tools(&l, was, now);
	cmp_tree(&l, was, now);
	*out = l.v;
	return l.n;
}

void setup_diffs_free(struct setup_diff *d, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		free(d[i].section);
		free(d[i].subject);
		free(d[i].change);
		free(d[i].was);
		free(d[i].now);
		free(d[i].text);
	}
	free(d);
}

/* ---------------- the record file ---------------- */

json_t *setup_read_record(const char *path)
{
	char *data, *why;
	size_t len;
	json_error_t je;
	json_t *j;

	if (read_regular_file(path, (size_t)64 << 20, &data, &len) != 0) {
		warnx_("error: cannot read record '%s':", path);
		return NULL;
	}
	j = json_loadb(data, len, 0, &je);
	free(data);
	if (!j) {
		diag_at(path, je.line > 0 ? (unsigned long)je.line : 1,
		        je.column > 0 ? (unsigned long)je.column : 1,
		        "error: not a JSON record: %s", je.text);
		return NULL;
	}
	if (setup_validate(j, &why) != 0) {
		diag_at(path, 0, 0, "error: %s", why);
		free(why);
		json_decref(j);
		return NULL;
	}
	return j;
}

int setup_write_record(const json_t *rec, const char *path)
{
	char *d = json_dumps(rec, JSON_INDENT(2));
	size_t n;
	int rc;
	if (!d)
		die("out of memory");
	n = strlen(d);
	d = xrealloc(d, n + 2);
	d[n++] = '\n';
	d[n] = '\0';
	rc = edit_write_file(path, d, n, 0644, 1);
	if (rc != 0)
		warnx_("error: cannot write the record to '%s':", path);
	free(d);
	return rc != 0 ? -1 : 0;
}
