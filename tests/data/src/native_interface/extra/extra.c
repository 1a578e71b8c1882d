#include "core.h"
#include "extra.h"
int extra_fn(int x) { return core_fn(x) * 2; }
