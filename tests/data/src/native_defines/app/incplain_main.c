#include <i.h>
int main(void) { return INC_K == 8 ? 0 : 1; }
