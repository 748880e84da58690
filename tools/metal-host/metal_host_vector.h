/* metal_host_vector.h — Metal's vector types on the host (MSL "Vector
 * data types"): TN for T in bool, char, uchar, short, ushort, int, uint,
 * long, ulong, half, bfloat, float and N in 2, 3, 4.
 *
 * Part of the Metal host layer; include <metal_stdlib>, not this file.
 *
 * Layout as on the GPU: TN is N*sizeof(T) bytes aligned to that size, T3
 * takes the room (and alignment) of T4.  Components are the members x, y
 * (z, w) and v[i].  Swizzles (.xy, .zw, .xyz, .yx, .xxyy, .rgba ...) are
 * written by REWRITES.md rule 4 as v.template mh_swizzle<C>(), a new
 * vector of the components, or, when assigned to (`v.zw = ...`, `v.xy +=
 * ...`), v.template mh_swizzle_ref<C>(), a reference to them (no component
 * twice, as in Metal); C is 1 followed by the component indices (`.zw`:
 * 123, `.xxyy`: 10011), one number so that no comma appears inside a
 * macro's argument.
 *
 * Construction, as MSL: TN(s) and an implicit conversion from a scalar
 * replicate it; TN(a, b, ...) takes N scalars or smaller vectors whose
 * sizes add up to N; TN(UN) converts each component (explicit only:
 * Metal has no implicit conversion between vector types).
 * Operators work component by component with the component type's own
 * rules (half2 + half2 rounds each component to half); comparisons give
 * boolN; a scalar operand is converted to the component type and
 * replicated.
 */
#ifndef METAL_HOST_VECTOR_H
#define METAL_HOST_VECTOR_H

#include "metal_host_scalar.h"

