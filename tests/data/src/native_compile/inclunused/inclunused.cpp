#include "inclunused/inclunused.h"
int inclunused_fn(int x) { return x ^ 7; }
