from __future__ import annotations

import os
import pickle
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest.graph import _parallel
from slim.ingest.graph._parallel import iter_range_batches, load_lines
from slim.model.graph import EdgeKind, GraphBuilder, Location

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "sample_graphs"))
import generate_large


def _handler(b: GraphBuilder, first: int, lines: Sequence[bytes | memoryview], path: str) -> None:
    """`a b` lines make an edge //a:a -> //b:b; `!` is malformed."""
    for k, raw in enumerate(lines):
        line = bytes(raw).strip()
        if not line:
            continue
        if line == b"!":
            raise InputError(path, "two labels", "'!'", line=first + k)
        x, y = line.decode().split()
        b.add_edge(b.add_target(f"//{x}:{x}", "r"), b.add_target(f"//{y}:{y}", "r"), EdgeKind.DEPS)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.text(alphabet="ab\n", max_size=12), max_size=30),
    st.lists(st.integers(0, 400), max_size=6),
)
def test_cuts_at_any_offsets_cover_every_line_once(
    tmp_path_factory: pytest.TempPathFactory, pieces: list[str], offsets: list[int]
) -> None:
    """Cut anywhere (past the end, twice at one place, out of order): each range starts a
    line and every line is read once."""
    path = tmp_path_factory.mktemp("r") / "f.txt"
    data = "".join(pieces).encode()
    path.write_bytes(data)
    cuts = _parallel._cuts(path, [min(o, len(data)) for o in offsets])
    assert _lines_of(path, list(zip(cuts, cuts[1:], strict=False))) == _split(data)


def _lines_of(path: Path, ranges: list[tuple[int, int]]) -> list[bytes]:
    """Every line of `ranges` of `path`, read range by range."""
    got: list[bytes] = []
    for a, b in ranges:
        for _, lines in iter_range_batches(path, a, b):
            got.extend(map(bytes, lines))
    return got


def _split(data: bytes) -> list[bytes]:
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def _write(path: Path, n: int, bad_at: int | None = None) -> None:
    with path.open("w") as f:
        for i in range(n):
            f.write("!\n" if i + 1 == bad_at else f"n{i} n{i + 1}\n")


