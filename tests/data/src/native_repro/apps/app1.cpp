#include <cstdio>
#include "half/half.h"
#include "helper/helper.h"
int main() { std::printf("%d\n", helper_fn(half_used(1))); }
