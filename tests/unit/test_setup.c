/* test_setup.c — cmocka tests of tools/lib/check/setup.c (mps-doctor's record):
 * the classes of permission rules and allowed-tools entries, finding the
 * running binary, the validation of saved records, the comparison of two
 * records (what is widened, what narrowed), and a record of a made-up
 * home (a SKILL.md whose frontmatter does not parse, a settings file). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check/setup.h"

static void class_is(const char *rule, const char *cls, const char *tool)
{
	char *t = (char *)"unset";
	const char *c = setup_rule_class(rule, &t);
	if (strcmp(c, cls) != 0)
		fail_msg("'%s': class %s, expected %s", rule, c, cls);
	if (tool)
		assert_string_equal(t, tool);
	else
		assert_null(t);
	free(t);
}

static void test_rule_class(void **state)
{
	(void)state;
	class_is("Bash", "bash-any", NULL);
	class_is("Bash(*)", "bash-any", NULL);
	class_is("Bash(:*)", "bash-any", NULL);
	class_is("Bash(make:*)", "bash", NULL);
	class_is("Bash(sh tests/run-all.sh:*)", "bash", NULL);
	class_is("Bash(grep mps-verify x)", "bash", NULL);
	class_is("Bash(tools/bin/mps-verify:*)", "skill-tool", "mps-verify");
	class_is("Bash(${CLAUDE_SKILL_DIR}/tools/bin/mps-overloads:*)", "skill-tool",
	         "mps-overloads");
	class_is("Bash(mps-doctor --check rec.json)", "skill-tool", "mps-doctor");
	class_is("Bash(./tools/bin/mps-* *)", "skill-tool", "mps-*");
	class_is("Bash(tools/bin/mps-:*)", "bash", NULL);
	class_is("Edit", "edit-any", NULL);
	class_is("Edit(**)", "edit-any", NULL);
	class_is("Write", "edit-any", NULL);
	class_is("Write(aten/src/**)", "edit", NULL);
	class_is("NotebookEdit(x.ipynb)", "edit", NULL);
	class_is("Read", "other", NULL);
	class_is("Bash(unclosed", "other", NULL);
	class_is("BashX", "other", NULL);
	class_is("mcp__server__tool", "other", NULL);
	assert_string_equal(setup_rule_class("Bash(tools/bin/mps-verify:*)", NULL),
	                    "skill-tool");
}

static void test_self(void **state)
{
	char *p, *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	(void)state;
	assert_null(setup_self(NULL));
	assert_null(setup_self(""));
	assert_null(setup_self("./no-such-binary-here"));
	p = setup_self("/bin/sh");
	assert_non_null(p);
	assert_true(p[0] == '/');
	free(p);
	/* PATH search: an empty entry is the current folder; missing folders
	 * are skipped */
	setenv("PATH", "/no/such/folder::/bin:/usr/bin", 1);
	p = setup_self("sh");
	assert_non_null(p);
	assert_true(p[0] == '/');
	free(p);
	assert_null(setup_self("no-such-program-of-metal-kernel"));
	unsetenv("PATH");
	assert_null(setup_self("sh"));
	if (old) {
		setenv("PATH", old, 1);
		free(old);
	}
}

static json_t *J(const char *s)
{
	json_error_t e;
	json_t *j = json_loads(s, 0, &e);
	if (!j)
		fail_msg("bad test JSON: %s at %d:%d", e.text, e.line, e.column);
	return j;
}

static void invalid(const char *s, const char *why_part)
{
	json_t *j = J(s);
	char *why = NULL;
	assert_int_equal(setup_validate(j, &why), -1);
	assert_non_null(why);
	if (!strstr(why, why_part))
		fail_msg("'%s': reason '%s' lacks '%s'", s, why, why_part);
	free(why);
	json_decref(j);
}

#define MINIMAL "\"build\": {}, \"installs\": [], \"permissions\": {\"files\": []}, \"tree\": null"

static void test_validate(void **state)
{
	json_t *j;
	char *why = (char *)"unset";
	(void)state;
	j = J("{\"format\": 1, " MINIMAL "}");
	assert_int_equal(setup_validate(j, &why), 0);
	assert_null(why);
	json_decref(j);
	invalid("[1]", "not an object");
	invalid("{\"installs\": []}", "no \"format\"");
	invalid("{\"format\": \"1\"}", "no \"format\"");
	invalid("{\"format\": 7, " MINIMAL "}", "format 7");
	invalid("{\"format\": 1, \"build\": {}}", "lacks");
	invalid("{\"format\": 1, \"build\": {}, \"installs\": [{\"kind\": \"user\"}], "
	        "\"permissions\": {\"files\": []}, \"tree\": null}",
	        "lacks");
	invalid("{\"format\": 1, \"build\": {}, \"installs\": [], \"permissions\": "
	        "{\"files\": []}, \"tree\": []}",
	        "lacks");
}

