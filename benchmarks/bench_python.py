"""Python evidence goals (issue 3), each with a floor measured in the same run:

* a 20k-row `-X importtime` trace parses in <= 0.2 s (floor: reading and splitting its lines);
* static import extraction of 10k source files <= 20 s on 2 cores (floor: `ast.parse` alone
  on one core, the irreducible part of the work);
* SLIM001 analysis of one root of the generated 1M-target graph adds <= 5 s over loading
  the graph (floor: the load itself, through the parsed-graph cache), with a trace of the
  root's Python modules (every one but a few planted dead deps).

    python benchmarks/bench_python.py [--quick]
"""

from __future__ import annotations

import ast
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
TRACE_ROWS = 20_000
FILES_FULL, FILES_QUICK = 10_000, 2_000


def _row(
    case: str, measured: float, floor: str, floor_s: float | None, goal_s: float
) -> dict[str, Any]:
    return {
        "case": case,
        "measured": f"{measured:.3f} s",
        "measured_s": round(measured, 4),
        "floor": floor,
        "floor_measured": f"{floor_s:.3f} s" if floor_s is not None else None,
        "floor_s": round(floor_s, 4) if floor_s is not None else None,
        "ratio": (measured / floor_s) if floor_s else None,
        "goal": f"<= {goal_s:g} s",
        "ok": measured <= goal_s,
    }


def _best(fn: Any, n: int = 5) -> float:
    best = float("inf")
    for _ in range(n):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def _cpu(fn: Any) -> float:
    c = time.process_time()
    fn()
    return time.process_time() - c


def make_trace(path: Path, rows: int, seed: int = 0) -> None:
    """A nested importtime trace (child-first rows, depth by indentation, mixed stderr)."""
    rng = random.Random(seed)
    out = ["import time: self [us] | cumulative | imported package\n"]
    n = 0
    while n < rows:
        depth = rng.randint(0, 5)
        for d in range(depth, -1, -1):
            out.append(
                f"import time: {rng.randint(1, 999):>9} | {rng.randint(1, 9999):>10} | "
                f"{'  ' * d}pkg{n % 997}.mod{n}\n"
            )
            n += 1
        if n % 500 == 0:
            out.append("some program output on stderr\n")
    path.write_text("".join(out))


def bench_trace(workdir: Path) -> dict[str, Any]:
    from slim.ingest.python.importtime import load

    p = workdir / "python-importtime-20k.txt"
    make_trace(p, TRACE_ROWS)

    def floor() -> None:
        with open(p, "rb") as f:
            for line in f:
                line.split(b"|", 2)

    t = load(p)
    assert len(t.modules) >= TRACE_ROWS
    cpu = min(_cpu(lambda: load(p)) for _ in range(5))
    return _row(
        f"parse a {TRACE_ROWS // 1000}k-row -X importtime trace ({cpu:.3f} s CPU, "
        f"load average {os.getloadavg()[0]:.1f})",
        _best(lambda: load(p)),
        "read + split every line",
        _best(floor),
        0.2,
    )


def make_sources(root: Path, files: int, seed: int = 0) -> list[Any]:
    from slim_analyzers.python._workspace import SourceRequest

    rng = random.Random(seed)
    reqs = []
    for i in range(files):
        rel = f"pkg{i % 100}/mod{i}.py"
        p = root / rel
        if not p.exists():
            p.parent.mkdir(parents=True, exist_ok=True)
            body = [f'"""Module {i}."""', "from __future__ import annotations", "import os"]
            body += [f"import pkg{rng.randrange(100)}.mod{rng.randrange(files)}" for _ in range(8)]
            body += ["try:", "    import ujson as json", "except ImportError:", "    import json"]
            body += [
                "from typing import TYPE_CHECKING",
                "if TYPE_CHECKING:",
                "    import typing_only",
            ]
            for f in range(12):
                body += [
                    f"def f{f}(x: int) -> int:",
                    f"    import lazy{f}",
                    f"    return importlib.import_module('plug.p{f}') if x else x * {f}",
                    "",
                    f"class C{f}:",
                    "    def m(self, y: list[int]) -> int:",
                    "        return sum(v * 2 for v in y if v % 3)",
                ]
            p.write_text("\n".join(body) + "\n")
        reqs.append(SourceRequest(str(p), rel, f"pkg{i % 100}.mod{i}"))
    return reqs


