int extra_fn(int x) { return x * 2; }
