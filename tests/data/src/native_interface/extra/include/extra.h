int extra_fn(int x);
