#include "dead/dead.h"
int dead_fn(int x) { return x * 7; }
