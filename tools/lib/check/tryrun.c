/* realpath() is POSIX.1-2008 with the XSI option (as in setup.c) */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
/* tryrun.c — try.h's running part: the temporary folder, the compiler,
 * the harness, the reference, the comparison and the report. */
#include "check/try.h"
#include "base/diag.h"
#include "base/lex.h"
#include "base/proc.h"
#include "base/scan.h"
#include "base/walk.h"
#include "check/setup.h"
#include "read/metalreg.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void try_tolerance(const char *dt, double *rtol, double *atol)
{
	if (!strcmp(dt, "half") || !strcmp(dt, "half2")) {
		*rtol = 1e-3;
		*atol = 1e-5;
	} else if (!strcmp(dt, "bfloat")) {
		*rtol = 1.6e-2;
		*atol = 1e-5;
	} else if (!strcmp(dt, "float") || !strcmp(dt, "float2")) {
		*rtol = 1.3e-6;
		*atol = 1e-5;
	} else {
		*rtol = 0;
		*atol = 0;
	}
}

/* ---- files ---- */

static int write_all(const char *path, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	const unsigned char *c = p;
	if (fd < 0)
		return -1;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return -1;
		}
		c += w;
		n -= (size_t)w;
	}
	return close(fd);
}

static int put(const char *dir, const char *name, const void *p, size_t n)
{
	char *path = xasprintf("%s/%s", dir, name);
	int rc = write_all(path, p, n);
	if (rc != 0)
		warnx_("error: cannot write '%s':", path);
	free(path);
	return rc;
}

int try_mkdirs(const char *dir, const char *rel)
{
	char *p = xasprintf("%s/%s", dir, rel), *q;
	for (q = p + strlen(dir) + 1; *q; q++)
		if (*q == '/') {
			*q = '\0';
			if (mkdir(p, 0700) != 0 && errno != EEXIST) {
				free(p);
				return -1;
			}
			*q = '/';
		}
	free(p);
	return 0;
}

static char *slurp(const char *dir, const char *name, size_t *len)
{
	char *path = xasprintf("%s/%s", dir, name);
	char **box = xmalloc(sizeof *box), *d;
	size_t l = 0;
	if (read_file(path, box, &l) != 0) {
		*box = NULL;
		l = 0;
	}
	d = *box;
	free(box);
	free(path);
	if (len)
		*len = l;
	return d;
}

/* the compiler's messages, cleaned: lines holding "error" (at most 4),
 * the folder's path taken out */
static char *errors_of(const char *dir, const char *name)
{
	char *t = slurp(dir, name, NULL), *line, *save = NULL;
	struct buf b;
	int shown = 0;
	size_t dl = strlen(dir);
	buf_init(&b);
	if (!t)
		return xstrdup("(no message)");
	for (line = strtok_r(t, "\n", &save); line && shown < 4;
	     line = strtok_r(NULL, "\n", &save)) {
		char *p;
		if (!strstr(line, "error"))
			continue;
		if (b.len)
			buf_puts(&b, "\n");
		for (p = line; *p;) {
			if (strncmp(p, dir, dl) == 0) {
				p += dl;
				if (*p == '/')
					p++;
				continue;
			}
			buf_add(&b, p, 1);
			p++;
		}
		shown++;
	}
	free(t);
	if (!b.len)
		buf_puts(&b, "(the compiler failed without an error line)");
	return b.data;
}

char **try_cxx_args(const struct try_env *env, const char *tmp,
                    const char *src, const char *out, int mode, int syntax,
                    long only, size_t *n)
{
	char **v = xcalloc(env->nflags + 20, sizeof *v);
	size_t k = 0, i;
	int has_o = 0;
	v[k++] = xstrdup(env->cxx);
	for (i = 0; i < env->nflags; i++) {
		if (env->flags[i][0] == '-' && env->flags[i][1] == 'O')
			has_o = 1;
		v[k++] = xstrdup(env->flags[i]);
	}
	if (!has_o)
		v[k++] = xstrdup(TRY_OPT);
	v[k++] = xasprintf("-I%s", env->host_layer);
	v[k++] = xasprintf("-I%s", tmp);
	v[k++] = xasprintf("-I%s/aten/src", tmp);
	v[k++] = xasprintf("-DMK_MODE=%d", mode);
	if (only >= 0) {
		v[k++] = xstrdup("-DMK_SEL");
		v[k++] = xasprintf("-DMK_ON_%ld", only);
	}
	if (syntax)
		v[k++] = xstrdup("-fsyntax-only");
	else {
		v[k++] = xstrdup("-o");
		v[k++] = xstrdup(out);
	}
	v[k++] = xstrdup(src);
	v[k] = NULL;
	*n = k;
	return v;
}

char *try_default_host_layer(const char *argv0)
{
	char *self = setup_self(argv0), *r = NULL;
	if (self) {
		char *sl = strrchr(self, '/');
		if (sl) {
			*sl = '\0';
			r = xasprintf("%s/../metal-host", self);
		}
		free(self);
	}
	return r;
}

int try_env_setup(struct try_env *env, const char *argv0, const char *host,
                  const char *cxx, const char *python, int need_cxx)
{
	char *abs;
	memset(env, 0, sizeof *env);
	env->timeout = 60;
	env->atol = env->rtol = -1;
	env->own_host = host ? xstrdup(host) : try_default_host_layer(argv0);
	if (!env->own_host || !walk_is_file(env->own_host, "metal_host.h") ||
	    !walk_is_file(env->own_host, "metal_stdlib") ||
	    !walk_is_file(env->own_host, "FLAGS"))
		return TRY_ENV_NO_HOST_LAYER;
	if ((abs = realpath(env->own_host, NULL))) {
		free(env->own_host);
		env->own_host = abs;
	}
	env->host_layer = env->own_host;
	if (try_read_flags(env->own_host, &env->flags, &env->nflags) != 0)
		return TRY_ENV_NO_FLAGS;
	env->own_cxx = try_find_cxx(cxx);
	if (!env->own_cxx && need_cxx)
		return TRY_ENV_NO_CXX;
	env->cxx = env->own_cxx ? env->own_cxx : "c++";
	try_pythons(python, env->own_pythons);
	env->pythons = env->own_pythons;
	return TRY_ENV_READY;
}

