#include "half/half.h"
int half_used(int x) { return x + 1; }
int half_unused(int x) { return x * 3; }
