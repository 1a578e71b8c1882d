"""Readers of version-control history (which files each commit changed)."""
