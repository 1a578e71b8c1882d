int ext_fn(void) { return 3; }
