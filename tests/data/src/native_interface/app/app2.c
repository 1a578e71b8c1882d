#include "extra.h"
int main(void) { return extra_fn(-1); }
