#include "native/mathutil/mathutil.h"

namespace mathutil {
float Clamp(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }

float Dot(const float* a, const float* b, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}
}  // namespace mathutil
