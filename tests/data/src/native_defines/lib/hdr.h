#ifndef LIB_HDR_H
#define LIB_HDR_H
#include "lib/util.h"
static inline int hdr_k(void) { return UTIL_K; }
#endif
