from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import slim.ingest
from slim.infra.cache import cache_key, load, load_graph_cached, save
from slim.ingest import load_graph
from slim.model.canonical import graph_to_canonical

CQUERY = Path(__file__).parents[1] / "data" / "bazel" / "cquery.jsonproto.json"
STREAMED = Path(__file__).parents[1] / "data" / "bazel" / "query.streamed_jsonproto.ndjson"


def _same(a, b) -> None:  # type: ignore[no-untyped-def]
    assert graph_to_canonical(a) == graph_to_canonical(b)
    assert list(a.labels) == list(b.labels)
    assert list(a.kinds) == list(b.kinds)
    assert dict(a.locations) == dict(b.locations)
    assert dict(a.srcs) == dict(b.srcs)
    assert dict(a.attrs) == dict(b.attrs)
    assert a.edge_src.tolist() == b.edge_src.tolist()
    assert a.edge_dst.tolist() == b.edge_dst.tolist()
    assert a.edge_kind.tolist() == b.edge_kind.tolist()
    assert a.notes == b.notes


def _entry(src: Path) -> Path:
    return Path(os.environ["SLIM_CACHE_DIR"]) / "graphs" / cache_key([src], None)


@pytest.mark.parametrize("sample", [CQUERY, STREAMED])
def test_second_load_comes_from_cache_and_is_identical(tmp_path: Path, sample: Path) -> None:
    src = tmp_path / sample.name
    shutil.copy(sample, src)
    first = load_graph_cached([src], None, use_cache=True)
    cached = load(cache_key([src], None))
    assert cached is not None
    assert isinstance(cached.edge_dst.base, np.memmap)  # mapped, not read
    _same(first, cached)
    _same(load_graph([src]), load_graph_cached([src], None, use_cache=True))
    for lab in first.labels:
        assert cached.lookup(lab) == first.lookup(lab)
    assert cached.lookup("//no/such:target") is None


def test_edited_input_invalidates_the_entry(tmp_path: Path) -> None:
    src = tmp_path / "cq.json"
    shutil.copy(CQUERY, src)
    k1 = cache_key([src], None)
    load_graph_cached([src], None, use_cache=True)
    text = src.read_text().replace('"//py:mypkg"', '"//py:mypkg2"')
    src.write_text(text)
    st = src.stat()
    os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert cache_key([src], None) != k1
    g = load_graph_cached([src], None, use_cache=True)
    assert g.lookup("//py:mypkg2") is not None


def test_same_size_edit_with_restored_mtime_is_seen(tmp_path: Path) -> None:
    """The key hashes content: an edit that keeps the size and the mtime is a new key."""
    src = tmp_path / "cq.json"
    shutil.copy(CQUERY, src)
    st = src.stat()
    k1 = cache_key([src], None)
    load_graph_cached([src], None, use_cache=True)
    src.write_text(src.read_text().replace('"//py:mypkg"', '"//py:mypkX"'))
    os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert src.stat().st_size == st.st_size
    assert src.stat().st_mtime_ns == st.st_mtime_ns
    assert cache_key([src], None) != k1
    g = load_graph_cached([src], None, use_cache=True)
    assert g.lookup("//py:mypkX") is not None
    assert g.lookup("//py:mypkg") is None


def _damage_truncate(entry: Path) -> None:
    f = entry / "dst.npy"
    f.write_bytes(f.read_bytes()[:-4])


def _damage_flip(entry: Path) -> None:
    f = entry / "label_blob.npy"
    data = bytearray(f.read_bytes())
    data[-2] ^= 0x20
    f.write_bytes(bytes(data))


def _damage_empty(entry: Path) -> None:
    (entry / "manifest.json").write_bytes(b"")


def _damage_inconsistent(entry: Path) -> None:
    """Arrays rewritten with valid files and a matching manifest, but shapes that do not
    fit together (an edge array one entry short)."""
    _rewrite(entry, "dst", np.load(entry / "dst.npy")[:-1])


def _damage_order(entry: Path) -> None:
    """A sources order (which value each sorted id takes) that points past the values."""
    m = len(np.load(entry / "srcs_ids.npy"))
    _rewrite(entry, "srcs_order", np.full(m, m, dtype=np.int64))


def _rewrite(entry: Path, name: str, array: np.ndarray) -> None:  # type: ignore[type-arg]
    """`name` of the entry replaced by `array`, the manifest updated to match."""
    import json

    from slim.infra.cache import _file_record

    np.save(entry / f"{name}.npy", array)
    outer = json.loads((entry / "manifest.json").read_text())
    body = json.loads(outer["body"])
    body["files"][f"{name}.npy"] = _file_record(entry / f"{name}.npy")
    import hashlib

    text = json.dumps(body)
    digest = hashlib.blake2b(text.encode(), digest_size=16).hexdigest()
    (entry / "manifest.json").write_text(json.dumps({"body": text, "blake2b": digest}))


