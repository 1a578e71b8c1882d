#include <stdio.h>
int l_fn(void);
int main(void) { printf("%d\n", l_fn()); return 0; }