namespace metal_host {

template <class T, int N>
struct vec;

template <class T>
struct is_vec : std::false_type {};
template <class T, int N>
struct is_vec<vec<T, N>> : std::true_type {};

/* number of components an argument brings to a vector constructor */
template <class A>
struct comp_count : std::integral_constant<int, 1> {};
template <class T, int N>
struct comp_count<vec<T, N>> : std::integral_constant<int, N> {};

template <class... A>
struct comp_sum : std::integral_constant<int, 0> {};
template <class A, class... R>
struct comp_sum<A, R...>
    : std::integral_constant<int, comp_count<std::decay_t<A>>::value + comp_sum<R...>::value> {};

template <class... A>
struct any_vec : std::false_type {};
template <class A, class... R>
struct any_vec<A, R...>
    : std::integral_constant<bool, is_vec<std::decay_t<A>>::value || any_vec<R...>::value> {};

/* S can be replicated into a vector of T: T itself, or a built-in
 * arithmetic type that converts to T (so half does not become a float2:
 * c10's log1p(float) and log1p(float2) must not tie for a half) */
template <class S, class T>
struct is_splat_source
    : std::integral_constant<bool, std::is_same<std::decay_t<S>, T>::value ||
                                       (std::is_arithmetic<std::decay_t<S>>::value &&
                                        std::is_convertible<S, T>::value)> {};

/* components in order, for the constructors */
template <class T, int N>
struct filler {
	T *out;
	int at;
	template <class S>
	constexpr void put(const S &s, std::false_type) { out[at++] = static_cast<T>(s); }
	template <class U, int M>
	constexpr void put(const vec<U, M> &v, std::true_type) {
		for (int i = 0; i < M; i++)
			out[at++] = static_cast<T>(v[i]);
	}
	template <class A>
	constexpr void operator()(const A &a) { put(a, is_vec<A>{}); }
};

#define METAL_HOST_VEC_COMMON(N)                                               \
	using value_type = T;                                                  \
	static constexpr int size = N;                                         \
	vec() = default;                                                       \
	template <class S, std::enable_if_t<is_splat_source<S, T>::value, int> = 0> \
	constexpr vec(const S &s) : vec(splat_tag{}, static_cast<T>(s)) {}     \
	template <class U, std::enable_if_t<!std::is_same<U, T>::value, int> = 0> \
	constexpr explicit vec(const vec<U, N> &o) : vec(splat_tag{}, T{}) {   \
		for (int i = 0; i < N; i++)                                    \
			(*this)[i] = static_cast<T>(o[i]);                     \
	}                                                                      \
	template <class... A,                                                  \
	          std::enable_if_t<(sizeof...(A) >= 2) && any_vec<A...>::value && \
	                               comp_sum<A...>::value == N,             \
	                           int> = 0>                                   \
	constexpr vec(const A &...a) : vec(splat_tag{}, T{}) {                 \
		T tmp[N] = {};                                                 \
		filler<T, N> f{tmp, 0};                                        \
		(f(a), ...);                                                   \
		for (int i = 0; i < N; i++)                                    \
			(*this)[i] = tmp[i];                                   \
	}                                                                      \
	/* from a volatile vector of another component type (`constant`     \
	 * memory, as c10's om_t(a[j]) converts a `constant half2`) */        \
	template <class U, std::enable_if_t<!std::is_same<U, T>::value, int> = 0> \
	explicit vec(const volatile vec<U, N> &o) : vec(splat_tag{}, T{}) {    \
		for (int i = 0; i < N; i++)                                    \
			(*this)[i] = static_cast<T>(o[i]);                     \
	}                                                                      \
	/* from a volatile lvalue (`constant` memory): a template, so the     \
	 * vector stays trivially copyable */                                  \
	template <class V, std::enable_if_t<std::is_same<V, vec>::value, int> = 0> \
	vec(const volatile V &o) : vec(splat_tag{}, T{}) {                     \
		for (int i = 0; i < N; i++)                                    \
			(*this)[i] = o[i];                                     \
	}                                                                      \
	template <class V, std::enable_if_t<std::is_same<V, vec>::value, int> = 0> \
	vec &operator=(const volatile V &o) {                                  \
		for (int i = 0; i < N; i++)                                    \
			(*this)[i] = o[i];                                     \
		return *this;                                                  \
	}                                                                      \
	constexpr const T &operator[](int i) const { return ref(*this, i); }   \
	constexpr T &operator[](int i) { return ref(*this, i); }               \
	const volatile T &operator[](int i) const volatile { return ref(*this, i); } \
	/* swizzles (REWRITES.md rule 4 writes `.zw` as these; C is 1 then  \
	 * the component indices, `.zw` 123): the components as a new       \
	 * vector, or a reference that assigns them */                         \
	template <int C>                                                       \
	constexpr auto mh_swizzle() const {                                    \
		return swz_code<C, N>::get(*this, std::make_integer_sequence<int, swz_code<C, N>::len>{}); \
	}                                                                      \
	template <int C>                                                       \
	auto mh_swizzle() const volatile {                                     \
		return swz_code<C, N>::get(*this, std::make_integer_sequence<int, swz_code<C, N>::len>{}); \
	}                                                                      \
	template <int C>                                                       \
	constexpr auto mh_swizzle_ref() {                                      \
		return swz_code<C, N>::ref(this, std::make_integer_sequence<int, swz_code<C, N>::len>{}); \
	}

struct splat_tag {};

template <class T, int N, int... I>
struct swizzle_ref;

/* a swizzle code of rule 4: 1 then 2 to 4 component indices (decimal
 * digits), for a vector of N components */
template <int C, int N>
struct swz_code {
	static_assert(C >= 100 && C < 20000, "swizzle: 2 to 4 components");
	static constexpr int len = C >= 10000 ? 4 : C >= 1000 ? 3 : 2;
	static constexpr int at(int k) {
		int p = 1;
		for (int j = k + 1; j < len; j++)
			p *= 10;
		return C / p % 10;
	}
	template <class V, int... K>
	static constexpr auto get(const V &v, std::integer_sequence<int, K...>) {
		static_assert(((at(K) < N) && ...), "swizzle: a component the vector does not have");
		using T = std::remove_cv_t<std::remove_reference_t<decltype(v[0])>>;
		return vec<T, len>(T(v[at(K)])...);
	}
	template <class T, int... K>
	static constexpr swizzle_ref<T, N, at(K)...> ref(vec<T, N> *v, std::integer_sequence<int, K...>) {
		return swizzle_ref<T, N, at(K)...>{v};
	}
};

/* an assignable swizzle, `v.zw = uint2(a, b)` (REWRITES.md rule 4): the
 * components I... of *v; as in Metal, no component twice */
template <class T, int N, int... I>
struct swizzle_ref {
	static constexpr int M = int(sizeof...(I));
	vec<T, N> *v;
	static constexpr bool distinct() {
		const int ix[] = {I...};
		for (int a = 0; a < M; a++)
			for (int b = a + 1; b < M; b++)
				if (ix[a] == ix[b])
					return false;
		return true;
	}
	static_assert(distinct(), "a swizzle assigned to names each component at most once");
	static_assert(((I >= 0 && I < N) && ...), "swizzle: a component the vector does not have");
	constexpr vec<T, M> get() const { return vec<T, M>((*v)[I]...); }
	constexpr operator vec<T, M>() const { return get(); }
	constexpr swizzle_ref &operator=(const vec<T, M> &o) {
		const vec<T, M> c = o; /* o may be a swizzle of *v itself */
		int k = 0;
		(((*v)[I] = c[k++]), ...);
		return *this;
	}
	template <class S, std::enable_if_t<std::is_convertible<S, T>::value && !is_vec<S>::value, int> = 0>
	constexpr swizzle_ref &operator=(const S &s) { return *this = vec<T, M>(static_cast<T>(s)); }
	template <class S>
	constexpr swizzle_ref &operator+=(const S &s) { return *this = get() + s; }
	template <class S>
	constexpr swizzle_ref &operator-=(const S &s) { return *this = get() - s; }
	template <class S>
	constexpr swizzle_ref &operator*=(const S &s) { return *this = get() * s; }
	template <class S>
	constexpr swizzle_ref &operator/=(const S &s) { return *this = get() / s; }
	template <class S>
	constexpr swizzle_ref &operator%=(const S &s) { return *this = get() % s; }
	template <class S>
	constexpr swizzle_ref &operator&=(const S &s) { return *this = get() & s; }
	template <class S>
	constexpr swizzle_ref &operator|=(const S &s) { return *this = get() | s; }
	template <class S>
	constexpr swizzle_ref &operator^=(const S &s) { return *this = get() ^ s; }
	template <class S>
	constexpr swizzle_ref &operator<<=(const S &s) { return *this = get() << s; }
	template <class S>
	constexpr swizzle_ref &operator>>=(const S &s) { return *this = get() >> s; }
};

template <class T>
struct alignas(2 * sizeof(T)) vec<T, 2> {
	T x, y;
	constexpr vec(splat_tag, T s) : x(s), y(s) {}
	constexpr vec(T a, T b) : x(a), y(b) {}
	METAL_HOST_VEC_COMMON(2)
private:
	template <class V>
	static constexpr auto &ref(V &v, int i) { return i == 0 ? v.x : v.y; }
};

template <class T>
struct alignas(4 * sizeof(T)) vec<T, 3> {
	T x, y, z;
	constexpr vec(splat_tag, T s) : x(s), y(s), z(s) {}
	constexpr vec(T a, T b, T c) : x(a), y(b), z(c) {}
	METAL_HOST_VEC_COMMON(3)
private:
	template <class V>
	static constexpr auto &ref(V &v, int i) { return i == 0 ? v.x : i == 1 ? v.y : v.z; }
};

template <class T>
struct alignas(4 * sizeof(T)) vec<T, 4> {
	T x, y, z, w;
	constexpr vec(splat_tag, T s) : x(s), y(s), z(s), w(s) {}
	constexpr vec(T a, T b, T c, T d) : x(a), y(b), z(c), w(d) {}
	METAL_HOST_VEC_COMMON(4)
private:
	template <class V>
	static constexpr auto &ref(V &v, int i) {
		return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
	}
};

#undef METAL_HOST_VEC_COMMON

/* ---- operators ----------------------------------------------------------- */

template <class T, int N, class F>
constexpr vec<T, N> vmap2(const vec<T, N> &a, const vec<T, N> &b, F f) {
	vec<T, N> r{};
	for (int i = 0; i < N; i++)
		r[i] = static_cast<T>(f(a[i], b[i]));
	return r;
}
template <class T, int N, class F>
constexpr vec<bool, N> vcmp(const vec<T, N> &a, const vec<T, N> &b, F f) {
	vec<bool, N> r{};
	for (int i = 0; i < N; i++)
		r[i] = f(a[i], b[i]);
	return r;
}

template <class S, class T>
using enable_splat = std::enable_if_t<is_splat_source<S, T>::value, int>;

/* vec OP scalar and scalar OP vec, a vector of R: the scalar converted to
 * T and replicated, then the vector operator */
#define METAL_HOST_VEC_SPLAT(OP, R)                                             \
	template <class T, int N, class S, enable_splat<S, T> = 0>             \
	constexpr vec<R, N> operator OP(const vec<T, N> &a, const S &s) {      \
		return a OP vec<T, N>(static_cast<T>(s));                      \
	}                                                                      \
	template <class T, int N, class S, enable_splat<S, T> = 0>             \
	constexpr vec<R, N> operator OP(const S &s, const vec<T, N> &b) {      \
		return vec<T, N>(static_cast<T>(s)) OP b;                      \
	}

#define METAL_HOST_VEC_BINOP(OP)                                                \
	template <class T, int N>                                              \
	constexpr vec<T, N> operator OP(const vec<T, N> &a, const vec<T, N> &b) { \
		return vmap2(a, b, [](const T &p, const T &q) { return p OP q; }); \
	}                                                                      \
	METAL_HOST_VEC_SPLAT(OP, T)                                            \
	template <class T, int N, class S>                                     \
	constexpr vec<T, N> &operator OP##=(vec<T, N> &a, const S &s) {        \
		a = a OP s;                                                    \
		return a;                                                      \
	}
