#include <vinc/v.h>
int main(void) { return VINC_K == 7 ? 0 : 1; }
