int pfx_fn(void) { return 3; }
