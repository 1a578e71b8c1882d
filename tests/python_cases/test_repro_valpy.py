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


DATA_BY_PATH = Program(
    files={
        "app/main.py": (
            "import os\nHERE = os.path.dirname(os.path.abspath(__file__))\n"
            "with open(os.path.join(HERE, '..', 'configs', 'model.yaml')) as f:\n"
            "    print(f.read().strip())\n"
        ),
        "configs/__init__.py": "",
        "configs/model.yaml": "layers: 3\n",
    },
    targets={
        APP: (["main.py"], ["//configs:configs"]),
        "//configs:configs": (["__init__.py"], []),
    },
    roots={APP: "app.main"},
    data={"//configs:configs": ["model.yaml"]},
)


@pytest.mark.parametrize("how", ["importtime", "verbose", "slimtrace", "static"])
def test_repro_dep_whose_data_file_is_read_is_not_dead(tmp_path: Path, how: str) -> None:
    """`py_library(srcs = ["__init__.py"], data = ["model.yaml"])` in deps, the root reads
    the yaml by path and imports nothing of it: no evidence kind sees file reads (slim trace
    could record `open` audit events), so the edge is not provably dead. Today: dead,
    removable, and the cut makes the program fail (FileNotFoundError)."""
    ws = tmp_path / "ws"
    DATA_BY_PATH.write(ws)
    traces: dict[str, Sequence[Path]] = (
        {APP: [traced(DATA_BY_PATH, ws, APP, how)]} if how != "static" else {}
    )
    found = DATA_BY_PATH.judge(ws, traces)
    assert not DATA_BY_PATH.cut_is_safe(ws, APP, (APP, "//configs:configs"))
    f = verdicts(found).get((APP, "//configs:configs"))
    assert f is None or not f.removable, f


INIT_BINDS_SUBMODULE = Program(
    files={
        "app/main.py": "from pkg2 import name\nprint(name.X)\n",
        "pkg2/__init__.py": "from . import name\n",
        "pkg2/name.py": "X = 'submodule'\n",
    },
    targets={
        APP: (["main.py"], ["//pkg2:base", "//pkg2:namemod"]),
        "//pkg2:base": (["__init__.py"], []),
        "//pkg2:namemod": (["name.py"], []),
    },
    roots={APP: "app.main"},
)


def test_repro_init_importing_its_own_submodule_is_a_use_of_it(tmp_path: Path) -> None:
    """`from . import name` in pkg2/__init__.py binds the submodule pkg2.name: it is not a
    plain attribute, and the __init__ itself imports pkg2/name.py. From sources alone the
    edge to //pkg2:namemod is not dead (today: dead, medium, removable; the cut breaks)."""
    ws = tmp_path / "ws"
    INIT_BINDS_SUBMODULE.write(ws)
    found = INIT_BINDS_SUBMODULE.judge(ws, {})
    assert not INIT_BINDS_SUBMODULE.cut_is_safe(ws, APP, (APP, "//pkg2:namemod"))
    f = verdicts(found).get((APP, "//pkg2:namemod"))
    assert f is None or not f.removable, f


FAILED_IMPORT_ROW = Program(
    files={
        "app/main.py": "import copy\nprint(copy.copy([1]))\n",
        "unused/__init__.py": "",
    },
    targets={
        APP: (["main.py"], ["//unused:unused"]),
        "//unused:unused": (["__init__.py"], []),
    },
    roots={APP: "app.main"},
)


def test_repro_importtime_row_of_a_failed_import_is_no_unreadable_code(tmp_path: Path) -> None:
    """`import copy` runs `from org.python.core import PyStringMap` under try/except
    ImportError (Jython support): -X importtime prints a row for the failed import. It is
    no loaded third-party code, so it must not turn a dead edge into `unused-in-traces`
    ("the loaded third-party code could not be read ... org, org.python, org.python.core")."""
    ws = tmp_path / "ws"
    FAILED_IMPORT_ROW.write(ws)
    trace = traced(FAILED_IMPORT_ROW, ws, APP, "importtime")
    assert "org.python.core" in trace.read_text()
    found = FAILED_IMPORT_ROW.judge(ws, {APP: [trace]})
    assert FAILED_IMPORT_ROW.cut_is_safe(ws, APP, (APP, "//unused:unused"))
    f = verdicts(found)[(APP, "//unused:unused")]
    assert (f.verdict, f.removable) == ("dead", True), f.message


REDUNDANT = Program(
    files={
        "app/main.py": "from lib import work\nprint(work.run())\n",
        "lib/__init__.py": "",
        "lib/work.py": "from util import fmt\n\ndef run():\n    return fmt.f('x')\n",
        "util/__init__.py": "",
        "util/fmt.py": "def f(x):\n    return '<' + x + '>'\n",
    },
    targets={
        APP: (["main.py"], ["//lib:work", "//util:fmt"]),
        "//lib:work": (["__init__.py", "work.py"], ["//util:fmt"]),
        "//util:fmt": (["__init__.py", "fmt.py"], []),
    },
    roots={APP: "app.main"},
)


def test_repro_sources_only_edge_that_stays_in_the_build_is_redundant(tmp_path: Path) -> None:
    """Without traces, an edge A -> B that A does not import while another target of the
    closure depends on B (and imports it) saves nothing when cut: redundant-direct-dep,
    as with traces. Today: dead, removable, with a saving of 0 files."""
    ws = tmp_path / "ws"
    REDUNDANT.write(ws)
    found = REDUNDANT.judge(ws, {})
    f = verdicts(found)[(APP, "//util:fmt")]
    assert (f.verdict, f.removable) == ("redundant-direct-dep", False), f.message


UNITTEST_DISCOVERY = Program(
    files={
        "tests/run_all.py": (
            "import os, sys, unittest\n"
            "here = os.path.dirname(os.path.abspath(__file__))\n"
            "suite = unittest.defaultTestLoader.discover(\n"
            "    here, pattern='test_*.py', top_level_dir=os.path.dirname(here))\n"
            "res = unittest.TextTestRunner(stream=sys.stdout, verbosity=0).run(suite)\n"
            "print('ran', res.testsRun)\n"
        ),
        "tests/__init__.py": "",
        "tests/test_math.py": (
            "import unittest\n\nclass M(unittest.TestCase):\n"
            "    def test_add(self):\n        self.assertEqual(1 + 1, 2)\n"
        ),
    },
    targets={
        "//tests:run_all": (["run_all.py", "__init__.py"], ["//tests:test_math"]),
        "//tests:test_math": (["test_math.py"], []),
    },
    roots={"//tests:run_all": "tests.run_all"},
    testonly=frozenset({"//tests:run_all", "//tests:test_math"}),
)


def test_repro_unittest_discovery_loads_test_modules_no_source_names(tmp_path: Path) -> None:
    """A py_test root running `unittest.defaultTestLoader.discover(...)` imports every
    test_*.py it finds by file name: from sources alone its edges to the test modules are
    not provably dead (today: dead, medium, removable; the cut runs 0 tests)."""
    ws = tmp_path / "ws"
    UNITTEST_DISCOVERY.write(ws)
    found = UNITTEST_DISCOVERY.judge(ws, {})
    root = "//tests:run_all"
    assert not UNITTEST_DISCOVERY.cut_is_safe(ws, root, (root, "//tests:test_math"))
    f = verdicts(found).get((root, "//tests:test_math"))
    assert f is None or not f.removable, f
