int inc_fn(void) { return 2; }
