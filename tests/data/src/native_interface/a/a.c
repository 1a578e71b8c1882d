#include "core.h"
int a_fn(int x) { return core_fn(x) - 1; }
