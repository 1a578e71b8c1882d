#ifndef WEBP_TYPES_H
#define WEBP_TYPES_H
typedef int webp_int;
#endif
