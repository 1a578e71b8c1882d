#ifndef PCH_H
#define PCH_H
#define PCH_K 7
#endif
