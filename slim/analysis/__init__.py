"""Running analyzers: discovery, the per-root engine, suppressions."""
