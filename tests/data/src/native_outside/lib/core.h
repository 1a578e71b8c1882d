#define CORE_SCALE 3
int core_fn(int x);
