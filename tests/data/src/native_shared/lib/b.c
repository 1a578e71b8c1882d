int b_fn(int x) { return x * 2; }