def test_parallel_equals_serial(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "edges.txt"
    _write(path, 30_000)
    monkeypatch.setattr(_parallel, "MIN_PARALLEL_BYTES", 1)
    monkeypatch.setattr(_parallel, "BATCH_LINES", 97)
    monkeypatch.setattr(_parallel, "RELEASE_BYTES", 4096)
    monkeypatch.setenv("SLIM_WORKERS", "3")
    par = GraphBuilder()
    load_lines(path, par, _handler)
    monkeypatch.setenv("SLIM_WORKERS", "1")
    ser = GraphBuilder()
    load_lines(path, ser, _handler)
    g1, g2 = par.build(), ser.build()
    assert sorted(g1.labels) == sorted(g2.labels)
    e1 = sorted((g1.labels[a], g1.labels[b]) for a, b in zip(g1.edge_src, g1.edge_dst, strict=True))
    e2 = sorted((g2.labels[a], g2.labels[b]) for a, b in zip(g2.edge_src, g2.edge_dst, strict=True))
    assert e1 == e2
    assert len(e1) == 30_000


def _read_in_parallel(monkeypatch: pytest.MonkeyPatch, workers: str) -> None:
    """Any export is read in parallel, by `workers` processes."""
    monkeypatch.setattr(_parallel, "MIN_PARALLEL_BYTES", 1)
    monkeypatch.setenv("SLIM_WORKERS", workers)


def test_error_in_a_later_range_has_the_absolute_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "edges.txt"
    _write(path, 20_000, bad_at=17_345)
    _read_in_parallel(monkeypatch, "2")
    with pytest.raises(InputError) as exc:
        load_lines(path, GraphBuilder(), _handler)
    assert str(exc.value) == f"{path}:17345: expected two labels, found '!'"


def test_a_real_export_parsed_in_parallel_is_the_serial_graph(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Worker results travel compactly (locations as columns, no label index) and are
    merged in bulk: the graph is the serial one (kinds, locations, srcs, tags, attributes,
    typed edges)."""
    from slim.ingest import load_graph
    from slim.model.canonical import graph_to_canonical

    path = tmp_path / "g.ndjson"
    generate_large.generate(path, targets=4000, seed=3, avg_deps=3.0, fmt="bazel")
    monkeypatch.setattr(_parallel, "MIN_PARALLEL_BYTES", 1)
    monkeypatch.setattr(_parallel, "BATCH_LINES", 64)
    monkeypatch.setattr(_parallel, "RELEASE_BYTES", 4096)
    monkeypatch.setenv("SLIM_WORKERS", "1")
    ser = load_graph([path])
    monkeypatch.setenv("SLIM_WORKERS", "3")
    par = load_graph([path])
    assert graph_to_canonical(par) == graph_to_canonical(ser)
    assert sorted(par.labels) == sorted(ser.labels)
    assert {par.labels[i]: loc for i, loc in par.locations.items()} == {
        ser.labels[i]: loc for i, loc in ser.locations.items()
    }
    assert any(loc.line for loc in ser.locations.values())

    b = GraphBuilder()
    b.add_target("//a:a", "cc_library", location=Location("a/BUILD", 3), attrs={"x": True})
    b.set_location_text(b.intern("//c:c"), "c/BUILD:9:2")
    b.set_location(b.intern("//c:c"), Location("c/BIN", offset=12))
    b.add_file("//a:f.cc", generated_by="//a:a")
    b.add_label_edges(b.lookup("//a:a") or 0, ["//b:b", ":f.cc"], EdgeKind.DEPS, "//a")
    b.flush()
    back = pickle.loads(pickle.dumps(b))
    assert graph_to_canonical(back.build()) == graph_to_canonical(b.build())
    assert back.lookup("//b:b") == b.lookup("//b:b")


def test_mapped_lines_are_those_of_a_split(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines read from the mapped file, with its read pages released as it goes, a
    last line without a newline and an empty file."""
    path = tmp_path / "f.txt"
    data = b"".join(b"x" * (k % 5000) + b"\n" for k in range(3000)) + b"tail"
    path.write_bytes(data)
    monkeypatch.setattr(_parallel, "RELEASE_BYTES", 4096)
    monkeypatch.setattr(_parallel, "BATCH_LINES", 7)
    got: list[bytes] = []
    firsts: list[int] = []
    for first, lines in iter_range_batches(path, 0, len(data)):
        firsts.append(first)
        got.extend(map(bytes, lines))
    assert got == data.split(b"\n")
    assert firsts == list(range(1, 3002, 7))
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    assert list(iter_range_batches(empty, 0, 0)) == []


def test_a_line_over_the_cap_is_refused_with_its_number(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from slim.ingest import _io

    path = tmp_path / "f.txt"
    path.write_bytes(b"a b\n" * 5 + b"a" * 100 + b"\nb a\n")
    monkeypatch.setattr(_io, "DEFAULT_LIMITS", _io.Limits(max_line_bytes=50))
    monkeypatch.setattr(_parallel, "DEFAULT_LIMITS", _io.Limits(max_line_bytes=50))
    with pytest.raises(InputError) as exc:
        for _ in iter_range_batches(path, 0, path.stat().st_size):
            pass
    assert str(exc.value) == f"{path}:6: expected a line of at most 50 bytes, found a longer line"


def test_a_worker_builder_travels_with_any_label() -> None:
    """Labels go as one string unless one holds a NUL; either way they come back."""
    import pickle

    for labels in (["//a:a", "//b:b"], ["//a:a", "//b:\x00b"], ["//a:a"]):
        b = GraphBuilder()
        for lab in labels:
            b.add_target(lab, "r")
        back = pickle.loads(pickle.dumps(b))
        assert back.labels_since(0) == labels
        assert [back.lookup(x) for x in labels] == list(range(len(labels)))


def test_a_worker_part_travels_without_its_index_and_merges() -> None:
    """A part sent back by a worker has no label index (it is only merged): asking it
    for one fails loudly; merged, it gives the builder's graph."""
    import pickle

    from slim.model.canonical import graph_to_canonical

    b = GraphBuilder()
    b.add_label_edges(
        b.add_target("//a:a", "r", srcs=["//a:a.cc"]), ["//b:b"], EdgeKind.DEPS, "//a"
    )
    whole = graph_to_canonical(b.build())
    part = pickle.loads(pickle.dumps(b.as_part()))
    with pytest.raises(RuntimeError, match="no label index"):
        part.lookup("//a:a")
    into = GraphBuilder()
    into.merge(part)
    assert graph_to_canonical(into.build()) == whole


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet="ab\n", max_size=40), max_size=30), st.integers(2, 4))
def test_the_plan_reads_every_line_once_parent_first(
    tmp_path_factory: pytest.TempPathFactory, pieces: list[str], workers: int
) -> None:
    """The parent's range, then the workers' pieces, in file order and without gaps."""
    path = tmp_path_factory.mktemp("p") / "f.txt"
    data = "".join(pieces).encode()
    path.write_bytes(data)
    mine, theirs = _parallel.plan_ranges(path, workers)
    ranges = [mine, *theirs]
    assert mine[0] == 0
    assert all(a < b for a, b in ranges[1:])
    assert [b for _, b in ranges[:-1]] == [a for a, _ in ranges[1:]]
    assert ranges[-1][1] == len(data)
    assert len(theirs) <= (workers - 1) * _parallel.PIECES
    assert _lines_of(path, ranges) == _split(data)


