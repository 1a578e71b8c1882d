#include <stdio.h>
#include "foo.h"
int main(void) { printf("%d\n", foo_twice(FOO_VERSION)); return 0; }
