"""`slim cleanup` at monorepo scale: 1,000 roots of a generated 1M-target graph.

Goals: the process-pool run finishes in <= 10 min with peak RSS <= 8 GiB (per-root median
reported); the same run on a Dask `LocalCluster` (2 workers x 1 thread) is <= 1.3x the
pool. The floor is one scipy BFS per root over the same graph, in one process: the least
work any per-root analysis must do. `--quick`: 100k targets, 100 roots.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FULL_ROOTS, QUICK_ROOTS = 1000, 100
GIB = 1 << 30


def _bench_graph() -> Any:
    spec = importlib.util.spec_from_file_location("bench_graph", HERE / "bench_graph.py")
    assert spec is not None
    assert spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def private_graph(workdir: Path, targets: int) -> Path:
    """This benchmark's own generated export (seed 0), made once: others may regenerate theirs."""
    sys.path.insert(0, str(HERE.parent / "sample_graphs"))
    import generate_large

    path = workdir / f"cleanup-graph-{targets}.ndjson"
    meta = path.with_suffix(".stats.json")
    if (
        path.exists()
        and meta.exists()
        and json.loads(meta.read_text()).get("bytes") == path.stat().st_size
    ):
        return path
    st = generate_large.generate(path, targets=targets, seed=0)
    meta.write_text(json.dumps(st.__dict__))
    return path


def pick_roots(graph: Any, n: int) -> list[str]:
    """The binaries first, then libraries of the top layer, up to `n` roots."""
    bins = [lab for lab, k in zip(graph.labels, graph.kinds, strict=False) if k.endswith("_binary")]
    libs = sorted(lab for lab in graph.labels if lab.startswith("//lib/l1/"))
    return (bins + libs)[:n]


_FLOOR = r"""
import json, sys, time
from pathlib import Path
from slim.infra.cache import load_graph_cached
from slim.model.graph import BUILD_KINDS
from scipy.sparse.csgraph import breadth_first_order
g = load_graph_cached([Path(sys.argv[1])], None, use_cache=True)
m = g.csr(BUILD_KINDS).astype("float64")
roots = json.loads(Path(sys.argv[2]).read_text())
t = time.perf_counter()
for r in roots:
    breadth_first_order(m, g.lookup(r), directed=True, return_predecessors=False)
print(json.dumps({"bfs": time.perf_counter() - t}))
"""


def _in_run(stderr: str) -> float | None:
    """Seconds of the analysis itself (graph already loaded), from the run summary line."""
    m = re.search(r"run \d+: \d+ roots \(\d+ resumed\), ([0-9.]+) s", stderr)
    return float(m.group(1)) if m else None


def _median(stderr: str) -> float | None:
    m = re.search(r"per-root median ([0-9.]+) s", stderr)
    return float(m.group(1)) if m else None


