int fgl_fn(void) { return 11; }
