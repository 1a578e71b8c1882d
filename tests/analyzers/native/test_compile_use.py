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
