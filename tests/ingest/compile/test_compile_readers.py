"""Compile-time evidence readers on real output: gcc -MD/-MP depfiles, `ninja -t deps`."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from slim.errors import InputError
from slim.ingest import detect, load_evidence
from slim.ingest.compile import depfile, ninja_deps

DATA = Path(__file__).resolve().parents[2] / "data"


def _gcc(tmp: Path, *flags: str) -> Path:
    assert shutil.which("gcc"), "gcc is needed (bash .ci/install-system-tools.sh)"
    (tmp / "inc dir").mkdir()
    (tmp / "inc dir" / "a b.h").write_text("#define AB 1\n")
    (tmp / "lib").mkdir()
    (tmp / "lib" / "lib.h").write_text('#include "a b.h"\nint lib(void);\n')
    (tmp / "main.c").write_text('#include "lib/lib.h"\nint main(void) { return AB - 1; }\n')
    r = subprocess.run(
        ["gcc", "-I", "inc dir", "-I", ".", *flags, "-c", "main.c", "-o", "out/main.o"],
        cwd=tmp,
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    return tmp / "out" / "main.d"


@pytest.mark.parametrize("flags", [("-MD",), ("-MMD", "-MP")])
def test_gcc_depfile_gives_source_and_headers(tmp_path: Path, flags: tuple[str, ...]) -> None:
    (tmp_path / "out").mkdir()
    d = _gcc(tmp_path, *flags)
    assert detect(d, "compile").name == "depfile"
    [facts] = depfile.load(d)
    [obj] = facts.objects
    assert obj.output == "out/main.o"
    assert obj.source == "main.c"
    assert "lib/lib.h" in obj.headers
    assert "inc dir/a b.h" in obj.headers  # an escaped space inside a path
    assert obj.line == 1
    if "-MP" in flags:
        assert facts.notes == ("2 phony header rule(s) (-MP) skipped",)
    else:
        assert "/usr/include/stdc-predef.h" in obj.headers


def test_a_directory_of_depfiles(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    _gcc(tmp_path, "-MD")
    fmt, facts = load_evidence(tmp_path, "compile")
    assert fmt.name == "depfile"
    assert [f.objects[0].output for f in facts] == ["out/main.o"]  # type: ignore[attr-defined]


def test_ninja_deps_as_compile_evidence() -> None:
    path = DATA / "ninja" / "ninja-1.11.1" / "deps.txt"
    fmt, _facts = load_evidence(path, "compile")
    assert fmt.name == "ninja-deps-compile"
    [deps] = ninja_deps.load(path)
    first = deps.objects[0]
    assert first.output == "CMakeFiles/core.dir/core/core_extra.c.o"
    assert first.source == "<SOURCE_DIR>/core/core_extra.c"
    assert first.headers == ("/usr/include/stdc-predef.h",)
    assert first.line == 1
    assert deps.objects[1].line == 5


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"main.o: main.c \\\n  a.h\nnot a rule\n", "x.d:3: expected a make rule"),
        (b"main.o:\n", "x.d:1: expected a depfile rule"),
    ],
)
def test_bad_depfiles(tmp_path: Path, content: bytes, expected: str) -> None:
    p = tmp_path / "x.d"
    p.write_bytes(content)
    with pytest.raises(InputError) as exc:
        depfile.load(p)
    assert str(exc.value).startswith(str(tmp_path / expected))


def test_sniff_leaves_other_text_alone() -> None:
    assert not depfile.sniff(b"hello world\n", Path("x.txt"))
    assert not depfile.sniff(b"# ninja log v5\n", Path("x.txt"))
    assert depfile.sniff(b"a/b.o: a/b.cc \\\n", Path("b.d"))
