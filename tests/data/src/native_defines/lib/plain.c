int plain_fn(void) { return 3; }
