#include "core.h"
int glue_fn(int x);
int main(void) { return core_fn(glue_fn(0)) - 2; }
