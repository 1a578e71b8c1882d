#include "dual.h"
int dual_p_fn(int x) { return x + 3; }
