"""`python -v` traces of CPython 3.8, 3.11 and 3.13 (real), importers from code-object nesting."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest import detect
from slim.ingest.python.python_verbose import load
from tests.ingest._pytrace_golden import check_trace_golden

SAMPLES = Path(__file__).parents[2] / "data" / "python" / "verbose"
ALL = sorted(SAMPLES.glob("*.v.txt"))
MONOREPO = Path(__file__).parents[3] / "sample_graphs" / "monorepo" / "traces"


def test_samples_present() -> None:
    assert [p.name for p in ALL] == ["py3.11.v.txt", "py3.13.v.txt", "py3.8.v.txt"]


@pytest.mark.parametrize("sample", ALL, ids=lambda p: p.name)
def test_golden(sample: Path, request: pytest.FixtureRequest) -> None:
    assert detect(sample, "trace").name == "python-verbose"
    check_trace_golden(load(sample), sample, request)


@pytest.mark.parametrize("sample", ALL, ids=lambda p: p.name)
def test_importers_and_files(sample: Path) -> None:
    by = load(sample).by_name()
    assert by["slimpkg.a"].importers == ("slimpkg",)
    assert by["slimpkg.c"].importers == ("slimpkg.b",)
    assert by["json"].importers == ("slimpkg.a",)
    assert by["json.scanner"].importers == ("json.decoder",)
    # -v prints nothing for a failed import
    assert "slimpkg_missing_module" not in by
    assert by["_json"].file.endswith(".so")
    assert by["slimpkg.b"].file == "<CWD>/slimpkg/b"
    assert by["_imp"].importers == ("",)  # bootstrap `import _imp # builtin`


def test_failed_module_code_object_is_dropped(tmp_path: Path) -> None:
    p = tmp_path / "v.txt"
    p.write_text(
        "# code object from /s/app/__init__.py\n"
        "# code object from /s/app/broken.py\n"
        "import 'os' # <class '_frozen_importlib.FrozenImporter'>\n"
        "# code object from /s/app/ok.py\n"
        "import 'app.ok' # <_frozen_importlib_external.SourceFileLoader object at 0x1>\n"
        "import 'app' # <_frozen_importlib_external.SourceFileLoader object at 0x2>\n"
        "# clear builtins._\n"
    )
    by = load(p).by_name()
    # app.broken never finished: whether os and app.ok came from it or from app after the
    # failure cannot be told, so their importer is unknown rather than guessed
    assert by["app.ok"].importers == ("",)
    assert by["os"].importers == ("",)
    assert "app.broken" not in by
    assert by["app"].importers == ("",)


@pytest.mark.skipif(not MONOREPO.is_dir(), reason="sample monorepo not built")
def test_importlib_loaded_module_is_logged() -> None:
    by = load(MONOREPO / "server.plugins.verbose.txt").by_name()
    assert "py.plugins.impl" in by


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "an empty file"),
        (b"Python 3.13.0\n# installing zipimport hook\n", "no such line in 2 lines"),
        (b"import 'bad name' # <x>\n", "a module name"),
    ],
)
def test_bad_input(tmp_path: Path, content: bytes, expected: str) -> None:
    p = tmp_path / "bad.txt"
    p.write_bytes(content)
    with pytest.raises(InputError) as exc:
        load(p)
    assert str(exc.value).startswith(f"{p}:1: expected")
    assert expected in str(exc.value)


def test_truncated_trace_is_refused(tmp_path: Path) -> None:
    """A real trace cut mid-line, or at a line before the interpreter's exit: its last
    imports (and their importers) are missing, so it is not read as a whole trace."""
    text = (SAMPLES / "py3.13.v.txt").read_bytes()
    cut = text[: text.index(b"import 'slimpkg.a'")]
    p = tmp_path / "cut.txt"
    p.write_bytes(cut + b"import 'slim")
    with pytest.raises(InputError, match=r"expected a newline at the end of the last line"):
        load(p)
    p.write_bytes(cut)
    lines = cut.count(b"\n")
    with pytest.raises(InputError) as exc:
        load(p)
    assert str(exc.value) == (
        f"{p}:{lines}: expected the interpreter's exit (`# clear builtins._` and the cleanup "
        "after it: a complete -v trace ends with them), found the end of the file "
        "(truncated, or the program was killed?)"
    )
    p.write_bytes(text[: text.index(b"# clear builtins._")])
    with pytest.raises(InputError, match="the interpreter's exit"):
        load(p)


def test_failed_imports_still_read_with_the_exit(tmp_path: Path) -> None:
    text = (SAMPLES / "py3.13.v.txt").read_bytes()
    cut = text[: text.index(b"import 'slimpkg.a'")]
    p = tmp_path / "failed.txt"
    p.write_bytes(cut + b"# clear builtins._\n")  # slimpkg.a raised: no import line
    t = load(p)
    assert "json" in t.names()
    assert "slimpkg.a" not in t.names()
    assert any("never finished" in n for n in t.notes)


@settings(deadline=None, max_examples=150)
@given(st.binary(max_size=400))
def test_arbitrary_bytes(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    p = tmp_path_factory.mktemp("h") / "v.txt"
    p.write_bytes(b"import 'os' # <x>\n" + data + b"\n# clear builtins._\n")
    try:
        t = load(p)
    except InputError:
        return
    assert "os" in t.names()
