#pragma once

namespace serving {
// Runs the model on the CPU, or through the CUDA kernels when asked at run time.
float RunModel(float* data, int n, bool use_gpu);
}  // namespace serving
