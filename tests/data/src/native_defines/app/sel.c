#include <stdio.h>
#ifndef SEL_MODE
#error "SEL_MODE is not defined"
#endif
int main(void) { printf("sel %d\n", SEL_MODE); return 0; }
