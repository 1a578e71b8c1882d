"""Readers of binary evidence."""
