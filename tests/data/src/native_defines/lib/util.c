int util_fn(void) { return 1; }
