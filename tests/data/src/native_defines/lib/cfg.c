int cfg_fn(void) { return 2; }
