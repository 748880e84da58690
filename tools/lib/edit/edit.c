/* edit.c — see edit.h.  Issue #4 "The edit engine".
 *
 * Diff: lines (each with its own terminator, so CRLF lines and a last
 * line without a newline compare and print as they are) are compared with
 * Myers' O(ND) greedy algorithm after the common head and tail are cut
 * off; hunks carry 3 lines of context and merge when at most 6 unchanged
 * lines separate two changes, as GNU diff -u and git do.
 *
 * Journal entry format (one file per edit_finish call, named
 * NNNNNNNNNN.mkj with a zero-padded sequence number, so names sort in
 * the order the edits were made):
 *
 *   metal-kernel journal 1\n
 *   tool TOOL\n
 *   files N\n
 *   then per file:
 *   file MODE(octal) PRECRC(%08x) POSTCRC(%08x) PRELEN GZLEN PATHLEN DISPLAYLEN\n
 *   PATH (absolute, symlinks resolved) \n DISPLAY \n GZIP-BYTES \n
 *
 * The pre-edit bytes are a gzip member (zlib deflate, windowBits 15+16).
 */
/* realpath() is POSIX.1-2008 with the XSI option: ask for it explicitly
 * (glibc hides it under plain _POSIX_C_SOURCE; macOS has it anyway). */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#include "edit/edit.h"
#include "base/diag.h"
#include "base/scan.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define CONTEXT 3
#define JOURNAL_MAGIC "metal-kernel journal 1\n"

/* ---- small helpers ---- */

uint32_t edit_crc32(const char *p, size_t n)
{
	uLong c = crc32(0L, Z_NULL, 0);
	while (n > 0) {
		uInt chunk = n > 0x40000000u ? 0x40000000u : (uInt)n;
		c = crc32(c, (const Bytef *)p, chunk);
		p += chunk;
		n -= chunk;
	}
	return (uint32_t)c;
}

const char *edit_eol(const char *data, size_t len)
{
	const char *nl = data ? memchr(data, '\n', len) : NULL;
	return nl && nl > data && nl[-1] == '\r' ? "\r\n" : "\n";
}

/* ---- the set ---- */

struct edit_file *edit_set_load(struct edit_set *set, const char *path,
                                const char *display)
{
	struct edit_file *f;
	struct stat st;
	char *data;
	size_t len, i;

	for (i = 0; i < set->n; i++)
		if (strcmp(set->files[i].path, path) == 0)
			return &set->files[i];
	if (read_file(path, &data, &len) != 0) {
		warnx_("cannot open '%s':", display);
		return NULL;
	}
	if (stat(path, &st) != 0) {
		warnx_("cannot open '%s':", display);
		free(data);
		return NULL;
	}
	GROW(set->files, set->n, set->cap);
	f = &set->files[set->n++];
	memset(f, 0, sizeof *f);
	f->display = xstrdup(display);
	f->path = xstrdup(path);
	f->old = data;
	f->oldlen = len;
	f->oldcrc = edit_crc32(data, len);
	f->mode = st.st_mode & 07777;
	return f;
}

void edit_set_replace(struct edit_file *f, const char *data, size_t len)
{
	free(f->new);
	f->new = NULL;
	f->newlen = 0;
	if (len == f->oldlen && (len == 0 || memcmp(data, f->old, len) == 0))
		return;
	f->new = xmalloc(len + 1);
	if (len)
		memcpy(f->new, data, len);
	f->new[len] = '\0';
	f->newlen = len;
}

size_t edit_set_changed(const struct edit_set *set)
{
	size_t i, n = 0;
	for (i = 0; i < set->n; i++)
		if (set->files[i].new)
			n++;
	return n;
}

void edit_set_free(struct edit_set *set)
{
	size_t i;
	for (i = 0; i < set->n; i++) {
		free(set->files[i].display);
		free(set->files[i].path);
		free(set->files[i].old);
		free(set->files[i].new);
	}
	free(set->files);
	set->files = NULL;
	set->n = set->cap = 0;
}

/* ---- unified diff ---- */

struct line {
	const char *p;
	size_t n;       /* bytes including the terminator, if any */
	uint32_t h;
};

static struct line *split_lines(const char *s, size_t len, size_t *count)
{
	size_t cap = 64, n = 0, i = 0;
	struct line *v = xmalloc(cap * sizeof *v);

	while (i < len) {
		const char *nl = memchr(s + i, '\n', len - i);
		size_t e = nl ? (size_t)(nl - s) + 1 : len;
		if (n == cap) {
			cap *= 2;
			v = xrealloc(v, cap * sizeof *v);
		}
		v[n].p = s + i;
		v[n].n = e - i;
		v[n].h = edit_crc32(s + i, e - i);
		n++;
		i = e;
	}
	*count = n;
	return v;
}

