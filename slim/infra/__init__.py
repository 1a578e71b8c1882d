"""Plumbing: the parsed-graph cache, atomic writes, the config file."""
