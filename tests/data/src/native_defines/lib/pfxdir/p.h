#ifndef PFX_P_H
#define PFX_P_H
#define PFX_K 9
#endif