static int line_eq(const struct line *a, const struct line *b)
{
	return a->h == b->h && a->n == b->n && memcmp(a->p, b->p, a->n) == 0;
}

enum { OP_EQ, OP_DEL, OP_INS };

struct op {
	int type;
	size_t a, b; /* line index in old (EQ, DEL) and new (EQ, INS) */
};

struct ops {
	struct op *v;
	size_t n, cap;
};

static void op_add(struct ops *o, int type, size_t a, size_t b)
{
	GROW(o->v, o->n, o->cap);
	o->v[o->n].type = type;
	o->v[o->n].a = a;
	o->v[o->n].b = b;
	o->n++;
}

/* Beyond this many saved V entries ((D+1)^2) the middle part is shown as
 * deleted and inserted whole: still a correct diff, just not minimal. */
#define MYERS_MAX_TRACE ((size_t)1 << 24)

/* Myers' greedy algorithm on A[0..n), B[0..m) (already offset); appends
 * ops with indices shifted by (ao, bo).  Returns 0, or -1 when the trace
 * would exceed MYERS_MAX_TRACE (nothing appended). */
static int myers(const struct line *A, long n, const struct line *B, long m,
                 size_t ao, size_t bo, struct ops *out)
{
	long max = n + m, d, k, x, y, D = -1;
	long *V, **trace;
	size_t used = 0, start = out->n, i, j;

	V = xmalloc((size_t)(2 * max + 3) * sizeof *V);
	trace = xcalloc((size_t)max + 1, sizeof *trace);
	V[max + 1 + 1] = 0;
	for (d = 0; d <= max; d++) {
		for (k = -d; k <= d; k += 2) {
			long *vk = &V[max + 1 + k];
			if (k == -d || (k != d && vk[-1] < vk[1]))
				x = vk[1];
			else
				x = vk[-1] + 1;
			y = x - k;
			while (x < n && y < m && line_eq(&A[x], &B[y])) {
				x++;
				y++;
			}
			*vk = x;
			if (x >= n && y >= m) {
				D = d;
				break;
			}
		}
		used += (size_t)(2 * d + 1);
		if (used > MYERS_MAX_TRACE) {
			for (i = 0; i < (size_t)d; i++)
				free(trace[i]);
			free(trace);
			free(V);
			return -1;
		}
		trace[d] = xmalloc((size_t)(2 * d + 1) * sizeof **trace);
		memcpy(trace[d], &V[max + 1 - d], (size_t)(2 * d + 1) * sizeof *V);
		if (D >= 0)
			break;
	}
	/* backtrack, emitting ops in reverse */
	x = n;
	y = m;
	for (d = D; d > 0; d--) {
		long *P = trace[d - 1] + (d - 1); /* P[k] for k in -(d-1)..d-1 */
		long pk, px, py;
		k = x - y;
		if (k == -d || (k != d && P[k - 1] < P[k + 1]))
			pk = k + 1;
		else
			pk = k - 1;
		px = P[pk];
		py = px - pk;
		while (x > px && y > py) {
			x--;
			y--;
			op_add(out, OP_EQ, ao + (size_t)x, bo + (size_t)y);
		}
		if (pk == k + 1) {
			y--;
			op_add(out, OP_INS, ao + (size_t)x, bo + (size_t)y);
		} else {
			x--;
			op_add(out, OP_DEL, ao + (size_t)x, bo + (size_t)y);
		}
	}
	while (x > 0 && y > 0) {
		x--;
		y--;
		op_add(out, OP_EQ, ao + (size_t)x, bo + (size_t)y);
	}
	/* reverse what was appended */
	for (i = start, j = out->n; i + 1 < j; i++, j--) {
		struct op t = out->v[i];
		out->v[i] = out->v[j - 1];
		out->v[j - 1] = t;
	}
	for (d = 0; d <= D; d++)
		free(trace[d]);
	free(trace);
	free(V);
	return 0;
}

static void diff_ops(const struct line *A, size_t n, const struct line *B,
                     size_t m, struct ops *out)
{
	size_t pre = 0, suf = 0, i;

	while (pre < n && pre < m && line_eq(&A[pre], &B[pre]))
		pre++;
	while (suf < n - pre && suf < m - pre &&
	       line_eq(&A[n - 1 - suf], &B[m - 1 - suf]))
		suf++;
	for (i = 0; i < pre; i++)
		op_add(out, OP_EQ, i, i);
	if (myers(A + pre, (long)(n - pre - suf), B + pre,
	          (long)(m - pre - suf), pre, pre, out) != 0) {
		for (i = pre; i < n - suf; i++)
			op_add(out, OP_DEL, i, pre);
		for (i = pre; i < m - suf; i++)
			op_add(out, OP_INS, n - suf, i);
	}
	for (i = 0; i < suf; i++)
		op_add(out, OP_EQ, n - suf + i, m - suf + i);
}

