"""Which deps a BUILD file names inside a `select()` (slim.analysis.conditional)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from slim.analysis.conditional import select_of, strings_in_selects

BUILD = """\
cc_binary(
    name = "app",  # a comment with select( in it
    srcs = ["main.c"],
    copts = ["-DF(x)=x"] + select({
        ":opt": ["-O3"],
        "//conditions:default": [],
    }),
    deps = [
        ":always",
    ] + select({
        "//lib:opt": [
            "//lib:optlib",  # only optimized builds
        ],
        "//conditions:default": [],
    }) + [":after"],
    data = selects.with_or({("//a", "//b"): [":either"]}),
)
"""


def test_strings_inside_a_select_know_where_it_opens() -> None:
    lines = BUILD.splitlines()
    found = {v: at for v, _, at in strings_in_selects(lines, range(1, len(lines) + 1))}
    assert found["main.c"] is None
    assert found["-DF(x)=x"] is None
    assert found["-O3"] == 4
    assert found[":always"] is None
    assert found["//lib:optlib"] == 10
    assert found[":after"] is None
    assert found[":either"] == 16
    assert found["//lib:opt"] == 10  # a condition key is inside too: never a dep


def test_select_of_a_dep_and_of_one_outside() -> None:
    lines = BUILD.splitlines()
    span = range(1, len(lines) + 1)
    assert select_of(lines, span, {"//lib:optlib"}) == 10
    assert select_of(lines, span, {":always", "//lib:always"}) is None
    assert select_of(lines, span, {":after"}) is None


def test_lines_are_counted_across_multi_line_strings() -> None:
    lines = ['x(doc = """a', "b (", '""", deps = select({"k": ["//d"]}))']
    assert select_of(lines, range(1, 4), {"//d"}) == 3


@given(st.lists(st.text(max_size=40), max_size=12))
def test_any_text_is_scanned_without_error(lines: list[str]) -> None:
    for value, line, at in strings_in_selects(lines, range(1, len(lines) + 1)):
        assert isinstance(value, str)
        assert 1 <= line <= max(len(lines), 1)
        assert at is None or 1 <= at <= line
