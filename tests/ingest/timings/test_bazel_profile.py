"""Bazel --profile: golden of the real 4.2.3 profile, cross-checked with analyze-profile."""

from __future__ import annotations

import contextlib
import gzip
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slim.errors import InputError
from slim.ingest import detect
from slim.ingest.timings import bazel_profile
from slim.ingest.timings.bazel_profile import read_bazel_profile, sniff
from tests.ingest._timing_golden import check_golden

DATA = Path(__file__).parents[2] / "data"
SAMPLE = DATA / "bazel" / "profile.json.gz"
ORACLE = DATA / "bazel" / "analyze-profile.txt"


def _raw() -> bytes:
    return gzip.decompress(SAMPLE.read_bytes())


def _write(tmp_path: Path, data: bytes, name: str = "profile.json") -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


def _ms(text: str) -> float:
    value, unit = text.split()
    return float(value) * (1000.0 if unit == "s" else 1.0)


def test_golden(request: pytest.FixtureRequest) -> None:
    check_golden(read_bazel_profile(SAMPLE), SAMPLE, DATA, request)


def test_cross_check_with_analyze_profile() -> None:
    """bazel analyze-profile's critical path and phase totals bound what we read."""
    oracle = ORACLE.read_text()
    ts = read_bazel_profile(SAMPLE)
    by_desc = {a.description: a for a in ts.actions}
    crit = re.findall(r"^\s+([\d.]+ m?s)\s+[\d.]+%\s+action '(.+)'$", oracle, re.M)
    assert len(crit) == 2
    for when, desc in crit:
        got_ms = by_desc[desc].duration * 1000
        # The critical-path copy includes queueing around the action: never shorter.
        assert got_ms <= _ms(when) + 0.5
        assert got_ms >= 0.9 * _ms(when)
    link = next(a for a in ts.actions if a.description == "Linking app/app")
    assert link.mnemonic == "CppLink"
    assert link.output == "app/app"
    total = float(re.search(r"Total run time\s+([\d.]+) s", oracle).group(1))  # type: ignore[union-attr]
    execution = float(
        re.search(r"Total execution phase time\s+([\d.]+) s", oracle).group(1)  # type: ignore[union-attr]
    )
    span = max(a.end for a in ts.actions) - min(a.start for a in ts.actions)
    assert span <= execution + 0.001 <= total
    compiles = sorted(a.source for a in ts.actions if a.mnemonic == "CppCompile")
    assert compiles == ["app/main.cc", "lib/core.cc", "lib/util.cc"]


def test_critical_path_copies_are_not_counted() -> None:
    ts = read_bazel_profile(SAMPLE)
    assert not any(a.description.startswith("action '") for a in ts.actions)
    assert len([a for a in ts.actions if "lib/core.cc" in a.description]) == 1


def test_uncompressed_and_small_blocks_agree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = read_bazel_profile(SAMPLE).actions
    plain = _write(tmp_path, _raw())
    assert read_bazel_profile(plain).actions == expected
    monkeypatch.setattr(bazel_profile, "BLOCK_BYTES", 1500)
    assert read_bazel_profile(plain).actions == expected


def test_newer_bazel_args_give_label_and_mnemonic(tmp_path: Path) -> None:
    data = (
        b'{"otherData":{},"traceEvents":[\n'
        b'  {"cat":"action processing","name":"Compiling x.cc","ph":"X","ts":10,"dur":2000000,'
        b'"pid":1,"tid":5,"args":{"target":"//pkg:lib","mnemonic":"CppCompile"}},\n'
        b'  {"cat":"action processing","name":"Action k.cu","ph":"X","ts":0,"dur":5,'
        b'"pid":1,"tid":5,"args":{"target":"@//k:kern","mnemonic":"CudaCompile"}}\n'
        b"  ]\n}\n"
    )
    ts = read_bazel_profile(_write(tmp_path, data))
    assert [(a.label, a.mnemonic, a.action_class) for a in ts.actions] == [
        ("//k:kern", "CudaCompile", "cuda"),
        ("//pkg:lib", "CppCompile", "compile"),
    ]
    assert ts.actions[1].duration == pytest.approx(2.0)


def test_events_on_one_line(tmp_path: Path) -> None:
    data = (
        b'{"traceEvents":[{"cat":"action processing","name":"Linking a/b","ph":"X","ts":0,'
        b'"dur":1000,"tid":1},{"ph":"M","name":"x"}],"otherData":{}}'
    )
    (a,) = read_bazel_profile(_write(tmp_path, data)).actions
    assert a.output == "a/b"
    assert a.duration == pytest.approx(0.001)


def test_truncated_profile_is_read_up_to_its_last_event(tmp_path: Path) -> None:
    raw = _raw()
    cut = raw.index(b'"Linking app/app"') + 10
    ts = read_bazel_profile(_write(tmp_path, raw[:cut]))
    assert any("truncated" in n for n in ts.notes)
    assert "Linking app/app" not in {a.description for a in ts.actions}
    assert len(ts.actions) == len(read_bazel_profile(SAMPLE).actions) - 1