static void put_line(FILE *out, char tag, const struct line *l)
{
	fputc(tag, out);
	fwrite(l->p, 1, l->n, out);
	if (l->n == 0 || l->p[l->n - 1] != '\n')
		fputs("\n\\ No newline at end of file\n", out);
}

static void put_range(FILE *out, size_t start, size_t count)
{
	/* start: 0-based index of the first line of the range */
	if (count == 1)
		fprintf(out, "%lu", (unsigned long)start + 1);
	else if (count == 0)
		fprintf(out, "%lu,0", (unsigned long)start);
	else
		fprintf(out, "%lu,%lu", (unsigned long)start + 1,
		        (unsigned long)count);
}

/* edit_diff: write the unified diff of one file (see edit_finish). */
static void edit_diff(FILE *out, const struct edit_file *f)
{
	struct line *A, *B;
	size_t n, m, i, j;
	struct ops ops = { NULL, 0, 0 };

	A = split_lines(f->old, f->oldlen, &n);
	B = split_lines(f->new, f->newlen, &m);
	diff_ops(A, n, B, m, &ops);
	fprintf(out, "--- a/%s\n+++ b/%s\n", f->display, f->display);
	i = 0;
	while (i < ops.n) {
		size_t first, last, end, k, ac = 0, bc = 0;
		if (ops.v[i].type == OP_EQ) {
			i++;
			continue;
		}
		/* ops.v[i] is the first change of a hunk; find its last */
		first = i;
		last = i;
		for (k = i + 1; k < ops.n; k++) {
			if (ops.v[k].type != OP_EQ) {
				last = k;
				continue;
			}
			if (k - last > 2 * CONTEXT)
				break;
		}
		/* trailing EQ run after last: k stops early only if gap
		 * exceeded; the hunk spans first-CONTEXT .. last+CONTEXT */
		j = first > CONTEXT ? first - CONTEXT : 0;
		end = last + CONTEXT + 1 < ops.n ? last + CONTEXT + 1 : ops.n;
		for (k = j; k < end; k++) {
			if (ops.v[k].type != OP_INS)
				ac++;
			if (ops.v[k].type != OP_DEL)
				bc++;
		}
		fputs("@@ -", out);
		put_range(out, ops.v[j].a, ac);
		fputs(" +", out);
		put_range(out, ops.v[j].b, bc);
		fputs(" @@\n", out);
		for (k = j; k < end; k++) {
			const struct op *o = &ops.v[k];
			if (o->type == OP_EQ)
				put_line(out, ' ', &A[o->a]);
			else if (o->type == OP_DEL)
				put_line(out, '-', &A[o->a]);
			else
				put_line(out, '+', &B[o->b]);
		}
		i = end;
	}
	free(ops.v);
	free(A);
	free(B);
}

/* ---- writing ---- */

static char *dir_of(const char *path)
{
	const char *s = strrchr(path, '/');
	if (!s)
		return xstrdup(".");
	if (s == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(s - path));
}

static void fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY);
	if (fd >= 0) {
		/* some systems refuse fsync on a folder (EINVAL): harmless */
		(void)fsync(fd);
		close(fd);
	}
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Atomically replace target with data: a temporary file in the same
 * folder, written, fchmod'ed to mode, fsync'ed, renamed over target, and
 * the folder fsync'ed.  Returns 0, or -1 with errno set (target
 * untouched, temporary removed). */
static int atomic_write(const char *target, const char *data, size_t len,
                        mode_t mode)
{
	return edit_write_file(target, data, len, mode, 1);
}

int edit_write_file(const char *target, const char *data, size_t len,
                    mode_t mode, int durable)
{
	char *dir = dir_of(target);
	const char *base = strrchr(target, '/');
	char *tmp;
	int fd, e;

	base = base ? base + 1 : target;
	tmp = xasprintf("%s/.%s.mk-XXXXXX", dir, base);
	fd = mkstemp(tmp);
	if (fd < 0)
		goto fail;
	if (write_all(fd, data, len) != 0 || fchmod(fd, mode & 07777) != 0 ||
	    (durable && fsync(fd) != 0)) {
		e = errno;
		close(fd);
		unlink(tmp);
		errno = e;
		goto fail;
	}
	if (close(fd) != 0 || rename(tmp, target) != 0) {
		e = errno;
		unlink(tmp);
		errno = e;
		goto fail;
	}
	if (durable)
		fsync_dir(dir);
	free(tmp);
	free(dir);
	return 0;
fail:
	e = errno;
	free(tmp);
	free(dir);
	errno = e;
	return -1;
}

