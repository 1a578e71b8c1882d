"""The closure-only route gives exactly the full parse's graph for the roots' closure, or
falls back (None) when its text index could miss a line; never a different closure."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from slim.app.report import render
from slim.app.session import Request, Session
from slim.errors import InputError
from slim.infra.config import Config
from slim.ingest import load_graph
from slim.ingest.graph.bazel_closure import load_closure
from slim.model.canonical import graph_to_canonical
from slim.model.graph import ALL_KINDS, BuildGraph, PartialGraphError

REPO = Path(__file__).parents[3]
STREAMED = REPO / "tests" / "data" / "bazel" / "query.streamed_jsonproto.ndjson"
MONOREPO_CQUERY = (
    REPO / "sample_graphs" / "monorepo" / "exports" / "bazel" / "cquery.jsonproto.json"
)
sys.path.insert(0, str(REPO / "sample_graphs"))
import generate_large  # noqa: E402


def _restricted(full: BuildGraph, roots: list[str]) -> list[dict[str, object]]:
    ids = full.closure([full.lookup(r) for r in roots], ALL_KINDS)  # type: ignore[misc]
    keep = {full.labels[i] for i in ids.tolist()}
    return [t for t in graph_to_canonical(full)["targets"] if t["label"] in keep]


def _check_every_root(path: Path) -> tuple[int, int]:
    """(roots the closure route answered, roots it left to the full parse)."""
    full = load_graph([path])
    answered = fell_back = 0
    for label, kind in zip(full.labels, full.kinds, strict=True):
        if not kind:
            continue
        g = load_closure(path, [label])
        if g is None:
            fell_back += 1
            continue
        answered += 1
        assert graph_to_canonical(g)["targets"] == _restricted(full, [label]), label
        assert g.formats == full.formats
        assert g.notes == full.notes
    return answered, fell_back


def _streamed_from_cquery(out: Path) -> Path:
    """The monorepo's real cquery targets as streamed_jsonproto lines (configurations off)."""
    data = json.loads(MONOREPO_CQUERY.read_text())
    lines = []
    for res in data["results"]:
        t = res["target"]
        if "rule" in t:
            t["rule"]["name"] = t["rule"]["name"].split(" (", 1)[0]
        lines.append(json.dumps(t, separators=(",", ":")))
    out.write_text("\n".join(lines) + "\n")
    return out


def test_real_bazel_sample_every_root_matches_or_falls_back() -> None:
    answered, fell_back = _check_every_root(STREAMED)
    # The sample's java and py rules name sources the export omits (kind(rule, ...)):
    # whether those are files depends on other lines, so those roots fall back.
    assert answered >= 3
    assert fell_back >= 1


def test_real_monorepo_targets_every_root_matches(tmp_path: Path) -> None:
    path = _streamed_from_cquery(tmp_path / "monorepo.ndjson")
    answered, _ = _check_every_root(path)
    assert answered >= 5


@pytest.mark.parametrize("avg", [1.5, 2.7, 6.0])
def test_generated_graphs_every_root_matches(tmp_path: Path, avg: float) -> None:
    path = tmp_path / "g.ndjson"
    generate_large.generate(path, targets=250, avg_deps=avg, seed=3)
    answered, fell_back = _check_every_root(path)
    assert answered == 250
    assert fell_back == 0


def test_two_roots_give_the_union_of_their_closures(tmp_path: Path) -> None:
    path = tmp_path / "g.ndjson"
    generate_large.generate(path, targets=400, avg_deps=2.7, seed=1)
    full = load_graph([path])
    roots = [
        "//app/bin0:bin0",
        "//lib/l1/p0:t2" if full.lookup("//lib/l1/p0:t2") else "//base/hub0:hub0",
    ]
    g = load_closure(path, roots)
    assert g is not None
    assert graph_to_canonical(g)["targets"] == _restricted(full, roots)


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines(keepends=True)


