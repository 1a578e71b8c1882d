"""Readers of linkmap evidence."""
