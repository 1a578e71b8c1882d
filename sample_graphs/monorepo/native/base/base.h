#pragma once
#include <string>

namespace base {
// Logging and string helpers every other library uses.
void Log(const std::string& msg);
std::string Join(const std::string& a, const std::string& b);
int LogCount();
}  // namespace base
