#include "kernels/kernels.h"

namespace kernels {
bool LaunchScale(float* data, int n, float factor) {
  for (int i = 0; i < n; ++i) {
    data[i] *= factor;
    if (data[i] < 0.0f) data[i] = 0.0f;
  }
  return true;
}

bool LaunchAddBias(float* data, int n, float bias) {
  for (int i = 0; i < n; ++i) data[i] += bias;
  return true;
}

const char* Backend() { return "cpu"; }
}  // namespace kernels
