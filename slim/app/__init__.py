"""Use cases, one module per command, without click: each runs the one pipeline."""
