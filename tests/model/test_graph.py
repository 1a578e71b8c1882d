from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slim.model.graph import (
    BUILD_KINDS,
    CODE_KINDS,
    BuildGraph,
    EdgeKind,
    GraphBuilder,
    Location,
    all_canonical,
    stable_argsort,
)
from slim.model.labels import normalize_label


def build(*edges: str) -> BuildGraph:
    b = GraphBuilder()
    for e in edges:
        a, _, c = (normalize_label(s.strip()) for s in e.partition("->"))
        ia = b.add_target(a, "cc_library")
        ic = b.add_target(c, "cc_library")
        b.add_edge(ia, ic, EdgeKind.DEPS)
    return b.build()


def test_closure_and_reverse() -> None:
    g = build("//a:bin -> //b:lib", "//b:lib -> //c:util", "//d:x -> //c:util")
    a = g.lookup("//a:bin")
    assert a is not None
    assert [g.labels[i] for i in g.closure([a])] == ["//a:bin", "//b:lib", "//c:util"]
    c = g.lookup("//c:util")
    assert c is not None
    assert sorted(g.labels[i] for i in g.reverse_closure([c])) == [
        "//a:bin",
        "//b:lib",
        "//c:util",
        "//d:x",
    ]


def test_closure_respects_kinds() -> None:
    b = GraphBuilder()
    bin_ = b.add_target("//a:bin", "cc_binary")
    tool = b.add_target("//t:gen", "sh_binary")
    data = b.add_target("//d:blob", "filegroup")
    b.add_edge(bin_, tool, EdgeKind.TOOLS)
    b.add_edge(bin_, data, EdgeKind.DATA)
    g = b.build()
    assert [g.labels[i] for i in g.closure([0], BUILD_KINDS)] == ["//a:bin", "//d:blob"]
    assert [g.labels[i] for i in g.closure([0], CODE_KINDS)] == ["//a:bin"]


def test_files_fold_into_owner() -> None:
    b = GraphBuilder()
    lib = b.add_target("//a:lib", "cc_library", srcs=["//a:x.cc"])
    gen = b.add_target("//a:gen", "genrule")
    b.add_file("//a:x.cc")
    b.add_file("//a:out.h", generated_by="//a:gen")
    b.add_edge(lib, b.intern("//a:x.cc"), EdgeKind.SRCS)
    b.add_edge(lib, b.intern("//a:out.h"), EdgeKind.SRCS)
    g = b.build()
    assert g.labels == ["//a:lib", "//a:gen"]
    assert [(g.labels[e.dep], e.kind) for e in g.out_edges(0)] == [("//a:gen", EdgeKind.SRCS)]
    assert gen == 1


def test_a_target_s_files_are_its_filegroups_files() -> None:
    """`srcs = [":srcs_fg"]`: the rule's files are the filegroup's, nested ones too; a
    label of another kind (a genrule) stays, and a filegroup cycle ends."""
    b = GraphBuilder()
    lib = b.add_target("//a:lib", "cc_library", srcs=["//a:own.c", "//a:srcs_fg", "//a:gen"])
    fg = b.add_target("//a:srcs_fg", "filegroup", srcs=["//a:x.c", "//a:inner"])
    inner = b.add_target("//a:inner", "filegroup", srcs=["//a:y.h", "//a:srcs_fg"])
    gen = b.add_target("//a:gen", "genrule")
    for target, dep in ((lib, fg), (lib, gen), (fg, inner), (inner, fg)):
        b.add_edge(target, dep, EdgeKind.SRCS)
    g = b.build()
    assert g.files(g.ids["//a:lib"]) == ("//a:own.c", "//a:gen", "//a:x.c", "//a:y.h")
    assert g.target(g.ids["//a:lib"]).srcs == g.files(g.ids["//a:lib"])
    assert g.files(g.ids["//a:inner"]) == ("//a:y.h", "//a:x.c")
    assert g.srcs[g.ids["//a:lib"]] == ("//a:own.c", "//a:srcs_fg", "//a:gen")


def test_duplicate_edges_collapse_but_kinds_stay() -> None:
    b = GraphBuilder()
    x, y = b.add_target("//x", "r"), b.add_target("//y", "r")
    for _ in range(3):
        b.add_edge(x, y, EdgeKind.DEPS)
    b.add_edge(x, y, EdgeKind.DATA)
    g = b.build()
    assert g.edge_count == 2
    assert g.edge_kinds(0, 1) == [EdgeKind.DEPS, EdgeKind.DATA]


