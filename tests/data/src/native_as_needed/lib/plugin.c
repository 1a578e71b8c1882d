int plugin_fn(int x) { return x - 1; }
