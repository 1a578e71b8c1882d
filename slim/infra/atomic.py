"""Atomic file writes: temporary files beside the targets, then `os.replace`.

A failed or interrupted run never leaves a partial output behind: every file of a set is
staged (written and synced) before the first is replaced. A location that cannot be
written (read-only directory, full disk, a path under a file) is an `OutputError`
(exit 2) naming the path and the OS's reason. Files get the usual mode: an existing
file keeps its own, a new one gets 0666 under the umask (0644 with umask 022).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path

from slim.errors import OutputError


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _mode(output: Path) -> int:
    try:
        st = output.stat()
    except OSError:
        return 0o666 & ~_umask()
    return stat.S_IMODE(st.st_mode) if stat.S_ISREG(st.st_mode) else 0o666 & ~_umask()


def _error(path: Path, exc: OSError) -> OutputError:
    reason = exc.strerror or str(exc)
    name = str(exc.filename) if exc.filename else ""
    if name.startswith(str(path.parent / f".{path.name}.")):  # the temporary file
        name = str(path.parent)
    if name and name != str(path):
        reason += f": {name}"
    return OutputError(str(path), reason)


def _check_parents(output: Path) -> None:
    """A path under a file: say which component is not a directory."""
    for parent in output.parents:
        if parent.exists():
            if not parent.is_dir():
                raise NotADirectoryError(20, "Not a directory", str(parent))
            return


def _stage(output: Path, data: bytes) -> str:
    """A synced temporary copy of `data` beside `output`, with `output`'s mode."""
    try:
        _check_parents(output)
        output.parent.mkdir(parents=True, exist_ok=True)
        if output.is_dir():
            raise IsADirectoryError(21, "Is a directory", str(output))
        fd, tmp = tempfile.mkstemp(dir=output.parent, prefix=f".{output.name}.", suffix=".tmp")
    except OSError as exc:
        raise _error(output, exc) from None
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), _mode(output))
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise _error(output, exc) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return tmp


def write_atomic(output: Path, data: bytes) -> None:
    write_all_atomic({output: data})


def write_all_atomic(
    files: Mapping[Path, bytes], originals: Mapping[Path, bytes] | None = None
) -> None:
    """Write every file or none: all are staged before the first replaces its target.
    With `originals` (each file's contents before), a replace that still fails puts the
    files already replaced back as they were."""
    staged: list[tuple[str, Path]] = []
    done: list[Path] = []
    try:
        for output, data in files.items():
            staged.append((_stage(output, data), output))
        for tmp, output in staged:
            try:
                os.replace(tmp, output)
            except OSError as exc:
                _roll_back(done, originals)
                raise _error(output, exc) from None
            done.append(output)
    finally:
        for tmp, _ in staged:
            with contextlib.suppress(OSError):
                Path(tmp).unlink(missing_ok=True)


def _roll_back(done: list[Path], originals: Mapping[Path, bytes] | None) -> None:
    for path in reversed(done):
        if originals is not None and path in originals:
            with contextlib.suppress(OutputError):
                write_atomic(path, originals[path])
