int bundled_fn(int x) { return x ^ 5; }
