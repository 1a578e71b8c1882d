#include "core.h"
int main(void) { return core_fn(-1); }