def test_shortest_paths_all_of_them() -> None:
    g = build(
        "//r -> //a",
        "//r -> //b",
        "//a -> //z",
        "//b -> //z",
        "//r -> //c",
        "//c -> //d",
        "//d -> //z",
    )
    r, z = g.lookup("//r:r"), g.lookup("//z:z")
    assert r is not None
    assert z is not None
    paths = [[g.labels[i] for i in p] for p in g.shortest_paths(r, z)]
    assert paths == [["//r:r", "//a:a", "//z:z"], ["//r:r", "//b:b", "//z:z"]]


def test_closure_without_cut() -> None:
    g = build("//r -> //a", "//a -> //b", "//r -> //c", "//c -> //b")
    ids = g.ids
    after = g.closure_without(ids["//r:r"], [(ids["//r:r"], ids["//a:a"])])
    assert sorted(g.labels[i] for i in after) == ["//b:b", "//c:c", "//r:r"]
    after2 = g.closure_without(
        ids["//r:r"], [(ids["//r:r"], ids["//a:a"]), (ids["//r:r"], ids["//c:c"])]
    )
    assert [g.labels[i] for i in after2] == ["//r:r"]


@pytest.mark.parametrize(
    ("text", "loc"),
    [
        ("lib/BUILD:7:11", Location("lib/BUILD", 7)),
        ("C:/src/lib/BUILD:7:11", Location("C:/src/lib/BUILD", 7)),
        ("CMakeLists.txt:12", Location("CMakeLists.txt", 12)),
        ("BUILD", Location("BUILD")),
    ],
)
def test_location_parse(text: str, loc: Location) -> None:
    assert Location.parse(text) == loc


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 15), st.integers(0, 15)), max_size=60))
def test_closure_matches_networkx(edges: list[tuple[int, int]]) -> None:
    import networkx as nx

    b = GraphBuilder()
    for i in range(16):
        b.add_target(f"//n:{i}", "r")
    for x, y in edges:
        b.add_edge(x, y, EdgeKind.DEPS)
    g = b.build()
    ref = nx.DiGraph()
    ref.add_nodes_from(range(16))
    ref.add_edges_from((x, y) for x, y in edges if x != y)
    for root in range(16):
        expect = sorted({root} | nx.descendants(ref, root))
        assert g.closure([root]).tolist() == expect
    assert isinstance(g.closure([0]), np.ndarray)


def test_merge_equals_building_in_one_builder() -> None:
    one = GraphBuilder()
    left, right = GraphBuilder(), GraphBuilder()
    for b in (one, left):
        x = b.add_target("//a:x", "cc_library", location=Location("a/BUILD", 3), tags=["t"])
        y = b.intern("//b:y")
        b.add_edge(x, y, EdgeKind.DEPS, Location("a/BUILD", 4))
        b.add_file("//a:x.cc")
        b.add_edge(x, b.intern("//a:x.cc"), EdgeKind.SRCS)
    for b in (one, right):
        y = b.add_target("//b:y", "py_library", attrs={"imports": ("src",)})
        z = b.add_target("//c:z", "genrule")
        b.add_file("//b:gen.py", generated_by="//c:z")
        b.add_edge(y, b.intern("//b:gen.py"), EdgeKind.SRCS)
        b.add_edge(y, z, EdgeKind.DATA)
        b.add_artifact("c/libz.a", "//c:z")
    left.merge(right)
    g1, g2 = one.build(), left.build()
    assert g1.labels == g2.labels
    assert g1.kinds == g2.kinds
    assert g1.attrs == g2.attrs
    assert g1.edge_locations == g2.edge_locations
    assert g1.artifacts == g2.artifacts
    assert g1.edge_src.tolist() == g2.edge_src.tolist()
    assert g1.edge_dst.tolist() == g2.edge_dst.tolist()
    assert g1.edge_kind.tolist() == g2.edge_kind.tolist()


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11)), max_size=50),
    st.integers(0, 11),
    st.integers(0, 11),
)
def test_shortest_paths_match_networkx(edges: list[tuple[int, int]], a: int, z: int) -> None:
    import networkx as nx

    b = GraphBuilder()
    for i in range(12):
        b.add_target(f"//n:{i:02d}", "r")
    for x, y in edges:
        b.add_edge(x, y, EdgeKind.DEPS)
    g = b.build()
    ref: nx.DiGraph[int] = nx.DiGraph()
    ref.add_nodes_from(range(12))
    ref.add_edges_from((x, y) for x, y in edges if x != y)
    got = g.shortest_paths(a, z, limit=1000)
    if not nx.has_path(ref, a, z):
        assert got == []
        return
    expect = sorted(nx.all_shortest_paths(ref, a, z), key=lambda p: [g.labels[i] for i in p])
    assert got == expect


