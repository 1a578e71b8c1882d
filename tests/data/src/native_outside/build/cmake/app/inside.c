#include <stdio.h>
#include "core.h"
int main(void) { printf("%d\n", CORE_SCALE); return 0; }
