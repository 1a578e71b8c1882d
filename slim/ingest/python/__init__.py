"""Readers of python evidence."""
