#include "extra/extra.h"
int extra_scale(int x) { return x * 3; }
