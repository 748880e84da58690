/* buildinfo.c — see buildinfo.h. */
#if defined(__APPLE__)
/* sys/sysctl.h needs the BSD types that _POSIX_C_SOURCE hides on macOS */
#define _DARWIN_C_SOURCE 1
#endif
#include "base/buildinfo.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <jansson.h>
#include <pcre2.h>
#include <yaml.h>
#include <zlib.h>

#if defined(__APPLE__)
#include <sys/sysctl.h>
#endif

#ifndef MK_YAML_BUILT
#define MK_YAML_BUILT ""
#endif

#define STR_(x) #x
#define STR(x) STR_(x)

static void put(char *dst, size_t n, const char *s)
{
	size_t len;
	snprintf(dst, n, "%s", s && *s ? s : "unknown");
	len = strlen(dst);
	while (len > 0 && dst[len - 1] == ' ')
		dst[--len] = '\0';
}

static const char *binary_arch(void)
{
#if defined(__x86_64__) || defined(_M_X64)
	return "x86_64";
#elif defined(__aarch64__) || defined(__arm64__)
#if defined(__APPLE__)
	return "arm64";
#else
	return "aarch64";
#endif
#elif defined(__i386__)
	return "i386";
#elif defined(__arm__)
	return "arm";
#elif defined(__powerpc64__)
	return "ppc64";
#elif defined(__s390x__)
	return "s390x";
#elif defined(__riscv)
	return "riscv";
#else
	return "unknown";
#endif
}

static int translated(void)
{
#if defined(__APPLE__)
	int v = 0;
	size_t len = sizeof v;
	if (sysctlbyname("sysctl.proc_translated", &v, &len, NULL, 0) != 0)
		return -1;
	return v == 1;
#else
	return -1;
#endif
}

/* one library's line: its name, the version built against and the one
 * running (NULL: unknown), JIT (1, 0, -1 when it has none) */
static void set_lib(struct bi_lib *l, const char *name, const char *built,
                    const char *running, int jit)
{
	l->name = name;
	put(l->built, sizeof l->built, built);
	put(l->running, sizeof l->running, running);
	l->jit = jit;
}

void buildinfo_get(struct buildinfo *b)
{
	struct utsname u;
	char pv[96];
	uint32_t jit = 0;
	int need;

	memset(b, 0, sizeof *b);
#if defined(__clang__)
	put(b->compiler, sizeof b->compiler, "clang " __clang_version__);
#elif defined(__GNUC__)
	put(b->compiler, sizeof b->compiler, "gcc " __VERSION__);
#else
	put(b->compiler, sizeof b->compiler, NULL);
#endif
	b->binary_arch = binary_arch();
	if (uname(&u) >= 0) {
		put(b->system, sizeof b->system, u.sysname);
		put(b->machine, sizeof b->machine, u.machine);
	} else {
		put(b->system, sizeof b->system, NULL);
		put(b->machine, sizeof b->machine, NULL);
	}
	b->translated = translated();

	set_lib(&b->libs[0], "libyaml", MK_YAML_BUILT, yaml_get_version_string(),
	        -1);
	/* with NULL: the length needed, terminator included */
	need = pcre2_config(PCRE2_CONFIG_VERSION, NULL);
	set_lib(&b->libs[1], "PCRE2", STR(PCRE2_MAJOR) "." STR(PCRE2_MINOR),
	        need > 0 && need <= (int)sizeof pv &&
	                pcre2_config(PCRE2_CONFIG_VERSION, pv) > 0
	            ? pv
	            : NULL,
	        pcre2_config(PCRE2_CONFIG_JIT, &jit) >= 0 && jit == 1);
	set_lib(&b->libs[2], "zlib", ZLIB_VERSION, zlibVersion(), -1);
#if JANSSON_VERSION_HEX >= 0x020d00
	set_lib(&b->libs[3], "jansson", JANSSON_VERSION, jansson_version_str(), -1);
#else
	set_lib(&b->libs[3], "jansson", JANSSON_VERSION, JANSSON_VERSION, -1);
#endif
}
