from __future__ import annotations

import os
import shutil
from pathlib import Path

from slim.infra.cache import cache_key, load, load_graph_cached
from slim.ingest import load_graph

CQUERY = Path(__file__).parents[1] / "data" / "bazel" / "cquery.jsonproto.json"


def _same(a, b) -> None:  # type: ignore[no-untyped-def]
    assert a.labels == b.labels
    assert a.kinds == b.kinds
    assert a.locations == b.locations
    assert a.srcs == b.srcs
    assert a.attrs == b.attrs
    assert a.edge_src.tolist() == b.edge_src.tolist()
    assert a.edge_dst.tolist() == b.edge_dst.tolist()
    assert a.edge_kind.tolist() == b.edge_kind.tolist()
    assert a.notes == b.notes


def test_second_load_comes_from_cache_and_is_identical(tmp_path: Path) -> None:
    src = tmp_path / "cq.json"
    shutil.copy(CQUERY, src)
    first = load_graph_cached([src], None, use_cache=True)
    cached = load(cache_key([src], None))
    assert cached is not None
    _same(first, cached)
    _same(load_graph([src]), load_graph_cached([src], None, use_cache=True))


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


def test_damaged_entry_is_ignored(tmp_path: Path) -> None:
    src = tmp_path / "cq.json"
    shutil.copy(CQUERY, src)
    load_graph_cached([src], None, use_cache=True)
    key = cache_key([src], None)
    entry = Path(os.environ["SLIM_CACHE_DIR"]) / "graphs" / f"{key}.npz"
    entry.write_bytes(b"not an npz")
    assert load(key) is None
    assert load_graph_cached([src], None, use_cache=True).lookup("//py:tool") is not None


def test_background_save_lands_atomically(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import time

    import slim.infra.cache as cache

    monkeypatch.setattr(cache, "BACKGROUND_SAVE_EDGES", 0)
    src = tmp_path / "cq.json"
    shutil.copy(CQUERY, src)
    g = load_graph_cached([src], None, use_cache=True, background=True)
    key = cache_key([src], None)
    for _ in range(200):
        if load(key) is not None:
            break
        time.sleep(0.05)
    cached = load(key)
    assert cached is not None
    _same(g, cached)
