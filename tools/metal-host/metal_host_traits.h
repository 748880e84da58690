/* metal_host_traits.h — <metal_type_traits> and <metal_limits> on the host.
 *
 * Part of the Metal host layer; include <metal_stdlib>, not this file.
 *
 * The traits of namespace metal that differ from std (MSL "Type
 * traits"; the way c10/metal/utils.h combines them, e.g.
 * is_scalar_floating_point_v = is_floating_point_v && is_scalar_v, shows
 * that the first also holds for vectors):
 *   is_floating_point<T>  half, bfloat, float (and double, host only) and
 *                         vectors of them
 *   is_integral<T>        bool, the char/short/int/long types (signed and
 *                         unsigned) and vectors of them
 *   is_arithmetic<T>      either of the two above
 *   is_signed<T>          signed integers, the floating types, vectors of
 *                         them; is_unsigned<T> unsigned integers and bool
 *   is_scalar<T>          std::is_scalar or half or bfloat (vectors: no)
 *   is_vector<T>          the vector types; vec_elements<T>::value is N
 * Every other trait is std's under the same name (is_same, enable_if,
 * conditional, remove_cv, decay, declval, ...), each with its _t / _v form.
 *
 * numeric_limits<T>: std's for the host arithmetic types; half and bfloat
 * have their own (min = least normal, denorm_min = least subnormal); for a
 * vector type each function returns the scalar value replicated.
 */
#ifndef METAL_HOST_TRAITS_H
#define METAL_HOST_TRAITS_H

#include <limits>
#include <utility>

#include "metal_host_vector.h"