int try_env_default(struct try_env *env, const char *argv0, const char **why)
{
	switch (try_env_setup(env, argv0, NULL, NULL, NULL, 1)) {
	case TRY_ENV_READY:
		return 0;
	case TRY_ENV_NO_HOST_LAYER:
		*why = "no Metal host layer beside the program (tools/metal-host)";
		return -1;
	case TRY_ENV_NO_FLAGS:
		*why = "the host layer's FLAGS cannot be read";
		return -1;
	default:
		*why = "no C++ compiler found ($CXX, c++, clang++, g++)";
		return -1;
	}
}

void try_env_free(struct try_env *env)
{
	if (env->flags)
		lex_strv_free(env->flags, env->nflags);
	free(env->own_host);
	free(env->own_cxx);
	memset(env, 0, sizeof *env);
}

char *try_find_cxx(const char *given)
{
	static const char *const cands[] = {"c++", "clang++", "g++", NULL};
	const char *e = getenv("CXX");
	char *p = NULL;
	size_t i;
	if (given)
		return proc_find_program(given);
	if (e && *e && !strchr(e, ' '))
		p = proc_find_program(e);
	for (i = 0; cands[i] && !p; i++)
		p = proc_find_program(cands[i]);
	return p;
}

void try_pythons(const char *given, const char *out[3])
{
	char *p;
	out[0] = out[1] = out[2] = NULL;
	if (given) {
		out[0] = given;
		return;
	}
	out[0] = "python3";
	p = proc_find_program("python3");
	if (!p || strcmp(p, "/usr/bin/python3") != 0)
		out[1] = "/usr/bin/python3";
	free(p);
}

int try_read_flags(const char *dir, char ***flags, size_t *n)
{
	char *path = xasprintf("%s/FLAGS", dir), *data;
	size_t len, cap = 0, i = 0;
	*flags = NULL;
	*n = 0;
	if (read_file(path, &data, &len) != 0) {
		warnx_("error: cannot read '%s':", path);
		free(path);
		return -1;
	}
	free(path);
	while (i < len) {
		size_t e = i;
		char *t;
		while (e < len && data[e] != '\n')
			e++;
		t = lex_trim_dup(data, i, e);
		i = e + 1;
		if (!*t || *t == '#') {
			free(t);
			continue;
		}
		GROW(*flags, *n, cap);
		(*flags)[(*n)++] = t;
	}
	free(data);
	return 0;
}

/* The time limit of a compiler run: --timeout, but never under
 * TRY_BUILD_MIN_LIMIT seconds.  The time limit is there for the functor
 * (a harness that never returns); a compile that a busy machine slows
 * past a short --timeout is not a fault of the code tried (issue #25). */
#define TRY_BUILD_MIN_LIMIT 60.0
static double build_limit(const struct try_env *env)
{
	return env->timeout > TRY_BUILD_MIN_LIMIT ? env->timeout : TRY_BUILD_MIN_LIMIT;
}

/* run the compiler; 0 built, 1 errors (msg), -1 could not run (said) */
static int compile(const struct try_env *env, const char *dir, int mode,
                   int syntax, long only, const char *exe, char **msg)
{
	size_t n;
	char *src = xasprintf("%s/harness.cpp", dir);
	char *errp = xasprintf("%s/cc.err", dir);
	char **argv = try_cxx_args(env, dir, src, exe, mode, syntax, only, &n);
	struct proc_result r;
	int rc;
	*msg = NULL;
	if (proc_run(argv, dir, NULL, errp, build_limit(env), &r) != 0) {
		warnx_("error: cannot run the compiler '%s':", env->cxx);
		rc = -1;
	} else if (!r.started) {
		warnx_("error: cannot run the compiler '%s': %s", env->cxx,
		       strerror(r.errno_));
		rc = -1;
	} else if (r.timed_out) {
		*msg = xasprintf("the compiler ran past the time limit (%g s)", build_limit(env));
		rc = 1;
	} else if (!r.exited || r.status != 0) {
		*msg = errors_of(dir, "cc.err");
		rc = 1;
	} else
		rc = 0;
	lex_strv_free(argv, n);
	free(src);
	free(errp);
	return rc;
}

/* ---- writing the folder ---- */

static int write_folder(const struct try_plan *pl, const char *dir)
{
	size_t i;
	char *h = try_harness(pl), *man = try_manifest(pl);
	int rc = 0;
	rc |= put(dir, "harness.cpp", h, strlen(h));
	rc |= put(dir, "ref.py", try_reference_script(), strlen(try_reference_script()));
	rc |= put(dir, "manifest.json", man, strlen(man));
	free(h);
	free(man);
	/* the copies, at their checkout paths (the contract's TMP layout) */
	for (i = 0; i <= pl->nhdrs && rc == 0; i++) {
		const char *rel = i < pl->nhdrs ? pl->hdrs[i].rel : pl->metal_rel;
		const char *text = i < pl->nhdrs ? pl->hdrs[i].host : pl->host_source;
		if (try_mkdirs(dir, rel) != 0) {
			warnx_("error: cannot make a folder in '%s':", dir);
			rc = -1;
		} else
			rc |= put(dir, rel, text, strlen(text));
	}
	for (i = 0; i < pl->nregs && rc == 0; i++) {
		unsigned char *a, *b, *c;
		size_t n, sz = try_dtype_size(pl->regs[i].in);
		char name[32];
		try_inputs3(&pl->regs[i], &a, &b, &c, &n);
		snprintf(name, sizeof name, "r%zu.a", i);
		rc |= put(dir, name, a, n * sz);
		if (b) {
			snprintf(name, sizeof name, "r%zu.b", i);
			rc |= put(dir, name, b, n * sz);
		}
		if (c) {
			snprintf(name, sizeof name, "r%zu.c", i);
			rc |= put(dir, name, c, n * sz);
		}
		free(a);
		free(b);
		free(c);
	}
	for (i = 0; i < pl->ncases && rc == 0; i++) {
		const struct try_case *c = &pl->cases[i];
		const struct try_reg *r = &pl->regs[c->reg];
		unsigned char al[8 * 16];
		char name[32];
		size_t sz;
		if (!r->alpha || !c->alpha_value)
			continue;
		sz = try_dtype_size(r->alpha);
		if (pl->alpha_fields) {
			/* a struct of float members: "v1,v2,..." in member order */
			const char *v = c->alpha_value;
			size_t k;
			for (k = 0; k < pl->nalpha_fields && k < 16; k++) {
				char *one = xasprintf("%.*s", (int)strcspn(v, ","), v);
				try_alpha_bytes("float", one, al + 4 * k);
				free(one);
				v += strcspn(v, ",");
				if (*v == ',')
					v++;
			}
			sz = 4 * k;
		} else
			try_alpha_bytes(r->alpha, c->alpha_value, al);
		snprintf(name, sizeof name, "c%zu.alpha", i);
		rc |= put(dir, name, al, sz);
	}
	return rc ? -1 : 0;
}

