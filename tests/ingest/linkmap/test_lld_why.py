"""lld `--why-extract` TSV and `--why-live` report readers."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest import detect
from slim.ingest.linkmap import lld_why
from slim.model.native import WhyExtract, WhyLive
from tests.ingest._native_golden import check_golden

DATA = Path(__file__).parents[2] / "data" / "linkmap"


def test_extract_golden(request: pytest.FixtureRequest) -> None:
    p = DATA / "lld.why-extract.tsv"
    check_golden(lld_why.load_extract(p), p, request)
    assert detect(p, "linkmap").name == "lld-why-extract"


def test_live_golden(request: pytest.FixtureRequest) -> None:
    p = DATA / "lld.why-live.txt"
    check_golden(lld_why.load_live(p), p, request)
    assert detect(p, "linkmap").name == "lld-why-live"


def test_extract_rows() -> None:
    (w,) = lld_why.load_extract(DATA / "lld.why-extract.tsv")
    assert isinstance(w, WhyExtract)
    assert next((e.reference, e.extracted, e.symbol, e.line) for e in w.entries) == (
        "build/link/main.o",
        "build/link/liba.a(a1.o)",
        "a_used",
        2,
    )


def test_live_chain() -> None:
    (w,) = lld_why.load_live(DATA / "lld.why-live.txt")
    assert isinstance(w, WhyLive)
    (c,) = w.entries
    assert (c.file, c.symbol, c.root) == ("build/link/libb.a(b1.o)", "b_used", "entry point")
    assert c.chain[0] == ("build/link/liba.a(a1.o)", "a_used")
    assert len(c.chain) == 3


@pytest.mark.parametrize(
    ("loader", "content"),
    [
        (lld_why.load_extract, b""),
        (lld_why.load_extract, b"wrong\theader\n"),
        (lld_why.load_extract, b"reference\textracted\tsymbol\nonly\ttwo\n"),
        (lld_why.load_live, b""),
        (lld_why.load_live, b">>> referenced by: x\n"),
        (lld_why.load_live, b"\x80\x81\n"),
    ],
)
def test_bad_input(tmp_path: Path, loader: object, content: bytes) -> None:
    p = tmp_path / "bad.txt"
    p.write_bytes(content)
    with pytest.raises(InputError) as exc:
        loader(p)  # type: ignore[operator]
    assert "\n" not in str(exc.value)


@settings(
    deadline=None, max_examples=50, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(max_size=300))
def test_arbitrary_bytes(tmp_path: Path, blob: bytes) -> None:
    p = tmp_path / "fuzz.txt"
    for prefix, loader in (
        (b"reference\textracted\tsymbol\n", lld_why.load_extract),
        (b"live symbol: a.o:(f)\n", lld_why.load_live),
    ):
        p.write_bytes(prefix + blob)
        with contextlib.suppress(InputError):
            loader(p)
