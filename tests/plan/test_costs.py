"""Cost model: measured from real timings, estimated from a fit, defaults; unattributed counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from slim.ingest import load_evidence, load_graph
from slim.model.facts import Facts
from slim.plan.costs import DEFAULT_LINK_SECONDS, DEFAULT_SECONDS_PER_SOURCE, build_costs
from tests.plan._graphs import graph, timings

DATA = Path(__file__).parent.parent / "data"


def _facts(*paths: Path) -> Facts:
    facts = Facts()
    for p in paths:
        facts.extend(load_evidence(p, "timings")[1])
    return facts


def _last_build_ms(log: Path) -> dict[str, int]:
    """Independent reading of a .ninja_log: output -> end-start of its last line."""
    out: dict[str, int] = {}
    for line in log.read_text().splitlines()[1:]:
        start, end, _, name, _ = line.split("\t")
        out[name] = int(end) - int(start)
    return out


@pytest.mark.parametrize(
    ("cmake", "ninja"), [("cmake-3.25.1", "ninja-1.11.1"), ("cmake-4.4.5", "ninja-1.13.2")]
)
def test_real_cmake_graph_and_ninja_log(cmake: str, ninja: str) -> None:
    g = load_graph([DATA / "cmake" / cmake / "reply"])
    log = DATA / "ninja" / ninja / "ninja_log.txt"
    model = build_costs(g, _facts(log))
    ms = _last_build_ms(log)
    core = model.cost(g.lookup("//:core"))
    want = sum(v for k, v in ms.items() if "core.dir/" in k and "objs" not in k) + ms["libcore.a"]
    assert core.basis == "measured"
    assert core.compile_seconds == pytest.approx(want / 1000)
    util = model.cost(g.lookup("//:util"))
    assert util.link_seconds == pytest.approx(ms["libutil.so"] / 1000)
    # The custom command's output (gen/version.h) belongs to no target in the file API.
    assert model.unattributed == 1
    assert any(n.startswith("1 of 8 actions in ") and "not attributed" in n for n in model.notes)


def test_bazel_profile_attributes_by_source_and_output() -> None:
    g = load_graph([DATA / "bazel" / "query.xml"])
    model = build_costs(g, _facts(DATA / "bazel" / "profile.json.gz"))
    app = model.cost(g.lookup("//app:app"))
    assert app.link_seconds == pytest.approx(0.12029)
    core = model.cost(g.lookup("//lib:core"))
    assert core.compile_seconds == pytest.approx(0.067234)
    assert model.unattributed == model.actions - sum(c.actions for c in model.measured.values())
    assert model.unattributed > 0


def test_timings_of_another_build_are_all_counted_unattributed() -> None:
    g = graph([("//x:y", "cc_library", ("x/y.cc",))], [])
    log = DATA / "ninja" / "ninja-1.13.2" / "ninja_log.txt"
    model = build_costs(g, _facts(log))
    assert model.measured == {}
    assert model.unattributed == model.actions == 8
    assert model.notes == [
        f"8 of 8 actions in {log} not attributed to any target "
        f"({model.unattributed_seconds:.3f}s): timings of a different build?"
    ]


def test_estimate_from_a_fit_on_measured_targets() -> None:
    measured = [
        (f"//m:l{i}", "cc_library", tuple(f"m/{i}_{k}.cc" for k in range(i))) for i in (1, 2, 3, 4)
    ]
    g = graph([*measured, ("//u:lib", "cc_library", ("u/a.cc", "u/b.cc", "u/c.cc"))], [])
    facts = timings(*[(lab, "CppCompile", 1.5 * len(srcs)) for lab, _, srcs in measured])
    model = build_costs(g, facts)
    est = model.cost(g.lookup("//u:lib"))
    assert est.basis == "estimated (model, fit on 4 targets)"
    assert est.compile_seconds == pytest.approx(4.5)


def test_cuda_is_not_estimated_from_cxx_and_defaults_are_documented() -> None:
    g = graph(
        [
            ("//m:a", "cc_library", ("m/a.cc",)),
            ("//m:b", "cc_library", ("m/b.cc", "m/c.cc")),
            ("//k:kern", "cuda_library", ("k/k.cu", "k/k.h")),
            ("//k:bin", "cc_binary", ()),
        ],
        [],
    )
    model = build_costs(g, timings(("//m:a", "CppCompile", 1.0), ("//m:b", "CppCompile", 2.0)))
    kern = model.cost(g.lookup("//k:kern"))
    assert kern.basis == "default"
    assert kern.compile_seconds == DEFAULT_SECONDS_PER_SOURCE["cuda"]
    binary = model.cost(g.lookup("//k:bin"))
    assert binary.link_seconds == DEFAULT_LINK_SECONDS
    assert binary.basis == "default"


def test_nothing_measured_gives_defaults() -> None:
    g = graph([("//a:a", "cc_library", ("a/a.c", "a/b.c"))], [])
    c = build_costs(g, Facts()).cost(0)
    assert (c.compile_seconds, c.basis) == (2 * DEFAULT_SECONDS_PER_SOURCE["c"], "default")
