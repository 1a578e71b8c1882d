#include "dual.h"
int dual_a_fn(int x) { return x + 1; }
