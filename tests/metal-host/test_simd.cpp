/* test_simd.cpp — atomics, SIMD-group and quad-group functions, barriers
 * and swizzles of the Metal host layer.
 *
 * SIMD functions are checked twice: with no execution context (one lane:
 * sum(x) = x, exclusive sums 0, shuffles give x), and through the
 * execution hook with a fake context that plays lane 2 of a SIMD-group of
 * 8 (its exchange fills in the other lanes' values, known in advance), so
 * that the lane arithmetic of every function is checked against values
 * worked out by hand.  Swizzles are written as REWRITES.md rule 4 writes
 * them (v.template mh_swizzle<1...>(), 1 then the indices).
 */
#include "mh_test.h"

#include <metal_stdlib>
using namespace metal;

static long checks = 0;
#define EQ(a, b, ...)                                                          \
	do {                                                                   \
		checks++;                                                      \
		CHECK((a) == (b), __VA_ARGS__);                                \
	} while (0)
#define SAME(...) static_assert(std::is_same<__VA_ARGS__>::value, #__VA_ARGS__)

static void atomics() {
	static_assert(sizeof(atomic<int>) == 4 && alignof(atomic<uint>) == 4 && sizeof(atomic_ulong) == 8,
	              "atomic<T> has T's layout");
	static_assert(!std::is_copy_constructible<atomic_int>::value, "not copyable");
	int ibuf[2] = {5, -3};
	device atomic_int *ai = reinterpret_cast<device atomic_int *>(ibuf);
	EQ(atomic_load_explicit(ai + 1, memory_order_relaxed), -3, "load");
	EQ(atomic_fetch_add_explicit(ai, 2, memory_order_relaxed), 5, "fetch_add returns the old value");
	EQ(ibuf[0], 7, "fetch_add adds");
	EQ(atomic_fetch_sub_explicit(ai, 10, memory_order_relaxed), 7, "fetch_sub old");
	EQ(ibuf[0], -3, "fetch_sub");
	EQ(atomic_fetch_max_explicit(ai, 4, memory_order_relaxed), -3, "fetch_max old");
	EQ(atomic_fetch_min_explicit(ai, -9, memory_order_relaxed), 4, "fetch_max stored 4; fetch_min old");
	EQ(ibuf[0], -9, "fetch_min");
	atomic_store_explicit(ai, 0x0f, memory_order_relaxed);
	EQ(atomic_fetch_or_explicit(ai, 0x30, memory_order_relaxed), 0x0f, "fetch_or old");
	EQ(atomic_fetch_and_explicit(ai, 0x3c, memory_order_relaxed), 0x3f, "fetch_and old");
	EQ(atomic_fetch_xor_explicit(ai, 0xff, memory_order_relaxed), 0x3c, "fetch_xor old");
	EQ(ibuf[0], 0xc3, "and, or, xor");
	EQ(atomic_exchange_explicit(ai, 11, memory_order_relaxed), 0xc3, "exchange old");
	int expected = 10;
	EQ(atomic_compare_exchange_weak_explicit(ai, &expected, 12, memory_order_relaxed, memory_order_relaxed), false,
	   "compare_exchange fails on a different value");
	EQ(expected, 11, "... and loads the current value");
	EQ(atomic_compare_exchange_weak_explicit(ai, &expected, 12, memory_order_relaxed, memory_order_relaxed), true,
	   "compare_exchange succeeds");
	EQ(ibuf[0], 12, "... and stores");
	/* the operand converts to T, as `atomic_fetch_add_explicit(&count, 1, ...)` on an atomic<uint> */
	uint ubuf[1] = {0xffffffffu};
	threadgroup atomic_uint *au = reinterpret_cast<threadgroup atomic_uint *>(ubuf);
	EQ(atomic_fetch_add_explicit(au, 1, memory_order_relaxed), 0xffffffffu, "uint old");
	EQ(ubuf[0], 0u, "uint wraps");
	float fbuf[1] = {0.1f};
	device atomic_float *af = reinterpret_cast<device atomic_float *>(fbuf);
	EQ(atomic_fetch_add_explicit(af, 0.2f, memory_order_relaxed), 0.1f, "float old");
	EQ(fbuf[0], 0.1f + 0.2f, "float add rounds in float");
	SAME(decltype(atomic_load_explicit(af, memory_order_relaxed)), float);
	atomic_thread_fence(mem_flags::mem_device, memory_order_seq_cst, thread_scope_device);
}

