/* fuzz_translate.c — libFuzzer target: arbitrary bytes through the CUDA
 * reader (tools/lib/read/cudakern.h) and the translator
 * (tools/lib/plan/translate.h).
 *
 * The input is split at its first 0x01 byte: the part before is a lambda
 * body, translated into every overload class (unary and binary, with and
 * without the c10/metal helpers); the part after is a kernel file whose
 * first identifier is asked as the kernel function, every lambda found
 * then translated as mps-migrate does.  NUL bytes become blanks.
 * Checked: a translation either succeeds with a text and parameter names
 * or names the construct that stopped it; lines are within the text; no
 * crash, leak, out-of-bounds read, or exit.
 * Build and run: tests/fuzz/run.sh (make fuzz).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "plan/translate.h"
#include "read/cudakern.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char errbuf[1 << 16];
static char *c10_names[] = {"conj", "mul", "div", "log1p"};
static const struct tr_env envs[2] = {{NULL, 0}, {c10_names, 4}};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	diag_init("fuzz_translate");
	setvbuf(stderr, errbuf, _IOFBF, sizeof errbuf);
	return 0;
}

static unsigned long count_lines(const char *s)
{
	unsigned long n = 1;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void check(const struct ck_code *c, const struct ck_code *h, size_t nh,
                  char *const *outer, size_t nouter)
{
	static const struct tr_target targets[] = {
	    {RG_CLS_FLOAT, "float", "float", MR_UNARY},
	    {RG_CLS_FLOAT, "float", "bool", MR_BINARY},
	    {RG_CLS_INTEGRAL, "int", "float", MR_BINARY},
	    {RG_CLS_INTEGRAL, "long", "long", MR_UNARY},
	    {RG_CLS_BOOL, "bool", "bool", MR_BINARY},
	    {RG_CLS_COMPLEX, "float2", "float2", MR_BINARY_ALPHA},
	};
	size_t t, e;
	for (t = 0; t < sizeof targets / sizeof targets[0]; t++)
		for (e = 0; e < 2; e++) {
			struct tr_out r;
			tr_code(c, h, nh, outer, nouter, &targets[t], &envs[e], &r);
			if (r.ok && (!r.text || !r.params[0] || r.construct))
				abort();
			if (!r.ok && (!r.construct || !*r.construct || r.text))
				abort();
			if (!r.ok && r.line && c->body_line &&
			    (r.line < c->line || r.line > c->body_line + count_lines(c->body) + 1000))
				abort();
			tr_out_free(&r);
		}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *cut, *fn;
	size_t i, n1;
	struct ck_code c;
	struct ck_param ps[2] = {{"scalar_t", "a"}, {"scalar_t", "b"}};
	struct ck_kernel k;
	if (!text)
		return 0;
	for (i = 0; i < size; i++)
		text[i] = data[i] ? (char)data[i] : ' ';
	text[size] = 0;
	cut = memchr(text, 1, size);
	n1 = cut ? (size_t)(cut - text) : size;
	/* the lambda body */
	memset(&c, 0, sizeof c);
	c.params = ps;
	c.nparams = 2;
	c.captures = "";
	c.file = "fuzz.cu";
	c.line = 1;
	c.body_line = 1;
	c.body = strndup(text, n1);
	if (c.body) {
		check(&c, NULL, 0, NULL, 0);
		c.nparams = 1;
		check(&c, NULL, 0, NULL, 0);
		free(c.body);
	}
	/* the kernel file */
	if (cut) {
		const char *f = cut + 1, *s = f;
		while (*s && !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
			s++;
		i = 0;
		while (s[i] && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		                (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			i++;
		fn = strndup(s, i);
		if (fn && *fn) {
			size_t l;
			ck_lambdas_text("fuzz.cu", f, strlen(f), fn, 0, &k);
			for (l = 0; l < k.nlambdas; l++) {
				size_t nh;
				const struct ck_code *hs = ck_lambda_helpers(&k, &k.lambdas[l], &nh);
				check(&k.lambdas[l].code, hs, nh, k.lambdas[l].outer,
				      k.lambdas[l].nouter);
			}
			ck_kernel_free(&k);
			ck_lambdas_text("fuzz.cpp", f, strlen(f), fn, 1, &k);
			ck_kernel_free(&k);
		}
		free(fn);
	}
	free(text);
	return 0;
}
