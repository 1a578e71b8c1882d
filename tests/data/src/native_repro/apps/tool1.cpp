#include <cstdio>
int main() { std::puts("tool1"); }
