"""Timing goals: parse a 1M-line .ninja_log and a 500 MB Bazel profile, plan on 1M targets.

Goals (floors measured in the same run on the same file):
* `.ninja_log` with 1M lines parses in <= 10 s, peak RSS bounded (<= 1 GiB);
* a 500 MB Bazel `--profile` (one event per line, as Bazel writes it; a third of its
  events are actions, 1.5M of them) parses in <= 10 s with peak RSS bounded by the
  actions kept, not the file (<= 768 MiB; non-action events are never decoded);
* planning (costs + savings) for one root on a 1M-target graph <= 5 s after loading.

Each case runs in a fresh subprocess that reports its own wall time, CPU time and peak
RSS (CPU time is shown because a loaded machine inflates wall time). Peak RSS is the
subprocess's `VmHWM`, not `ru_maxrss`, which Linux starts from the spawning process's
high-water mark: after `bench_cleanup` in the same `run.py`, every case read 1.2 GiB.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
MIB = 1 << 20
SEED = 0

_PARSE = r"""
import json, resource, sys, time
from pathlib import Path
kind, path = sys.argv[1], Path(sys.argv[2])
t, c = time.perf_counter(), time.process_time()
if kind == "ninja":
    from slim.ingest.timings.ninja_log import read_ninja_log as read
elif kind == "bazel":
    from slim.ingest.timings.bazel_profile import read_bazel_profile as read
ts = read(path)
wall, cpu = time.perf_counter() - t, time.process_time() - c
print(json.dumps({"wall": wall, "cpu": cpu, "actions": len(ts.actions),
                  "rss_kib": peak_rss_kib()}))
"""

_FLOOR = r"""
import json, resource, sys, time
t = time.perf_counter()
n = 0
with open(sys.argv[1], "rb") as f:
    for line in f:
        n += 1
print(json.dumps({"wall": time.perf_counter() - t, "lines": n,
                  "rss_kib": peak_rss_kib()}))
"""

_PLAN = r"""
import json, resource, sys, time
from pathlib import Path
from slim.infra.cache import load_graph_cached
from slim.model.facts import Facts
from slim.model.findings import Confidence, Finding
from slim.model.timing import TimedAction, TimingSet
from slim.model.graph import BUILD_KINDS
g = load_graph_cached([Path(sys.argv[1])], None, use_cache=True)
root = g.lookup(sys.argv[2])
t0 = time.perf_counter()
deps = [e.dep for e in g.out_edges(root, BUILD_KINDS)][:10]
findings = [
    Finding("SLIM002", "unreferenced-native-dep", g.labels[root], g.labels[d], "dead", "bench",
            Confidence.HIGH, True, root=g.labels[root], attribute="deps")
    for d in deps
]
facts = Facts()
sample = list(g.closure([root]).tolist())[:5000]
facts.add(TimingSet("bench", "bench", tuple(
    TimedAction(0.0, 1.0 + (i % 7), label=g.labels[t], mnemonic="CppCompile")
    for i, t in enumerate(sample))))
from slim.plan import plan_report
t1, c1 = time.perf_counter(), time.process_time()
plan = plan_report(g, [root], findings, facts)
t2, c2 = time.perf_counter(), time.process_time()
print(json.dumps({"wall": t2 - t1, "cpu": c2 - c1, "setup": t1 - t0,
                  "findings": len(plan.findings), "removed": len(plan.savings.total.removed),
                  "rss_kib": peak_rss_kib()}))
