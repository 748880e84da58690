/* test_address.cpp — address spaces, metal::array and metal::vec of the
 * Metal host layer: which overload a constant, a device and a device const
 * pointer pick (as in Metal: c10/metal/indexing.h's val_at_offs pair),
 * reads from `constant` memory (const volatile on the host) into half,
 * bfloat, vectors and arrays, and rule 3's `constant constexpr` (written
 * here as the rewrite leaves it).
 */
#include "mh_test.h"

#include <metal_array>
#include <metal_stdlib>
using namespace metal;

static long checks = 0;
#define EQ(a, b, ...)                                                          \
	do {                                                                   \
		checks++;                                                      \
		CHECK((a) == (b), __VA_ARGS__);                                \
	} while (0)
#define SAME(...) static_assert(std::is_same<__VA_ARGS__>::value, #__VA_ARGS__)

/* the shape of indexing.h's pair; the int says which one ran */
static int picked = 0;
template <typename T>
inline T load(constant void *ptr, long offs) {
	picked = 1;
	return *reinterpret_cast<constant T *>(static_cast<constant char *>(ptr) + offs);
}
template <typename T>
inline T load(device const void *ptr, long offs) {
	picked = 2;
	return *reinterpret_cast<device const T *>(static_cast<device const char *>(ptr) + offs);
}
/* the dynamic form: P deduced, the pair chosen inside */
template <typename T, typename P>
inline T load_as(P ptr, long offs) {
	return load<T>(ptr, offs);
}

/* a function taking a device pointer: a device pointer reaches it, a
 * constant one does not (as in Metal) */
inline int only_device(device const float *) { return 2; }
template <class P>
constexpr bool takes_device = std::is_invocable<decltype(&only_device), P>::value;

/* kernel shaped like indexing.h's unary_dense: a constant input read into
 * a thread array, a constant uint& */
template <typename T>
kernel void twice(device T *out [[buffer(0)]], constant T *in [[buffer(1)]],
                  constant uint &n [[buffer(2)]], uint i [[thread_position_in_grid]]) {
	array<T, 4> tmp;
	for (uint j = 0; j < 4 && i * 4 + j < n; j++)
		tmp[j] = in[i * 4 + j];
	for (uint j = 0; j < 4 && i * 4 + j < n; j++)
		out[i * 4 + j] = tmp[j] + tmp[j];
}

constexpr unsigned max_dims = 16; /* `constant constexpr` after rule 3 */

static void address_spaces() {
	float buf[2] = {1.5f, -2.0f};
	constant void *c = buf;
	device void *d = buf;
	device const void *dc = buf;
	SAME(decltype(c), const volatile void *);
	SAME(decltype(dc), const void *);

	picked = 0;
	EQ(load<float>(c, 4), -2.0f, "constant: value");
	EQ(picked, 1, "a constant pointer picks the constant overload");
	picked = 0;
	EQ(load<float>(d, 0), 1.5f, "device: value");
	EQ(picked, 2, "a device pointer picks the device const overload (Metal's coercion)");
	picked = 0;
	EQ(load<float>(dc, 4), -2.0f, "device const: value");
	EQ(picked, 2, "a device const pointer picks the device const overload");
	picked = 0;
	EQ(load_as<float>(c, 0), 1.5f, "deduced P = constant void*");
	EQ(picked, 1, "deduced constant pointer: constant overload");
	picked = 0;
	(void)load_as<float>(dc, 0);
	EQ(picked, 2, "deduced device const pointer: device overload");
	static_assert(!takes_device<constant float *>, "a constant pointer does not become a device one");
	static_assert(takes_device<device float *>, "a device pointer becomes a device const one");

	/* reads of class types from constant memory */
	const half hb[3] = {half(0.5f), half(-3.0f), half(65504.0f)};
	constant half *hc = hb;
	half h = hc[1];
	EQ(as_type<ushort>(h), as_type<ushort>(half(-3.0f)), "half from constant memory");
	h = hc[2];
	EQ(float(h), 65504.0f, "half assigned from constant memory");
	const float hf = hc[0];
	EQ(hf, 0.5f, "constant half -> float");
	EQ(float(hc[0] * 2), 1.0f, "constant half * int is half");
	SAME(decltype(hc[0] * 2), half);
	SAME(decltype(hc[0] + 1.0f), float);
	EQ(int(hc[1]), -3, "explicit int from constant half");
	const bfloat bb[1] = {bfloat(3.0f)};
	constant bfloat *bc = bb;
	bfloat b = bc[0];
	EQ(float(b), 3.0f, "bfloat from constant memory");
	const float2 vb[1] = {float2(1.0f, 2.0f)};
	constant float2 *vc = vb;
	float2 v = vc[0];
	EQ(v.y, 2.0f, "float2 from constant memory");
	v = vc[0];
	EQ(vc[0][1], 2.0f, "constant float2 [1]");
	EQ(vc[0].x, 1.0f, "constant float2 .x");
	static_assert(std::is_trivially_copyable<half>::value && std::is_trivially_copyable<float4>::value &&
	                  std::is_trivially_copyable<bfloat>::value,
	              "still trivially copyable");

	/* a kernel reading constant memory */
	const half in[5] = {half(1.0f), half(2.0f), half(0.25f), half(-1.0f), half(3.0f)};
	half out[5] = {};
	const uint n = 5;
	for (uint i = 0; i < 2; i++)
		twice<half>(out, in, n, i);
	EQ(float(out[0]), 2.0f, "twice[0]");
	EQ(float(out[4]), 6.0f, "twice[4] (the tail)");
	long pos[max_dims] = {};
	EQ(sizeof(pos), 16 * sizeof(long), "a constexpr bound");
}

static void arrays_and_vec() {
	array<int, 3> a = {1, 2, 3};
	EQ(a.size(), size_t(3), "size");
	EQ(a[2], 3, "operator[]");
	a[0] = 7;
	int sum = 0;
	for (int x : a)
		sum += x;
	EQ(sum, 12, "begin/end");
	EQ(a.front(), 7, "front");
	EQ(a.back(), 3, "back");
	static_assert(array<float, 4>::size() == 4 && !array<float, 4>::empty(), "constexpr size");
	static_assert(sizeof(array<half, 4>) == 8, "layout: N elements");
	static_assert(std::is_trivially_copyable<array<half2, 3>>::value, "trivially copyable");
	static_assert(std::is_aggregate<array<int, 2>>::value, "an aggregate");
	const array<int, 3> ca = a;
	EQ(ca[1], 2, "copy");
	constant array<int, 3> &cr = ca;
	EQ(cr[0], 7, "constant array [0]");
	array_ref<int> r = make_array_ref(ca);
	EQ(r.size(), size_t(3), "array_ref size");
	EQ(r[1], 2, "array_ref [1]");

	SAME(vec<float, 3>, float3);
	SAME(vec<half, 2>, half2);
	SAME(vec<uint, 4>, uint4);
	const vec<int, 3> v(1, 2, 3);
	EQ(v.z, 3, "vec<int, 3>.z");
	static_assert(sizeof(vec<int, 3>) == 16, "vec<int, 3> is int3, 16 bytes");
}

int main() {
	address_spaces();
	arrays_and_vec();
	return mh_result("test_address", checks);
}
