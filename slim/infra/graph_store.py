"""A `BuildGraph` as named numpy arrays plus a msgpack blob, and back (the cache's layout).

`unpack` checks every shape and the CSR invariants before it builds the graph over the
(memory-mapped) arrays, so a damaged entry is refused instead of trusted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from slim.model.columns import (
    SEP,
    CodeColumn,
    EdgeLocationColumn,
    LabelColumn,
    LocationColumn,
    MsgpackColumn,
    StringsColumn,
    TextColumn,
)
from slim.model.graph import BuildGraph

if TYPE_CHECKING:
    from numpy.typing import NDArray


class BadShapeError(ValueError):
    """The arrays of an entry do not fit together."""


def pack(graph: BuildGraph) -> tuple[dict[str, NDArray[Any]], bytes]:
    """The arrays (forward and reverse CSR, columns) and the msgpack metadata of `graph`."""
    import msgspec

    kind_table, kind_codes = CodeColumn.pack(graph.kinds)
    locs = LocationColumn.pack(graph.locations)
    order, rptr = graph.reverse_csr()
    big = graph.edge_count >= 2**31
    arrays: dict[str, NDArray[Any]] = {
        "src": np.asarray(graph.edge_src, dtype=np.int32),
        "dst": np.asarray(graph.edge_dst, dtype=np.int32),
        "kind": np.asarray(graph.edge_kind, dtype=np.int8),
        "indptr": np.asarray(graph.indptr, dtype=np.int64),
        "rorder": np.asarray(order, dtype=np.int64 if big else np.int32),
        "rptr": np.asarray(rptr, dtype=np.int64),
        "kinds": kind_codes,
    }
    arrays.update({f"label_{k}": v for k, v in LabelColumn.pack(graph.labels).items()})
    arrays.update({f"loc_{k}": v for k, v in locs.items() if k != "paths"})  # type: ignore[misc]
    paths = str(locs["paths"])
    arrays.update(
        {f"locpath_{k}": v for k, v in TextColumn.pack(paths.split(SEP) if paths else []).items()}
    )
    arrays.update({f"srcs_{k}": v for k, v in StringsColumn.pack(graph.srcs).items()})  # type: ignore[misc]
    arrays.update({f"tags_{k}": v for k, v in StringsColumn.pack(graph.tags).items()})  # type: ignore[misc]
    attrs = {k: v for k, v in graph.attrs.items() if v}
    arrays.update({f"attrs_{k}": v for k, v in MsgpackColumn.pack(attrs).items()})
    elocs = EdgeLocationColumn.pack(graph.edge_locations, len(graph.labels))
    arrays.update({f"eloc_{k}": v for k, v in elocs.items()})
    arrays = {k: _narrow(v) for k, v in arrays.items()}
    meta = {
        "kind_table": kind_table,
        "configurations": {str(k): list(v) for k, v in graph.configurations.items()},
        "artifacts": graph.artifacts,
        "formats": list(graph.formats),
        "flags_unseen": list(graph.flags_unseen),
        "notes": list(graph.notes),
        "data_files": {str(k): list(v) for k, v in graph.data_files.items()},
        "closure_of": list(graph.closure_of),
    }
    return arrays, msgspec.msgpack.encode(meta)


def _narrow(a: NDArray[Any]) -> NDArray[Any]:
    """An int64 column as int32 when its values fit: a query maps half the pages."""
    if a.dtype != np.int64 or not len(a):
        return a
    if int(a.min()) >= -(2**31) and int(a.max()) < 2**31:
        return a.astype(np.int32)
    return a


def _need(ok: bool, what: str) -> None:
    if not ok:
        raise BadShapeError(what)


def _check_ptr(ptr: NDArray[Any], n: int, total: int, what: str) -> None:
    _need(ptr.ndim == 1 and len(ptr) == n + 1, f"{what} has {len(ptr)} entries, expected {n + 1}")
    _need(n < 0 or (int(ptr[0]) == 0 and int(ptr[-1]) == total), f"{what} does not span {total}")


def _check(a: dict[str, NDArray[Any]], n: int, e: int, table: list[str]) -> None:
    """Shapes and end-points: every array where its neighbours say it ends."""
    for name in ("src", "dst", "kind", "rorder"):
        _need(a[name].shape == (e,), f"{name} has shape {a[name].shape}, expected ({e},)")
    _check_ptr(a["indptr"], n, e, "indptr")
    _check_ptr(a["rptr"], n, e, "rptr")
    _check_ptr(a["label_offsets"], n, len(a["label_blob"]), "label offsets")
    for name in ("label_hashes", "label_order", "kinds"):
        _need(a[name].shape == (n,), f"{name} has shape {a[name].shape}, expected ({n},)")
    _need(n == 0 or 0 <= int(a["kinds"].max()) < len(table), "kind codes out of the table")
    for col in ("srcs", "tags", "attrs"):
        m = len(a[f"{col}_ids"])
        _check_ptr(a[f"{col}_bounds"], m, len(a[f"{col}_blob"]), f"{col} bounds")
        _need(m == 0 or (int(a[f"{col}_ids"][-1]) < n), f"{col} ids out of range")
    for col in ("srcs", "tags"):
        order, m = a[f"{col}_order"], len(a[f"{col}_ids"])
        _need(order.shape in ((0,), (m,)), f"{col} order has shape {order.shape}")
        _need(not len(order) or 0 <= int(order.min()) <= int(order.max()) < m, f"{col} order")
    m = len(a["loc_ids"])
    for name in ("loc_path_idx", "loc_lines"):
        _need(a[name].shape == (m,), f"{name} does not match loc_ids")
    _need(m == 0 or int(a["loc_ids"][-1]) < n, "location ids out of range")
    paths = len(a["locpath_offsets"]) - 1
    _check_ptr(a["locpath_offsets"], paths, len(a["locpath_blob"]), "location path offsets")
    m = len(a["eloc_keys"])
    for name in ("eloc_path_idx", "eloc_lines", "eloc_offsets"):
        _need(a[name].shape == (m,), f"{name} does not match eloc_keys")
    paths = len(a["eloc_path_offsets"]) - 1
    _check_ptr(a["eloc_path_offsets"], paths, len(a["eloc_path_blob"]), "edge location paths")


def unpack(a: dict[str, NDArray[Any]], blob: bytes, n: int, e: int) -> BuildGraph:
    """The graph over the arrays `a` (memory-mapped or not) and the metadata `blob`."""
    import msgspec

    try:
        meta = msgspec.msgpack.decode(blob)
    except msgspec.DecodeError as exc:
        raise BadShapeError(f"metadata: {exc}") from None
    table = list(meta["kind_table"])
    _check(a, n, e, table)
    locations = LocationColumn(
        a["loc_ids"],
        a["loc_path_idx"],
        a["loc_lines"],
        TextColumn(a["locpath_blob"], a["locpath_offsets"]),
    )
    g = BuildGraph(
        labels=LabelColumn(
            a["label_blob"], a["label_offsets"], a["label_hashes"], a["label_order"]
        ),
        kinds=CodeColumn(table, a["kinds"]),
        locations=locations,
        srcs=StringsColumn(a["srcs_ids"], a["srcs_bounds"], a["srcs_blob"], a["srcs_order"]),
        tags=StringsColumn(a["tags_ids"], a["tags_bounds"], a["tags_blob"], a["tags_order"]),
        attrs=MsgpackColumn(a["attrs_ids"], a["attrs_bounds"], a["attrs_blob"]),
        configurations={int(k): tuple(v) for k, v in meta["configurations"].items()},
        edge_src=a["src"],
        edge_dst=a["dst"],
        edge_kind=a["kind"],
        edge_locations=EdgeLocationColumn(
            n,
            a["eloc_keys"],
            a["eloc_path_idx"],
            a["eloc_lines"],
            a["eloc_offsets"],
            TextColumn(a["eloc_path_blob"], a["eloc_path_offsets"]),
        ),
        artifacts=dict(meta["artifacts"]),
        formats=tuple(meta["formats"]),
        flags_unseen=tuple(meta["flags_unseen"]),
        notes=tuple(meta["notes"]),
        indptr=a["indptr"],
        data_files={int(k): tuple(v) for k, v in meta.get("data_files", {}).items()},
    )
    g.set_reverse(a["rorder"], a["rptr"])
    g.closure_of = tuple(meta.get("closure_of", ()))
    return g
