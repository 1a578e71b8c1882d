"""The serving app: `python -m py.apps.server [--plugins] [--export]`.

Planted cases for slim: py.unused_lib is a dep never imported; py.lazy_lib is imported only
under --export (never in the traced runs); py.optional_lib is imported under try/except
ImportError; py.plugins.impl is loaded by importlib with a literal name only under --plugins;
Engine comes from py.core_impl through the py.reexport facade.
"""

from __future__ import annotations

import importlib
import sys

from py.common.settings import load_settings
from py.nsext.textops import normalize
from py.reexport import Engine

try:
    from py.optional_lib.fastpath import checksum
except ImportError:  # the optional accelerator is not installed
    checksum = None


def export_report(title: str) -> str:
    from py.lazy_lib.report import render

    return render(title)


def main(argv: list[str]) -> int:
    settings = load_settings()
    engine = Engine(float(str(settings["scale"])))
    out = engine.run([1.0, -2.0, 3.0])
    print(normalize(f"  Server  {settings['model']}  ok  "), out)
    if checksum is not None:
        print("checksum", checksum(b"sample"))
    if "--plugins" in argv:
        plugin = importlib.import_module("py.plugins.impl")
        print(plugin.handle("ping"))
    if "--export" in argv:
        print(export_report("server"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
