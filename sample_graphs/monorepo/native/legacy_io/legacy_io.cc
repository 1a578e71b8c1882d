#include "native/legacy_io/legacy_io.h"

#include <fstream>
#include <sstream>

namespace legacy_io {
std::string ReadLegacyRecord(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int LegacyChecksum(const std::string& data) {
  int sum = 0;
  for (char c : data) sum = sum * 31 + static_cast<unsigned char>(c);
  return sum;
}
}  // namespace legacy_io
