#include <cstdio>
namespace {
struct Banner {
  Banner() { std::puts("ctor library initialised"); }
};
Banner banner;
}  // namespace
int ctor_fn() { return 42; }