/* ---- comparing ---- */

static void fmt_value(char *o, size_t on, const char *dt, const unsigned char *p,
                      size_t i)
{
	double re, im;
	if (try_is_integral(dt)) {
		snprintf(o, on, "%lld", (long long)try_ivalue(dt, p, i));
		return;
	}
	try_value(dt, p, i, &re, &im);
	if (try_is_complex(dt))
		snprintf(o, on, "(%.9g, %.9g)", re, im);
	else if (!strcmp(dt, "float")) {
		uint32_t u;
		memcpy(&u, p + 4 * i, 4);
		if (isnan(re) && !(u & 0x00400000u)) /* signaling: its bits */
			snprintf(o, on, "snan (0x%08lx)", (unsigned long)u);
		else
			snprintf(o, on, "%.9g", re);
	}
	else {
		uint16_t h;
		memcpy(&h, p + 2 * i, 2);
		snprintf(o, on, "%.6g (0x%04x)", re, h);
	}
}

static void fmt_double(char *o, size_t on, double re, double im, int cplx,
                       int integral, const char *out_dt)
{
	if (integral)
		snprintf(o, on, "%.0f", re);
	else if (cplx)
		snprintf(o, on, "(%.9g, %.9g)", re, im);
	else if (!strcmp(out_dt, "half") || !strcmp(out_dt, "bfloat")) {
		uint16_t h = out_dt[0] == 'h' ? try_f32_to_f16((float)re)
		                              : try_f32_to_bf16((float)re);
		snprintf(o, on, "%.6g (0x%04x)", re, h);
	} else
		snprintf(o, on, "%.9g", re);
}

static int close_enough(double a, double b, double atol, double rtol)
{
	if (isnan(a) && isnan(b))
		return 1;
	if (a == b)
		return 1;
	if (isinf(a) || isinf(b) || isnan(a) || isnan(b))
		return 0;
	return fabs(a - b) <= atol + rtol * fabs(b);
}

/* compare ours (OUT elements) with the reference values: REF is f64,
 * c128 or i64 per FORMAT; MASK (may be NULL) says which count */

/* a mismatch that rounding cannot explain: integers that differ, NaN or
 * an infinity on one side only, opposite signs, or a relative error over
 * 1e-3 or ten times the dtype's RTOL (try.h try_result.gross) */
static int gross_miss(int exact, double ore, double oim, double fre, double fim,
                      double rtol)
{
	double d, mag;
	if (exact)
		return 1;
	if (isnan(ore) != isnan(fre) || isnan(oim) != isnan(fim) ||
	    isinf(ore) != isinf(fre) || isinf(oim) != isinf(fim))
		return 1;
	if (!isfinite(ore) || !isfinite(oim))
		return ore != fre || oim != fim;
	if ((ore < 0 && fre > 0) || (ore > 0 && fre < 0) ||
	    (oim < 0 && fim > 0) || (oim > 0 && fim < 0))
		return 1;
	d = hypot(ore - fre, oim - fim);
	mag = hypot(fre, fim);
	return d > (10 * rtol > 1e-3 ? 10 * rtol : 1e-3) * mag;
}

/* one shown difference: element I's inputs, ours and the CPU's, as the
 * report prints them (the counted list and the "beyond" list alike) */
static void fill_miss(struct try_miss *m, const struct try_reg *r, size_t i,
                      int cls, const unsigned char *ina,
                      const unsigned char *inb, const unsigned char *ours,
                      double fre, double fim, int cplx, const char *format)
{
	m->index = i;
	m->cls = cls;
	fmt_value(m->a, sizeof m->a, r->in, ina, i);
	if (inb)
		fmt_value(m->b, sizeof m->b, r->in, inb, i);
	else
		m->b[0] = '\0';
	fmt_value(m->ours, sizeof m->ours, r->out, ours, i);
	fmt_double(m->cpu, sizeof m->cpu, fre, fim, cplx, !strcmp(format, "i64"),
	           r->out);
}