namespace metal {

/* ---- std's traits, under Metal's names ---------------------------------- */
using std::add_const;
using std::add_cv;
using std::add_lvalue_reference;
using std::add_pointer;
using std::add_rvalue_reference;
using std::add_volatile;
using std::bool_constant;
using std::conditional;
using std::declval;
using std::decay;
using std::enable_if;
using std::false_type;
using std::integral_constant;
using std::is_array;
using std::is_base_of;
using std::is_class;
using std::is_const;
using std::is_convertible;
using std::is_enum;
using std::is_function;
using std::is_pointer;
using std::is_reference;
using std::is_same;
using std::is_trivially_copyable;
using std::is_union;
using std::is_void;
using std::is_volatile;
using std::make_signed;
using std::make_unsigned;
using std::remove_all_extents;
using std::remove_const;
using std::remove_cv;
using std::remove_extent;
using std::remove_pointer;
using std::remove_reference;
using std::remove_volatile;
using std::true_type;
using std::underlying_type;

/* their _t and _v forms: C++17's own */
using std::add_const_t;
using std::add_pointer_t;
using std::conditional_t;
using std::decay_t;
using std::enable_if_t;
using std::is_array_v;
using std::is_base_of_v;
using std::is_class_v;
using std::is_const_v;
using std::is_convertible_v;
using std::is_enum_v;
using std::is_pointer_v;
using std::is_reference_v;
using std::is_same_v;
using std::is_trivially_copyable_v;
using std::is_void_v;
using std::make_signed_t;
using std::make_unsigned_t;
using std::remove_const_t;
using std::remove_cv_t;
using std::remove_extent_t;
using std::remove_pointer_t;
using std::remove_reference_t;
using std::remove_volatile_t;
using std::underlying_type_t;
using std::void_t;

/* ---- Metal's own ---------------------------------------------------------- */

namespace detail {
template <class T>
struct elem {
	using type = T;
	static constexpr int n = 1;
};
template <class T, int N>
struct elem<::metal_host::vec<T, N>> {
	using type = T;
	static constexpr int n = N;
};
template <class T>
using elem_t = typename elem<std::remove_cv_t<T>>::type;

template <class S>
struct scalar_fp
    : std::integral_constant<bool, std::is_floating_point<S>::value ||
                                       ::metal_host::is_narrow<S>::value> {};
template <class S>
struct scalar_int : std::integral_constant<bool, std::is_integral<S>::value> {};
} // namespace detail

/* NAME<T>: true when the condition (in T) holds; and NAME_v<T> */
#define METAL_HOST_TRAIT(NAME, ...)                                             \
	template <class T>                                                     \
	struct NAME : bool_constant<__VA_ARGS__> {};                           \
	template <class T>                                                     \
	constexpr bool NAME##_v = NAME<T>::value;
METAL_HOST_TRAIT(is_floating_point, detail::scalar_fp<detail::elem_t<T>>::value)
METAL_HOST_TRAIT(is_integral, detail::scalar_int<detail::elem_t<T>>::value)
METAL_HOST_TRAIT(is_arithmetic, is_floating_point<T>::value || is_integral<T>::value)
METAL_HOST_TRAIT(is_signed, detail::scalar_fp<detail::elem_t<T>>::value ||
                                std::is_signed<detail::elem_t<T>>::value)
METAL_HOST_TRAIT(is_unsigned, std::is_unsigned<detail::elem_t<T>>::value)
METAL_HOST_TRAIT(is_scalar, std::is_scalar<std::remove_cv_t<T>>::value ||
                                ::metal_host::is_narrow<std::remove_cv_t<T>>::value)
METAL_HOST_TRAIT(is_vector, ::metal_host::is_vec<std::remove_cv_t<T>>::value)
#undef METAL_HOST_TRAIT
template <class T>
struct vec_elements : integral_constant<int, detail::elem<std::remove_cv_t<T>>::n> {};

/* ---- numeric_limits --------------------------------------------------------- */

template <class T>
struct numeric_limits : std::numeric_limits<T> {};

namespace detail {
/* The limits of a narrow type T of format Fm (metal_host::fmt), every one
 * from the format's field widths; the decimal ones with log10(2) taken as
 * 643/2136, as libstdc++'s <limits> does. */
template <class T, class Fm>
struct narrow_limits {
	static constexpr T make(unsigned b) { return T(::metal_host::ctor_bits_tag{}, uint16_t(b)); }
	/* the bits of 2^e, e a normal exponent */
	static constexpr unsigned pow2(int e) { return unsigned(e + Fm::bias) << Fm::frac; }
	static constexpr bool is_specialized = true;
	static constexpr bool is_signed = true;
	static constexpr bool is_integer = false;
	static constexpr bool is_exact = false;
	static constexpr bool has_infinity = true;
	static constexpr bool has_quiet_NaN = true;
	static constexpr bool has_signaling_NaN = true;
	static constexpr bool has_denorm_loss = false;
	static constexpr bool is_iec559 = true;
	static constexpr bool is_bounded = true;
	static constexpr bool is_modulo = false;
	static constexpr bool traps = false;
	static constexpr bool tinyness_before = false;
	static constexpr int radix = 2;
	static constexpr int digits = Fm::frac + 1;
	static constexpr int digits10 = (digits - 1) * 643 / 2136;
	static constexpr int max_digits10 = 2 + digits * 643 / 2136;
	static constexpr int min_exponent = Fm::emin + 1;
	static constexpr int max_exponent = Fm::bias + 1;
	/* ceil(log10 of the least normal 2^emin), emin < 0 */
	static constexpr int min_exponent10 = -(-Fm::emin * 643 / 2136);
	/* floor(log10 max): max is 2^max_exponent less one unit in the last place */
	static constexpr int max_exponent10 = max_exponent * 643 / 2136;
	static constexpr T min() { return make(pow2(Fm::emin)); }
	static constexpr T max() { return make(Fm::exp_mask - 1u); }
	static constexpr T lowest() { return make(Fm::sign_bit | (Fm::exp_mask - 1u)); }
	static constexpr T epsilon() { return make(pow2(-Fm::frac)); }
	static constexpr T round_error() { return make(pow2(-1)); }
	static constexpr T infinity() { return make(Fm::exp_mask); }
	static constexpr T quiet_NaN() { return make(Fm::exp_mask | Fm::quiet_bit); }
	static constexpr T signaling_NaN() { return make(Fm::exp_mask | 1u); }
	static constexpr T denorm_min() { return make(1u); }
};
} // namespace detail

/* half: least normal 2^-14, max 65504, epsilon 2^-10, least subnormal 2^-24 */
template <>
struct numeric_limits<half> : detail::narrow_limits<half, ::metal_host::half_fmt> {};
/* bfloat: least normal 2^-126, max 0x7f7f (3.39e38), epsilon 2^-7,
 * least subnormal 2^-133 */
template <>
struct numeric_limits<bfloat> : detail::narrow_limits<bfloat, ::metal_host::bfloat_fmt> {};

template <class T, int N>
struct numeric_limits<::metal_host::vec<T, N>> {
	using V = ::metal_host::vec<T, N>;
	using L = numeric_limits<T>;
	static constexpr bool is_specialized = L::is_specialized;
	static constexpr bool is_signed = L::is_signed;
	static constexpr bool is_integer = L::is_integer;
	static constexpr bool has_infinity = L::has_infinity;
	static constexpr bool has_quiet_NaN = L::has_quiet_NaN;
	static constexpr int digits = L::digits;
	static constexpr V min() { return V(L::min()); }
	static constexpr V max() { return V(L::max()); }
	static constexpr V lowest() { return V(L::lowest()); }
	static constexpr V epsilon() { return V(L::epsilon()); }
	static constexpr V infinity() { return V(L::infinity()); }
	static constexpr V quiet_NaN() { return V(L::quiet_NaN()); }
	static constexpr V denorm_min() { return V(L::denorm_min()); }
};

} // namespace metal

#endif /* METAL_HOST_TRAITS_H */
