"""Run every benchmark module and print one markdown table.

    python benchmarks/run.py [--quick] [--scale 1000000] [--only graph]

Each `benchmarks/bench_*.py` that defines `run(quick: bool, workdir: Path) -> list[dict]`
contributes rows with the keys: case, measured, floor, floor_measured, ratio, goal, ok
(a floor is a lower bound measured in the same run: the time to merely decode the same
input, say). Generated inputs go to `benchmarks/out/` (gitignored). `--scale` is passed
to the modules as the environment variable SLIM_BENCH_SCALE.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
COLUMNS = ("case", "measured", "floor (what)", "floor measured", "ratio", "goal", "ok")


def discover(only: list[str]) -> list[ModuleType]:
    mods = []
    for path in sorted(HERE.glob("bench_*.py")):
        name = path.stem
        if only and name.removeprefix("bench_") not in only and name not in only:
            continue
        spec = importlib.util.spec_from_file_location(f"benchmarks.{name}", path)
        if spec is None or spec.loader is None:
            continue
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        if callable(getattr(mod, "run", None)):
            mods.append(mod)
    return mods


def _cell(row: dict[str, Any], key: str) -> str:
    v = row.get(key)
    if v is None:
        return "—"
    if key == "ok":
        return "yes" if v else "**NO**"
    if key == "ratio" and isinstance(v, float):
        return f"{v:.2f}×"
    return str(v).replace("|", "\\|")


def table(rows: list[dict[str, Any]]) -> str:
    keys = ("case", "measured", "floor", "floor_measured", "ratio", "goal", "ok")
    out = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    out += ["| " + " | ".join(_cell(r, k) for k in keys) + " |" for r in rows]
    return "\n".join(out)


def _compile_bytecode() -> None:
    """Write slim's bytecode first, as an installed package has it: with
    PYTHONDONTWRITEBYTECODE set (or a read-only checkout) every command would otherwise
    compile each module it imports, and the timings would measure the compiler."""
    import compileall

    for pkg in ("slim", "analyzers"):
        compileall.compile_dir(str(HERE.parent / pkg), quiet=1)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="slim benchmarks: one markdown table")
    p.add_argument("--quick", action="store_true", help="small inputs (100k targets)")
    p.add_argument("--scale", type=int, default=None, help="targets in the generated graph")
    p.add_argument("--only", action="append", default=[], help="only this module (repeatable)")
    p.add_argument("--workdir", type=Path, default=HERE / "out")
    a = p.parse_args(argv)
    if a.scale is not None:
        os.environ["SLIM_BENCH_SCALE"] = str(a.scale)
    if importlib.util.find_spec("orjson") is None:
        print(
            "benchmarks: the floors are orjson decodes; install it: pip install -e '.[bench]'",
            file=sys.stderr,
        )
        return 2
    a.workdir.mkdir(parents=True, exist_ok=True)
    _compile_bytecode()
    rows: list[dict[str, Any]] = []
    failed = False
    for mod in discover(a.only):
        t0 = time.perf_counter()
        print(f"running {mod.__name__} ...", file=sys.stderr, flush=True)
        try:
            rows.extend(mod.run(a.quick, a.workdir))
        except Exception as exc:  # noqa: BLE001  (one broken module must not hide the rest)
            failed = True
            rows.append({"case": f"{mod.__name__}: {type(exc).__name__}: {exc}", "ok": False})
        print(f"  done in {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    print(table(rows))
    return 1 if failed or any(r.get("ok") is False for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
