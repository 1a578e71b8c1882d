#include <stdio.h>
int l_fn(void);
int foo_fn(void);
int main(void) { printf("%d\n", l_fn() + foo_fn()); return 0; }
