"""Fatbin walking speed against `cuobjdump --list-elf` on an nvcc-built CUDA library.

The issue's target is a ~500 MB framework library (475 containers, ~3,000 zstd cubins):
the real one, `libtorch_cuda.so` of the CUDA torch wheel on PyPI, is fetched with
`pip download --no-deps torch==2.14.1` into benchmarks/out (full runs only). Beside it,
the biggest honest stand-in built here: generated translation units (each one fatbin
container) of unrolled template kernels, compiled by nvcc for 8 architectures (7 cubins +
PTX, `-Xfatbin=-compress-all`, i.e. zstd like the real ones) and linked into one shared
library. Goals:

* header walk (every container and entry) <= 1/20 of `cuobjdump --list-elf` on the same
  file, and the same cubins per architecture (agreement is part of `ok`);
* full listing (plus every kernel name, decompressing every cubin) reported against the
  same cuobjdump time.

cuobjdump comes from $CUOBJDUMP, PATH, or the PyPI wheel `nvidia-cuda-cuobjdump`
(`pip download nvidia-cuda-cuobjdump` and unzip; not a project dependency).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ARCHS = (75, 80, 86, 89, 90, 100, 120)
PTX_ARCH = 90
FULL = {"tus": 120, "kernels": 16, "unroll": 192}
QUICK = {"tus": 6, "kernels": 4, "unroll": 32}

_KERNEL_TU = """#include <cuda_runtime.h>
namespace slimbench{tu} {{
template <int K, int U>
__global__ void op(float* __restrict__ a, const float* __restrict__ b, int n) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i], y = b[i];
#pragma unroll
  for (int j = 0; j < U; ++j) {{
    x = x * y + (float)(K * 31 + j);
    y = y * 0.999f + x * 1e-3f;
    if (j % 7 == K % 7) x = __sinf(x);
  }}
  a[i] = x + y;
}}
{instances}
void launch(float* a, const float* b, int n) {{
{launches}
}}
}}  // namespace slimbench{tu}
"""


def _cuobjdump() -> str | None:
    env = os.environ.get("CUOBJDUMP")
    if env and Path(env).exists():
        return env
    return shutil.which("cuobjdump")


def _gencode() -> list[str]:
    out = []
    for a in ARCHS:
        code = f"[sm_{a},compute_{a}]" if a == PTX_ARCH else f"sm_{a}"
        out += ["-gencode", f"arch=compute_{a},code={code}"]
    return out


def build_library(workdir: Path, tus: int, kernels: int, unroll: int) -> Path:
    """`libslimbench_gpu.so` from `tus` nvcc-compiled units (cached by its parameters)."""
    tag = f"t{tus}_k{kernels}_u{unroll}"
    root = workdir / f"gpu_{tag}"
    lib = root / "libslimbench_gpu.so"
    if lib.exists():
        return lib
    root.mkdir(parents=True, exist_ok=True)
    srcs = []
    for t in range(tus):
        ks = [t * 1000 + k for k in range(kernels)]
        inst = "\n".join(
            f"template __global__ void op<{k}, {unroll}>(float*, const float*, int);" for k in ks
        )
        launch = "\n".join(f"  op<{k}, {unroll}><<<(n + 255) / 256, 256>>>(a, b, n);" for k in ks)
        src = root / f"tu{t:04d}.cu"
        src.write_text(_KERNEL_TU.format(tu=t, instances=inst, launches=launch), encoding="utf-8")
        srcs.append(src)

    def compile_one(src: Path) -> Path:
        obj = src.with_suffix(".o")
        if not obj.exists():
            cmd = ["nvcc", "-O2", "-Xcompiler", "-fPIC", "-Xfatbin=-compress-all", *_gencode()]
            subprocess.run([*cmd, "-c", str(src), "-o", str(obj)], check=True, capture_output=True)
        return obj

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        objs = list(pool.map(compile_one, srcs))
    tmp = lib.with_suffix(".tmp.so")
    subprocess.run(
        ["nvcc", "-shared", "-Xcompiler", "-fPIC", *map(str, objs), "-o", str(tmp)],
        check=True,
        capture_output=True,
    )
    tmp.replace(lib)
    return lib


def _best(fn: Any, n: int) -> tuple[float, float, Any]:
    """Best CPU seconds and best wall seconds of `n` calls, and the last result."""
    cpu, wall, out = float("inf"), float("inf"), None
    for _ in range(n):
        c, w = time.process_time(), time.perf_counter()
        out = fn()
        cpu = min(cpu, time.process_time() - c)
        wall = min(wall, time.perf_counter() - w)
    return cpu, wall, out


#: Runs a command and writes its CPU seconds, wall seconds, exit code and peak RSS (KiB)
#: to the file named first. A child of this small process: Linux starts a process's
#: `ru_maxrss` from its parent's high-water mark, the benchmark runner's 1.2 GiB after
#: `bench_cleanup`.
_SPAWN = r"""
import os, subprocess, sys, time
w = time.perf_counter()
p = subprocess.Popen(sys.argv[2:], stderr=subprocess.DEVNULL)
_, status, usage = os.wait4(p.pid, 0)
wall = time.perf_counter() - w
with open(sys.argv[1], "w") as f:
    cpu = usage.ru_utime + usage.ru_stime
    f.write(f"{cpu} {wall} {os.waitstatus_to_exitcode(status)} {usage.ru_maxrss}")
