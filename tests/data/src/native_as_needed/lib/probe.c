#include "probe.h"
int probe_fn(int x) { return x * 2; }
