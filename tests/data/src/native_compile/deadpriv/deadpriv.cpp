int deadpriv_unused(int x) { return x - 11; }
