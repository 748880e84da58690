/* test_try.c — cmocka tests of mps-try's library parts that need no
 * compiler: the rewrites of tools/metal-host/REWRITES.md (try_rewrite,
 * every example of its tables and the line-keeping promise), the FLAGS
 * reader, the compiler's argv as the contract writes it, the half /
 * bfloat conversions the inputs and reports rely on, and the input
 * classes of the verdict (trysample.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/lex.h"
#include "check/try.h"
#include "tree.h"

static void rw_is(const char *in, const char *want)
{
	size_t n;
	char *out = try_rewrite(in, strlen(in), &n);
	assert_int_equal(n, strlen(out));
	assert_string_equal(out, want);
	free(out);
}

/* REWRITES.md, rule 2's table, row by row */
static void test_rule2_examples(void **state)
{
	(void)state;
	rw_is("if (x > -.5 && x < .5)", "if (x > -.5f && x < .5f)");
	rw_is("chbevl(32.0 / x - 2.0, B, 25)", "chbevl(32.0f / x - 2.0f, B, 25)");
	rw_is("constexpr float a[4] = {0.886226899, -1.645349621};",
	      "constexpr float a[4] = {0.886226899f, -1.645349621f};");
	rw_is("1.0E+17, 5e7, 1.", "1.0E+17f, 5e7f, 1.f");
	rw_is("0x1.fffffep-1", "0x1.fffffep-1f");
	rw_is("1e-5f, 0.5h, 12, 0x7fff, 1u", "1e-5f, 0.5h, 12, 0x7fff, 1u");
	rw_is("x.x + 1.0", "x.x + 1.0f");
	rw_is("\"1.5\" // 0.5 ulp\n#include <a1.5.h>\n", "\"1.5\" // 0.5 ulp\n#include <a1.5.h>\n");
}

/* rule 2's edges: suffixes, hex integers, separators, where a literal
 * may not start */
static void test_rule2_edges(void **state)
{
	(void)state;
	rw_is("0x1e3 + 0x1p3 + 0X.8P-1", "0x1e3 + 0x1p3f + 0X.8P-1f");
	rw_is("1'000.5 + 2.5e1'0", "1'000.5f + 2.5e1'0f");
	rw_is("1.5L 1.5F 2.5_km 1.5.2", "1.5L 1.5F 2.5_km 1.5.2");
	rw_is("v1.5 + a.b5 + x_2.0", "v1.5 + a.b5 + x_2.0");
	rw_is("1e + 1e+ 7 + e5", "1e + 1e+ 7 + e5");
	rw_is("/* 2.0 */ 3.0 /* 4.\n5. */ 6.", "/* 2.0 */ 3.0f /* 4.\n5. */ 6.f");
	rw_is("'.' + '1' + 1.5", "'.' + '1' + 1.5f");
	/* a // comment continued by a backslash reaches the next line */
	rw_is("// a \\\n 1.5\n2.5", "// a \\\n 1.5\n2.5f");
	/* inside #define bodies (continued lines too), not in #include */
	rw_is("#define H(x) (x * .5 + \\\n 1.)\n#  include \"k1.5.h\"\n",
	      "#define H(x) (x * .5f + \\\n 1.f)\n#  include \"k1.5.h\"\n");
	rw_is("#if 1\nfloat y = 2.0;\n#endif\n", "#if 1\nfloat y = 2.0f;\n#endif\n");
}

/* REWRITES.md, rule 1: only right after `template`; newlines and the
 * continuing backslashes stay */
static void test_rule1(void **state)
{
	(void)state;
	rw_is("template [[host_name(\"a_\" #N)]] kernel void f<T>(int);",
	      "template                        kernel void f<T>(int);");
	rw_is("template \\\n  [[ host_name(#NAME \"_dense_\" #DTYPEO \"_\" #DTYPEI \\\n\"_\" #DTYPEA)]] kernel void ::g(",
	      "template \\\n                                                   \\\n               kernel void ::g(");
	/* elsewhere it stays; other attributes after template stay */
	rw_is("kernel void f() [[host_name(\"x\")]];", "kernel void f() [[host_name(\"x\")]];");
	rw_is("template [[maybe_unused]] int x;", "template [[maybe_unused]] int x;");
	rw_is("mytemplate [[host_name(\"x\")]]", "mytemplate [[host_name(\"x\")]]");
	/* a "]]" inside the name's string does not end it */
	rw_is("template [[host_name(\"a]]b\")]] kernel", "template                       kernel");
	/* unclosed: left alone */
	rw_is("template [[host_name(\"x\")", "template [[host_name(\"x\")");
	/* a comment between template and [[ is whitespace (translation phase
	 * 3), as the compilers that reject the attribute see it */
	rw_is("template /**/ [[host_name(\"x\")]];", "template /**/                   ;");
}

/* every line break is kept, whatever the text: the #line directives of the
 * harness and the compiler's line numbers depend on it */
/* rule 3: `constant` beside `constexpr` and `const` beside `constant`
 * (either side, blanks and backslash-newlines between) become spaces;
 * elsewhere they stay */