METAL_HOST_VEC_BINOP(+)
METAL_HOST_VEC_BINOP(-)
METAL_HOST_VEC_BINOP(*)
METAL_HOST_VEC_BINOP(/)
METAL_HOST_VEC_BINOP(%)
METAL_HOST_VEC_BINOP(&)
METAL_HOST_VEC_BINOP(|)
METAL_HOST_VEC_BINOP(^)
METAL_HOST_VEC_BINOP(<<)
METAL_HOST_VEC_BINOP(>>)
#undef METAL_HOST_VEC_BINOP

#define METAL_HOST_VEC_CMP(OP)                                                  \
	template <class T, int N>                                              \
	constexpr vec<bool, N> operator OP(const vec<T, N> &a, const vec<T, N> &b) { \
		return vcmp(a, b, [](const T &p, const T &q) { return bool(p OP q); }); \
	}                                                                      \
	METAL_HOST_VEC_SPLAT(OP, bool)
METAL_HOST_VEC_CMP(==)
METAL_HOST_VEC_CMP(!=)
METAL_HOST_VEC_CMP(<)
METAL_HOST_VEC_CMP(<=)
METAL_HOST_VEC_CMP(>)
METAL_HOST_VEC_CMP(>=)
METAL_HOST_VEC_CMP(&&)
METAL_HOST_VEC_CMP(||)
#undef METAL_HOST_VEC_CMP
#undef METAL_HOST_VEC_SPLAT

