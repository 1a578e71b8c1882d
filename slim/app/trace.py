"""`slim trace -o FILE -- python -m app ...`: run a program and record the modules it imports.

The default recorder puts a small `sitecustomize` on `PYTHONPATH` that installs a
`sys.addaudithook` (Python >= 3.8) and writes one JSON line per loaded module with the
module whose code imported it (found on the import's stack frame) and the line of that
import. The hook then restores `PYTHONPATH` and `sys.path`, chains to the program's own
`sitecustomize` if there is one, and imports nothing new, so the program behaves as
without slim; slim exits with the program's exit code. `--importtime` instead runs with
`PYTHONPROFILEIMPORTTIME=1` and keeps the rows out of the program's stderr (for 3.7).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from slim.errors import UsageError
from slim.infra.atomic import write_atomic

ENV_EVENTS = "SLIM_TRACE_EVENTS"
ENV_PYTHONPATH = "SLIM_TRACE_PYTHONPATH"
ENV_HAD_PYTHONPATH = "SLIM_TRACE_HAD_PYTHONPATH"

# Runs inside the traced interpreter at start-up. It must import nothing that the
# program might import itself (no json, no importlib): only builtins already loaded.
BOOTSTRAP = r"""
import sys, os, atexit

def _slim_trace_install():
    out = os.environ.pop("SLIM_TRACE_EVENTS", None)
    had = os.environ.pop("SLIM_TRACE_HAD_PYTHONPATH", "0") == "1"
    orig = os.environ.pop("SLIM_TRACE_PYTHONPATH", "")
    if had:
        os.environ["PYTHONPATH"] = orig
    else:
        os.environ.pop("PYTHONPATH", None)
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    if out is None:
        return
    f = open(out, "w", encoding="utf-8", buffering=1)

    def q(s):
        s = str(s)
        r = []
        for c in s:
            o = ord(c)
            if c == '"' or c == "\\":
                r.append("\\" + c)
            elif o < 0x20:
                r.append("\\u%04x" % o)
            else:
                r.append(c)
        return '"' + "".join(r) + '"'

    f.write('{"slim-import-trace": 1, "python": %s}\n' % q("%d.%d.%d" % sys.version_info[:3]))
    if not hasattr(sys, "addaudithook"):
        f.write('{"error": "Python %d.%d has no sys.addaudithook: use slim trace --importtime"}\n'
                % sys.version_info[:2])
        f.close()
        return
    seen = set()
    for name in sorted(sys.modules):
        if name != "sitecustomize":
            seen.add(name)
            f.write('{"import": %s, "importer": ""}\n' % q(name))
    skip = ("importlib.", "_frozen_importlib")
    getframe = sys._getframe

    def record(name, args):
        if name in seen:
            if args[1]:
                f.write('{"extension": %s, "file": %s}\n' % (q(name), q(args[1])))
            return
        seen.add(name)
        try:
            fr = getframe(2)
        except ValueError:
            fr = None
        while fr is not None:
            mod = fr.f_globals.get("__name__") or ""
            if not (mod == "importlib" or mod == "sitecustomize" or mod.startswith(skip)):
                break
            fr = fr.f_back
        if fr is None:
            f.write('{"import": %s, "importer": ""}\n' % q(name))
        else:
            f.write('{"import": %s, "importer": %s, "importer_line": %d}\n'
                    % (q(name), q(fr.f_globals.get("__name__") or ""), fr.f_lineno or 0))

    files = set()

    def hook(event, args):
        # Never let the recorder change the program: any failure here is swallowed.
        if event == "import":
            try:
                record(args[0], args)
            except Exception:
                pass
        elif event == "exec":
            try:
                fn = args[0].co_filename
                if fn not in files and not fn.startswith("<"):
                    files.add(fn)
                    f.write('{"exec": %s}\n' % q(os.path.abspath(fn)))
            except Exception:
                pass

    def end():
        spec = getattr(sys.modules.get("__main__"), "__spec__", None)
        main = getattr(spec, "name", None)
        failed = sorted(
            n for n in seen if n not in sys.modules and n not in ("sitecustomize", main)
        )
        f.write('{"end": true, "failed": [%s]}\n' % ", ".join(q(n) for n in failed))
        f.close()

    # Sees imports the audit event misses (importlib.import_module, parent packages);
    # it only records and returns None, so the normal finders do the work.
    class _SlimTraceFinder:

        @staticmethod
        def find_spec(name, path=None, target=None):
            try:
                if name not in seen:
                    record(name, (name, None))
            except Exception:
                pass
            return None

    atexit.register(end)
    sys.addaudithook(hook)
    sys.meta_path.insert(0, _SlimTraceFinder)
    for p in sys.path:
        user = os.path.join(p or ".", "sitecustomize.py")
        if os.path.isfile(user):
            with open(user, "rb") as uf:
                code = compile(uf.read(), user, "exec")
            ns = {"__name__": "sitecustomize", "__file__": user, "__builtins__": __builtins__}
            exec(code, ns)
            break

