"""Shortest paths listed from their DAG: shared by `BuildGraph` and the numpy-free cache
view, so both print the same paths in the same order."""

from __future__ import annotations

from collections.abc import Callable


def listed_paths(
    source: int,
    dest: int,
    succ: dict[int, list[int]],
    label: Callable[[int], str],
    limit: int,
) -> list[list[int]]:
    """Up to `limit` paths from `source` to `dest` through `succ` (the successors on a
    shortest path), depth first with each node's successors in label order."""
    for following in succ.values():
        following.sort(key=label)
    paths: list[list[int]] = []
    stack: list[list[int]] = [[source]]
    while stack and len(paths) < limit:
        path = stack.pop()
        last = path[-1]
        if last == dest:
            paths.append(path)
            continue
        stack.extend([*path, nxt] for nxt in reversed(succ.get(last, [])))
    return paths