def test_corrupt_gzip_is_an_input_error(tmp_path: Path) -> None:
    gz = SAMPLE.read_bytes()
    with pytest.raises(InputError, match="gzip"):
        read_bazel_profile(_write(tmp_path, gz[: len(gz) // 2], "p.json.gz"))


def test_bad_action_event_names_its_line(tmp_path: Path) -> None:
    lines = _raw().split(b"\n")
    k = next(i for i, ln in enumerate(lines) if b"Compiling lib/core.cc" in ln)
    lines[k] = b'    {"cat":"action processing","name":oops,"ph":"X"},'
    with pytest.raises(InputError, match=rf"profile.json:{k + 1}: expected a trace event object"):
        read_bazel_profile(_write(tmp_path, b"\n".join(lines)))


def test_non_action_lines_are_not_decoded(tmp_path: Path) -> None:
    """Only action lines are read (speed); a broken counter line changes nothing we use."""
    lines = _raw().split(b"\n")
    k = next(i for i, ln in enumerate(lines) if b'"cpu counters"' in ln)
    lines[k] = b'    {"name":"cpu counters","ph":"C", broken'
    got = read_bazel_profile(_write(tmp_path, b"\n".join(lines)))
    assert got.actions == read_bazel_profile(SAMPLE).actions


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"", "an empty file"),
        (b'{"foo": 1}', 'expected a Chrome trace JSON object with "traceEvents"'),
        (b"\x1f\x8b\x08\x00garbage", "gzip"),
        (b"\x00\x01\x02\x03" * 50, 'with "traceEvents"'),
        (b'{"traceEvents":[]}', "no events"),
    ],
)
def test_bad_input(tmp_path: Path, data: bytes, match: str) -> None:
    with pytest.raises(InputError, match=match):
        read_bazel_profile(_write(tmp_path, data))


def test_detect_and_sniff() -> None:
    assert detect(SAMPLE, "timings").name == "bazel-profile"
    assert sniff(_raw()[:8192], SAMPLE)
    assert not sniff((DATA / "timetrace" / "tt.time-trace.json").read_bytes()[:8192], SAMPLE)


@settings(deadline=None, max_examples=150)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_crash(data: bytes) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "p.json"
        p.write_bytes(b'{"traceEvents":[\n' + data)
        with contextlib.suppress(InputError):
            read_bazel_profile(p)


def test_critical_path_is_bazels_own_as_analyze_profile_prints_it() -> None:
    """The `critical path component` events, in order, with the durations the oracle
    (`bazel analyze-profile`) prints, and not counted again as actions."""
    ts = read_bazel_profile(SAMPLE)
    oracle = ORACLE.read_text()
    rows = re.findall(
        r"^\s+([\d.]+ m?s)\s+[\d.]+%\s+(.+)$", oracle.split("Critical path", 1)[1], re.M
    )
    assert len(ts.critical_path) == len(rows) == 4
    for a, (dur, desc) in zip(ts.critical_path, rows, strict=True):
        assert a.duration * 1000 == pytest.approx(_ms(dur), rel=0.01, abs=0.01)
        name = desc.replace("action '", "").rstrip("'")
        assert a.description.replace(":", " ") == name.replace(":", " ")
    assert len(ts.actions) == 13


def _with_cache_events(raw: bytes, hit: str, miss: str) -> bytes:
    """The real profile with the events Bazel's RemoteSpawnCache writes inside an action
    (`remote action cache check` "check cache hit", then on a hit `remote output
    download` "download outputs"), on the action's own thread, as one line each."""
    lines = raw.split(b"\n")
    out = []
    for ln in lines:
        out.append(ln)
        for name, outcome in ((hit, "hit"), (miss, "miss")):
            if f'"name":"{name}"'.encode() in ln and b'"action processing"' in ln:
                ev = json.loads(ln.rstrip(b","))
                t0, tid = ev["ts"] + 1, ev["tid"]
                check = {
                    "cat": "remote action cache check",
                    "name": "check cache hit",
                    "ph": "X",
                    "ts": t0,
                    "dur": 5,
                    "pid": 1,
                    "tid": tid,
                }
                out.append(json.dumps(check).encode() + b",")
                if outcome == "hit":
                    dl = {
                        "cat": "remote output download",
                        "name": "download outputs",
                        "ph": "X",
                        "ts": t0 + 10,
                        "dur": 5,
                        "pid": 1,
                        "tid": tid,
                    }
                    out.append(json.dumps(dl).encode() + b",")
    return b"\n".join(out)


def test_cache_outcomes_from_bazels_remote_cache_events(tmp_path: Path) -> None:
    data = _with_cache_events(_raw(), "Compiling lib/core.cc", "Compiling lib/util.cc")
    ts = read_bazel_profile(_write(tmp_path, data))
    by = {a.description: a.cache for a in ts.actions}
    assert by["Compiling lib/core.cc"] == "hit"
    assert by["Compiling lib/util.cc"] == "miss"
    assert by["Compiling app/main.cc"] == ""
    assert "cache: 1 of 2 looked-up actions were hits" in ts.notes


def test_report_gives_each_targets_hit_ratio(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from slim.app.session import Request, Session

    data = _with_cache_events(_raw(), "Compiling lib/core.cc", "Compiling lib/util.cc")
    prof = _write(tmp_path, data)
    monkeypatch.chdir(DATA.parent.parent)
    req = Request(
        graphs=(DATA / "bazel" / "query.xml",),
        config_path=Path(os.devnull),
        evidence={"timings": (prof,)},
    )
    s = Session(req)
    rep = s.report(s.root_ids(["//app:app"]))
    assert rep.timings is not None
    cache = {lab: (h, m) for lab, h, m in rep.timings.cache}
    assert cache == {"//lib:core": (1, 0), "//lib:util": (0, 1)}
