#include <stdio.h>
#include "gen.h"
int main(void) { printf("%d\n", GEN_N); return 0; }
