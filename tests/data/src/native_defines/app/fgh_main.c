#include <fgl/fg.h>
int main(void) { return FGL_K - 11; }
