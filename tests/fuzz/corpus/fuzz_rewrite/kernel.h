// Test fixture for mps-try (our own text, not PyTorch's): a header of the
// kernel folder, included as <ATen/native/mps/kernels/UnaryKernel.h> and
// found through the aten/src include folder, as PyTorch's build passes it.
#pragma once

// logit's input clamped to [eps, 1 - eps]; a negative eps (what the host
// passes for None) leaves it as it is
inline float logit_clamp(float x, float eps) {
  if (eps < 0.0) {
    return x;
  }
  return x < eps ? eps : x > 1.0 - eps ? 1.0 - eps : x;
}
