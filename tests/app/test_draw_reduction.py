"""The drawing's cycle check and transitive reduction agree with networkx on random graphs."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from slim.app.draw import Picture, is_acyclic, transitive_reduction

_EDGES = st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11)), max_size=40)


def _picture(edges: list[tuple[int, int]], nodes: int = 12) -> tuple[Picture, nx.DiGraph]:
    g: Picture = {f"n{i}": set() for i in range(nodes)}
    ref: nx.DiGraph = nx.DiGraph()
    ref.add_nodes_from(g)
    for a, b in edges:
        if a != b:
            g[f"n{a}"].add(f"n{b}")
            ref.add_edge(f"n{a}", f"n{b}")
    return g, ref


@settings(deadline=None, max_examples=200)
@given(_EDGES)
def test_cycle_check_matches_networkx(edges: list[tuple[int, int]]) -> None:
    g, ref = _picture(edges)
    assert is_acyclic(g) == nx.is_directed_acyclic_graph(ref)


@settings(deadline=None, max_examples=200)
@given(_EDGES)
def test_reduction_matches_networkx_on_dags(edges: list[tuple[int, int]]) -> None:
    g, ref = _picture([(min(a, b), max(a, b)) for a, b in edges])  # low -> high: a DAG
    want = nx.transitive_reduction(ref)
    got = transitive_reduction(g)
    assert set(got) == set(want.nodes)
    assert {(a, b) for a, s in got.items() for b in s} == set(want.edges)
