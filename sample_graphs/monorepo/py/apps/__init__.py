"""Entry points (py_binary mains)."""
