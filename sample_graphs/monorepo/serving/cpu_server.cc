#include <cstdio>
#include <cstring>

#include "native/base/base.h"
#include "native/ops/ops.h"
#include "native/weakhooks/weakhooks.h"
#include "serving/model_runner.h"

int main(int argc, char** argv) {
  bool use_gpu = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--gpu") == 0) use_gpu = true;
  }
  float data[4] = {1.0f, -2.0f, 3.0f, 0.5f};
  float score = serving::RunModel(data, 4, use_gpu);
  if (slim_request_hook) slim_request_hook(1);
  base::Log(base::Join("serving", "ok"));
  std::printf("score=%.3f relu=%.1f\n", score, ops::Relu(-1.0f));
  return 0;
}