def bench_static(workdir: Path, quick: bool) -> dict[str, Any]:
    from slim_analyzers.python._workspace import scan_files

    n = FILES_QUICK if quick else FILES_FULL
    reqs = make_sources(workdir / "python-src", n)

    def floor() -> None:
        for r in reqs:
            with open(r.file, "rb") as f:
                ast.parse(f.read())

    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu0 = time.process_time()
    t = time.perf_counter()
    res = scan_files(reqs, workers=2)
    measured = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = time.process_time() - cpu0 + (after.ru_utime + after.ru_stime)
    cpu -= before.ru_utime + before.ru_stime
    assert len(res) == n
    assert not any(r.error for r in res)
    return _row(
        f"static imports of {n // 1000}k files (2 processes; {cpu:.1f} s CPU in all, "
        f"load average {os.getloadavg()[0]:.1f})",
        measured,
        "ast.parse alone, 1 core",
        _best(floor, 1),
        20.0 * n / FILES_FULL,
    )


def bench_analysis(workdir: Path, quick: bool) -> dict[str, Any] | None:
    sys.path.insert(0, str(REPO / "benchmarks"))
    import bench_graph

    targets = bench_graph.scale(quick)
    graph_path, _ = bench_graph.graph_input(workdir, targets)
    os.environ["SLIM_CACHE_DIR"] = str(workdir / f"cache-{targets}")
    from slim_analyzers.python import SPEC

    from slim.infra.cache import load_graph_cached
    from slim.ingest.python.importtime import load
    from slim.model.context import AnalysisContext
    from slim.model.facts import Facts, InputFile
    from slim.model.options import RootOptions
    from slim.model.pymodules import graph_sources

    load_graph_cached([graph_path], None, use_cache=True)  # warm the cache
    t = time.perf_counter()
    g = load_graph_cached([graph_path], None, use_cache=True)
    load_s = time.perf_counter() - t
    root = next(i for i in range(len(g)) if g.kinds[i] == "py_binary")
    closure = AnalysisContext(graph=g, root=root, facts=Facts()).closure.tolist()
    mods = sorted(
        {s.module for i in closure if g.kinds[i].startswith("py_") for s in graph_sources(g, i)}
    )
    keep = mods[: max(0, len(mods) - 5)]  # the last few stay untraced: planted dead deps
    trace = workdir / f"python-trace-{targets}.txt"
    trace.write_text(
        "import time: self [us] | cumulative | imported package\n"
        + "".join(f"import time: {1:>9} | {1:>10} | {m}\n" for m in keep)
    )
    facts = Facts()
    facts.add(load(trace))
    facts.inputs.append(InputFile("trace", str(trace), "python-importtime"))
    t = time.perf_counter()
    ctx = AnalysisContext(graph=g, root=root, facts=facts, options=RootOptions())
    found = list(SPEC.factory().analyze(ctx))
    measured = time.perf_counter() - t
    n = sum(1 for f in found if f.code == "SLIM001")
    return _row(
        f"SLIM001 for {g.labels[root]} ({len(closure) // 1000}k-target closure, "
        f"{len(mods) // 1000}k py modules, {n} findings) of a {targets // 1000}k graph",
        measured,
        "loading the graph (cache)",
        load_s,
        5.0,
    )


def run(quick: bool, workdir: Path) -> list[dict[str, Any]]:
    workdir.mkdir(parents=True, exist_ok=True)
    rows = [bench_trace(workdir), bench_static(workdir, quick)]
    a = bench_analysis(workdir, quick)
    if a is not None:
        rows.append(a)
    return rows


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    for r in run(quick, REPO / "benchmarks" / "out"):
        print(json.dumps(r))
