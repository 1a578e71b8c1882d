"""The numpy-free view of a cache entry answers `why` exactly as the loaded graph does, and
hands over (None) whenever it cannot vouch for an entry."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slim.infra import graph_view
from slim.infra.cache import cache_key, load, save
from slim.infra.graph_view import GraphView, open_view
from slim.ingest import find_format
from slim.model.graph import ALL_KINDS, BUILD_KINDS, BuildGraph, EdgeKind, GraphBuilder, Location
from tests.fuzz._samples import SAMPLES
from tests.fuzz._samples import load as load_sample

CQUERY = Path(__file__).parents[1] / "data" / "bazel" / "cquery.jsonproto.json"
N = 12

edges = st.lists(
    st.tuples(
        st.integers(0, N - 1),
        st.integers(0, N - 1),
        st.sampled_from(list(EdgeKind)),
        st.one_of(st.none(), st.integers(1, 99)),
    ),
    max_size=50,
)


def _build(es: list[tuple[int, int, EdgeKind, int | None]], located: list[bool]) -> BuildGraph:
    b = GraphBuilder()
    # labels out of id order, so sorting paths by label is not sorting by id
    ids = [b.add_target(f"//p{(7 * i) % N}:t", "cc_library") for i in range(N)]
    for i, yes in zip(ids, located, strict=True):
        if yes:
            b.set_location(i, Location(f"p{i}/BUILD", i + 1))
    for a, c, k, line in es:
        where = Location(f"p{a}/BUILD", line) if line is not None else None
        b.add_edge(ids[a], ids[c], k, where)
    return b.build()


def _view(g: BuildGraph, key: str) -> GraphView:
    save(g, key)
    view = open_view(key)
    assert view is not None
    return view


@settings(max_examples=120, deadline=None)
@given(edges, st.lists(st.booleans(), min_size=N, max_size=N), st.integers(0, 2**31))
def test_view_answers_as_the_graph(es, located, salt) -> None:  # type: ignore[no-untyped-def]
    g = _build(es, located)
    key = f"view-{salt}-{len(es)}"
    view = _view(g, key)
    cached = load(key)
    assert cached is not None
    for i in range(N):
        label = g.labels[i]
        assert view.labels[i] == label
        assert view.lookup(label) == g.lookup(label) == i
        assert view.lookup(f"@{label}") == g.lookup(f"@{label}")  # another spelling
    assert view.lookup("//no/such:target") is None
    for a in range(N):
        for c in range(N):
            assert view.edge_kinds(a, c) == g.edge_kinds(a, c)
            assert view.edge_location(a, c) == g.edge_location(a, c)
            for kinds in (BUILD_KINDS, ALL_KINDS):
                want = g.shortest_paths(a, c, kinds, limit=3)
                assert view.shortest_paths(a, c, kinds, limit=3) == want
                assert cached.shortest_paths(a, c, kinds, limit=3) == want


def test_search_past_its_budget_hands_over(monkeypatch: pytest.MonkeyPatch) -> None:
    g = _build([(i, i + 1, EdgeKind.DEPS, None) for i in range(N - 1)], [False] * N)
    view = _view(g, "chain")
    assert view.shortest_paths(0, N - 1, BUILD_KINDS) == [list(range(N))]
    monkeypatch.setattr(graph_view, "EDGE_BUDGET", 3)
    assert view.shortest_paths(0, N - 1, BUILD_KINDS) is None
    assert view.shortest_paths(0, 1, BUILD_KINDS) == [[0, 1]]  # found before the budget


def test_no_view_of_a_damaged_or_missing_entry() -> None:
    g = _build([(0, 1, EdgeKind.DEPS, None)], [True] * N)
    assert open_view("absent") is None
    _view(g, "damaged")
    entry = Path(os.environ["SLIM_CACHE_DIR"]) / "graphs" / "damaged"
    with (entry / "indptr.npy").open("r+b") as f:
        f.seek(-8, os.SEEK_END)
        f.write(b"\xff" * 8)
    assert open_view("damaged") is None
    assert (entry / "manifest.json").exists()  # left for `load` to report and rebuild


def _slim(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "slim", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def _imported_numpy(run: subprocess.CompletedProcess[str]) -> bool:
    return any(line.rsplit("|", 1)[-1].strip() == "numpy" for line in run.stderr.splitlines())


def test_warm_why_reads_the_entry_without_numpy_and_says_the_same(tmp_path: Path) -> None:
    src = tmp_path / CQUERY.name
    shutil.copy(CQUERY, src)
    env = {**os.environ, "SLIM_CACHE_DIR": str(tmp_path / "c")}
    args = ("why", "//py:tool", "//py:mypkg", "--graph", str(src))
    cold = _slim(*args, "--no-cache", env=env)
    _slim("report", "//py:tool", "--graph", str(src), env=env)  # writes the whole-graph entry
    assert (tmp_path / "c" / "graphs" / cache_key([src], None)).is_dir()
    warm = _slim(*args, env=env)
    assert cold.returncode == warm.returncode == 0, cold.stderr + warm.stderr
    assert warm.stdout == cold.stdout
    assert "--deps--> //py:mypkg  (py/BUILD:7)" in warm.stdout
    assert _imported_numpy(cold)
    assert not _imported_numpy(warm)
    none = _slim("why", "//py:mypkg", "//py:tool", "--graph", str(src), env=env)
    assert none.returncode == 1
    assert "//py:mypkg does not depend on //py:tool" in none.stderr
    assert not _imported_numpy(none)


def test_warm_why_with_an_unknown_label_gets_the_full_answer(tmp_path: Path) -> None:
    src = tmp_path / CQUERY.name
    shutil.copy(CQUERY, src)
    env = {**os.environ, "SLIM_CACHE_DIR": str(tmp_path / "c")}
    _slim("report", "//py:tool", "--graph", str(src), env=env)
    got = _slim("why", "//py:tol", "//py:mypkg", "--graph", str(src), env=env)
    assert got.returncode == 2
    assert "target //py:tol is not in the graph (did you mean //py:tool" in got.stderr


class _FellBackError(Exception):
    pass


class _Session:
    """What `why` asks of a session: the view first, `root_ids` when it hands over."""

    def __init__(self, key: str) -> None:
        self.key = key

    def cached_view(self, labels: list[str]):  # type: ignore[no-untyped-def]
        view = open_view(self.key)
        if view is None:
            return None
        try:
            ids = [view.lookup(x) for x in labels]
        except (IndexError, ValueError):
            return None
        return None if None in ids else (view, ids)

    def root_ids(self, labels: list[str]) -> list[int]:
        raise _FellBackError


@pytest.mark.parametrize("name", ["dst.npy", "kind.npy", "indptr.npy", "loc_path_idx.npy"])
def test_values_the_sampled_checks_miss_make_the_view_hand_over(name: str) -> None:
    """Damage inside a column that the entry's sampled checksums do not cover: the view
    answers as before or hands over to the numpy route, never with its own error."""
    from slim.app.why import why

    chain = [(i, i + 1, EdgeKind.DEPS, i + 1) for i in range(N - 1)]
    g = _build(chain, [True] * N)
    _view(g, "hurt")
    labels = (g.labels[0], g.labels[N - 1])
    want = why(_Session("hurt"), *labels, limit=3, all_kinds=False)  # type: ignore[arg-type]
    entry = Path(os.environ["SLIM_CACHE_DIR"]) / "graphs" / "hurt"
    path = entry / name
    data = bytearray(path.read_bytes())
    start = data.index(b"\n") + 1  # past the .npy header
    data[start:] = b"\x7f" * (len(data) - start)
    path.write_bytes(bytes(data))
    # the manifest's record is rewritten: only the values are wrong
    from slim.infra import cache

    outer = json.loads((entry / "manifest.json").read_text())
    body = json.loads(outer["body"])
    body["files"][name] = cache._file_record(path)
    outer["body"] = json.dumps(body)
    outer["blake2b"] = hashlib.blake2b(outer["body"].encode(), digest_size=16).hexdigest()
    (entry / "manifest.json").write_text(json.dumps(outer))
    try:
        got = why(_Session("hurt"), *labels, limit=3, all_kinds=False)  # type: ignore[arg-type]
    except _FellBackError:
        return
    assert got == want


GRAPH_FORMATS = sorted(f for f, s in SAMPLES.items() if find_format(f).evidence == "graph")


@pytest.mark.parametrize("fmt", GRAPH_FORMATS)
def test_view_answers_as_the_graph_on_every_real_sample(fmt: str, tmp_path: Path) -> None:
    """Bazel, Buck2, CMake, ninja and DOT graphs of the real tools, every pair of targets."""
    g = load_sample(fmt, SAMPLES[fmt].make(tmp_path))
    assert isinstance(g, BuildGraph)
    view = _view(g, f"real-{fmt}")
    n = len(g)
    assert n > 1
    for i in range(n):
        assert view.lookup(g.labels[i]) == i
    for a in range(n):
        for c in range(n):
            assert view.edge_kinds(a, c) == g.edge_kinds(a, c)
            assert view.edge_location(a, c) == g.edge_location(a, c)
            for kinds in (BUILD_KINDS, ALL_KINDS):
                assert view.shortest_paths(a, c, kinds, 5) == g.shortest_paths(a, c, kinds, 5)


def test_a_graph_only_why_answers_again_from_its_kept_closure_without_numpy(
    tmp_path: Path,
) -> None:
    sys.path.insert(0, str(Path(__file__).parents[2] / "sample_graphs"))
    import generate_large

    src = tmp_path / "g.ndjson"
    generate_large.generate(src, targets=400, avg_deps=2.7, seed=1)
    env = {**os.environ, "SLIM_CACHE_DIR": str(tmp_path / "c")}
    cfg = tmp_path / "slim.toml"
    cfg.write_text("# nothing\n")
    args = ("why", "--config", str(cfg), "--graph", str(src), "//app/bin0:bin0")
    first = _slim(*args, "//base/hub0:hub0", env=env)
    assert first.returncode in (0, 1), first.stderr
    assert _imported_numpy(first)
    graphs = tmp_path / "c" / "graphs"
    assert any("-closure-" in p.name for p in graphs.iterdir())
    assert not (graphs / cache_key([src], None)).exists()  # no whole-graph entry
    again = _slim(*args, "//base/hub0:hub0", env=env)
    assert again.stdout == first.stdout
    assert again.returncode == first.returncode
    assert not _imported_numpy(again)
    other = _slim(*args, "//base/hub1:hub1", env=env)  # other roots: another closure
    assert other.returncode in (0, 1), other.stderr
    assert _imported_numpy(other)
