"""The status line shows on a terminal only, and the CLI's stderr stays clean in pipes."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
from pathlib import Path

from slim.infra.progress import Progress

REPO = Path(__file__).resolve().parents[2]


def test_nothing_written_when_not_a_terminal() -> None:
    buf = io.StringIO()
    p = Progress(buf)
    with p.step("reading x"):
        pass
    assert buf.getvalue() == ""


def test_status_is_one_line_rewritten_and_erased() -> None:
    buf = io.StringIO()
    p = Progress(buf, enabled=True)
    with p.step("reading graph.json (2.0 GB)"):
        pass
    out = buf.getvalue()
    assert "\r\x1b[2Kreading graph.json (2.0 GB)…" in out
    assert "\n" not in out
    assert out.endswith("\r\x1b[2K")


def test_cli_on_a_terminal_shows_progress_and_in_a_pipe_does_not(tmp_path: Path) -> None:
    env = {**os.environ, "SLIM_CACHE_DIR": str(tmp_path)}
    env.pop("SLIM_NO_PROGRESS", None)
    args = [sys.executable, "-m", "slim", "report", "//py/apps:server", "-q"]
    piped = subprocess.run(args, cwd=REPO, env=env, capture_output=True, text=True, check=False)
    assert "reading" not in piped.stderr
    main, child = pty.openpty()
    proc = subprocess.run(
        args, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=child, check=False
    )
    os.close(child)
    seen = b""
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    os.close(main)
    assert proc.returncode in (0, 1)
    assert b"analyzing //py/apps:server" in seen
    assert proc.stdout == piped.stdout.encode()
