#ifndef UTILS_H
#define UTILS_H
#define UTILS_ANSWER 42
int utils_checksum(const char *s);
#endif