def test_the_parent_reads_less_than_an_even_share(tmp_path: Path) -> None:
    """It also merges every piece; each worker's share comes back in `PIECES` parts."""
    path = tmp_path / "edges.txt"
    _write(path, 50_000)
    size = path.stat().st_size
    mine, theirs = _parallel.plan_ranges(path, 2)
    assert size * 0.4 < mine[1] < size / 2
    assert len(theirs) == _parallel.PIECES


def test_worker_parts_travel_as_files_that_are_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Parts come back through files in a private scratch folder, gone afterwards, also
    when a later piece has a bad line."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(_parallel, "_scratch_dir", lambda need: str(scratch))
    _read_in_parallel(monkeypatch, "2")
    path = tmp_path / "edges.txt"
    _write(path, 20_000)
    b = GraphBuilder()
    load_lines(path, b, _handler)
    assert len(b.build().edge_src) == 20_000
    assert list(scratch.iterdir()) == []
    _write(path, 20_000, bad_at=19_990)
    with pytest.raises(InputError, match=":19990: expected two labels"):
        load_lines(path, GraphBuilder(), _handler)
    assert list(scratch.iterdir()) == []


def test_parts_taken_piece_by_piece_merge_into_the_serial_graph() -> None:
    """One builder reads three pieces and sends what each added (`take_part`); merged in
    order after the receiver's own range, they give the serial graph: a label named in
    one piece and described in a later one gets its kind, later parts name earlier
    labels and paths by id, and tags, attributes, sources and files come across."""
    from slim.model.canonical import graph_to_canonical

    def piece(b: GraphBuilder, k: int) -> None:
        i = b.add_target(f"//p{k}:t", "cc_library", srcs=[f"//p{k}:t.cc"], tags=[f"tag{k}"])
        b.set_location_text(i, f"p{k}/BUILD:{k + 1}:1")
        b.set_location_text(b.intern("//shared:s"), "shared/BUILD:1:1")
        b.add_label_edges(i, ["//base:b", f"//later:l{k + 1}"], EdgeKind.DEPS, f"//p{k}")
        if k:
            b.add_target(f"//later:l{k}", "py_library", attrs={"testonly": True})
            b.add_file(f"//p{k}:t.cc")

    serial = GraphBuilder()
    for k in range(4):
        piece(serial, k)
    receiver, sender = GraphBuilder(), GraphBuilder()
    piece(receiver, 0)
    earlier = None
    for k in range(1, 4):
        piece(sender, k)
        earlier = receiver.merge(pickle.loads(pickle.dumps(sender.take_part())), earlier)
    assert graph_to_canonical(receiver.build()) == graph_to_canonical(serial.build())
    assert len(earlier.labels) == len(sender)


