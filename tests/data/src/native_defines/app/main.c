#include <stdio.h>
#ifndef APP_MODE
#error "APP_MODE is not defined"
#endif
int main(void) { printf("mode %d\n", APP_MODE); return 0; }
