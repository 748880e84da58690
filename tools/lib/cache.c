/* cache.c — see cache.h. */
#include "cache.h"
#include "edit.h"
#include "scan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

/* the largest stored file read: far above any real model */
#define CACHE_MAX_FILE (256u << 20)

static const char magic[] = "metal-kernel cache\n";

/* The build: a stored model is only ever read by the code that wrote it
 * (the Makefile passes a checksum of tools/lib's sources; a model format
 * or a scanning rule that changes makes a new store). */
#ifndef MK_BUILD_ID
#define MK_BUILD_ID "unknown"
#endif
static const char build_id[] = "build " MK_BUILD_ID "\n";

static int debug(void)
{
	const char *e = getenv("MK_CACHE_DEBUG");
	return e && *e && strcmp(e, "0") != 0;
}

/* the store's folder (malloc'd), or NULL when the store is off.  Only
 * absolute folders count (a tool may change folders before it stores;
 * a relative XDG_CACHE_HOME is ignored by the XDG rules too). */
static char *cache_dir(void)
{
	const char *e = getenv("MK_CACHE");
	if (e && (strcasecmp(e, "off") == 0 || strcmp(e, "0") == 0 ||
	          strcasecmp(e, "no") == 0 || strcasecmp(e, "false") == 0))
		return NULL;
	if ((e = getenv("MK_CACHE_DIR")) && *e)
		return e[0] == '/' ? xstrdup(e) : NULL;
	if ((e = getenv("XDG_CACHE_HOME")) && e[0] == '/')
		return xasprintf("%s/metal-kernel", e);
	if ((e = getenv("HOME")) && e[0] == '/')
		return xasprintf("%s/.cache/metal-kernel", e);
	return NULL;
}

static void put_le(struct buf *b, uint64_t v, int bytes)
{
	unsigned char c[8];
	int i;
	for (i = 0; i < bytes; i++)
		c[i] = (unsigned char)(v >> (8 * i));
	buf_add(b, c, (size_t)bytes);
}