/* clear_stale: remove the temporaries ".BASE.mk-XXXXXX" (mkstemp's six
 * characters) that an --in-place killed between mkstemp and rename left
 * beside REAL (a resolved path), and say so, naming each beside DISPLAY.
 * Only regular files of exactly that pattern go; failures are silent
 * (the write that follows does not need them gone).  A temporary of an
 * edit running at this very moment would go too: that edit's rename
 * then fails and it writes nothing, which is the safe outcome. */
static int cmp_name(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static void clear_stale(const char *real, const char *display)
{
	char *dir = dir_of(real), **names = NULL;
	const char *base = strrchr(real, '/'), *dslash;
	size_t bl, n = 0, cap = 0, i;
	DIR *d;
	struct dirent *e;
	base = base ? base + 1 : real;
	bl = strlen(base);
	dslash = strrchr(display, '/');
	if (!(d = opendir(dir))) {
		free(dir);
		return;
	}
	while ((e = readdir(d))) {
		const char *nm = e->d_name, *x;
		size_t k;
		if (nm[0] != '.' || strncmp(nm + 1, base, bl) != 0 ||
		    strncmp(nm + 1 + bl, ".mk-", 4) != 0)
			continue;
		x = nm + 1 + bl + 4;
		for (k = 0; x[k] && (isalnum((unsigned char)x[k]) || x[k] == '_'); k++)
			;
		if (k != 6 || x[k])
			continue;
		if (n == cap)
			names = xrealloc(names, (cap = cap ? 2 * cap : 4) * sizeof *names);
		names[n++] = xstrdup(nm);
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof *names, cmp_name);
	for (i = 0; i < n; i++) {
		char *full = xasprintf("%s/%s", dir, names[i]);
		struct stat st;
		if (lstat(full, &st) == 0 && S_ISREG(st.st_mode) && unlink(full) == 0)
			warnx_("removed '%.*s%s', left by an interrupted --in-place",
			       dslash ? (int)(dslash - display + 1) : 0, display,
			       names[i]);
		free(full);
		free(names[i]);
	}
	free(names);
	free(dir);
}

/* Is resolved path p inside resolved root r (or r itself)? */
static int under(const char *p, const char *r)
{
	size_t n = strlen(r);
	if (n == 1 && r[0] == '/')
		return 1;
	return strncmp(p, r, n) == 0 && (p[n] == '/' || p[n] == '\0');
}

/* ---- journal ---- */

/* git_dir: the folder git keeps for the work tree ROOT: ROOT/.git when
 * it is a folder; the folder a ".git" file names ("gitdir: X", as git
 * writes for linked work trees and submodules; X relative to ROOT when
 * not absolute); NULL when ROOT is not a git work tree. */
static char *git_dir(const char *root)
{
	char *dotgit = xasprintf("%s/.git", root), *data, *r = NULL;
	size_t len;
	struct stat st;
	if (stat(dotgit, &st) != 0) {
		free(dotgit);
		return NULL;
	}
	if (S_ISDIR(st.st_mode))
		return dotgit;
	if (S_ISREG(st.st_mode) &&
	    read_regular_file(dotgit, 4096, &data, &len) == 0) {
		if (strncmp(data, "gitdir:", 7) == 0) {
			char *p = data + 7;
			p += strspn(p, " \t");
			p[strcspn(p, "\r\n")] = '\0';
			if (*p)
				r = p[0] == '/' ? xstrdup(p) : xasprintf("%s/%s", root, p);
			if (r && (stat(r, &st) != 0 || !S_ISDIR(st.st_mode))) {
				free(r);
				r = NULL;
			}
		}
		free(data);
	}
	free(dotgit);
	return r;
}

char *edit_journal_dir(const char *root)
{
	char *g = git_dir(root), *j;
	if (!g)
		return xasprintf("%s/.metal-kernel/journal", root);
	j = xasprintf("%s/metal-kernel/journal", g);
	free(g);
	return j;
}

static char *journal_dir(const struct edit_opts *o)
{
	if (o->journal)
		return xstrdup(o->journal);
	if (o->root)
		return edit_journal_dir(o->root);
	return NULL;
}

int edit_mkdirs(const char *path)
{
	char *p = xstrdup(path), *s;
	struct stat st;

	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0700) != 0 && errno != EEXIST) {
			free(p);
			return -1;
		}
		*s = '/';
	}
	if (mkdir(p, 0700) != 0 && errno != EEXIST) {
		free(p);
		return -1;
	}
	free(p);
	if (stat(path, &st) != 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

/* Is name a journal entry name (10 digits + ".mkj")?  Its number. */
static int entry_seq(const char *name, unsigned long *seq)
{
	size_t i;
	if (strlen(name) != 14 || strcmp(name + 10, ".mkj") != 0)
		return 0;
	for (i = 0; i < 10; i++)
		if (name[i] < '0' || name[i] > '9')
			return 0;
	*seq = strtoul(name, NULL, 10);
	return 1;
}

/* Sequence numbers of the entries in dir, newest first (caller frees).
 * Returns the count, or -1 with errno set when dir cannot be read. */
static long list_entries(const char *dir, unsigned long **out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	unsigned long *v = NULL, s;
	size_t n = 0, cap = 0, i, j;

	*out = NULL;
	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (!entry_seq(de->d_name, &s))
			continue;
		GROW(v, n, cap);
		v[n++] = s;
	}
	closedir(d);
	for (i = 1; i < n; i++) /* insertion sort, descending */
		for (j = i; j > 0 && v[j - 1] < v[j]; j--) {
			s = v[j];
			v[j] = v[j - 1];
			v[j - 1] = s;
		}
	*out = v;
	return (long)n;
}

