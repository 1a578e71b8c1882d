"""Loads no import statement names, in real programs run and traced (and judged from sources
alone): loader calls through aliases, `from pkg import *` of an `__all__` naming
submodules, an `__init__` binding its own submodule, and the standard library's and a
library's machinery that imports by name (unpickling, logging configuration, unittest
discovery, `sys.path` changes, `exec` of literal code, a plugin named in a string).
Brute force (the cut applied and the program run again) is the ground truth.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

import pytest

from slim.model.findings import Finding

from .harness import TRACE_KINDS, Dist, Program, assert_removals_safe, traced, verdicts

APP = "//app:main"
KINDS = (*TRACE_KINDS, "static")


def judge_all(prog: Program, ws: Path, how: str, root: str = APP) -> list[Finding]:
    """The program written, traced `how` (or not: "static"), judged; every removable
    verdict's cut applied and run."""
    prog.write(ws)
    traces: dict[str, Sequence[Path]] = (
        {root: [traced(prog, ws, root, how)]} if how != "static" else {}
    )
    found = prog.judge(ws, traces, roots=[root])
    assert_removals_safe(prog, ws, found)
    return found


def judge(prog: Program, ws: Path, how: str, root: str = APP) -> dict[tuple[str, str], Finding]:
    """SLIM001's verdicts of `judge_all`, by edge."""
    return verdicts(judge_all(prog, ws, how, root))


def cited(f: Finding) -> set[tuple[str, int | None]]:
    return {(e.source, e.line) for e in f.evidence}


def _assets(main: str) -> Program:
    return Program(
        files={
            "app/main.py": main,
            "assets/__init__.py": "",
            "assets/greeting.txt": "hello from assets\n",
        },
        targets={
            APP: (["main.py"], ["//assets:assets"]),
            "//assets:assets": (["__init__.py"], []),
        },
        roots={APP: "app.main"},
        data={"//assets:assets": ["greeting.txt"]},
    )


ALIASED_LOADS = {
    "resources-module-alias": _assets(
        "import importlib.resources as ir\n"
        "print(ir.files('assets').joinpath('greeting.txt').read_text().strip())\n"
    ),
    "resources-function-alias": _assets(
        "from importlib.resources import files as resource_files\n"
        "print(resource_files('assets').joinpath('greeting.txt').read_text().strip())\n"
    ),
    "pkgutil-module-alias": _assets(
        "import pkgutil as pu\nprint(pu.get_data('assets', 'greeting.txt').decode().strip())\n"
    ),
    "assigned-alias": _assets(
        "import importlib\nload = importlib.import_module\nprint(load('assets').__name__)\n"
    ),
}


@pytest.mark.parametrize("how", ["importtime", "static"])
@pytest.mark.parametrize("name", sorted(ALIASED_LOADS))
def test_loader_called_through_an_alias_is_a_use(tmp_path: Path, name: str, how: str) -> None:
    """`ir.files('assets')`, `resource_files(...)`, `pu.get_data(...)`, `load(...)` load the
    package as surely as the unaliased calls; -X importtime has no row for them, so only
    the static scan shows the use (it resolves what the call's name is bound to)."""
    prog = ALIASED_LOADS[name]
    v = judge(prog, tmp_path / "ws", how)
    assert (APP, "//assets:assets") not in v, v.get((APP, "//assets:assets"))
    assert not prog.cut_is_safe(tmp_path / "ws", APP, (APP, "//assets:assets"))


FIND_SPEC_PROBE = Program(
    files={
        "app/main.py": (
            "from importlib.util import find_spec as probe\n"
            "print('fast' if probe('speedups') else 'slow')\n"
        ),
        "speedups/__init__.py": "",
    },
    targets={
        APP: (["main.py"], ["//speedups:speedups"]),
        "//speedups:speedups": (["__init__.py"], []),
    },
    roots={APP: "app.main"},
)


