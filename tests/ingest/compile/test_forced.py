"""Files a compile command forces into every source (`-include`, `-imacros`, `/FI`), read
from option strings as CMake's compile fragments and Bazel's `copts` give them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from slim.ingest.compile.forced import forced_includes


@pytest.mark.parametrize(
    ("options", "files"),
    [
        (["-include cfg.h", "-O2"], ("cfg.h",)),  # one CMake fragment, two words
        (["-include", "a.h", "-imacros", "m.h"], ("a.h", "m.h")),  # Bazel copts, word by word
        (["-includeb.h", "--include=c.h", "/FId.h", "/FI", "e.h"], ("b.h", "c.h", "d.h", "e.h")),
        (['-include "dir with space/x.h"'], ("dir with space/x.h",)),
        (["-include a.h", "-include a.h"], ("a.h",)),
        (["-include-pch", "x.pch", "-I", "include", "-DINCLUDE=1"], ()),  # not a header
        (["-include"], ()),  # no file after it: the compiler refuses the command
        (['-include "open'], ('"open',)),  # a fragment that does not split is one word
        ([], ()),
    ],
)
def test_the_files_forced_in(options: list[str], files: tuple[str, ...]) -> None:
    assert forced_includes(options) == files


_NAME = st.text(st.characters(codec="ascii", categories=["L", "N"]), min_size=1, max_size=12)


@given(st.lists(_NAME, max_size=6), st.lists(st.sampled_from(["-O2", "-g", "-Wall"])))
def test_every_separate_include_is_read_in_order(names: list[str], other: list[str]) -> None:
    options = [*other, *(w for n in names for w in ("-include", f"{n}.h"))]
    assert forced_includes(options) == tuple(dict.fromkeys(f"{n}.h" for n in names))


@given(st.lists(st.text(max_size=40), max_size=8))
def test_any_option_text_is_read_without_error(options: list[str]) -> None:
    assert isinstance(forced_includes(options), tuple)
