"""Shared helpers every app uses."""
