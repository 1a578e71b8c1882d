#include "lib/hdr2.h"
int main(void) { return hdr2_k() == 2 ? 0 : 1; }
