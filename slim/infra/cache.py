"""Parsed-graph cache: a second query on the same export loads arrays, not JSON.

Keyed by each input's resolved path, size and mtime plus slim's version and the format
requested, so an edited export is re-read. Entries are numpy arrays plus a msgpack blob
(no pickle: a cache file is data, never code).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from slim import __version__
from slim.model.graph import BuildGraph, Location

_FORMAT_VERSION = "3"


def cache_dir() -> Path:
    base = os.environ.get("SLIM_CACHE_DIR")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return Path(xdg) / "slim" if xdg else Path.home() / ".cache" / "slim"


def _code_stamp() -> str:
    """The readers' and the model's source stamps: an upgraded slim never reads a stale entry."""
    here = Path(__file__).parent
    files = sorted([*(here / "ingest").glob("*.py"), *(here / "model").glob("*.py")])
    return ",".join(f"{f.name}:{f.stat().st_mtime_ns}:{f.stat().st_size}" for f in files)


def cache_key(paths: Sequence[Path], fmt: str | None) -> str:
    h = hashlib.sha256(f"{_FORMAT_VERSION}|{__version__}|{fmt}|{_code_stamp()}".encode())
    for p in paths:
        rp = p.resolve()
        st = rp.stat()
        stamp = st.st_mtime_ns
        if rp.is_dir():
            stamp = max([stamp] + [c.stat().st_mtime_ns for c in rp.rglob("*")])
        h.update(f"|{rp}|{st.st_size}|{stamp}".encode())
    return h.hexdigest()[:32]


def _loc(loc: Location) -> list[object]:
    return [loc.path, loc.line, loc.offset]


def save(graph: BuildGraph, key: str) -> None:
    """Columns as numpy arrays (labels and strings as one blob each), the rest msgpack."""
    import msgspec

    from slim.model.columns import SEP, LocationColumn, StringsColumn

    kind_table = sorted(set(graph.kinds))
    kind_pos = {k: i for i, k in enumerate(kind_table)}
    locs = LocationColumn.pack(graph.locations)
    srcs = StringsColumn.pack(graph.srcs)
    tags = StringsColumn.pack(graph.tags)
    data_files = StringsColumn.pack(graph.data_files)
    meta: dict[str, Any] = {
        "kind_table": kind_table,
        "location_paths": locs["paths"],
        "attrs": graph.attrs,
        "configurations": graph.configurations,
        "edge_locations": [[a, b, *_loc(loc)] for (a, b), loc in graph.edge_locations.items()],
        "artifacts": graph.artifacts,
        "formats": graph.formats,
        "notes": graph.notes,
    }
    arrays: dict[str, Any] = {
        "src": graph.edge_src,
        "indptr": graph.indptr,
        "dst": graph.edge_dst,
        "kind": graph.edge_kind,
        "labels": np.frombuffer(SEP.join(graph.labels).encode(), dtype=np.uint8),
        "kinds": np.array([kind_pos[k] for k in graph.kinds], dtype=np.int32),
        "meta": np.frombuffer(msgspec.msgpack.encode(meta), dtype=np.uint8),
    }
    arrays.update({f"loc_{k}": v for k, v in locs.items() if k != "paths"})
    arrays.update({f"srcs_{k}": v for k, v in srcs.items()})
    arrays.update({f"tags_{k}": v for k, v in tags.items()})
    arrays.update({f"data_{k}": v for k, v in data_files.items()})
    d = cache_dir() / "graphs"
    d.mkdir(parents=True, exist_ok=True)
    tmp = d / f".{key}.{os.getpid()}.tmp"
    with tmp.open("wb") as f:
        np.savez(f, **arrays)
    os.replace(tmp, d / f"{key}.npz")


def _tuple(v: object) -> object:
    return tuple(v) if isinstance(v, list) else v


def load(key: str) -> BuildGraph | None:
    """The cached graph for `key`, or None (a damaged entry is ignored and rebuilt)."""
    import msgspec

    from slim.model.columns import SEP, LocationColumn, StringsColumn

    path = cache_dir() / "graphs" / f"{key}.npz"
    if not path.exists():
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = msgspec.msgpack.decode(z["meta"].tobytes())
            cols = {name: z[name] for name in z.files}
        text = cols["labels"].tobytes().decode()
        labels = text.split(SEP) if text else []
        table = meta["kind_table"]
        kinds = [table[i] for i in cols["kinds"].tolist()]
        sub = {k[4:]: v for k, v in cols.items() if k.startswith("loc_")}
        locations = LocationColumn.unpack({**sub, "paths": meta["location_paths"]})
        srcs = StringsColumn.unpack({k[5:]: v for k, v in cols.items() if k.startswith("srcs_")})
        tags = StringsColumn.unpack({k[5:]: v for k, v in cols.items() if k.startswith("tags_")})
        data = StringsColumn.unpack({k[5:]: v for k, v in cols.items() if k.startswith("data_")})
        return BuildGraph(
            labels=labels,
            kinds=kinds,
            locations=locations,
            srcs=srcs,
            tags=tags,
            attrs={k: {a: _tuple(x) for a, x in v.items()} for k, v in meta["attrs"].items()},  # type: ignore[misc]
            configurations={k: tuple(v) for k, v in meta["configurations"].items()},
            edge_src=cols["src"],
            edge_dst=cols["dst"],
            edge_kind=cols["kind"],
            edge_locations={(e[0], e[1]): Location(*e[2:]) for e in meta["edge_locations"]},
            artifacts=meta["artifacts"],
            formats=tuple(meta["formats"]),
            notes=tuple(meta["notes"]),
            indptr=cols["indptr"],
            data_files=data,
        )
    except (
        OSError,
        ValueError,
        KeyError,
        TypeError,
        IndexError,
        UnicodeDecodeError,
        msgspec.DecodeError,
    ):
        return None


#: Graphs this large are written to the cache by a forked child while the parent goes on.
BACKGROUND_SAVE_EDGES = 2_000_000


def load_graph_cached(
    paths: Sequence[Path], fmt: str | None, *, use_cache: bool, background: bool = False
) -> BuildGraph:
    """Load graph exports, through the cache when `use_cache`.

    With `background`, a large graph is saved by a forked child (the entry appears
    atomically when it is complete), so the first query does not wait for the write.
    """
    from slim.ingest import load_graph

    if not use_cache:
        return load_graph(paths, fmt)
    key = cache_key(paths, fmt)
    graph = load(key)
    if graph is None:
        graph = load_graph(paths, fmt)
        if background and graph.edge_count >= BACKGROUND_SAVE_EDGES and hasattr(os, "fork"):
            _save_in_child(graph, key)
        else:
            with contextlib.suppress(OSError):
                save(graph, key)
    return graph


def _save_in_child(graph: BuildGraph, key: str) -> None:
    try:
        pid = os.fork()
    except OSError:
        with contextlib.suppress(OSError):
            save(graph, key)
        return
    if pid == 0:  # pragma: no cover - the child, measured by the benchmark
        code = 0
        try:
            os.setsid()
            save(graph, key)
        except BaseException:  # noqa: BLE001 - a cache write must never surface
            code = 1
        finally:
            os._exit(code)
