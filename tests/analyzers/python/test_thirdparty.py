"""SLIM001 on third-party packages: Bazel `//third_party/py/x` wrappers, rules_python hub
aliases and spoke repos, Buck2 `//third-party/python:x`, mapped to import names from a real
venv's dist-info (the packages the tests run with), config `[modules]`, the built-in table
or a guess; a real program is run and traced with `slim trace`.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from slim_analyzers.python import SPEC

from slim.analysis.engine import analyze, same_evidence
from slim.ingest.python.audit_trace import load as load_slim_trace
from slim.model.facts import Facts, InputFile
from slim.model.findings import Finding
from slim.model.graph import BuildGraph, EdgeKind, GraphBuilder, Location
from slim.model.options import RootOptions

SITE = Path(sysconfig.get_paths()["purelib"])
SLIM = [sys.executable, "-m", "slim"]

MAIN = """\
import numpy
import sklearn
import yaml
import dateutil.parser
import attr
import elftools.elf.elffile
import app.other

print(numpy.__name__, sklearn.__name__, yaml.__name__, attr.__name__)
"""
OTHER = "VALUE = 1\n"

# (label, kind, tags, deps): the third-party targets //app:main depends on
THIRD_PARTY = [
    # used
    ("//third_party/py/numpy:numpy", "py_library", (), ()),
    ("@pip//scikit_learn:pkg", "alias", (), ("@pip_311_scikit_learn//:pkg",)),
    ("@pip_311_scikit_learn//:pkg", "py_library", ("pypi_name=scikit-learn",), ()),
    ("@pypi_pyyaml//:pkg", "py_library", (), ()),
    ("//third-party/python:python-dateutil", "prebuilt_python_library", (), ()),
    ("//third_party/py/attrs:attrs", "py_library", (), ()),
    ("//third_party/py/elftools:elftools", "py_library", (), ()),  # dist pyelftools
    # never imported
    ("//third_party/py/msgpack:msgpack", "py_library", (), ()),
    ("@pip//pygments:pkg", "alias", (), ("@pip_311_pygments//:pkg",)),
    ("@pip_311_pygments//:pkg", "py_library", ("pypi_name=Pygments",), ()),
    ("//third_party/py/toolz_wrapper:toolz_wrapper", "py_library", (), ("@pip//toolz:pkg",)),
    ("@pip//toolz:pkg", "alias", (), ("@pip_311_toolz//:pkg",)),
    ("@pip_311_toolz//:pkg", "py_library", ("pypi_name=toolz",), ()),
    ("//third_party/py/notinstalled:notinstalled", "py_library", (), ()),
]
MAIN_DEPS = [
    "//third_party/py/numpy:numpy",
    "@pip//scikit_learn:pkg",
    "@pypi_pyyaml//:pkg",
    "//third-party/python:python-dateutil",
    "//third_party/py/attrs:attrs",
    "//third_party/py/elftools:elftools",
    "//third_party/py/msgpack:msgpack",
    "@pip//pygments:pkg",
    "//third_party/py/toolz_wrapper:toolz_wrapper",
    "//third_party/py/notinstalled:notinstalled",
]
USED = MAIN_DEPS[:6]


def build_graph() -> BuildGraph:
    b = GraphBuilder()
    for f in ("//app:main.py", "//app:other.py"):
        b.add_file(f)
    main = b.add_target(
        "//app:main", "py_binary", location=Location("app/BUILD", 1), srcs=["//app:main.py"]
    )
    other = b.add_target(
        "//app:other", "py_library", location=Location("app/BUILD", 20), srcs=["//app:other.py"]
    )
    ids = {}
    for label, kind, tags, _ in THIRD_PARTY:
        ids[label] = b.add_target(label, kind, tags=tags)
    for label, _, _, deps in THIRD_PARTY:
        for d in deps:
            b.add_edge(ids[label], ids[d], EdgeKind.DEPS)
    for n, dep in enumerate(MAIN_DEPS):
        b.add_edge(main, ids[dep], EdgeKind.DEPS, Location("app/BUILD", 3 + n))
    b.add_edge(main, other, EdgeKind.DEPS, Location("app/BUILD", 14))
    b.add_edge(other, ids["//third_party/py/notinstalled:notinstalled"], EdgeKind.DEPS)
    return b.build()


@dataclass
class Workspace:
    ws: Path
    trace: Path
    graph: BuildGraph = field(default_factory=build_graph)

    def run(
        self,
        *,
        site: tuple[Path, ...] = (),
        module_map: dict[str, tuple[str, ...]] | None = None,
        trace: bool = True,
        ws: Path | None = None,
    ) -> list[Finding]:
        facts = Facts()
        if trace:
            facts.add(load_slim_trace(self.trace))
            facts.inputs.append(InputFile("trace", str(self.trace), "slim-import-trace"))
        opts = RootOptions(workspace=ws or self.ws, site_packages=site, module_map=module_map or {})
        roots = same_evidence([self.graph.ids["//app:main"]], facts, opts)
        return list(analyze(self.graph, roots, specs=[SPEC]).findings)


def _write_sources(ws: Path) -> None:
    (ws / "app").mkdir(parents=True)
    (ws / "app" / "__init__.py").write_text("")
    (ws / "app" / "main.py").write_text(MAIN)
    (ws / "app" / "other.py").write_text(OTHER)
    # the rules' file (the graph is built in `_graph`): no dep of them is in a select()
    (ws / "app" / "BUILD").write_text(
        'py_binary(\n    name = "main",\n    srcs = ["main.py"],\n)\n'
    )


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    """The program really run, traced by `slim trace`."""
    ws = tmp_path_factory.mktemp("ws")
    _write_sources(ws)
    trace = ws.parent / "main.jsonl"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run(
        [*SLIM, "trace", "-o", str(trace), "--", sys.executable, "-c", "import app.main"],
        cwd=ws,
        env=env,
        check=True,
        capture_output=True,
    )
    return Workspace(ws, trace)


@pytest.fixture
def plain(recorded: Workspace, tmp_path: Path) -> Workspace:
    """The same sources and trace in a workspace without any site-packages."""
    ws = tmp_path / "plain"
    _write_sources(ws)
    return Workspace(ws, recorded.trace)


@pytest.fixture
def with_venv(recorded: Workspace, tmp_path: Path) -> Workspace:
    """The same sources with a `.venv` whose site-packages is the real one of this venv."""
    ws = tmp_path / "venv"
    _write_sources(ws)
    lib = ws / ".venv" / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    lib.mkdir(parents=True)
    (lib / "site-packages").symlink_to(SITE, target_is_directory=True)
    return Workspace(ws, recorded.trace)


def by_dep(findings: list[Finding]) -> dict[str, list[Finding]]:
    out: dict[str, list[Finding]] = {}
    for f in findings:
        if f.code in ("SLIM001", "SLIM901"):
            out.setdefault(f.dep, []).append(f)
    return out


def looked(f: Finding) -> str:
    return next(e.detail for e in f.evidence if e.source == "ownership")


def test_the_program_loaded_what_it_imports(recorded: Workspace) -> None:
    names = load_slim_trace(recorded.trace).names()
    assert {"numpy", "sklearn", "yaml", "dateutil", "attr", "elftools", "app.main"} <= names
    assert not {"msgpack", "pygments", "toolz", "notinstalled"} & names


def test_real_venv_maps_every_shape_and_judges_alias_edges(with_venv: Workspace) -> None:
    found = by_dep(with_venv.run())
    for dep in USED:
        assert dep not in found, (dep, found.get(dep))
    # dist-info RECORD: msgpack's modules, from the autodetected .venv
    (msgpack,) = found["//third_party/py/msgpack:msgpack"]
    assert (msgpack.code, msgpack.verdict, msgpack.removable) == ("SLIM001", "dead", True)
    assert msgpack.confidence.value == "high"
    assert "msgpack-" in looked(msgpack)
    assert ".dist-info/RECORD" in looked(msgpack)
    assert msgpack.saving is not None
    assert msgpack.saving.bytes > 0  # the RECORD sizes of the files that leave
    # the hub alias edge is judged through its actual (rules_python pypi_name tag)
    (pyg,) = found["@pip//pygments:pkg"]
    assert (pyg.verdict, pyg.removable) == ("dead", True)
    assert "pygments.lexers" in looked(pyg) or "pygments" in looked(pyg)
    assert pyg.fix is not None
    assert "remove deps @pip//pygments:pkg" in pyg.fix.command
    # a //third_party wrapper forwards to the hub alias, then to the spoke
    (toolz,) = found["//third_party/py/toolz_wrapper:toolz_wrapper"]
    assert (toolz.verdict, toolz.removable) == ("dead", True)
    # not installed, not in any table: one SLIM901 listing both importers
    (unk,) = found["//third_party/py/notinstalled:notinstalled"]
    assert (unk.code, unk.removable) == ("SLIM901", False)
    assert "//app:main" in unk.message
    assert "//app:other" in unk.message
    assert "guessed" in unk.message
    assert "last component" in unk.message
    lines = {(e.source, e.line) for e in unk.evidence}
    assert ("app/BUILD", 12) in lines  # //app:main's dep line
    assert sum("not judged" in e.detail for e in unk.evidence) == 2


def test_site_packages_flag_gives_the_same(plain: Workspace, with_venv: Workspace) -> None:
    def verdicts(findings: list[Finding]) -> dict[str, tuple[str, str, bool]]:
        return {f.dep: (f.code, f.verdict, f.removable) for f in findings if f.code != "SLIM903"}

    assert verdicts(plain.run(site=(SITE,))) == verdicts(with_venv.run())


def test_without_site_packages_only_known_names_judge(plain: Workspace) -> None:
    """No dist-info anywhere: the built-in table maps scikit-learn, PyYAML,
    python-dateutil, attrs; guesses (numpy, msgpack, pygments) show use but never death."""
    found = by_dep(plain.run())
    for dep in USED:
        assert dep not in found, (dep, found.get(dep))
    for dep in (
        "//third_party/py/msgpack:msgpack",
        "@pip//pygments:pkg",
        "//third_party/py/toolz_wrapper:toolz_wrapper",
    ):
        (f,) = found[dep]
        assert (f.code, f.removable) == ("SLIM901", False), f
        assert "no site-packages given" in f.message
    (pyg,) = found["@pip//pygments:pkg"]
    assert "`pygments` guessed from the pypi_name=Pygments tag" in pyg.message
    assert all(not f.removable for fs in found.values() for f in fs)
    # one finding per unknown target, not one per importer
    assert len(found["//third_party/py/notinstalled:notinstalled"]) == 1


def test_config_modules_table_is_authoritative(plain: Workspace) -> None:
    found = by_dep(
        plain.run(
            module_map={
                "//third_party/py/msgpack:msgpack": ("msgpack",),
                "//third_party/py/notinstalled:notinstalled": ("notinstalled",),
            }
        )
    )
    (msgpack,) = found["//third_party/py/msgpack:msgpack"]
    assert (msgpack.verdict, msgpack.removable) == ("dead", True)
    assert "[modules] in the config" in looked(msgpack)
    # configured and never imported by either importer
    dead = {f.target for f in found["//third_party/py/notinstalled:notinstalled"]}
    assert dead == {"//app:main", "//app:other"}
    assert all(f.verdict == "dead" for f in found["//third_party/py/notinstalled:notinstalled"])


def test_sources_only_still_judges_with_the_venv(with_venv: Workspace) -> None:
    found = by_dep(with_venv.run(trace=False))
    for dep in USED:
        assert dep not in found, (dep, found.get(dep))
    (msgpack,) = found["//third_party/py/msgpack:msgpack"]
    assert (msgpack.verdict, msgpack.removable, msgpack.confidence.value) == (
        "dead",
        True,
        "medium",
    )


# ---------------------------------------------------------------- names and order


@pytest.mark.parametrize(
    ("label", "first"),
    [
        ("//third_party/py/numpy:numpy", "numpy"),
        ("//third_party/py:numpy", "numpy"),
        ("//third-party/python:numpy", "numpy"),
        ("//3rdparty/python:python-dateutil", "python-dateutil"),
        ("@pip//numpy:pkg", "numpy"),
        ("@pypi//numpy:pkg", "numpy"),
        ("@pypi_numpy//:pkg", "numpy"),
        ("@pip_311_numpy//:pkg", "numpy"),
        ("@@rules_python~~pip~pip_311_numpy//:pkg", "numpy"),
        ("@@rules_python++pip+pypi_312_scikit_learn//:pkg", "scikit_learn"),
    ],
)
def test_label_names(label: str, first: str) -> None:
    from slim_analyzers.python._thirdparty import label_names

    assert label_names(label)[0] == first


def test_resolution_order(tmp_path: Path) -> None:
    """dist-info, then config, then the built-in table, then a guess."""
    from slim_analyzers.python._thirdparty import installed, resolve

    site = installed([SITE])
    # dist-info wins over the table: PyYAML's RECORD lists yaml and _yaml
    m = resolve("@pypi_pyyaml//:pkg", (), {"@pypi_pyyaml//:pkg": ("other",)}, site)
    assert "yaml" in m.modules
    assert "_yaml" in m.modules
    assert m.basis.endswith(".dist-info/RECORD")
    assert not m.guessed
    # a label naming the import name finds the distribution that installs it
    m = resolve("//third_party/py/sklearn:sklearn", (), {}, site)
    assert "sklearn.linear_model" in m.modules
    assert "installs the module `sklearn`" in m.basis
    # the pypi_name tag is the distribution's name
    m = resolve("@pip_311_x//:pkg", ("pypi_name=scikit-learn",), {}, site)
    assert "sklearn" in m.modules
    empty = installed([tmp_path])
    m = resolve("@pypi_pyyaml//:pkg", (), {"@pypi_pyyaml//:pkg": ("yaml_cfg",)}, empty)
    assert (list(m.modules), m.basis) == (
        ["yaml_cfg"],
        "[modules] in the config: @pypi_pyyaml//:pkg",
    )
    m = resolve("@pypi_pyyaml//:pkg", (), {}, empty)
    assert list(m.modules) == ["yaml"]
    assert "built-in table" in m.basis
    m = resolve("//third_party/py/pillow:pillow", (), {}, None)
    assert list(m.modules) == ["PIL"]
    m = resolve("//third_party/py/protobuf:protobuf", (), {}, None)
    assert list(m.modules) == ["google.protobuf"]
    m = resolve("//third_party/py/attrs:attrs", (), {}, None)
    assert sorted(m.modules) == ["attr", "attrs"]
    m = resolve("//third-party/python:opencv-python", (), {}, None)
    assert list(m.modules) == ["cv2"]
    m = resolve("//third_party/py/beautifulsoup4:beautifulsoup4", (), {}, None)
    assert list(m.modules) == ["bs4"]
    m = resolve("//third_party/py/requests:requests", (), {}, None)
    assert (list(m.modules), m.guessed) == (["requests"], True)
    assert m.basis == "guessed from the label's last component"
    m = resolve("@pip//:pkg", (), {}, None)
    assert (m.modules, m.guessed) == ({}, False)
    assert "no name to guess from" in m.unknown


def test_package_target_whose_deps_are_its_requirements_is_not_a_wrapper(
    plain: Workspace,
) -> None:
    """`//third_party/py/sklearn` with deps on its requirements' targets (scipy, joblib in
    the same tree), no site-packages: it stands for the package itself (its name guessed,
    imported by the program: used), not a wrapper forwarding to its requirements (which
    gave a SLIM901 asking whether the program uses scipy and joblib)."""
    b = GraphBuilder()
    b.add_file("//app:main.py")
    main = b.add_target("//app:main", "py_binary", srcs=["//app:main.py"])
    sk = b.add_target("//third_party/py/sklearn:sklearn", "py_library")
    reqs = [b.add_target(f"//third_party/py/{n}:{n}", "py_library") for n in ("scipy", "joblib")]
    b.add_edge(main, sk, EdgeKind.DEPS, Location("app/BUILD", 2))
    for r in reqs:
        b.add_edge(sk, r, EdgeKind.DEPS)
    ws = dataclasses.replace(plain, graph=b.build())
    found = ws.run()
    edge = [f for f in found if "//third_party/py/sklearn:sklearn" in (f.dep, f.message)]
    assert edge == [], [f.message for f in edge]
