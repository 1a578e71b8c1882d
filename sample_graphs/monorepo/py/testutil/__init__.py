"""Test helpers (testonly)."""
