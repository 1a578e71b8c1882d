int m_fn(int x) { return x * 3; }
