"""What an installed third-party package's code imports, from its files' text (never run):
the top-level names of its import statements and of literal loading calls, anywhere in a
file (inside functions and under `try` too), with the first file and line of each.

Without a trace nothing shows what a library does at run time: pandas imports scipy only
inside the functions that need it (`import_optional_dependency("scipy")`). A package the
program declares and that such code names may be needed on a path sources cannot rule out.
A regex over the bytes, cached per file: reading every file of a large package with `ast`
would cost seconds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

MAX_FILE_BYTES = 4 * 1024 * 1024
_IMPORT = re.compile(rb"^[ \t]*import[ \t]+([^\r\n#;]+)", re.MULTILINE)
_FROM = re.compile(rb"^[ \t]*from[ \t]+([A-Za-z_]\w*)[\w.]*[ \t]+import\b", re.MULTILINE)
_CALL = re.compile(
    rb"(?:import_module|import_optional_dependency|__import__|find_spec|lazy_import)"
    rb"\(\s*['\"]([A-Za-z_]\w*)"
)
_NAME = re.compile(rb"\s*([A-Za-z_]\w*)")
_CACHE: dict[str, dict[str, int]] = {}


def _file_names(path: Path) -> dict[str, int]:
    """Top-level name -> first line, for one file."""
    key = str(path)
    hit = _CACHE.get(key)
    if hit is not None:
        return hit
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES)
    except OSError:
        data = b""
    found: dict[str, int] = {}

    def add(name: bytes, pos: int) -> None:
        text = name.decode("ascii", "replace")
        if text not in found:
            found[text] = data.count(b"\n", 0, pos) + 1

    for m in _IMPORT.finditer(data):
        for part in m.group(1).split(b","):
            n = _NAME.match(part)
            if n:
                add(n.group(1), m.start())
    for rx in (_FROM, _CALL):
        for m in rx.finditer(data):
            add(m.group(1), m.start())
    _CACHE[key] = found
    return found


def package_imports(site: str, files: Iterable[str]) -> dict[str, tuple[str, int]]:
    """Top-level module name -> (file, line) of its first import, over the `.py` files
    (RECORD paths relative to `site`) of one installed package."""
    out: dict[str, tuple[str, int]] = {}
    root = Path(site)
    for rel in sorted(files):
        if not rel.endswith(".py") or rel.startswith("../"):
            continue
        path = root / rel
        for name, line in _file_names(path).items():
            out.setdefault(name, (str(path), line))
    return out
