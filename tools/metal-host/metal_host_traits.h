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

template <class... T>
using void_t = void;
template <bool B, class T = void>
using enable_if_t = typename std::enable_if<B, T>::type;
template <bool B, class T, class F>
using conditional_t = typename std::conditional<B, T, F>::type;
template <class T>
using decay_t = typename std::decay<T>::type;
template <class T>
using remove_cv_t = typename std::remove_cv<T>::type;
template <class T>
using remove_const_t = typename std::remove_const<T>::type;
template <class T>
using remove_volatile_t = typename std::remove_volatile<T>::type;
template <class T>
using remove_reference_t = typename std::remove_reference<T>::type;
template <class T>
using remove_pointer_t = typename std::remove_pointer<T>::type;
template <class T>
using remove_extent_t = typename std::remove_extent<T>::type;
template <class T>
using add_const_t = typename std::add_const<T>::type;
template <class T>
using add_pointer_t = typename std::add_pointer<T>::type;
template <class T>
using make_signed_t = typename std::make_signed<T>::type;
template <class T>
using make_unsigned_t = typename std::make_unsigned<T>::type;
template <class T>
using underlying_type_t = typename std::underlying_type<T>::type;

template <class A, class B>
constexpr bool is_same_v = std::is_same<A, B>::value;
template <class B, class D>
constexpr bool is_base_of_v = std::is_base_of<B, D>::value;
template <class F, class T>
constexpr bool is_convertible_v = std::is_convertible<F, T>::value;
template <class T>
constexpr bool is_void_v = std::is_void<T>::value;
template <class T>
constexpr bool is_pointer_v = std::is_pointer<T>::value;
template <class T>
constexpr bool is_reference_v = std::is_reference<T>::value;
template <class T>
constexpr bool is_const_v = std::is_const<T>::value;
template <class T>
constexpr bool is_array_v = std::is_array<T>::value;
template <class T>
constexpr bool is_class_v = std::is_class<T>::value;
template <class T>
constexpr bool is_enum_v = std::is_enum<T>::value;
template <class T>
constexpr bool is_trivially_copyable_v = std::is_trivially_copyable<T>::value;

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

template <class T>
struct is_floating_point : bool_constant<detail::scalar_fp<detail::elem_t<T>>::value> {};
template <class T>
struct is_integral : bool_constant<detail::scalar_int<detail::elem_t<T>>::value> {};
template <class T>
struct is_arithmetic : bool_constant<is_floating_point<T>::value || is_integral<T>::value> {};
template <class T>
struct is_signed
    : bool_constant<detail::scalar_fp<detail::elem_t<T>>::value ||
                    std::is_signed<detail::elem_t<T>>::value> {};
template <class T>
struct is_unsigned : bool_constant<std::is_unsigned<detail::elem_t<T>>::value> {};
template <class T>
struct is_scalar
    : bool_constant<std::is_scalar<std::remove_cv_t<T>>::value ||
                    ::metal_host::is_narrow<std::remove_cv_t<T>>::value> {};
template <class T>
struct is_vector : bool_constant<::metal_host::is_vec<std::remove_cv_t<T>>::value> {};
template <class T>
struct vec_elements : integral_constant<int, detail::elem<std::remove_cv_t<T>>::n> {};

template <class T>
constexpr bool is_floating_point_v = is_floating_point<T>::value;
template <class T>
constexpr bool is_integral_v = is_integral<T>::value;
template <class T>
constexpr bool is_arithmetic_v = is_arithmetic<T>::value;
template <class T>
constexpr bool is_signed_v = is_signed<T>::value;
template <class T>
constexpr bool is_unsigned_v = is_unsigned<T>::value;
template <class T>
constexpr bool is_scalar_v = is_scalar<T>::value;
template <class T>
constexpr bool is_vector_v = is_vector<T>::value;

/* ---- numeric_limits --------------------------------------------------------- */

template <class T>
struct numeric_limits : std::numeric_limits<T> {};

namespace detail {
template <class T, uint16_t Min, uint16_t Max, uint16_t Eps, uint16_t Den, uint16_t Inf,
          uint16_t Nan, int Digits, int MinExp, int MaxExp>
struct narrow_limits {
	static constexpr T make(uint16_t b) { return T(::metal_host::ctor_bits_tag{}, b); }
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
	static constexpr int digits = Digits;
	static constexpr int min_exponent = MinExp;
	static constexpr int max_exponent = MaxExp;
	static constexpr T min() { return make(Min); }
	static constexpr T max() { return make(Max); }
	static constexpr T lowest() { return make(uint16_t(Max | 0x8000u)); }
	static constexpr T epsilon() { return make(Eps); }
	static constexpr T round_error() { return make(uint16_t(Eps == 0x1400 ? 0x3800 : 0x3f00)); }
	static constexpr T infinity() { return make(Inf); }
	static constexpr T quiet_NaN() { return make(Nan); }
	static constexpr T signaling_NaN() { return make(uint16_t(Inf | 1u)); }
	static constexpr T denorm_min() { return make(Den); }
};
} // namespace detail

/* half: least normal 2^-14, max 65504, epsilon 2^-10, least subnormal 2^-24 */
template <>
struct numeric_limits<half>
    : detail::narrow_limits<half, 0x0400, 0x7bff, 0x1400, 0x0001, 0x7c00, 0x7e00, 11, -13, 16> {
	static constexpr int digits10 = 3;
	static constexpr int max_digits10 = 5;
	static constexpr int min_exponent10 = -4;
	static constexpr int max_exponent10 = 4;
};
/* bfloat: least normal 2^-126, max 0x7f7f (3.39e38), epsilon 2^-7,
 * least subnormal 2^-133 */
template <>
struct numeric_limits<bfloat>
    : detail::narrow_limits<bfloat, 0x0080, 0x7f7f, 0x3c00, 0x0001, 0x7f80, 0x7fc0, 8, -125, 128> {
	static constexpr int digits10 = 2;
	static constexpr int max_digits10 = 4;
	static constexpr int min_exponent10 = -37;
	static constexpr int max_exponent10 = 38;
};

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
