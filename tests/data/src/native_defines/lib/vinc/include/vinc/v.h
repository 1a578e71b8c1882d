#ifndef VINC_V_H
#define VINC_V_H
#define VINC_K 7
#endif
