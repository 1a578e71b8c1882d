#include "native/weakhooks/weakhooks.h"

#include <cstdio>

// Weak definition: a strong one elsewhere would win.
extern "C" __attribute__((weak)) void slim_request_hook(int request_id) {
  std::fprintf(stderr, "[weakhooks] request %d\n", request_id);
}
