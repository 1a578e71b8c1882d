#define GEN_N 7
