#pragma once

inline float scale(float x, int k) {
  return x * k;
}
