int a_fn(int x) { return x + 1; }