static int gzip_bytes(const char *p, size_t n, struct buf *out)
{
	z_stream z;
	unsigned char chunk[16384];
	int rc;

	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
	                 Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	z.next_in = (Bytef *)(uintptr_t)p;
	z.avail_in = (uInt)n; /* files beyond 4 GiB are out of scope */
	do {
		z.next_out = chunk;
		z.avail_out = sizeof chunk;
		rc = deflate(&z, Z_FINISH);
		if (rc == Z_STREAM_ERROR) {
			deflateEnd(&z);
			return -1;
		}
		buf_add(out, chunk, sizeof chunk - z.avail_out);
	} while (rc != Z_STREAM_END);
	deflateEnd(&z);
	return 0;
}

static int gunzip_bytes(const unsigned char *p, size_t n, struct buf *out)
{
	z_stream z;
	unsigned char chunk[16384];
	int rc;

	memset(&z, 0, sizeof z);
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return -1;
	z.next_in = (Bytef *)(uintptr_t)p;
	z.avail_in = (uInt)n;
	do {
		z.next_out = chunk;
		z.avail_out = sizeof chunk;
		rc = inflate(&z, Z_NO_FLUSH);
		if (rc != Z_OK && rc != Z_STREAM_END) {
			inflateEnd(&z);
			return -1;
		}
		buf_add(out, chunk, sizeof chunk - z.avail_out);
	} while (rc != Z_STREAM_END);
	inflateEnd(&z);
	return 0;
}

/* Store text as a new newest entry in dir: written to a temporary file,
 * fsync'ed, then hard-linked to the next free NNNNNNNNNN.mkj (link never
 * replaces an existing name, so two writers cannot clobber each other).
 * Returns the entry's path (caller frees) or NULL with errno set. */
static char *journal_store(const char *dir, const struct buf *text)
{
	unsigned long *seqs, next;
	long n;
	char *tmp = xasprintf("%s/.entry.mk-XXXXXX", dir), *name = NULL;
	int fd, e, tries;

	fd = mkstemp(tmp);
	if (fd < 0)
		goto fail;
	if (write_all(fd, text->data, text->len) != 0 || fsync(fd) != 0) {
		e = errno;
		close(fd);
		errno = e;
		goto fail_unlink;
	}
	if (close(fd) != 0)
		goto fail_unlink;
	for (tries = 0; tries < 100; tries++) {
		n = list_entries(dir, &seqs);
		if (n < 0)
			goto fail_unlink;
		next = n > 0 ? seqs[0] + 1 : 1;
		free(seqs);
		if (next > 9999999999UL) {
			errno = EOVERFLOW;
			goto fail_unlink;
		}
		name = xasprintf("%s/%010lu.mkj", dir, next);
		if (link(tmp, name) == 0)
			break;
		e = errno;
		free(name);
		name = NULL;
		if (e != EEXIST) {
			errno = e;
			goto fail_unlink;
		}
	}
	unlink(tmp);
	free(tmp);
	if (!name)
		errno = EEXIST;
	else
		fsync_dir(dir);
	return name;
fail_unlink:
	e = errno;
	unlink(tmp);
	errno = e;
fail:
	e = errno;
	free(tmp);
	errno = e;
	return NULL;
}

/* ---- edit_finish ---- */

/* Print "prog: error: MESSAGE; nothing written" (or TAIL). */
static int vreport(const char *tail, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: error: ", diag_prog());
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "; %s\n", tail);
	return MK_EXIT_ERROR;
}

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static int refuse(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("nothing written", fmt, ap);
	va_end(ap);
	return MK_EXIT_ERROR;
}

