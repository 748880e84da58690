/* clangfmt.c — see clangfmt.h. */
#include "read/clangfmt.h"
#include "read/nfyaml.h"
#include "base/diag.h"
#include "base/scan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

/* The keys of one document that matter here; -1 / NULL: not set. */
struct doc {
	char lang[16];
	long column, cont;
	int align, binpack;
	char based[16];
};

static void doc_init(struct doc *d)
{
	memset(d, 0, sizeof *d);
	d->column = d->cont = -1;
	d->align = -1;
	d->binpack = -1;
}

static int align_of(const char *v)
{
	if (strcmp(v, "Align") == 0 || strcmp(v, "true") == 0)
		return CF_ALIGN;
	if (strcmp(v, "DontAlign") == 0 || strcmp(v, "false") == 0)
		return CF_DONT_ALIGN;
	if (strcmp(v, "AlwaysBreak") == 0 || strcmp(v, "BlockIndent") == 0)
		return CF_ALWAYS_BREAK;
	return -1;
}

static void set_key(struct doc *d, const char *k, const char *v)
{
	char *end;
	if (strcmp(k, "Language") == 0)
		snprintf(d->lang, sizeof d->lang, "%s", v);
	else if (strcmp(k, "BasedOnStyle") == 0)
		snprintf(d->based, sizeof d->based, "%s", v);
	else if (strcmp(k, "ColumnLimit") == 0) {
		long n = strtol(v, &end, 10);
		if (*v && !*end && n >= 0 && n < 100000)
			d->column = n;
	} else if (strcmp(k, "ContinuationIndentWidth") == 0) {
		long n = strtol(v, &end, 10);
		if (*v && !*end && n >= 0 && n < 64)
			d->cont = n;
	} else if (strcmp(k, "AlignAfterOpenBracket") == 0) {
		d->align = align_of(v);
	} else if (strcmp(k, "BinPackArguments") == 0) {
		d->binpack = strcmp(v, "true") == 0 ? 1 : strcmp(v, "false") == 0 ? 0 : -1;
	}
}

/* the column limit of a BasedOnStyle name (clang-format's predefined
 * styles); -1 for a name it does not know */
static long based_column(const char *s)
{
	static const struct {
		const char *name;
		long col;
	} t[] = {{"LLVM", 80}, {"Google", 80}, {"Chromium", 80}, {"Mozilla", 80},
	         {"GNU", 79}, {"Microsoft", 120}, {"WebKit", 0}, {NULL, 0}};
	size_t i;
	for (i = 0; t[i].name; i++)
		if (strcasecmp(s, t[i].name) == 0)
			return t[i].col;
	return -1;
}

/* read every document of text into v (at most max); returns the count,
 * -1 when the YAML does not parse */
static int read_docs(const char *text, size_t len, struct doc *v, int max)
{
	yaml_parser_t ps;
	yaml_event_t ev;
	int n = -1, depth = 0, step, ok = 1, done = 0;
	char key[64];
	int have_key = 0;
	if (!yaml_parser_initialize(&ps))
		return -1;
	yaml_parser_set_input_string(&ps, (const unsigned char *)text, len);
	while (!done) {
		if (!yaml_parser_parse(&ps, &ev)) {
			ok = 0;
			break;
		}
		step = nf_yaml_nesting(ev.type);
		if (step > 0 && depth == 1 && have_key)
			have_key = 0; /* a nested value: skipped */
		depth += step;
		switch (ev.type) {
		case YAML_DOCUMENT_START_EVENT:
			if (n + 1 < max)
				doc_init(&v[++n]);
			depth = 0;
			have_key = 0;
			break;
		case YAML_SCALAR_EVENT:
			if (depth == 1 && n >= 0) {
				const char *s = (const char *)ev.data.scalar.value;
				if (!have_key) {
					snprintf(key, sizeof key, "%s", s);
					have_key = 1;
				} else {
					set_key(&v[n], key, s);
					have_key = 0;
				}
			}
			break;
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&ps);
	return ok ? n + 1 : -1;
}

void cf_style_for(const char *root, const char *lang, struct cf_style *st)
{
	struct doc docs[16];
	char *path = xasprintf("%s/.clang-format", root), *text = NULL;
	size_t len = 0;
	int n = -1, i;
	const struct doc *dflt = NULL, *mine = NULL;
	long col = -1, cont = -1;
	int align = -1, binpack = -1;

	memset(st, 0, sizeof *st);
	st->column = 80;
	st->align = CF_ALIGN;
	st->cont = 4;
	st->binpack = 1;
	snprintf(st->source, sizeof st->source,
	         "clang-format's default style (LLVM)");
	if (read_regular_file(path, 1u << 20, &text, &len) == 0)
		n = read_docs(text, len, docs, 16);
	free(path);
	free(text);
	for (i = 0; i < n; i++) {
		if (!docs[i].lang[0] && !dflt && i == 0)
			dflt = &docs[i];
		else if (docs[i].lang[0] && strcmp(docs[i].lang, lang) == 0 && !mine)
			mine = &docs[i];
	}
	if (!dflt && !mine)
		return;
	/* the language's document over the defaults, BasedOnStyle last */
	if (mine) {
		col = mine->column;
		cont = mine->cont;
		align = mine->align;
		binpack = mine->binpack;
	}
	if (dflt) {
		if (col < 0)
			col = dflt->column;
		if (cont < 0)
			cont = dflt->cont;
		if (align < 0)
			align = dflt->align;
		if (binpack < 0)
			binpack = dflt->binpack;
	}
	if (col < 0 && mine && mine->based[0])
		col = based_column(mine->based);
	if (col < 0 && dflt && dflt->based[0])
		col = based_column(dflt->based);
	if (col >= 0) {
		st->column = (unsigned)col;
		st->from_file = 1;
		if (mine && mine->column >= 0)
			snprintf(st->source, sizeof st->source,
			         ".clang-format (Language: %s)", lang);
		else
			snprintf(st->source, sizeof st->source, ".clang-format");
	}
	if (cont >= 0)
		st->cont = (unsigned)cont;
	if (align >= 0)
		st->align = align;
	if (binpack >= 0)
		st->binpack = binpack;
}

const char *cf_lang_of(const char *path)
{
	size_t n = strlen(path);
	if ((n > 3 && strcmp(path + n - 3, ".mm") == 0) ||
	    (n > 2 && strcmp(path + n - 2, ".m") == 0))
		return "ObjC";
	return "Cpp";
}
