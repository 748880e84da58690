// Test fixture for mps-try (our own text, not PyTorch's): stands for
// c10/metal/indexing.h, the kernel templates and the REGISTER_* macros
// that instantiate them.  Only the dense kernels are written here: each
// macro checks the functor's result type, then instantiates its dense
// kernel under the host name NAME_dense_OUT_IN (alpha: ..._ALPHA).
#pragma once
#include <c10/metal/utils.h>
#include <metal_stdlib>

namespace c10 {
namespace metal {

template <typename T, typename F>
kernel void unary_dense(
    device result_of<F, T>* out [[buffer(0)]],
    constant T* in [[buffer(1)]],
    uint i [[thread_position_in_grid]]) {
  F f;
  out[i] = f(in[i]);
}

template <typename T, typename A, typename F>
kernel void unary_alpha_dense(
    device result_of<F, T, A>* out [[buffer(0)]],
    constant T* in [[buffer(1)]],
    constant A& alpha [[buffer(2)]],
    uint i [[thread_position_in_grid]]) {
  F f;
  out[i] = f(in[i], alpha);
}

// binary kernels compute in OM (the input type, or its opmath type) and
// store the functor's result type
template <typename T, typename F, typename OM>
kernel void binary_dense(
    device result_of<F, T, T>* out [[buffer(0)]],
    constant T* a [[buffer(1)]],
    constant T* b [[buffer(2)]],
    uint i [[thread_position_in_grid]]) {
  F f;
  out[i] = static_cast<result_of<F, T, T>>(f(OM(a[i]), OM(b[i])));
}

template <typename T, typename A, typename F>
kernel void binary_alpha_dense(
    device result_of<F, T, T, A>* out [[buffer(0)]],
    constant T* a [[buffer(1)]],
    constant T* b [[buffer(2)]],
    constant A& alpha [[buffer(3)]],
    uint i [[thread_position_in_grid]]) {
  F f;
  out[i] = f(a[i], b[i], alpha);
}

} // namespace metal
} // namespace c10

#define REGISTER_UNARY_OP(NAME, IN, OUT)                                   \
  static_assert(                                                          \
      ::metal::is_same_v<OUT, ::c10::metal::result_of<NAME##_functor, IN>>, \
      "unary " #NAME ": the functor's result is not " #OUT);              \
  template [[host_name(#NAME "_dense_" #OUT "_" #IN)]] kernel void        \
  ::c10::metal::unary_dense<IN, NAME##_functor>(                          \
      device ::c10::metal::result_of<NAME##_functor, IN> * out,           \
      constant IN * in,                                                   \
      uint i)

#define REGISTER_UNARY_ALPHA_OP(NAME, IN, ALPHA, OUT)                       \
  static_assert(                                                          \
      ::metal::is_same_v<                                                 \
          OUT, ::c10::metal::result_of<NAME##_functor, IN, ALPHA>>,       \
      "unary " #NAME ": the functor's result is not " #OUT);              \
  template [[host_name(#NAME "_dense_" #OUT "_" #IN "_" #ALPHA)]] kernel  \
  void ::c10::metal::unary_alpha_dense<IN, ALPHA, NAME##_functor>(         \
      device ::c10::metal::result_of<NAME##_functor, IN, ALPHA> * out,    \
      constant IN * in,                                                   \
      constant ALPHA & alpha,                                             \
      uint i)

#define REGISTER_BINARY_OP_(NAME, IN, OUT, OM)                              \
  static_assert(                                                          \
      ::metal::is_same_v<                                                 \
          OUT, ::c10::metal::result_of<NAME##_functor, IN, IN>>,          \
      "binary " #NAME ": the functor's result is not " #OUT);             \
  template [[host_name(#NAME "_dense_" #OUT "_" #IN)]] kernel void        \
  ::c10::metal::binary_dense<IN, NAME##_functor, OM>(                     \
      device ::c10::metal::result_of<NAME##_functor, IN, IN> * out,       \
      constant IN * a,                                                    \
      constant IN * b,                                                    \
      uint i)

#define REGISTER_BINARY_OP(NAME, IN, OUT) REGISTER_BINARY_OP_(NAME, IN, OUT, IN)
#define REGISTER_OPMATH_BINARY_OP(NAME, IN, OUT) \
  REGISTER_BINARY_OP_(NAME, IN, OUT, ::c10::metal::opmath_t<IN>)

#define REGISTER_BINARY_ALPHA_OP(NAME, IN, ALPHA, OUT)                      \
  static_assert(                                                          \
      ::metal::is_same_v<                                                 \
          OUT, ::c10::metal::result_of<NAME##_functor, IN, IN, ALPHA>>,   \
      "binary " #NAME ": the functor's result is not " #OUT);             \
  template [[host_name(#NAME "_dense_" #OUT "_" #IN "_" #ALPHA)]] kernel  \
  void ::c10::metal::binary_alpha_dense<IN, ALPHA, NAME##_functor>(        \
      device ::c10::metal::result_of<NAME##_functor, IN, IN, ALPHA> * out, \
      constant IN * a,                                                    \
      constant IN * b,                                                    \
      constant ALPHA & alpha,                                             \
      uint i)
