int l_fn(void) { return 1; }
