/* source.c — run.h's includes: the checkout headers a compile_shader
 * source names (`#include <c10/metal/...>`, `#include
 * <ATen/native/mps/kernels/...>`), found as mps-try finds them
 * (check/try.h try_include_resolve, try_header_add: -I ROOT -I
 * ROOT/aten/src), for the host build; and the same source with them
 * inlined, for the real compile_shader on a Mac, which has no include path
 * (MetalShaderLibrary compiles the source string alone). */
#include "run/run.h"
#include "base/diag.h"
#include "base/lex.h"
#include "base/scan.h"
#include "check/try.h"
#include "read/metalreg.h"

#include <stdio.h>
#include <string.h>

int run_checkout_include(const char *name)
{
	return !strncmp(name, "c10/", 4) || !strncmp(name, "ATen/", 5) ||
	       !strncmp(name, "aten/src/", 9);
}

/* the diagnostic of an include of NAME at FILE:LINE that is not found */
static void not_found(const char *root, const char *file, unsigned long line, const char *name)
{
	if (root)
		fprintf(stderr, "mps-run: %s:%lu: error: cannot find '%s' in the PyTorch checkout '%s' "
		                "(looked in ROOT and ROOT/aten/src)\n", file, line, name, root);
	else
		fprintf(stderr, "mps-run: %s:%lu: error: cannot find '%s': no PyTorch checkout (run "
		                "mps-run inside one, or give --root DIR)\n", file, line, name);
}

int run_headers(const char *root, const char *text, size_t len, const char *file, long lineoff,
                struct try_header **hdrs, size_t *nhdrs, struct mr_defs *defs)
{
	char **names, *kinds, **seen = NULL;
	unsigned long *lines;
	size_t n, nseen = 0;
	int rc = 0;
	try_includes(text, len, &names, &kinds, &lines, &n);
	for (size_t i = 0; i < n; i++) {
		if (rc != 0)
			continue;
		char *cand = root ? try_include_resolve(root, "", names[i], kinds[i]) : NULL;
		if (cand) {
			if (try_header_add(hdrs, nhdrs, root, cand, defs, &seen, &nseen) != 0)
				rc = -1;
		} else if (run_checkout_include(names[i])) {
			not_found(root, file, lines[i] + (unsigned long)lineoff, names[i]);
			rc = -1;
		}
		free(cand);
	}
	lex_strv_free(names, n);
	lex_strv_free(seen, nseen);
	free(kinds);
	free(lines);
	return rc;
}

/* TEXT (from checkout file FROM, "" for the source) into O with its
 * checkout includes replaced by their text, each header once (SEEN);
 * `#pragma once` lines dropped.  -1 after a diagnostic. */
static int inline_into(struct buf *o, const char *root, const char *from, const char *text,
                       size_t len, const char *file, long lineoff, char ***seen, size_t *nseen)
{
	char **names, *kinds;
	unsigned long *lines;
	size_t n, k = 0;
	int rc = 0;
	try_includes(text, len, &names, &kinds, &lines, &n);
	unsigned long line = 1;
	for (size_t i = 0; i < len && rc == 0;) {
		size_t e = text_next_line(text, len, i);
		/* a continued line goes on */
		while (e < len && e >= 2 && text[e - 2] == '\\')
			e = text_next_line(text, len, e);
		unsigned long here = line;
		for (size_t q = i; q < e; q++)
			line += text[q] == '\n';
		if (k < n && lines[k] == here) {
			char *cand = root ? try_include_resolve(root, from, names[k], kinds[k]) : NULL;
			if (cand) {
				int dup = 0;
				for (size_t q = 0; q < *nseen; q++)
					if (!strcmp((*seen)[q], cand))
						dup = 1;
				if (!dup) {
					char *path = xasprintf("%s/%s", root, cand), *data;
					size_t dl;
					*seen = xrealloc(*seen, (*nseen + 1) * sizeof **seen);
					(*seen)[(*nseen)++] = xstrdup(cand);
					if (read_source_file(path, &data, &dl) != 0) {
						rc = -1;
					} else {
						buf_printf(o, "// ---- begin %s (inlined by mps-run) ----\n", cand);
						rc = inline_into(o, root, cand, data, dl, cand, 0, seen, nseen);
						buf_printf(o, "// ---- end %s ----\n", cand);
						free(data);
					}
					free(path);
				}
				free(cand);
				k++;
				i = e;
				continue;
			}
			if (run_checkout_include(names[k])) {
				not_found(root, file, here + (unsigned long)lineoff, names[k]);
				rc = -1;
			}
			k++;
		}
		/* #pragma once of an inlined header: the SEEN list does its work */
		size_t j = lex_skip_ws(text, e, i);
		if (from[0] && j < e && text[j] == '#') {
			size_t p = lex_skip_ws(text, e, j + 1);
			if (lex_word_at(text, e, p, "pragma") &&
			    lex_word_at(text, e, lex_skip_ws(text, e, p + 6), "once")) {
				buf_add(o, "\n", 1);
				i = e;
				continue;
			}
		}
		buf_add(o, text + i, e - i);
		i = e;
	}
	lex_strv_free(names, n);
	free(kinds);
	free(lines);
	return rc;
}

char *run_inline(const char *root, const char *text, size_t len, const char *file, long lineoff)
{
	struct buf o;
	char **seen = NULL;
	size_t nseen = 0;
	buf_init(&o);
	int rc = inline_into(&o, root, "", text, len, file, lineoff, &seen, &nseen);
	lex_strv_free(seen, nseen);
	if (rc != 0) {
		buf_free(&o);
		return NULL;
	}
	return o.data ? o.data : xstrdup("");
}

int run_inline_file(const char *root, const char *path)
{
	char *text = NULL;
	size_t len = 0;
	int std = !strcmp(path, "-");
	if (std) {
		struct buf b;
		char chunk[65536];
		size_t k;
		buf_init(&b);
		while ((k = fread(chunk, 1, sizeof chunk, stdin)) > 0)
			buf_add(&b, chunk, k);
		if (ferror(stdin)) {
			warnx_("error: cannot read the standard input");
			buf_free(&b);
			return 2;
		}
		len = b.len;
		text = b.data ? b.data : xstrdup("");
	} else if (read_source_file(path, &text, &len) != 0) {
		return 2;
	}
	char *o = run_inline(root, text, len, std ? "<stdin>" : path, 0);
	free(text);
	if (!o)
		return 2;
	fputs(o, stdout);
	free(o);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		warnx_("error: cannot write the standard output");
		return 2;
	}
	return 0;
}
