"""Standard-library modules that import a third-party package by a name of their own:
`zoneinfo.ZoneInfo(key)` reads the time zones of the `tzdata` package (PEP 615,
`importlib.resources.files("tzdata.zoneinfo...")`) when the system has no time zone
database. Nothing in the program names that package, and `-X importtime` does not record
the load: a program importing such a module may need it."""

from __future__ import annotations

from slim.model.pytrace import Loader

#: standard-library module -> (the package it loads, why)
STDLIB_LOADS: dict[str, tuple[str, str]] = {
    "zoneinfo": ("tzdata", "ZoneInfo(key) reads the tzdata package's files (PEP 615)"),
}


def stdlib_loader(module: str, line: int) -> Loader | None:
    """The load an import of `module` (or of one of its submodules) brings, if any."""
    hit = STDLIB_LOADS.get(module.split(".", 1)[0])
    if hit is None:
        return None
    package, why = hit
    return Loader(line, "computed", package, f"import {module}: {why}")
