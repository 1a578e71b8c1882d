#pragma once

namespace ops {
// CPU reference operators built on mathutil.
float Relu(float x);
float Score(const float* a, const float* b, int n);
}  // namespace ops