static void one_lane() {
	EQ(simd_sum(3.5f), 3.5f, "sum");
	EQ(simd_product(-2), -2, "product");
	EQ(simd_min(7u), 7u, "min");
	EQ(simd_max(half(2.0f)).bits, half(2.0f).bits, "max of half");
	EQ(simd_and(6), 6, "and");
	EQ(simd_or(6), 6, "or");
	EQ(simd_xor(6), 6, "xor");
	EQ(simd_prefix_inclusive_sum(4), 4, "prefix_inclusive_sum");
	EQ(simd_prefix_exclusive_sum(4), 0, "prefix_exclusive_sum");
	EQ(simd_prefix_inclusive_product(4.0f), 4.0f, "prefix_inclusive_product");
	EQ(simd_prefix_exclusive_product(4.0f), 1.0f, "prefix_exclusive_product");
	EQ(simd_shuffle(9, 0), 9, "shuffle");
	EQ(simd_shuffle(9, 5), 9, "shuffle from a lane that does not exist: own");
	EQ(simd_shuffle_up(9, 1), 9, "shuffle_up");
	EQ(simd_shuffle_down(9, 1), 9, "shuffle_down");
	EQ(simd_shuffle_xor(9, 1), 9, "shuffle_xor");
	EQ(simd_shuffle_rotate_up(9, 3), 9, "rotate_up");
	EQ(simd_shuffle_rotate_down(9, 3), 9, "rotate_down");
	EQ(simd_shuffle_and_fill_down(9, 1, 0), 9, "fill_down by 0: own");
	EQ(simd_shuffle_and_fill_down(9, 1, 1), 1, "fill_down by 1: the filling");
	EQ(simd_shuffle_and_fill_up(9, 1, 1), 1, "fill_up by 1: the filling");
	EQ(simd_broadcast(9, 0), 9, "broadcast");
	EQ(simd_broadcast_first(9), 9, "broadcast_first");
	EQ(ulong(simd_ballot(true)), 1ul, "ballot(true)");
	EQ(ulong(simd_ballot(false)), 0ul, "ballot(false)");
	EQ(simd_all(true) && !simd_all(false) && simd_any(true) && !simd_any(false), true, "all, any");
	EQ(simd_is_first(), true, "is_first");
	EQ(ulong(simd_active_threads_mask()), 1ul, "active_threads_mask");
	EQ(quad_sum(2), 2, "quad_sum");
	EQ(quad_prefix_exclusive_sum(2), 0, "quad_prefix_exclusive_sum");
	EQ(quad_shuffle_down(2, 1), 2, "quad_shuffle_down");
	EQ(quad_is_first(), true, "quad_is_first");
	const float2 v = simd_sum(float2(1.0f, 2.0f));
	EQ(v.y, 2.0f, "sum of a vector");
	threadgroup_barrier(mem_flags::mem_threadgroup);
	simdgroup_barrier(mem_flags::mem_none);
	threadgroup_barrier(mem_flags::mem_device | mem_flags::mem_threadgroup);
	SAME(decltype(simd_shuffle(half(1.0f), 0)), half);
}

/* lane 2 of 8; lane 5 inactive.  The other lanes' values of the first
 * and second exchange of each call are given (values[k][lane]). */
struct fake_group : metal_host::exec {
	int values[2][8];
	int call = 0, barriers = 0, last_scope = -1;
	unsigned lane() override { return 2; }
	unsigned lanes() override { return 8; }
	uint64_t active() override { return 0xdf; } /* 1101 1111: lane 5 off */
	void exchange(const void *mine, void *all, size_t size) override {
		int *a = static_cast<int *>(all);
		if (size == sizeof(int)) {
			for (int i = 0; i < 8; i++)
				a[i] = values[call][i];
			a[2] = *static_cast<const int *>(mine);
		} else { /* bool (ballot): lanes 0, 3, 5, 6 true */
			bool *b = static_cast<bool *>(all);
			for (int i = 0; i < 8; i++)
				b[i] = i == 0 || i == 3 || i == 5 || i == 6;
			b[2] = *static_cast<const bool *>(mine);
		}
		call = 1;
	}
	void barrier(int scope, unsigned) override {
		barriers++;
		last_scope = scope;
	}
};

