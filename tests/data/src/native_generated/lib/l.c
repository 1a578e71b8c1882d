int l_fn(int x) { return x + 1; }
