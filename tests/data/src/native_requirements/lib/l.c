int l_fn(int x) { return x + APP_MODE; }
