#define FGL_K 11
