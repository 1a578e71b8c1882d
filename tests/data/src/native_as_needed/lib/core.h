int core_fn(int x);