static void compare(const struct try_plan *pl, const struct try_case *c,
                    struct try_result *res, const unsigned char *ours,
                    const unsigned char *ref, const char *format,
                    const unsigned char *mask, const unsigned char *ina,
                    const unsigned char *inb, int nan_inf_only,
                    const unsigned char *trap, const unsigned char *hsel, int strict,
                    const struct try_opinfo *oi)
{
	const struct try_reg *r = &pl->regs[c->reg];
	size_t i;
	int per_class[TRY_NCLASS] = {0};
	int cplx = try_is_complex(r->out), integral = try_is_integral(r->out);
	const char *comp = !strcmp(r->out, "float2") ? "float"
	                   : !strcmp(r->out, "half2") ? "half" : r->out;
	/* a complex OUT against a real CPU result (abs of a complex: the
	 * kernel writes |z| into a complex buffer, the host keeps the real
	 * parts): the real parts are compared */
	int real_ref = cplx && strcmp(format, "c128") != 0;
	if (real_ref)
		cplx = 0;
	res->case_class = try_plan_case_class(pl, c->reg);
	for (i = 0; i < res->n; i++) {
		double ore, oim, fre = 0, fim = 0;
		int ok, cls, counted;
		if ((mask && !mask[i]) || (trap && trap[i]) || (hsel && !hsel[i]))
			continue;
		cls = res->case_class != TRY_SAMPLED ? res->case_class
		                                     : try_classify(r, pl->op_base, oi, ina, inb, i);
		counted = try_class_rules[cls].sampled;
		try_value(r->out, ours, i, &ore, &oim);
		if (real_ref)
			oim = 0;
		if (!strcmp(format, "i64")) {
			int64_t v;
			memcpy(&v, ref + 8 * i, 8);
			fre = (double)v;
			if (integral) {
				int64_t o = try_ivalue(r->out, ours, i);
				ok = o == v;
				goto judged;
			}
		} else if (!strcmp(format, "c128")) {
			memcpy(&fre, ref + 16 * i, 8);
			memcpy(&fim, ref + 16 * i + 8, 8);
		} else
			memcpy(&fre, ref + 8 * i, 8);
		if (nan_inf_only) {
			/* the float64 evaluation, rounded to the output dtype: NaN and
			 * inf must come out the same */
			double rr = try_round_to(r->out, fre);
			ok = (isnan(rr) == isnan(ore)) &&
			     (!isinf(rr) || rr == ore) && (!isinf(ore) || rr == ore);
			fre = rr;
		} else if (cplx) {
			if ((isnan(ore) || isnan(oim)) && (isnan(fre) || isnan(fim)))
				ok = 1;
			else if (ore == fre && oim == fim)
				ok = 1;
			else if (isinf(ore) || isinf(oim) || isinf(fre) || isinf(fim) ||
			         isnan(ore) || isnan(oim) || isnan(fre) || isnan(fim))
				ok = 0;
			else
				ok = hypot(ore - fre, oim - fim) <= res->atol + res->rtol * hypot(fre, fim);
		} else if (integral) {
			ok = ore == fre;
		} else
			ok = close_enough(ore, fre, res->atol, res->rtol);
		if (!nan_inf_only && !integral && counted) {
			double d = cplx ? hypot(ore - fre, oim - fim) : fabs(ore - fre);
			if (isfinite(d) && !(isnan(ore) && isnan(fre))) {
				double mag = cplx ? hypot(fre, fim) : fabs(fre);
				double u = try_ulp(comp, ore, fre);
				if (cplx) {
					double u2 = try_ulp(comp, oim, fim);
					if (u2 > u)
						u = u2;
				}
				if (d > res->max_abs)
					res->max_abs = d;
				if (mag > 0 && d / mag > res->max_rel)
					res->max_rel = d / mag;
				if (u > res->max_ulp)
					res->max_ulp = u;
			}
		}
	judged:
		res->compared++;
		if (counted)
			res->sampled++;
		if (!ok && !counted) {
			res->beyond++;
			res->beyond_by[cls]++;
			if (res->nbshown < TRY_SHOWN && per_class[cls] < 2) {
				per_class[cls]++;
				fill_miss(&res->bshown[res->nbshown++], r, i, cls, ina, inb,
				          ours, fre, fim, cplx, format);
			}
		} else if (!ok) {
			res->mismatches++;
			if (gross_miss(integral || !strcmp(format, "i64"), ore, oim, fre, fim,
			               res->rtol))
				res->gross++;
			if (res->nshown < TRY_SHOWN) {
				fill_miss(&res->shown[res->nshown++], r, i, cls, ina, inb,
				          ours, fre, fim, cplx, format);
			}
		}
	}
	res->verdict = res->mismatches || (strict && res->beyond) ? 1 : 0;
}

/* OP's OpInfo into OI: the checkout's, else that of the torch the
 * reference imported (DIR/torch-dir, written first by ref.py) */
static void load_opinfo(const struct try_plan *pl, const char *dir, int with_torch,
                        struct try_opinfo *oi)
{
	char *td = with_torch ? slurp(dir, "torch-dir", NULL) : NULL;
	char *nl = td ? strchr(td, '\n') : NULL;
	if (nl)
		*nl = '\0';
	try_opinfo_load(oi, pl->root, td, pl->op_base);
	free(td);
}

/* DIR/rK.sel for each registration K: one byte per input element, 1 when
 * PyTorch's tests sample it (try_classify with OP's OpInfo, as the
 * comparison counts it), for the reference's second run on the sampled
 * inputs only.  0, or -1 when a file cannot be written. */
static int write_selection(const struct try_plan *pl, const char *dir)
{
	struct try_opinfo oi;
	size_t i, j;
	int rc = 0;
	load_opinfo(pl, dir, 1, &oi);
	for (i = 0; i < pl->nregs && rc == 0; i++) {
		unsigned char *a, *b, *c, *sel;
		size_t n;
		char name[32];
		try_inputs3(&pl->regs[i], &a, &b, &c, &n);
		sel = xcalloc(n ? n : 1, 1);
		for (j = 0; j < n; j++)
			sel[j] = (unsigned char)try_class_rules[try_classify(&pl->regs[i], pl->op_base,
			                                                     &oi, a, b, j)].sampled;
		snprintf(name, sizeof name, "r%zu.sel", i);
		rc |= put(dir, name, sel, n);
		free(sel);
		free(a);
		free(b);
		free(c);
	}
	try_opinfo_free(&oi);
	return rc;
}

/* ---- the run ---- */

