"""`python -m slim` runs the command-line interface."""

from __future__ import annotations

from slim.cli import main

main()
