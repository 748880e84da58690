/* session.c — run.h's runs: a script's session, the build of one library
 * and one call of a kernel, each from the Python side's re-entry of the
 * tool (mps-run --internal-build / --internal-call).
 *
 * The session folder (tmp_make("mps-run"), the script's $TMPDIR too):
 *   rt.o            the layer's runtime (metal_host_exec.cpp), built once
 *                   when make's prebuilt one (mps-run.d beside the tool,
 *                   with a precompiled header) does not fit the run
 *   errors          one line per call that reported an error
 *   libN/           one compile_shader: source.metal, origin (the script
 *                   file and the line of the source's first line), and
 *                   what the build writes: kernel.metal (the host copy),
 *                   driver.cpp, kernels.txt, prog
 *   libN/callM/     one call: call.txt, one file per argument, findings
 * Every program runs from an argv (proc.h), under the time limit. */
#include "run/run.h"
#include "base/diag.h"
#include "base/lex.h"
#include "base/proc.h"
#include "base/scan.h"
#include "check/setup.h"
#include "check/try.h"
#include "read/metalreg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int put_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
		warnx_("error: cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* the origin of a library: where its source's lines are in the script */
static void origin(const char *libdir, char **file, long *lineoff)
{
	char *p = xasprintf("%s/origin", libdir), *d;
	size_t n;
	*file = NULL;
	*lineoff = 0;
	if (read_file(p, &d, &n) == 0) {
		char *nl = strchr(d, '\n');
		if (nl) {
			*nl = 0;
			*lineoff = strtol(nl + 1, NULL, 10);
		}
		*file = xstrdup(d);
		free(d);
	}
	free(p);
	if (!*file)
		*file = xstrdup("<shader>");
}

/* print the compiler's messages about the host copy as the source's:
 * "kernel.metal:L:C: error: M" -> "mps-run: FILE:L+OFF:C: error: M",
 * at most MAX of the error lines (notes and context dropped) */
static void relay_compiler(const char *errpath, const char *file, long off, int max,
                           const char *libdir, const char *root)
{
	char *incp = libdir ? xasprintf("%s/inc/", libdir) : NULL;
	char *d;
	size_t n;
	int shown = 0;
	if (read_file(errpath, &d, &n) != 0)
		return;
	for (char *l = d; l && *l && shown < max;) {
		char *nl = strchr(l, '\n');
		if (nl)
			*nl = 0;
		char *k = strstr(l, "kernel.metal:");
		char *e = strstr(l, ": error: ");
		char *h = incp ? strstr(l, incp) : NULL;
		if (e) {
			if (h && h < e) {
				/* a checkout header's copy: its checkout path and line
				 * (the copy keeps the lines, not the columns) */
				char *rel = h + strlen(incp), *c = strchr(rel, ':');
				long ln = c ? strtol(c + 1, NULL, 10) : 0;
				fprintf(stderr, "mps-run: %s%s%.*s:%ld%s\n", root ? root : "", root ? "/" : "",
				        c ? (int)(c - rel) : 0, rel, ln, e);
			} else if (k) {
				/* the line is the source's (the rewrites keep lines); the
				 * column is the host copy's, so it is left out */
				long ln = strtol(k + 13, NULL, 10);
				fprintf(stderr, "mps-run: %s:%ld%s\n", file, ln + off, e);
			} else {
				fprintf(stderr, "mps-run: %s\n", l);
			}
			shown++;
		}
		l = nl ? nl + 1 : NULL;
	}
	if (shown == 0 && n > 0)
		fprintf(stderr, "%.*s", (int)(n > 2000 ? 2000 : n), d);
	free(d);
	free(incp);
}

static int compile(char **argv, const char *errpath, double limit, struct proc *p)
{
	if (proc_start(p, argv, NULL, NULL, errpath, limit) != 0) {
		warnx_("error: cannot run '%s': %s", argv[0], strerror(errno));
		return -1;
	}
	return 0;
}

static int finished(struct proc *p, const char *what, const char *errpath, const char *file,
                    long off, const char *libdir, const char *root)
{
	struct proc_result r;
	if (proc_wait(p, &r) != 0)
		return -1;
	if (!r.started) {
		warnx_("error: cannot run the C++ compiler: %s", strerror(r.errno_));
		return -1;
	}
	if (r.timed_out) {
		warnx_("error: %s: the C++ compiler did not finish within the time limit", what);
		return -1;
	}
	if (!r.exited || r.status != 0) {
		relay_compiler(errpath, file, off, 10, libdir, root);
		return -1;
	}
	return 0;
}

/* the compile of a unit of the kernels' side: CXX [-include PCH] FLAGS
 * RUN_OPT INC EXTRA... MODE IN -o OUT (MODE "-c": an object; "-x": the
 * precompiled header IN, compiled as c++-header).  Only the array is
 * allocated. */
static char **unit_argv(const struct try_env *env, const char *pch, const char *inc,
                        const char *const *extra, const char *mode, const char *in,
                        const char *out)
{
	char **v = xcalloc(env->nflags + 16, sizeof *v);
	size_t k = 0;
	v[k++] = (char *)env->cxx;
	if (pch) {
		v[k++] = "-include";
		v[k++] = (char *)pch;
	}
	for (size_t i = 0; i < env->nflags; i++)
		v[k++] = env->flags[i];
	v[k++] = RUN_OPT;
	v[k++] = (char *)inc;
	for (size_t i = 0; extra && extra[i]; i++)
		v[k++] = (char *)extra[i];
	if (!strcmp(mode, "-x")) {
		v[k++] = "-x";
		v[k++] = "c++-header";
	} else {
		v[k++] = "-c";
	}
	v[k++] = (char *)in;
	v[k++] = "-o";
	v[k++] = (char *)out;
	v[k] = NULL;
	return v;
}

/* the compile of the layer's runtime (metal_host_exec.cpp) into OUT; the
 * source path is the one string allocated besides the array: v[5] */
static char **runtime_argv(const struct try_env *env, int ucontext, const char *inc, const char *out)
{
	char **v = xcalloc(10, sizeof *v);
	size_t k = 0;
	v[k++] = (char *)env->cxx;
	v[k++] = "-std=c++17";
	v[k++] = RUN_OPT;
	v[k++] = (char *)inc;
	v[k++] = "-c";
	v[k++] = xasprintf("%s/metal_host_exec.cpp", env->host_layer);
	v[k++] = "-o";
	v[k++] = (char *)out;
	if (ucontext)
		v[k++] = "-DMH_UCONTEXT";
	v[k] = NULL;
	return v;
}

static void runtime_argv_free(char **v)
{
	if (v)
		free(v[5]);
	free(v);
}

/* what STAMP of a prebuilt folder says: the compiler, the host layer and
 * the optimisation level it was built for (malloc'd) */
static char *prebuilt_stamp(const struct try_env *env)
{
	return xasprintf("mps-run prebuilt\ncxx %s\nhost %s\nopt %s\n", env->cxx, env->host_layer,
	                 RUN_OPT);
}

/* the prebuilt folder beside the program ARGV0 (malloc'd), or NULL */
static char *prebuilt_dir(const char *argv0)
{
	char *self = setup_self(argv0), *sl, *r = NULL;
	if (self && (sl = strrchr(self, '/'))) {
		*sl = 0;
		r = xasprintf("%s/" RUN_PREBUILT_DIR, self);
	}
	free(self);
	return r;
}

/* the newest modification time of the host layer's files */
static int newest_in(const char *dir, time_t *t)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	*t = 0;
	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL) {
		struct stat st;
		char *p;
		if (e->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s", dir, e->d_name);
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && st.st_mtime > *t)
			*t = st.st_mtime;
		free(p);
	}
	closedir(d);
	return 0;
}