template <class T, int N>
constexpr vec<T, N> operator-(const vec<T, N> &a) {
	vec<T, N> r{};
	for (int i = 0; i < N; i++)
		r[i] = static_cast<T>(-a[i]);
	return r;
}
template <class T, int N>
constexpr vec<T, N> operator+(const vec<T, N> &a) { return a; }
template <class T, int N>
constexpr vec<T, N> operator~(const vec<T, N> &a) {
	vec<T, N> r{};
	for (int i = 0; i < N; i++)
		r[i] = static_cast<T>(~a[i]);
	return r;
}
template <class T, int N>
constexpr vec<bool, N> operator!(const vec<T, N> &a) {
	vec<bool, N> r{};
	for (int i = 0; i < N; i++)
		r[i] = !a[i];
	return r;
}
template <class T, int N>
constexpr vec<T, N> &operator++(vec<T, N> &a) { return a += T(1); }
template <class T, int N>
constexpr vec<T, N> &operator--(vec<T, N> &a) { return a -= T(1); }

} // namespace metal_host

#define METAL_HOST_VEC_NAMES(T)                                                 \
	typedef ::metal_host::vec<T, 2> T##2;                                  \
	typedef ::metal_host::vec<T, 3> T##3;                                  \
	typedef ::metal_host::vec<T, 4> T##4;
