int toolsupport_fn(int x) { return x + 3; }
