"""Damaged import traces: real traces (real packages, and CPython runs made here) cut short,
or with NUL bytes, are refused with `FILE:LINE`; complete ones are read.

A trace cut short silently loses the imports that came last and their importers, which
would make a dependency look unused.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from slim.errors import InputError
from slim.ingest.python import audit_trace, importtime, python_verbose

REAL = Path(__file__).parents[2] / "data" / "python" / "real"
READERS = {
    "scipy.v.txt": python_verbose.load,
    "pandas.importtime.txt": importtime.load,
    "sklearn.slimtrace.jsonl": audit_trace.load,
}


def _cut(tmp_path: Path, name: str, data: bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


@pytest.mark.parametrize("name", sorted(READERS))
def test_a_real_trace_cut_mid_line_is_refused(tmp_path: Path, name: str) -> None:
    data = (REAL / name).read_bytes()
    assert READERS[name](REAL / name).names()
    for size in (len(data) // 10, len(data) // 2, len(data) - 2):
        at = data.rfind(b"\n", 0, size) + 1
        size = max(size, at + 5)  # inside a line, past its first characters
        p = _cut(tmp_path, name, data[:size])
        with pytest.raises(InputError) as exc:
            READERS[name](p)
        msg = str(exc.value)
        assert msg.startswith(f"{p}:"), msg
        assert "\n" not in msg


@pytest.mark.parametrize("name", ["scipy.v.txt", "sklearn.slimtrace.jsonl"])
def test_a_real_trace_cut_at_a_line_is_refused(tmp_path: Path, name: str) -> None:
    """-v and slim-trace recordings say where they end (the interpreter's exit, the end
    record): a cut at any line before it is refused."""
    data = (REAL / name).read_bytes()
    for frac in (10, 2):
        size = data.index(b"\n", len(data) // frac) + 1
        p = _cut(tmp_path, name, data[:size])
        with pytest.raises(InputError, match=r"(truncated|cut short)"):
            READERS[name](p)


def test_a_real_importtime_trace_cut_inside_an_import_is_refused(tmp_path: Path) -> None:
    data = (REAL / "pandas.importtime.txt").read_bytes()
    lines = data.split(b"\n")
    # the last row nested in an import (its parent's row comes later): cut after it
    k = max(i for i, ln in enumerate(lines[:-2]) if b"|   " in ln and b"|  " in lines[i + 1])
    p = _cut(tmp_path, "it.txt", b"\n".join(lines[: k + 1]) + b"\n")
    with pytest.raises(InputError, match=r"it ends inside the import of .* \(truncated\?\)"):
        importtime.load(p)


@pytest.mark.parametrize("name", sorted(READERS))
def test_a_nul_byte_in_a_real_trace_is_refused_with_its_line(tmp_path: Path, name: str) -> None:
    data = bytearray((REAL / name).read_bytes())
    at = data.index(b"\n", len(data) // 3) + 6
    data[at] = 0
    line = data.count(b"\n", 0, at) + 1
    p = _cut(tmp_path, name, bytes(data))
    with pytest.raises(InputError) as exc:
        READERS[name](p)
    assert str(exc.value).startswith(f"{p}:{line}: expected text, found a NUL byte at column 6")


def test_a_real_verbose_trace_of_a_program_killed_before_its_exit_is_refused(
    tmp_path: Path,
) -> None:
    """`python -v` of a program that ends normally is read; the same program killed
    (no interpreter exit printed) gives a trace that may lack any import after the
    kill point's last line: refused, with the way out (stop it so it exits)."""
    code = "import json, decimal, email.parser, sys, time; print('ready', flush=True)\n"
    code += "if sys.argv[1:]: time.sleep(60)\n"
    done = subprocess.run(
        [sys.executable, "-v", "-c", code], cwd=tmp_path, capture_output=True, check=True
    )
    whole = _cut(tmp_path, "whole.txt", done.stderr)
    assert {"json", "decimal", "email.parser"} <= python_verbose.load(whole).names()
    proc = subprocess.Popen(
        [sys.executable, "-v", "-c", code, "wait"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"ready\n"
    time.sleep(0.2)
    proc.send_signal(signal.SIGKILL)
    _, err = proc.communicate(timeout=60)
    killed = _cut(tmp_path, "killed.txt", err)
    with pytest.raises(InputError, match=r"expected the interpreter's exit .*program was killed\?"):
        python_verbose.load(killed)
