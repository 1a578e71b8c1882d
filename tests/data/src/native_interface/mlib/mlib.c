int mlib_fn(int x) { return x * 3; }