"""


_PEAK_RSS = r"""
import resource
def peak_rss_kib():
    # VmHWM: this program's own high-water mark. ru_maxrss starts from the spawning
    # process's (Linux keeps the parent's across fork and exec: after the cleanup
    # benchmark, the runner's 1.2 GiB).
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
"""


def _py(code: str, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-c", _PEAK_RSS + code, *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip().splitlines()[-1] if out.stderr else "failed")
    res: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return res


def _s(x: float) -> str:
    return f"{x:.2f} s"


def _mib(kib: int) -> str:
    return f"{kib / 1024:.0f} MiB"


def ninja_log(path: Path, lines: int) -> Path:
    """A log of `lines` lines: 4 runs over lines/4 outputs, times restarting each run."""
    if path.exists() and path.stat().st_size > lines * 40:
        return path
    per_run = lines // 4
    with path.open("w", encoding="ascii", buffering=1 << 20) as f:
        f.write("# ninja log v5\n")
        for _run in range(4):
            t = 0
            for i in range(per_run):
                t += 3
                f.write(
                    f"{t}\t{t + 50 + i % 97}\t17959454116834{i:05d}\t"
                    f"pkg{i % 1000}/CMakeFiles/t{i % 5000}.dir/src{i}.cc.o\t"
                    f"{(i * 2654435761) & 0xFFFFFFFFFFFF:x}\n"
                )
    return path


def bazel_profile(path: Path, size: int) -> Path:
    """A Bazel-4-shaped profile of about `size` bytes, one event per line."""
    if path.exists() and path.stat().st_size >= size:
        return path
    head = (
        '{"otherData":{"build_id":"bench","output_base":"<OUTPUT_BASE>"},"traceEvents":[\n'
        '    {"name":"thread_name","ph":"M","pid":1,"tid":0,"args":{"name":"Critical Path"}},\n'
    )
    with path.open("w", encoding="ascii", buffering=1 << 20) as f:
        f.write(head)
        written = len(head)
        i = 0
        while written < size:
            block = []
            for _ in range(1000):
                i += 1
                ts = i * 37
                block.append(
                    f'    {{"cat":"action processing","name":"Compiling pkg{i % 997}/src{i}.cc",'
                    f'"ph":"X","ts":{ts},"dur":{1000 + i % 5000},"pid":1,"tid":{3000 + i % 16}}},\n'
                    f'    {{"cat":"complete action execution","name":"actuallyCompleteAction",'
                    f'"ph":"X","ts":{ts + 900},"dur":{100 + i % 50},"pid":1,'
                    f'"tid":{3000 + i % 16}}},\n'
                    f'    {{"name":"action counters","ph":"C","ts":{ts},"pid":1,"tid":20,'
                    f'"args":{{"cpu":"1.{i % 9}"}}}},\n'
                )
            text = "".join(block)
            f.write(text)
            written += len(text)
        f.write(
            '    {"cat":"general information","name":"Finishing","ph":"i","ts":1,'
            '"pid":1,"tid":20}\n  ]\n}\n'
        )
    return path


def run(quick: bool, workdir: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    workdir.mkdir(parents=True, exist_ok=True)
    n_lines = 100_000 if quick else 1_000_000
    log = ninja_log(workdir / f"ninja_log-{n_lines}.txt", n_lines)
    floor = _py(_FLOOR, str(log))
    got = _py(_PARSE, "ninja", str(log))
    rows.append(
        {
            "case": f".ninja_log, {n_lines // 1000}k lines, 4 runs ({got['actions']} actions kept)",
            "measured": f"{_s(got['wall'])} (cpu {_s(got['cpu'])}), {_mib(got['rss_kib'])}",
            "floor": "python readline loop",
            "floor_measured": _s(floor["wall"]),
            "ratio": got["wall"] / max(floor["wall"], 1e-9),
            "goal": "≤ 10 s, ≤ 1 GiB",
            "ok": got["wall"] <= 10 and got["rss_kib"] <= 1024 * 1024,
        }
    )
    size = 50 * MIB if quick else 500 * MIB
    prof = bazel_profile(workdir / f"profile-{size // MIB}MiB.json", size)
    floor = _py(_FLOOR, str(prof))
    got = _py(_PARSE, "bazel", str(prof))
    rows.append(
        {
            "case": f"Bazel profile, {prof.stat().st_size / MIB:.0f} MiB "
            f"({got['actions']} actions)",
            "measured": f"{_s(got['wall'])} (cpu {_s(got['cpu'])}), {_mib(got['rss_kib'])}",
            "floor": "python readline loop",
            "floor_measured": _s(floor["wall"]),
            "ratio": got["wall"] / max(floor["wall"], 1e-9),
            "goal": "≤ 10 s, ≤ 768 MiB",
            "ok": got["wall"] <= 10 and got["rss_kib"] <= 768 * 1024,
        }
    )
    rows.append(_plan_row(quick, workdir))
    return rows


def _plan_row(quick: bool, workdir: Path) -> dict[str, Any]:
    sys.path.insert(0, str(REPO / "sample_graphs"))
    import generate_large

    n = int(os.environ.get("SLIM_BENCH_SCALE") or (100_000 if quick else 1_000_000))
    path = workdir / f"graph-{n}-s{SEED}.ndjson"
    meta = path.with_suffix(".stats.json")
    if not (path.exists() and meta.exists()):
        st = generate_large.generate(path, targets=n, seed=SEED)
        meta.write_text(json.dumps(st.__dict__))
    env = {**os.environ, "SLIM_CACHE_DIR": str(workdir / f"cache-{n}")}
    got = _py(_PLAN, str(path), "//app/bin0:bin0", env=env)
    return {
        "case": f"plan one root, {got['findings']} cuts, {n // 1000}k-target graph "
        f"({got['removed']} targets leave)",
        "measured": f"{_s(got['wall'])} (cpu {_s(got['cpu'])})",
        "floor": "graph load (excluded)",
        "floor_measured": "—",
        "goal": "≤ 5 s after loading",
        "ok": got["wall"] <= 5,
    }


if __name__ == "__main__":
    import argparse

    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    a = p.parse_args()
    for r in run(a.quick, REPO / "benchmarks" / "out"):
        print(r)
