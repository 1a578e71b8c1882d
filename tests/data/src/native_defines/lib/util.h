#ifndef LIB_UTIL_H
#define LIB_UTIL_H
#define UTIL_K 6
int util_fn(void);
#endif
