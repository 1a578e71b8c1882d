int hook_fn(int x) { return x - 1; }
