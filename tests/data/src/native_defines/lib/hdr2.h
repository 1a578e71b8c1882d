#ifndef LIB_HDR2_H
#define LIB_HDR2_H
static inline int hdr2_k(void) { return 2; }
#endif
