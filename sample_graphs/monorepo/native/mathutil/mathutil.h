#pragma once

namespace mathutil {
// Numeric helpers; only native/ops uses them (a transitively used library).
float Clamp(float x, float lo, float hi);
float Dot(const float* a, const float* b, int n);
}  // namespace mathutil
