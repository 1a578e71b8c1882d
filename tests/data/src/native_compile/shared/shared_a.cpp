#include "shared.h"
// Declared here, not included: shared -> extra is a link-only use.
int extra_scale(int x);
int shared_a(int x) { return extra_scale(core_add(x, 1)); }
