#include <cstdio>
int used_fn(int x);  // declared here: no header of `used` is read
int main() { std::printf("%d\n", used_fn(2)); }