@pytest.mark.parametrize("how", KINDS)
def test_find_spec_probe_through_an_alias_is_a_use(tmp_path: Path, how: str) -> None:
    """A `find_spec` probe loads nothing (`-v` prints no import for it either) but its
    answer changes the output: the aliased literal call is a use under every kind."""
    v = judge(FIND_SPEC_PROBE, tmp_path / "ws", how)
    f = v.get((APP, "//speedups:speedups"))
    assert f is None or not f.removable, f
    assert not FIND_SPEC_PROBE.cut_is_safe(tmp_path / "ws", APP, (APP, "//speedups:speedups"))


ALIASED_COMPUTED = Program(
    files={
        "app/main.py": "import sys\nfrom core import registry\nprint(registry.run(sys.argv[1]))\n",
        "core/__init__.py": "",
        "core/registry.py": (
            "from importlib import import_module as _imp\n\n"
            "def run(name):\n"
            "    return _imp(f'plugins.{name}').VALUE\n"
        ),
        "plugins/__init__.py": "",
        "plugins/fast.py": "VALUE = 'fast'\n",
        "plugins/slow.py": "VALUE = 'slow'\n",
        "unused/__init__.py": "",
    },
    targets={
        APP: (
            ["main.py"],
            ["//core:core", "//plugins:fast", "//plugins:slow", "//unused:unused"],
        ),
        "//core:core": (["__init__.py", "registry.py"], []),
        "//plugins:fast": (["__init__.py", "fast.py"], []),
        "//plugins:slow": (["slow.py"], ["//plugins:fast"]),
        "//unused:unused": (["__init__.py"], []),
    },
    roots={APP: "app.main"},
    args={APP: ["fast"]},
)


@pytest.mark.parametrize("how", KINDS)
def test_computed_import_through_an_alias_blocks_what_its_head_reaches(
    tmp_path: Path, how: str
) -> None:
    """`_imp(f'plugins.{name}')` (`from importlib import import_module as _imp`) may load
    any `plugins.*`: the plugin the traced run did not load is not dead under any kind
    (a run with another argument needs it); `//unused` stays provably dead."""
    ws = tmp_path / "ws"
    v = judge(ALIASED_COMPUTED, ws, how)
    slow = v[(APP, "//plugins:slow")]
    assert (slow.verdict, slow.removable) == ("possibly-dead", False), slow.message
    assert ("core/registry.py", 4) in cited(slow)
    other_run = dataclasses.replace(ALIASED_COMPUTED, args={APP: ["slow"]})
    assert not other_run.cut_is_safe(ws, APP, (APP, "//plugins:slow"))
    dead = v[(APP, "//unused:unused")]
    assert (dead.verdict, dead.removable) == ("dead", True)


STAR_IN_DEP = Program(
    files={
        "app/main.py": "from core import api\nprint(api.csvfmt.NAME)\n",
        "core/__init__.py": "",
        "core/api.py": "from fmt import *\n",
        "fmt/__init__.py": "__all__ = ['csvfmt']\n",
        "fmt/csvfmt.py": "NAME = 'csv'\n",
        "fmt/jsonfmt.py": "NAME = 'json'\n",
    },
    targets={
        APP: (["main.py"], ["//core:api", "//fmt:csvfmt", "//fmt:jsonfmt"]),
        "//core:api": (["__init__.py", "api.py"], ["//fmt:fmt"]),
        "//fmt:fmt": (["__init__.py"], []),
        "//fmt:csvfmt": (["csvfmt.py"], []),
        "//fmt:jsonfmt": (["jsonfmt.py"], []),
    },
    roots={APP: "app.main"},
)


@pytest.mark.parametrize("how", KINDS)
def test_star_import_in_a_dependency_loads_what_all_names(tmp_path: Path, how: str) -> None:
    """`from fmt import *` in //core:api imports `fmt.csvfmt` (named by `fmt.__all__`),
    not `fmt.jsonfmt`: the first is needed, the second dead, from sources alone too."""
    ws = tmp_path / "ws"
    v = judge(STAR_IN_DEP, ws, how)
    csv = v.get((APP, "//fmt:csvfmt"))
    assert csv is not None
    assert csv.verdict == "used-transitively", csv
    assert not STAR_IN_DEP.cut_is_safe(ws, APP, (APP, "//fmt:csvfmt"))
    json_ = v[(APP, "//fmt:jsonfmt")]
    assert (json_.verdict, json_.removable) == ("dead", True)


