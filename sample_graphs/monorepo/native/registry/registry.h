#pragma once

namespace registry {
// Op registration: libraries register themselves from static initializers.
bool Register(const char* name);
int RegisteredCount();
}  // namespace registry
