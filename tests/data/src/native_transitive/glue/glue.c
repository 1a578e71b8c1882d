int glue_fn(int x) { return x + 1; }
