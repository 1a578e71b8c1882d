#include <cstdio>
#include "dual.h"
int dual_p_fn(int x);
int main() { std::printf("%d\n", dual_p_fn(dual_twice(1))); }