static void test_rule3(void **state)
{
	(void)state;
	rw_is("constant constexpr unsigned n = 16;", "         constexpr unsigned n = 16;");
	rw_is("constexpr constant bool v = true;", "constexpr          bool v = true;");
	rw_is("static constant constexpr const int S = 32;", "static          constexpr const int S = 32;");
	rw_is("#define C10_C constant \\\n  constexpr\n", "#define C10_C          \\\n  constexpr\n");
	rw_is("constexpr /* x */ constant int k = 1;", "constexpr /* x */          int k = 1;");
	/* const beside constant */
	rw_is("constant const char* src, const constant int* p", "constant       char* src,       constant int* p");
	rw_is("constant const char* const s; const char* t;", "constant       char* const s; const char* t;");
	rw_is("constexpr constant const int k = 1;", "constexpr                int k = 1;");
	/* not beside constexpr, or not the word */
	rw_is("constant float* p; constant int& n;", "constant float* p; constant int& n;");
	rw_is("constant int x = 1; constexpr int y = 2;", "constant int x = 1; constexpr int y = 2;");
	rw_is("constants constexpr; constant constexpr_x; myconstexpr constant;",
	      "constants constexpr; constant constexpr_x; myconstexpr constant;");
	rw_is("\"constant constexpr\" // constant constexpr\n", "\"constant constexpr\" // constant constexpr\n");
}

/* rule 4: swizzles after `.` or `->`, read or assigned */
static void test_rule4(void **state)
{
	(void)state;
	rw_is("ctr.zw = f(i);", "ctr.template mh_swizzle_ref<123>() = f(i);");
	rw_is("a = v.xy + p->yx;", "a = v.template mh_swizzle<101>() + p->template mh_swizzle<110>();");
	rw_is("c.rgb *= 2; d.xxyy == e.wzyx", "c.template mh_swizzle_ref<1012>() *= 2; d.template mh_swizzle<10011>() == e.template mh_swizzle<13210>()");
	rw_is("v . xy <<= 1", "v . template mh_swizzle_ref<101>() <<= 1");
	rw_is("#define S(v) (v).xy \\\n + 1\n", "#define S(v) (v).template mh_swizzle<101>() \\\n + 1\n");
	/* one number, no comma: a swizzle inside a macro's argument stays one argument */
	rw_is("EQ(v.xy.x, 1)", "EQ(v.template mh_swizzle<101>().x, 1)");
	/* not swizzles: one letter, five, mixed sets, other letters, no
	 * member access, in comments and strings */
	rw_is("v.x + v.xyzwx + v.xg + v.xq + xy + s.bar_ + f(zw)",
	      "v.x + v.xyzwx + v.xg + v.xq + xy + s.bar_ + f(zw)");
	rw_is("// v.xy\n\"v.xy\"", "// v.xy\n\"v.xy\"");
	rw_is("1.xy", "1.xy");
}

/* rule 5: the operands of `?:` go through tern_a / tern_b, each told the
 * other's type; lines kept; not in #if lines */
static void test_rule5(void **state)
{
	(void)state;
	rw_is("r = c ? a : b;",
	      "r = c ? ::metal_host::tern_a<decltype(( b))>(( a )) : ::metal_host::tern_b<decltype(( a ))>(( b));");
	/* the third operand ends at `,` `)` `;`; the middle may hold `::` */
	rw_is("f(c ? ::x : y, z)",
	      "f(c ? ::metal_host::tern_a<decltype(( y))>(( ::x )) : ::metal_host::tern_b<decltype(( ::x ))>(( y)), z)");
	/* nested in the third operand: rewritten inside, and in the copy */
	rw_is("c?a:d?e:g;",
	      "c? ::metal_host::tern_a<decltype((d? ::metal_host::tern_a<decltype((g))>((e)) : ::metal_host::tern_b<decltype((e))>((g))))>((a)) : "
	      "::metal_host::tern_b<decltype((a))>((d? ::metal_host::tern_a<decltype((g))>((e)) : ::metal_host::tern_b<decltype((e))>((g))));");
	/* a line break in an operand stays in place, the copy is on one line
	 * without the comment */
	rw_is("c ? a // x\n : b;",
	      "c ? ::metal_host::tern_a<decltype(( b))>(( a // x\n )) : ::metal_host::tern_b<decltype(( a       ))>(( b));");
	/* in a #define body (continued lines), not in #if */
	rw_is("#define M(c) (c ? 1 : \\\n 2.)\n#if A ? 1 : 0\n#endif\n",
	      "#define M(c) (c ? ::metal_host::tern_a<decltype((    2.f))>(( 1 )) : ::metal_host::tern_b<decltype(( 1 ))>(( \\\n 2.f)))\n#if A ? 1 : 0\n#endif\n");
	/* not a ternary: no colon before the statement ends; in literals */
	rw_is("a ? b; '?' \"x ? y : z\"", "a ? b; '?' \"x ? y : z\"");
}

static void test_lines_kept(void **state)
{
	static const char *const texts[] = {
		"template [[host_name(\"a\"\n \"b\")]]\nkernel void f();\n1.5\n",
		"\"unterminated 1.5\n2.5\n",
		"'x\n1.0 /* open\n2.0\n",
		"#define A(x) template [[host_name(#x)]] \\\n  kernel void k<x>(\\\n int)\n",
		"\r\n1.5\r\ntemplate [[host_name(\"q\")\r\n]] x\r\n",
	};
	size_t k;
	(void)state;
	for (k = 0; k < sizeof texts / sizeof *texts; k++) {
		size_t n, i, a = 0, b = 0;
		char *out = try_rewrite(texts[k], strlen(texts[k]), &n);
		for (i = 0; texts[k][i]; i++)
			a += texts[k][i] == '\n';
		for (i = 0; i < n; i++)
			b += out[i] == '\n';
		assert_int_equal(a, b);
		free(out);
	}
}