static void eight_lanes() {
	fake_group g;
	const int lanes[8] = {10, 20, 30, 40, 50, 60, 70, 80}; /* lane 2 passes 30 itself */
	for (int i = 0; i < 8; i++)
		g.values[0][i] = lanes[i], g.values[1][i] = -lanes[i];
	metal_host::exec_current = &g;
#define RUN(expr) (g.call = 0, (expr))
	EQ(RUN(simd_sum(30)), 10 + 20 + 30 + 40 + 50 + 70 + 80, "sum skips the inactive lane 5");
	EQ(RUN(simd_max(30)), 80, "max");
	EQ(RUN(simd_min(30)), 10, "min");
	EQ(RUN(simd_prefix_inclusive_sum(30)), 60, "inclusive sum: lanes 0-2");
	EQ(RUN(simd_prefix_exclusive_sum(30)), 30, "exclusive sum: lanes 0-1");
	EQ(RUN(simd_prefix_exclusive_product(30)), 200, "exclusive product");
	EQ(RUN(simd_shuffle(30, 7)), 80, "shuffle from lane 7");
	EQ(RUN(simd_shuffle(30, 5)), 30, "shuffle from the inactive lane: own value");
	EQ(RUN(simd_broadcast(30, 0)), 10, "broadcast lane 0");
	EQ(RUN(simd_shuffle_up(30, 2)), 10, "shuffle_up 2: lane 0");
	EQ(RUN(simd_shuffle_up(30, 3)), 30, "shuffle_up past lane 0: own value");
	EQ(RUN(simd_shuffle_down(30, 4)), 70, "shuffle_down 4: lane 6");
	EQ(RUN(simd_shuffle_xor(30, 1)), 40, "shuffle_xor 1: lane 3");
	EQ(RUN(simd_shuffle_rotate_up(30, 3)), 80, "rotate_up 3: lane 7");
	EQ(RUN(simd_shuffle_rotate_down(30, 7)), 20, "rotate_down 7: lane 1");
	EQ(RUN(simd_shuffle_and_fill_down(30, -1, 4)), 70, "fill_down 4: data of lane 6");
	EQ(RUN(simd_shuffle_and_fill_down(30, -1, 7)), -20, "fill_down 7: filling of lane 1 (2 + 7 - 8)");
	EQ(RUN(simd_shuffle_and_fill_up(30, -1, 3)), -80, "fill_up 3: filling of lane 7 (2 - 3 + 8)");
	EQ(RUN(simd_shuffle_and_fill_down(30, -1, 1, 4)), 40, "fill_down 1 modulo 4: lane 3");
	EQ(RUN(simd_shuffle_and_fill_down(30, -1, 2, 4)), -10, "fill_down 2 modulo 4: filling of lane 0");
	EQ(RUN(quad_sum(30)), 10 + 20 + 30 + 40, "quad_sum: lanes 0-3");
	EQ(RUN(quad_shuffle_down(30, 1)), 40, "quad_shuffle_down 1: lane 3");
	EQ(RUN(quad_shuffle_down(30, 2)), 30, "quad_shuffle_down past the quad: own value");
	EQ(RUN(quad_broadcast(30, 1)), 20, "quad_broadcast 1: lane 1");
	EQ(RUN(simd_broadcast_first(30)), 10, "broadcast_first: lane 0");
	EQ(ulong(simd_ballot(true)), 0x4dul, "ballot: lanes 0, 2, 3, 6 (5 inactive)");
	EQ(ulong(quad_ballot(true)), 0xdul, "quad_ballot: lanes 0, 2, 3 of the quad");
	EQ(simd_any(false), true, "any: other lanes are true");
	EQ(simd_all(true), false, "all: lane 1 is false");
	EQ(ulong(simd_active_threads_mask()), 0xdful, "active mask");
	EQ(ulong(quad_active_threads_mask()), 0xful, "quad active mask");
	EQ(simd_is_first(), false, "lane 2 is not the first active lane");
	threadgroup_barrier(mem_flags::mem_threadgroup);
	EQ(g.barriers * 10 + g.last_scope, 11, "threadgroup_barrier reaches the hook (scope 1)");
	simdgroup_barrier(mem_flags::mem_none);
	EQ(g.barriers * 10 + g.last_scope, 20, "simdgroup_barrier reaches the hook (scope 0)");
#undef RUN
	metal_host::exec_current = nullptr;
}

static void swizzles() {
	uint4 ctr = 0;
	ctr.template mh_swizzle_ref<123>() = uint2(7, 9); /* ctr.zw = uint2(7, 9) */
	EQ(ctr.z * 10 + ctr.w, 79u, "write .zw");
	EQ(ctr.x, 0u, ".x kept");
	const float4 f(1.0f, 2.0f, 3.0f, 4.0f);
	const float2 yx = f.template mh_swizzle<110>(); /* f.yx */
	EQ(yx.x * 10 + yx.y, 21.0f, "read .yx");
	const float3 xyz = f.template mh_swizzle<1012>(); /* f.xyz (also f.rgb) */
	EQ(xyz.z, 3.0f, "read .xyz");
	const float4 wwxx = f.template mh_swizzle<13300>();
	EQ(wwxx.y * 10 + wwxx.z, 41.0f, "read .wwxx (repeats allowed in reads)");
	SAME(decltype(f.template mh_swizzle<101>()), float2);
	float4 g = f;
	g.template mh_swizzle_ref<101>() = g.template mh_swizzle<110>(); /* g.xy = g.yx */
	EQ(g.x * 10 + g.y, 21.0f, "g.xy = g.yx swaps");
	g.template mh_swizzle_ref<123>() += 1.0f; /* g.zw += 1 */
	EQ(g.z * 10 + g.w, 45.0f, "g.zw += 1");
	g.template mh_swizzle_ref<130>() = 0.5f; /* g.wx = 0.5 */
	EQ(g.w + g.x, 1.0f, "scalar into a swizzle");
	const float2 dsum = f.template mh_swizzle<101>() + f.template mh_swizzle<123>();
	EQ(dsum.y, 6.0f, "swizzles in arithmetic");
	/* from constant memory */
	constant float4 &cf = f;
	EQ(cf.template mh_swizzle<132>().x, 4.0f, "swizzle of a constant vector");
}

int main() {
	atomics();
	one_lane();
	eight_lanes();
	swizzles();
	return mh_result("test_simd", checks);
}
