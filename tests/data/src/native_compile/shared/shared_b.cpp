#include "shared.h"
int shared_b(int x) { return core_add(x, 2); }
