#include "serving/model_runner.h"

#include "kernels/kernels.h"
#include "native/base/base.h"
#include "native/ops/ops.h"

namespace serving {
float RunModel(float* data, int n, bool use_gpu) {
  if (use_gpu) {
    base::Log(kernels::Backend());
    kernels::LaunchScale(data, n, 0.5f);
  }
  return ops::Score(data, data, n);
}
}  // namespace serving