char *run_prebuilt_valid(const struct run_ctx *c, char **ld)
{
	char *dir = prebuilt_dir(c->argv0), *want = prebuilt_stamp(&c->env), *have = NULL;
	char *p = NULL, *rt = NULL, *pch = NULL;
	size_t n;
	struct stat st;
	time_t newest;
	int ok = 0;
	*ld = NULL;
	if (!dir)
		goto out;
	p = xasprintf("%s/STAMP", dir);
	rt = xasprintf("%s/rt.o", dir);
	pch = xasprintf("%s/" RUN_PCH_NAME ".gch", dir);
	if (read_file(p, &have, &n) != 0 || strncmp(have, want, strlen(want)) != 0 ||
	    strncmp(have + strlen(want), "ld ", 3) != 0 || stat(p, &st) != 0 ||
	    access(rt, R_OK) != 0 || access(pch, R_OK) != 0 ||
	    newest_in(c->env.host_layer, &newest) != 0 || newest > st.st_mtime)
		goto out;
	ok = 1;
	{
		const char *l = have + strlen(want) + 3;
		size_t ln = strcspn(l, "\n");
		if (ln && strncmp(l, "-", ln) != 0)
			*ld = xstrndup(l, ln);
	}
out:
	free(p);
	free(rt);
	free(pch);
	free(want);
	free(have);
	if (!ok) {
		free(dir);
		dir = NULL;
	}
	return dir;
}

