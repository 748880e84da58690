// Test fixture for mps-register (our own text, not PyTorch's): stands for
// c10/metal/indexing.h of current PyTorch, the header that #defines the
// core registration macros of the Metal kernels.  Each macro makes two
// kernels from NAME_functor, NAME_dense_OUT_IN and NAME_strided_OUT_IN
// (alpha kinds: ..._OUT_IN_ALPHA).  The bodies are left empty: fixture
// files are scanned, never compiled.
#pragma once

#define REGISTER_UNARY_OP(NAME, IN, OUT)
#define REGISTER_UNARY_ALPHA_OP(NAME, IN, ALPHA, OUT)
#define REGISTER_BINARY_OP(NAME, IN, OUT)
#define REGISTER_OPMATH_BINARY_OP(NAME, IN, OUT)
#define REGISTER_BINARY_ALPHA_OP(NAME, IN, ALPHA, OUT)