@pytest.mark.parametrize(
    "damage",
    [_damage_truncate, _damage_flip, _damage_empty, _damage_inconsistent, _damage_order],
)
def test_damaged_entry_is_discarded_with_a_note_and_rebuilt(
    tmp_path: Path, damage, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "cq.json"
    shutil.copy(CQUERY, src)
    load_graph_cached([src], None, use_cache=True)
    good = load_graph([src])  # the cached graph maps the files about to be damaged
    entry = _entry(src)
    damage(entry)
    capsys.readouterr()
    assert load(cache_key([src], None)) is None
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "discarded the damaged cache entry" in err
    assert not entry.exists()
    _same(load_graph_cached([src], None, use_cache=True), good)
    assert load(cache_key([src], None)) is not None  # rebuilt


def test_damaged_entry_cli_exits_normally(tmp_path: Path) -> None:
    src = tmp_path / "cq.json"
    shutil.copy(CQUERY, src)
    env = {**os.environ, "SLIM_CACHE_DIR": str(tmp_path / "c")}
    cmd = [sys.executable, "-m", "slim", "why", "//py:tool", "//py:mypkg", "--graph", str(src)]
    first = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    (entry,) = [p for p in (tmp_path / "c" / "graphs").iterdir() if p.is_dir()]
    _damage_truncate(entry)
    again = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert again.stdout == first.stdout
    assert "discarded the damaged cache entry" in again.stderr


def test_stale_temporaries_of_dead_writers_are_removed(tmp_path: Path) -> None:
    src = tmp_path / "cq.json"
    shutil.copy(CQUERY, src)
    graphs = Path(os.environ["SLIM_CACHE_DIR"]) / "graphs"
    graphs.mkdir(parents=True, exist_ok=True)
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    ).stdout.strip()
    key = cache_key([src], None)
    own = graphs / f".tmp-{key}-{dead}"
    other = graphs / f".tmp-{'0' * 32}-{dead}"
    alive = graphs / f".tmp-{'1' * 32}-{os.getpid()}"
    old = graphs / f".{'2' * 32}.{dead}.tmp"
    for d in (own, other, alive):
        d.mkdir()
        (d / "dst.npy").write_bytes(b"x" * 1024)
    old.write_bytes(b"x")
    load_graph_cached([src], None, use_cache=True)
    assert not own.exists()
    assert not other.exists()
    assert not old.exists()
    assert alive.exists()  # a live writer's directory is left alone


