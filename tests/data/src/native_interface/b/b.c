#include "core.h"
int b_fn(int x) { return core_fn(x) - 2; }
