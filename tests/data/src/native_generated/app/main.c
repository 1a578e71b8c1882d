#include <stdio.h>
#include "l_config.h"
int main(void) { printf("%d\n", L_SCALE); return 0; }
