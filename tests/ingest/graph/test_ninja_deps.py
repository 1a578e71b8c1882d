"""`ninja -t deps` on the ninja 1.11.1 and 1.13.2 samples."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest import detect, load_graph
from slim.ingest.graph.ninja_deps import read_records
from tests.ingest._canonical import check_golden

DATA = Path(__file__).parents[2] / "data"
SAMPLES = sorted(DATA.glob("ninja/*/deps.txt"))
_DEPS_LINES = [
    "a.o: #deps 1, deps mtime 5 (VALID)",
    "b c.o: #deps 0, deps mtime 0 (STALE)",
    "CMakeFiles/t.dir/x.o: #deps 2, deps mtime 9 (VALID)",
    "x.o: deps not found",
    "    /src/a.c",
    "    /usr/include/h.h",
    "",
    "garbage",
    "  two-space",
]


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.parent.name)
def test_golden(sample: Path, request: pytest.FixtureRequest) -> None:
    assert detect(sample, "graph").name == "ninja-deps"
    check_golden(load_graph([sample]), sample, request)


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.parent.name)
def test_objects_map_to_their_cmake_targets(sample: Path) -> None:
    g = load_graph([sample])
    ids = g.ids
    assert g.artifacts["CMakeFiles/core.dir/core/core_extra.c.o"] == ids["//:core"]
    assert g.artifacts["CMakeFiles/app.dir/app/file_with_space.cpp.o"] == ids["//:app"]
    assert g.attrs[ids["//:app"]]["ninja_sources"] == ("<SOURCE_DIR>/app/file with space.cpp",)
    assert g.attrs[ids["//:core"]]["ninja_headers"] == ("/usr/include/stdc-predef.h",)
    assert g.edge_count == 0
    assert any("no target edges" in n for n in g.notes)


def test_merges_with_the_file_api_graph() -> None:
    g = load_graph([DATA / "cmake/cmake-4.4.5/reply", DATA / "ninja/ninja-1.13.2/deps.txt"])
    core = g.ids["//:core"]
    assert g.kinds[core] == "static_library"  # the deps file does not erase what CMake said
    assert g.srcs[core] == ("core/core.c", "core/core_extra.c")
    assert g.artifacts["CMakeFiles/core.dir/core/core.c.o"] == core


def test_spaces_stale_not_found_and_foreign_outputs(tmp_path: Path) -> None:
    p = tmp_path / "deps.txt"
    p.write_text(
        "sub/CMakeFiles/my lib.dir/a b.c.o: #deps 1, deps mtime 17 (STALE)\n"
        "    /src/sub/a b.c\n\n"
        "obj/x.o: #deps 0, deps mtime 0 (VALID)\n\n"
        "CMakeFiles/app.dir/gone.c.o: deps not found\n"
    )
    records, missing = read_records(p)
    assert records == [
        ("sub/CMakeFiles/my lib.dir/a b.c.o", ["/src/sub/a b.c"], True),
        ("obj/x.o", [], False),
    ]
    assert missing == 1
    g = load_graph([p])
    assert g.artifacts["sub/CMakeFiles/my lib.dir/a b.c.o"] == g.ids["//sub:my lib"]
    notes = " | ".join(g.notes)
    assert "1 STALE" in notes
    assert "1 output(s) with deps not found" in notes
    assert "1 output(s) outside CMakeFiles" in notes


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", ":1: expected a `ninja -t deps` record, found an empty file"),
        (b"a.o: #deps 2, deps mtime 1 (VALID)\n    a.c\n", ":2: expected 2 deps for 'a.o'"),
        (b"a.o: #deps 2, deps mtime 1 (VALID)\n    a.c\nb.o: #deps\n", ":3: expected dep 2 of 2"),
        (b"a.o: #deps 1, deps mtime 1 (VALID)\n    a.c\n", ":2: expected the blank line ending"),
        (b"\xff\xfe\x00\x00binary", ":1: expected UTF-8"),
        (b"app: CXX_EXECUTABLE_LINKER__app_Debug\n", ":1: expected a record"),
    ],
    ids=["empty", "truncated", "record-cut", "record-unended", "binary", "wrong-format"],
)
def test_bad_input(tmp_path: Path, content: bytes, expected: str) -> None:
    p = tmp_path / "deps.txt"
    p.write_bytes(content)
    with pytest.raises(InputError, match=expected) as exc:
        load_graph([p], "ninja-deps")
    assert "\n" not in str(exc.value)


def test_sniff_rejects_other_ninja_tools() -> None:
    for name in ("targets-all.txt", "query-app.txt", "ninja_log.txt"):
        with pytest.raises(InputError):
            detect(DATA / "ninja" / "ninja-1.13.2" / name, "graph")


@given(st.lists(st.sampled_from(_DEPS_LINES), max_size=12))
@settings(deadline=None, max_examples=300)
def test_arbitrary_record_soup_gives_input_error_or_records(lines: list[str]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "deps.txt"
        p.write_text("\n".join(lines) + "\n", encoding="utf-8")
        message = ""
        try:
            records, _ = read_records(p)
            assert all(isinstance(deps, list) for _, deps, _ in records)
        except InputError as exc:
            message = str(exc)
        assert "\n" not in message
