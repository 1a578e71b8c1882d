int deadpub_unused(int x) { return x + 13; }