def run(quick: bool, workdir: Path) -> list[dict[str, Any]]:
    bg = _bench_graph()
    targets = bg.scale(quick)
    n_roots = QUICK_ROOTS if quick else FULL_ROOTS
    path = private_graph(workdir, targets)
    cache = workdir / f"cache-cleanup-{targets}"
    env = {**os.environ, "SLIM_CACHE_DIR": str(cache)}
    os.environ["SLIM_CACHE_DIR"] = str(cache)
    empty = workdir / "cleanup-empty-slim.toml"
    empty.write_text("# no config: the benchmark passes everything on the command line\n")
    warm = bg.measure(
        bg._slim_cmd(
            "report",
            "//app/bin0:bin0",
            "--graph",
            str(path),
            "--config",
            str(empty),
            "--format",
            "json",
        ),
        env,
    )
    from slim.infra.cache import load_graph_cached

    graph = load_graph_cached([path], None, use_cache=True)
    roots = pick_roots(graph, n_roots)
    del graph
    roots_file = workdir / f"cleanup-roots-{targets}.json"
    roots_file.write_text(json.dumps(roots))
    floor = bg.measure([sys.executable, "-c", _FLOOR, str(path), str(roots_file)], env)
    floor_s = (
        json.loads(floor["stdout"].strip().splitlines()[-1])["bfs"]
        if floor["rc"] == 0
        else float("nan")
    )

    def cleanup(*extra: str) -> dict[str, Any]:
        db = workdir / f"cleanup-{targets}.sqlite"
        cmd = bg._slim_cmd(
            "cleanup",
            *roots,
            "--graph",
            str(path),
            "--config",
            str(empty),
            "--db",
            str(db),
            "--fresh",
            "--out-dir",
            str(workdir / "cleanup-out"),
            *extra,
        )
        return bg.measure(cmd, env)

    pool = cleanup("-j", "2")
    rows: list[dict[str, Any]] = [
        {
            "case": f"warm parsed-graph cache ({targets:,} targets)",
            "measured": bg._s(warm["wall"]),
            "measured_s": warm["wall"],
        }
    ]
    ok_pool = pool["rc"] == 0
    limit = 600.0
    rows.append(
        {
            "case": f"`slim cleanup` {len(roots)} roots, process pool -j 2"
            + ("" if ok_pool else f" FAILED rc={pool['rc']}: {pool['stderr'][-300:]}"),
            "measured": bg._s(pool["wall"]),
            "measured_s": pool["wall"],
            "floor": f"{len(roots)} BFS closures, 1 process",
            "floor_measured": bg._s(floor_s),
            "floor_s": floor_s,
            "ratio": pool["wall"] / floor_s if floor_s else None,
            "goal": "≤ 600 s" if not quick else "≤ 600 s (full scale)",
            "ok": ok_pool and pool["wall"] <= limit,
        }
    )
    in_run = _in_run(pool["stderr"])
    rows.append(
        {
            "case": "… of which analysis (graph loaded, pool)",
            "measured": "—" if in_run is None else bg._s(in_run),
            "measured_s": in_run,
            "goal": "informational",
        }
    )
    med = _median(pool["stderr"])
    rows.append(
        {
            "case": "per-root median (pool)",
            "measured": "—" if med is None else bg._s(med),
            "measured_s": med,
            "floor": "BFS per root",
            "floor_measured": bg._s(floor_s / len(roots)),
            "floor_s": floor_s / len(roots),
            "goal": "reported",
            "ok": med is not None,
        }
    )
    rows.append(
        {
            "case": "peak RSS of the pool run (largest process)",
            "measured": bg._gib(pool["rss_kib"]),
            "measured_s": None,
            "goal": "≤ 8 GiB",
            "ok": ok_pool and pool["rss_kib"] * 1024 <= 8 * GIB,
        }
    )
    try:
        from distributed import LocalCluster
    except ImportError:
        rows.append(
            {"case": "Dask LocalCluster", "measured": "distributed not installed", "ok": False}
        )
        return rows
    t = time.perf_counter()
    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        env={"SLIM_CACHE_DIR": str(cache)},
    ) as cluster:
        started = time.perf_counter() - t
        dask = cleanup("--scheduler", cluster.scheduler_address)
    ok_dask = dask["rc"] == 0
    ratio = dask["wall"] / pool["wall"] if pool["wall"] else float("inf")
    rows.append(
        {
            "case": f"`slim cleanup` {len(roots)} roots, Dask LocalCluster 2x1"
            + ("" if ok_dask else f" FAILED rc={dask['rc']}: {dask['stderr'][-300:]}")
            + f" (cluster start {started:.1f} s, not counted)",
            "measured": bg._s(dask["wall"]),
            "measured_s": dask["wall"],
            "floor": "the process-pool run",
            "floor_measured": bg._s(pool["wall"]),
            "floor_s": pool["wall"],
            "ratio": ratio,
            "goal": "≤ 1.3× pool",
            "ok": ok_dask and ok_pool and ratio <= 1.3,
        }
    )
    med = _median(dask["stderr"])
    rows.append(
        {
            "case": "per-root median (Dask)",
            "measured": "—" if med is None else bg._s(med),
            "measured_s": med,
            "goal": "reported",
            "ok": med is not None,
        }
    )
    return rows


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    out = HERE / "out"
    out.mkdir(exist_ok=True)
    for row in run(quick, out):
        print(row)
