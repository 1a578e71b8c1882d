"""Top-level package of the sample monorepo's Python code."""