static const struct setup_diff *find(const struct setup_diff *d, size_t n,
                                     const char *text)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (strcmp(d[i].text, text) == 0)
			return &d[i];
	for (i = 0; i < n; i++)
		fprintf(stderr, "  diff: %s\n", d[i].text);
	fail_msg("no difference '%s'", text);
	return NULL;
}

static void test_compare(void **state)
{
	json_t *was = J(
	    "{\"format\": 1,"
	    " \"build\": {\"version\": \"0.1.0\", \"checksum\": \"aaaaaaaa\","
	    "  \"tools\": {\"mps-a\": \"11111111\", \"mps-b\": \"22222222\"},"
	    "  \"libraries\": [{\"name\": \"zlib\", \"running\": \"1.2\", \"built\": \"1.2\"}]},"
	    " \"installs\": [{\"kind\": \"project\", \"path\": \"/t/.claude/skills/metal-kernel\","
	    "  \"version\": \"0.1.0\", \"state\": \"loaded\","
	    "  \"allowed_tools\": {\"entries\": [\"Read\", \"Edit\"]}}],"
	    " \"loads_first\": {\"kind\": \"project\", \"path\": \"/t/.claude/skills/metal-kernel\"},"
	    " \"permissions\": {\"files\": [{\"scope\": \"project\", \"path\": \"/t/.claude/settings.json\","
	    "  \"present\": true, \"error\": null, \"default_mode\": null,"
	    "  \"allow\": [\"Bash(make:*)\"], \"ask\": [\"Bash(tools/bin/mps-a:*)\"], \"deny\": [\"Bash\"],"
	    "  \"enabled_plugins\": {}}]},"
	    " \"tree\": {\"root\": \"/t\", \"era\": \"c10/metal\", \"version\": null}}");
	json_t *now = J(
	    "{\"format\": 1,"
	    " \"build\": {\"version\": \"0.2.0\", \"checksum\": \"bbbbbbbb\","
	    "  \"tools\": {\"mps-a\": \"33333333\", \"mps-b\": \"22222222\", \"mps-c\": \"44444444\"},"
	    "  \"libraries\": [{\"name\": \"zlib\", \"running\": \"1.3\", \"built\": \"1.2\"}]},"
	    " \"installs\": [{\"kind\": \"project\", \"path\": \"/t/.claude/skills/metal-kernel\","
	    "  \"version\": \"0.1.0\", \"state\": \"shadowed\","
	    "  \"allowed_tools\": {\"entries\": [\"Read\", \"Bash\"]}},"
	    "  {\"kind\": \"user\", \"path\": \"/h/.claude/skills/metal-kernel\", \"version\": null,"
	    "   \"state\": \"loaded\"}],"
	    " \"loads_first\": {\"kind\": \"user\", \"path\": \"/h/.claude/skills/metal-kernel\"},"
	    " \"permissions\": {\"files\": [{\"scope\": \"project\", \"path\": \"/t/.claude/settings.json\","
	    "  \"present\": true, \"error\": null, \"default_mode\": \"acceptEdits\","
	    "  \"allow\": [\"Bash(make:*)\", \"Edit\"], \"ask\": [], \"deny\": [],"
	    "  \"enabled_plugins\": {}}]},"
	    " \"tree\": {\"root\": \"/t\", \"era\": \"pre-c10/metal\", \"version\": \"2.6.0a0\"}}");
	struct setup_diff *d;
	size_t n;
	const struct setup_diff *x;
	(void)state;

	n = setup_compare(was, was, &d);
	assert_int_equal(n, 0);
	assert_null(d);

	n = setup_compare(was, now, &d);
	find(d, n, "build: version: 0.1.0 -> 0.2.0");
	find(d, n, "build: checksum: aaaaaaaa -> bbbbbbbb (differs in mps-a, mps-c)");
	find(d, n, "build: zlib running: 1.2 -> 1.3");
	find(d, n, "install: project /t/.claude/skills/metal-kernel state: loaded -> shadowed");
	x = find(d, n, "install: user /h/.claude/skills/metal-kernel: added version unknown, loaded");
	assert_string_equal(x->change, "added");
	assert_null(x->was);
	x = find(d, n,
	         "loads first: the copy a client started in the checkout loads: project "
	         "/t/.claude/skills/metal-kernel -> user /h/.claude/skills/metal-kernel "
	         "(another copy shadows the one recorded)");
	assert_string_equal(x->section, "loads first");
	x = find(d, n, "permissions: project /t/.claude/settings.json defaultMode: default -> "
	               "acceptEdits (widened)");
	assert_string_equal(x->change, "widened");
	x = find(d, n, "permissions: project /t/.claude/settings.json allow: added 'Edit' (widened)");
	assert_string_equal(x->now, "'Edit'");
	find(d, n, "permissions: project /t/.claude/settings.json ask: removed "
	           "'Bash(tools/bin/mps-a:*)' (widened)");
	x = find(d, n, "permissions: project /t/.claude/settings.json deny: removed 'Bash' (widened)");
	assert_string_equal(x->was, "'Bash'");
	find(d, n, "allowed-tools: project /t/.claude/skills/metal-kernel/SKILL.md: added 'Bash' "
	           "(widened)");
	x = find(d, n, "allowed-tools: project /t/.claude/skills/metal-kernel/SKILL.md: removed "
	               "'Edit' (narrowed)");
	assert_string_equal(x->change, "narrowed");
	find(d, n, "tree: version: none -> 2.6.0a0");
	find(d, n, "tree: era: c10/metal -> pre-c10/metal");
	assert_int_equal(n, 14);
	setup_diffs_free(d, n);

	/* the reverse direction narrows what the first widened */
	n = setup_compare(now, was, &d);
	x = find(d, n, "permissions: project /t/.claude/settings.json deny: added 'Bash' (narrowed)");
	assert_string_equal(x->change, "narrowed");
	find(d, n, "permissions: project /t/.claude/settings.json defaultMode: acceptEdits -> "
	           "default (narrowed)");
	find(d, n, "install: user /h/.claude/skills/metal-kernel: removed version unknown, loaded");
	setup_diffs_free(d, n);
	json_decref(was);
	json_decref(now);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static const json_t *warning(const json_t *rec, const char *id)
{
	size_t i;
	json_t *w;
	json_array_foreach(json_object_get(rec, "warnings"), i, w)
		if (!strcmp(json_string_value(json_object_get(w, "id")), id))
			return w;
	return NULL;
}

static void test_record(void **state)
{
	char home[] = "/tmp/mk-test-setup.XXXXXX", p[512];
	struct setup_opts o;
	json_t *rec, *in, *eff;
	const char *fe;
	(void)state;

	assert_non_null(mkdtemp(home));
	snprintf(p, sizeof p, "%s/.claude", home);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof p, "%s/.claude/skills", home);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof p, "%s/.claude/skills/metal-kernel", home);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof p, "%s/.claude/skills/metal-kernel/SKILL.md", home);
	put(p, "---\nname: metal-kernel\nallowed-tools: [Read, Bash(x\n---\nbody\n");
	snprintf(p, sizeof p, "%s/.claude/settings.json", home);
	put(p, "{\"permissions\": {\"allow\": [\"Bash(*)\"], \"defaultMode\": \"plan\"}}");

	o.root = NULL;
	o.argv0 = NULL; /* no build: nothing to compare with */
	o.home = home;
	rec = setup_record(&o);
	assert_int_equal(json_integer_value(json_object_get(rec, "format")), SETUP_FORMAT);
	assert_true(json_is_null(json_object_get(json_object_get(rec, "build"), "path")));
	assert_true(json_is_null(json_object_get(rec, "tree")));
	assert_int_equal(json_array_size(json_object_get(rec, "installs")), 1);
	in = json_array_get(json_object_get(rec, "installs"), 0);
	assert_string_equal(json_string_value(json_object_get(in, "state")), "loaded");
	assert_string_equal(json_string_value(json_object_get(in, "matches")), "unknown");
	/* the flow sequence is not closed: libyaml stops at line 4 of the file
	 * (the closing '---'), reported 1-based */
	fe = json_string_value(json_object_get(in, "frontmatter_error"));
	assert_non_null(fe);
	if (strncmp(fe, "4:", 2) != 0)
		fail_msg("frontmatter error '%s' is not on line 4", fe);
	eff = json_object_get(json_object_get(rec, "permissions"), "effective");
	assert_string_equal(json_string_value(json_object_get(eff, "default_mode")), "plan");
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(eff, "bash"), "state")), "any");
	assert_non_null(warning(rec, "no-build"));
	assert_non_null(warning(rec, "no-checkout"));
	assert_non_null(warning(rec, "frontmatter"));
	assert_non_null(warning(rec, "bash-any"));
	{
		char *why;
		assert_int_equal(setup_validate(rec, &why), 0);
	}
	json_decref(rec);

	snprintf(p, sizeof p, "rm -rf '%s'", home);
	assert_int_equal(system(p), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rule_class), cmocka_unit_test(test_self),
	    cmocka_unit_test(test_validate),   cmocka_unit_test(test_compare),
	    cmocka_unit_test(test_record),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
