"""Outputs that cannot be written are bad usage (exit 2, the path and the OS's reason),
never an internal error or a partial file; files get the usual mode under the umask."""

from __future__ import annotations

import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from slim.errors import OutputError
from slim.infra.atomic import write_all_atomic, write_atomic

CQUERY = Path(__file__).parents[1] / "data" / "bazel" / "cquery.jsonproto.json"
# --no-cache: these are about the outputs; a cache write hitting the same limit adds a note
REPORT = [sys.executable, "-m", "slim", "report", "//py:tool", "--graph", str(CQUERY), "--no-cache"]


def _run(args: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        args, capture_output=True, text=True, check=False, cwd=tempfile.gettempdir(), **kw
    )


def _in_small_mount(script: str, tmp_path: Path, opts: str) -> subprocess.CompletedProcess[str]:
    """Run `script` (sh) with a fresh tmpfs mounted (`opts`) at tmp_path/mnt, in a private
    mount namespace; skipped where this machine gives no way to mount one."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    inner = f"mount -t tmpfs -o {opts} tmpfs {mnt} && {script}"
    for prefix in (["unshare", "-rm"], ["unshare", "-m"]):
        if shutil.which(prefix[0]) is None:
            continue
        probe = _run([*prefix, "sh", "-c", f"mount -t tmpfs -o {opts} tmpfs {mnt}"])
        if probe.returncode == 0:
            return _run([*prefix, "sh", "-c", inner])
    pytest.skip("no mount namespace for a test tmpfs here (unshare -rm refused)")


def test_report_into_a_read_only_directory_is_exit_2_with_path_and_reason(
    tmp_path: Path,
) -> None:
    out = tmp_path / "mnt" / "report.txt"
    cmd = " ".join(f"'{a}'" for a in [*REPORT, "-o", str(out)])
    proc = _in_small_mount(cmd, tmp_path, "ro,size=64k")
    assert (proc.returncode, proc.stdout) == (2, ""), proc.stderr
    assert proc.stderr == f"slim: error: {out}: cannot write: Read-only file system: {out.parent}\n"


def test_report_onto_a_full_disk_is_exit_2_and_leaves_no_partial_file(tmp_path: Path) -> None:
    out = tmp_path / "mnt" / "report.json"
    cmd = " ".join(f"'{a}'" for a in [*REPORT, "--format", "json", "-o", str(out)])
    proc = _in_small_mount(f"{cmd}; rc=$?; ls -A {out.parent}; exit $rc", tmp_path, "size=4k")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == f"slim: error: {out}: cannot write: No space left on device\n"
    assert proc.stdout == ""  # no report.json, no temporary file left


def test_an_output_larger_than_allowed_is_exit_2_and_not_written(tmp_path: Path) -> None:
    """The write itself fails (here: the process's file-size limit) after the file was
    created: the error names the path, nothing is left behind."""
    out = tmp_path / "report.json"

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100))

    proc = _run([*REPORT, "--format", "json", "-o", str(out)], preexec_fn=limit)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == f"slim: error: {out}: cannot write: File too large\n"
    assert list(tmp_path.iterdir()) == []


def test_an_output_under_a_file_says_which_part_is_not_a_directory(tmp_path: Path) -> None:
    blocker = tmp_path / "notes.txt"
    blocker.write_text("a file, not a directory\n")
    out = blocker / "sub" / "report.txt"
    proc = _run([*REPORT, "-o", str(out)])
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == f"slim: error: {out}: cannot write: Not a directory: {blocker}\n"


def test_graph_and_trace_outputs_fail_the_same_way(tmp_path: Path) -> None:
    blocker = tmp_path / "f"
    blocker.write_text("x")
    proc = _run(
        [
            sys.executable,
            "-m",
            "slim",
            "graph",
            "//py:tool",
            "--graph",
            str(CQUERY),
            "-o",
            str(blocker / "g.dot"),
        ]
    )
    assert (proc.returncode, proc.stderr) == (
        2,
        f"slim: error: {blocker / 'g.dot'}: cannot write: Not a directory: {blocker}\n",
    )
    proc = _run(
        [
            sys.executable,
            "-m",
            "slim",
            "trace",
            "-o",
            str(blocker / "t.jsonl"),
            "--",
            sys.executable,
            "-c",
            "import json",
        ]
    )
    assert proc.returncode == 2
    assert proc.stderr.endswith(f"cannot write: Not a directory: {blocker}\n")


@pytest.mark.parametrize("umask", [0o022, 0o027, 0o002])
def test_outputs_get_the_usual_mode_under_the_umask(tmp_path: Path, umask: int) -> None:
    out = tmp_path / f"r{umask:o}.txt"
    proc = _run([*REPORT, "-o", str(out)], preexec_fn=lambda: os.umask(umask))
    assert proc.returncode == 0, proc.stderr
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask


def test_an_existing_output_keeps_its_mode(tmp_path: Path) -> None:
    out = tmp_path / "kept.txt"
    out.write_text("old")
    out.chmod(0o640)
    write_atomic(out, b"new")
    assert (out.read_text(), stat.S_IMODE(out.stat().st_mode)) == ("new", 0o640)


def test_a_set_of_outputs_is_written_whole_or_not_at_all(tmp_path: Path) -> None:
    """cleanup --out-dir writes four files: one that cannot be written stops all four."""
    good = tmp_path / "out"
    blocker = tmp_path / "f"
    blocker.write_text("x")
    with pytest.raises(OutputError, match="Not a directory"):
        write_all_atomic({good / "backlog.md": b"md", blocker / "backlog.csv": b"csv"})
    assert not good.exists() or list(good.iterdir()) == []
    write_all_atomic({good / "backlog.md": b"md", good / "backlog.csv": b"csv"})
    assert sorted(p.name for p in good.iterdir()) == ["backlog.csv", "backlog.md"]
