"""Every reader (every format in `slim.ingest.FORMATS`) under damage, as properties.

Real samples are cut, have bytes flipped, deleted or duplicated, NULs inserted, or (JSON)
values swapped for values of another type. Each mutant is either read or refused with one
clean line, `FILE:LINE: expected …, found …` (`FILE:byte N:` for binary input), never
another exception. A cut sample is refused, or reads exactly as the whole one, except
where its format cannot tell (a cut at a line start where nothing marks the end: said per
format in `_samples.py`). An inserted NUL in a text format is always refused.

Examples are bounded and fixed (`SLIM_FUZZ_EXAMPLES`, default 12 per format and property)
so the suite stays within its CI budget (about 20 s); `SLIM_FUZZ_RANDOM=1
SLIM_FUZZ_EXAMPLES=500` hunts with fresh random examples.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest import FORMATS
from tests.fuzz._samples import SAMPLES, Sample, canonical, load

FUZZ_EXAMPLES = int(os.environ.get("SLIM_FUZZ_EXAMPLES", "12"))
FUZZ = settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    database=None,
    derandomize=not os.environ.get("SLIM_FUZZ_RANDOM"),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
ERROR = re.compile(r"^(?P<where>.+?)(?::\d+|:byte \d+): expected .+, found .+$", re.S)
NAMES = sorted(SAMPLES)


class Case:
    """A format's pristine sample, a scratch copy to damage, and the whole sample's result."""

    def __init__(self, sample: Sample, root: Path) -> None:
        self.sample = sample
        pristine = root / "pristine"
        pristine.mkdir(parents=True)
        self.path = sample.make(root)  # the input slim is given (a file, or a directory)
        self.pristine = sample.make(pristine)
        self.target = self.path / sample.member if sample.member else self.path
        self.data = self.target.read_bytes()
        self.full = canonical(load(sample.fmt, self.path), root)
        self.root = root

    def write(self, data: bytes) -> None:
        self.target.write_bytes(data)

    def reset(self) -> None:
        if self.sample.member:
            shutil.copytree(self.pristine, self.path, dirs_exist_ok=True)
        self.target.write_bytes(self.data)

    def outcome(self, data: bytes) -> tuple[str, str]:
        """("error", message) or ("read", canonical result) for the sample damaged to `data`."""
        self.write(data)
        try:
            result = load(self.sample.fmt, self.path)
        except InputError as exc:
            msg = str(exc)
            assert "\n" not in msg, msg
            m = ERROR.match(msg)
            assert m is not None, f"not `FILE:LINE: expected …, found …`: {msg}"
            assert m.group("where").startswith(str(self.path)), msg
            return "error", msg
        finally:
            self.reset()
        return "read", canonical(result, self.root)


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Case]:
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed (it makes the depfile sample)")
    return {name: Case(SAMPLES[name], tmp_path_factory.mktemp(name)) for name in NAMES}


def test_every_format_has_a_sample() -> None:
    assert set(SAMPLES) == {f.name for f in FORMATS}


@pytest.mark.parametrize("fmt", NAMES)
def test_cut_at_10_percent_half_and_inside_the_last_line(cases: dict[str, Case], fmt: str) -> None:
    case = cases[fmt]
    data = case.data
    last = data.rfind(b"\n", 0, len(data) - 1) + 1
    for k in sorted({len(data) // 10, len(data) // 2, min(last + 2, len(data) - 1)}):
        kind, got = case.outcome(data[:k])
        assert kind == "error" or got == case.full or case.sample.silent_cut(data, k), (
            f"{fmt}: cut at byte {k} of {len(data)} read as if whole"
        )


@pytest.mark.parametrize("fmt", NAMES)
@FUZZ
@given(st.data())
def test_any_cut_is_refused_or_loses_nothing(
    cases: dict[str, Case], fmt: str, data: st.DataObject
) -> None:
    case = cases[fmt]
    k = data.draw(st.integers(0, len(case.data) - 1), label="cut at")
    kind, got = case.outcome(case.data[:k])
    if kind == "read" and got != case.full:
        assert case.sample.silent_cut(case.data, k), (
            f"{fmt}: cut at byte {k} of {len(case.data)} read as if whole: "
            f"{case.data[max(0, k - 40) : k]!r}"
        )


@pytest.mark.parametrize("fmt", NAMES)
@FUZZ
@given(st.data())
def test_flipped_deleted_or_duplicated_bytes_are_read_or_refused_cleanly(
    cases: dict[str, Case], fmt: str, data: st.DataObject
) -> None:
    case = cases[fmt]
    raw = case.data
    pos = data.draw(st.integers(0, len(raw) - 1), label="at")
    op = data.draw(st.sampled_from(["flip", "delete", "duplicate"]), label="op")
    if op == "flip":
        bit = data.draw(st.integers(1, 255), label="xor")
        mutant = raw[:pos] + bytes([raw[pos] ^ bit]) + raw[pos + 1 :]
    elif op == "delete":
        mutant = raw[:pos] + raw[pos + 1 + data.draw(st.integers(0, 64)) :]
    else:
        size = data.draw(st.integers(1, 256), label="size")
        mutant = raw[:pos] + raw[pos : pos + size] + raw[pos:]
    case.outcome(mutant)  # any outcome but an exception other than InputError


@pytest.mark.parametrize("fmt", NAMES)
@FUZZ
@given(st.data())
def test_an_inserted_nul_is_refused_in_text(
    cases: dict[str, Case], fmt: str, data: st.DataObject
) -> None:
    case = cases[fmt]
    pos = data.draw(st.integers(0, len(case.data) - 1), label="at")
    kind, _ = case.outcome(case.data[:pos] + b"\0" + case.data[pos:])
    if case.sample.text:
        assert kind == "error", f"{fmt}: a NUL at byte {pos} was read"


# -- wrong types (JSON formats) -------------------------------------------------------------
WRONG: list[Any] = [7, -1, 2.5, "x", "", [], {}, None, True, [7], {"k": 7}, ["//x:y", 3]]


def _paths(value: Any, prefix: tuple[Any, ...] = (), limit: int = 3000) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    stack: list[tuple[tuple[Any, ...], Any]] = [(prefix, value)]
    while stack and len(out) < limit:
        path, v = stack.pop()
        out.append(path)
        if isinstance(v, dict):
            stack.extend(((*path, k), x) for k, x in v.items())
        elif isinstance(v, list):
            stack.extend(((*path, i), x) for i, x in enumerate(v))
    return out


def _documents(raw: bytes) -> tuple[list[Any], bool]:
    """The JSON documents of a sample, and whether it holds one per line."""
    try:
        return [json.loads(raw)], False
    except ValueError:
        return [json.loads(ln) for ln in raw.splitlines() if ln.strip()], True


def _swap(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return doc


@pytest.mark.parametrize("fmt", [n for n in NAMES if SAMPLES[n].json])
@FUZZ
@given(st.data())
def test_a_json_value_of_another_type_is_read_or_refused_cleanly(
    cases: dict[str, Case], fmt: str, data: st.DataObject
) -> None:
    case = cases[fmt]
    docs, per_line = _documents(case.data)
    which = data.draw(st.integers(0, len(docs) - 1), label="document")
    path = data.draw(st.sampled_from(_paths(docs[which])), label="path")
    old = docs[which]
    for key in path:
        old = old[key]
    value = data.draw(st.sampled_from([v for v in WRONG if type(v) is not type(old)]))
    docs[which] = _swap(docs[which], path, value)
    if per_line:
        text = "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs)
    else:
        text = json.dumps(docs[0], indent=1, ensure_ascii=False) + "\n"
    case.outcome(text.encode("utf-8"))
