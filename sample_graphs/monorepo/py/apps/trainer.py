"""The training app: `python -m py.apps.trainer` (needs py/vendored/src on sys.path,
which Bazel's `imports = ["src"]` provides)."""

from __future__ import annotations

import sys

import tinyhelper

from py.common.settings import load_settings
from py.reexport import Engine


def main(argv: list[str]) -> int:
    settings = load_settings()
    values = Engine(float(str(settings["scale"]))).run([1.0, 2.0, 4.0])
    print("trainer mean", tinyhelper.mean(values))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