METAL_HOST_VEC_NAMES(bool)
METAL_HOST_VEC_NAMES(char)
METAL_HOST_VEC_NAMES(uchar)
METAL_HOST_VEC_NAMES(short)
METAL_HOST_VEC_NAMES(ushort)
METAL_HOST_VEC_NAMES(int)
METAL_HOST_VEC_NAMES(uint)
METAL_HOST_VEC_NAMES(long)
METAL_HOST_VEC_NAMES(ulong)
METAL_HOST_VEC_NAMES(half)
METAL_HOST_VEC_NAMES(bfloat)
METAL_HOST_VEC_NAMES(float)
#undef METAL_HOST_VEC_NAMES

/* Packed vectors (packed_float4, packed_half3, ...): N scalars with the
 * scalar's alignment and no padding (Metal Shading Language 2.2.3), read
 * through a cast of a buffer pointer at any element (main's
 * CrossEntropyKernel.metal loads rows as `*reinterpret_cast<device const
 * packed_float4*>(p)`).  They convert to and from the aligned vector and
 * index by []; arithmetic goes through the aligned vector. */
namespace metal_host {
template <class T, int N>
struct packed_vec {
	T v[N];
	packed_vec() = default;
	constexpr packed_vec(const vec<T, N> &o) : v{} {
		for (int i = 0; i < N; i++)
			v[i] = o[i];
	}
	constexpr operator vec<T, N>() const {
		vec<T, N> r;
		for (int i = 0; i < N; i++)
			r[i] = v[i];
		return r;
	}
	template <class U, std::enable_if_t<!std::is_same<U, T>::value, int> = 0>
	constexpr explicit operator vec<U, N>() const {
		return vec<U, N>(vec<T, N>(*this));
	}
	constexpr T &operator[](int i) { return v[i]; }
	constexpr const T &operator[](int i) const { return v[i]; }
	/* through a `constant` pointer (const volatile on the host) */
	operator vec<T, N>() const volatile {
		vec<T, N> r;
		for (int i = 0; i < N; i++)
			r[i] = const_cast<const T &>(v[i]);
		return r;
	}
	template <class U, std::enable_if_t<!std::is_same<U, T>::value, int> = 0>
	explicit operator vec<U, N>() const volatile {
		return vec<U, N>(vec<T, N>(*this));
	}
};
} /* namespace metal_host */

#define METAL_HOST_PACKED_NAMES(T)                                              \
	typedef ::metal_host::packed_vec<T, 2> packed_##T##2;                  \
	typedef ::metal_host::packed_vec<T, 3> packed_##T##3;                  \
	typedef ::metal_host::packed_vec<T, 4> packed_##T##4;
METAL_HOST_PACKED_NAMES(char)
METAL_HOST_PACKED_NAMES(uchar)
METAL_HOST_PACKED_NAMES(short)
METAL_HOST_PACKED_NAMES(ushort)
METAL_HOST_PACKED_NAMES(int)
METAL_HOST_PACKED_NAMES(uint)
METAL_HOST_PACKED_NAMES(long)
METAL_HOST_PACKED_NAMES(ulong)
METAL_HOST_PACKED_NAMES(half)
METAL_HOST_PACKED_NAMES(bfloat)
METAL_HOST_PACKED_NAMES(float)
#undef METAL_HOST_PACKED_NAMES

static_assert(sizeof(packed_float3) == 12 && alignof(packed_float4) == 4, "packed_float layout");
static_assert(sizeof(float2) == 8 && alignof(float2) == 8, "float2 layout");
static_assert(sizeof(float3) == 16 && alignof(float3) == 16, "float3 layout");
static_assert(sizeof(half2) == 4 && alignof(half2) == 4, "half2 layout");
static_assert(sizeof(uint4) == 16, "uint4 layout");
static_assert(std::is_trivially_copyable<float4>::value, "float4 copyable");

#endif /* METAL_HOST_VECTOR_H */
