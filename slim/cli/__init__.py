"""The `slim` command line: click only, thin commands over the use cases in `slim.app`."""

from __future__ import annotations

from slim.cli import commands as _commands  # noqa: F401  (registers the commands)
from slim.cli.main import cli, main

__all__ = ["cli", "main"]
