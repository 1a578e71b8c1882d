int sel_fn(void) { return 1; }
