#include <stdio.h>
int main(void) { puts("free"); return 0; }
