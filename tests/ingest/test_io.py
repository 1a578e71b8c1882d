"""Reading inputs safely: special files refused, corrupt gzip is bad input, reads bounded.

Every case runs the real `slim` entry point on real samples (or the OS's own special
files) and checks the one-line error and exit code 2.
"""

from __future__ import annotations

import gzip
import os
import resource
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from slim.errors import InputError
from slim.ingest import detect, find_format
from slim.ingest._io import iter_text_lines, read_limited

DATA = Path(__file__).parents[1] / "data"
CQUERY = DATA / "bazel" / "cquery.jsonproto.json"
BFD_MAP = DATA / "linkmap" / "bfd.map"
REPLY = DATA / "cmake" / "cmake-4.4.5" / "reply"
FLAGS = ("--graph", "--trace", "--linkmap", "--binary", "--compile", "--timings")


def run(*args: str, limit_as: int | None = None, timeout: float = 60) -> tuple[int, str, str]:
    def cap() -> None:
        if limit_as is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limit_as, limit_as))

    proc = subprocess.run(
        [sys.executable, "-m", "slim", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=tempfile.gettempdir(),
        timeout=timeout,
        preexec_fn=cap,
    )
    return proc.returncode, proc.stdout, proc.stderr


def _report(flag: str, path: Path) -> tuple[int, str, str]:
    if flag == "--graph":
        return run("report", "//py:tool", "--graph", str(path), "--no-cache")
    return run("report", "//py:tool", "--graph", str(CQUERY), flag, str(path))


@pytest.mark.parametrize("flag", FLAGS)
def test_a_fifo_is_refused_at_once_for_every_input(tmp_path: Path, flag: str) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, out, err = _report(flag, fifo)  # nobody writes: reading it would hang forever
    assert (code, out) == (2, "")
    assert err == f"slim: error: {fifo}: expected a regular file, found a FIFO (named pipe)\n"


def test_a_device_and_a_socket_are_refused(tmp_path: Path) -> None:
    code, _, err = _report("--linkmap", Path("/dev/zero"))  # would read zeros forever
    assert code == 2
    assert err == "slim: error: /dev/zero: expected a regular file, found a character device\n"
    sock_path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(sock_path))
        code, _, err = _report("--trace", sock_path)
    assert code == 2
    assert err == f"slim: error: {sock_path}: expected a regular file, found a socket\n"


def test_symlink_loop_and_directory_say_so(tmp_path: Path) -> None:
    loop = tmp_path / "loop.map"
    loop.symlink_to(loop)
    code, _, err = _report("--linkmap", loop)
    assert code == 2
    assert err.startswith(f"slim: error: {loop}: expected a file, found a symlink loop")
    assert err.count("\n") == 1
    code, _, err = _report("--trace", tmp_path)
    assert code == 2
    assert err.startswith(f"slim: error: {tmp_path}: expected a trace input (")
    assert err.endswith(", found a directory (is a directory)\n")
    for fmt in ("python-importtime", "gnu-ld-map", "elf", "ninja-log"):
        with pytest.raises(InputError) as exc:
            find_format(fmt).load(tmp_path)
        assert str(exc.value) == f"{tmp_path}: expected a file, found a directory (is a directory)"


def test_corrupt_gzip_is_bad_input_not_an_internal_error(tmp_path: Path) -> None:
    packed = bytearray(gzip.compress(BFD_MAP.read_bytes()))
    packed[len(packed) // 2] ^= 0xFF  # a flipped byte inside the deflate stream
    bad = tmp_path / "bfd.map.gz"
    bad.write_bytes(bytes(packed))
    code, out, err = _report("--linkmap", bad)
    assert (code, out) == (2, "")
    assert err.startswith(f"slim: error: {bad}:byte ")
    assert "expected a complete gzip stream" in err
    assert err.count("\n") == 1


def test_corrupt_gzip_head_is_reported_when_sniffing(tmp_path: Path) -> None:
    packed = bytearray(gzip.compress(CQUERY.read_bytes()))
    packed[12] ^= 0xFF
    bad = tmp_path / "cquery.json.gz"
    bad.write_bytes(bytes(packed))
    with pytest.raises(InputError, match="expected a complete gzip stream"):
        detect(bad, "graph")


def test_cmake_reply_is_read_under_a_1_gib_address_space_cap() -> None:
    code, out, err = run(
        "why", "//:app", "//:core", "--graph", str(REPLY), "--no-cache", limit_as=1 << 30
    )
    assert code == 0, err
    assert "//:app" in out


def test_the_sample_report_runs_under_a_1_gib_address_space_cap() -> None:
    repo = Path(__file__).parents[2]
    proc = subprocess.run(
        [sys.executable, "-m", "slim", "report", "//serving:cpu_server", "--exit-zero"],
        capture_output=True,
        text=True,
        check=False,
        cwd=repo,
        timeout=120,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)),
    )
    assert proc.returncode == 0, proc.stderr
    assert "removable" in proc.stdout


def test_read_limited_refuses_past_the_cap_without_reading_it(tmp_path: Path) -> None:
    assert read_limited(BFD_MAP, 1 << 20, "a map") == BFD_MAP.read_bytes()
    with pytest.raises(InputError, match=r"expected a map of at most 1000 bytes, found \d+ bytes"):
        read_limited(BFD_MAP, 1000, "a map")
    gz = tmp_path / "m.gz"
    gz.write_bytes(gzip.compress(BFD_MAP.read_bytes()))
    assert read_limited(gz, 1 << 20, "a map") == BFD_MAP.read_bytes()
    with pytest.raises(InputError, match="expected a map of at most 1000 bytes, found a larger"):
        read_limited(gz, 1000, "a map")


def test_nul_and_bad_utf8_show_the_offending_bytes(tmp_path: Path) -> None:
    lines = BFD_MAP.read_bytes().split(b"\n")
    bad = tmp_path / "x.txt"
    bad.write_bytes(b"\n".join([lines[0], lines[2][:10] + b"\x00" + lines[2][10:]]) + b"\n")
    with pytest.raises(InputError) as exc:
        list(iter_text_lines(bad))
    assert str(exc.value) == f"{bad}:2: expected text, found a NUL byte at column 11 (bytes 00 " + (
        " ".join(f"{c:02x}" for c in lines[2][10:17]) + ")"
    )
    bad.write_bytes(lines[2][:20] + b"\xe9\xff" + lines[2][20:] + b"\n")
    with pytest.raises(
        InputError, match=r":1: expected UTF-8 text, found bytes e9 ff .* column 21"
    ):
        list(iter_text_lines(bad))


def test_a_directory_given_as_graph_says_so_without_walking_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the cache too: only a CMake reply directory's files are stamped, so a big
    directory (or one whose files come and go, like /tmp) is refused at once."""
    from slim.infra import cache

    for k in range(50):
        (tmp_path / "deep" / str(k)).mkdir(parents=True)
        (tmp_path / "deep" / str(k) / "f.txt").write_text("x")
    monkeypatch.setenv("SLIM_CACHE_DIR", str(tmp_path / "cache"))
    assert cache.input_stamp(tmp_path) == str(tmp_path.resolve())
    code, out, err = run("report", "//py:tool", "--graph", str(tmp_path))
    assert (code, out) == (2, "")
    assert err.startswith(f"slim: error: {tmp_path}: expected a graph input (")
    assert err.endswith(", found a directory (is a directory)\n")
