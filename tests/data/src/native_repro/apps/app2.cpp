#include <cstdio>
int main() { std::puts("app2"); }