static void test_flags(void **state)
{
	char dir[] = "/tmp/mk-test-try.XXXXXX", path[64], **v;
	size_t n;
	FILE *f;
	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/FLAGS", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("# a comment\n-std=c++17\n\n  -include  \nmetal_host.h\n\t# indented comment\n-fwrapv", f);
	fclose(f);
	assert_int_equal(try_read_flags(dir, &v, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(v[0], "-std=c++17");
	assert_string_equal(v[1], "-include");
	assert_string_equal(v[2], "metal_host.h");
	assert_string_equal(v[3], "-fwrapv");
	{
		struct try_env env;
		size_t na, i;
		char **a;
		static const char *const want[] = {
			"g++", "-std=c++17", "-include", "metal_host.h", "-fwrapv", "-O0",
			"-I/L", "-I/T", "-I/T/aten/src", "-DMK_MODE=0", "-DMK_SEL", "-DMK_ON_3",
			"-fsyntax-only", "/T/h.cpp",
		};
		memset(&env, 0, sizeof env);
		env.cxx = "g++";
		env.host_layer = "/L";
		env.flags = v;
		env.nflags = n;
		a = try_cxx_args(&env, "/T", "/T/h.cpp", "/T/h", 0, 1, 3, &na);
		assert_int_equal(na, sizeof want / sizeof *want);
		for (i = 0; i < na; i++)
			assert_string_equal(a[i], want[i]);
		assert_null(a[na]);
		lex_strv_free(a, na);
	}
	lex_strv_free(v, n);
	unlink(path);
	snprintf(path, sizeof path, "%s/none", dir);
	assert_int_equal(try_read_flags(path, &v, &n), -1);
	rmdir(dir);
}

/* the None value read from the host stub: the scalar argument itself, a
 * local initialised that way, value_or, and nothing to read */
static void none_is(const char *host, const char *kernel, int want,
                    const char *value)
{
	char root[] = "/tmp/mk-test-none.XXXXXX", *v, *w;
	assert_non_null(mkdtemp(root));
	tree_put(root, "aten/src/ATen/native/mps/operations/K.mm", host, strlen(host));
	assert_int_equal(try_none_value(root, kernel, "eps", NULL, 0, &v, &w), want);
	if (want == 1) {
		assert_string_equal(v, value);
		assert_string_equal(w, "aten/src/ATen/native/mps/operations/K.mm:3");
	} else
		assert_null(v);
	free(v);
	free(w);
	tree_remove(root);
}

static void test_none_value(void **state)
{
	(void)state;
	none_is("static void k(TensorIteratorBase& iter, std::optional<double> eps) {\n"
	        "  // a comment: eps ? *eps : 7.0\n"
	        "  lib.exec_unary_kernel(iter, \"logit\", Scalar(eps ? *eps : -1.0), kFloat);\n}\n",
	        "logit", 1, "-1.0");
	none_is("static void k(TensorIteratorBase& iter, std::optional<double> eps) {\n"
	        "  const float e = static_cast<float>(eps.has_value() ? eps.value() : -2.5f);\n"
	        "  lib.exec_unary_kernel(iter, \"logit\", e, kFloat);\n}\n",
	        "logit", 1, "-2.5");
	none_is("static void k(TensorIteratorBase& iter, std::optional<double> eps) {\n"
	        "\n"
	        "  lib.exec_binary_kernel(iter, \"k2\", eps.value_or(1e-6), kFloat);\n}\n",
	        "k2", 1, "1e-6");
	/* another kernel's call, a call without a scalar, an unknown form */
	none_is("static void k(TensorIteratorBase& iter, std::optional<double> eps) {\n"
	        "\n"
	        "  lib.exec_unary_kernel(iter, \"other\", eps.value_or(1), kFloat);\n}\n",
	        "logit", 0, NULL);
	none_is("static void k(TensorIteratorBase& iter) {\n"
	        "\n"
	        "  lib.exec_unary_kernel(iter, \"logit\");\n}\n",
	        "logit", 0, NULL);
	none_is("static void k(TensorIteratorBase& iter, std::optional<double> eps) {\n"
	        "\n"
	        "  lib.exec_unary_kernel(iter, \"logit\", pick(eps), kFloat);\n}\n",
	        "logit", 0, NULL);
}

static void test_half_bfloat(void **state)
{
	(void)state;
	assert_int_equal(try_f32_to_f16(1.0f), 0x3c00);
	assert_int_equal(try_f32_to_f16(65520.0f), 0x7c00);  /* rounds to inf */
	assert_int_equal(try_f32_to_f16(65519.0f), 0x7bff);
	assert_int_equal(try_f32_to_f16(5.9604645e-08f), 0x0001); /* smallest subnormal */
	assert_int_equal(try_f32_to_f16(2.9802322e-08f), 0x0000); /* a tie: to even */
	assert_true(try_f16_to_f32(0x7e00) != try_f16_to_f32(0x7e00));
	assert_int_equal(try_f32_to_bf16(1.0f), 0x3f80);
	assert_int_equal(try_f32_to_bf16(1.00390625f), 0x3f80); /* tie to even */
	assert_int_equal(try_f32_to_bf16(1.01171875f), 0x3f82);
	assert_true(try_bf16_to_f32(0x3f81) == 1.0078125f);
}


/* the class of one element: A (and B) as raw bytes of REG's IN dtype */
static int cls_of(const char *in, int binary, const char *op, const void *a,
                  const void *b)
{
	struct try_reg r;
	memset(&r, 0, sizeof r);
	r.in = (char *)in;
	r.out = (char *)in;
	r.kind = binary ? 2 : 0;
	return try_classify(&r, op, NULL, a, binary ? b : NULL, 0);
}

static int f1(float x)
{
	return cls_of("float", 0, "op", &x, NULL);
}

static int f2(float x, float y, const char *op)
{
	return cls_of("float", 1, op, &x, &y);
}

static void test_classes(void **state)
{
	uint32_t snan = 0x7fa00000u, qnan = 0x7fc00000u, sub = 0x00000001u;
	float fs, fq, fsub, inf = INFINITY;
	uint16_t h;
	int64_t l;
	int32_t i32;
	uint8_t u8;
	float c[2];
	(void)state;
	memcpy(&fs, &snan, 4);
	memcpy(&fq, &qnan, 4);
	memcpy(&fsub, &sub, 4);
	/* unary float: make_tensor's range, the picked values, the rest */
	assert_int_equal(f1(0.0f), TRY_SAMPLED);
	assert_int_equal(f1(-9.0f), TRY_SAMPLED);
	assert_int_equal(f1(9.5f), TRY_PAST_RANGE);
	assert_int_equal(f1(89.0f), TRY_PAST_RANGE);
	assert_int_equal(f1(1001.2f), TRY_SAMPLED_LARGE);
	assert_int_equal(f1(-1e20f), TRY_SAMPLED_LARGE);
	assert_int_equal(f1(fq), TRY_SAMPLED_EXTREMAL);
	assert_int_equal(f1(-inf), TRY_SAMPLED_EXTREMAL);
	assert_int_equal(f1(fs), TRY_SIGNALING_NAN);
	assert_int_equal(f1(fsub), TRY_SUBNORMAL);
	assert_true(try_class_rules[TRY_SAMPLED_LARGE].sampled);
	assert_false(try_class_rules[TRY_SUBNORMAL].sampled);
	/* binary: each set against itself; extremal scalars for comparisons */
	assert_int_equal(f2(1.0f, -2.5f, "atan2"), TRY_SAMPLED);
	assert_int_equal(f2(501.0f, -1e20f, "atan2"), TRY_SAMPLED_LARGE);
	assert_int_equal(f2(501.0f, 2.0f, "atan2"), TRY_MIXED);
	assert_int_equal(f2(fq, inf, "maximum"), TRY_SAMPLED_EXTREMAL);
	assert_int_equal(f2(fq, 1.0f, "maximum"), TRY_MIXED);
	assert_int_equal(f2(fq, 1.0f, "lt"), TRY_SAMPLED_EXTREMAL);
	assert_int_equal(f2(1.0f, fs, "fmax"), TRY_SIGNALING_NAN);
	assert_int_equal(f2(fsub, fs, "fmax"), TRY_SIGNALING_NAN);
	assert_int_equal(f2(fsub, 1.0f, "fmod"), TRY_SUBNORMAL);
	/* tiny: nonzero magnitudes under 0.001 no list picks (0.001 itself
	 * is picked); half subnormals among them.  1e20 is not a half large
	 * value (it is inf there) */
	assert_int_equal(f1(0.001f), TRY_SAMPLED);
	assert_int_equal(f1(-0.00099f), TRY_TINY);
	assert_int_equal(f1(1.17549435e-38f), TRY_TINY);
	assert_int_equal(f2(7.5f, 1.17549435e-38f, "div"), TRY_TINY);
	assert_false(try_class_rules[TRY_TINY].sampled);
	h = try_f32_to_f16(0.001f);
	assert_int_equal(cls_of("half", 0, "op", &h, NULL), TRY_SAMPLED);
	h = 0x1400; /* 0.000977 */
	assert_int_equal(cls_of("half", 0, "op", &h, NULL), TRY_TINY);
	h = 0x0001;
	assert_int_equal(cls_of("half", 0, "op", &h, NULL), TRY_TINY);
	/* a zero against a value no list picks: no test makes the pair */
	assert_int_equal(f2(0.0f, 2.5f, "atan2"), TRY_MIXED);
	assert_int_equal(f2(-2.5f, -0.0f, "atan2"), TRY_MIXED);
	assert_int_equal(f2(0.0f, -0.25f, "atan2"), TRY_SAMPLED);
	assert_int_equal(f2(-0.0f, 0.0f, "atan2"), TRY_SAMPLED);
	assert_int_equal(f2(0.0f, 3.14159274f, "atan2"), TRY_SAMPLED);
	h = 0x7d00;
	assert_int_equal(cls_of("half", 0, "op", &h, NULL), TRY_SIGNALING_NAN);
	h = try_f32_to_f16(4988429.2f);
	assert_int_equal(h, 0x7c00);
	h = 0x7bff; /* 65504 */
	assert_int_equal(cls_of("half", 0, "op", &h, NULL), TRY_PAST_RANGE);
	h = 0x0001; /* bfloat: a subnormal */
	assert_int_equal(cls_of("bfloat", 0, "op", &h, NULL), TRY_SUBNORMAL);
	/* integers: the range, the picked values, shifts past the width */
	l = 64;
	assert_int_equal(cls_of("long", 0, "op", &l, NULL), TRY_PAST_RANGE);
	l = -10701;
	assert_int_equal(cls_of("long", 0, "op", &l, NULL), TRY_SAMPLED_LARGE);
	i32 = -128;
	assert_int_equal(cls_of("int", 0, "op", &i32, NULL), TRY_SAMPLED);
	u8 = 190;
	assert_int_equal(cls_of("uchar", 0, "op", &u8, NULL), TRY_SAMPLED);
	u8 = 191;
	assert_int_equal(cls_of("uchar", 0, "op", &u8, NULL), TRY_PAST_RANGE);
	/* complex: an infinite component, all-extremal pairs (binary only) */
	c[0] = -inf;
	c[1] = inf;
	assert_int_equal(cls_of("float2", 0, "exp", c, NULL), TRY_COMPLEX_NONFINITE);
	assert_int_equal(cls_of("float2", 1, "mul", c, c), TRY_SAMPLED_EXTREMAL);
	c[1] = 1.0f;
	assert_int_equal(cls_of("float2", 1, "mul", c, c), TRY_COMPLEX_NONFINITE);
	c[0] = 2.0f;
	assert_int_equal(cls_of("float2", 0, "exp", c, NULL), TRY_SAMPLED);
	/* complex: a zero component with a drawn one; a tiny component */
	c[0] = -0.0f;
	c[1] = 3.0f;
	assert_int_equal(cls_of("float2", 0, "atan", c, NULL), TRY_MIXED);
	c[1] = 1.0f;
	assert_int_equal(cls_of("float2", 0, "atan", c, NULL), TRY_SAMPLED);
	c[0] = 1.82f;
	c[1] = 9.9e-5f;
	assert_int_equal(cls_of("float2", 0, "sqrt", c, NULL), TRY_TINY);
	{
		float z2[2] = {0.0f, 0.0f}, d2[2] = {2.5f, 1.0f}, p2[2] = {1.0f, -0.25f};
		assert_int_equal(cls_of("float2", 1, "mul", z2, d2), TRY_MIXED);
		assert_int_equal(cls_of("float2", 1, "mul", z2, p2), TRY_SAMPLED);
	}
	/* complex32 is not a dtype the tests run */
	assert_int_equal(try_case_class("half2"), TRY_DTYPE_UNTESTED);
	assert_int_equal(try_case_class("float2"), TRY_SAMPLED);
}

static void test_versions(void **state)
{
	char root[] = "/tmp/mk-test-version.XXXXXX", *v;
	(void)state;
	assert_true(try_version_older("1.13.0a0", "2.14.1"));
	assert_true(try_version_older("2.6.0", "2.14.1"));
	assert_false(try_version_older("2.14.1", "2.14.1"));
	assert_false(try_version_older("2.14.1+cpu", "2.14.0"));
	assert_false(try_version_older("1.13.0a0", NULL));
	assert_false(try_version_older("x", "2.0"));
	assert_non_null(mkdtemp(root));
	assert_null(try_checkout_version(root));
	tree_put(root, "version.txt", " 2.14.1 \n", 9);
	v = try_checkout_version(root);
	assert_string_equal(v, "2.14.1");
	free(v);
	tree_remove(root);
}

/* what an OpInfo entry says (try_opinfo_parse): the entry of the name,
 * not a commented-out one; the dotted special. form; a domain of literal
 * numbers or None; handles_large_floats; the kind */
static void test_opinfo(void **state)
{
	static const char text[] =
		"op_db = [\n"
		"    # UnaryUfuncInfo('log', domain=(-5, None)),\n"
		"    ForeachFuncInfo('log'),\n"
		"    UnaryUfuncInfo('logit', domain=(0, 1)),\n"
		"    UnaryUfuncInfo('log',\n"
		"                   ref=np.log,  # domain=(7, 8) in a comment\n"
		"                   domain=(0, None),\n"
		"                   sample_kwargs=lambda d, t, x: ({'a': (1, 2)}, {})),\n"
		"    UnaryUfuncInfo('special.erfcx', domain=(None, 2.5),\n"
		"                   handles_large_floats=False),\n"
		"    UnaryUfuncInfo('acos', domain=(-math.pi, 1)),\n"
		"    BinaryUfuncInfo('pow', supports_one_python_scalar=True),\n"
		"]\n";
	struct try_opinfo oi;
	(void)state;
	assert_int_equal(try_opinfo_parse(&oi, text, "f.py", "log"), 1);
	assert_int_equal(oi.line, 5);
	assert_true(oi.unary && !oi.binary);
	assert_true(oi.has_low && !oi.has_high);
	assert_true(oi.low == 0);
	assert_int_equal(oi.large_floats, 1);
	try_opinfo_free(&oi);
	assert_int_equal(try_opinfo_parse(&oi, text, "f.py", "special_erfcx"), 1);
	assert_true(!oi.has_low && oi.has_high && oi.high == 2.5);
	assert_int_equal(oi.large_floats, 0);
	try_opinfo_free(&oi);
	/* a side that is no literal: the domain is not read */
	assert_int_equal(try_opinfo_parse(&oi, text, "f.py", "acos"), 1);
	assert_true(!oi.has_low && !oi.has_high);
	try_opinfo_free(&oi);
	assert_int_equal(try_opinfo_parse(&oi, text, "f.py", "pow"), 1);
	assert_true(oi.binary && !oi.unary);
	try_opinfo_free(&oi);
	assert_int_equal(try_opinfo_parse(&oi, text, "f.py", "erfcx"), 0);
	assert_int_equal(try_opinfo_parse(&oi, text, "f.py", "lo"), 0);
}

/* the reference-numerics tests an OpInfo entry takes away (try_opinfo_parse):
 * skips and expected failures of the large and extremal tests, on every
 * device, on mps, or when IS_MACOS holds, with their dtypes (all when not
 * given); not a device-specific one, not one active elsewhere, not a
 * tolerance decorator, not another test, not another entry's */
static void test_opinfo_untested(void **state)
{
	static const char text[] =
		"op_db = [\n"
		"    UnaryUfuncInfo('lgamma',\n"
		"        skips=(\n"
		"            DecorateInfo(unittest.skip('x'), 'TestUnaryUfuncs',\n"
		"                         'test_reference_numerics_extremal', dtypes=[torch.bfloat16]),\n"
		"            DecorateInfo(unittest.skip('x'), 'TestUnaryUfuncs',\n"
		"                         'test_reference_numerics_large', device_type='cpu',\n"
		"                         dtypes=[torch.float32]),\n"
		"            DecorateInfo(unittest.skip('x'), 'TestUnaryUfuncs',\n"
		"                         'test_reference_numerics_extremal',\n"
		"                         dtypes=[torch.float32], active_if=IS_WINDOWS),\n"
		"            DecorateInfo(unittest.expectedFailure, 'TestUnaryUfuncs',\n"
		"                         'test_reference_numerics_large', dtypes=(torch.float16,),\n"
		"                         active_if=(IS_MACOS or IS_WINDOWS)),\n"
		"            DecorateInfo(unittest.skip('x'), 'TestUnaryUfuncs',\n"
		"                         'test_reference_numerics_small', dtypes=[torch.float32]),\n"
		"            DecorateInfo(toleranceOverride({torch.float32: tol(atol=1, rtol=1)}),\n"
		"                         'TestUnaryUfuncs', 'test_reference_numerics_extremal'),\n"
		"        )),\n"
		"    BinaryUfuncInfo('add',\n"
		"        skips=(DecorateInfo(unittest.skip('x'), 'TestBinaryUfuncs',\n"
		"                            'test_reference_numerics_extremal_values',\n"
		"                            dtypes=(torch.complex64, torch.complex128)),\n"
		"               DecorateInfo(unittest.skip('x'), 'TestBinaryUfuncs',\n"
		"                            'test_reference_numerics_large_values',\n"
		"                            device_type='mps'),)),\n"
		"    BinaryUfuncInfo('sub'),\n"
		"    BinaryUfuncInfo('special.chebyshev_polynomial_t',\n"
		"        skips=(DecorateInfo(unittest.skip('x'), 'TestNNCOpInfo'),\n"
		"               DecorateInfo(unittest.expectedFailure, 'TestCommon', 'test_compare_cpu'),)),\n"
		"    BinaryUfuncInfo('hypot', ref=np.hypot,\n"
		"        skips=(DecorateInfo(unittest.expectedFailure, 'TestCommon', 'test_compare_cpu'),)),\n"
		"    BinaryUfuncInfo('special.shifted_chebyshev_polynomial_t',\n"
		"        skips=(DecorateInfo(unittest.skip('takes too long')),\n"
		"               DecorateInfo(unittest.skip('x'), device_type='cpu'),)),\n"
		"    OpInfo('lerp', sample_inputs_func=sample_inputs_lerp),\n"
		"    OpInfo('polar', sample_inputs_func=sample_inputs_polar,\n"
		"           reference_inputs_func=reference_inputs_polar),\n"
		"    BinaryUfuncInfo('igamma', ref=None,\n"
		"        skips=(DecorateInfo(unittest.skip('x'), 'TestCommon', 'test_compare_cpu',\n"
		"                            device_type='xpu'),)),\n"
		"]\n";
	struct try_opinfo oi;
	(void)state;
	assert_int_equal(try_opinfo_parse(&oi, text, "f.py", "lgamma"), 1);
	assert_int_equal(oi.untested_extremal, try_opinfo_dtype_bit("bfloat"));
	assert_int_equal(oi.untested_large, try_opinfo_dtype_bit("half"));
	assert_int_equal(oi.untested_line, 4);
	try_opinfo_free(&oi);
	assert_int_equal(try_opinfo_parse(&oi, text, "f.py", "add"), 1);
	assert_int_equal(oi.untested_extremal, try_opinfo_dtype_bit("float2"));
	assert_int_equal(oi.untested_large, 0x7ffu);
	try_opinfo_free(&oi);
	assert_int_equal(try_opinfo_parse(&oi, text, "f.py", "sub"), 1);
	assert_int_equal(oi.untested_extremal | oi.untested_large, 0);
	assert_int_equal(oi.untested_line, 0);
	try_opinfo_free(&oi);
	/* no ref (the ufunc reference tests skip the entry) and test_compare_cpu
	 * expected to fail: nothing compares the reference inputs */
	assert_int_equal(try_opinfo_parse(&oi, text, "f.py", "special_chebyshev_polynomial_t"), 1);
	assert_int_equal(oi.untested_large, 0x7ffu);
	assert_int_equal(oi.untested_extremal, 0x7ffu);
	try_opinfo_free(&oi);
	/* a ref: the reference tests still compare them */
	assert_int_equal(try_opinfo_parse(&oi, text, "f.py", "hypot"), 1);
	assert_int_equal(oi.untested_large | oi.untested_extremal, 0);
	try_opinfo_free(&oi);
	/* a skip naming no test class: every test of the entry; one of the
	 * CPU only is not */
	assert_int_equal(try_opinfo_parse(&oi, text, "f.py",
	                                  "special_shifted_chebyshev_polynomial_t"), 1);
	assert_int_equal(oi.untested_large, 0x7ffu);
	assert_int_equal(oi.untested_extremal, 0x7ffu);
	try_opinfo_free(&oi);
	/* test_compare_cpu skipped on xpu only: cuda still runs it */
	assert_int_equal(try_opinfo_parse(&oi, text, "f.py", "igamma"), 1);
	assert_int_equal(oi.untested_large | oi.untested_extremal, 0);
	try_opinfo_free(&oi);
	/* a plain OpInfo: its reference inputs are its samples, unless it
	 * has a reference_inputs_func */
	assert_int_equal(try_opinfo_parse(&oi, text, "f.py", "lerp"), 1);
	assert_true(oi.plain);
	assert_int_equal(oi.untested_large & oi.untested_extremal, 0x7ffu);
	try_opinfo_free(&oi);
	assert_int_equal(try_opinfo_parse(&oi, text, "f.py", "polar"), 1);
	assert_true(!oi.plain);
	assert_int_equal(oi.untested_large | oi.untested_extremal, 0);
	try_opinfo_free(&oi);
	assert_int_equal(try_opinfo_dtype_bit("double"), 0);
}

/* rhs_make_tensor_kwargs exclude_zero=True (try_opinfo_parse, both
 * spellings of the dict; False and another keyword's True are not it):
 * a zero second operand of a binary element, either sign, is outside the
 * samples (try_classify); a zero first operand and a unary element stay
 * sampled */
static void test_opinfo_rhs_nonzero(void **state)
{
	static const char text[] =
		"op_db = [\n"
		"    BinaryUfuncInfo('fmod', rhs_make_tensor_kwargs={'exclude_zero': True}),\n"
		"    BinaryUfuncInfo('remainder',\n"
		"                    rhs_make_tensor_kwargs=dict(low=None, exclude_zero=True)),\n"
		"    BinaryUfuncInfo('clamp_max', rhs_make_tensor_kwargs=dict(exclude_zero=False)),\n"
		"    BinaryUfuncInfo('div', lhs_make_tensor_kwargs=dict(exclude_zero=True)),\n"
		"]\n";
	struct try_opinfo oi;
	struct try_reg r;
	float a = 0.25f, z = 0, nz = -0.0f, one = 1;
	(void)state;
	assert_int_equal(try_opinfo_parse(&oi, text, "f.py", "fmod"), 1);
	assert_int_equal(oi.rhs_nonzero, 1);
	memset(&r, 0, sizeof r);
	r.in = r.out = (char *)"float";
	r.kind = 2;
	assert_int_equal(try_classify(&r, "fmod", &oi, (const unsigned char *)&a, (const unsigned char *)&z, 0), TRY_OPINFO_OUTSIDE);
	assert_int_equal(try_classify(&r, "fmod", &oi, (const unsigned char *)&a, (const unsigned char *)&nz, 0), TRY_OPINFO_OUTSIDE);
	assert_int_equal(try_classify(&r, "fmod", &oi, (const unsigned char *)&z, (const unsigned char *)&one, 0), TRY_SAMPLED);
	assert_int_equal(try_classify(&r, "fmod", &oi, (const unsigned char *)&a, (const unsigned char *)&one, 0), TRY_SAMPLED);
	r.kind = 0;
	assert_int_equal(try_classify(&r, "fmod", &oi, (const unsigned char *)&z, NULL, 0), TRY_SAMPLED);
	try_opinfo_free(&oi);
	assert_int_equal(try_opinfo_parse(&oi, text, "f.py", "remainder"), 1);
	assert_int_equal(oi.rhs_nonzero, 1);
	try_opinfo_free(&oi);
	assert_int_equal(try_opinfo_parse(&oi, text, "f.py", "clamp_max"), 1);
	assert_int_equal(oi.rhs_nonzero, 0);
	try_opinfo_free(&oi);
	assert_int_equal(try_opinfo_parse(&oi, text, "f.py", "div"), 1);
	assert_int_equal(oi.rhs_nonzero, 0);
	r.kind = 2;
	assert_int_equal(try_classify(&r, "div", &oi, (const unsigned char *)&a, (const unsigned char *)&z, 0), TRY_SAMPLED);
	try_opinfo_free(&oi);
}

/* test_mps.py's tolerances (try_test_tolerance) on a text of our own
 * shaped like TestConsistency: every clause shape the reader takes, the
 * first clause that holds winning, a machine-dependent clause (a
 * macOS version) and a sample-dependent one skipped, (None, None) as the
 * defaults, and dotted OpInfo names */
static void tol_is(const char *text, const char *op, const char *dt, int set, double atol,
                   double rtol, unsigned long line)
{
	struct try_tol t;
	assert_int_equal(try_test_tolerance(text, op, dt, &t), set);
	assert_int_equal(t.set, set);
	if (set) {
		assert_true(t.atol == atol);
		assert_true(t.rtol == rtol);
		assert_int_equal(t.line, line);
	}
}

static void test_test_tolerance(void **state)
{
	static const char text[] =
		"class Consistency(TestCase):\n"                                      /* 1 */
		"    SLOW_HALF = {\n"                                                 /* 2 */
		"        'sub', 'lerp',  # a comment with 'pow' in it\n"              /* 3 */
		"        'nn.functional.huber_loss',\n"                               /* 4 */
		"        \"special.erfcx\",\n"                                        /* 5 */
		"    }\n"                                                             /* 6 */
		"    SLOW_BF16 = {'mul'}\n"                                           /* 7 */
		"    SLOW_FLOAT = {'sub', 'conv'}\n"                                  /* 8 */
		"\n"                                                                  /* 9 */
		"    def _compute_tolerances(self, op, dtype):\n"                     /* 10 */
		"        if (op.name in self.SLOW_FLOAT) and dtype in [torch.float32, torch.complex64]:\n" /* 11 */
		"            return (2e-4, 4e-5)\n"                                   /* 12 */
		"        if op.name in ['pow', 'atan2'] and MACOS_VERSION < 14.0:\n"   /* 13 */
		"            # machine-dependent: never read\n"                       /* 14 */
		"            return (9.0, 9.0)\n"                                     /* 15 */
		"        if op.name == 'div' and op.variant_test_name == 'trunc':\n"  /* 16 */
		"            return (8.0, 8.0)\n"                                     /* 17 */
		"\n"                                                                  /* 18 */
		"        if op.name in self.SLOW_HALF and dtype in [torch.float16, torch.bfloat16]:\n" /* 19 */
		"            return (3e-2, 1e-2) if dtype == torch.float16 else (6e-2, 6e-2)\n" /* 20 */
		"        if op.name in self.SLOW_BF16 and dtype == torch.bfloat16:\n" /* 21 */
		"            return (7e-2, 7e-2)\n"                                   /* 22 */
		"        if op.name in ['nn.functional.conv1d',\n"                    /* 23 */
		"                       'lerp', 'mul'] and dtype in [torch.float16,\n" /* 24 */
		"                                                    torch.bfloat16]:\n" /* 25 */
		"            return (0.5, 0.25)\n"                                    /* 26 */
		"        if op.name == \"atan2\":\n"                                  /* 27 */
		"            return (1e-3, 2e-3)\n"                                   /* 28 */
		"        if op.name in ['hypot', \"fmod\"]:\n"                         /* 29 */
		"            return (None, None)\n"                                   /* 30 */
		"        if op.name in ['hypot', 'fmax']:\n"                          /* 31 */
		"            return (4.0, 4.0)\n"                                     /* 32 */
		"        return (None, None)\n"                                       /* 33 */
		"\n"                                                                  /* 34 */
		"    SLOW_LATE = {'neg'}\n";                                          /* 35 */
	(void)state;
	/* a set with a dtype list; the complex dtype of the list too */
	tol_is(text, "sub", "float", 1, 2e-4, 4e-5, 11);
	tol_is(text, "sub", "float2", 1, 2e-4, 4e-5, 11);
	/* the conditional return, both sides */
	tol_is(text, "sub", "half", 1, 3e-2, 1e-2, 19);
	tol_is(text, "sub", "bfloat", 1, 6e-2, 6e-2, 19);
	/* first match wins: lerp's half is the set's, not the list's */
	tol_is(text, "lerp", "half", 1, 3e-2, 1e-2, 19);
	/* a set with `dtype ==`; then a multi-line inline list */
	tol_is(text, "mul", "bfloat", 1, 7e-2, 7e-2, 21);
	tol_is(text, "mul", "half", 1, 0.5, 0.25, 23);
	tol_is(text, "mul", "float", 0, 0, 0, 0);
	/* dotted OpInfo names: nn.functional.X is X, special.X special_X */
	tol_is(text, "huber_loss", "half", 1, 3e-2, 1e-2, 19);
	tol_is(text, "special_erfcx", "bfloat", 1, 6e-2, 6e-2, 19);
	tol_is(text, "conv1d", "bfloat", 1, 0.5, 0.25, 23);
	/* the macOS clause is skipped: atan2 reaches its own `==` clause */
	tol_is(text, "atan2", "float", 1, 1e-3, 2e-3, 27);
	tol_is(text, "pow", "half", 0, 0, 0, 0);
	/* the variant clause is skipped */
	tol_is(text, "div", "float", 0, 0, 0, 0);
	/* (None, None) first: the defaults, the later clause not reached */
	tol_is(text, "hypot", "float", 0, 0, 0, 0);
	tol_is(text, "fmax", "half", 1, 4.0, 4.0, 31);
	/* a name in a comment, a set after the method, the final return */
	tol_is(text, "neg", "half", 0, 0, 0, 0);
	tol_is(text, "sin", "float", 0, 0, 0, 0);
	/* no method at all, a broken one: the defaults, no error */
	tol_is("SLOW = {'sub'}\n", "sub", "half", 0, 0, 0, 0);
	tol_is("    def _compute_tolerances(self, op, dtype):\n"
	       "        if op.name in self.NOWHERE and dtype == torch.float16:\n"
	       "            return (1.0, 1.0)\n"
	       "        if op.name in ['sub' and dtype == torch.float16:\n"
	       "            return (2.0, 2.0)\n"
	       "        if op.name == 'sub':\n"
	       "            return (3.0,)\n",
	       "sub", "half", 0, 0, 0, 0);
	/* a final return with numbers applies to every operator */
	tol_is("    def _compute_tolerances(self, op, dtype):\n"
	       "        return 1e-1, 2e-1\n",
	       "sub", "half", 1, 1e-1, 2e-1, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule2_examples),
		cmocka_unit_test(test_rule2_edges),
		cmocka_unit_test(test_rule1),
		cmocka_unit_test(test_rule3),
		cmocka_unit_test(test_rule4),
		cmocka_unit_test(test_rule5),
		cmocka_unit_test(test_lines_kept),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_none_value),
		cmocka_unit_test(test_half_bfloat),
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_opinfo),
		cmocka_unit_test(test_opinfo_untested),
		cmocka_unit_test(test_opinfo_rhs_nonzero),
		cmocka_unit_test(test_test_tolerance),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
