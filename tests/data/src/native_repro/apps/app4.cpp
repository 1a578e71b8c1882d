#include <cstdio>
#include "repro_api/api.h"
int main() { std::printf("%d\n", api_twice(3)); }