"""


def _tool(cmd: list[str]) -> tuple[float, float, str, int]:
    """CPU seconds (user+sys), wall seconds, stdout and peak RSS (KiB) of one command."""
    import tempfile

    with tempfile.NamedTemporaryFile("r", suffix=".usage") as usage:
        out = subprocess.run(
            [sys.executable, "-c", _SPAWN, usage.name, *cmd], capture_output=True, check=True
        ).stdout.decode("utf-8", "replace")
        cpu, wall, rc, rss = usage.read().split()
    if int(rc) != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {rc}")
    return float(cpu), float(wall), out, int(rss)


def _best_tool(cmd: list[str], n: int = 3) -> tuple[float, float, str, int]:
    runs = [_tool(cmd) for _ in range(n)]
    return min(r[0] for r in runs), min(r[1] for r in runs), runs[0][2], max(r[3] for r in runs)


def _s(cpu: float | None, wall: float | None = None) -> str | None:
    if cpu is None:
        return None
    return f"{cpu:.4f} s CPU" + (f" ({wall:.4f} s wall)" if wall is not None else "")


TORCH_WHEEL = "torch==2.14.1"
"""The CUDA build on PyPI: its `libtorch_cuda.so` (503 MB) carries 475 containers, 2,975
cubins (sm_75 ... sm_121a)."""


def torch_library(workdir: Path) -> Path | None:
    """`libtorch_cuda.so` of the real torch wheel, fetched with pip into `workdir` once
    (None when pip cannot reach the package index)."""
    lib = workdir / "torch" / "lib" / "libtorch_cuda.so"
    if lib.exists():
        return lib
    got = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", TORCH_WHEEL, "-d", str(workdir)],
        capture_output=True,
        check=False,
    )
    wheels = sorted(workdir.glob("torch-2.14.1-*.whl"))
    if got.returncode != 0 or not wheels:
        return None
    import zipfile

    with zipfile.ZipFile(wheels[0]) as z:
        z.extract("torch/lib/libtorch_cuda.so", workdir)
    return lib


def real_library_row(workdir: Path, tool: str) -> dict[str, Any]:
    """The header walk of the real libtorch_cuda.so against `cuobjdump --list-elf`."""
    from slim.ingest.binary.fatbin import read_device_code

    lib = torch_library(workdir)
    if lib is None:
        return {"case": f"fatbin walk of {TORCH_WHEEL}'s libtorch_cuda.so: no wheel", "ok": None}
    walk_cpu, walk_wall, (dc,) = _best(
        lambda: read_device_code(lib, kernels=False, digests=False, host=False), 3
    )
    ref_cpu, ref_wall, listing, rss = _best_tool([tool, "--list-elf", str(lib)], 1)
    theirs = Counter(re.findall(r"\.(sm_\d+a?)\.cubin$", listing, flags=re.M))
    ours = Counter(e.arch_name.rstrip("f") for e in dc.entries if e.is_cubin)  # cuobjdump: no f
    agree = theirs == ours
    return {
        "case": f"fatbin header walk of {TORCH_WHEEL}'s libtorch_cuda.so "
        f"({lib.stat().st_size / 1e6:.0f} MB, {len(dc.containers)} containers, "
        f"{sum(ours.values())} cubins)",
        "measured": _s(walk_cpu, walk_wall),
        "measured_s": round(walk_cpu, 4),
        "floor": "cuobjdump --list-elf",
        "floor_s": round(ref_cpu, 4),
        "floor_measured": _s(ref_cpu, ref_wall),
        "ratio": walk_cpu / ref_cpu,
        "goal": f"< cuobjdump and the same cubins per arch, sm_90a apart from sm_90 "
        f"(cuobjdump {'agrees' if agree else 'DISAGREES'}; its peak RSS {rss / 1024:.0f} MiB)",
        "ok": agree and walk_cpu < ref_cpu,
    }


def run(quick: bool, workdir: Path) -> list[dict[str, Any]]:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from slim.ingest.binary.fatbin import read_device_code

    params = QUICK if quick else FULL
    if shutil.which("nvcc") is None:
        return [
            {
                "case": "fatbin walk",
                "measured": None,
                "measured_s": None,
                "goal": "skipped: nvcc not installed",
                "ok": True,
            }
        ]
    lib = build_library(workdir, **params)
    size_mb = lib.stat().st_size / 1e6
    walk_cpu, walk_wall, (dc,) = _best(
        lambda: read_device_code(lib, kernels=False, digests=False, host=False), 7
    )
    full_cpu, full_wall, (full,) = _best(lambda: read_device_code(lib), 3)
    containers = len(dc.containers)
    entries = list(dc.entries)
    ours = Counter(e.arch_name.rstrip("f") for e in entries if e.is_cubin)
    n_kernels = sum(len(e.kernels or ()) for e in full.entries)
    desc = (
        f"{size_mb:.1f} MB .so, {containers} containers, {len(entries)} entries "
        f"({sum(ours.values())} zstd cubins), {n_kernels} kernel symbols"
    )
    tool = _cuobjdump()
    if tool is None:
        return [
            {
                "case": f"fatbin header walk: {desc}",
                "measured": _s(walk_cpu, walk_wall),
                "measured_s": round(walk_cpu, 4),
                "goal": "no cuobjdump to compare with (set CUOBJDUMP)",
                "ok": None,
            }
        ]
    ref_cpu, ref_wall, listing, rss = _best_tool([tool, "--list-elf", str(lib)])
    theirs = Counter(re.findall(r"\.(sm_\d+a?)\.cubin$", listing, flags=re.M))
    agree = theirs == ours
    sym_cpu, sym_wall, dump, _ = _best_tool([tool, "-elf", "-symbols", str(lib)], 1)
    # -symbols prints each symbol twice (section dump, then a summary starting with FUNC).
    entry_syms = len(re.findall(r"^FUNC\s+GLOBAL\s+\S+\s+ENTRY\b", dump, flags=re.M))
    cubin_kernels = sum(len(e.kernels or ()) for e in full.entries if e.is_cubin)
    same_kernels = entry_syms == cubin_kernels
    note = f"cuobjdump {'agrees' if agree else 'DISAGREES'}; its peak RSS {rss / 1024:.0f} MiB"
    real = [] if quick else [real_library_row(workdir, tool)]
    return [
        *real,
        {
            "case": f"fatbin header walk: {desc}",
            "measured": _s(walk_cpu, walk_wall),
            "measured_s": round(walk_cpu, 4),
            "floor": "cuobjdump --list-elf / 20",
            "floor_s": round(ref_cpu / 20, 4),
            "floor_measured": _s(ref_cpu / 20, ref_wall / 20),
            "ratio": walk_cpu / ref_cpu,
            "goal": f"<= 1/20 of cuobjdump (CPU time) and the same cubins per arch ({note})",
            "ok": agree and walk_cpu <= ref_cpu / 20,
        },
        {
            "case": f"every kernel name (decompressing every cubin): {desc}",
            "measured": _s(full_cpu, full_wall),
            "measured_s": round(full_cpu, 4),
            "floor": "cuobjdump -elf -symbols",
            "floor_s": round(sym_cpu, 4),
            "floor_measured": _s(sym_cpu, sym_wall),
            "ratio": full_cpu / sym_cpu,
            "goal": f"<= cuobjdump -elf -symbols and the same cubin ENTRY symbols "
            f"({cubin_kernels} here, {entry_syms} there)",
            "ok": same_kernels and full_cpu <= sym_cpu,
        },
    ]


if __name__ == "__main__":
    out = Path(__file__).resolve().parent / "out"
    for row in run("--quick" in sys.argv, out):
        print(row)
