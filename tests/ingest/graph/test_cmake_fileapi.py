"""CMake file API codemodel v2 on the CMake 3.25.1 (2.4) and 4.4.5 (2.11) replies, plus a
reply made here by the machine's cmake (multi-config, subdirectories)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from slim.errors import InputError
from slim.ingest import detect, load_graph
from slim.ingest.graph import cmake_fileapi
from slim.ingest.graph.cmake_fileapi import cmake_label
from slim.model.graph import BuildGraph, EdgeKind, Location
from tests import cmake_tools
from tests.ingest._canonical import check_golden

DATA = Path(__file__).parents[2] / "data" / "cmake"
OLD, NEW = DATA / "cmake-3.25.1" / "reply", DATA / "cmake-4.4.5" / "reply"
LINK_KINDS = frozenset({EdgeKind.DEPS, EdgeKind.EXPORTS})


def edges(g: BuildGraph, kinds: frozenset[EdgeKind] | None = None) -> set[tuple[str, str, str]]:
    return {
        (g.labels[s], g.labels[d], EdgeKind(k).name)
        for s, d, k in zip(
            g.edge_src.tolist(), g.edge_dst.tolist(), g.edge_kind.tolist(), strict=True
        )
        if kinds is None or EdgeKind(k) in kinds
    }


@pytest.mark.parametrize("reply", [OLD, NEW], ids=["3.25.1", "4.4.5"])
def test_golden(reply: Path, request: pytest.FixtureRequest) -> None:
    assert detect(reply, "graph").name == "cmake-file-api"
    check_golden(load_graph([reply]), reply, request)


def test_cmake_4_model() -> None:
    g = load_graph([NEW])
    assert edges(g) == {
        ("//:app", "//:util", "DEPS"),
        ("//:app", "//:iface", "DEPS"),
        ("//:app", "//:objs", "DEPS"),
        ("//:app", "//:gen", "ORDER_ONLY"),
        ("//:util", "//:core", "DEPS"),  # PRIVATE: still linked
        ("//:util", "//:Threads__Threads", "DEPS"),
    }
    ids = g.ids
    threads = g.target(ids["//:Threads__Threads"])
    assert threads.is_external
    assert threads.attrs["imported"] is True
    assert threads.attrs["cmake_name"] == "Threads::Threads"
    assert threads.location == Location("CMakeLists.txt", 3)  # find_package, not FindThreads
    app, util, core, gen = ids["//:app"], ids["//:util"], ids["//:core"], ids["//:gen"]
    assert g.kinds[app] == "executable"
    assert g.kinds[gen] == "custom"
    assert g.locations[app] == Location("CMakeLists.txt", 16)
    assert g.edge_location(app, util) == Location("CMakeLists.txt", 18)
    assert g.edge_location(app, gen) == Location("CMakeLists.txt", 20)
    assert g.edge_location(util, core) == Location("CMakeLists.txt", 10)
    assert g.srcs[app] == ("app/file with space.cpp", "app/main.cpp")
    assert g.attrs[app]["object_dir"] == "CMakeFiles/app.dir/"
    assert g.artifacts["libutil.so"] == util
    assert g.artifacts["CMakeFiles/objs.dir/core/objs.c.o"] == ids["//:objs"]
    assert g.artifacts["CMakeFiles/core.dir/"] == core
    assert g.configurations[app] == ("Debug",)
    assert g.attrs[util]["link_visibility"] == ("//:Threads__Threads PUBLIC", "//:core PRIVATE")


def test_cmake_3_and_4_agree_modulo_what_2_9_adds() -> None:
    old, new = load_graph([OLD]), load_graph([NEW])
    added = {lab for lab in new.labels if new.target(new.ids[lab]).attrs.get("abstract")}
    assert added == {"//:Threads__Threads", "//:iface"}
    assert set(old.labels) == set(new.labels) - added
    new_edges = {e for e in edges(new) if e[1] not in added}
    assert edges(old) == new_edges
    assert any("< 2.9" in n for n in old.notes)


@pytest.mark.parametrize("version", ["cmake-3.25.1", "cmake-4.4.5"])
def test_graphviz_and_file_api_agree_on_link_edges(version: str) -> None:
    api = load_graph([DATA / version / "reply"])
    gv = load_graph([DATA / version / "graphviz"])
    api_links = {(a, b) for a, b, _ in edges(api, LINK_KINDS)}
    gv_links = {(a, b) for a, b, _ in edges(gv, LINK_KINDS)}
    if version == "cmake-4.4.5":
        assert api_links == gv_links
    else:  # 2.4 does not report Threads::Threads or iface at all
        assert api_links == {e for e in gv_links if e[1] not in ("//:Threads__Threads", "//:iface")}


def test_build_dir_and_index_file_inputs(tmp_path: Path) -> None:
    reply = tmp_path / "build" / ".cmake" / "api" / "v1" / "reply"
    shutil.copytree(NEW, reply)
    build = tmp_path / "build"
    assert detect(build, "graph").name == "cmake-file-api"
    index = sorted(reply.glob("index-*.json"))[-1]
    assert detect(index, "graph").name == "cmake-file-api"
    expected = edges(load_graph([NEW]))
    assert edges(load_graph([build])) == expected
    assert edges(load_graph([index])) == expected


def test_newest_index_wins(tmp_path: Path) -> None:
    reply = tmp_path / "reply"
    shutil.copytree(NEW, reply)
    (reply / "index-2000-01-01T00-00-00-0000.json").write_text(
        '{"objects": [{"kind": "codemodel", "version": {"major": 2, "minor": 0},'
        ' "jsonFile": "codemodel-v2-gone.json"}], "cmake": {}}'
    )
    assert edges(load_graph([reply])) == edges(load_graph([NEW]))
    (reply / "index-2999-01-01T00-00-00-0000.json").write_text(
        '{"objects": [{"kind": "codemodel", "version": {"major": 2, "minor": 0},'
        ' "jsonFile": "codemodel-v2-gone.json"}], "cmake": {}}'
    )
    with pytest.raises(InputError, match=r"index-2999.*\.json:1: expected codemodel-v2-gone"):
        load_graph([reply])


def test_index_referencing_a_missing_target_file(tmp_path: Path) -> None:
    reply = tmp_path / "reply"
    shutil.copytree(NEW, reply)
    victim = next(reply.glob("target-util-*.json"))
    victim.unlink()
    with pytest.raises(InputError) as exc:
        load_graph([reply])
    msg = str(exc.value)
    cm = next(reply.glob("codemodel-v2-*.json"))
    line = next(n for n, text in enumerate(cm.read_text().splitlines(), 1) if victim.name in text)
    assert msg.startswith(f"{cm}:{line}: expected {victim.name} (referenced by jsonFile)")
    assert "\n" not in msg


def _broken_copy(tmp_path: Path, name_glob: str, content: bytes) -> Path:
    reply = tmp_path / "reply"
    shutil.copytree(NEW, reply)
    next(reply.glob(name_glob)).write_bytes(content)
    return reply


@pytest.mark.parametrize(
    ("glob", "content", "expected"),
    [
        ("index-*.json", b"", r"index-.*:1: expected a file API index object as JSON"),
        ("index-*.json", b'{"objects": [{"kind": "codemodel", ', r"index-.*:1: expected a file"),
        ("index-*.json", b"\x00\xff\x13\x37garbage", r"index-.*:1: expected a file API index"),
        ("index-*.json", b'{"objects": [{"kind": "cache", "jsonFile": "x.json"}]}', "codemodel v2"),
        ("target-app-*.json", b'{"name": "app"}', r"target-app.*: expected a target object"),
        ("codemodel-v2-*.json", b'{\n"configurations": [\n{"targets": 3}]}', "codemodel v2 object"),
    ],
    ids=["empty", "truncated", "binary", "no-codemodel", "target-missing-fields", "wrong-shape"],
)
def test_bad_input(tmp_path: Path, glob: str, content: bytes, expected: str) -> None:
    reply = _broken_copy(tmp_path, glob, content)
    with pytest.raises(InputError, match=expected) as exc:
        load_graph([reply])
    assert "\n" not in str(exc.value)


def test_wrong_format_and_escaping_json_file(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(InputError, match="a CMake file API reply directory"):
        load_graph([tmp_path], "cmake-file-api")
    reply = tmp_path / "reply"
    reply.mkdir()
    (reply / "index-1.json").write_text(
        '{"objects": [{"kind": "codemodel", "version": {"major": 2},'
        ' "jsonFile": "../../etc/passwd"}]}'
    )
    with pytest.raises(InputError, match="a jsonFile naming a file in the reply directory"):
        load_graph([reply])


def test_cmake_label() -> None:
    assert cmake_label(".", "app") == "//:app"
    assert cmake_label("", "Threads::Threads") == "//:Threads__Threads"
    assert cmake_label("lib/sub/", "x") == "//lib/sub:x"
    assert cmake_label("lib\\win", "x") == "//lib/win:x"


def test_cli_missing_json_file_exits_2_with_one_line(tmp_path: Path) -> None:
    reply = tmp_path / "reply"
    shutil.copytree(NEW, reply)
    next(reply.glob("target-core-*.json")).unlink()
    r = subprocess.run(
        [sys.executable, "-m", "slim", "report", "//:app", "--graph", str(reply)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "target-core-" in lines[0]
    assert "referenced by jsonFile" in lines[0]
    assert r.stdout == ""


def test_cli_why_shows_cmakelists_lines(tmp_path: Path) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "slim", "why", "//:app", "//:core", "--graph", str(NEW)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    assert "//:util  (CMakeLists.txt:18)" in r.stdout
    assert "//:core  (CMakeLists.txt:10)" in r.stdout


# -- a reply made here: Ninja Multi-Config, a subdirectory, an imported library ----------
PROJECT = {
    "CMakeLists.txt": """cmake_minimum_required(VERSION 3.16)
