from __future__ import annotations

import pytest

from slim.model.graph import GraphBuilder
from slim.model.ownership import Ownership, source_path, split_member


def graph():  # type: ignore[no-untyped-def]
    b = GraphBuilder()
    for lab in [
        "//native/legacy_io:legacy_io",
        "//app:main",
        "@zlib//:z",
        "//lib:util",
        "root//lib:lib1",
        "//:core",
        "//:gtest",
        "//:gtest_main",
        "//a_b/c:my_lib",
        "//third_p:pre",
        "@com_google_absl//absl/base:base",
    ]:
        b.add_target(lab, "cc_library", srcs=[f"{lab.split(':')[0]}:x.cc"])
    b.add_target("//py:mypkg", "py_library", srcs=["//py:src/mypkg/__init__.py"])
    b.add_artifact("out/weird/name.o", "//lib:util")
    b.add_artifact("lib/libevent_core-2.2.so", "//:core")  # the file API's artifact
    b.add_artifact("libgtest.so", "//:gtest")  # at the top of the build directory
    return b.build()


@pytest.mark.parametrize(
    ("path", "owner"),
    [
        ("bazel-out/k8-fastbuild/bin/app/_objs/main/main.pic.o", "//app:main"),
        (
            "bazel-out/k8-fastbuild/bin/native/legacy_io/liblegacy_io.a",
            "//native/legacy_io:legacy_io",
        ),
        (
            "bazel-out/k8-opt/bin/native/legacy_io/liblegacy_io.pic.a(io.pic.o)",
            "//native/legacy_io:legacy_io",
        ),
        ("bazel-out/k8-opt/bin/external/zlib/libz.so", "@zlib//:z"),
        ("native/legacy_io/liblegacy_io.a", "//native/legacy_io:legacy_io"),
        (
            "native/legacy_io/CMakeFiles/legacy_io.dir/legacy_io.cc.o",
            "//native/legacy_io:legacy_io",
        ),
        ("CMakeFiles/core.dir/core/core.c.o", "//:core"),
        ("/home/u/build/native/legacy_io/liblegacy_io.a", "//native/legacy_io:legacy_io"),
        ("buck-out/v2/gen/root/0123456789abcdef/lib/__lib1__/liblib1.a", "root//lib:lib1"),
        ("./out/weird/name.o", "//lib:util"),
        ("lib/libutil.so.1.2", "//lib:util"),
        # the versioned file a link names (SOVERSION): the artifact is the .so
        ("lib/libevent_core-2.2.so.1.0.0", "//:core"),
        ("/tmp/build/lib/libevent_core-2.2.so.1", "//:core"),
        # a top-level artifact named absolute (it was nobody's, so a SLIM004 finding had
        # no edge to judge)
        ("/tmp/build/libgtest.so", "//:gtest"),
        # Bazel's `_solib_<cpu>/` symlinks, named as Bazel 4.2.3 named them here
        ("bazel-out/k8-fastbuild/bin/_solib_k8/liblibgtest.so", "//:gtest"),
        ("bazel-out/k8-fastbuild/bin/_solib_k8/liblibgtest_Umain.so", "//:gtest_main"),
        ("bazel-out/k8-fastbuild/bin/_solib_k8/liba_Ub_Sc_Slibmy_Ulib.so", "//a_b/c:my_lib"),
        (
            "bazel-out/k8-fastbuild/bin/_solib_k8/_U_S_Sthird_Up_Cpre___Uthird_Up/libpre.so",
            "//third_p:pre",
        ),
        (
            "bazel-out/k8-opt/bin/_solib_k8/libexternal_Scom_Ugoogle_Uabsl_Sabsl_Sbase_Slibbase.so",
            "@com_google_absl//absl/base:base",
        ),
    ],
)
def test_artifact_owner(path: str, owner: str) -> None:
    g = graph()
    got = Ownership.of(g).artifact_owner(path)
    assert got is not None, path
    assert g.labels[got] == owner


@pytest.mark.parametrize(
    "path",
    [
        "/usr/lib/x86_64-linux-gnu/libc.so.6",
        "/usr/lib/libcore.so",  # a label guessed from the file name alone is not an owner
        "crt1.o",
        "libfoo.a(bar.o)",
        "bazel-out/k8-fastbuild/bin/_solib_k8/libx_Zy.so",
        "bazel-out/k8-fastbuild/bin/_solib_k8/libnobody_Shere.so",
    ],
)
def test_unowned_paths_have_no_owner(path: str) -> None:
    assert Ownership.of(graph()).artifact_owner(path) is None


def test_sources() -> None:
    g = graph()
    own = Ownership.of(g)
    i = own.source_owner("py/src/mypkg/__init__.py")
    assert i is not None
    assert g.labels[i] == "//py:mypkg"
    assert own.source_owner("/abs/checkout/py/src/mypkg/__init__.py") == i
    assert own.source_owner("nowhere.py") is None


def test_helpers() -> None:
    assert split_member("a/libx.a(y.o)") == ("a/libx.a", "y.o")
    assert split_member("x.o") == ("x.o", None)
    assert source_path("//a/b:c/d.py") == "a/b/c/d.py"
    assert source_path("@r//a:x.cc") == "external/r/a/x.cc"
    assert source_path("app/file with space.cpp") == "app/file with space.cpp"


@pytest.mark.parametrize(
    ("needed", "owners"),
    [
        ("libevent_core-2.2.so.1", {"//:core"}),  # DT_NEEDED names the soname
        ("libevent_core-2.2.so", {"//:core"}),
        ("libevent_extra-2.2.so.1", set()),
        ("libc.so.6", set()),
        ("name.o", set()),  # an object is no shared library
    ],
)
def test_shared_library_owners(needed: str, owners: set[str]) -> None:
    g = graph()
    own = Ownership.of(g)
    assert {g.labels[t] for t in own.shared_library_owners(needed)} == owners


@pytest.mark.parametrize(
    ("needed", "owner"),
    [
        ("liblib_Slibwrap.so", "//lib:wrap"),  # `_solib_k8/` names: a query lists no artifact
        ("liblib_Slibplain.so", "//lib:plain"),
        ("liblib_Slibnone.so", None),  # not a target of the graph
        ("libc.so.6", None),
        ("libstdc++.so.6", None),
    ],
)
def test_shared_library_owners_of_a_bazel_query(needed: str, owner: str | None) -> None:
    """A real cquery (tests/data/bazel_defines): a DT_NEEDED `_solib_k8/` name of a library
    Bazel built is the target it stands for (SLIM004 then asks for the library)."""
    from pathlib import Path

    from slim.ingest import load_graph

    g = load_graph([Path(__file__).parents[1] / "data/bazel_defines/cquery.jsonproto.json"])
    found = {g.labels[t] for t in Ownership.of(g).shared_library_owners(needed)}
    assert found == ({owner} if owner else set())
