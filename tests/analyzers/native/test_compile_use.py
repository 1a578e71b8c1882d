"""`CompileIndex.beside`: when a compile finds a header beside the file including it (the
includer's own directory, searched first for a quoted `#include`), read off the files the
compile read. Every case here is one the compiler does not search that way, or one the
reader cannot see whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzers.native import _compile_use
from analyzers.native._compile_use import CompileIndex, HeaderUse, TargetCompile
from slim.model.findings import Evidence
from slim.model.graph import GraphBuilder
from slim.model.ownership import Ownership

HEADER = "test/utils.h"


def _beside(ws: Path, source: str) -> Evidence | None:
    (ws / "test").mkdir(exist_ok=True)
    (ws / HEADER).write_text("#define UTIL 1\n")
    (ws / "test" / "x.c").write_text(source)
    g = GraphBuilder().build()
    ix = CompileIndex(g, Ownership.of(g), [], ws)
    use = HeaderUse(HEADER, "test/x.c", Evidence("test/x.c", "", 1, None, "test"))
    return ix.beside(TargetCompile("depfile", headers=[use], sources=["test/x.c"]), HEADER)


def test_a_quoted_include_from_the_headers_directory_finds_it_beside(tmp_path: Path) -> None:
    found = _beside(tmp_path, 'int a;\n#include "utils.h"\n')
    assert found is not None
    assert (found.source, found.line, found.detail) == ("test/x.c", 2, '#include "utils.h"')


@pytest.mark.parametrize(
    "source",
    [
        "#include <utils.h>\n",
        '#include_next "utils.h"\n',  # searches on after the includer's directory
        '#if __has_include_next("utils.h")\n#endif\n#include "utils.h"\n',
        '#include "utils.h"\n#define H <utils.h>\n#include H\n',
    ],
)
def test_an_include_not_searched_beside_its_file_is_a_use(tmp_path: Path, source: str) -> None:
    assert _beside(tmp_path, source) is None


def test_a_file_read_only_in_part_is_not_known_to_include_it_only_beside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An `#include <utils.h>` past the bytes read of a large file (an amalgamation) may
    be the one that needs the edge's include directory."""
    monkeypatch.setattr(_compile_use, "MAX_FILE_BYTES", 64)
    source = '#include "utils.h"\n' + "int x;\n" * 20 + "#include <utils.h>\n"
    assert _beside(tmp_path, source) is None
    assert _beside(tmp_path, '#include "utils.h"\n' + "int x;\n" * 6) is not None


MAYBE_FOO = (
    "app/main.c:1: #include <foo.h>, which may be lib/include/foo.h through an include path "
    "the graph does not show"
)


def _scanned(ws: Path, include: str, *, listed: tuple[str, ...] = ()) -> TargetCompile:
    """The static scan of `app/main.c` (`include` its only line) in a graph whose one
    target lists `listed` besides it, with `lib/include/foo.h` in the workspace."""
    (ws / "app").mkdir(parents=True)
    (ws / "lib" / "include").mkdir(parents=True)
    (ws / "lib" / "include" / "foo.h").write_text("#define FOO 1\n")
    (ws / "app" / "main.c").write_text(f"{include}\nint main(void) {{ return 0; }}\n")
    b = GraphBuilder()
    b.add_target("//app:main", "cc_binary", srcs=("//app:main.c", *listed))
    g = b.build()
    tc = CompileIndex(g, Ownership.of(g), [], ws).of(0)
    assert tc is not None
    return tc


def test_an_angled_include_a_listed_header_may_be_is_not_a_system_header(tmp_path: Path) -> None:
    tc = _scanned(tmp_path, "#include <foo.h>", listed=("//lib:include/foo.h",))
    assert (tc.unresolved, tc.maybe) == ([], [(MAYBE_FOO, ("lib/include/foo.h",))])


def test_a_graph_listing_no_header_has_the_workspace_searched(tmp_path: Path) -> None:
    """`ninja -t graph` lists the compiled sources only: `<foo.h>` may still be the
    workspace's, `<stdio.h>` (no such file in it) is a system header."""
    assert _scanned(tmp_path / "a", "#include <foo.h>").maybe == [
        (MAYBE_FOO, ("lib/include/foo.h",))
    ]
    system = _scanned(tmp_path / "b", "#include <stdio.h>")
    assert (system.unresolved, system.maybe) == ([], [])


def test_a_workspace_too_large_to_search_leaves_an_angled_include_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Directories count: a tree of empty directories is not walked without end."""
    monkeypatch.setattr(_compile_use, "MAX_WALK_FILES", 20)
    for k in range(30):
        (tmp_path / "deep" / f"d{k}").mkdir(parents=True)
    (found,) = _scanned(tmp_path, "#include <stdio.h>").unresolved
    assert "a header of the workspace (over 20 entries: not searched)" in found
