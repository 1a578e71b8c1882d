#include "ext/p.h"
int main(void) { return PFX_K == 9 ? 0 : 1; }
