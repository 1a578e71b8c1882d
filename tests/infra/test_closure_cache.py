"""The kept closure graph of a graph-only query: the next query on the same roots maps it
and answers byte for byte as the cold one did; an edited export is never served from it;
an export keeps a bounded number of them; a damaged one is discarded and rebuilt."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from slim.app.report import render
from slim.app.session import Request, Session
from slim.infra import cache
from slim.infra.config import Config
from slim.ingest.graph import buck2_scan
from slim.model.canonical import graph_to_canonical
from tests.infra.test_cache import (
    _damage_empty,
    _damage_flip,
    _damage_inconsistent,
    _damage_truncate,
)

REPO = Path(__file__).parents[2]
BUCK2 = REPO / "tests" / "data" / "buck2"
sys.path.insert(0, str(REPO / "sample_graphs"))
import generate_large  # noqa: E402


def _graphs() -> Path:
    return Path(os.environ["SLIM_CACHE_DIR"]) / "graphs"


def _closures() -> list[Path]:
    return sorted(p for p in _graphs().glob("*-closure-*") if p.is_dir())


def _report(path: Path, label: str, *, use_cache: bool = True) -> str:
    s = Session(Request(graphs=(path,), use_cache=use_cache), config=Config())
    rep = s.report(s.select_roots([label]))
    assert s.graph.closure_of
    return render(rep, "json")


def _no_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("the closure was decoded again")

    monkeypatch.setattr(cache, "_read_closure", refuse)


@pytest.fixture
def buck2(tmp_path: Path) -> Path:
    path = tmp_path / "g.json"
    generate_large.generate(path, targets=400, avg_deps=2.7, seed=3, fmt="buck2")
    return path


def _answered_roots(path: Path) -> list[str]:
    """The rule targets of a Buck2 export whose closure the member route reads."""
    from slim.ingest import load_graph

    full = load_graph([path])
    labels = [lab for lab, kind in zip(full.labels, full.kinds, strict=True) if kind]
    return [lab for lab in labels if buck2_scan.load_closure(path, [lab]) is not None]


@pytest.mark.parametrize("name", ["cquery_attributes.json", "uquery_select.json"])
def test_kept_closure_of_a_golden_buck2_export_reports_byte_identically(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / name
    shutil.copy(BUCK2 / name, path)
    roots = _answered_roots(path)
    assert roots
    cold = {root: _report(path, root) for root in roots}
    assert len(_closures()) == min(len(roots), cache.CLOSURES_KEPT)
    with monkeypatch.context() as m:
        _no_decoding(m)
        for root in roots[-cache.CLOSURES_KEPT :]:
            assert _report(path, root) == cold[root], root
    for root in roots:
        assert cold[root] == _report(path, root, use_cache=False), root


@pytest.mark.parametrize("name", ["multi_query_universe.json", "cquery_labels.json"])
def test_a_declined_closure_keeps_no_closure_entry(name: str, tmp_path: Path) -> None:
    """The member route declines these exports (label arrays, several queries): the
    whole graph is parsed and cached, and answers the next query the same."""
    from slim.ingest import load_graph

    path = tmp_path / name
    shutil.copy(BUCK2 / name, path)
    root = load_graph([path]).labels[0]

    def report() -> str:
        s = Session(Request(graphs=(path,), use_cache=True), config=Config())
        rep = s.report(s.select_roots([root]))
        assert not s.graph.closure_of
        return render(rep, "json")

    first = report()
    assert not _closures()
    assert report() == first
    assert not _closures()


def test_kept_closure_round_trips_the_closure_graph(buck2: Path) -> None:
    fmt = buck2_scan.FORMAT
    cold = cache.load_closure_graph(buck2, fmt, ["root//app/bin0:bin0"], use_cache=True)
    warm = cache.load_closure_graph(buck2, fmt, ["root//app/bin0:bin0"], use_cache=True)
    assert cold is not None
    assert warm is not None
    assert warm.closure_of == cold.closure_of == ("root//app/bin0:bin0",)
    assert graph_to_canonical(warm) == graph_to_canonical(cold)
    assert list(warm.labels) == list(cold.labels)
    assert dict(warm.locations) == dict(cold.locations)
    assert dict(warm.attrs) == dict(cold.attrs)
    assert (warm.formats, warm.notes) == (cold.formats, cold.notes)
    assert warm.edge_src.tolist() == cold.edge_src.tolist()


def test_the_cli_answers_a_warm_query_from_the_kept_closure(buck2: Path, tmp_path: Path) -> None:
    """Cold and warm `slim report` print the same bytes; the warm one reads no member."""
    config = tmp_path / "slim.toml"
    config.write_text("# none\n")
    env = {**os.environ, "SLIM_CACHE_DIR": str(tmp_path / "c")}
    cmd = [sys.executable, "-m", "slim", "report", "--config", str(config), "--graph"]
    cmd += [str(buck2), "root//app/bin0:bin0", "--format", "json"]
    cold = subprocess.run(cmd, capture_output=True, env=env, cwd=tmp_path, check=True)
    members = next((tmp_path / "c" / "graphs").glob("*-members"))
    shutil.rmtree(members)  # a warm query that needed the member index would scan again
    warm = subprocess.run(cmd, capture_output=True, env=env, cwd=tmp_path, check=True)
    assert warm.stdout == cold.stdout
    assert warm.stderr == cold.stderr == b""
    assert not list((tmp_path / "c" / "graphs").glob("*-members"))


def test_bazel_closure_is_kept_through_the_same_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "g.ndjson"
    generate_large.generate(path, targets=400, avg_deps=2.7, seed=3)
    cold = _report(path, "//app/bin0:bin0")
    assert len(_closures()) == 1
    _no_decoding(monkeypatch)
    assert _report(path, "//app/bin0:bin0") == cold


def test_an_edited_export_is_not_served_from_its_old_closure(buck2: Path) -> None:
    fmt = buck2_scan.FORMAT
    root = ["root//app/bin0:bin0"]
    before = cache.load_closure_graph(buck2, fmt, root, use_cache=True)
    assert before is not None
    (old,) = _closures()
    dep = next(lab for lab in before.labels if lab.startswith("root//lib/"))
    text = buck2.read_text()
    buck2.write_text(text.replace(f'"{dep}"', f'"{dep}x"'))
    st = buck2.stat()
    os.utime(buck2, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    after = cache.load_closure_graph(buck2, fmt, root, use_cache=True)
    assert after is not None
    assert after.lookup(f"{dep}x") is not None
    assert after.lookup(dep) is None
    assert [p.name for p in _closures()] != [old.name]  # the old content's entry went
    assert len(_closures()) == 1


def test_an_export_keeps_its_most_recently_used_closures(
    buck2: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past `CLOSURES_KEPT`, writing a closure evicts the least recently used one (a hit
    counts as a use), with its lock; another export's closures are not counted."""
    monkeypatch.setattr(cache, "CLOSURES_KEPT", 3)
    fmt = buck2_scan.FORMAT
    other = buck2.with_name("other.json")
    shutil.copy(buck2, other)
    roots = _answered_roots(buck2)[:5]
    assert cache.load_closure_graph(other, fmt, roots[:1], use_cache=True)
    source = cache.cache_key([buck2], fmt)
    keys = [cache.closure_key(source, [r]) for r in roots]

    def query(i: int) -> None:
        assert cache.load_closure_graph(buck2, fmt, [roots[i]], use_cache=True) is not None

    def mine() -> set[str]:
        return {p.name for p in _closures() if p.name.startswith(source)}

    past = 1_000_000_000 * 1_000_000_000  # 2001: any use now is later
    for i in range(3):
        query(i)
        os.utime(_graphs() / keys[i] / "manifest.json", ns=(past + i, past + i))
    with monkeypatch.context() as m:
        _no_decoding(m)
        query(0)  # a hit
    query(3)
    assert mine() == {keys[0], keys[2], keys[3]}  # roots[1] was the least recently used
    assert not (_graphs() / f"{keys[1]}.lock").exists()
    query(4)
    assert mine() == {keys[0], keys[3], keys[4]}
    assert len(_closures()) == 4  # the other export's one stays


