#include <cstdio>
int toolsupport_fn(int x);
int main() { std::printf("%d\n", toolsupport_fn(1)); }