OWN_SUBMODULE_ABSOLUTE = Program(
    files={
        "app/main.py": "from pkg5 import sub\nprint(sub.X)\n",
        "pkg5/__init__.py": "from pkg5 import sub\n",
        "pkg5/sub.py": "X = 'sub'\n",
    },
    targets={
        APP: (["main.py"], ["//pkg5:base", "//pkg5:sub"]),
        "//pkg5:base": (["__init__.py"], []),
        "//pkg5:sub": (["sub.py"], []),
    },
    roots={APP: "app.main"},
)


@pytest.mark.parametrize("how", KINDS)
def test_init_binding_its_own_submodule_absolutely_is_a_use(tmp_path: Path, how: str) -> None:
    """`from pkg5 import sub` inside pkg5/__init__.py binds the submodule, not an attribute:
    both the __init__ and the root need pkg5/sub.py."""
    ws = tmp_path / "ws"
    v = judge(OWN_SUBMODULE_ABSOLUTE, ws, how)
    f = v.get((APP, "//pkg5:sub"))
    assert f is None or not f.removable, f
    assert not OWN_SUBMODULE_ABSOLUTE.cut_is_safe(ws, APP, (APP, "//pkg5:sub"))


PICKLE = Program(
    files={
        "app/main.py": (
            "import os, pickle\nHERE = os.path.dirname(os.path.abspath(__file__))\n"
            "with open(os.path.join(HERE, 'point.pkl'), 'rb') as f:\n"
            "    p = pickle.load(f)\n"
            "print(type(p).__module__, p.x)\n"
        ),
        "app/point.pkl": (
            "ccopy_reg\n_reconstructor\np0\n(cmodels.point\nPoint\np1\nc__builtin__\nobject\n"
            "p2\nNtp3\nRp4\n(dp5\nVx\np6\nI3\nsb."
        ),
        "models/__init__.py": "",
        "models/point.py": "class Point:\n    def __init__(self, x):\n        self.x = x\n",
    },
    targets={
        APP: (["main.py"], ["//models:point"]),
        "//models:point": (["__init__.py", "point.py"], []),
    },
    roots={APP: "app.main"},
    data={APP: ["point.pkl"]},
)

LOGGING_DICT = Program(
    files={
        "app/main.py": (
            "import logging, logging.config\n"
            "logging.config.dictConfig({'version': 1, 'handlers': {'h': {'class': "
            "'handlers.custom.Shout'}}, 'root': {'handlers': ['h'], 'level': 'INFO'}})\n"
            "logging.getLogger().info('hello')\n"
        ),
        "handlers/__init__.py": "",
        "handlers/custom.py": (
            "import logging\n\nclass Shout(logging.Handler):\n"
            "    def emit(self, record):\n        print(record.getMessage().upper())\n"
        ),
    },
    targets={
        APP: (["main.py"], ["//handlers:custom"]),
        "//handlers:custom": (["__init__.py", "custom.py"], []),
    },
    roots={APP: "app.main"},
)

LOGGING_FILE = Program(
    files={
        "app/main.py": (
            "import logging, logging.config, os\n"
            "here = os.path.dirname(os.path.abspath(__file__))\n"
            "logging.config.fileConfig(os.path.join(here, 'logging.ini'))\n"
            "logging.getLogger().info('hello')\n"
        ),
        "app/logging.ini": (
            "[loggers]\nkeys=root\n\n[handlers]\nkeys=h\n\n[formatters]\nkeys=\n\n"
            "[logger_root]\nlevel=INFO\nhandlers=h\n\n"
            "[handler_h]\nclass=handlers.custom.Shout\nargs=()\n"
        ),
        "handlers/__init__.py": "",
        "handlers/custom.py": LOGGING_DICT.files["handlers/custom.py"],
    },
    targets=LOGGING_DICT.targets,
    roots={APP: "app.main"},
    data={APP: ["logging.ini"]},
)

