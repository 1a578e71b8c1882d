"""Foundation goals on a generated Bazel streamed_jsonproto export (1M targets, ~16M edges).

Goals (each floor is measured in the same run on the same file):
* load + one `slim report` <= 2x the orjson line-by-line decode time, peak RSS <= 2 GiB;
* a second query through the parsed-graph cache <= 1 s;
* `slim why` <= 0.5 s once the graph is loaded;
* `slim --help` <= 0.1 s.

Every command runs in a fresh subprocess under a small wrapper that reports its wall time
and `getrusage(RUSAGE_CHILDREN).ru_maxrss`. `python benchmarks/bench_graph.py --profile F`
prints a cProfile top list of loading F.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parent.parent
FULL_SCALE = 1_000_000
QUICK_SCALE = 100_000
SEED = 0
GIB = 1 << 30

_WRAP = r"""
import json, resource, subprocess, sys, time
cmd, timeout = json.loads(sys.argv[1]), float(sys.argv[2])
t = time.perf_counter()
try:
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    rc, out, err = r.returncode, r.stdout, r.stderr
except subprocess.TimeoutExpired as exc:
    rc, out, err = "timeout", exc.stdout or b"", b"timed out after %d s" % timeout
wall = time.perf_counter() - t
print(json.dumps({"wall": wall, "rss_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
                  "rc": rc, "stdout": out.decode(errors="replace")[-3000:],
                  "stderr": err.decode(errors="replace")[-3000:]}))
"""
TIMEOUT_S = float(os.environ.get("SLIM_BENCH_TIMEOUT", "900"))

_ORJSON_FLOOR = r"""
import sys
try:
    from orjson import loads
except ImportError:
    from json import loads
n = 0
with open(sys.argv[1], "rb") as f:
    for line in f:
        loads(line)
        n += 1
