#include <stdio.h>
/* Calls nothing of foo; what it prints depends on the definition foo_dep hands over. */
int main(void) {
#ifdef USE_FOO
  puts("with foo");
  return 0;
#else
  puts("without foo");
  return 1;
#endif
}
