"""Readers of graph evidence."""