static int run_harness(const struct try_plan *pl, const struct try_env *env,
                       const char *dir, const char *exe, const char *outname,
                       struct try_outcome *out, int record)
{
	char *argv[4];
	char *op = xasprintf("%s/%s", dir, outname), *ep = xasprintf("%s/run.err", dir);
	struct proc_result r;
	int rc = 0, sampled = 0;
	argv[0] = (char *)exe;
	argv[1] = (char *)dir;
	argv[2] = NULL;
	argv[3] = NULL;
again:
	if (proc_run(argv, dir, op, ep, env->timeout, &r) != 0) {
		warnx_("error: cannot run the harness:");
		free(op);
		free(ep);
		return -1;
	}
	if (!r.started) {
		warnx_("error: cannot run the harness '%s': %s", exe, strerror(r.errno_));
		free(op);
		free(ep);
		return -1;
	}
	/* past the time limit on every input (a functor that loops n times
	 * for an n no test draws): once more on the inputs the tests sample
	 * (not --strict, which counts every input) */
	if (record && r.timed_out && !sampled && !env->strict &&
	    write_selection(pl, dir) == 0) {
		sampled = 1;
		argv[2] = "sampled";
		goto again;
	}
	if (record) {
		char *txt = slurp(dir, outname, NULL), *line, *save = NULL;
		size_t i;
		char *why = NULL;
		if (r.timed_out)
			why = xasprintf("the harness ran past the time limit (%g s): the functor may not terminate", env->timeout);
		else if (r.signaled)
			why = xasprintf("the harness died of signal %d", r.signal);
		else if (!r.exited || r.status != 0) {
			char *e = slurp(dir, "run.err", NULL);
			why = xasprintf("the harness failed (exit %d)%s%s", r.status,
			                e && *e ? ": " : "", e ? e : "");
			if (why[strlen(why) - 1] == '\n')
				why[strlen(why) - 1] = '\0';
			free(e);
		}
		for (line = txt ? strtok_r(txt, "\n", &save) : NULL; line;
		     line = strtok_r(NULL, "\n", &save)) {
			unsigned long k, ln;
			char kn[256], dv[32];
			if (sscanf(line, "case %lu kernel %255s %31s", &k, kn, dv) == 3 &&
			    k < pl->ncases) {
				struct try_result *rs = &out->res[k];
				rs->kernels = xrealloc(rs->kernels, (rs->nkernels + 1) * sizeof *rs->kernels);
				rs->kdiffer = xrealloc(rs->kdiffer, (rs->nkernels + 1) * sizeof *rs->kdiffer);
				rs->kernels[rs->nkernels] = xstrdup(kn);
				rs->kdiffer[rs->nkernels] = dv[0] == '-' ? -1 : strtol(dv, NULL, 10);
				rs->nkernels++;
				continue;
			}
			if (sscanf(line, "case %lu overload %lu", &k, &ln) == 2 &&
			    k < pl->ncases) {
				out->res[k].overload = ln;
				out->res[k].ran = 1;
				out->res[k].run_sampled = sampled;
			}
		}
		for (i = 0; i < pl->ncases; i++)
			if (why && out->res[i].compiled && !out->res[i].run_error) {
				out->res[i].ran = 0;
				out->res[i].run_error = xstrdup(why);
			}
		if (why)
			rc = 1;
		free(why);
		free(txt);
	} else if (r.timed_out || !r.exited || r.status != 0)
		rc = 1;
	free(op);
	free(ep);
	return rc;
}

/* start candidate python number *pyi (and the next ones while they cannot
 * be started) on SCRIPT DIR [MODE]; 1 started, 0 none left */
static int start_python(const struct try_env *env, size_t *pyi, const char *dir,
                        const char *script, const char *mode, struct proc *py)
{
	for (; env->pythons && env->pythons[*pyi]; (*pyi)++) {
		char *argv[7], *o = xasprintf("%s/py.out", dir), *e = xasprintf("%s/py.err", dir);
		int ok;
		argv[0] = (char *)env->pythons[*pyi];
		argv[1] = "-I";
		argv[2] = "-B";
		argv[3] = (char *)script;
		argv[4] = (char *)dir;
		argv[5] = (char *)mode;
		argv[6] = NULL;
		ok = proc_start(py, argv, dir, o, e, env->timeout) == 0;
		free(o);
		free(e);
		if (ok)
			return 1;
	}
	return 0;
}

/* the last line of DIR/NAME (a traceback's), malloc'd, or NULL */
static char *last_line(const char *dir, const char *name)
{
	char *t = slurp(dir, name, NULL), *r;
	const char *last;
	size_t l;
	if (!t)
		return NULL;
	l = strlen(t);
	while (l && t[l - 1] == '\n')
		t[--l] = '\0';
	last = strrchr(t, '\n') ? strrchr(t, '\n') + 1 : t;
	r = xstrdup(last);
	free(t);
	return r;
}

/* wait for the reference started as candidate PYI; when that python has
 * no torch, run the next candidate.  When the reference runs past its
 * time limit (not --strict, which counts every input), it is run once
 * more on the inputs the tests sample only (ref.py's "sampled" mode, the
 * same time limit): a CPU that loops long on inputs no test draws
 * (chebyshev_polynomial_t for n = 10^15) keeps the verdict on the
 * sampled ones; the others are not compared (issue #25).  Sets
 * out->python, torch_version, no_torch and, when the script failed or
 * was killed, each case's ref_error. */
static void wait_reference(const struct try_plan *pl, const struct try_env *env,
                           const char *dir, struct proc *py, int started,
                           size_t pyi, struct try_outcome *out)
{
	char *nt = xasprintf("%s/no-torch", dir);
	int second = 0;
	while (started) {
		struct proc_result pr;
		struct stat st;
		size_t k;
		started = 0;
		proc_wait(py, &pr);
		if (pr.started && pr.timed_out && !second && !env->strict &&
		    stat(nt, &st) != 0 && write_selection(pl, dir) == 0) {
			second = 1;
			started = start_python(env, &pyi, dir, "ref.py", "sampled", py);
			if (started)
				continue;
		}
		if (pr.started && pr.exited && pr.status == 0 && stat(nt, &st) != 0) {
			out->python = xstrdup(env->pythons[pyi]);
			out->torch_version = slurp(dir, "torch-version", NULL);
			if (out->torch_version) {
				char *nl = strchr(out->torch_version, '\n');
				if (nl)
					*nl = '\0';
			}
		} else if (pr.started && (pr.signaled || pr.timed_out) && stat(nt, &st) != 0) {
			for (k = 0; k < pl->ncases; k++)
				if (!out->res[k].ref_error) {
					out->res[k].ref_error =
						pr.timed_out ? xasprintf("the reference ran past the time limit (%g s)", env->timeout)
						             : xasprintf("the reference died of signal %d", pr.signal);
					out->res[k].ref_killed = 1;
				}
			out->python = xstrdup(env->pythons[pyi]);
		} else if (pr.started && pr.exited && pr.status != 0 && stat(nt, &st) != 0) {
			/* the script failed: its last line, as each case's error */
			char *last = last_line(dir, "py.err");
			for (k = 0; k < pl->ncases; k++)
				if (!out->res[k].ref_error) {
					out->res[k].ref_error = xasprintf("the reference script failed: %s",
					                                  last ? last : "");
					out->res[k].ref_killed = 1;
				}
			out->python = xstrdup(env->pythons[pyi]);
			free(last);
		}
		if (!out->python) {
			/* that python has no torch: the next candidate */
			unlink(nt);
			pyi++;
			started = start_python(env, &pyi, dir, "ref.py", NULL, py);
		}
	}
	free(nt);
	if (!out->python)
		out->no_torch = 1;
}

