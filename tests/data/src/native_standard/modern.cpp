int modern_fn() { return 1; }