int run_prebuild(const struct run_ctx *c, const char *dir)
{
	char *stamp = xasprintf("%s/STAMP", dir), *rt = xasprintf("%s/rt.o", dir);
	char *hdr = xasprintf("%s/" RUN_PCH_NAME, dir), *gch = xasprintf("%s/" RUN_PCH_NAME ".gch", dir);
	char *inc = xasprintf("-I%s", c->env.host_layer), *err = xasprintf("%s/err", dir);
	char *text = prebuilt_stamp(&c->env);
	char **hv = NULL, **rv = NULL;
	struct proc ph, pr;
	int rc = 2, bad = 0;
	static const char prelude[] =
		"/* mps-run's precompiled part of every kernel unit (made by make) */\n"
		"#include \"metal_host.h\"\n"
		"#include \"metal_host_exec.h\"\n";
	unlink(stamp);
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		warnx_("error: cannot make the folder '%s': %s", dir, strerror(errno));
		goto out;
	}
	if (put_file(hdr, prelude, sizeof prelude - 1) != 0)
		goto out;
	hv = unit_argv(&c->env, NULL, inc, NULL, "-x", hdr, gch);
	rv = runtime_argv(&c->env, 0, inc, rt);
	char *err2 = xasprintf("%s2", err);
	/* both at once; each one started is waited for */
	int h_on = compile(hv, err, RUN_COMPILE_LIMIT, &ph) == 0;
	int r_on = h_on && compile(rv, err2, RUN_COMPILE_LIMIT, &pr) == 0;
	bad = !r_on;
	if (h_on && finished(&ph, "the precompiled header", err, RUN_PCH_NAME, 0, NULL, NULL) != 0)
		bad = 1;
	if (r_on && finished(&pr, "the runtime", err2, "metal_host_exec.cpp", 0, NULL, NULL) != 0)
		bad = 1;
	unlink(err);
	unlink(err2);
	free(err2);
	if (bad)
		goto out;
	/* a faster linker than the default, when the compiler takes one
	 * (the link is a quarter of a build's compile time with GNU ld) */
	{
		static const char probe[] = "int main() { return 0; }\n";
		static const char *const lds[] = {"-fuse-ld=lld", "-fuse-ld=gold", NULL};
		char *src = xasprintf("%s/ldprobe.cpp", dir), *prog = xasprintf("%s/ldprobe", dir);
		const char *ld = "-";
		if (put_file(src, probe, sizeof probe - 1) == 0)
			for (size_t i = 0; lds[i]; i++) {
				char *lv[] = {(char *)c->env.cxx, (char *)lds[i], src, "-o", prog, NULL};
				struct proc_result r;
				if (proc_run(lv, NULL, err, err, RUN_COMPILE_LIMIT, &r) == 0 && r.started &&
				    r.exited && r.status == 0) {
					ld = lds[i];
					break;
				}
			}
		unlink(src);
		unlink(prog);
		unlink(err);
		free(src);
		free(prog);
		char *t = xasprintf("%sld %s\n", text, ld);
		free(text);
		text = t;
	}
	if (put_file(stamp, text, strlen(text)) != 0)
		goto out;
	rc = 0;
