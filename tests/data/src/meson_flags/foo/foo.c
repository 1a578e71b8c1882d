int foo_fn(int x) { return x + 1; }