/* the host path: compile the harness (the dense kernel templates, else the
 * functor, else registration by registration) and run it.  Returns 0, or
 * -1 after a diagnostic (the compiler cannot be run at all). */
static int host_run(const struct try_plan *pl, const struct try_env *env,
                    const char *dir, struct try_outcome *out)
{
	char *exe = xasprintf("%s/harness", dir), *msg = NULL;
	int *good = xcalloc(pl->nregs ? pl->nregs : 1, sizeof *good);
	int cr, rc = -1, built = 0; /* built: exe exists (the whole harness) */
	size_t i;

	cr = compile(env, dir, 1, 0, -1, exe, &msg);
	if (cr < 0)
		goto done;
	if (cr == 0) {
		built = 1;
		for (i = 0; i < pl->nregs; i++)
			good[i] = 1;
	} else {
		char *m0 = NULL;
		int all_dense = 1;
		for (i = 0; i < pl->nregs; i++)
			if (!pl->regs[i].dense)
				all_dense = 0;
		out->fallback_why = all_dense ? msg : xstrdup("");
		if (!all_dense)
			free(msg);
		msg = NULL;
		cr = compile(env, dir, 0, 0, -1, exe, &m0);
		if (cr < 0) {
			free(m0);
			goto done;
		}
		if (cr == 0) {
			built = 1;
			for (i = 0; i < pl->nregs; i++)
				good[i] = 1;
			for (i = 0; i < pl->ncases; i++)
				out->res[i].fallback = 1;
		} else {
			/* which registrations compile alone */
			char **msgs = xcalloc(pl->nregs, sizeof *msgs);
			for (i = 0; i < pl->nregs; i++) {
				int c1 = compile(env, dir, 0, 1, (long)i, exe, &msgs[i]);
				if (c1 < 0) {
					lex_strv_free(msgs, pl->nregs);
					free(m0);
					goto done;
				}
				good[i] = c1 == 0;
			}
			for (i = 0; i < pl->ncases; i++) {
				size_t rg = pl->cases[i].reg;
				out->res[i].fallback = 1;
				if (!good[rg])
					out->res[i].compile_msg = xstrdup(msgs[rg] ? msgs[rg] : m0);
			}
			lex_strv_free(msgs, pl->nregs);
			/* build the good ones, one binary each */
			for (i = 0; i < pl->nregs; i++) {
				char *m1 = NULL, *ex1 = xasprintf("%s/harness%zu", dir, i);
				int c1 = good[i] ? compile(env, dir, 0, 0, (long)i, ex1, &m1) : 1;
				if (c1 < 0) {
					free(ex1);
					free(m0);
					goto done;
				}
				if (c1 != 0 && good[i]) {
					/* passed the syntax check, yet not built (the
					 * compiler past its time limit): not compiled */
					size_t k;
					good[i] = 0;
					for (k = 0; k < pl->ncases; k++)
						if (pl->cases[k].reg == i && !out->res[k].compile_msg)
							out->res[k].compile_msg = xstrdup(m1 ? m1 : m0 ? m0 : "");
				}
				if (c1 == 0) {
					char name[32];
					snprintf(name, sizeof name, "run%zu.out", i);
					if (run_harness(pl, env, dir, ex1, name, out, 1) < 0) {
						free(ex1);
						free(m1);
						free(m0);
						goto done;
					}
				}
				free(m1);
				free(ex1);
			}
		}
		free(m0);
	}
	for (i = 0; i < pl->ncases; i++)
		out->res[i].compiled = good[pl->cases[i].reg];
	{
		int any_ran = 0, all = 1;
		for (i = 0; i < pl->ncases; i++) {
			any_ran |= out->res[i].ran;
			all &= out->res[i].compiled;
		}
		if (built && !any_ran && all && pl->ncases > 0 &&
		    run_harness(pl, env, dir, exe, "run.out", out, 1) < 0)
			goto done;
	}
	rc = 0;
done:
	free(good);
	free(exe);
	free(msg);
	return rc;
}

char **try_metal_args(const char *xcrun, const char *root, const char *metal_rel,
                      const char *out, size_t *n)
{
	static const char *const fixed[] = {"-sdk", "macosx", "metal", "-std=metal3.1",
	                                    "-Wall", "-Wextra", "-fno-fast-math", NULL};
	char **v = xcalloc(24, sizeof *v);
	size_t k = 0, i;
	v[k++] = xstrdup(xcrun);
	for (i = 0; fixed[i]; i++)
		v[k++] = xstrdup(fixed[i]);
	v[k++] = xstrdup("-I");
	v[k++] = xstrdup(root);
	v[k++] = xstrdup("-I");
	v[k++] = xasprintf("%s/aten/src", root);
	v[k++] = xstrdup("-c");
	v[k++] = xasprintf("%s/%s", root, metal_rel);
	v[k++] = xstrdup("-o");
	v[k++] = xstrdup(out);
	v[k] = NULL;
	*n = k;
	return v;
}

/* the --device mps path (macOS): the real Metal compiler on the checkout's
 * .metal file when xcrun is there, then the registrations through
 * torch.mps.compile_shader (mps.py, with the python that imports torch).
 * Returns 0, or -1 after a diagnostic. */
