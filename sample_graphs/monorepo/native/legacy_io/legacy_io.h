#pragma once
#include <string>

namespace legacy_io {
// Old file readers nothing calls any more (the planted dead dependency).
std::string ReadLegacyRecord(const std::string& path);
int LegacyChecksum(const std::string& data);
}  // namespace legacy_io
