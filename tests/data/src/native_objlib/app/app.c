#include "webp/types.h"
webp_int extras_fn(void);
int main(void) { return extras_fn() == 2 ? 0 : 1; }