static int mps_run(const struct try_plan *pl, const struct try_env *env,
                   const char *dir, struct try_outcome *out)
{
	size_t i;
	int metal_ok = 1;
	if (env->xcrun) {
		size_t n;
		char *air = xasprintf("%s/kernel.air", dir), *errp = xasprintf("%s/metal.err", dir);
		char **argv = try_metal_args(env->xcrun, env->root, pl->metal_rel, air, &n);
		struct proc_result r;
		if (proc_run(argv, dir, NULL, errp, build_limit(env), &r) != 0 || !r.started) {
			warnx_("error: cannot run '%s':", env->xcrun);
			lex_strv_free(argv, n);
			free(air);
			free(errp);
			return -1;
		}
		if (r.timed_out || !r.exited || r.status != 0) {
			char *m = r.timed_out ? xasprintf("the Metal compiler ran past the time limit (%g s)", build_limit(env))
			                      : errors_of(dir, "metal.err");
			metal_ok = 0;
			for (i = 0; i < pl->ncases; i++)
				out->res[i].compile_msg = xstrdup(m);
			free(m);
		}
		out->metal_compiled = metal_ok;
		lex_strv_free(argv, n);
		free(air);
		free(errp);
	}
	for (i = 0; i < pl->ncases; i++)
		out->res[i].compiled = metal_ok;
	if (metal_ok && out->python) {
		char *argv[6], *o = xasprintf("%s/mps.out", dir), *e = xasprintf("%s/mps.err", dir);
		struct proc_result r;
		argv[0] = out->python;
		argv[1] = "-I";
		argv[2] = "-B";
		argv[3] = "mps.py";
		argv[4] = (char *)dir;
		argv[5] = NULL;
		if (proc_run(argv, dir, o, e, env->timeout, &r) == 0 && r.started) {
			char *why = NULL;
			if (r.timed_out)
				why = xasprintf("torch.mps ran past the time limit (%g s)", env->timeout);
			else if (!r.exited || r.status != 0) {
				char *last = last_line(dir, "mps.err");
				why = xasprintf("the torch.mps script failed: %s", last ? last : "");
				free(last);
			}
			for (i = 0; i < pl->ncases; i++) {
				char name[32], *p;
				struct stat st;
				snprintf(name, sizeof name, "c%zu.out", i);
				p = xasprintf("%s/%s", dir, name);
				out->res[i].ran = stat(p, &st) == 0;
				if (!out->res[i].ran)
					out->res[i].run_error = xstrdup(why ? why : "no result written");
				free(p);
			}
			free(why);
		}
		free(o);
		free(e);
	}
	return 0;
}

/* compare each case that ran with the CPU's result, or, without torch,
 * its NaN and inf with a float64 evaluation (host path only).  Returns 0,
 * or -1 after a diagnostic. */
static int compare_all(const struct try_plan *pl, const struct try_env *env,
                       const char *dir, struct try_outcome *out)
{
	int need_f64 = 0;
	unsigned char *trap = NULL;
	size_t i;
	for (i = 0; i < pl->ncases; i++) {
		struct try_result *res = &out->res[i];
		const struct try_case *c = &pl->cases[i];
		const struct try_reg *r = &pl->regs[c->reg];
		char name[32], *js, *ours, *ina, *inb = NULL;
		size_t ol, al;
		json_t *info = NULL;
		if (!res->ran)
			continue;
		snprintf(name, sizeof name, "c%zu.out", i);
		ours = slurp(dir, name, &ol);
		snprintf(name, sizeof name, "r%zu.a", c->reg);
		ina = slurp(dir, name, &al);
		if (mr_kind_arity(r->kind) >= 2) {
			snprintf(name, sizeof name, "r%zu.b", c->reg);
			inb = slurp(dir, name, NULL);
		}
		res->n = ours ? ol / try_dtype_size(r->out) : 0;
		snprintf(name, sizeof name, "c%zu.trap", i);
		free(trap);
		trap = (unsigned char *)slurp(dir, name, NULL);
		if (trap) {
			size_t q;
			for (q = 0; q < res->n; q++)
				res->trapped += trap[q] != 0;
		}
		if (out->no_torch) {
			if (try_is_float(r->in) && try_is_float(r->out))
				need_f64 = 1;
			free(ours);
			free(ina);
			free(inb);
			continue;
		}
		snprintf(name, sizeof name, "c%zu.json", i);
		js = slurp(dir, name, NULL);
		if (js)
			info = json_loads(js, 0, NULL);
		free(js);
		if (info) {
			json_t *v;
			if ((v = json_object_get(info, "error")) && json_is_string(v))
				res->ref_error = xstrdup(json_string_value(v));
			if ((v = json_object_get(info, "note")) && json_is_string(v))
				res->ref_note = xstrdup(json_string_value(v));
			if ((v = json_object_get(info, "dtype")) && json_is_string(v))
				res->ref_dtype = xstrdup(json_string_value(v));
			res->upcast = json_is_true(json_object_get(info, "upcast")) ||
			              !strcmp(r->in, "half2"); /* through complex64 */
		}
		if (info && !res->ref_error && ours && ina) {
			char *ref, *mask = NULL;
			size_t rl, need;
			const char *fmt = json_string_value(json_object_get(info, "format"));
			snprintf(name, sizeof name, "c%zu.ref", i);
			ref = slurp(dir, name, &rl);
			if (json_is_true(json_object_get(info, "mask"))) {
				snprintf(name, sizeof name, "c%zu.mask", i);
				mask = slurp(dir, name, NULL);
			}
			need = res->n * (fmt && !strcmp(fmt, "c128") ? 16 : 8);
			if (ref && fmt && rl == need) {
				char *hsel = NULL;
				if (res->run_sampled) {
					/* the harness computed the sampled inputs only */
					snprintf(name, sizeof name, "r%zu.sel", c->reg);
					hsel = slurp(dir, name, NULL);
				}
				res->reference = 1;
				compare(pl, c, res, (unsigned char *)ours, (unsigned char *)ref,
				        fmt, (unsigned char *)mask, (unsigned char *)ina,
				        (unsigned char *)inb, 0, trap, (unsigned char *)hsel,
				        env->strict, &out->opinfo);
				free(hsel);
			} else if (!res->ref_error)
				res->ref_error = xasprintf("the CPU result has %zu bytes, not %zu",
				                           rl, need);
			free(ref);
			free(mask);
		} else if (!res->ref_error && !info)
			res->ref_error = xstrdup(out->python ? "no reference written" : "no reference");
		json_decref(info);
		free(ours);
		free(ina);
		free(inb);
	}
	free(trap);
	if (out->no_torch && need_f64 && !env->device_mps) {
		char *m2 = NULL, *ex2 = xasprintf("%s/harness64", dir);
		int c2 = compile(env, dir, 2, 0, -1, ex2, &m2);
		if (c2 < 0) {
			free(ex2);
			return -1;
		}
		if (c2 == 0 && run_harness(pl, env, dir, ex2, "run64.out", out, 0) == 0) {
			for (i = 0; i < pl->ncases; i++) {
				struct try_result *res = &out->res[i];
				const struct try_case *c = &pl->cases[i];
				const struct try_reg *r = &pl->regs[c->reg];
				char name[32], *ours, *ref, *ina, *inb = NULL;
				size_t ol, rl;
				if (!res->ran || !try_is_float(r->in) || !try_is_float(r->out))
					continue;
				snprintf(name, sizeof name, "c%zu.out", i);
				ours = slurp(dir, name, &ol);
				snprintf(name, sizeof name, "c%zu.f64", i);
				ref = slurp(dir, name, &rl);
				snprintf(name, sizeof name, "r%zu.a", c->reg);
				ina = slurp(dir, name, NULL);
				if (mr_kind_arity(r->kind) >= 2) {
					snprintf(name, sizeof name, "r%zu.b", c->reg);
					inb = slurp(dir, name, NULL);
				}
				if (ours && ref && ina && rl == res->n * 8) {
					res->f64 = 1;
					compare(pl, c, res, (unsigned char *)ours, (unsigned char *)ref,
					        "f64", NULL, (unsigned char *)ina,
					        (unsigned char *)inb, 1, NULL, NULL, env->strict, &out->opinfo);
				}
				free(ours);
				free(ref);
				free(ina);
				free(inb);
			}
		} else if (c2 != 0) {
			char *nl;
			out->f64_msg = m2;
			m2 = NULL;
			if ((nl = strchr(out->f64_msg, '\n')) != NULL)
				*nl = '\0';
		} else
			out->f64_msg = xstrdup("the float64 evaluation did not run to the end");
		free(m2);
		free(ex2);
	}
	return 0;
}

