#pragma once

namespace old_codec {
// Added in the review "head" revision as a dep of cpu_server; nothing uses it.
int DecodeV1(const unsigned char* data, int n);
}  // namespace old_codec