static uint64_t get_le(const unsigned char *p, int bytes)
{
	uint64_t v = 0;
	int i;
	for (i = bytes - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/* KIND-KEY.mkc: KEY from crc32 and adler32 of the manifest */
static char *cache_path(const char *dir, const char *kind, const struct buf *m)
{
	uLong c = crc32(0L, Z_NULL, 0), a = adler32(0L, Z_NULL, 0);
	c = crc32(c, (const Bytef *)build_id, (uInt)(sizeof build_id - 1));
	a = adler32(a, (const Bytef *)build_id, (uInt)(sizeof build_id - 1));
	c = crc32(c, (const Bytef *)m->data, (uInt)m->len);
	a = adler32(a, (const Bytef *)m->data, (uInt)m->len);
	return xasprintf("%s/%s-%08lx%08lx.mkc", dir, kind,
	                 (unsigned long)(c & 0xffffffffUL),
	                 (unsigned long)(a & 0xffffffffUL));
}

void cache_manifest_add(struct buf *m, const char *rel, const char *data,
                        size_t len)
{
	buf_printf(m, "%s\t%zu\t%08lx\n", rel, len,
	           (unsigned long)edit_crc32(data, len));
}

int cache_load(const char *kind, const struct buf *m, char **file,
               const char **payload, size_t *len)
{
	char *dir = cache_dir(), *path, *data = NULL;
	size_t n, at, ml, pl;
	const unsigned char *u;
	int hit = 0;

	*file = NULL;
	*payload = NULL;
	*len = 0;
	if (!dir)
		return 0;
	path = cache_path(dir, kind, m);
	if (read_regular_file(path, CACHE_MAX_FILE, &data, &n) != 0)
		goto out;
	u = (const unsigned char *)data;
	at = sizeof magic - 1;
	if (n < at + 4 + 8 + 8 + 4 || memcmp(data, magic, at) != 0 ||
	    get_le(u + at, 4) != CACHE_FORMAT)
		goto out;
	at += 4;
	ml = (size_t)get_le(u + at, 8);
	at += 8;
	if (ml != sizeof build_id - 1 + m->len || n - at < ml + 8 + 4 ||
	    memcmp(data + at, build_id, sizeof build_id - 1) != 0 ||
	    memcmp(data + at + sizeof build_id - 1, m->data, m->len) != 0)
		goto out;
	at += ml;
	pl = (size_t)get_le(u + at, 8);
	at += 8;
	if (n - at != (uint64_t)pl + 4 ||
	    edit_crc32(data, at + pl) != (uint32_t)get_le(u + at + pl, 4))
		goto out;
	*file = data;
	*payload = data + at;
	*len = pl;
	data = NULL;
	hit = 1;
	/* used now: pruning removes the models used longest ago */
	(void)utimensat(AT_FDCWD, path, NULL, 0);
out:
	if (debug())
		fprintf(stderr, "cache: %s %s\n", hit ? "hit" : "miss", kind);
	free(data);
	free(path);
	free(dir);
	return hit;
}

struct old {
	char *name;
	time_t mtime;
};

static int cmp_old(const void *a, const void *b)
{
	const struct old *x = a, *y = b;
	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* keep at most CACHE_KEEP files of KIND in dir: remove the oldest */
static void prune(const char *dir, const char *kind)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct old *v = NULL;
	size_t n = 0, cap = 0, i, kl = strlen(kind);
	if (!d)
		return;
	while ((e = readdir(d))) {
		struct stat st;
		char *p;
		size_t el = strlen(e->d_name);
		/* ".KIND-KEY.mkc.mk-XXXXXX": the temporary of a writer that was
		 * killed, once it is an hour old */
		int tmp = e->d_name[0] == '.' &&
		          strncmp(e->d_name + 1, kind, kl) == 0 &&
		          e->d_name[kl + 1] == '-' && strstr(e->d_name, ".mkc.mk-");
		if (!tmp && (strncmp(e->d_name, kind, kl) != 0 ||
		             e->d_name[kl] != '-' || el < 4 ||
		             strcmp(e->d_name + el - 4, ".mkc") != 0))
			continue;
		p = xasprintf("%s/%s", dir, e->d_name);
		if (lstat(p, &st) != 0) {
			free(p);
			continue;
		}
		if (tmp) {
			if (time(NULL) - st.st_mtime > 3600)
				(void)unlink(p);
			free(p);
			continue;
		}
		if (n == cap)
			v = xrealloc(v, (cap = cap ? 2 * cap : 32) * sizeof *v);
		v[n].name = p;
		v[n].mtime = st.st_mtime;
		n++;
	}
	closedir(d);
	if (n > CACHE_KEEP) {
		qsort(v, n, sizeof *v, cmp_old);
		for (i = 0; i < n - CACHE_KEEP; i++)
			(void)unlink(v[i].name);
	}
	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

void cache_store(const char *kind, const struct buf *m, const char *payload,
                 size_t len)
{
	char *dir = cache_dir(), *path;
	struct buf b;
	int ok;
	if (!dir)
		return;
	if (edit_mkdirs(dir) != 0) {
		free(dir);
		return;
	}
	path = cache_path(dir, kind, m);
	buf_init(&b);
	buf_add(&b, magic, sizeof magic - 1);
	put_le(&b, CACHE_FORMAT, 4);
	put_le(&b, sizeof build_id - 1 + m->len, 8);
	buf_add(&b, build_id, sizeof build_id - 1);
	buf_add(&b, m->data, m->len);
	put_le(&b, len, 8);
	buf_add(&b, payload, len);
	put_le(&b, edit_crc32(b.data, b.len), 4);
	ok = edit_write_file(path, b.data, b.len, 0600, 0) == 0;
	if (ok)
		prune(dir, kind);
	if (debug() && ok)
		fprintf(stderr, "cache: stored %s\n", kind);
	buf_free(&b);
	free(path);
	free(dir);
}

/* ---- serialization ---- */

void ser_u64(struct buf *b, uint64_t v)
{
	unsigned char c[10];
	size_t n = 0;
	do {
		c[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v)
			c[n] |= 0x80;
		n++;
	} while (v);
	buf_add(b, c, n);
}

void ser_str(struct buf *b, const char *s)
{
	if (!s) {
		ser_u64(b, 0);
		return;
	}
	ser_u64(b, strlen(s) + 1);
	buf_add(b, s, strlen(s) + 1); /* with its NUL: de_ref points at it */
}

uint64_t de_u64(struct deser *d)
{
	uint64_t v = 0;
	int shift = 0;
	while (!d->bad) {
		unsigned char c;
		if (d->at >= d->n || shift > 63) {
			d->bad = 1;
			return 0;
		}
		c = d->p[d->at++];
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
		shift += 7;
	}
	return 0;
}

const char *de_ref(struct deser *d)
{
	uint64_t k = de_u64(d);
	const char *s;
	if (d->bad || k == 0)
		return NULL;
	if (k > d->n - d->at || d->p[d->at + k - 1] != '\0' ||
	    memchr(d->p + d->at, '\0', (size_t)(k - 1))) {
		d->bad = 1;
		return NULL;
	}
	s = (const char *)d->p + d->at;
	d->at += (size_t)k;
	return s;
}

char *de_str(struct deser *d)
{
	const char *s = de_ref(d);
	return s ? xstrdup(s) : NULL;
}
