"""`slim trace` records a real Python program without changing what it does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from slim.ingest import detect
from slim.ingest.python.audit_trace import load
from slim.ingest.python.importtime import load as load_importtime

MAIN = """\
import os
import sys
import json
from app import helper

def lazy():
    import csv
    return csv

if "--lazy" in sys.argv:
    lazy()
try:
    import no_such_module_xyz
except ImportError:
    pass
import importlib
plug = importlib.import_module("app.plug")
print("argv", sys.argv[1:])
print("path0", [p for p in sys.path if "slim-trace" in p])
print("pythonpath", os.environ.get("PYTHONPATH"))
print("slimenv", sorted(k for k in os.environ if k.startswith("SLIM_TRACE")))
print("helper", helper.X)
print("to stderr", file=sys.stderr)
sys.exit(int(os.environ.get("APP_EXIT", "3")))
"""


@pytest.fixture
def app(tmp_path: Path) -> Path:
    pkg = tmp_path / "app"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "__main__.py").write_text(MAIN)
    (pkg / "helper.py").write_text("X = 42\n")
    (pkg / "plug.py").write_text("Y = 1\n")
    return tmp_path


def slim(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "slim", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **(env or {})},
    )


def direct(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **(env or {})},
    )


def test_records_imports_with_importers_and_keeps_behaviour(app: Path) -> None:
    out = app / "trace.jsonl"
    traced = slim(
        "trace", "-o", str(out), "--", sys.executable, "-m", "app", "--lazy", "x", cwd=app
    )
    plain = direct("-m", "app", "--lazy", "x", cwd=app)
    assert traced.returncode == plain.returncode == 3
    assert traced.stdout == plain.stdout
    assert traced.stderr == plain.stderr
    assert "path0 []" in traced.stdout
    assert "slimenv []" in traced.stdout
    assert detect(out, "trace").name == "slim-import-trace"
    t = load(out)
    by = t.by_name()
    assert t.exit_codes == (3,)
    assert by["json"].importers == ("__main__",)
    assert by["json"].import_line == 3
    assert by["app.helper"].importers == ("__main__",)
    assert by["csv"].importers == ("__main__",)
    assert by["csv"].import_line == 7
    assert by["no_such_module_xyz"].failed
    assert by["json.decoder"].importers == ("json",)
    # importlib.import_module raises no audit event: the recorder's finder sees it
    assert by["app.plug"].importers == ("__main__",)
    assert by["app.plug"].import_line == 17
    assert "app.__main__" not in t.failed


def test_lazy_import_absent_when_not_run(app: Path) -> None:
    out = app / "trace.jsonl"
    r = slim(
        "trace", "-o", str(out), "--", sys.executable, "-m", "app", cwd=app, env={"APP_EXIT": "0"}
    )
    assert r.returncode == 0, r.stderr
    assert "csv" not in load(out).names()


def test_pythonpath_is_restored_for_the_program(app: Path, tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "sitecustomize.py").write_text("import os\nos.environ['USER_SITECUSTOMIZE'] = '1'\n")
    (app / "app" / "__main__.py").write_text(
        "import os\nprint(os.environ.get('PYTHONPATH'), os.environ.get('USER_SITECUSTOMIZE'))\n"
    )
    env = {"PYTHONPATH": str(extra)}
    out = app / "t.jsonl"
    traced = slim("trace", "-o", str(out), "--", sys.executable, "-m", "app", cwd=app, env=env)
    plain = direct("-m", "app", cwd=app, env=env)
    assert traced.returncode == plain.returncode == 0
    assert traced.stdout == plain.stdout == f"{extra} 1\n"


def test_importtime_mode_keeps_program_stderr(app: Path) -> None:
    out = app / "trace.txt"
    r = slim("trace", "--importtime", "-o", str(out), "--", sys.executable, "-m", "app", cwd=app)
    assert r.returncode == 3
    assert "to stderr" in r.stderr
    assert "import time:" not in r.stderr
    t = load_importtime(out)
    assert "app.helper" in t.names()
    assert detect(out, "trace").name == "python-importtime"


def test_not_a_python_program_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    r = slim("trace", "-o", str(out), "--", "true", cwd=tmp_path)
    assert r.returncode == 2
    assert "did not load slim's recorder" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_unknown_command(tmp_path: Path) -> None:
    r = slim("trace", "-o", str(tmp_path / "t"), "--", "no-such-program-xyz", cwd=tmp_path)
    assert r.returncode == 2
    assert "command not found: no-such-program-xyz" in r.stderr


def test_killed_program_still_gives_a_trace(app: Path) -> None:
    (app / "app" / "__main__.py").write_text("import os, json\nos._exit(5)\n")
    out = app / "t.jsonl"
    r = slim("trace", "-o", str(out), "--", sys.executable, "-m", "app", cwd=app)
    assert r.returncode == 5
    t = load(out)
    assert "json" in t.names()
    assert t.exit_codes == (5,)
    assert any("atexit" in n for n in t.notes)
