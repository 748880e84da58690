// Demo tree (our own text, not PyTorch's): stands for c10/metal/indexing.h
// of current PyTorch, the header that #defines the core registration
// macros the kernel files call.  Each one makes two kernels from
// NAME_functor:
//   NAME_dense_OUT_IN     for contiguous tensors
//   NAME_strided_OUT_IN   for any strides
// (alpha variants end in _ALPHA: NAME_dense_OUT_IN_ALPHA, ...).  The input
// dtype comes first, the output last.  The bodies are left empty here: the
// demo tree is read by the tools, never compiled.  mps-register looks for
// these #defines to tell a current tree from one that predates c10/metal.
#pragma once

#define REGISTER_UNARY_OP(NAME, IN, OUT)
#define REGISTER_UNARY_ALPHA_OP(NAME, IN, ALPHA, OUT)
#define REGISTER_BINARY_OP(NAME, IN, OUT)
#define REGISTER_OPMATH_BINARY_OP(NAME, IN, OUT)
#define REGISTER_BINARY_ALPHA_OP(NAME, IN, ALPHA, OUT)