out:
	free(hv);
	runtime_argv_free(rv);
	free(stamp);
	free(rt);
	free(hdr);
	free(gch);
	free(inc);
	free(err);
	free(text);
	return rc;
}

int run_build_lib(const struct run_ctx *c, const char *libdir)
{
	char *src_path = xasprintf("%s/source.metal", libdir), *src = NULL, *host = NULL, *err = NULL;
	char *file = NULL, *drv = NULL, *tab = NULL, *p_host = NULL, *p_drv = NULL, *p_tab = NULL;
	char *p_o = NULL, *p_prog = NULL, *p_err = NULL, *p_rt = NULL, *p_rterr = NULL, *inc = NULL;
	char *inc2 = NULL, *inc3 = NULL, *inc4 = NULL, *pre = NULL, *pch = NULL, *ld = NULL;
	struct run_kernel *ks = NULL;
	struct try_header *hdrs = NULL;
	struct mr_defs defs;
	size_t len, nhdrs = 0;
	long nk = 0, off;
	unsigned long eline = 0;
	int rc = 2;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(&defs, 0, sizeof defs);
	origin(libdir, &file, &off);
	if (read_file(src_path, &src, &len) != 0) {
		warnx_("error: cannot read '%s': %s", src_path, strerror(errno));
		goto out;
	}
	/* the checkout headers it includes: copies (rewritten for the host)
	 * under LIBDIR/inc at their checkout paths */
	if (run_headers(c->root, src, len, file, off, &hdrs, &nhdrs, &defs) != 0)
		goto out;
	for (size_t i = 0; i < nhdrs; i++) {
		char *incdir = xasprintf("%s/inc", libdir), *p = xasprintf("%s/%s", incdir, hdrs[i].rel);
		int bad = 0;
		if ((mkdir(incdir, 0700) != 0 && errno != EEXIST) || try_mkdirs(incdir, hdrs[i].rel) != 0) {
			warnx_("error: cannot make a folder in '%s': %s", incdir, strerror(errno));
			bad = 1;
		} else {
			bad = put_file(p, hdrs[i].host, strlen(hdrs[i].host)) != 0;
		}
		free(incdir);
		free(p);
		if (bad)
			goto out;
	}
	mr_defs_add(&defs, src, len);
	nk = run_parse(src, len, &defs, &ks, &host, &err, &eline);
	if (nk < 0) {
		fprintf(stderr, "mps-run: %s:%lu: error: %s\n", file, eline + (unsigned long)off, err);
		goto out;
	}
	p_host = xasprintf("%s/kernel.metal", libdir);
	p_drv = xasprintf("%s/driver.cpp", libdir);
	p_tab = xasprintf("%s/kernels.txt", libdir);
	drv = run_driver(ks, (size_t)nk, "kernel.metal");
	tab = run_table(ks, (size_t)nk);
	if (c->emit) {
		fprintf(stderr, "==> %s (host copy of %s) <==\n%s\n==> driver.cpp <==\n%s\n", p_host, file,
		        host, drv);
	}
	if (put_file(p_host, host, strlen(host)) || put_file(p_drv, drv, strlen(drv)) ||
	    put_file(p_tab, tab, strlen(tab)))
		goto out;
	/* compile the driver and (once per session) the runtime, side by side */
	p_o = xasprintf("%s/driver.o", libdir);
	p_err = xasprintf("%s/driver.err", libdir);
	p_prog = xasprintf("%s/prog", libdir);
	p_rterr = xasprintf("%s/rt.err", c->session);
	inc = xasprintf("-I%s", c->env.host_layer);
	inc2 = xasprintf("-I%s", libdir);
	inc3 = xasprintf("-I%s/inc", libdir);
	inc4 = xasprintf("-I%s/inc/aten/src", libdir);
	/* make's prebuilt runtime and header, when they fit this run */
	if (!getenv("MPS_RUN_NO_PREBUILT"))
		pre = run_prebuilt_valid(c, &ld);
	if (pre && !c->ucontext)
		p_rt = xasprintf("%s/rt.o", pre);
	else
		p_rt = xasprintf("%s/rt.o", c->session);
	if (pre)
		pch = xasprintf("%s/" RUN_PCH_NAME, pre);
	{
		struct proc pd, pr;
		int need_rt = access(p_rt, F_OK) != 0, bad = 0;
		const char *extra[] = {inc2, nhdrs ? inc3 : NULL, nhdrs ? inc4 : NULL, NULL};
		char **dv = unit_argv(&c->env, pch, inc, extra, "-c", p_drv, p_o);
		char **rv = runtime_argv(&c->env, c->ucontext, inc, p_rt);
		if (c->emit) {
			fprintf(stderr, "==> compile <==\n");
			for (size_t i = 0; dv[i]; i++)
				fprintf(stderr, "%s%s", i ? " " : "", dv[i]);
			fprintf(stderr, "\n");
		}
		/* both at once; each one started is waited for */
		int d_on = compile(dv, p_err, RUN_COMPILE_LIMIT, &pd) == 0;
		int r_on = d_on && need_rt && compile(rv, p_rterr, RUN_COMPILE_LIMIT, &pr) == 0;
		bad = !d_on || (need_rt && !r_on);
		if (d_on && finished(&pd, "the kernels", p_err, file, off, libdir, c->root) != 0)
			bad = 1;
		if (r_on && finished(&pr, "the runtime", p_rterr, "metal_host_exec.cpp", 0, NULL, NULL) != 0)
			bad = 1;
		free(dv);
		runtime_argv_free(rv);
		if (bad)
			goto out;
		char *lv[] = {(char *)c->env.cxx, p_o, p_rt, "-o", p_prog, ld, NULL};
		if (compile(lv, p_err, RUN_COMPILE_LIMIT, &pd) != 0 ||
		    finished(&pd, "the link", p_err, file, off, NULL, NULL) != 0)
			goto out;
	}
	rc = 0;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (getenv("MPS_RUN_STATS"))
		fprintf(stderr, "mps-run: stats: build %.3f s (prebuilt runtime and header: %s)\n",
		        (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
		        pre ? "used" : "not used");
out:
	if (ks)
		run_kernels_free(ks, (size_t)nk);
	free(src_path);
	free(src);
	free(host);
	free(err);
	free(file);
	free(drv);
	free(tab);
	free(p_host);
	free(p_drv);
	free(p_tab);
	free(p_o);
	free(p_prog);
	free(p_err);
	free(p_rt);
	free(p_rterr);
	free(inc);
	free(inc2);
	free(pre);
	free(pch);
	free(ld);
	free(inc3);
	free(inc4);
	for (size_t i = 0; i < nhdrs; i++) {
		free(hdrs[i].rel);
		free(hdrs[i].text);
		free(hdrs[i].host);
	}
	free(hdrs);
	mr_defs_free(&defs);
	return rc;
}

/* the value of KEY in the call file's text (malloc'd), or NULL */
static char *call_value(const char *text, const char *key)
{
	size_t kl = strlen(key);
	for (const char *l = text; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		if (n > kl && !strncmp(l, key, kl) && l[kl] == ' ')
			return xstrndup(l + kl + 1, n - kl - 1);
		l = nl ? nl + 1 : NULL;
	}
	return NULL;
}

static void note_errors(const struct run_ctx *c, unsigned long n)
{
	if (n == 0)
		return;
	char *p = xasprintf("%s/errors", c->session);
	FILE *f = fopen(p, "a");
	if (f) {
		fprintf(f, "%lu\n", n);
		fclose(f);
	}
	free(p);
}

int run_call_lib(const struct run_ctx *c, const char *libdir, const char *callfile)
{
	char *text = NULL, *prog = xasprintf("%s/prog", libdir);
	char *outp = xasprintf("%s.out", callfile), *errp = xasprintf("%s.err", callfile);
	char *kernel = NULL, *site = NULL, *findings = NULL, *fd = NULL;
	size_t n;
	int rc = 2;
	if (read_file(callfile, &text, &n) != 0) {
		warnx_("error: cannot read '%s': %s", callfile, strerror(errno));
		goto out;
	}
	kernel = call_value(text, "kernel");
	site = call_value(text, "callsite");
	findings = call_value(text, "findings");
	if (!kernel || !site || !findings) {
		warnx_("error: '%s' lacks kernel, callsite or findings", callfile);
		goto out;
	}
	char *argv[] = {prog, (char *)callfile, NULL};
	struct proc_result r;
	if (proc_run(argv, NULL, outp, errp, c->env.timeout, &r) != 0 || !r.started) {
		warnx_("error: cannot run '%s'", prog);
		goto out;
	}
	if (read_file(findings, &fd, &n) == 0) {
		unsigned long errs = 0;
		fputs(fd, stderr);
		for (char *l = fd; (l = strstr(l, ": error: ")) != NULL; l++)
			errs++;
		note_errors(c, errs);
	}
	if (r.timed_out) {
		fprintf(stderr, "mps-run: %s: error: kernel '%s' still running after %g s [timeout]\n",
		        site, kernel, c->env.timeout);
		note_errors(c, 1);
		rc = 1;
		goto out;
	}
	if (r.signaled || !r.exited || r.status != 0) {
		char *e = NULL;
		size_t en;
		if (read_file(errp, &e, &en) == 0 && en)
			fputs(e, stderr);
		free(e);
		fprintf(stderr, "mps-run: %s: error: kernel '%s' did not run to its end (%s %d)\n", site,
		        kernel, r.signaled ? "signal" : "status", r.signaled ? r.signal : r.status);
		note_errors(c, 1);
		rc = 1;
		goto out;
	}
	{
		char *e = NULL;
		size_t en;
		if (read_file(errp, &e, &en) == 0 && en)
			fputs(e, stderr); /* MPS_RUN_STATS */
		free(e);
	}
	rc = 0;
out:
	free(text);
	free(prog);
	free(outp);
	free(errp);
	free(kernel);
	free(site);
	free(findings);
	free(fd);
	return rc;
}

/* python -c puts the current folder first on sys.path: in the root of a
 * PyTorch checkout, `import torch` would then find the checkout's torch/
 * sources instead of the installed torch (issue #27: the own-kernel
 * scripts run there).  A script run as `python SCRIPT` has its own folder
 * there instead, which mps_run._main sets once torch is imported. */
static const char launcher[] =
	"import sys\n"
	"while '' in sys.path:\n"
	"    sys.path.remove('')\n"
	"sys.path.insert(0, sys.argv[1])\n"
	"import mps_run\n"
	"mps_run._main(sys.argv[2:])\n";

int run_script(struct run_ctx *c, const char *script, char *const *args, size_t nargs)
{
	int status = 2;
	tmp_sweep("mps-run");
	char *dir = tmp_make("mps-run");
	if (!dir) {
		warnx_("error: cannot make a temporary folder in '%s': %s", tmp_base(), strerror(errno));
		return 2;
	}
	char *self = setup_self(c->argv0);
	char tbuf[64], sbuf[16];
	snprintf(tbuf, sizeof tbuf, "%g", c->env.timeout);
	snprintf(sbuf, sizeof sbuf, "%d", c->simd);
	if (!self || setenv("MPS_RUN_SESSION", dir, 1) || setenv("MPS_RUN_TOOL", self, 1) ||
	    setenv("MPS_RUN_HOST_LAYER", c->env.host_layer, 1) || setenv("MPS_RUN_CXX", c->env.cxx, 1) ||
	    setenv("MPS_RUN_TIMEOUT", tbuf, 1) || setenv("MPS_RUN_SIMD", sbuf, 1) ||
	    setenv("MPS_RUN_EMIT", c->emit ? "1" : "0", 1) ||
	    setenv("MPS_RUN_UCONTEXT", c->ucontext ? "1" : "0", 1) ||
	    setenv("MPS_RUN_ORDERS", c->orders == 2 ? "2" : "1", 1) || setenv("TMPDIR", dir, 1) ||
	    (c->root ? setenv("MPS_RUN_ROOT", c->root, 1) : unsetenv("MPS_RUN_ROOT"))) {
		warnx_("error: cannot set up the environment of the script");
		goto out;
	}
	{
		char **argv = xcalloc(nargs + 8, sizeof *argv);
		char *nt = xasprintf("%s/no-torch", dir);
		size_t k = 0, tried = 0;
		argv[k++] = NULL;
		argv[k++] = "-B";
		argv[k++] = "-c";
		argv[k++] = (char *)launcher;
		argv[k++] = (char *)c->env.host_layer;
		argv[k++] = (char *)script;
		for (size_t i = 0; i < nargs; i++)
			argv[k++] = args[i];
		argv[k] = NULL;
		/* each python in turn until one imports torch (the module says
		 * which does not by the file no-torch) */
		for (size_t i = 0; c->pythons[i]; i++) {
			struct proc_result r;
			argv[0] = (char *)c->pythons[i];
			int e = proc_run(argv, NULL, PROC_INHERIT, PROC_INHERIT, 0, &r);
			if (e != 0 || !r.started)
				continue;
			tried++;
			if (access(nt, F_OK) == 0) {
				unlink(nt);
				status = -1;
				continue;
			}
			if (r.signaled) {
				warnx_("error: the script ended by signal %d", r.signal);
				status = 2;
			} else {
				status = r.status;
			}
			break;
		}
		free(argv);
		free(nt);
		if (status == -1 || tried == 0) {
			warnx_("error: no python %s (tried %s%s%s; --python PATH)",
			       tried ? "imports torch" : "could be run", c->pythons[0],
			       c->pythons[1] ? ", " : "", c->pythons[1] ? c->pythons[1] : "");
			status = 2;
			goto out;
		}
	}
	{
		char *p = xasprintf("%s/errors", dir), *d;
		size_t n;
		if (read_file(p, &d, &n) == 0) {
			if (n > 0 && status != 2)
				status = 1;
			free(d);
		}
		free(p);
	}
out:
	free(self);
	rm_tree(dir);
	free(dir);
	return status;
}

int run_ctx_from_env(struct run_ctx *c)
{
	const char *s = getenv("MPS_RUN_SESSION"), *h = getenv("MPS_RUN_HOST_LAYER");
	const char *x = getenv("MPS_RUN_CXX"), *t = getenv("MPS_RUN_TIMEOUT");
	const char *e = getenv("MPS_RUN_EMIT"), *u = getenv("MPS_RUN_UCONTEXT");
	if (!s || !h || !x || !t) {
		warnx_("error: --internal-* modes are for mps-run's own Python side");
		return -1;
	}
	switch (try_env_setup(&c->env, c->argv0, h, x, NULL, 1)) {
	case TRY_ENV_READY:
		break;
	default:
		warnx_("error: the host layer or the compiler of the session is gone");
		return -1;
	}
	c->env.timeout = strtod(t, NULL);
	c->session = s;
	c->emit = e && !strcmp(e, "1");
	c->ucontext = u && !strcmp(u, "1");
	c->root = getenv("MPS_RUN_ROOT");
	return 0;
}
