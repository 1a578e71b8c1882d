int zwrap_fn(void) { return 5; }