def test_a_later_part_merged_first_is_refused() -> None:
    sender = GraphBuilder()
    sender.add_target("//a:a", "r")
    first = sender.take_part()
    sender.add_label_edges(0, ["//a:a"], EdgeKind.DEPS, "//b")
    second = sender.take_part()
    with pytest.raises(ValueError, match="after the parts taken before it"):
        GraphBuilder().merge(second)
    receiver = GraphBuilder()
    receiver.merge(second, receiver.merge(first))


def _dies_in_a_worker(parent: int) -> _parallel.BatchHandler:
    def handler(
        b: GraphBuilder, first: int, lines: Sequence[bytes | memoryview], path: str
    ) -> None:
        if os.getpid() != parent:
            os._exit(3)
        _handler(b, first, lines, path)

    return handler


def test_a_worker_that_dies_is_an_error_not_a_hang(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _read_in_parallel(monkeypatch, "2")
    path = tmp_path / "edges.txt"
    _write(path, 5_000)
    with pytest.raises(RuntimeError, match="ended without sending its part"):
        load_lines(path, GraphBuilder(), _dies_in_a_worker(os.getpid()))


def test_exports_read_in_parallel_line_up_as_read_serially(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With several exports, what each one describes includes the targets its workers
    read: the same targets in another line order line up (no note, no target marked as
    described by one export only), as they do when read serially."""
    from slim.ingest import load_graph

    first = tmp_path / "a.ndjson"
    generate_large.generate(first, targets=3000, seed=5, avg_deps=2.0, fmt="bazel")
    second = tmp_path / "b.ndjson"
    second.write_bytes(b"".join(reversed(first.read_bytes().splitlines(keepends=True))))
    monkeypatch.setattr(_parallel, "MIN_PARALLEL_BYTES", 1)
    graphs = []
    for workers in ("1", "2"):
        monkeypatch.setenv("SLIM_WORKERS", workers)
        graphs.append(load_graph([first, second]))
    serial, parallel = graphs
    assert not [n for n in serial.notes if "do not line up" in n]
    assert parallel.notes == serial.notes
    marked = [i for i, a in parallel.attrs.items() if "unmatched_export" in a]
    assert marked == []


def test_a_part_with_no_room_for_its_file_comes_through_the_pipe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker that cannot write its part (a full or missing scratch folder) sends it
    through its pipe: the same graph, not an error."""
    monkeypatch.setattr(_parallel, "_scratch_dir", lambda need: str(tmp_path))
    monkeypatch.setattr(_parallel, "MIN_PARALLEL_BYTES", 1)
    path = tmp_path / "edges.txt"
    _write(path, 20_000)
    monkeypatch.setenv("SLIM_WORKERS", "1")
    serial = GraphBuilder()
    load_lines(path, serial, _handler)
    monkeypatch.setenv("SLIM_WORKERS", "2")
    import builtins

    opened = builtins.open

    def no_room(file: object, mode: str = "r", *args: object, **kwargs: object) -> object:
        if str(file).endswith(".part") and "w" in mode:
            raise OSError(28, "No space left on device")
        return opened(file, mode, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(builtins, "open", no_room)
    par = GraphBuilder()
    load_lines(path, par, _handler)
    monkeypatch.setattr(builtins, "open", opened)
    g1, g2 = par.build(), serial.build()
    assert sorted(g1.labels) == sorted(g2.labels)
    assert len(g1.edge_src) == len(g2.edge_src) == 20_000


def test_scratch_is_dev_shm_only_with_room(monkeypatch: pytest.MonkeyPatch) -> None:
    class Fs:
        f_bavail, f_frsize = 1000, 4096

    monkeypatch.setattr(os, "statvfs", lambda p: Fs())
    assert _parallel._scratch_dir(1 << 30) is None
    got = _parallel._scratch_dir(1 << 20)
    assert got in (None, "/dev/shm")
    assert got == "/dev/shm" or not os.access("/dev/shm", os.W_OK)


def test_an_error_in_the_parents_range_ends_the_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import multiprocessing

    _read_in_parallel(monkeypatch, "3")
    path = tmp_path / "edges.txt"
    _write(path, 30_000, bad_at=3)
    with pytest.raises(InputError, match=":3: expected two labels"):
        load_lines(path, GraphBuilder(), _handler)
    assert multiprocessing.active_children() == []


def _slow_worker(delay_before: float, delay_each: float) -> object:
    """`_parallel._worker`, started `delay_before` seconds late and taking `delay_each`
    more per piece: a worker on a busy core."""
    import time

    real, claims_next = _parallel._worker, _parallel._Claims.next

    def claim(self: _parallel._Claims, group: int) -> int | None:
        got = claims_next(self, group)
        time.sleep(delay_each)
        return got

    def worker(*args: object) -> None:
        time.sleep(delay_before)
        _parallel._Claims.next = claim  # type: ignore[method-assign]  # this process only
        real(*args)  # type: ignore[arg-type]

    return worker


@pytest.mark.parametrize(
    ("workers", "delay_before", "delay_each", "steals"),
    [
        ("2", 0.0, 0.0, False),
        ("2", 3.0, 0.0, True),
        ("2", 0.0, 0.4, True),
        ("3", 3.0, 0.0, True),
        ("3", 0.0, 0.4, True),
    ],
    ids=[
        "no-steal",
        "parent-reads-all",
        "parent-reads-the-last",
        "two-workers-parent-reads-all",
        "two-workers-parent-reads-the-last",
    ],
)
def test_pieces_the_parent_takes_over_give_the_same_graph_and_ids(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    workers: str,
    delay_before: float,
    delay_each: float,
    steals: bool,
) -> None:
    """Whoever reads a worker's piece (the worker, or the parent once done with its own
    range), the builder ends with the same labels in the same order (ids do not depend on
    timing), the same kinds, locations, sources and edges."""
    from slim.ingest import load_graph
    from slim.model.canonical import graph_to_canonical

    path = tmp_path / "g.ndjson"
    generate_large.generate(path, targets=3000, seed=11, avg_deps=3.0, fmt="bazel")
    _read_in_parallel(monkeypatch, workers)
    monkeypatch.setattr(_parallel, "PIECES", 6)
    monkeypatch.setattr(_parallel, "BATCH_LINES", 50)
    reference = load_graph([path])
    taken: list[tuple[int, int]] = []
    last = _parallel._Claims.last

    def claim_last(self: _parallel._Claims) -> tuple[int, int] | None:
        got = last(self) if steals else None
        if got is not None:
            taken.append(got)
        return got

    monkeypatch.setattr(_parallel._Claims, "last", claim_last)
    monkeypatch.setattr(_parallel, "_worker", _slow_worker(delay_before, delay_each))
    got = load_graph([path])
    assert bool(taken) is steals
    pieces = 6 * (int(workers) - 1)
    if delay_before:
        assert sorted(taken) == [(g, k) for g in range(int(workers) - 1) for k in range(6)]
    elif steals:
        assert 0 < len(taken) < pieces
    assert list(got.labels) == list(reference.labels)
    assert list(got.kinds) == list(reference.kinds)
    assert graph_to_canonical(got) == graph_to_canonical(reference)
    assert dict(got.locations.items()) == dict(reference.locations.items())


def test_a_bad_line_the_parent_took_over_is_reported_after_an_earlier_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pieces read by the parent out of order still report the first bad line of the
    file (the worker's), and the last one alone when it is the only one."""
    _read_in_parallel(monkeypatch, "2")
    monkeypatch.setattr(_parallel, "PIECES", 4)
    monkeypatch.setattr(_parallel, "_worker", _slow_worker(1.5, 0.0))
    path = tmp_path / "edges.txt"
    with path.open("w") as f:
        for i in range(20_000):
            f.write("!\n" if i + 1 in (13_001, 19_999) else f"n{i} n{i + 1}\n")
    with pytest.raises(InputError, match=":13001: expected two labels"):
        load_lines(path, GraphBuilder(), _handler)
    _write(path, 20_000, bad_at=19_999)
    with pytest.raises(InputError, match=":19999: expected two labels"):
        load_lines(path, GraphBuilder(), _handler)
