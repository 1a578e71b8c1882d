int vinc_fn(void) { return 1; }
