"""Damaged text exports (Bazel label_kind, Buck2 and ninja DOT, `.ninja_log`, `ninja -t
deps`, depfiles, lld/ld64/MSVC side files) and fields of the wrong type (Buck2 JSON, CMake
file API): each real sample damaged that way is refused with `FILE:LINE`, or read whole.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from slim.errors import InputError
from slim.ingest import find_format
from slim.ingest.timings import ninja_log
from slim.model.graph import GraphBuilder

DATA = Path(__file__).parents[1] / "data"
#: (format, real sample): formats whose every line ends with a newline.
LINE_SAMPLES = [
    ("bazel-label-kind", DATA / "bazel" / "cquery.label_kind.txt"),
    ("ninja-log", DATA / "ninja" / "ninja-1.13.2" / "ninja_log.txt"),
    ("ninja-deps", DATA / "ninja" / "ninja-1.13.2" / "deps.txt"),
    ("lld-why-extract", DATA / "linkmap" / "lld.why-extract.tsv"),
    ("lld-why-live", DATA / "linkmap" / "lld.why-live.txt"),
    ("ld64-map", DATA / "linkmap" / "ld64lld.map"),
    ("msvc-map", DATA / "linkmap" / "lld-link.map"),
    ("buck2-what-ran", DATA / "buck2" / "timing" / "what-ran.jsonl"),
]
DOT_SAMPLES = [
    ("buck2-dot", DATA / "buck2" / "dot.deps.golden.dot"),
    ("buck2-dot", DATA / "buck2" / "dot_compact.deps.golden.dot"),
    ("ninja-graph", DATA / "ninja" / "ninja-1.13.2" / "graph-app.dot"),
    ("bazel-graph", DATA / "bazel" / "query.graph.dot"),
    ("cmake-graphviz", DATA / "cmake" / "cmake-4.4.5" / "graphviz" / "deps.dot"),
]


def _load(fmt: str, path: Path) -> object:
    f = find_format(fmt)
    if f.evidence == "graph":
        b = GraphBuilder()
        f.load(path, b)
        return b.build()
    return f.load(path)


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


@pytest.mark.parametrize(("fmt", "sample"), LINE_SAMPLES, ids=[f for f, _ in LINE_SAMPLES])
def test_a_real_line_export_cut_mid_line_is_refused(tmp_path: Path, fmt: str, sample: Path) -> None:
    data = sample.read_bytes()
    assert _load(fmt, sample)
    for size in (len(data) // 2, len(data) - 2):
        start = data.rfind(b"\n", 0, size) + 1
        if size - start < 2:
            size = start + 2
        cut = _write(tmp_path, sample.name, data[:size])
        with pytest.raises(InputError) as exc:
            _load(fmt, cut)
        assert str(exc.value).startswith(f"{cut}:"), str(exc.value)
        assert "\n" not in str(exc.value)


@pytest.mark.parametrize(("fmt", "sample"), DOT_SAMPLES, ids=[s.name for _, s in DOT_SAMPLES])
def test_a_real_dot_graph_cut_anywhere_is_refused(tmp_path: Path, fmt: str, sample: Path) -> None:
    """A DOT graph ends with the `}` of the graph: any cut before it is refused."""
    data = sample.read_bytes()
    close = data.rindex(b"}")
    for size in (len(data) // 10, len(data) // 2, data.rindex(b"\n", 0, close) + 1, close):
        cut = _write(tmp_path, sample.name, data[:size])
        with pytest.raises(InputError) as exc:
            _load(fmt, cut)
        assert str(exc.value).startswith(f"{cut}:")


@pytest.mark.parametrize(
    ("fmt", "sample"),
    LINE_SAMPLES + DOT_SAMPLES,
    ids=[s.name for _, s in LINE_SAMPLES + DOT_SAMPLES],
)
def test_a_nul_byte_in_a_real_text_export_is_refused_with_its_line(
    tmp_path: Path, fmt: str, sample: Path
) -> None:
    data = bytearray(sample.read_bytes())
    at = data.index(b"\n", len(data) // 2) + 2
    while data[at - 1 : at + 1].count(b"\n"):  # the second column of a non-empty line
        at = data.index(b"\n", at) + 2
    data[at] = 0
    line = data.count(b"\n", 0, at) + 1
    bad = _write(tmp_path, sample.name, bytes(data))
    with pytest.raises(InputError) as exc:
        _load(fmt, bad)
    assert str(exc.value).startswith(f"{bad}:{line}: expected ")
    assert "a NUL byte at column 2" in str(exc.value)


def test_a_ninja_deps_record_cut_after_its_last_dep_is_refused(tmp_path: Path) -> None:
    data = (DATA / "ninja" / "ninja-1.13.2" / "deps.txt").read_bytes()
    cut = _write(tmp_path, "deps.txt", data[: data.rindex(b"\n\n") + 1])  # the blank line lost
    with pytest.raises(InputError, match="expected the blank line ending the record"):
        _load("ninja-deps", cut)


def test_a_real_ninja_log_with_a_latin1_path_is_read(tmp_path: Path) -> None:
    """ninja paths are bytes: a Latin-1 output name is valid, kept as it is (escaped)."""
    if shutil.which("ninja") is None:
        pytest.skip("ninja not installed")
    (tmp_path / "build.ninja").write_bytes(
        b"rule touch\n  command = touch $out\nbuild caf\xe9.o: touch\nbuild plain.o: touch\n"
    )
    r = subprocess.run(["ninja"], cwd=tmp_path, capture_output=True, check=False)
    assert r.returncode == 0, r.stderr
    log = tmp_path / ".ninja_log"
    assert b"caf\xe9.o" in log.read_bytes()
    t = ninja_log.read_ninja_log(log)
    assert {o for a in t.actions for o in a.outputs} == {"caf\udce9.o", "plain.o"}


def test_a_real_buck2_export_with_deps_of_the_wrong_type_is_refused(tmp_path: Path) -> None:
    doc = json.loads((DATA / "buck2" / "cquery_attributes.json").read_text())
    key = next(iter(doc))
    doc[key]["deps"] = 7  # the case: the target had no edges and exit 0
    bad = _write(tmp_path, "q.json", json.dumps(doc, indent=2).encode())
    with pytest.raises(InputError) as exc:
        _load("buck2-query-json", bad)
    assert str(exc.value).startswith(f'{bad}:1: expected "deps" of ')
    assert str(exc.value).endswith("labels (strings, lists, select()), found number 7")


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        (("artifacts", 0, "path"), 5, "Expected `str`, got `int` - at `$.artifacts[0].path`"),
        (("type",), ["EXECUTABLE"], "Expected `str`, got `array` - at `$.type`"),
        (("dependencies",), {"id": "x"}, "Expected `array`, got `object` - at `$.dependencies`"),
        (("sources", 0, "isGenerated"), "no", "Expected `bool`, got `str`"),
    ],
)
def test_a_real_cmake_reply_with_a_field_of_the_wrong_type_is_refused_at_its_line(
    tmp_path: Path, field: tuple[object, ...], value: object, expected: str
) -> None:
    reply = tmp_path / "reply"
    shutil.copytree(DATA / "cmake" / "cmake-4.4.5" / "reply", reply)
    target = sorted(reply.glob("target-app-*.json"))[0]
    doc = json.loads(target.read_text())
    node = doc
    for k in field[:-1]:
        node = node[k]
    node[field[-1]] = value  # type: ignore[index]
    text = json.dumps(doc, indent=2)
    target.write_text(text)
    key = json.dumps(field[-1]) if isinstance(field[-1], str) else None
    with pytest.raises(InputError) as exc:
        _load("cmake-file-api", reply)
    msg = str(exc.value)
    assert expected in msg
    line = int(msg.split(":", 2)[1])
    if key is not None:  # the reported line holds the damaged field
        assert key in text.split("\n")[line - 1]