_slim_trace_install()
del _slim_trace_install
"""


def _exit_status(rc: int) -> int:
    """A shell-style status: a program killed by signal N gives 128 + N."""
    return 128 - rc if rc < 0 else rc


def _run(cmd: Sequence[str], env: dict[str, str], **kw: object) -> subprocess.Popen[bytes]:
    if not cmd:
        raise UsageError("slim trace: no command given (slim trace -o FILE -- python -m app)")
    exe = shutil.which(cmd[0]) if os.sep not in cmd[0] else cmd[0]
    if exe is None:
        raise UsageError(f"slim trace: command not found: {cmd[0]}")
    return subprocess.Popen(list(cmd), env=env, **kw)  # type: ignore[call-overload, no-any-return]


def _wait(proc: subprocess.Popen[bytes]) -> int:
    """Wait for the program; Ctrl-C reaches it directly, slim just keeps waiting."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        return proc.wait()
    finally:
        signal.signal(signal.SIGINT, previous)


def record(cmd: Sequence[str], output: Path, *, importtime: bool = False) -> int:
    """Run `cmd`, write its import trace to `output`, return the program's exit status."""
    if importtime:
        return _record_importtime(cmd, output)
    with tempfile.TemporaryDirectory(prefix="slim-trace-") as tmp:
        boot = Path(tmp) / "boot"
        boot.mkdir()
        (boot / "sitecustomize.py").write_text(BOOTSTRAP, encoding="utf-8")
        events = Path(tmp) / "events.jsonl"
        env = dict(os.environ)
        had = "PYTHONPATH" in env
        orig = env.get("PYTHONPATH", "")
        env[ENV_EVENTS] = str(events)
        env[ENV_HAD_PYTHONPATH] = "1" if had else "0"
        env[ENV_PYTHONPATH] = orig
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(boot), orig) if p)
        rc = _exit_status(_wait(_run(cmd, env)))
        if not events.exists():
            raise UsageError(
                f"slim trace: {cmd[0]} did not load slim's recorder (not a Python program, "
                "or run with -I/-S/-E, which ignore PYTHONPATH or sitecustomize); "
                "nothing written"
            )
        data = events.read_bytes()
    lines = data.splitlines()
    if not lines:
        raise UsageError(f"slim trace: the recorder wrote nothing for {cmd[0]}")
    if lines[0].startswith(b'{"slim-import-trace"'):
        args = ", ".join(_json_str(a) for a in cmd)
        lines[0] = lines[0][:-1] + f', "argv": [{args}]}}'.encode()
    if any(ln.startswith(b'{"error"') for ln in lines):
        write_atomic(output, b"\n".join(lines) + b"\n")
        return rc
    if lines[-1].startswith(b'{"end": true'):
        lines[-1] = lines[-1][:-1] + f', "exit_code": {rc}}}'.encode()
    else:
        note = "the program ended without running atexit handlers (os._exit or a crash)"
        lines.append(f'{{"end": true, "exit_code": {rc}, "failed": [], "note": "{note}"}}'.encode())
    write_atomic(output, b"\n".join(lines) + b"\n")
    return rc


def _json_str(s: str) -> str:
    import json

    return json.dumps(s)


def _record_importtime(cmd: Sequence[str], output: Path) -> int:
    env = dict(os.environ)
    env["PYTHONPROFILEIMPORTTIME"] = "1"
    proc = _run(cmd, env, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    rows: list[bytes] = []
    err = sys.stderr.buffer
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        for line in proc.stderr:
            if line.startswith(b"import time:"):
                rows.append(line)
            else:
                err.write(line)
                err.flush()
        rc = _exit_status(proc.wait())
    finally:
        signal.signal(signal.SIGINT, previous)
    if not rows:
        raise UsageError(
            f"slim trace --importtime: {cmd[0]} printed no importtime rows "
            "(not a Python >= 3.7 program?); nothing written"
        )
    write_atomic(output, b"".join(rows))
    return rc