def test_an_edge_in_several_attributes_gives_one_path() -> None:
    b = GraphBuilder()
    a, m, z = (b.add_target(f"//p:{n}", "r") for n in "amz")
    for kind in (EdgeKind.DEPS, EdgeKind.DATA, EdgeKind.EXPORTS):
        b.add_edge(a, m, kind)
    b.add_edge(m, z, EdgeKind.DEPS)
    g = b.build()
    assert g.shortest_paths(a, z) == [[a, m, z]]
    assert g.closure([a]).tolist() == [a, m, z]


def test_builder_locations_keep_the_last_one_given_offsets_included() -> None:
    """Locations are kept as columns (a path table, a line per call); the last one given
    for a target wins, a byte offset or an out-of-range line is kept as given."""
    from slim.model.graph import GraphBuilder, Location

    b = GraphBuilder()
    a = b.add_target("//p:a", "cc_library", location=Location("p/BUILD", 3))
    b.set_location_text(a, "p/BUILD:7:1")
    c = b.add_target("//p:c", "cc_library", location=Location("p/BUILD", 9))
    b.set_location(c, Location("bin/c", offset=40))
    d = b.add_target("//p:d", "cc_library", location=Location("q/BUILD", 2**40))
    e = b.add_target("//p:e", "cc_library", location=Location("x/BUILD", offset=1))
    b.set_location_text(e, "x/BUILD")
    b.add_file("//p:f.cc")
    b.set_location_text(b.intern("//p:f.cc"), "p/f.cc:1:1")
    g = b.build()
    got = {g.labels[i]: loc for i, loc in g.locations.items()}
    assert got == {
        "//p:a": Location("p/BUILD", 7),
        "//p:c": Location("bin/c", offset=40),
        "//p:d": Location("q/BUILD", 2**40),
        "//p:e": Location("x/BUILD"),
    }
    assert d != e
    plain = GraphBuilder()
    plain.set_location_text(plain.add_target("//p:a", "r"), "p/BUILD:7:1")
    assert dict(plain.build().locations) == {0: Location("p/BUILD", 7)}


_SRC = st.sampled_from(["//a:x.cc", "//a:y.h", "//b:z.cc", "//b:n\x00ul.cc", "//c:é.cc"])


@given(
    st.lists(
        st.tuples(st.sampled_from(["//a:a", "//b:b", "//c:c"]), st.lists(_SRC, max_size=3)),
        max_size=12,
    ),
    st.integers(0, 12),
)
def test_sources_of_every_call_are_kept_in_order_serial_or_merged(
    calls: list[tuple[str, list[str]]], cut: int
) -> None:
    """A target described more than once keeps every call's sources in order, without
    repeats (one call keeps its list as given); a worker's builder merged in gives the same."""
    from slim.model.graph import GraphBuilder

    want: dict[str, list[tuple[str, ...]]] = {}
    for lab, srcs in calls:
        if srcs:
            want.setdefault(lab, []).append(tuple(srcs))
    expected = {
        lab: got[0] if len(got) == 1 else tuple(dict.fromkeys(s for t in got for s in t))
        for lab, got in want.items()
    }

    def feed(b: GraphBuilder, part: list[tuple[str, list[str]]]) -> None:
        for lab, srcs in part:
            b.add_target(lab, "r", srcs=srcs)

    serial = GraphBuilder()
    feed(serial, calls)
    first, second = GraphBuilder(), GraphBuilder()
    feed(first, calls[:cut])
    feed(second, calls[cut:])
    first.merge(second)
    for b in (serial, first):
        g = b.build()
        assert {g.labels[i]: v for i, v in g.srcs.items()} == expected


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["int8", "int32", "int64", "uint32", "uint64"]),
    st.lists(st.integers(-(2**40), 2**40), max_size=300),
)
def test_stable_argsort_is_numpys(dtype: str, values: list[int]) -> None:
    """The radix passes give numpy's stable order, ties in input order; values spanning
    32 bits or more take numpy's own sort."""
    info = np.iinfo(dtype)
    a = np.array([min(max(v, info.min), info.max) for v in values], dtype=dtype)
    got = stable_argsort(a)
    assert got.dtype == np.int64
    assert got.tolist() == np.argsort(a, kind="stable").tolist()


