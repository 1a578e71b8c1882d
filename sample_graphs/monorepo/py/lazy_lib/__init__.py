"""Report export, imported lazily inside a function."""