int edit_finish(struct edit_set *set, const struct edit_opts *o)
{
	FILE *out = o->out ? o->out : stdout;
	char *rroot = NULL, **real = NULL, *jdir = NULL, *entry = NULL;
	struct buf j;
	size_t i, k;
	int rc = MK_EXIT_ERROR;

	if (!o->in_place) {
		for (i = 0; i < set->n; i++)
			if (set->files[i].new)
				edit_diff(out, &set->files[i]);
		return edit_set_changed(set) ? MK_EXIT_FINDINGS : MK_EXIT_CLEAN;
	}
	if (edit_set_changed(set) == 0)
		return MK_EXIT_CLEAN;

	buf_init(&j);
	real = xcalloc(set->n, sizeof *real);
	if (o->root && !(rroot = realpath(o->root, NULL))) {
		refuse("cannot resolve root '%s': %s", o->root,
		       strerror(errno));
		goto out;
	}
	/* 1. checks: nothing is written unless every file passes */
	for (i = 0; i < set->n; i++) {
		struct edit_file *f = &set->files[i];
		char *data, *dir;
		size_t len;
		int same;

		if (!f->new)
			continue;
		if (!(real[i] = realpath(f->path, NULL))) {
			refuse("cannot resolve '%s': %s", f->display,
			       strerror(errno));
			goto out;
		}
		if (rroot && !under(real[i], rroot)) {
			refuse("'%s' resolves to '%s', outside the root '%s'",
			       f->display, real[i], rroot);
			goto out;
		}
		if (read_file(real[i], &data, &len) != 0) {
			refuse("cannot read '%s' again: %s", f->display,
			       strerror(errno));
			goto out;
		}
		same = len == f->oldlen && edit_crc32(data, len) == f->oldcrc;
		free(data);
		if (!same) {
			refuse("'%s' changed since it was read", f->display);
			goto out;
		}
		/* a file without any write bit is read-only on purpose, even
		 * for root (who could rename over it anyway) */
		{
			struct stat st;
			if (stat(real[i], &st) == 0 && (st.st_mode & 0222) == 0) {
				refuse("'%s' is read-only", f->display);
				goto out;
			}
		}
		dir = dir_of(real[i]);
		if (access(dir, W_OK) != 0) {
			int e = errno;
			refuse("cannot write in the folder of '%s': %s",
			       f->display, strerror(e));
			free(dir);
			goto out;
		}
		free(dir);
	}
	/* 2. the journal entry, written before any file */
	jdir = journal_dir(o);
	if (!jdir) {
		refuse("no journal folder: give --root or --journal");
		goto out;
	}
	buf_puts(&j, JOURNAL_MAGIC);
	buf_printf(&j, "tool %s\nfiles %lu\n", o->tool ? o->tool : diag_prog(),
	           (unsigned long)edit_set_changed(set));
	for (i = 0; i < set->n; i++) {
		struct edit_file *f = &set->files[i];
		struct buf gz;
		if (!f->new)
			continue;
		buf_init(&gz);
		if (gzip_bytes(f->old, f->oldlen, &gz) != 0) {
			buf_free(&gz);
			refuse("cannot compress '%s'", f->display);
			goto out;
		}
		buf_printf(&j, "file %o %08lx %08lx %lu %lu %lu %lu\n",
		           (unsigned)(f->mode & 07777), (unsigned long)f->oldcrc,
		           (unsigned long)edit_crc32(f->new, f->newlen),
		           (unsigned long)f->oldlen, (unsigned long)gz.len,
		           (unsigned long)strlen(real[i]),
		           (unsigned long)strlen(f->display));
		buf_printf(&j, "%s\n%s\n", real[i], f->display);
		buf_add(&j, gz.data, gz.len);
		buf_puts(&j, "\n");
		buf_free(&gz);
	}
	if (edit_mkdirs(jdir) != 0 || !(entry = journal_store(jdir, &j))) {
		refuse("cannot write the journal in '%s': %s", jdir,
		       strerror(errno));
		goto out;
	}
	/* 3. the files */
	for (i = 0; i < set->n; i++) {
		struct edit_file *f = &set->files[i];
		if (!f->new)
			continue;
		clear_stale(real[i], f->display);
		if (atomic_write(real[i], f->new, f->newlen, f->mode) != 0) {
			int e = errno;
			/* put back the files already written */
			for (k = 0; k < i; k++)
				if (set->files[k].new)
					(void)atomic_write(real[k],
					                   set->files[k].old,
					                   set->files[k].oldlen,
					                   set->files[k].mode);
			unlink(entry);
			fprintf(stderr, "%s: error: cannot write '%s': %s; "
			        "nothing written (files already written were "
			        "put back)\n", diag_prog(), f->display,
			        strerror(e));
			goto out;
		}
	}
	rc = MK_EXIT_CLEAN;
out:
	for (i = 0; i < set->n; i++)
		free(real[i]);
	free(real);
	free(rroot);
	free(jdir);
	free(entry);
	buf_free(&j);
	return rc;
}