SYS_PATH = Program(
    files={
        "app/main.py": (
            "import os, sys\n"
            "sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "
            "'..', 'scripts'))\n"
            "import migrate\nprint(migrate.STEP)\n"
        ),
        "scripts/migrate.py": "STEP = 'migrated'\n",
    },
    targets={
        APP: (["main.py"], ["//scripts:migrate"]),
        "//scripts:migrate": (["migrate.py"], []),
    },
    roots={APP: "app.main"},
)

EXEC_LITERAL = Program(
    files={
        "app/main.py": "ns = {}\nexec('import codecs_x.zstd as m', ns)\nprint(ns['m'].NAME)\n",
        "codecs_x/__init__.py": "",
        "codecs_x/zstd.py": "NAME = 'zstd'\n",
    },
    targets={
        APP: (["main.py"], ["//codecs_x:codecs_x"]),
        "//codecs_x:codecs_x": (["__init__.py", "zstd.py"], []),
    },
    roots={APP: "app.main"},
)

PLUGIN_NAMED = Program(
    files={
        "app/main.py": "import extloader\nprint(extloader.render('hi', ['app_ext.shout']))\n",
        "app_ext/__init__.py": "",
        "app_ext/shout.py": "def run(text):\n    return text.upper()\n",
    },
    targets={
        APP: (["main.py"], ["@pypi//extloader:pkg", "//app_ext:shout"]),
        "@pypi//extloader:pkg": ([], []),
        "//app_ext:shout": (["__init__.py", "shout.py"], []),
    },
    roots={APP: "app.main"},
    dists=[
        Dist(
            "extloader",
            {
                "extloader/__init__.py": (
                    "import importlib\n\n"
                    "def render(text, extensions):\n"
                    "    for name in extensions:\n"
                    "        text = importlib.import_module(name).run(text)\n"
                    "    return text\n"
                )
            },
        )
    ],
)

BY_NAME = {
    "pickle-load": (PICKLE, "//models:point", ("app/main.py", 4)),
    "logging-dictconfig": (LOGGING_DICT, "//handlers:custom", ("app/main.py", 2)),
    "logging-fileconfig": (LOGGING_FILE, "//handlers:custom", ("app/main.py", 3)),
    "sys-path-insert": (SYS_PATH, "//scripts:migrate", ("app/main.py", 2)),
    "plugin-named-in-a-string": (PLUGIN_NAMED, "//app_ext:shout", ("app/main.py", 2)),
}


@pytest.mark.parametrize("how", KINDS)
@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_machinery_that_imports_by_name_is_never_read_as_absence(
    tmp_path: Path, name: str, how: str
) -> None:
    """pickle imports the classes its data names, logging.config the handler classes of
    its configuration, a `sys.path` change makes `import migrate` load scripts/migrate.py,
    a library imports the plugin a string names: no import statement names the module,
    so from sources alone the edge is possibly-dead, citing the call or the string; the
    traces see the load. Never removable, and the cut breaks the program."""
    prog, dep, site = BY_NAME[name]
    ws = tmp_path / "ws"
    v = judge(prog, ws, how)
    f = v.get((APP, dep))
    assert f is None or not f.removable, f
    assert not prog.cut_is_safe(ws, APP, (APP, dep))
    if how == "static":
        assert f is not None
        assert f.verdict == "possibly-dead", f
        assert site in cited(f), f.evidence


@pytest.mark.parametrize("how", KINDS)
def test_exec_of_literal_code_is_scanned_like_the_file(tmp_path: Path, how: str) -> None:
    """`exec('import codecs_x.zstd as m')`: the literal is code, and its import a use."""
    ws = tmp_path / "ws"
    v = judge(EXEC_LITERAL, ws, how)
    f = v.get((APP, "//codecs_x:codecs_x"))
    assert f is None or not f.removable, f
    if how in ("static", "importtime"):
        assert f is None, f  # the static scan itself sees the import
    assert not EXEC_LITERAL.cut_is_safe(ws, APP, (APP, "//codecs_x:codecs_x"))


