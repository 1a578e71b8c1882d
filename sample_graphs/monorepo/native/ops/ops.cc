#include "native/ops/ops.h"

#include "native/base/base.h"
#include "native/mathutil/mathutil.h"

namespace ops {
float Relu(float x) { return mathutil::Clamp(x, 0.0f, 1e30f); }

float Score(const float* a, const float* b, int n) {
  base::Log("ops::Score");
  return Relu(mathutil::Dot(a, b, n));
}
}  // namespace ops
