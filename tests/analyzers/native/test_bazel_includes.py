"""The names Bazel gives a library's headers under `strip_include_prefix` and
`include_prefix`, and the `_virtual_includes` paths a depfile lists for them (Bazel 4.2.3's
rules as documented for `cc_library`; the fixture `tests/data/bazel_defines` checks them on
real output)."""

from __future__ import annotations

import pytest

from analyzers.native._bazel_includes import package_dir, virtual_name, virtual_owner


@pytest.mark.parametrize(
    ("header", "label", "strip", "prefix", "name"),
    [
        ("lib/vinc/include/vinc/v.h", "//lib:vinc", "vinc/include", "", "vinc/v.h"),
        ("lib/pfxdir/p.h", "//lib:pfx", "pfxdir", "ext", "ext/p.h"),
        # an absolute strip is from the repository's root
        ("lib/pfxdir/p.h", "//lib:pfx", "/lib", "", "pfxdir/p.h"),
        # include_prefix alone prepends to the repository-relative path
        ("lib/pfxdir/p.h", "//lib:pfx", "", "ext/", "ext/lib/pfxdir/p.h"),
        ("external/z/src/z.h", "@z//src:z", "", "zlib", "zlib/src/z.h"),
        ("external/z/src/inc/z.h", "@z//src:z", "inc", "", "z.h"),
        ("external/z/inc/z.h", "@z//src:z", "/inc", "", "z.h"),
        # a header outside the stripped prefix (Bazel refuses the rule)
        ("lib/other/o.h", "//lib:vinc", "vinc/include", "", None),
        ("lib/vinc/includes.h", "//lib:vinc", "vinc/include", "", None),
    ],
)
def test_the_include_name_of_a_header(
    header: str, label: str, strip: str, prefix: str, name: str | None
) -> None:
    assert virtual_name(header, label, strip, prefix) == name


@pytest.mark.parametrize(
    ("path", "owner"),
    [
        ("lib/_virtual_includes/vinc/vinc/v.h", ("//lib:vinc", "vinc/v.h")),
        ("a/b/_virtual_includes/x/ext/p.h", ("//a/b:x", "ext/p.h")),
        ("_virtual_includes/top/t.h", ("//:top", "t.h")),
        ("external/z/src/_virtual_includes/z/zlib/z.h", ("@z//src:z", "zlib/z.h")),
        ("external/z/_virtual_includes/z/z.h", ("@z//:z", "z.h")),
        ("lib/vinc/v.h", None),
        ("lib/_virtual_includes/vinc", None),
        ("external/_virtual_includes/x/y.h", None),
    ],
)
def test_the_target_of_a_virtual_include_path(path: str, owner: tuple[str, str] | None) -> None:
    assert virtual_owner(path) == owner


def test_a_package_directory() -> None:
    assert [package_dir(x) for x in ("//a/b:x", "//:x", "@r//a:x", "@r//:x")] == [
        "a/b",
        "",
        "external/r/a",
        "external/r",
    ]