def test_concurrent_cold_loads_parse_once(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "cq.json"
    shutil.copy(CQUERY, src)
    calls = []
    real = slim.ingest.load_graph

    def slow(paths, fmt=None):  # type: ignore[no-untyped-def]
        calls.append(1)
        time.sleep(0.3)
        return real(paths, fmt)

    monkeypatch.setattr(slim.ingest, "load_graph", slow)
    out: list[object] = []
    threads = [
        threading.Thread(target=lambda: out.append(load_graph_cached([src], None, use_cache=True)))
        for _ in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1
    assert len(out) == 2
    _same(out[0], out[1])  # type: ignore[arg-type]


def test_no_process_outlives_the_command(tmp_path: Path) -> None:
    """The entry is complete when the command exits (no background writer)."""
    src = tmp_path / "cq.json"
    shutil.copy(CQUERY, src)
    env = {**os.environ, "SLIM_CACHE_DIR": str(tmp_path / "c")}
    r = subprocess.run(
        [sys.executable, "-m", "slim", "why", "//py:tool", "//py:mypkg", "--graph", str(src)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    os.environ["SLIM_CACHE_DIR"], before = str(tmp_path / "c"), os.environ["SLIM_CACHE_DIR"]
    try:
        assert load(cache_key([src], None)) is not None
    finally:
        os.environ["SLIM_CACHE_DIR"] = before


def test_save_is_atomic_when_writing_fails(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    src = tmp_path / "cq.json"
    shutil.copy(CQUERY, src)
    g = load_graph([src])
    key = cache_key([src], None)

    def boom(*a, **k):  # type: ignore[no-untyped-def]
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "save", boom)
    with pytest.raises(OSError):
        save(g, key)
    graphs = Path(os.environ["SLIM_CACHE_DIR"]) / "graphs"
    assert not (graphs / key).exists()
    assert not list(graphs.glob(".tmp-*"))


def _entries() -> set[str]:
    graphs = Path(os.environ["SLIM_CACHE_DIR"]) / "graphs"
    return {p.name for p in graphs.iterdir() if not p.name.startswith(".")}


def test_a_rewritten_export_leaves_one_entry_and_one_lock(tmp_path: Path) -> None:
    """The entry of the export's older content, and its lock file, go when the new one is
    written; another export's entry stays."""
    src, other = tmp_path / "cq.json", tmp_path / "other.json"
    shutil.copy(CQUERY, src)
    shutil.copy(CQUERY, other)
    load_graph_cached([other], None, use_cache=True)
    k1 = cache_key([src], None)
    load_graph_cached([src], None, use_cache=True)
    src.write_text(src.read_text().replace('"//py:mypkg"', '"//py:mypkg2"'))
    k2 = cache_key([src], None)
    assert k2 != k1
    load_graph_cached([src], None, use_cache=True)
    ko = cache_key([other], None)
    assert _entries() == {k2, f"{k2}.lock", ko, f"{ko}.lock"}


def test_entries_of_another_slim_are_evicted(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """An entry written by another code stamp (an edited or upgraded slim) is removed when
    this one writes, with its lock; an entry whose lock is held is left for later."""
    import fcntl

    import slim.infra.cache as cache

    a, b = tmp_path / "a.json", tmp_path / "b.json"
    shutil.copy(CQUERY, a)
    shutil.copy(CQUERY, b)
    with monkeypatch.context() as m:
        m.setattr(cache, "_code_stamp", lambda: "older slim")
        old_a, old_b = cache_key([a], None), cache_key([b], None)
        load_graph_cached([a], None, use_cache=True)
        load_graph_cached([b], None, use_cache=True)
    graphs = Path(os.environ["SLIM_CACHE_DIR"]) / "graphs"
    held = os.open(graphs / f"{old_b}.lock", os.O_RDWR)
    fcntl.flock(held, fcntl.LOCK_EX)
    try:
        load_graph_cached([a], None, use_cache=True)
    finally:
        os.close(held)
    new_a = cache_key([a], None)
    assert _entries() == {new_a, f"{new_a}.lock", old_b, f"{old_b}.lock"}
    assert old_a not in _entries()


def test_the_code_stamp_covers_readers_model_and_the_entry_layout() -> None:
    """Editing a reader, the model or the cache's own layout gives other keys."""
    from slim.infra.cache import _code_files

    names = {p.relative_to(Path(slim.ingest.__file__).parents[1]).as_posix() for p in _code_files()}
    for want in (
        "ingest/graph/bazel_jsonproto.py",
        "ingest/graph/bazel_closure.py",
        "model/graph.py",
        "model/columns.py",
        "infra/graph_store.py",
        "infra/cache.py",
    ):
        assert want in names


def test_a_graph_without_locations_is_served_from_its_entry(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from slim.model.graph import EdgeKind, GraphBuilder

    b = GraphBuilder()
    a, c = b.add_target("//a:a", "cc_binary"), b.add_target("//c:c", "cc_library")
    b.add_edge(a, c, EdgeKind.DEPS)
    save(b.build(), "no-locations")
    got = load("no-locations")
    assert got is not None
    assert got.shortest_paths(a, c) == [[a, c]]
    assert dict(got.locations) == {}
    assert "discarded" not in capsys.readouterr().err


def test_a_cmake_reply_is_stamped_by_its_files(tmp_path: Path) -> None:
    """A reply's key follows its files (names, sizes, mtimes; the index and codemodel by
    content too), without reading every target file."""
    reply = tmp_path / "reply"
    shutil.copytree(Path(__file__).parents[1] / "data" / "cmake" / "cmake-4.4.5" / "reply", reply)
    first = cache_key([reply], None)
    assert cache_key([reply], None) == first
    target = next(reply.glob("target-app-*.json"))
    target.write_text(target.read_text().replace('"app"', '"app2"', 1))
    edited = cache_key([reply], None)
    assert edited != first
    codemodel = next(reply.glob("codemodel-v2-*.json"))
    st = codemodel.stat()
    text = codemodel.read_text()
    codemodel.write_text(text.replace('"Debug"', '"Dbg_x"', 1))  # same size
    os.utime(codemodel, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert cache_key([reply], None) != edited
    (reply / "target-extra-Debug-0000.json").write_text("{}")
    assert cache_key([reply], None) not in (first, edited)


def test_the_parsing_query_goes_on_from_the_entry_it_wrote(tmp_path: Path) -> None:
    """The first query parses, writes the entry, then answers from that entry (mapped
    arrays, the label column's hash index), as every later query does: same graph."""
    src = tmp_path / STREAMED.name
    shutil.copy(STREAMED, src)
    first = load_graph_cached([src], None, use_cache=True)
    assert isinstance(first.edge_dst.base, np.memmap)
    assert hasattr(first.labels, "find")
    _same(first, load_graph([src]))
    for lab in load_graph([src]).labels:
        assert first.lookup(lab) == load_graph([src]).lookup(lab)


def test_the_parsed_graph_is_answered_when_its_entry_cannot_be_read_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import slim.infra.cache as cache

    src = tmp_path / STREAMED.name
    shutil.copy(STREAMED, src)
    monkeypatch.setattr(cache, "load", lambda key: None)
    graph = load_graph_cached([src], None, use_cache=True)
    assert not isinstance(graph.edge_dst.base, np.memmap)
    _same(graph, load_graph([src]))