@pytest.fixture
def small(tmp_path: Path) -> Path:
    path = tmp_path / "g.ndjson"
    generate_large.generate(path, targets=100, avg_deps=2.7, seed=2)
    return path


def test_generated_file_redirects_to_its_rule_like_the_full_parse(small: Path) -> None:
    lines = _lines(small)
    gen = (
        '{"type":"GENERATED_FILE","generatedFile":{"name":"//app/bin0:gen.h",'
        '"generatingRule":"//base/hub1:hub1","location":"app/bin0/BUILD:1:1"}}\n'
    )
    first = lines[0].replace('"ruleInput":["', '"ruleInput":["//app/bin0:gen.h","', 1)
    first = first.replace(
        '{"name":"srcs","type":"LABEL_LIST","stringListValue":["',
        '{"name":"srcs","type":"LABEL_LIST","stringListValue":["//app/bin0:gen.h","',
        1,
    )
    small.write_text(first + "".join(lines[1:]) + gen)
    full = load_graph([small])
    g = load_closure(small, ["//app/bin0:bin0"])
    assert g is not None
    assert g.lookup("//base/hub1:hub1") is not None
    assert graph_to_canonical(g)["targets"] == _restricted(full, ["//app/bin0:bin0"])


@pytest.mark.parametrize(
    "extra",
    [
        # a non-canonical name: its canonical lookup could miss it
        '{"type":"RULE","rule":{"name":"@//x:y","ruleClass":"cc_library"}}\n',
        # a line of another shape (key order) the index does not read
        '{"rule":{"name":"//x:z","ruleClass":"cc_library"},"type":"RULE"}\n',
        # a package group: ignored by the reader, but a line the index does not know
        '{"type":"PACKAGE_GROUP","packageGroup":{"name":"//x:g"}}\n',
    ],
)
def test_unusual_lines_fall_back(small: Path, extra: str) -> None:
    small.write_text("".join(_lines(small)) + extra)
    assert load_closure(small, ["//app/bin0:bin0"]) is None


def test_duplicate_target_line_falls_back(small: Path) -> None:
    lines = _lines(small)
    small.write_text("".join(lines) + lines[-2])
    assert load_closure(small, ["//app/bin0:bin0"]) is None


def test_log_lines_and_blank_lines_are_skipped_like_the_reader(small: Path) -> None:
    lines = _lines(small)
    small.write_text("INFO: Invocation ID: 1\nLoading: 0 packages\n\n" + "".join(lines))
    full = load_graph([small])
    g = load_closure(small, ["//app/bin0:bin0"])
    assert g is not None
    assert graph_to_canonical(g)["targets"] == _restricted(full, ["//app/bin0:bin0"])


def test_unknown_root_and_source_file_root_fall_back(small: Path) -> None:
    assert load_closure(small, ["//no/such:target"]) is None
    src = next(x for x in _lines(small) if '"SOURCE_FILE"' in x)
    name = src.split('"name":"', 1)[1].split('"', 1)[0]
    g = load_closure(small, [name])
    assert g is None or g.lookup(name) is None  # a file is no node: the session falls back


def test_gzip_falls_back(small: Path, tmp_path: Path) -> None:
    import gzip

    gz = tmp_path / "g.ndjson.gz"
    gz.write_bytes(gzip.compress(small.read_bytes()))
    assert load_closure(gz, ["//app/bin0:bin0"]) is None


def test_bad_closure_line_reports_its_file_line_like_the_full_parse(small: Path) -> None:
    lines = _lines(small)
    g = load_closure(small, ["//app/bin0:bin0"])
    assert g is not None
    victim = next(
        k
        for k, x in enumerate(lines)
        if k > 0 and '"RULE"' in x and g.lookup(x.split('"name":"')[1].split('"')[0]) is not None
    )
    lines[victim] = lines[victim].replace('"ruleClass":"', '"ruleClass":7,"x":"', 1)
    small.write_text("".join(lines))
    with pytest.raises(InputError) as full_err:
        load_graph([small])
    with pytest.raises(InputError) as closure_err:
        load_closure(small, ["//app/bin0:bin0"])
    assert str(closure_err.value) == str(full_err.value)
    assert f":{victim + 1}:" in str(closure_err.value)


