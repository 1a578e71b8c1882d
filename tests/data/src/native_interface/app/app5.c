#include <math.h>
int main(int argc, char **argv) {
  (void)argv;
  return (int)sqrt((double)argc);
}
