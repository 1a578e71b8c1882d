int used_fn(int x) { return x * 5; }