/* ---- edit_undo ---- */

struct jfile {
	unsigned mode;
	uint32_t pre, post;
	size_t prelen;
	char *path, *display;
	const unsigned char *gz;
	size_t gzlen;
};

struct jentry {
	char *tool;
	struct jfile *f;
	size_t n;
	char *raw;
};

static void jentry_free(struct jentry *e)
{
	size_t i;
	for (i = 0; i < e->n; i++) {
		free(e->f[i].path);
		free(e->f[i].display);
	}
	free(e->f);
	free(e->tool);
	free(e->raw);
	memset(e, 0, sizeof *e);
}

/* Parse a journal entry file; 0 or -1 (malformed). */
static int jentry_parse(char *raw, size_t len, struct jentry *e)
{
	char *p = raw, *end = raw + len, *nl;
	unsigned long nf, i;
	size_t ml = strlen(JOURNAL_MAGIC);

	memset(e, 0, sizeof *e);
	e->raw = raw;
	if (len < ml || memcmp(p, JOURNAL_MAGIC, ml) != 0)
		return -1;
	p += ml;
	nl = memchr(p, '\n', (size_t)(end - p));
	if (!nl || strncmp(p, "tool ", 5) != 0)
		return -1;
	e->tool = xstrndup(p + 5, (size_t)(nl - p - 5));
	p = nl + 1;
	if (sscanf(p, "files %lu\n", &nf) != 1 || nf > 100000)
		return -1;
	nl = memchr(p, '\n', (size_t)(end - p));
	if (!nl)
		return -1;
	p = nl + 1;
	e->f = xcalloc(nf ? nf : 1, sizeof *e->f);
	for (i = 0; i < nf; i++) {
		struct jfile *f = &e->f[i];
		unsigned long pre, post, prelen, gzlen, pl, dl;
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return -1;
		*nl = '\0';
		if (sscanf(p, "file %o %lx %lx %lu %lu %lu %lu", &f->mode, &pre,
		           &post, &prelen, &gzlen, &pl, &dl) != 7)
			return -1;
		p = nl + 1;
		if ((size_t)(end - p) < pl + dl + gzlen + 3)
			return -1;
		f->pre = (uint32_t)pre;
		f->post = (uint32_t)post;
		f->prelen = prelen;
		f->path = xstrndup(p, pl);
		p += pl + 1;
		f->display = xstrndup(p, dl);
		p += dl + 1;
		f->gz = (const unsigned char *)p;
		f->gzlen = gzlen;
		p += gzlen + 1;
		e->n = i + 1;
	}
	return 0;
}

/* a JSON string of a path; bytes that are not UTF-8 become '?' (jansson
 * refuses invalid UTF-8) */
static json_t *json_path(const char *s)
{
	json_t *j = json_string(s);
	char *c;
	size_t i;
	if (j)
		return j;
	c = xstrdup(s);
	for (i = 0; c[i]; i++)
		if ((unsigned char)c[i] >= 0x80)
			c[i] = '?';
	j = json_string(c);
	free(c);
	return j;
}

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static int undo_err(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("nothing restored", fmt, ap);
	va_end(ap);
	return MK_EXIT_ERROR;
}

