/* walk.c — see walk.h. */
#include "base/walk.h"
#include "base/diag.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int walk_is_file(const char *dir, const char *rel)
{
	struct stat st;
	char *p = rel ? xasprintf("%s/%s", dir, rel) : xstrdup(dir);
	int ok = stat(p, &st) == 0 && S_ISREG(st.st_mode);
	free(p);
	return ok;
}

struct acc {
	struct walk_list *l;
	size_t cap;
};

static int wanted(const char *name, const char *const *sufs)
{
	size_t k;
	if (!sufs)
		return 1;
	for (k = 0; sufs[k]; k++)
		if (str_ends_with(name, sufs[k]))
			return 1;
	return 0;
}

static char *join(const char *root, const char *rel)
{
	return strcmp(root, ".") == 0 ? xstrdup(rel)
	                              : xasprintf("%s/%s", root, rel);
}

static int skipped_name(const char *name, const char *const *names)
{
	size_t k;
	for (k = 0; names && names[k]; k++)
		if (strcmp(name, names[k]) == 0)
			return 1;
	return 0;
}

static int walk(const char *root, const char *rel, int depth, const char *skip,
                const char *const *skip_names, const char *const *sufs,
                struct acc *a)
{
	char *dir = join(root, rel);
	DIR *d = opendir(dir);
	struct dirent *e;
	if (!d) {
		int err = errno;
		if (err == ENOENT || err == ENOTDIR) {
			free(dir);
			return 0;
		}
		warnx_("cannot open '%s': %s", dir, strerror(err));
		free(dir);
		return -1;
	}
	while ((e = readdir(d))) {
		struct stat st;
		char *r, *full;
		if (e->d_name[0] == '.')
			continue;
		r = xasprintf("%s/%s", rel, e->d_name);
		full = join(root, r);
		if (lstat(full, &st) != 0) {
			free(full);
			free(r);
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			free(full);
			if (depth > 0 && !(skip && strcmp(r, skip) == 0) &&
			    !skipped_name(e->d_name, skip_names) &&
			    walk(root, r, depth - 1, skip, skip_names, sufs, a) != 0) {
				free(r);
				closedir(d);
				free(dir);
				return -1;
			}
			free(r);
			continue;
		}
		/* a link counts when it leads to a regular file */
		if (S_ISLNK(st.st_mode) && stat(full, &st) != 0)
			st.st_mode = 0;
		free(full);
		if (!S_ISREG(st.st_mode) || !wanted(e->d_name, sufs)) {
			free(r);
			continue;
		}
		GROW(a->l->paths, a->l->n, a->cap);
		a->l->paths[a->l->n++] = r;
		if (st.st_size > 0 && (size_t)st.st_size > a->l->largest)
			a->l->largest = (size_t)st.st_size;
	}
	closedir(d);
	free(dir);
	return 0;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

int walk_tree(const char *root, const char *rel, int depth, const char *skip,
              const char *const *skip_names, const char *const *sufs,
              struct walk_list *out)
{
	struct acc a;
	memset(out, 0, sizeof *out);
	a.l = out;
	a.cap = 0;
	if (depth > WALK_MAX_DEPTH)
		depth = WALK_MAX_DEPTH;
	if (depth < 0)
		depth = 0;
	if (walk(root, rel, depth, skip, skip_names, sufs, &a) != 0) {
		walk_free(out);
		return -1;
	}
	if (out->n > 1)
		qsort(out->paths, out->n, sizeof *out->paths, cmp_str);
	return 0;
}

int walk_files(const char *root, const char *rel, int depth, const char *skip,
               const char *const *sufs, struct walk_list *out)
{
	return walk_tree(root, rel, depth, skip, NULL, sufs, out);
}

int walk_dir(const char *dir, int folders, struct walk_list *out)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t cap = 0;
	memset(out, 0, sizeof *out);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		struct stat st;
		char *full;
		int ok;
		if (e->d_name[0] == '.')
			continue;
		full = xasprintf("%s/%s", dir, e->d_name);
		ok = stat(full, &st) == 0 &&
		     (folders ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
		free(full);
		if (!ok)
			continue;
		GROW(out->paths, out->n, cap);
		out->paths[out->n++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (out->n > 1)
		qsort(out->paths, out->n, sizeof *out->paths, cmp_str);
	return 0;
}

void walk_free(struct walk_list *l)
{
	while (l->n > 0)
		free(l->paths[--l->n]);
	free(l->paths);
	l->paths = NULL;
}
