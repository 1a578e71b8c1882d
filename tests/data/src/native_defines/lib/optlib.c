int optlib_fn(void) { return 2; }
