int lo_fn(void) { return 1; }
