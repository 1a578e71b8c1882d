#include "core/core.h"
int core_add(int a, int b) { return a + b; }
