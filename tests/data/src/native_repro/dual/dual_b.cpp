#include "dual.h"
int dual_b_fn(int x) { return x + 2; }