def _damage_other_closure(entry: Path) -> None:
    """A sound entry, but of other roots (copied over this key)."""
    fmt = buck2_scan.FORMAT
    path = Path(os.environ["SLIM_TEST_EXPORT"])
    assert cache.load_closure_graph(path, fmt, ["root//app/bin1:bin1"], use_cache=True)
    other = cache.closure_key(cache.cache_key([path], fmt), ["root//app/bin1:bin1"])
    shutil.rmtree(entry)
    shutil.copytree(_graphs() / other, entry)


@pytest.mark.parametrize(
    "damage",
    [_damage_truncate, _damage_flip, _damage_empty, _damage_inconsistent, _damage_other_closure],
)
def test_a_damaged_closure_is_discarded_with_a_note_and_rebuilt(
    buck2: Path,
    damage: Callable[[Path], None],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SLIM_TEST_EXPORT", str(buck2))
    fmt = buck2_scan.FORMAT
    root = ["root//app/bin0:bin0"]
    good = cache.load_closure_graph(buck2, fmt, root, use_cache=True)
    assert good is not None
    entry = _graphs() / cache.closure_key(cache.cache_key([buck2], fmt), root)
    damage(entry)
    capsys.readouterr()
    again = cache.load_closure_graph(buck2, fmt, root, use_cache=True)
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"discarded the damaged cache entry {entry}" in err
    assert again is not None
    assert graph_to_canonical(again) == graph_to_canonical(good)
    assert entry.is_dir()  # rebuilt
    with monkeypatch.context() as m:
        _no_decoding(m)
        served = cache.load_closure_graph(buck2, fmt, root, use_cache=True)
    assert served is not None
    assert graph_to_canonical(served) == graph_to_canonical(good)


def test_no_cache_writes_no_closure(buck2: Path) -> None:
    fmt = buck2_scan.FORMAT
    assert cache.load_closure_graph(buck2, fmt, ["root//app/bin0:bin0"], use_cache=False)
    assert not _graphs().exists() or not _closures()


def test_a_closure_is_written_under_its_key_s_lock(buck2: Path) -> None:
    """While another writer holds the closure key's lock, the entry is not written; it is
    once the lock is released."""
    import fcntl
    import threading

    fmt = buck2_scan.FORMAT
    root = ["root//app/bin0:bin0"]
    key = cache.closure_key(cache.cache_key([buck2], fmt), root)
    _graphs().mkdir(parents=True, exist_ok=True)
    held = os.open(_graphs() / f"{key}.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(held, fcntl.LOCK_EX)
    got: list[object] = []
    query = threading.Thread(
        target=lambda: got.append(cache.load_closure_graph(buck2, fmt, root, use_cache=True))
    )
    try:
        query.start()
        query.join(1.0)
        assert query.is_alive()  # waiting on the lock, the closure already read
        assert not (_graphs() / key).exists()
    finally:
        os.close(held)
    query.join()
    assert got[0] is not None
    assert (_graphs() / key).is_dir()
