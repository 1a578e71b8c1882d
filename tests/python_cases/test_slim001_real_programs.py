"""SLIM001 on small real programs, really run and traced three ways, checked by brute force.

Each case is a pattern that gave a removable verdict whose cut breaks the program
(importlib loads that `-X importtime` never records, entry points, file loaders, shared
`__init__.py`) or a wrong verdict (a package attribute read as a submodule, a dep that
stays through a re-export, another root's trace). For every case: the verdict of the edge
that matters, and every removable finding applied and run (the ground truth).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .harness import (
    TRACE_KINDS,
    Dist,
    Program,
    assert_removals_safe,
    traced,
    verdicts,
)

APP = "//app:main"


def _judge(prog: Program, ws: Path, how: str, root: str = APP) -> dict[tuple[str, str], object]:
    prog.write(ws)
    trace = traced(prog, ws, root, how)
    found = prog.judge(ws, {root: [trace]}, roots=[root])
    assert_removals_safe(prog, ws, found)
    return verdicts(found)  # type: ignore[return-value]


COMPUTED = Program(
    files={
        "app/main.py": "from core import registry\nprint(registry.run('fast'))\n",
        "core/__init__.py": "",
        "core/registry.py": (
            "import importlib\n\n"
            "def run(name):\n"
            "    mod = importlib.import_module(f'plugins.{name}')\n"
            "    return mod.VALUE\n"
        ),
        "plugins/__init__.py": "",
        "plugins/fast.py": "VALUE = 'fast-ok'\n",
        "unused/__init__.py": "X = 1\n",
    },
    targets={
        APP: (["main.py"], ["//core:core", "//plugins:plugins", "//unused:unused"]),
        "//core:core": (["__init__.py", "registry.py"], []),
        "//plugins:plugins": (["__init__.py", "fast.py"], []),
        "//unused:unused": (["__init__.py"], []),
    },
    roots={APP: "app.main"},
)


@pytest.mark.parametrize("how", TRACE_KINDS)
def test_computed_import_in_a_library_blocks_dead_for_what_it_reaches(
    tmp_path: Path, how: str
) -> None:
    v = _judge(COMPUTED, tmp_path / "ws", how)
    plugin = v[(APP, "//plugins:plugins")]
    assert not plugin.removable  # type: ignore[attr-defined]
    assert not COMPUTED.cut_is_safe(tmp_path / "ws", APP, (APP, "//plugins:plugins"))
    if how == "importtime":
        assert plugin.verdict == "possibly-dead"  # type: ignore[attr-defined]
        lines = {(e.source, e.line) for e in plugin.evidence}  # type: ignore[attr-defined]
        assert ("core/registry.py", 4) in lines
    # the literal head 'plugins.' cannot reach //unused: it stays provably dead
    dead = v[(APP, "//unused:unused")]
    assert (dead.verdict, dead.removable) == ("dead", True)  # type: ignore[attr-defined]


LITERAL_IN_DEP = Program(
    files={
        "app/main.py": "from core import loader\nprint(loader.CODEC.NAME)\n",
        "core/__init__.py": "",
        "core/loader.py": "import importlib\nCODEC = importlib.import_module('codecs_impl.zstd')\n",
        "codecs_impl/__init__.py": "",
        "codecs_impl/zstd.py": "NAME = 'zstd'\n",
    },
    targets={
        APP: (["main.py"], ["//core:core", "//codecs_impl:codecs_impl"]),
        "//core:core": (["__init__.py", "loader.py"], []),
        "//codecs_impl:codecs_impl": (["__init__.py", "zstd.py"], []),
    },
    roots={APP: "app.main"},
)


@pytest.mark.parametrize("how", TRACE_KINDS)
def test_literal_import_module_in_a_dependency_is_a_use(tmp_path: Path, how: str) -> None:
    v = _judge(LITERAL_IN_DEP, tmp_path / "ws", how)
    f = v.get((APP, "//codecs_impl:codecs_impl"))
    assert f is not None
    assert (f.verdict, f.removable) == ("used-transitively", False)  # type: ignore[attr-defined]
    assert not LITERAL_IN_DEP.cut_is_safe(tmp_path / "ws", APP, (APP, "//codecs_impl:codecs_impl"))


ENTRY_POINTS = Program(
    files={
        "app/main.py": (
            "from importlib.metadata import entry_points\n"
            "for ep in sorted(entry_points(group='app.plugins'), key=lambda e: e.name):\n"
            "    print(ep.name, ep.load())\n"
        ),
    },
    targets={
        APP: (["main.py"], ["@pypi//slimplug:pkg", "@pypi//otherdist:pkg"]),
        "@pypi//slimplug:pkg": ([], []),
        "@pypi//otherdist:pkg": ([], []),
    },
    roots={APP: "app.main"},
    dists=[
        Dist(
            "slimplug",
            {"slimplug_impl/__init__.py": "NAME = 'plug'\n"},
            entry_points="[app.plugins]\nfast = slimplug_impl:NAME\n",
        ),
        Dist(
            "otherdist",
            {"otherdist/__init__.py": "X = 1\n"},
            entry_points="[console_scripts]\nother = otherdist:X\n",
        ),
    ],
)


@pytest.mark.parametrize("how", TRACE_KINDS)
def test_entry_point_group_the_program_reads_is_a_use(tmp_path: Path, how: str) -> None:
    v = _judge(ENTRY_POINTS, tmp_path / "ws", how)
    assert (APP, "@pypi//slimplug:pkg") not in v
    assert not ENTRY_POINTS.cut_is_safe(tmp_path / "ws", APP, (APP, "@pypi//slimplug:pkg"))
    # a dist that declares only another group is judged on the imports: dead
    other = v[(APP, "@pypi//otherdist:pkg")]
    assert (other.verdict, other.removable) == ("dead", True)  # type: ignore[attr-defined]


FILE_LOADER = Program(
    files={
        "app/main.py": (
            "import importlib.util, pathlib\n"
            "p = pathlib.Path(__file__).parent.parent / 'plugins' / 'extra.py'\n"
            "spec = importlib.util.spec_from_file_location('extra', p)\n"
            "m = importlib.util.module_from_spec(spec)\n"
            "spec.loader.exec_module(m)\n"
            "print(m.VALUE)\n"
        ),
        "plugins/extra.py": "VALUE = 'from a file'\n",
    },
    targets={
        APP: (["main.py"], ["//plugins:files"]),
        "//plugins:files": (["extra.py"], []),
    },
    roots={APP: "app.main"},
)


@pytest.mark.parametrize("how", TRACE_KINDS)
def test_file_loaded_plugin_is_never_dead(tmp_path: Path, how: str) -> None:
    v = _judge(FILE_LOADER, tmp_path / "ws", how)
    f = v[(APP, "//plugins:files")]
    assert not f.removable  # type: ignore[attr-defined]
    assert not FILE_LOADER.cut_is_safe(tmp_path / "ws", APP, (APP, "//plugins:files"))
    if how == "importtime":
        assert f.verdict == "possibly-dead"  # type: ignore[attr-defined]
        assert ("app/main.py", 3) in {(e.source, e.line) for e in f.evidence}  # type: ignore[attr-defined]
    else:  # -v and slim trace name the executed file
        assert f.verdict == "used-transitively"  # type: ignore[attr-defined]


def _shared(init: str) -> Program:
    return Program(
        files={
            "app/main.py": "from pkg.a import A\nprint(A)\n",
            "pkg/__init__.py": init,
            "pkg/a.py": "A = 'a'\n",
            "pkg/b.py": "B = 'b'\n",
        },
        targets={
            APP: (["main.py"], ["//pkg:x", "//pkg:y"]),
            "//pkg:x": (["__init__.py", "a.py"], []),
            "//pkg:y": (["__init__.py", "b.py"], []),
        },
        roots={APP: "app.main"},
    )


@pytest.mark.parametrize("how", TRACE_KINDS)
def test_shared_init_is_evidence_only_for_the_owner_it_uses(tmp_path: Path, how: str) -> None:
    prog = _shared("")
    v = _judge(prog, tmp_path / "ws", how)
    assert (APP, "//pkg:x") not in v
    y = v[(APP, "//pkg:y")]
    assert (y.verdict, y.removable) == ("dead", True)  # type: ignore[attr-defined]


@pytest.mark.parametrize("how", TRACE_KINDS)
def test_shared_init_that_imports_the_other_owner_keeps_it(tmp_path: Path, how: str) -> None:
    prog = _shared("from .b import B\n")
    v = _judge(prog, tmp_path / "ws", how)
    y = v.get((APP, "//pkg:y"))
    assert y is None or not y.removable  # type: ignore[attr-defined]
    assert not prog.cut_is_safe(tmp_path / "ws", APP, (APP, "//pkg:y"))


ATTRIBUTE = Program(
    files={
        "app/main.py": "from pkg2 import name\nprint(name)\n",
        "pkg2/__init__.py": "name = 'attribute'\n",
        "pkg2/name.py": "X = 'submodule'\n",
    },
    targets={
        APP: (["main.py"], ["//pkg2:base", "//pkg2:namemod"]),
        "//pkg2:base": (["__init__.py"], []),
        "//pkg2:namemod": (["name.py"], []),
    },
    roots={APP: "app.main"},
)


@pytest.mark.parametrize("how", TRACE_KINDS)
def test_from_package_import_attribute_is_not_a_submodule_use(tmp_path: Path, how: str) -> None:
    v = _judge(ATTRIBUTE, tmp_path / "ws", how)
    f = v[(APP, "//pkg2:namemod")]
    assert (f.verdict, f.removable) == ("dead", True)  # type: ignore[attr-defined]
    assert (APP, "//pkg2:base") not in v


REEXPORT = Program(
    files={
        "app/main.py": "from core2.api import Shape\nprint(Shape)\n",
        "core2/__init__.py": "",
        "core2/api.py": "from core2.tensor_py.shapes import Shape\n",
        "core2/tensor_py/__init__.py": "",
        "core2/tensor_py/shapes.py": "Shape = 'shape'\n",
    },
    targets={
        APP: (["main.py"], ["//core2:api", "//core2/tensor_py:shapes"]),
        "//core2:api": (["__init__.py", "api.py"], ["//core2/tensor_py:shapes"]),
        "//core2/tensor_py:shapes": (["__init__.py", "shapes.py"], []),
    },
    roots={APP: "app.main"},
)


@pytest.mark.parametrize("how", TRACE_KINDS)
def test_dep_loaded_only_through_a_reexport_is_redundant(tmp_path: Path, how: str) -> None:
    v = _judge(REEXPORT, tmp_path / "ws", how)
    f = v[(APP, "//core2/tensor_py:shapes")]
    assert (f.verdict, f.removable) == ("redundant-direct-dep", False)  # type: ignore[attr-defined]
    text = " ".join([f.message, *(e.detail for e in f.evidence)])  # type: ignore[attr-defined]
    assert "none of the modules" not in text
    assert "core2.tensor_py.shapes loaded" in text


THIRD_PARTY_LOADER = Program(
    files={
        "app/main.py": (
            "import hydrish\n"
            "target = '.'.join(['plugins2', 'fast', 'VALUE'])\n"
            "print(hydrish.instantiate(target))\n"
        ),
        "plugins2/__init__.py": "",
        "plugins2/fast.py": "VALUE = 'configured'\n",
    },
    targets={
        APP: (["main.py"], ["@pypi//hydrish:pkg", "//plugins2:plugins2"]),
        "@pypi//hydrish:pkg": ([], []),
        "//plugins2:plugins2": (["__init__.py", "fast.py"], []),
    },
    roots={APP: "app.main"},
    dists=[
        Dist(
            "hydrish",
            {
                "hydrish/__init__.py": (
                    "import importlib\n\n"
                    "def instantiate(path):\n"
                    "    mod, _, attr = path.rpartition('.')\n"
                    "    return getattr(importlib.import_module(mod), attr)\n"
                )
            },
        )
    ],
)


@pytest.mark.parametrize("how", TRACE_KINDS)
def test_third_party_code_loading_by_config_is_not_invisible(tmp_path: Path, how: str) -> None:
    v = _judge(THIRD_PARTY_LOADER, tmp_path / "ws", how)
    f = v[(APP, "//plugins2:plugins2")]
    assert not f.removable  # type: ignore[attr-defined]
    assert not THIRD_PARTY_LOADER.cut_is_safe(tmp_path / "ws", APP, (APP, "//plugins2:plugins2"))
    if how == "importtime":
        assert f.verdict == "possibly-dead"  # type: ignore[attr-defined]
        assert any(e.source.endswith("hydrish/__init__.py") for e in f.evidence)  # type: ignore[attr-defined]


def test_importtime_without_the_loaded_third_party_sources_is_not_dead(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    THIRD_PARTY_LOADER.write(ws)
    trace = traced(THIRD_PARTY_LOADER, ws, APP, "importtime")
    hidden = Program(**{**THIRD_PARTY_LOADER.__dict__, "dists": []})
    v = verdicts(hidden.judge(ws, {APP: [trace]}))
    f = v[(APP, "//plugins2:plugins2")]
    assert (f.verdict, f.removable) == ("unused-in-traces", False)
    assert "slim trace" in f.message


TWO_ROOTS = Program(
    files={
        "app/server.py": "from common import util\nprint('server', util.X)\n",
        "app/train.py": "import data.codecs\nprint('train', data.codecs.C)\n",
        "common/__init__.py": "",
        "common/util.py": "X = 1\n",
        "data/__init__.py": "",
        "data/codecs.py": "C = 'codec'\n",
    },
    targets={
        "//app:server": (["server.py"], ["//common:common", "//data:codecs"]),
        "//app:train": (["train.py"], ["//common:common", "//data:codecs"]),
        "//common:common": (["__init__.py", "util.py"], []),
        "//data:codecs": (["__init__.py", "codecs.py"], []),
    },
    roots={"//app:server": "app.server", "//app:train": "app.train"},
)


@pytest.mark.parametrize("how", TRACE_KINDS)
def test_each_root_is_judged_on_its_own_trace(tmp_path: Path, how: str) -> None:
    ws = tmp_path / "ws"
    TWO_ROOTS.write(ws)
    tr = {r: [traced(TWO_ROOTS, ws, r, how)] for r in TWO_ROOTS.roots}
    together = verdicts(TWO_ROOTS.judge(ws, tr))
    alone = {}
    for r in TWO_ROOTS.roots:
        alone.update(verdicts(TWO_ROOTS.judge(ws, tr, roots=[r])))
    shown = {k: (f.verdict, f.removable) for k, f in together.items()}
    assert shown == {k: (f.verdict, f.removable) for k, f in alone.items()}
    assert shown[("//app:server", "//data:codecs")] == ("dead", True)
    assert ("//app:train", "//data:codecs") not in shown
    assert_removals_safe(TWO_ROOTS, ws, list(together.values()))


@pytest.mark.parametrize("how", ["verbose", "slimtrace"])
def test_a_trace_of_another_root_is_set_aside(tmp_path: Path, how: str) -> None:
    """Both traces given to both roots (global --trace): the executed main file tells
    whose each is."""
    ws = tmp_path / "ws"
    TWO_ROOTS.write(ws)
    both = [traced(TWO_ROOTS, ws, r, how) for r in TWO_ROOTS.roots]
    found = TWO_ROOTS.judge(ws, dict.fromkeys(TWO_ROOTS.roots, both))
    v = verdicts(found)
    assert (v[("//app:server", "//data:codecs")].verdict) == "dead"
    cov = next(f for f in found if f.code == "SLIM903" and f.root == "//app:server")
    assert any("set aside" in e.detail for e in cov.evidence)


TEST_ROOT = Program(
    files={
        "app/main_test.py": "from app import helpers\nprint(helpers.FIXTURE)\n",
        "app/helpers.py": "FIXTURE = 'fixture'\n",
        "app/mocks.py": "MOCK = 1\n",
    },
    targets={
        "//app:main_test": (["main_test.py"], ["//app:helpers", "//app:mocks"]),
        "//app:helpers": (["helpers.py"], []),
        "//app:mocks": (["mocks.py"], []),
    },
    roots={"//app:main_test": "app.main_test"},
    testonly=frozenset({"//app:main_test", "//app:helpers", "//app:mocks"}),
)


@pytest.mark.parametrize("how", TRACE_KINDS)
def test_a_test_root_judges_its_testonly_deps(tmp_path: Path, how: str) -> None:
    v = _judge(TEST_ROOT, tmp_path / "ws", how, root="//app:main_test")
    assert ("//app:main_test", "//app:helpers") not in v
    mocks = v[("//app:main_test", "//app:mocks")]
    assert (mocks.verdict, mocks.removable) == ("dead", True)  # type: ignore[attr-defined]


#: Bazel runs a py_binary's main file as a script: its directory is first on sys.path,
#: so the modules beside it import by their bare names.
SCRIPT_SIBLINGS = Program(
    files={
        "app/main.py": "import util\nfrom helpers import fmt\nprint(fmt.show(util.K))\n",
        "app/util.py": "K = 1\n",
        "app/helpers/__init__.py": "",
        "app/helpers/fmt.py": "def show(k):\n    return f'k={k}'\n",
        "other/__init__.py": "",
    },
    targets={
        APP: (["main.py"], ["//app:util", "//app:helpers", "//other:other"]),
        "//app:util": (["util.py"], []),
        "//app:helpers": (["helpers/__init__.py", "helpers/fmt.py"], []),
        "//other:other": (["__init__.py"], []),
    },
    roots={APP: "app.main"},
    scripts=frozenset({APP}),
)


@pytest.mark.parametrize("how", [*TRACE_KINDS, "static"])
def test_modules_beside_a_script_import_by_their_bare_names(tmp_path: Path, how: str) -> None:
    """`import util` in app/main.py, run as a script, loads app/util.py. From sources
    alone both deps were `dead` (removable, medium), and each cut breaks the program."""
    ws = tmp_path / "ws"
    SCRIPT_SIBLINGS.write(ws)
    traces = {APP: [traced(SCRIPT_SIBLINGS, ws, APP, how)]} if how != "static" else {}
    found = SCRIPT_SIBLINGS.judge(ws, traces, roots=[APP])
    assert assert_removals_safe(SCRIPT_SIBLINGS, ws, found) >= 1  # //other:other
    v = verdicts(found)
    for dep in ("//app:util", "//app:helpers"):
        assert (APP, dep) not in v, v[(APP, dep)].message
        assert not SCRIPT_SIBLINGS.cut_is_safe(ws, APP, (APP, dep))
    assert (v[(APP, "//other:other")].verdict, v[(APP, "//other:other")].removable) == (
        "dead",
        True,
    )
