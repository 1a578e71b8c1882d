#pragma once

namespace kernels {
// One API, two implementations: cuda_kernels (nvcc) and cpu_kernels (plain C++).
bool LaunchScale(float* data, int n, float factor);
bool LaunchAddBias(float* data, int n, float bias);
const char* Backend();
}  // namespace kernels
