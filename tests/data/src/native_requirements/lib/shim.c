int shim_fn(void) { return 7; }
