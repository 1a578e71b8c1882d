"""The numpy traversals (closure, reverse closure, cuts, distances, shortest paths) agree
with networkx on random graphs, edge kinds included."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from slim.model.graph import BUILD_KINDS, CODE_KINDS, EdgeKind, GraphBuilder

edges = st.lists(
    st.tuples(st.integers(0, 14), st.integers(0, 14), st.sampled_from(list(EdgeKind))),
    max_size=60,
)


def _build(es: list[tuple[int, int, EdgeKind]]):  # type: ignore[no-untyped-def]
    b = GraphBuilder()
    ids = [b.add_target(f"//p:t{i:02d}", "cc_library") for i in range(15)]
    for a, c, k in es:
        b.add_edge(ids[a], ids[c], k)
    return b.build()


def _ref(g, kinds):  # type: ignore[no-untyped-def]
    ref = nx.DiGraph()
    ref.add_nodes_from(range(len(g)))
    for i in range(len(g)):
        for e in g.out_edges(i, kinds):
            ref.add_edge(i, e.dep)
    return ref


@settings(max_examples=150, deadline=None)
@given(edges, st.integers(0, 14), st.integers(0, 14), st.sampled_from([BUILD_KINDS, CODE_KINDS]))
def test_traversals_match_networkx(es, a, c, kinds) -> None:  # type: ignore[no-untyped-def]
    g = _build(es)
    ref = _ref(g, kinds)
    a, c = g.lookup(f"//p:t{a:02d}"), g.lookup(f"//p:t{c:02d}")
    assert set(g.closure([a], kinds).tolist()) == nx.descendants(ref, a) | {a}
    assert set(g.reverse_closure([c], kinds).tolist()) == nx.ancestors(ref, c) | {c}
    dist = nx.single_source_shortest_path_length(ref, a)
    got = g.bfs_distances(a, kinds)
    assert {i: int(d) for i, d in enumerate(got.tolist()) if d >= 0} == dist
    paths = g.shortest_paths(a, c, kinds, limit=4)
    if c in dist:
        want = sorted(nx.all_shortest_paths(ref, a, c), key=lambda p: [g.labels[x] for x in p])
        assert paths == want[:4]
    else:
        assert paths == []
    cut = [(x, y) for x, y, _ in list(ref.edges(data=True))[:3]]
    pruned = ref.copy()
    pruned.remove_edges_from(cut)
    assert set(g.closure_without(a, cut, kinds).tolist()) == nx.descendants(pruned, a) | {a}


cuts = st.lists(st.tuples(st.integers(0, 14), st.integers(0, 14)), max_size=4)


@settings(max_examples=150, deadline=None)
@given(
    edges,
    st.lists(st.tuples(st.lists(st.integers(0, 14), min_size=1, max_size=3), cuts), max_size=8),
    st.sampled_from([BUILD_KINDS, CODE_KINDS]),
)
def test_reach_masks_is_reach_mask_per_variant(es, variants, kinds) -> None:  # type: ignore[no-untyped-def]
    import numpy as np

    g = _build(es)
    n = len(g)
    keyed = [
        (srcs, np.array(sorted({a * n + b for a, b in cut}), dtype=np.int64))
        for srcs, cut in variants
    ]
    bits = g.reach_masks(keyed, kinds)
    for j, (srcs, keys) in enumerate(keyed):
        want = g.reach_mask(srcs, kinds, cut=keys)
        assert (((bits >> np.uint64(j)) & np.uint64(1)) == 1).tolist() == want.tolist()
