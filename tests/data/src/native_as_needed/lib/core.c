int core_fn(int x) { return x + 1; }