DISCOVERY = Program(
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
        "tests/fixtures_unused.py": "DATA = [1, 2]\n",
    },
    targets={
        "//tests:run_all": (
            ["run_all.py", "__init__.py"],
            ["//tests:test_math", "//tests:fixtures_unused"],
        ),
        "//tests:test_math": (["test_math.py"], []),
        "//tests:fixtures_unused": (["fixtures_unused.py"], []),
    },
    roots={"//tests:run_all": "tests.run_all"},
    testonly=frozenset({"//tests:run_all", "//tests:test_math", "//tests:fixtures_unused"}),
)


@pytest.mark.parametrize("how", KINDS)
def test_unittest_discovery_reaches_only_the_files_its_pattern_matches(
    tmp_path: Path, how: str
) -> None:
    """`discover(here, pattern='test_*.py')` imports tests/test_math.py by its file name
    (never dead), not tests/fixtures_unused.py (dead, from sources alone too)."""
    root = "//tests:run_all"
    ws = tmp_path / "ws"
    v = judge(DISCOVERY, ws, how, root=root)
    tm = v.get((root, "//tests:test_math"))
    assert tm is None or not tm.removable, tm
    assert not DISCOVERY.cut_is_safe(ws, root, (root, "//tests:test_math"))
    unused = v[(root, "//tests:fixtures_unused")]
    assert (unused.verdict, unused.removable) == ("dead", True), unused.message


UNREACHED_LOADER = Program(
    files={
        "app/main.py": "from core import api\nprint(api.VALUE)\n",
        "core/__init__.py": "",
        "core/api.py": "VALUE = 'api'\n",
        "core/loader.py": "import importlib, sys\nPLUGIN = importlib.import_module(sys.argv[1])\n",
        "unused/__init__.py": "",
    },
    targets={
        APP: (["main.py"], ["//core:core", "//unused:unused"]),
        "//core:core": (["__init__.py", "api.py", "loader.py"], []),
        "//unused:unused": (["__init__.py"], []),
    },
    roots={APP: "app.main"},
)


@pytest.mark.parametrize("how", KINDS)
def test_a_loader_in_code_nothing_loads_cannot_block(tmp_path: Path, how: str) -> None:
    """core/loader.py could import anything, but no import (of any kind) reaches it and no
    trace loads it: it cannot run, so //unused stays provably dead."""
    v = judge(UNREACHED_LOADER, tmp_path / "ws", how)
    f = v[(APP, "//unused:unused")]
    assert (f.verdict, f.removable) == ("dead", True), f.message


def _listed_library(loader: str) -> Program:
    return Program(
        files={"app/main.py": "import yamlish\nprint(yamlish.safe_load('a'))\n"},
        targets={
            APP: (["main.py"], ["@pypi//yamlish:pkg", "@pypi//unusedish:pkg"]),
            "@pypi//yamlish:pkg": ([], []),
            "@pypi//unusedish:pkg": ([], []),
        },
        roots={APP: "app.main"},
        dists=[
            Dist(
                "yamlish",
                {
                    "yamlish/__init__.py": (
                        "import importlib\n\n"
                        "def safe_load(text):\n    return text.upper()\n\n"
                        f"def construct(name):\n    return {loader}\n"
                    )
                },
                listed=True,
            ),
            Dist("unusedish", {"unusedish/__init__.py": "X = 1\n"}, listed=True),
        ],
    )


