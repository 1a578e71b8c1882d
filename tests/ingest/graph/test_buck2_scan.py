"""Buck2 query JSON read member by member gives the whole-document reader's graph (in
order, in parallel halves, or a closure), or falls back to it: same graph, same error."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from slim.errors import InputError
from slim.ingest.graph import _parallel, buck2_json, buck2_scan
from slim.model.canonical import graph_to_canonical
from slim.model.graph import ALL_KINDS, BuildGraph, GraphBuilder

REPO = Path(__file__).parents[3]
DATA = REPO / "tests" / "data" / "buck2"
QUERIES = ["cquery_attributes.json", "uquery_select.json", "multi_query_universe.json",
           "cquery_labels.json"]  # fmt: skip
sys.path.insert(0, str(REPO / "sample_graphs"))
import generate_large  # noqa: E402


def _whole(path: Path) -> BuildGraph:
    b = GraphBuilder()
    buck2_json.load_query(path, b)
    return b.build()


def _members(
    path: Path, monkeypatch: pytest.MonkeyPatch, parallel: bool, *, taken: bool = True
) -> BuildGraph:
    """The member route, forced for a small file (in order, or in two forked halves);
    `taken`: check that the file was read by members (not declined to the whole reader)."""
    b = GraphBuilder()
    with monkeypatch.context() as m:
        m.setattr(buck2_scan, "_MIN_MEMBER_BYTES", 0)
        m.setattr(_parallel, "MIN_PARALLEL_BYTES", 1 if parallel else 1 << 40)
        m.setenv("SLIM_WORKERS", "2")
        used: list[bool] = []
        real = buck2_scan._read_all
        m.setattr(buck2_scan, "_read_all", lambda *a: (used.append(True), real(*a))[1])
        buck2_scan.load_query(path, b)
    if taken and path.name != "cquery_labels.json":  # an array, not an object of members
        assert used, f"{path.name}: the member route was not taken"
    return b.build()


@pytest.mark.parametrize("name", QUERIES)
@pytest.mark.parametrize("parallel", [False, True])
def test_real_files_give_the_whole_document_graph(
    name: str, parallel: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = DATA / name
    whole = _whole(path)
    got = _members(path, monkeypatch, parallel)
    assert graph_to_canonical(got) == graph_to_canonical(whole)
    if not parallel:
        assert list(got.labels) == list(whole.labels)


@pytest.fixture
def generated(tmp_path: Path) -> Path:
    path = tmp_path / "g.json"
    generate_large.generate(path, targets=600, avg_deps=2.7, seed=4, fmt="buck2")
    return path


@pytest.mark.parametrize("parallel", [False, True])
def test_generated_file_gives_the_whole_document_graph(
    generated: Path, parallel: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    got = _members(generated, monkeypatch, parallel)
    assert graph_to_canonical(got) == graph_to_canonical(_whole(generated))


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (': {"buck.type"', ': {"buck.type": 7, "x"'),  # a kind that is no string
        ('"buck.deps": [', '"buck.deps": [,'),  # bad JSON inside a member
        ('"root//app/bin1:bin1": {', '"root//app/bin1:bin1": 5, "z": {'),  # two members in one
        ('"root//app/bin1:bin1": {', '"not a label": {'),  # the reader's own error
        ('"root//app/bin1:bin1"', '"root//app/bin0:bin0"'),  # a repeated key
    ],
)
@pytest.mark.parametrize("parallel", [False, True])
def test_unusual_members_read_like_the_whole_document(
    generated: Path, old: str, new: str, parallel: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    _edit(generated, old, new)
    try:
        want: object = graph_to_canonical(_whole(generated))
    except InputError as exc:
        want = str(exc)
    try:
        got: object = graph_to_canonical(_members(generated, monkeypatch, parallel, taken=False))
    except InputError as exc:
        got = str(exc)
    assert got == want


def test_log_line_or_second_document_is_read_whole(generated: Path) -> None:
    text = generated.read_text()
    for variant in ("INFO: x\n" + text, text + text):
        generated.write_text(variant)
        with generated.open("rb") as f:
            import mmap

            mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        with pytest.raises(buck2_scan._NotMembersError):
            buck2_scan.scan(mm)
        mm.close()


def _restricted(full: BuildGraph, roots: list[str]) -> list[dict[str, object]]:
    ids = full.closure([full.lookup(r) for r in roots], ALL_KINDS)  # type: ignore[misc]
    keep = {full.labels[i] for i in ids.tolist()}
    return [t for t in graph_to_canonical(full)["targets"] if t["label"] in keep]


@pytest.mark.parametrize("path", [DATA / "cquery_attributes.json", DATA / "uquery_select.json"])
def test_closure_of_every_root_is_the_full_graph_restricted(path: Path) -> None:
    full = _whole(path)
    answered = 0
    for label, kind in zip(full.labels, full.kinds, strict=True):
        if not kind:
            continue
        g = buck2_scan.load_closure(path, [label])
        if g is None:
            continue
        answered += 1
        assert graph_to_canonical(g)["targets"] == _restricted(full, [label]), label
        assert g.formats == ("buck2-query-json",)
    # uquery_select's //py:mypkg names //py:gen_version only in srcs, and no member
    # describes it: whether it is a file depends on the rest, so that closure falls back.
    assert answered >= 1


def test_closure_of_generated_roots(generated: Path) -> None:
    full = _whole(generated)
    roots = [lab for lab in full.labels if lab.startswith("root//app/")][:5]
    for root in roots:
        g = buck2_scan.load_closure(generated, [root])
        assert g is not None
        assert graph_to_canonical(g)["targets"] == _restricted(full, [root])
    assert buck2_scan.load_closure(generated, ["root//no/such:target"]) is None


def test_a_kept_member_index_answers_the_next_closure_without_a_scan(
    generated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first closure query keeps the member index in the cache; the next one, for any
    root, reads it instead of scanning, and gets the same graph; an edited export has
    another content key, so its stale index is never used."""
    from slim.infra import cache

    monkeypatch.setenv("SLIM_CACHE_DIR", str(tmp_path / "cache"))
    full = _whole(generated)
    roots = [lab for lab in full.labels if lab.startswith("root//app/")][:3]
    fmt = buck2_scan.FORMAT
    first = cache.load_closure_graph(generated, fmt, [roots[0]], use_cache=True)
    assert first is not None
    assert graph_to_canonical(first)["targets"] == _restricted(full, [roots[0]])
    assert any(p.name.endswith("-members") for p in (tmp_path / "cache" / "graphs").iterdir())

    def no_scan(_: object) -> None:
        raise AssertionError("scanned although the index was kept")

    with monkeypatch.context() as m:
        m.setattr(buck2_scan, "scan", no_scan)
        for root in roots:
            g = cache.load_closure_graph(generated, fmt, [root], use_cache=True)
            assert g is not None
            assert graph_to_canonical(g)["targets"] == _restricted(full, [root])
    _edit(generated, '"root//app/bin1:bin1": {', '"root//app/bin1:bin1":  {')
    with monkeypatch.context() as m:
        m.setattr(buck2_scan, "scan", no_scan)
        with pytest.raises(AssertionError, match="scanned"):
            cache.load_closure_graph(generated, fmt, [roots[0]], use_cache=True)


def test_an_index_that_does_not_fit_the_file_is_not_used(generated: Path) -> None:
    """Member ranges of another file: the decoded keys are not the labels looked up, so
    the closure declines (the caller parses the whole file)."""
    from slim.model.columns import KeyIndex

    full = _whole(generated)
    root = next(lab for lab in full.labels if lab.startswith("root//app/"))
    with generated.open("rb") as f:
        import mmap

        mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        members = buck2_scan.scan(mm)
        mm.close()
    shifted = {lab.encode(): (i + 1) % len(members.keys) for i, lab in enumerate(
        buck2_scan.normalize_label(k.decode()) for k in members.keys
    )}  # fmt: skip
    index = KeyIndex(KeyIndex.pack(shifted))
    got = buck2_scan.load_closure(
        generated,
        [root],
        cached_index=lambda: (
            index,
            buck2_scan.Members(members.starts, members.ends, [], members.line),
        ),
    )
    assert got is None
