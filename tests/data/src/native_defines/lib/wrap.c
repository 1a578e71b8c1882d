int wrap_fn(void) { return 7; }
