#include "utils.h"
int utils_checksum(const char *s) {
  int n = 0;
  while (*s) n += *s++;
  return n;
}
