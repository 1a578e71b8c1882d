#include <cstdio>

#include "kernels/kernels.h"
#include "native/ops/ops.h"

int main() {
  float data[4] = {1.0f, -2.0f, 3.0f, 0.5f};
  bool ok = kernels::LaunchScale(data, 4, 2.0f) && kernels::LaunchAddBias(data, 4, 0.1f);
  std::printf("backend=%s ok=%d score=%.3f\n", kernels::Backend(), ok ? 1 : 0,
              ops::Score(data, data, 4));
  return 0;
}
