"""Reproductions from the SLIM001 validation corpus (/work/brief/validation-python.md):
real programs, really run and traced, whose verdict is wrong today. Each test states the
right behaviour; brute force (the cut applied and the program run again) is the ground
truth, as in test_slim001_real_programs.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from .harness import Dist, Program, assert_removals_safe, traced, verdicts

APP = "//app:main"


def _codec_program(main: str) -> Program:
    return Program(
        files={
            "app/main.py": main,
            "codecs_x/__init__.py": "",
            "codecs_x/zstd.py": "NAME = 'zstd'\n",
        },
        targets={
            APP: (["main.py"], ["//codecs_x:codecs_x"]),
            "//codecs_x:codecs_x": (["__init__.py", "zstd.py"], []),
        },
        roots={APP: "app.main"},
    )


ALIASED_MODULE = _codec_program(
    "import importlib as il\nm = il.import_module('codecs_x.zstd')\nprint(m.NAME)\n"
)
ALIASED_FUNCTION = _codec_program(
    "from importlib import import_module as load\nm = load('codecs_x.zstd')\nprint(m.NAME)\n"
)


@pytest.mark.parametrize("how", ["importtime", "static"])
@pytest.mark.parametrize(
    "prog", [ALIASED_MODULE, ALIASED_FUNCTION], ids=["import-importlib-as", "import-module-as"]
)
def test_repro_aliased_import_module_literal_is_a_use(
    tmp_path: Path, how: str, prog: Program
) -> None:
    """`il.import_module('a.b')` / `load('a.b')` load the module as surely as
    `importlib.import_module('a.b')`; -X importtime prints no row for it, so the static
    scan must see the call through the alias (today: dead, high/medium, removable)."""
    ws = tmp_path / "ws"
    prog.write(ws)
    traces: dict[str, Sequence[Path]] = (
        {APP: [traced(prog, ws, APP, how)]} if how != "static" else {}
    )
    found = prog.judge(ws, traces)
    assert not prog.cut_is_safe(ws, APP, (APP, "//codecs_x:codecs_x"))
    f = verdicts(found).get((APP, "//codecs_x:codecs_x"))
    assert f is None or not f.removable, f
    assert_removals_safe(prog, ws, found)


STAR_ALL = Program(
    files={
        "app/main.py": "from fmt import *\nprint(csvfmt.NAME)\n",
        "fmt/__init__.py": "__all__ = ['csvfmt']\n",
        "fmt/csvfmt.py": "NAME = 'csv'\n",
    },
    targets={
        APP: (["main.py"], ["//fmt:fmt", "//fmt:csvfmt"]),
        "//fmt:fmt": (["__init__.py"], []),
        "//fmt:csvfmt": (["csvfmt.py"], []),
    },
    roots={APP: "app.main"},
)


def test_repro_star_import_loads_the_submodules_all_names(tmp_path: Path) -> None:
    """`from fmt import *` imports every submodule `fmt.__all__` names; from sources alone
    (no trace) the edge to the target owning fmt/csvfmt.py is not dead (today: dead, medium,
    removable, and the cut breaks the program)."""
    ws = tmp_path / "ws"
    STAR_ALL.write(ws)
    found = STAR_ALL.judge(ws, {})
    assert not STAR_ALL.cut_is_safe(ws, APP, (APP, "//fmt:csvfmt"))
    f = verdicts(found).get((APP, "//fmt:csvfmt"))
    assert f is None or not f.removable, f


SPOKES = Program(
    files={"app/main.py": "import numpyish\nprint(numpyish.VALUE)\n"},
    targets={
        APP: (["main.py"], ["@pypi//numpyish:pkg", "@pypi//pandasish:pkg"]),
        "@pypi//numpyish:pkg": ([], []),
        "@pypi//pandasish:pkg": ([], ["@pypi//numpyish:pkg"]),
    },
    roots={APP: "app.main"},
    dists=[
        Dist("numpyish", {"numpyish/__init__.py": "VALUE = 'numpyish'\n"}),
        Dist("pandasish", {"pandasish/__init__.py": "import numpyish\n"}),
    ],
)


@pytest.mark.parametrize("how", ["importtime", "verbose", "slimtrace", "static"])
def test_repro_installed_dist_does_not_provide_its_requirements(tmp_path: Path, how: str) -> None:
    """A third-party target whose modules come from its dist-info RECORD provides those
    modules, not its requirements': importing numpyish is no use of pandasish (a
    rules_python spoke without srcs depending on the numpyish spoke). Today the edge gives
    no finding at all (used), so a dead third-party dep is never reported."""
    ws = tmp_path / "ws"
    SPOKES.write(ws)
    traces: dict[str, Sequence[Path]] = (
        {APP: [traced(SPOKES, ws, APP, how)]} if how != "static" else {}
    )
    found = SPOKES.judge(ws, traces)
    assert SPOKES.cut_is_safe(ws, APP, (APP, "@pypi//pandasish:pkg"))
    f = verdicts(found).get((APP, "@pypi//pandasish:pkg"))
    assert f is not None, "no finding: importing numpyish was taken as a use of pandasish"
    assert (f.verdict, f.removable) == ("dead", True)
