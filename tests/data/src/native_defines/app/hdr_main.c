#include "lib/hdr.h"
int main(void) { return hdr_k() == 6 ? 0 : 1; }
