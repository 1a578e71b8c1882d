"""Module ownership: srcs paths, Bazel `imports`, Buck2 `base_module`, namespace packages,
and third-party names from a real `RECORD` (import name != distribution name)."""

from __future__ import annotations

from pathlib import Path

import pytest

from slim.model.graph import EdgeKind, GraphBuilder
from slim.model.pymodules import (
    ModuleIndex,
    dist_candidates,
    graph_sources,
    is_third_party_label,
    module_from_path,
    normalize_dist,
    parse_record,
    record_modules,
    target_sources,
)

DIST = Path(__file__).parents[1] / "data" / "python" / "dist-info"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("a/b/c.py", ("a.b.c", False)),
        ("a/b/__init__.py", ("a.b", True)),
        ("a/_ext.cpython-311-x86_64-linux-gnu.so", ("a._ext", False)),
        ("a/_speed.abi3.so", ("a._speed", False)),
        ("a/_win.cp311-win_amd64.pyd", ("a._win", False)),
        ("a/stub.pyi", ("a.stub", False)),
        ("my-dir/c.py", None),
        ("a/data.json", None),
        ("__init__.py", None),
    ],
)
def test_module_from_path(path: str, expected: tuple[str, bool] | None) -> None:
    assert module_from_path(path) == expected


def test_path_derived_names_and_packages() -> None:
    srcs = target_sources(
        "//py/common:common", ["//py/common:__init__.py", "//py/common:settings.py"], {}
    )
    assert [(s.path, s.modules, s.is_package) for s in srcs] == [
        ("py/common/__init__.py", ("py.common",), True),
        ("py/common/settings.py", ("py.common.settings",), False),
    ]


def test_bazel_imports_attr_adds_the_sys_path_name() -> None:
    (src,) = target_sources(
        "//py/vendored:tinyhelper",
        ["//py/vendored:src/tinyhelper/__init__.py"],
        {"imports": ("src",)},
    )
    assert src.modules == ("tinyhelper", "py.vendored.src.tinyhelper")
    assert src.module == "tinyhelper"
    (dot,) = target_sources("//lib:lib", ["//lib:x.py"], {"imports": (".",)})
    assert dot.modules == ("x", "lib.x")
    (up,) = target_sources("//lib:lib", ["//lib:x.py"], {"imports": ("../..",)})
    assert up.modules == ("lib.x",)  # above the repository root: ignored


def test_sources_a_filegroup_hands_over_are_the_target_s_modules() -> None:
    """`py_library(srcs = [":files"])`: its modules are the filegroup's files (before,
    it had none, and its edges were left unjudged as of unknown ownership)."""
    b = GraphBuilder()
    lib = b.add_target("//fgpy:fgpy", "py_library", srcs=["//fgpy:files"])
    files = b.add_target("//fgpy:files", "filegroup", srcs=["//fgpy:__init__.py", "//fgpy:core.py"])
    b.add_edge(lib, files, EdgeKind.SRCS)
    g = b.build()
    srcs = graph_sources(g, g.ids["//fgpy:fgpy"])
    assert [(s.path, s.module, s.is_package) for s in srcs] == [
        ("fgpy/__init__.py", "fgpy", True),
        ("fgpy/core.py", "fgpy.core", False),
    ]


def test_buck2_base_module() -> None:
    (src,) = target_sources("root//foo/bar:lib", ["root//foo/bar:baz.py"], {"base_module": "a.b"})
    assert src.modules == ("a.b.baz", "foo.bar.baz")
    assert src.path == "foo/bar/baz.py"
    (top,) = target_sources("root//foo/bar:lib", ["root//foo/bar:baz.py"], {"base_module": ""})
    assert top.module == "baz"


def test_namespace_package_parent_is_owned_by_nobody() -> None:
    b = GraphBuilder()
    for lab, src in (("//ns:a", "//ns:a/x.py"), ("//ns:b", "//ns:b/y.py")):
        b.add_file(src)
        b.add_target(lab, "py_library", srcs=[src])
    g = b.build()
    idx = ModuleIndex.build(
        (i, {m for s in graph_sources(g, i) for m in s.modules}) for i in range(len(g))
    )
    assert idx.owners_of("ns.a.x") == {g.ids["//ns:a"]}
    assert idx.owners_of("ns.b.y") == {g.ids["//ns:b"]}
    assert idx.owners_of("ns") == set()
    assert idx.owners_of("ns.a") == set()


def test_external_site_packages_sources() -> None:
    (src,) = target_sources(
        "@pypi_pyyaml//:pkg", ["@pypi_pyyaml//:site-packages/yaml/__init__.py"], {}
    )
    assert src.module == "yaml"
    assert src.path == "external/pypi_pyyaml/site-packages/yaml/__init__.py"


def test_real_record_import_names_differ_from_dist_name() -> None:
    text = (DIST / "slim_demo_dist-0.1.0.dist-info" / "RECORD").read_text()
    rows = parse_record(text)
    assert ("slim_helper.py", 23) in rows
    assert ("slim_demo_dist-0.1.0.dist-info/RECORD", None) in rows
    mods = record_modules(rows)
    assert mods == {
        "slim_helper": "slim_helper.py",
        "slimdemo": "slimdemo/__init__.py",
        "slimdemo.sub": "slimdemo/sub/__init__.py",
        "slimns.part": "slimns/part/__init__.py",
    }
    # the namespace root is in top_level.txt but no RECORD row makes it a module
    top = (DIST / "slim_demo_dist-0.1.0.dist-info" / "top_level.txt").read_text().split()
    assert "slimns" in top
    assert "slimns" not in mods
    assert "slim_demo_dist" not in mods


def test_record_skips_scripts_data_and_pycache() -> None:
    rows = parse_record(
        "../../../bin/tool,sha256=x,10\n"
        "pkg-1.0.data/scripts/run.py,sha256=x,5\n"
        "pkg/__pycache__/m.cpython-311.pyc,,\n"
        "pkg/m.py,sha256=x,7\n"
        '"pkg/with,comma.py",sha256=x,3\n'
    )
    assert record_modules(rows) == {"pkg.m": "pkg/m.py"}
    assert ("pkg/with,comma.py", 3) in rows


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("@pypi//pyyaml:pkg", ["pyyaml"]),
        ("@pip_pyyaml//:pkg", ["pyyaml"]),
        ("@pypi_scikit_learn//:pkg", ["scikit_learn"]),
        ("@pip//scikit-learn:scikit-learn", ["scikit_learn"]),
        ("//third_party/python:PyYAML", ["third_party", "python", "pyyaml"]),
    ],
)
def test_dist_candidates(label: str, expected: list[str]) -> None:
    assert dist_candidates(label) == expected


def test_normalize_and_third_party_labels() -> None:
    assert normalize_dist("PyYAML") == "pyyaml"
    assert normalize_dist("scikit-learn") == "scikit_learn"
    assert normalize_dist("zope.interface") == "zope_interface"
    assert is_third_party_label("@pypi//pyyaml:pkg")
    assert is_third_party_label("@pip_deps_requests//:pkg")
    assert not is_third_party_label("//py/common:common")
    assert not is_third_party_label("@rules_cc//cc:toolchain")
