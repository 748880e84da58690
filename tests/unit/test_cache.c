/* test_cache.c — cmocka tests of tools/lib/cache.c: the varint and string
 * serialization (exact bytes, and every truncation refused), and the
 * store itself in a private folder: a stored payload comes back byte for
 * byte under the same manifest only; a flipped byte, a cut file, another
 * manifest or MK_CACHE=off is a miss; at most CACHE_KEEP files of a kind
 * are kept. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "diag.h"
#include "scan.h"

static char dir[] = "/tmp/mk-test-cache.XXXXXX";

static void test_varint_bytes(void **state)
{
	struct buf b;
	struct deser d;
	(void)state;
	buf_init(&b);
	ser_u64(&b, 0);
	ser_u64(&b, 127);
	ser_u64(&b, 128);
	ser_u64(&b, 300);
	ser_u64(&b, UINT64_MAX);
	assert_int_equal(b.len, 1 + 1 + 2 + 2 + 10);
	assert_memory_equal(b.data, "\x00\x7f\x80\x01\xac\x02", 6);
	d.p = (const unsigned char *)b.data;
	d.n = b.len;
	d.at = 0;
	d.bad = 0;
	assert_true(de_u64(&d) == 0);
	assert_true(de_u64(&d) == 127);
	assert_true(de_u64(&d) == 128);
	assert_true(de_u64(&d) == 300);
	assert_true(de_u64(&d) == UINT64_MAX);
	assert_int_equal(d.bad, 0);
	assert_int_equal(d.at, b.len);
	/* one more read runs off the end */
	assert_true(de_u64(&d) == 0);
	assert_int_equal(d.bad, 1);
	buf_free(&b);
}

static void test_strings_and_truncation(void **state)
{
	struct buf b;
	size_t cut;
	(void)state;
	buf_init(&b);
	ser_str(&b, "sqrt_out_mps");
	ser_str(&b, NULL);
	ser_str(&b, "");
	assert_int_equal(b.len, 1 + 13 + 1 + 2);
	assert_int_equal((unsigned char)b.data[0], 13);
	for (cut = 0; cut <= b.len; cut++) {
		struct deser d = {(const unsigned char *)b.data, cut, 0, 0};
		char *a = de_str(&d), *n = de_str(&d), *e = de_str(&d);
		if (cut == b.len) {
			assert_int_equal(d.bad, 0);
			assert_string_equal(a, "sqrt_out_mps");
			assert_null(n);
			assert_string_equal(e, "");
		} else {
			assert_int_equal(d.bad, 1);
		}
		free(a);
		free(n);
		free(e);
	}
	buf_free(&b);
}

static void test_ref_needs_its_nul(void **state)
{
	/* length 3 + 1, but the fourth byte is not a NUL; then one holding a
	 * NUL inside */
	static const unsigned char p1[] = {4, 'a', 'b', 'c', 'd'};
	static const unsigned char p2[] = {4, 'a', 0, 'c', 0};
	static const unsigned char p3[] = {4, 'a', 'b', 'c', 0};
	struct deser d1 = {p1, sizeof p1, 0, 0}, d2 = {p2, sizeof p2, 0, 0},
	             d3 = {p3, sizeof p3, 0, 0};
	(void)state;
	assert_null(de_ref(&d1));
	assert_int_equal(d1.bad, 1);
	assert_null(de_ref(&d2));
	assert_int_equal(d2.bad, 1);
	assert_string_equal(de_ref(&d3), "abc");
	assert_ptr_equal(de_ref(&d3) , NULL); /* past the end */
	assert_int_equal(d3.bad, 1);
}

static void test_huge_length_refused(void **state)
{
	/* a length far past the end must not be believed */
	static const unsigned char p[] = {0xff, 0xff, 0xff, 0xff, 0x0f, 'a'};
	struct deser d = {p, sizeof p, 0, 0};
	(void)state;
	assert_null(de_str(&d));
	assert_int_equal(d.bad, 1);
}

static size_t count_files(const char *prefix)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	size_t n = 0;
	assert_non_null(dp);
	while ((e = readdir(dp)))
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	closedir(dp);
	return n;
}

/* the one file of kind "t" in the store */
static char *only_file(void)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	char *path = NULL;
	while ((e = readdir(dp)))
		if (strncmp(e->d_name, "t-", 2) == 0)
			path = xasprintf("%s/%s", dir, e->d_name);
	closedir(dp);
	assert_non_null(path);
	return path;
}

static void manifest(struct buf *m, const char *text)
{
	buf_init(m);
	cache_manifest_add(m, "aten/x.mm", text, strlen(text));
}

static void test_store_and_load(void **state)
{
	struct buf m, other;
	char *file, *path, *data;
	const char *payload;
	size_t len, n;
	FILE *f;
	(void)state;
	manifest(&m, "int a;\n");
	manifest(&other, "int b;\n"); /* same size, other bytes */
	assert_int_equal(cache_load("t", &m, &file, &payload, &len), 0);
	assert_null(file);
	cache_store("t", &m, "PAYLOAD\0bytes", 13);
	assert_int_equal(cache_load("t", &m, &file, &payload, &len), 1);
	assert_int_equal(len, 13);
	assert_memory_equal(payload, "PAYLOAD\0bytes", 13);
	free(file);
	assert_int_equal(cache_load("t", &other, &file, &payload, &len), 0);

	/* a flipped byte in the payload: a miss */
	path = only_file();
	assert_int_equal(read_file(path, &data, &n), 0);
	data[n - 8] ^= 0x20;
	f = fopen(path, "wb");
	fwrite(data, 1, n, f);
	fclose(f);
	assert_int_equal(cache_load("t", &m, &file, &payload, &len), 0);
	/* cut short: a miss */
	data[n - 8] ^= 0x20;
	f = fopen(path, "wb");
	fwrite(data, 1, n - 1, f);
	fclose(f);
	assert_int_equal(cache_load("t", &m, &file, &payload, &len), 0);
	/* whole again: a hit */
	f = fopen(path, "wb");
	fwrite(data, 1, n, f);
	fclose(f);
	assert_int_equal(cache_load("t", &m, &file, &payload, &len), 1);
	free(file);
	/* the store turned off */
	setenv("MK_CACHE", "off", 1);
	assert_int_equal(cache_load("t", &m, &file, &payload, &len), 0);
	unsetenv("MK_CACHE");
	unlink(path);
	free(path);
	free(data);
	buf_free(&m);
	buf_free(&other);
}

static void test_prune(void **state)
{
	int i;
	(void)state;
	for (i = 0; i < CACHE_KEEP + 5; i++) {
		struct buf m;
		char text[32];
		snprintf(text, sizeof text, "version %d\n", i);
		manifest(&m, text);
		cache_store("p", &m, "x", 1);
		buf_free(&m);
	}
	assert_int_equal(count_files("p-"), CACHE_KEEP);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	setenv("MK_CACHE_DIR", dir, 1);
	unsetenv("MK_CACHE");
	return 0;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	(void)state;
	if (system(cmd) != 0)
		return -1;
	free(cmd);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_varint_bytes),
		cmocka_unit_test(test_strings_and_truncation),
		cmocka_unit_test(test_ref_needs_its_nul),
		cmocka_unit_test(test_huge_length_refused),
		cmocka_unit_test(test_store_and_load),
		cmocka_unit_test(test_prune),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
