// a header of this test's own checkout
#pragma once
#include <c10/metal/scale.h>
#include <metal_stdlib>

inline float twice(float x) {
  return scale(x, 2);
}
