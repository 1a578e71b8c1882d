int probe_fn(int x);