@settings(max_examples=200, deadline=None)
@given(
    st.integers(-(2**40), 2**40),
    st.sampled_from([2**8, 2**16 - 1, 2**16, 2**16 + 1, 2**32 - 1, 2**32]),
    st.lists(st.integers(0, 2**32), max_size=200),
)
def test_stable_argsort_across_the_radix_spans(base: int, span: int, offsets: list[int]) -> None:
    """One pass below a 16-bit span, two below 32 bits, numpy's sort from there: the
    same order on each side of each bound, from any lowest value."""
    a = np.array([base + min(o, span) for o in offsets] + [base], dtype=np.int64)
    assert stable_argsort(a).tolist() == np.argsort(a, kind="stable").tolist()


@settings(max_examples=100, deadline=None)
@given(
    st.integers(0, 2**64 - 2**33),
    st.sampled_from([2**16 - 1, 2**32 - 1, 2**32]),
    st.lists(st.integers(0, 2**32), max_size=100),
)
def test_stable_argsort_of_unsigned_values_beyond_int64(
    base: int, span: int, offsets: list[int]
) -> None:
    """uint64 values above 2**63 (hashes) are offset in their own type, not as int64."""
    a = np.array([base + min(o, span) for o in offsets] + [base], dtype=np.uint64)
    assert stable_argsort(a).tolist() == np.argsort(a, kind="stable").tolist()


def test_stable_argsort_keeps_ties_in_order_on_many_values() -> None:
    rng = np.random.default_rng(1)
    a = rng.integers(0, 50, 100_000).astype(np.int32)
    assert stable_argsort(a).tolist() == np.argsort(a, kind="stable").tolist()


@settings(max_examples=40, deadline=None)
@given(
    mine=st.lists(st.integers(0, 30), min_size=1, max_size=25),
    pieces=st.lists(st.lists(st.integers(0, 30), max_size=12), min_size=1, max_size=4),
    buckets=st.sampled_from([1, 3, 2**61]),
)
def test_a_merge_by_hash_join_equals_one_by_dict_even_when_hashes_collide(
    mine: list[int], pieces: list[list[int]], buckets: int
) -> None:
    """Parts merged through the join of label hashes (`JOIN_MIN` 0) give the labels, ids
    and kinds the dict probes give, with hashes that collide (1 or 3 values) or not; the
    merged labels are then found by `lookup` and `intern` (the late index)."""
    import slim.model.graph as graph_module
    import slim.model.label_hashes as hashes_module

    def label(k: int) -> str:
        return f"//p{k % 7}:t{k}"

    def piece(b: GraphBuilder, ks: list[int]) -> None:
        for k in ks:
            i = (
                b.add_target(label(k), "cc_library" if k % 2 else "")
                if k % 3
                else b.intern(label(k))
            )
            b.add_label_edges(i, [label(k + 1), label(2 * k)], EdgeKind.DEPS, f"//p{k % 7}")

    def merged() -> GraphBuilder:
        receiver, sender = GraphBuilder(), GraphBuilder()
        piece(receiver, mine)
        earlier = None
        for ks in pieces:
            piece(sender, ks)
            earlier = receiver.merge(sender.take_part(), earlier)
        return receiver

    by_dict = merged()

    def fake(labels: list[str]) -> np.ndarray:
        return np.array([hash(x) % buckets for x in labels], dtype=np.int64)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(graph_module, "JOIN_MIN", 0)
        patch.setattr(graph_module, "label_hashes", fake)
        patch.setattr(hashes_module, "label_hashes", fake)
        by_join = merged()
    assert by_join._labels == by_dict._labels
    assert by_join._kinds == by_dict._kinds
    assert by_join.build().edge_dst.tolist() == by_dict.build().edge_dst.tolist()
    n = len(by_join)
    assert [by_join.lookup(x) for x in by_dict._labels] == list(range(n))
    assert by_join.intern(label(99)) == n
    assert by_join.intern(by_dict._labels[-1]) == n - 1


