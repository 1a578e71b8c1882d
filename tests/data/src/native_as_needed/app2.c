#include "core.h"
int extra_fn(int x);
int main(void) { return core_fn(extra_fn(0) - 1); }
