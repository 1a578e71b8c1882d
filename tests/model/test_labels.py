from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from slim.model.labels import (
    label_name,
    label_package,
    normalize_label,
    package_path,
    split_configuration,
)


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        ("//a:b", "//a:b"),
        ("//a", "//a:a"),
        ("//a/b/c", "//a/b/c:c"),
        ("@//a:b", "//a:b"),
        ("@@//a:b", "//a:b"),
        ("@repo//a", "@repo//a:a"),
        ("@repo", "@repo//:repo"),
        ("@@rules_cc+//cc:defs", "@@rules_cc+//cc:defs"),
        ("root//lib:lib1", "root//lib:lib1"),
        ("cell//pkg", "cell//pkg:pkg"),
        ("root//a:b[shared]", "root//a:b"),
        ("//:root", "//:root"),
    ],
)
def test_normalize(raw: str, canonical: str) -> None:
    assert normalize_label(raw) == canonical


def test_relative_label_needs_package() -> None:
    assert normalize_label(":x", "//a/b") == "//a/b:x"


@pytest.mark.parametrize(
    ("text", "label", "config"),
    [
        ("//lib:util (f5527a6)", "//lib:util", "f5527a6"),
        ("//lib:util.cc (null)", "//lib:util.cc", None),
        (
            "root//bin:the_binary (root//platforms:platform1#0123456789abcdef)",
            "root//bin:the_binary",
            "root//platforms:platform1#0123456789abcdef",
        ),
        ("//a:file with space.cc (null)", "//a:file with space.cc", None),
        ("//a:b", "//a:b", None),
    ],
)
def test_split_configuration(text: str, label: str, config: str | None) -> None:
    assert split_configuration(text) == (label, config)


def test_parts() -> None:
    assert label_package("@r//a/b:c") == "@r//a/b"
    assert label_name("@r//a/b:c") == "c"
    assert package_path("@r//a/b:c") == "a/b"


names = st.text(alphabet="abcxyz_0123456789-.", min_size=1, max_size=8)


@given(st.lists(names, min_size=1, max_size=4), names)
def test_normalize_is_idempotent(parts: list[str], name: str) -> None:
    label = "//" + "/".join(parts) + ":" + name
    assert normalize_label(normalize_label(label)) == normalize_label(label) == label
    short = "//" + "/".join(parts)
    assert normalize_label(short) == f"{short}:{parts[-1]}"