int edit_undo(const struct edit_opts *o)
{
	FILE *out = o->out ? o->out : stdout;
	char *jdir = journal_dir(o), *rroot = NULL, *epath = NULL;
	unsigned long *seqs = NULL;
	long n, s;
	struct jentry e;
	struct buf *pre = NULL;
	size_t i;
	int rc = MK_EXIT_ERROR, found = 0;

	memset(&e, 0, sizeof e);
	if (!jdir)
		return undo_err("no journal folder: give --root or --journal");
	if (o->root && !(rroot = realpath(o->root, NULL))) {
		undo_err("cannot resolve root '%s': %s", o->root,
		         strerror(errno));
		goto out;
	}
	n = list_entries(jdir, &seqs);
	if (n < 0 && errno != ENOENT) {
		undo_err("cannot read the journal '%s': %s", jdir,
		         strerror(errno));
		goto out;
	}
	/* the newest entry whose files all lie under the root */
	for (s = 0; s < n && !found; s++) {
		char *raw;
		size_t len;
		free(epath);
		epath = xasprintf("%s/%010lu.mkj", jdir, seqs[s]);
		if (read_file(epath, &raw, &len) != 0) {
			undo_err("cannot read '%s': %s", epath, strerror(errno));
			goto out;
		}
		if (jentry_parse(raw, len, &e) != 0) {
			undo_err("journal entry '%s' is damaged", epath);
			goto out;
		}
		found = 1;
		for (i = 0; i < e.n && rroot; i++)
			if (!under(e.f[i].path, rroot))
				found = 0;
		if (!found)
			jentry_free(&e);
	}
	if (!found) {
		if (rroot)
			undo_err("nothing to undo under '%s' (journal '%s')",
			         rroot, jdir);
		else
			undo_err("nothing to undo (journal '%s')", jdir);
		goto out;
	}
	/* every file must still hold the bytes the edit wrote */
	pre = xcalloc(e.n ? e.n : 1, sizeof *pre);
	for (i = 0; i < e.n; i++) {
		struct jfile *f = &e.f[i];
		char *data, *real, msg[64];
		size_t len;
		uint32_t now;

		if (!(real = realpath(f->path, NULL)) ||
		    read_file(real, &data, &len) != 0) {
			undo_err("cannot open '%s': %s", f->display,
			         strerror(errno));
			free(real);
			goto out;
		}
		if (strcmp(real, f->path) != 0) {
			undo_err("'%s' now resolves to '%s', not '%s'",
			         f->display, real, f->path);
			free(real);
			free(data);
			goto out;
		}
		free(real);
		now = edit_crc32(data, len);
		free(data);
		if (now != f->post) {
			snprintf(msg, sizeof msg, "%08lx, the edit left %08lx",
			         (unsigned long)now, (unsigned long)f->post);
			undo_err("'%s' changed after the edit (crc32 now %s)",
			         f->display, msg);
			goto out;
		}
		buf_init(&pre[i]);
		if (gunzip_bytes(f->gz, f->gzlen, &pre[i]) != 0 ||
		    pre[i].len != f->prelen ||
		    edit_crc32(pre[i].data, pre[i].len) != f->pre) {
			undo_err("journal entry '%s' is damaged (%s)", epath,
			         f->display);
			goto out;
		}
	}
	for (i = 0; i < e.n; i++) {
		clear_stale(e.f[i].path, e.f[i].display);
		if (atomic_write(e.f[i].path, pre[i].data, pre[i].len,
		                 (mode_t)e.f[i].mode) != 0) {
			undo_err("cannot write '%s': %s", e.f[i].display,
			         strerror(errno));
			/* files before i are restored already: keep the entry
			 * so the situation can be inspected */
			goto out;
		}
		if (o->json) {
			json_t *j = json_object();
			char *txt;
			json_object_set_new(j, "action", json_string("restored"));
			json_object_set_new(j, "path", json_path(e.f[i].display));
			txt = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
			json_decref(j);
			if (!txt)
				die("out of memory");
			fprintf(out, "%s\n", txt);
			free(txt);
		} else {
			fprintf(out, "restored %s\n", e.f[i].display);
		}
	}
	if (unlink(epath) != 0) {
		warnx_("warning: cannot remove journal entry '%s':", epath);
	}
	fsync_dir(jdir);
	rc = MK_EXIT_CLEAN;
out:
	if (pre)
		for (i = 0; i < e.n; i++)
			buf_free(&pre[i]);
	free(pre);
	jentry_free(&e);
	free(seqs);
	free(epath);
	free(rroot);
	free(jdir);
	return rc;
}

/* ---------------- the files a tool edits ---------------- */

int edit_resolve(const char *root, const char *given, const char *rel,
                 char **path, char **display)
{
	char *rr, *rg;
	size_t n;
	int inside = 0, exists;
	*path = given ? xstrdup(given) : xasprintf("%s/%s", root, rel);
	*display = given ? NULL : xstrdup(rel);
	rr = realpath(root, NULL);
	rg = realpath(*path, NULL);
	exists = rg != NULL;
	if (rr && rg) {
		n = strlen(rr);
		if (strncmp(rg, rr, n) == 0 && (rg[n] == '/' || rr[n - 1] == '/')) {
			inside = 1;
			if (!*display)
				*display = xstrdup(rg + n + (rg[n] == '/'));
		}
	}
	free(rr);
	free(rg);
	if (!*display)
		*display = xstrdup(given);
	if (exists && !inside) {
		/* the edit engine's wording (edit_finish), given before reading */
		char *r1 = realpath(*path, NULL), *r2 = realpath(root, NULL);
		warnx_("error: '%s' resolves to '%s', outside the root '%s'; "
		       "nothing written",
		       *display, r1 ? r1 : *path, r2 ? r2 : root);
		free(r1);
		free(r2);
		return -1;
	}
	return 0;
}

struct edit_file *edit_set_load_text(struct edit_set *set, const char *path,
                                     const char *display)
{
	struct edit_file *f = edit_set_load(set, path, display);
	if (f && memchr(f->old, '\0', f->oldlen)) {
		warnx_("error: '%s' is not a text file (it holds a NUL byte)",
		       display);
		return NULL;
	}
	return f;
}
