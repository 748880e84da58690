/* cli.c — see cli.h. */
#include "base/cli.h"
#include "base/diag.h"
#include "base/walk.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MK_SOURCE_ID
#define MK_SOURCE_ID "unknown"
#endif
const char mk_ident[] = MK_IDENT_PREFIX MK_VERSION " sources " MK_SOURCE_ID;

static void print_opts(FILE *f, const struct opt *opts)
{
	const struct opt *o;
	for (o = opts; o->type != OPT_END; o++) {
		char left[64];
		if (o->shortname)
			snprintf(left, sizeof left, "-%c, --%s%s%s", o->shortname,
			         o->name, o->argname ? " " : "",
			         o->argname ? o->argname : "");
		else
			snprintf(left, sizeof left, "    --%s%s%s", o->name,
			         o->argname ? " " : "", o->argname ? o->argname : "");
		fprintf(f, "  %-24s %s\n", left, o->help);
	}
	fprintf(f, "  %-24s %s\n", "    --help", "show this help and exit");
	fprintf(f, "  %-24s %s\n", "    --version", "show the version and exit");
}

void cli_usage(const struct tool_info *t, const struct opt *opts)
{
	(void)opts;
	fprintf(stderr, "usage: %s %s\n", t->name, t->usage);
	fprintf(stderr, "Try '%s --help' for more information.\n", t->name);
	exit(MK_EXIT_ERROR);
}

void cli_error(const struct tool_info *t, const struct opt *opts,
               const char *fmt, ...)
{
	va_list ap;
	size_t n;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap, &n);
	va_end(ap);
	warnx_("error: %s", msg);
	free(msg);
	cli_usage(t, opts);
}

void cli_operator_count(const struct tool_info *t, const struct opt *opts,
                        int n, int one)
{
	if (n == 0)
		cli_error(t, opts, "no operator given");
	if (one && n > 1)
		cli_error(t, opts, "one operator at a time");
}

int cli_operators_valid(char *const *argv, int n, int (*valid)(const char *))
{
	int k;
	for (k = 0; k < n; k++)
		if (!valid(argv[k])) {
			warnx_("error: '%s' is not an operator name", argv[k]);
			return 0;
		}
	return 1;
}

static void help(const struct tool_info *t, const struct opt *opts)
{
	printf("usage: %s %s\n\n%s\n\noptions:\n", t->name, t->usage, t->summary);
	print_opts(stdout, opts);
	if (t->details)
		printf("\n%s", t->details);
	exit(close_stdout(MK_EXIT_CLEAN));
}

static const struct opt *lookup_long(const struct opt *opts, const char *name,
                                     size_t n)
{
	const struct opt *o;
	for (o = opts; o->type != OPT_END; o++)
		if (strlen(o->name) == n && strncmp(o->name, name, n) == 0)
			return o;
	return NULL;
}

static const struct opt *lookup_short(const struct opt *opts, char c)
{
	const struct opt *o;
	for (o = opts; o->type != OPT_END; o++)
		if (o->shortname == c)
			return o;
	return NULL;
}

int cli_parse(const struct tool_info *t, const struct opt *opts, int argc,
              char **argv)
{
	int i, n = 0, only_operands = 0;

	for (i = 1; i < argc; i++) {
		char *a = argv[i];
		const struct opt *o = NULL;
		const char *val = NULL;

		if (only_operands || a[0] != '-' || a[1] == '\0') {
			argv[n++] = a;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			only_operands = 1;
			continue;
		}
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			if (len == 4 && strncmp(name, "help", 4) == 0 && !eq)
				help(t, opts);
			if (len == 7 && strncmp(name, "version", 7) == 0 && !eq) {
				/* the version part of mk_ident (which also keeps
				 * the marker referenced in every binary) */
				printf("%s %.*s\n", t->name,
				       (int)strcspn(mk_ident + strlen(MK_IDENT_PREFIX), " "),
				       mk_ident + strlen(MK_IDENT_PREFIX));
				exit(close_stdout(MK_EXIT_CLEAN));
			}
			o = lookup_long(opts, name, len);
			if (!o)
				cli_error(t, opts, "unknown option '--%.*s'", (int)len, name);
			if (eq) {
				if (o->type == OPT_FLAG)
					cli_error(t, opts, "option '--%s' takes no value", o->name);
				val = eq + 1;
			}
		} else {
			if (a[2] != '\0')
				cli_error(t, opts, "unknown option '%s'", a);
			o = lookup_short(opts, a[1]);
			if (!o)
				cli_error(t, opts, "unknown option '%s'", a);
		}
		if (o->type == OPT_FLAG) {
			*(int *)o->dest = 1;
		} else {
			if (!val) {
				if (i + 1 >= argc)
					cli_error(t, opts, "option '--%s' needs a value", o->name);
				val = argv[++i];
			}
			if (o->type == OPT_LIST) {
				struct opt_list *l = o->dest;
				l->v = xrealloc(l->v, (l->n + 1) * sizeof *l->v);
				l->v[l->n++] = (char *)val;
			} else
				*(const char **)o->dest = val;
		}
	}
	argv[n] = NULL;
	return n;
}

static int has_yaml(const char *dir)
{
	return walk_is_file(dir, NF_YAML_REL);
}

char *find_root(const char *given)
{
	struct stat st;
	char *p;

	if (given) {
		if (stat(given, &st) != 0) {
			warnx_("error: cannot open root '%s': %s", given, strerror(errno));
			return NULL;
		}
		if (!S_ISDIR(st.st_mode)) {
			warnx_("error: root '%s' is not a folder", given);
			return NULL;
		}
		if (!has_yaml(given)) {
			warnx_("error: '%s' is not a PyTorch checkout (no %s)", given,
			       NF_YAML_REL);
			return NULL;
		}
		return xstrdup(given);
	}
	if ((p = find_checkout()) != NULL)
		return p;
	warnx_("error: no PyTorch checkout found from the current folder up "
	       "(looked for %s); use --root DIR", NF_YAML_REL);
	return NULL;
}

char *find_checkout(void)
{
	char *cwd, *p;
	cwd = getcwd(NULL, 0);
	if (!cwd)
		return NULL;
	p = xstrdup(cwd);
	free(cwd);
	for (;;) {
		char *slash;
		if (has_yaml(p))
			return p;
		slash = strrchr(p, '/');
		if (!slash || slash == p) {
			if (slash == p && p[1] != '\0') {
				p[1] = '\0';
				if (has_yaml(p))
					return p;
			}
			break;
		}
		*slash = '\0';
	}
	free(p);
	return NULL;
}