project(mc C)
add_subdirectory(lib/sub)
add_library(ext STATIC IMPORTED)
set_target_properties(ext PROPERTIES IMPORTED_LOCATION /usr/lib/libext_missing.a)
add_executable(app main.c)
target_link_libraries(app PRIVATE sublib m)
""",
    "main.c": "int sub(void); int main(void) { return sub(); }\n",
    "lib/sub/CMakeLists.txt": """add_library(sublib STATIC sub.c)
target_link_libraries(sublib INTERFACE ext)
add_library(base STATIC base.c)
target_link_libraries(sublib PRIVATE base)
""",
    "lib/sub/sub.c": "int sub(void) { return 0; }\n",
    "lib/sub/base.c": "int base(void) { return 0; }\n",
}


@pytest.fixture(scope="module")
def multi_config_reply(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cmake, ninja = cmake_tools.system(), shutil.which("ninja")
    if cmake is None or ninja is None:
        pytest.skip("cmake or ninja not installed: cannot make a multi-config reply")
    root = tmp_path_factory.mktemp("mc")
    for rel, text in PROJECT.items():
        (root / "src" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "src" / rel).write_text(text)
    build = root / "build"
    (build / ".cmake" / "api" / "v1" / "query").mkdir(parents=True)
    (build / ".cmake" / "api" / "v1" / "query" / "codemodel-v2").touch()
    r = subprocess.run(
        [cmake, "-G", "Ninja Multi-Config", "-S", str(root / "src"), "-B", str(build)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if r.returncode != 0:
        pytest.skip(f"cmake configure failed here: {r.stderr.strip()[:200]}")
    return build


def test_multi_config_subdirectory_reply(multi_config_reply: Path) -> None:
    g = load_graph([multi_config_reply])
    ids = g.ids
    assert "//:app" in ids
    assert "//lib/sub:sublib" in ids
    app, sub = ids["//:app"], ids["//lib/sub:sublib"]
    assert set(g.configurations[app]) >= {"Debug", "Release", "RelWithDebInfo"}
    assert g.edge_kinds(app, sub) == [EdgeKind.DEPS]
    base = ids["//lib/sub:base"]
    assert g.edge_kinds(sub, base) == [EdgeKind.DEPS]
    # app links libbase.a only because sublib (static) needs it: not app's own declaration
    assert g.edge_kinds(app, base) == [EdgeKind.IMPLICIT]
    assert g.edge_location(app, sub) == Location("CMakeLists.txt", 7)
    assert g.locations[sub] == Location("lib/sub/CMakeLists.txt", 1)
    assert g.srcs[sub] == ("lib/sub/sub.c",)
    assert g.attrs[sub]["object_dir"] == "lib/sub/CMakeFiles/sublib.dir/"
    arts = {p for p, t in g.artifacts.items() if t == sub}
    assert {"lib/sub/Debug/libsublib.a", "lib/sub/Release/libsublib.a"} <= arts
    link_external = g.attrs[app]["link_external"]
    assert isinstance(link_external, tuple)
    assert "-lm" in link_external


def test_a_generated_reply_is_its_bazel_twin_and_reads_each_reference_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The generator's CMake reply holds the same graph as its Bazel export; and no
    jsonFile reference is searched for in the whole codemodel (it was, for a line kept for
    an error: quadratic, 522 s for 100k targets): searches of reply bytes are counted."""
    import sys

    sys.path.insert(0, str(Path(__file__).parents[3] / "sample_graphs"))
    import generate_large

    reply = tmp_path / "reply"
    generate_large.generate(reply, targets=3000, avg_deps=2.7, seed=0, fmt="cmake")
    searches = []

    class Counted(bytes):
        def find(self, *a, **k):  # type: ignore[no-untyped-def, override]
            searches.append("find")
            return super().find(*a, **k)

        def count(self, *a, **k):  # type: ignore[no-untyped-def, override]
            searches.append("count")
            return super().count(*a, **k)

    read = cmake_fileapi._read
    monkeypatch.setattr(cmake_fileapi, "_read", lambda path: Counted(read(path)))
    g = load_graph([reply])
    assert len(g) == 3000
    assert len(searches) < 10
    bazel = tmp_path / "g.ndjson"
    generate_large.generate(bazel, targets=3000, avg_deps=2.7, seed=0)
    twin = load_graph([bazel])
    closures = []
    for graph in (g, twin):
        root = graph.lookup("//app/bin0:bin0")
        assert root is not None
        rules = graph.closure([root]).tolist()
        closures.append(sorted(graph.labels[i] for i in rules if graph.kinds[i]))
    assert closures[0] == closures[1]
    assert len(closures[0]) > 3
