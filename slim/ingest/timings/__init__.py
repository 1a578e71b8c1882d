"""Readers of timings evidence."""
