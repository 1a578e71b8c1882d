#include "native/registry/registry.h"

#include <cstdio>

namespace registry {
static int g_count = 0;

bool Register(const char* name) {
  ++g_count;
  std::fprintf(stderr, "[registry] registered %s\n", name);
  return true;
}

int RegisteredCount() { return g_count; }
}  // namespace registry

namespace {
// Nothing calls into this library: it is kept only by alwayslink / --whole-archive,
// and its effect is this static initializer.
static bool registered = registry::Register("op");
}  // namespace

__attribute__((constructor)) static void registry_ctor() { registry::Register("ctor_op"); }
