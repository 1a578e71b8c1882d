"""What leaves the build with a cut, in real programs run and traced (and judged from
sources alone): data files a program opens by path, an extension module shipped as
`data`, generated sources in bazel-bin, an alias whose package stays, entry points
declared behind a hub alias, a shared `__init__.py`, and installed third-party code
that imports another declared package. Brute force is the ground truth.
"""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

from .harness import Dist, Program, verdicts
from .test_loaders_by_name import APP, KINDS, cited, judge, judge_all

DATA_BY_PATH = Program(
    files={
        "app/main.py": (
            "import os\nHERE = os.path.dirname(os.path.abspath(__file__))\n"
            "with open(os.path.join(HERE, '../configs/model.yaml')) as f:\n"
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


@pytest.mark.parametrize("how", KINDS)
def test_dep_shipping_a_file_the_program_opens_is_not_dead(tmp_path: Path, how: str) -> None:
    """//configs ships model.yaml, which the root opens by a path no string names as a
    module: no evidence kind records file reads, so the edge is possibly-dead (never
    removable), naming the file; the cut makes the program fail."""
    ws = tmp_path / "ws"
    v = judge(DATA_BY_PATH, ws, how)
    f = v[(APP, "//configs:configs")]
    assert (f.verdict, f.removable) == ("possibly-dead", False), f.message
    assert "configs/model.yaml" in f.message
    assert not DATA_BY_PATH.cut_is_safe(ws, APP, (APP, "//configs:configs"))


EXT_C = """
#include <Python.h>
static PyObject *add(PyObject *self, PyObject *args) {
    long a, b;
    if (!PyArg_ParseTuple(args, "ll", &a, &b)) return NULL;
    return PyLong_FromLong(a + b);
}
static PyMethodDef methods[] = {{"add", add, METH_VARARGS, ""}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "_speedups", NULL, -1, methods};
PyMODINIT_FUNC PyInit__speedups(void) { return PyModule_Create(&mod); }
"""

EXTENSION_IN_DATA = Program(
    files={
        "app/main.py": "from fast import _speedups\nprint(_speedups.add(2, 3))\n",
        "fast/__init__.py": "",
        "unused/__init__.py": "",
    },
    targets={
        APP: (["main.py"], ["//fast:init", "//fast:ext", "//unused:unused"]),
        "//fast:init": (["__init__.py"], []),
        "//fast:ext": ([], []),
        "//unused:unused": (["__init__.py"], []),
    },
    roots={APP: "app.main"},
    data={"//fast:ext": ["_speedups.so"]},
)


def _compile_extension(ws: Path) -> None:
    gcc = shutil.which("gcc")
    include = sysconfig.get_paths()["include"]
    if gcc is None or not (Path(include) / "Python.h").is_file():
        pytest.skip("gcc and the Python headers build the extension module (not installed)")
    src = ws / "fast" / "_speedups.c"
    src.write_text(EXT_C)
    cmd = [
        gcc,
        "-shared",
        "-fPIC",
        f"-I{include}",
        str(src),
        "-o",
        str(ws / "fast" / "_speedups.so"),
    ]
    subprocess.run(cmd, check=True, capture_output=True)


@pytest.mark.parametrize("how", KINDS)
def test_extension_module_in_data_is_owned(tmp_path: Path, how: str) -> None:
    """`py_library(srcs = [], data = ["_speedups.so"])`: the target owns the extension
    module `fast._speedups` (gcc-built, really imported): its edge is used, not SLIM901
    ("provides no Python modules"), and the unused dep stays provably dead."""
    ws = tmp_path / "ws"
    EXTENSION_IN_DATA.write(ws)
    _compile_extension(ws)
    found = judge_all(EXTENSION_IN_DATA, ws, how)
    assert not [f for f in found if f.code == "SLIM901"], [f.message for f in found]
    v = verdicts(found)
    assert (APP, "//fast:ext") not in v, v.get((APP, "//fast:ext"))
    assert not EXTENSION_IN_DATA.cut_is_safe(ws, APP, (APP, "//fast:ext"))
    dead = v[(APP, "//unused:unused")]
    assert (dead.verdict, dead.removable) == ("dead", True), dead.message


GENERATED = Program(
    files={
        "app/main.py": "from proto import msgs_pb2\nprint(msgs_pb2.NAME)\n",
        "proto/__init__.py": "",
        "proto/msgs_pb2.py": "from proto import wire\nNAME = 'msgs ' + wire.FORMAT\n",
        "proto/other_pb2.py": "NAME = 'other'\n",
        "proto/wire.py": "FORMAT = 'v1'\n",
    },
    targets={
        APP: (["main.py"], ["//proto:msgs_py", "//proto:other_py"]),
        "//proto:msgs_py": (["msgs_pb2.py"], ["//proto:init", "//proto:wire"]),
        "//proto:other_py": (["other_pb2.py"], ["//proto:init"]),
        "//proto:init": (["__init__.py"], []),
        "//proto:wire": (["wire.py"], []),
    },
    roots={APP: "app.main"},
    generated=frozenset({"proto/msgs_pb2.py", "proto/other_pb2.py"}),
)


@pytest.mark.parametrize("how", KINDS)
def test_generated_sources_are_read_from_bazel_bin(tmp_path: Path, how: str) -> None:
    """msgs_pb2.py and other_pb2.py exist only in bazel-bin (genrule outputs): they are
    read there (no SLIM902), so what msgs_pb2 imports is used and the unused
    generated target is dead from every kind of evidence."""
    ws = tmp_path / "ws"
    GENERATED.write(ws)
    found = GENERATED.judge(ws, {APP: [_trace(GENERATED, ws, how)]} if how != "static" else {})
    assert not [f for f in found if f.code == "SLIM902"], [f.message for f in found]
    v = {(f.target, f.dep): f for f in found if f.code == "SLIM001"}
    assert ("//proto:msgs_py", "//proto:wire") not in v
    other = v[(APP, "//proto:other_py")]
    assert (other.verdict, other.removable) == ("dead", True), other.message
    assert GENERATED.cut_is_safe(ws, APP, (APP, "//proto:other_py"))


def _trace(prog: Program, ws: Path, how: str) -> Path:
    from .harness import traced

    return traced(prog, ws, APP, how)


ALIAS_STAYS = Program(
    files={"app/main.py": "import scipyish\nprint(scipyish.VALUE)\n"},
    targets={
        APP: (["main.py"], ["@pip//numpyish:pkg", "@pypi//scipyish:pkg"]),
        "@pip//numpyish:pkg": ([], ["@pypi//numpyish:pkg"]),
        "@pypi//numpyish:pkg": ([], []),
        "@pypi//scipyish:pkg": ([], ["@pypi//numpyish:pkg"]),
    },
    roots={APP: "app.main"},
    aliases=frozenset({"@pip//numpyish:pkg"}),
    dists=[
        Dist("numpyish", {"numpyish/__init__.py": "N = 2\n"}),
        Dist("scipyish", {"scipyish/__init__.py": "import numpyish\nVALUE = numpyish.N * 2\n"}),
    ],
)


@pytest.mark.parametrize("how", KINDS)
def test_alias_whose_package_stays_is_redundant(tmp_path: Path, how: str) -> None:
    """The root declares the hub alias @pip//numpyish:pkg but never imports numpyish;
    scipyish (which the root imports) requires the numpyish package, which stays: the
    cut removes only the alias and saves nothing (redundant-direct-dep, not dead), and
    the message never says none of numpyish's modules was loaded."""
    ws = tmp_path / "ws"
    v = judge(ALIAS_STAYS, ws, how)
    f = v[(APP, "@pip//numpyish:pkg")]
    assert (f.verdict, f.removable) == ("redundant-direct-dep", False), f.message
    text = " ".join([f.message, *(e.detail for e in f.evidence)])
    assert "none of" not in text
    assert ALIAS_STAYS.cut_is_safe(ws, APP, (APP, "@pip//numpyish:pkg"))


ENTRY_POINTS_BEHIND_ALIAS = Program(
    files={
        "app/main.py": (
            "from importlib.metadata import entry_points\n"
            "for ep in sorted(entry_points(group='app.plugins'), key=lambda e: e.name):\n"
            "    print(ep.name, ep.load())\n"
        ),
    },
    targets={
        APP: (["main.py"], ["@pip//slimplug:pkg", "@pip//otherdist:pkg"]),
        "@pip//slimplug:pkg": ([], ["@pypi//slimplug:pkg"]),
        "@pypi//slimplug:pkg": ([], []),
        "@pip//otherdist:pkg": ([], ["@pypi//otherdist:pkg"]),
        "@pypi//otherdist:pkg": ([], []),
    },
    roots={APP: "app.main"},
    aliases=frozenset({"@pip//slimplug:pkg", "@pip//otherdist:pkg"}),
    dists=[
        Dist(
            "slimplug",
            {"slimplug_impl/__init__.py": "NAME = 'plug'\n"},
            entry_points="[app.plugins]\nfast = slimplug_impl:NAME\n",
        ),
        Dist("otherdist", {"otherdist/__init__.py": "X = 1\n"}),
    ],
)


@pytest.mark.parametrize("how", KINDS)
def test_entry_point_groups_are_read_behind_a_hub_alias(tmp_path: Path, how: str) -> None:
    """`entry_points(group='app.plugins')`: the dist behind @pip//slimplug:pkg declares
    the group (a use); the one behind @pip//otherdist:pkg declares none, read through the
    alias: dead from sources alone too (not blocked as 'declarations unknown')."""
    ws = tmp_path / "ws"
    v = judge(ENTRY_POINTS_BEHIND_ALIAS, ws, how)
    assert (APP, "@pip//slimplug:pkg") not in v
    assert not ENTRY_POINTS_BEHIND_ALIAS.cut_is_safe(ws, APP, (APP, "@pip//slimplug:pkg"))
    other = v[(APP, "@pip//otherdist:pkg")]
    assert (other.verdict, other.removable) == ("dead", True), other.message


SHARED_INIT = Program(
    files={
        "app/main.py": "from pkg.a import A\nprint(A)\n",
        "pkg/__init__.py": "",
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


@pytest.mark.parametrize("how", ["importtime", "verbose", "slimtrace"])
def test_dead_second_owner_of_a_shared_init_says_what_stays(tmp_path: Path, how: str) -> None:
    """//pkg:y is dead although the traces load `pkg` (its shared __init__, which //pkg:x
    keeps): the message says which modules leave and that `pkg` stays, not that none of
    its modules appears in the traces."""
    v = judge(SHARED_INIT, tmp_path / "ws", how)
    y = v[(APP, "//pkg:y")]
    assert (y.verdict, y.removable) == ("dead", True)
    assert "none of its modules" not in y.message
    assert "pkg.b" in y.message
    assert "pkg is loaded but stays" in y.message


LIBRARY_LAZY_IMPORT = Program(
    files={
        "app/main.py": (
            "import sys\nimport pandish\n"
            "print(pandish.spline(3) if sys.argv[1:] == ['spline'] else pandish.describe(3))\n"
        ),
    },
    targets={
        APP: (["main.py"], ["@pypi//pandish:pkg", "@pypi//scipish:pkg", "@pypi//unused_dist:pkg"]),
        "@pypi//pandish:pkg": ([], []),
        "@pypi//scipish:pkg": ([], []),
        "@pypi//unused_dist:pkg": ([], []),
    },
    roots={APP: "app.main"},
    dists=[
        Dist(
            "pandish",
            {
                "pandish/__init__.py": (
                    "def describe(x):\n    return f'count {x}'\n\n"
                    "def spline(x):\n    import scipish\n    return scipish.fit(x)\n"
                )
            },
        ),
        Dist("scipish", {"scipish/__init__.py": "def fit(x):\n    return x * 2\n"}),
        Dist("unused_dist", {"unused_dist/__init__.py": "X = 1\n"}),
    ],
)


def test_sources_only_a_declared_package_library_code_imports_is_not_dead(
    tmp_path: Path,
) -> None:
    """pandish imports scipish inside a function; the root declares both and calls only
    what needs no scipish. From sources alone nothing shows which library code runs (a
    run with `spline` needs scipish): possibly-dead citing pandish's import, not dead;
    the dist no code names stays dead."""
    ws = tmp_path / "ws"
    v = judge(LIBRARY_LAZY_IMPORT, ws, "static")
    f = v[(APP, "@pypi//scipish:pkg")]
    assert (f.verdict, f.removable) == ("possibly-dead", False), f.message
    assert any(src.endswith("pandish/__init__.py") and line == 5 for src, line in cited(f))
    spline = dataclasses.replace(LIBRARY_LAZY_IMPORT, args={APP: ["spline"]})
    assert not spline.cut_is_safe(ws, APP, (APP, "@pypi//scipish:pkg"))
    dead = v[(APP, "@pypi//unused_dist:pkg")]
    assert (dead.verdict, dead.removable) == ("dead", True), dead.message
