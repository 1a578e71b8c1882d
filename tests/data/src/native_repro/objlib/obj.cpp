#include <stdexcept>
int obj_fn(int x) {
  if (x < 0) throw std::runtime_error("negative");
  return x / 2;
}
int obj_table[64] = {1, 2, 3};
