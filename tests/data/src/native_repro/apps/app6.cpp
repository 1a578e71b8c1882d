#include <cstdio>
#include "dual.h"
int main() { std::printf("%d\n", dual_a_fn(dual_twice(1))); }