print(n)
"""

_WHY_AFTER_LOAD = r"""
import json, sys, time
from pathlib import Path
from slim.infra.cache import load_graph_cached
from slim.model.graph import BUILD_KINDS
t0 = time.perf_counter()
g = load_graph_cached([Path(sys.argv[1])], None, use_cache=True)
t1 = time.perf_counter()
a, b = g.lookup(sys.argv[2]), g.lookup(sys.argv[3])
paths = g.shortest_paths(a, b, BUILD_KINDS, limit=5)
t2 = time.perf_counter()
print(json.dumps({"load": t1 - t0, "why": t2 - t1, "paths": len(paths)}))
"""


def measure(cmd: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """Wall time, peak RSS (KiB) and output of `cmd` run in a fresh process."""
    out = subprocess.run(
        [sys.executable, "-c", _WRAP, json.dumps(cmd), str(TIMEOUT_S)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    res: dict[str, Any] = json.loads(out.stdout)
    return res


def best_of(cmd: list[str], n: int, env: dict[str, str] | None = None) -> dict[str, Any]:
    runs = [measure(cmd, env) for _ in range(n)]
    return min(runs, key=lambda r: float(r["wall"]))


def scale(quick: bool) -> int:
    env = os.environ.get("SLIM_BENCH_SCALE")
    if env:
        return int(env)
    return QUICK_SCALE if quick else FULL_SCALE


def _generator() -> ModuleType:
    """sample_graphs/generate_large.py (not a package: slim never imports it)."""
    path = REPO / "sample_graphs" / "generate_large.py"
    spec = importlib.util.spec_from_file_location("generate_large", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("generate_large", mod)
    spec.loader.exec_module(mod)
    return mod


def graph_input(workdir: Path, targets: int) -> tuple[Path, dict[str, Any]]:
    """The generated export for this scale, made once and reused (stats kept beside it)."""
    generate_large = _generator()

    path = workdir / f"graph-{targets}-s{SEED}.ndjson"
    meta = path.with_suffix(".stats.json")
    version = hashlib.sha256(
        (REPO / "sample_graphs" / "generate_large.py").read_bytes()
    ).hexdigest()[:16]
    if path.exists() and meta.exists():
        stats: dict[str, Any] = json.loads(meta.read_text())
        if stats.get("bytes") == path.stat().st_size and stats.get("generator") == version:
            return path, stats
    t = time.perf_counter()
    st = generate_large.generate(path, targets=targets, seed=SEED)
    stats = {
        **st.__dict__,
        "generator": version,
        "generate_s": round(time.perf_counter() - t, 1),
    }
    meta.write_text(json.dumps(stats))
    return path, stats


def _s(x: float) -> str:
    return f"{x:.3f} s" if x < 10 else f"{x:.1f} s"


def _gib(kib: int) -> str:
    return f"{kib / (1 << 20):.2f} GiB"


def _slim_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "slim", *args]


def run(quick: bool, workdir: Path) -> list[dict[str, Any]]:
    n = scale(quick)
    path, stats = graph_input(workdir, n)
    size = (
        f"{n // 1000}k targets, {stats['edges'] / 1e6:.1f}M edges, {stats['bytes'] / GIB:.2f} GiB"
    )
    cache = workdir / f"cache-{n}"
    shutil.rmtree(cache, ignore_errors=True)
    env = {**os.environ, "SLIM_CACHE_DIR": str(cache)}
    cfg = workdir / "empty-slim.toml"
    cfg.write_text("# no inputs: the benchmark passes --graph\n")
    root, hub = "//app/bin0:bin0", "//base/hub0:hub0"
    rows: list[dict[str, Any]] = []

    wc = measure(["wc", "-l", str(path)])  # also warms the page cache
    try:
        import orjson  # noqa: F401

        decoder = "orjson"
    except ImportError:
        decoder = "json (orjson not installed)"
    floor = measure([sys.executable, "-c", _ORJSON_FLOOR, str(path)])
    rows.append(
        {
            "case": f"input ({size})",
            "measured": f"wc -l {_s(wc['wall'])}",
            "floor": f"{decoder} line-by-line decode",
            "floor_measured": _s(floor["wall"]),
        }
    )

    out = workdir / "report.json"
    report_cmd = _slim_cmd(
        "report",
        "--config",
        str(cfg),
        "--graph",
        str(path),
        root,
        "--format",
        "json",
        "-o",
        str(out),
    )
    first = measure(report_cmd, env)
    ok_first = first["rc"] in (0, 1)
    ratio = first["wall"] / floor["wall"]
    rows.append(
        {
            "case": "load + one `slim report` (cold cache)"
            + ("" if ok_first else f" FAILED rc={first['rc']}: {first['stderr'][-200:]}"),
            "measured": _s(first["wall"]),
            "floor": f"{decoder} line decode",
            "floor_measured": _s(floor["wall"]),
            "ratio": ratio,
            "goal": "≤ 2× floor",
            "ok": ok_first and ratio <= 2.0,
        }
    )
    rows.append(
        {
            "case": "peak RSS of load + report",
            "measured": _gib(first["rss_kib"]),
            "floor": f"{decoder} line decode RSS",
            "floor_measured": _gib(floor["rss_kib"]),
            "ratio": first["rss_kib"] / max(1, floor["rss_kib"]),
            "goal": "≤ 2 GiB",
            "ok": ok_first and first["rss_kib"] * 1024 <= 2 * GIB,
        }
    )

    startup = best_of([sys.executable, "-c", "pass"], 5)
    second = measure(report_cmd, env)
    rows.append(
        {
            "case": "second `slim report` (parsed-graph cache)",
            "measured": _s(second["wall"]),
            "floor": "python startup",
            "floor_measured": _s(startup["wall"]),
            "ratio": second["wall"] / startup["wall"],
            "goal": "≤ 1 s",
            "ok": second["rc"] in (0, 1) and second["wall"] <= 1.0,
        }
    )

    why = measure([sys.executable, "-c", _WHY_AFTER_LOAD, str(path), root, hub], env)
    w = json.loads(why["stdout"]) if why["rc"] == 0 else {"why": why["wall"], "load": 0.0}
    rows.append(
        {
            "case": f"`slim why` after load ({root} → {hub})"
            + ("" if why["rc"] == 0 else f" FAILED rc={why['rc']}: {why['stderr'][-200:]}"),
            "measured": _s(w["why"]),
            "floor": "cache load (excluded)",
            "floor_measured": _s(w["load"]),
            "goal": "≤ 0.5 s",
            "ok": why["rc"] == 0 and w["why"] <= 0.5,
        }
    )
    why_cli = measure(_slim_cmd("why", "--config", str(cfg), "--graph", str(path), root, hub), env)
    rows.append(
        {
            "case": "`slim why` CLI end to end (warm cache)",
            "measured": _s(why_cli["wall"]),
            "floor": "python startup",
            "floor_measured": _s(startup["wall"]),
            "ratio": why_cli["wall"] / startup["wall"],
            "goal": "—",
        }
    )

    help_ = best_of(_slim_cmd("--help"), 5)
    rows.append(
        {
            "case": "`slim --help` (best of 5)",
            "measured": _s(help_["wall"]),
            "floor": "python startup",
            "floor_measured": _s(startup["wall"]),
            "ratio": help_["wall"] / startup["wall"],
            "goal": "≤ 0.1 s",
            "ok": help_["rc"] == 0 and help_["wall"] <= 0.1,
        }
    )
    return rows


def profile(path: Path, top: int = 15) -> None:
    """cProfile of loading `path` (no cache): where the time goes."""
    import cProfile
    import pstats

    from slim.ingest import load_graph

    prof = cProfile.Profile()
    t = time.perf_counter()
    prof.enable()
    g = load_graph([path])
    prof.disable()
    print(
        f"loaded {len(g.labels)} targets, {len(g.edge_src)} edges in "
        f"{time.perf_counter() - t:.1f} s (under cProfile)"
    )
    for key in ("tottime", "cumulative"):
        pstats.Stats(prof).sort_stats(key).print_stats(top)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--profile":
        profile(Path(sys.argv[2]))
    else:
        print("usage: python benchmarks/bench_graph.py --profile GRAPH_FILE", file=sys.stderr)
        sys.exit(2)
