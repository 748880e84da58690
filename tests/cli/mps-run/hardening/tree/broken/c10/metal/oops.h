#pragma once

inline float oops(float x) {
  return x +;
}
