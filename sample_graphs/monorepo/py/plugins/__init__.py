"""Plugins loaded by name with importlib."""
