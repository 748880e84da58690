/* buildinfo.h — what this build of the tools is made of and what it runs
 * on: the compiler, the architecture of the binary and of the machine,
 * Rosetta translation on a Mac, and the versions of the four libraries,
 * both those compiled against (headers) and those loaded at run time.
 * Used by mps-doctor's record (setup.h).  Reads no file; never fails.
 *
 * Sources of the facts:
 *   compiler      __clang_version__ (clang) or __VERSION__ (gcc), both
 *                 predefined by the compiler that built this file
 *   binary arch   the compiler's predefined target macros (__x86_64__,
 *                 __aarch64__, __arm64__, ...)
 *   machine       uname(2) (POSIX): sysname and machine.  Under Rosetta 2
 *                 an x86_64 process is told "x86_64" by uname, so:
 *   translated    macOS only: sysctlbyname("sysctl.proc_translated") is 1
 *                 in a process Rosetta translates, 0 in a native one, and
 *                 absent (ENOENT) on Intel Macs (Apple, "About the Rosetta
 *                 translation environment").  Not POSIX: guarded by
 *                 __APPLE__ in buildinfo.c.
 *   libyaml       built: pkg-config --modversion yaml-0.1 at build time
 *                 (the Makefile passes MK_YAML_BUILT; yaml.h has no
 *                 version macro); running: yaml_get_version_string()
 *   PCRE2         built: PCRE2_MAJOR.PCRE2_MINOR; running:
 *                 pcre2_config(PCRE2_CONFIG_VERSION), JIT support from
 *                 pcre2_config(PCRE2_CONFIG_JIT)
 *   zlib          built: ZLIB_VERSION; running: zlibVersion()
 *   jansson       built: JANSSON_VERSION; running: jansson_version_str()
 *                 (jansson 2.13 and later; older ones: the built version)
 *
 * Layer: base/ (the first: calls no other layer).  Calls the libraries only.
 */
#ifndef MK_BUILDINFO_H
#define MK_BUILDINFO_H

#include <stddef.h>

/* One library: its name ("libyaml", "PCRE2", "zlib", "jansson"), the
 * version of the headers compiled against and of the library loaded. */
struct bi_lib {
	const char *name;
	char built[64];
	char running[96];
	int jit; /* PCRE2: 1 JIT available, 0 not; -1 for the others */
};

#define BI_NLIBS 4

struct buildinfo {
	char compiler[160];     /* "gcc 12.2.0", "clang 14.0.6" */
	const char *binary_arch;/* "x86_64", "arm64", "aarch64", ... "unknown" */
	char system[64];        /* uname sysname: "Linux", "Darwin" */
	char machine[64];       /* uname machine: "x86_64", "arm64" */
	int translated;         /* 1 under Rosetta, 0 native, -1 unknown
	                           (not macOS, or the sysctl is absent) */
	struct bi_lib libs[BI_NLIBS]; /* libyaml, PCRE2, zlib, jansson */
};

/* buildinfo_get: fill *b (every field, "unknown" where a fact cannot be
 * had).  Calls uname() and, on macOS, sysctlbyname(); nothing else. */
void buildinfo_get(struct buildinfo *b);

#endif
