#include <cstdio>
extern "C" int repro_hook(int x) __attribute__((weak));
int main() {
  int v = repro_hook ? repro_hook(1) : 1;
  std::printf("%d\n", v);
}
