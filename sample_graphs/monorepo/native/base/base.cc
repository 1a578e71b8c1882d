#include "native/base/base.h"

#include <cstdio>

namespace base {
static int g_log_count = 0;

void Log(const std::string& msg) {
  ++g_log_count;
  std::fprintf(stderr, "[base] %s\n", msg.c_str());
}

std::string Join(const std::string& a, const std::string& b) { return a + "/" + b; }

int LogCount() { return g_log_count; }
}  // namespace base
