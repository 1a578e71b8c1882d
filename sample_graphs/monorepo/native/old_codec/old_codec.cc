#include "native/old_codec/old_codec.h"

namespace old_codec {
int DecodeV1(const unsigned char* data, int n) {
  int acc = 0;
  for (int i = 0; i < n; ++i) acc ^= data[i];
  return acc;
}
}  // namespace old_codec
