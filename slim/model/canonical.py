"""A canonical, sorted JSON view of a `BuildGraph`, for golden tests and debugging.

Every reader's golden file (`tests/data/<area>/*.expected.json`) is this dict, so two
readers of the same build compare equal exactly when they loaded the same graph.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from slim.model.graph import AttrValue, BuildGraph


def _value(v: AttrValue) -> Any:
    return list(v) if isinstance(v, tuple) else v


def graph_to_canonical(graph: BuildGraph) -> dict[str, Any]:
    """Targets (label, kind, location, srcs, tags, attrs, configurations, typed edges),
    artifacts, edge locations, formats and notes, every collection sorted."""
    labels = graph.labels
    targets = []
    for i in sorted(range(len(labels)), key=labels.__getitem__):
        loc = graph.locations.get(i)
        edges = sorted(
            {(labels[e.dep], e.kind.name.lower()) for e in graph.out_edges(i)},
        )
        attrs = graph.attrs.get(i, {})
        targets.append(
            {
                "label": labels[i],
                "kind": graph.kinds[i],
                "location": str(loc) if loc is not None else None,
                "srcs": sorted(graph.srcs.get(i, ())),
                "tags": sorted(graph.tags.get(i, ())),
                "attrs": {k: _value(attrs[k]) for k in sorted(attrs)},
                "configurations": sorted(graph.configurations.get(i, ())),
                "edges": [list(e) for e in edges],
            }
        )
    return {
        "formats": list(graph.formats),
        **({"flags_unseen": list(graph.flags_unseen)} if graph.flags_unseen else {}),
        "notes": sorted(graph.notes),
        "targets": targets,
        "artifacts": {p: labels[t] for p, t in sorted(graph.artifacts.items())},
        "edge_locations": sorted(
            [labels[a], labels[b], str(loc)] for (a, b), loc in graph.edge_locations.items()
        ),
    }


def canonical_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