def test_a_small_part_after_a_joined_one_is_joined_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once a large part was joined (its labels appended without an index), a part below
    `JOIN_MIN` is joined as well: a probe of the index would first add every label the
    large one brought (a million inserts on the 1M-target export); the labels and ids are
    those of reading both parts here."""
    import slim.model.graph as graph_module

    monkeypatch.setattr(graph_module, "JOIN_MIN", 5)
    receiver, sender, serial = GraphBuilder(), GraphBuilder(), GraphBuilder()
    for b in (receiver, serial):
        b.add_target("//r:r", "cc_binary")
    for b in (sender, serial):
        for k in range(10):
            b.add_target(f"//a:{k}", "cc_library")
    first = receiver.merge(sender.take_part())
    assert isinstance(receiver._ids, graph_module._LateIndex)
    for b in (sender, serial):
        i = b.add_target("//b:1", "py_library")
        b.add_label_edges(i, ["//a:3", "//r:r", "//c:new"], EdgeKind.DEPS, "//b")
    receiver.merge(sender.take_part(), first)
    serial.flush()
    assert isinstance(receiver._ids, graph_module._LateIndex)
    assert receiver._labels == serial._labels
    assert receiver.build().edge_dst.tolist() == serial.build().edge_dst.tolist()
    assert receiver.lookup("//c:new") == serial.lookup("//c:new")


_SPELLINGS = ["//a:b", "@//a:b", "@@//a:b", "//a", ":x", "//p:x", "//c:d", "@r//e:f", "//g:h"]


@settings(max_examples=80, deadline=None)
@given(
    known=st.lists(st.sampled_from(_SPELLINGS[::2]), max_size=4),
    ops=st.lists(
        st.tuples(st.booleans(), st.sampled_from(_SPELLINGS), st.sampled_from(["//p", "//q"])),
        max_size=30,
    ),
)
def test_queued_labels_get_the_ids_interning_one_by_one_gives(
    known: list[str], ops: list[tuple[bool, str, str]]
) -> None:
    """Edge labels and source files in any spelling, queued and interned at the flush
    (one probe each, new labels numbered in order of first mention, the batch redone
    one by one when a new label is not canonical: a relative edge label in its group's
    package, a file in none), give the labels, ids, edges and files that interning each
    at once gives."""
    queued, direct = GraphBuilder(), GraphBuilder()
    for b in (queued, direct):
        for x in known:
            b.intern(normalize_label(x))
        b.add_target("//p:t", "cc_library")
    t = direct.lookup("//p:t")
    assert t is not None
    for is_file, raw, package in ops:
        if is_file:
            queued.add_source_file(raw)
            direct.add_file(normalize_label(raw))
        else:
            queued.add_label_edges(t, [raw], EdgeKind.DEPS, package)
            direct.add_edge(t, direct.intern_raw([raw], package)[0], EdgeKind.DEPS)
    queued.flush()
    assert queued._labels == direct._labels
    assert queued._dst.tolist() == direct._dst.tolist()
    assert queued._src.tolist() == direct._src.tolist()
    assert queued._files.tolist() == direct._files.tolist()
    assert [queued.lookup(x) for x in direct._labels] == list(range(len(direct._labels)))


_PIECE = st.text(alphabet=st.sampled_from("/:ab\0é\ud800"), max_size=3)
_LABEL_TEXT = st.builds(
    "".join,
    st.tuples(
        st.sampled_from(["//", "@//", ":", "", "/"]),
        _PIECE,
        st.sampled_from([":", "", "::"]),
        _PIECE,
        st.sampled_from(["", "]"]),
    ),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_LABEL_TEXT, st.sampled_from(_SPELLINGS)), min_size=1, max_size=6))
def test_all_canonical_is_the_check_of_each_label(labels: list[str]) -> None:
    """The joined test of a batch's new labels says canonical exactly when each one is
    (`//` first, a `:`, no trailing `]`); a label holding the separator (NUL) sends the
    batch to the one-by-one path (which gives the same ids) instead."""
    each = all(x.startswith("//") and ":" in x and not x.endswith("]") for x in labels)
    if any("\0" in x for x in labels):
        assert not all_canonical(labels)
    else:
        assert all_canonical(labels) == each


def test_a_part_refuses_to_intern_and_an_empty_group_flushes() -> None:
    """A worker's part has no label index: queueing labels on it and flushing is an
    error, not a silent index of its own; a group without labels adds nothing."""
    b = GraphBuilder()
    t = b.add_target("//a:a", "cc_library")
    b.add_label_edges(t, [], EdgeKind.DEPS, "//a")
    b.flush()
    assert len(b._dst) == 0
    part = pickle.loads(pickle.dumps(b.as_part()))
    part.add_label_edges(0, ["//b:b"], EdgeKind.DEPS, "//a")
    with pytest.raises(RuntimeError, match="no label index"):
        part.flush()


_KINDS = list(EdgeKind)


def _random_builder(edges: list[tuple[int, int, int]], files: list[int]) -> GraphBuilder:
    b = GraphBuilder()
    for i in range(12):
        if i in files:
            b.add_file(f"//f:{i}")
        else:
            b.add_target(f"//n:{i}", "cc_library" if i % 3 else "")
    for x, y, k in edges:
        b.add_edge(x, y, _KINDS[k % len(_KINDS)])
    return b


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11), st.integers(0, 20)), max_size=80),
    st.lists(st.integers(0, 11), max_size=4),
)
def test_edges_sorted_on_a_thread_are_the_edges_sorted_inline(
    edges: list[tuple[int, int, int]], files: list[int]
) -> None:
    """`build` sorts a large graph's edges on a thread of their own, the reverse CSR with
    them: the same graph as sorting them inline, and the reverse CSR it would compute."""
    import slim.model.graph as graph_module

    saved = graph_module._THREAD_EDGES
    try:
        graph_module._THREAD_EDGES = 0
        threaded = _random_builder(edges, files).build()
        graph_module._THREAD_EDGES = 1 << 62
        inline = _random_builder(edges, files).build()
    finally:
        graph_module._THREAD_EDGES = saved
    assert threaded.labels == inline.labels
    for name in ("edge_src", "edge_dst", "edge_kind", "indptr"):
        assert getattr(threaded, name).tolist() == getattr(inline, name).tolist()
    lazily = BuildGraph(
        labels=inline.labels,
        kinds=inline.kinds,
        locations={},
        srcs={},
        tags={},
        attrs={},
        configurations={},
        edge_src=inline.edge_src,
        edge_dst=inline.edge_dst,
        edge_kind=inline.edge_kind,
        edge_locations={},
        artifacts={},
    )
    for got, want in zip(threaded.reverse_csr(), lazily.reverse_csr(), strict=True):
        assert got.tolist() == want.tolist()


def test_an_error_sorting_edges_on_the_thread_is_raised_by_build(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import slim.model.graph as graph_module

    def fails(*args: object) -> object:
        raise MemoryError("no room for the keys")

    monkeypatch.setattr(graph_module, "_THREAD_EDGES", 0)
    monkeypatch.setattr(graph_module, "_built_edges", fails)
    with pytest.raises(MemoryError, match="no room"):
        _random_builder([(0, 1, 0)], []).build()


_LOCATION_TEXT = st.one_of(
    st.builds(
        "{}:{}:{}".format,
        st.sampled_from(["p/BUILD", "q/BUILD.bazel", "C:/w/BUILD", "a:b", ""]),
        st.integers(0, 2**33),
        st.integers(0, 99),
    ),
    st.sampled_from(["p/BUILD", "p/BUILD:7", "x:7:", "a:1:2:3", "a:b:7", "r/BUILD:٣:1", ":"]),
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 4), st.one_of(_LOCATION_TEXT, st.integers(0, 40))),
        max_size=40,
    ),
    st.integers(1, 6),
)
def test_locations_split_in_bulk_are_those_split_one_by_one(
    calls: list[tuple[int, str | int]], flush_every: int
) -> None:
    """Locations given as text are split at the next flush, in bulk when every one is
    `path:line:column`: the same locations, the last one given still winning, as when each
    is split at once; a `Location` given between them keeps its place in the order."""
    from slim.model.edges import split_location

    bulk, one = GraphBuilder(), GraphBuilder()
    for b in (bulk, one):
        for k in range(5):
            b.add_target(f"//t:{k}", "cc_library")
    for n, (target, what) in enumerate(calls):
        if isinstance(what, int):
            loc = Location(f"g/BUILD{what % 3}", what)
            bulk.set_location(target, loc)
            one.set_location(target, loc)
            continue
        bulk.set_location_text(target, what)
        path, line = split_location(what)
        one.set_location(target, Location(path, line))
        if n % flush_every == 0:
            bulk.flush()
    assert dict(bulk.build().locations) == dict(one.build().locations)
