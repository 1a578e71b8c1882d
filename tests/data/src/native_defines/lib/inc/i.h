#ifndef INC_I_H
#define INC_I_H
#define INC_K 8
#endif
