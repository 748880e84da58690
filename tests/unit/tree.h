/* tree.h — the scratch trees of the cmocka tests: write a file of a tree
 * (its folders made on the way) and remove a whole tree afterwards.
 * Included after cmocka.h; header-only (static inline) since every test
 * is one file built alone. */
#ifndef MK_TEST_TREE_H
#define MK_TEST_TREE_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/diag.h"

/* tree_put: write the n bytes of data to ROOT/REL, making the folders of
 * REL that do not exist yet; fails the test when the file cannot be
 * written. */
static inline void tree_put(const char *root, const char *rel,
                            const char *data, size_t n)
{
	char *path = xasprintf("%s/%s", root, rel), *q;
	FILE *f;
	for (q = path + strlen(root) + 1; *q; q++)
		if (*q == '/') {
			*q = '\0';
			mkdir(path, 0755); /* may exist */
			*q = '/';
		}
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
	free(path);
}

/* tree_remove: remove PATH and, when it is a folder, everything under it
 * (links themselves, never what they point to; a folder a test made
 * unreadable is opened up first).  A missing PATH is no error. */
static inline void tree_remove(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		DIR *d;
		struct dirent *de;
		chmod(path, 0755);
		d = opendir(path);
		if (d) {
			while ((de = readdir(d)) != NULL) {
				char *p;
				if (strcmp(de->d_name, ".") == 0 ||
				    strcmp(de->d_name, "..") == 0)
					continue;
				p = xasprintf("%s/%s", path, de->d_name);
				tree_remove(p);
				free(p);
			}
			closedir(d);
		}
		rmdir(path);
	} else {
		unlink(path);
	}
}

#endif