int try_run(const struct try_plan *pl, const struct try_env *env,
            struct try_outcome *out)
{
	char *dir, *old_tmpdir = NULL;
	struct proc py;
	int py_started = 0, rc = -1;
	size_t i, pyi = 0;

	memset(out, 0, sizeof *out);
	out->strict = env->strict;
	out->res = xcalloc(pl->ncases ? pl->ncases : 1, sizeof *out->res);
	for (i = 0; i < pl->ncases; i++) {
		const struct try_reg *r = &pl->regs[pl->cases[i].reg];
		const struct try_tol *tt = pl->tol ? &pl->tol[pl->cases[i].reg] : NULL;
		double rt, at;
		try_tolerance(r->out, &rt, &at);
		/* test_mps.py's own, where it gives OP one at the test's dtype
		   (integer results stay exact) */
		if (tt && tt->set && !try_is_integral(r->out) && (env->rtol < 0 || env->atol < 0)) {
			rt = tt->rtol;
			at = tt->atol;
			out->res[i].tol_source = xasprintf("test/test_mps.py:%lu", tt->line);
		}
		out->res[i].rtol = env->rtol >= 0 ? env->rtol : rt;
		out->res[i].atol = env->atol >= 0 ? env->atol : at;
		out->res[i].verdict = 2;
		out->res[i].case_class = try_plan_case_class(pl, pl->cases[i].reg);
	}
	tmp_sweep("mps-try");
	dir = tmp_make("mps-try");
	if (!dir) {
		warnx_("error: cannot make a temporary folder in '%s':", tmp_base());
		return -1;
	}
	/* what the programs write in $TMPDIR (the compiler's temporaries)
	 * goes in the folder too, and goes with it */
	{
		const char *t = getenv("TMPDIR");
		old_tmpdir = t ? xstrdup(t) : NULL;
		setenv("TMPDIR", dir, 1);
	}
	if (write_folder(pl, dir) != 0)
		goto done;
	if (env->device_mps) {
		char *src = try_mps_source(pl), *script = try_mps_script(pl);
		int w = put(dir, "kernel.metal", src, strlen(src)) |
		        put(dir, "mps.py", script, strlen(script));
		free(src);
		free(script);
		if (w)
			goto done;
	}

	/* the reference, started first: python and torch's import take a
	 * second or more, the compile as long */
	py_started = start_python(env, &pyi, dir, "ref.py", NULL, &py);
	if (env->device_mps) {
		/* torch.mps needs the python that imports torch: the reference
		 * first */
		wait_reference(pl, env, dir, &py, py_started, pyi, out);
		py_started = 0;
		if (mps_run(pl, env, dir, out) != 0)
			goto done;
	} else {
		int hr = host_run(pl, env, dir, out);
		wait_reference(pl, env, dir, &py, py_started, pyi, out);
		py_started = 0;
		if (hr != 0)
			goto done;
	}
	if (out->python) {
		out->python_path = strchr(out->python, '/') ? xstrdup(out->python)
		                                            : proc_find_program(out->python);
		out->reference_older = try_version_older(out->torch_version,
		                                         pl->checkout_version);
	}
	load_opinfo(pl, dir, out->python != NULL, &out->opinfo);
	if (compare_all(pl, env, dir, out) != 0)
		goto done;
	rc = 0;
	out->status = 0;
	for (i = 0; i < pl->ncases; i++) {
		struct try_result *res = &out->res[i];
		size_t j;
		for (j = 1; j < res->nkernels; j++)
			if (res->kdiffer[j] > 0)
				res->verdict = 1;
		if (!res->compiled || !res->ran || res->verdict == 1 || res->ref_killed)
			out->status = 1;
	}
done:
	if (py_started) {
		struct proc_result pr;
		kill(-py.pid, 9);
		proc_wait(&py, &pr);
	}
	if (old_tmpdir)
		setenv("TMPDIR", old_tmpdir, 1);
	else
		unsetenv("TMPDIR");
	free(old_tmpdir);
	if (getenv("MK_TRY_KEEP")) /* debugging the tool itself */
		fprintf(stderr, "mps-try: kept %s\n", dir);
	else if (rm_tree(dir) != 0)
		warnx_("warning: cannot remove the temporary folder '%s':", dir);
	free(dir);
	return rc;
}

void try_outcome_free(const struct try_plan *pl, struct try_outcome *out)
{
	size_t i;
	if (out->res)
		for (i = 0; i < pl->ncases; i++) {
			free(out->res[i].compile_msg);
			free(out->res[i].run_error);
			free(out->res[i].ref_dtype);
			free(out->res[i].ref_note);
			free(out->res[i].ref_error);
			free(out->res[i].tol_source);
			lex_strv_free(out->res[i].kernels, out->res[i].nkernels);
			free(out->res[i].kdiffer);
		}
	free(out->res);
	free(out->torch_version);
	free(out->python);
	free(out->python_path);
	free(out->fallback_why);
	free(out->f64_msg);
	try_opinfo_free(&out->opinfo);
	memset(out, 0, sizeof *out);
}
