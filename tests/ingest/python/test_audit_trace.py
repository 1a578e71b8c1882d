"""Audit-hook traces: slim's own JSON lines (`slim trace`) and the tab-separated samples."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest import detect
from slim.ingest.python.audit_trace import load, load_tsv
from tests.ingest._pytrace_golden import check_trace_golden

DATA = Path(__file__).parents[2] / "data" / "python"
TSV = sorted((DATA / "audit").glob("py3.*.txt"))
JSONL = sorted((DATA / "slimtrace").glob("*.jsonl"))


@pytest.mark.parametrize("sample", [p for p in TSV if p.name != "py3.7.txt"], ids=lambda p: p.name)
def test_tsv_golden(sample: Path, request: pytest.FixtureRequest) -> None:
    assert detect(sample, "trace").name == "python-audit-tsv"
    t = check_trace_golden(load_tsv(sample), sample, request)
    assert t["python"] == sample.name[2:-4]


def test_tsv_sample_semantics() -> None:
    t = load_tsv(DATA / "audit" / "py3.12.txt")
    by = t.by_name()
    assert {"slimpkg", "slimpkg.a", "slimpkg.c", "slimpkg_missing_module"} <= t.names()
    # the extension module fires twice; the second event carries the .so path
    assert by["_json"].file.endswith("_json.cpython-312-x86_64-linux-gnu.so")
    assert by["slimpkg.c"].importers == ("",)


def test_py37_has_no_audit_hook() -> None:
    sample = DATA / "audit" / "py3.7.txt"
    with pytest.raises(InputError) as exc:
        detect(sample, "trace")
    assert str(exc.value).startswith(f"{sample}:1: expected a trace input")
    with pytest.raises(InputError, match="audit-hook `import` rows"):
        load_tsv(sample)


@pytest.mark.parametrize("sample", JSONL, ids=lambda p: p.name)
def test_slim_trace_golden(sample: Path, request: pytest.FixtureRequest) -> None:
    assert detect(sample, "trace").name == "slim-import-trace"
    check_trace_golden(load(sample), sample, request)


def test_slim_trace_importers_lines_and_failures() -> None:
    t = load(DATA / "slimtrace" / "py3.11.jsonl")
    by = t.by_name()
    assert by["slimpkg"].importers == ("__main__",)
    assert by["slimpkg.c"].importers == ("slimpkg.b",)
    assert by["slimpkg.c"].import_line == 2
    assert by["json"].importers == ("slimpkg.a",)
    assert by["slimpkg_missing_module"].failed
    assert by["slimpkg_missing_module"].importers == ("slimpkg.c",)
    assert "slimpkg_missing_module" not in t.names()
    assert t.exit_codes == (0,)
    assert t.python == "3.11.7"


def _write(tmp_path: Path, *records: object) -> Path:
    p = tmp_path / "t.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in records))
    return p


def test_runs_merge(tmp_path: Path) -> None:
    head = {"slim-import-trace": 1, "python": "3.12.1"}
    p = _write(
        tmp_path,
        head,
        {"import": "a", "importer": "__main__", "importer_line": 1},
        {"end": True, "exit_code": 0, "failed": []},
        head,
        {"import": "a", "importer": "__main__", "importer_line": 1},
        {"import": "b", "importer": "a", "importer_line": 3},
        {"end": True, "exit_code": 1, "failed": [], "note": "killed"},
    )
    t = load(p)
    assert t.runs == 2
    assert t.by_name()["a"].runs == 2
    assert t.by_name()["b"].runs == 1
    assert t.exit_codes == (0, 1)


def test_a_run_without_its_end_record_is_refused(tmp_path: Path) -> None:
    """`slim trace` always writes the end record (one with a note for a killed program):
    a run without one is a recording cut short, not a complete run."""
    head = {"slim-import-trace": 1, "python": "3.12.1"}
    a = {"import": "a", "importer": "__main__", "importer_line": 1}
    p = _write(tmp_path, head, a, head, a, {"end": True, "failed": []})
    with pytest.raises(InputError) as exc:
        load(p)
    assert str(exc.value) == (
        f"{p}:3: expected the end record of the run started at line 1 before a new run, "
        "found a new run's header (the recording was cut short?)"
    )
    p = _write(tmp_path, head, a)
    with pytest.raises(InputError) as exc:
        load(p)
    assert str(exc.value) == (
        f'{p}:2: expected the end record ({{"end": true, ...}}) of the run started at line 1, '
        "found the end of the file (the recording was cut short?)"
    )


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        ({"import": "a", "importer": 7}, '"importer": a module name (or "")'),
        ({"import": "a", "importer": []}, '"importer": a module name (or "")'),
        ({"import": "a", "importer_line": "3"}, '"importer_line": a line number'),
        ({"import": "a", "importer_line": True}, '"importer_line": a line number'),
        ({"extension": "_json", "file": 5}, '"file": a file name'),
        ({"exec": ["x.py"]}, '"exec": a file name'),
        ({"end": True, "exit_code": "0"}, '"exit_code": an exit status'),
        ({"end": True, "failed": "a"}, '"failed": a list of module names'),
        ({"end": True, "note": 1}, '"note": a string'),
        ({"end": 1}, '"end": true'),
    ],
)
def test_a_field_of_the_wrong_type_is_refused(
    tmp_path: Path, record: dict[str, object], expected: str
) -> None:
    p = _write(tmp_path, {"slim-import-trace": 1}, record, {"end": True, "failed": []})
    with pytest.raises(InputError) as exc:
        load(p)
    assert str(exc.value).startswith(f"{p}:2: expected {expected}, found ")


@pytest.mark.parametrize(
    ("content", "line", "expected"),
    [
        (b"", 1, "header line"),
        (b'{"import": "a"}\n', 1, "header line"),
        (b'{"slim-import-trace": 1}\n{"import": "a", "import', 2, "a newline at the end"),
        (b'{"slim-import-trace": 1}\n{"import": "a", "impor\n', 2, "a JSON object per line"),
        (b'{"slim-import-trace": 2}\n', 1, "version 1"),
        (b'{"slim-import-trace": 1}\n[1, 2]\n', 2, "a JSON object per line"),
        (b'{"slim-import-trace": 1}\n{"import": "not a name"}\n', 2, "a module name"),
        (b'{"slim-import-trace": 1}\n{"what": 1}\n', 2, '"import", "exec", "extension" or "end"'),
        (b'{"slim-import-trace": 1}\n{"error": "no hook"}\n', 2, "no hook"),
        (b'{"slim-import-trace": 1}\n\xff\xfe\n', 2, "a JSON object per line"),
    ],
)
def test_bad_input(tmp_path: Path, content: bytes, line: int, expected: str) -> None:
    p = tmp_path / "bad.jsonl"
    p.write_bytes(content)
    with pytest.raises(InputError) as exc:
        load(p)
    msg = str(exc.value)
    assert msg.startswith(f"{p}:{line}: expected")
    assert expected in msg
    assert "\n" not in msg


@settings(deadline=None, max_examples=150)
@given(st.binary(max_size=300))
def test_arbitrary_bytes(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    d = tmp_path_factory.mktemp("h")
    for loader, prefix in (
        (load, b'{"slim-import-trace": 1}\n'),
        (load_tsv, b"import\tx\tfilename=None\n"),
    ):
        p = d / "t.txt"
        p.write_bytes(prefix + data)
        with contextlib.suppress(InputError):
            loader(p)