@pytest.mark.parametrize("how", KINDS)
def test_loaders_in_a_listed_packages_sources_count_as_library_code(
    tmp_path: Path, how: str
) -> None:
    """A rules_python spoke that lists its files as srcs: yamlish's `__import__(name)` (a
    constructor the program never calls) counts as in any installed package's code: the
    traces record `__import__` loads, and sources only reads libraries for their imports,
    so the unused package stays dead; an `import_module(name)` blocks under importtime only
    (which records no importlib loads)."""
    v = judge(_listed_library("__import__(name)"), tmp_path / "a", how)
    dead = v[(APP, "@pypi//unusedish:pkg")]
    assert (dead.verdict, dead.removable) == ("dead", True), dead.message
    v = judge(_listed_library("importlib.import_module(name)"), tmp_path / "b", how)
    f = v[(APP, "@pypi//unusedish:pkg")]
    if how == "importtime":
        assert (f.verdict, f.removable) == ("possibly-dead", False), f.message
        assert any(src.endswith("yamlish/__init__.py") for src, _ in cited(f))
    else:
        assert (f.verdict, f.removable) == ("dead", True), f.message


CHILD_PROCESS = Program(
    files={
        "app/main.py": (
            "import os, subprocess, sys\n"
            "HERE = os.path.dirname(os.path.abspath(__file__))\n"
            "subprocess.run([sys.executable, os.path.join(HERE, '..', 'tools', 'report.py')],"
            " check=True)\n"
        ),
        "tools/report.py": "print('report from a child process')\n",
    },
    targets={
        APP: (["main.py"], ["//tools:report"]),
        "//tools:report": (["report.py"], []),
    },
    roots={APP: "app.main"},
)


@pytest.mark.parametrize("how", KINDS)
def test_a_python_child_process_blocks_dead(tmp_path: Path, how: str) -> None:
    """`subprocess.run([sys.executable, .../tools/report.py])`: the child runs a file of
    the build, and no trace follows child processes: possibly-dead under every kind,
    citing the call; the cut makes the child (and the program) fail."""
    ws = tmp_path / "ws"
    v = judge(CHILD_PROCESS, ws, how)
    f = v[(APP, "//tools:report")]
    assert (f.verdict, f.removable) == ("possibly-dead", False), f.message
    assert ("app/main.py", 3) in cited(f)
    assert not CHILD_PROCESS.cut_is_safe(ws, APP, (APP, "//tools:report"))


#: `__import__` as the statement it stands for: `from . import helper` spelled with a
#: level, and `from plugins import fast` spelled with a fromlist.
DUNDER_IMPORTS = {
    "level": Program(
        files={
            "app/__init__.py": "",
            "app/main.py": "from app import run\n",
            "app/run.py": "m = __import__('helper', globals(), None, ['K'], 1)\nprint(m.K)\n",
            "app/helper.py": "K = 4\n",
        },
        targets={
            APP: (["__init__.py", "main.py", "run.py"], ["//app:helper"]),
            "//app:helper": (["helper.py"], []),
        },
        roots={APP: "app.main"},
    ),
    "fromlist": Program(
        files={
            "app/main.py": "p = __import__('plugins', fromlist=['fast'])\nprint(p.fast.K)\n",
            "plugins/__init__.py": "",
            "plugins/fast.py": "K = 5\n",
        },
        targets={
            APP: (["main.py"], ["//plugins:init", "//plugins:fast"]),
            "//plugins:init": (["__init__.py"], []),
            "//plugins:fast": (["fast.py"], []),
        },
        roots={APP: "app.main"},
    ),
}


@pytest.mark.parametrize("how", KINDS)
@pytest.mark.parametrize("case", sorted(DUNDER_IMPORTS))
def test_dunder_import_with_a_level_or_fromlist_is_a_use(
    tmp_path: Path, case: str, how: str
) -> None:
    """From sources alone, both were `dead` (removable, medium): the level was ignored
    (`helper` taken for a top-level module) and the fromlist's submodule not looked for;
    either cut breaks the program."""
    prog = DUNDER_IMPORTS[case]
    dep = "//app:helper" if case == "level" else "//plugins:fast"
    v = judge(prog, tmp_path / "ws", how)
    assert (APP, dep) not in v or not v[(APP, dep)].removable
    assert not prog.cut_is_safe(tmp_path / "ws", APP, (APP, dep))
