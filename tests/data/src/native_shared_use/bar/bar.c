int bar_fn(void) { return 5; }
