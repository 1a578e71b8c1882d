int dbg_fn(void) { return 3; }