def test_closure_graph_refuses_reverse_questions(small: Path) -> None:
    g = load_closure(small, ["//app/bin0:bin0"])
    assert g is not None
    assert g.closure_of == ("//app/bin0:bin0",)
    with pytest.raises(PartialGraphError):
        g.reverse_closure([0])


def _report(path: Path, label: str, closure: bool) -> str:
    s = Session(Request(graphs=(path,), use_cache=False), config=Config())
    s.closure_route = closure
    rep = s.report(s.select_roots([label]))
    assert bool(s.graph.closure_of) == closure
    return render(rep, "json")


def test_graph_only_report_is_byte_identical_through_the_closure(tmp_path: Path) -> None:
    path = tmp_path / "g.ndjson"
    generate_large.generate(path, targets=800, avg_deps=2.7, seed=0)
    for label in ("//app/bin0:bin0", "//app/bin1:bin1"):
        assert _report(path, label, True) == _report(path, label, False)


def test_report_with_evidence_reads_the_whole_graph(tmp_path: Path) -> None:
    path = tmp_path / "g.ndjson"
    generate_large.generate(path, targets=200, avg_deps=2.7, seed=0)
    trace = tmp_path / "t.txt"
    trace.write_text("import time:       120 |        120 | json\n")
    req = Request(graphs=(path,), use_cache=False, evidence={"trace": (trace,)})
    s = Session(req, config=Config())
    s.select_roots(["//app/bin0:bin0"])
    assert not s.graph.closure_of


def test_index_in_two_processes_equals_one(small: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import mmap

    import slim.ingest.graph._parallel as par
    from slim.ingest.graph.bazel_closure import index_lines

    def index() -> dict[bytes, int] | None:
        with small.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            return index_lines(mm)

    monkeypatch.setenv("SLIM_WORKERS", "1")
    one = index()
    monkeypatch.setenv("SLIM_WORKERS", "2")
    monkeypatch.setattr(par, "MIN_PARALLEL_BYTES", 0)
    two = index()
    assert one is not None
    assert two == one
    lines = _lines(small)
    small.write_text("".join(lines) + lines[0])  # a name of the first half, again at the end
    assert index() is None


def test_line_index_is_kept_and_reused_by_the_next_closure_query(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import slim.ingest.graph.bazel_closure as bc
    from slim.infra.cache import load_closure_graph

    path = tmp_path / "g.ndjson"
    generate_large.generate(path, targets=300, avg_deps=2.7, seed=5)
    scans: list[Path] = []
    real = bc._scan

    def counting(p: Path) -> dict[bytes, int] | None:
        scans.append(p)
        return real(p)

    monkeypatch.setattr(bc, "_scan", counting)
    first = load_closure_graph(path, None, ["//app/bin0:bin0"], use_cache=True)
    second = load_closure_graph(path, None, ["//lib/l1/p0:t2"], use_cache=True)
    third = load_closure_graph(path, None, ["//app/bin0:bin0"], use_cache=True)
    assert len(scans) == 1
    assert first is not None
    assert second is not None
    assert third is not None
    assert graph_to_canonical(first) == graph_to_canonical(third)
    full = load_graph([path])
    assert graph_to_canonical(second)["targets"] == _restricted(full, ["//lib/l1/p0:t2"])
    path.write_text(path.read_text().replace("//lib/l1/p0:t2", "//lib/l1/p0:tY"))
    assert load_closure_graph(path, None, ["//lib/l1/p0:tY"], use_cache=True) is not None
    assert len(scans) == 2  # an edited export is scanned again
