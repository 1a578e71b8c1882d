"""Merged graph exports whose targets do not correspond (issue 13 §9).

The sample monorepo's Bazel cquery and CMake reply describe one tree with the same
labels; here the CMake libraries are renamed as a CMake project would name them
(`native_legacy_io` for `//native/legacy_io:legacy_io`), the way a second monorepo's two
exports did not line up. The linker map's archives then belong to the CMake names while
the binary's Bazel closure holds the Bazel names: "nothing of it is in the map" can no
longer be told apart from "its archive is listed under the other name".
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from slim.app.session import Request, Session
from slim.infra.config import Config
from slim.ingest import load_graph

MONO = Path(__file__).resolve().parents[3] / "sample_graphs" / "monorepo"
EXPORTS = MONO / "exports"
ROOT = "//serving:cpu_server"


def _renamed_reply(tmp: Path) -> Path:
    """The CMake reply with every library named `native_<name>` (executables kept)."""
    reply = tmp / "reply"
    shutil.copytree(EXPORTS / "cmake" / "reply", reply)
    for f in reply.glob("target-*.json"):
        data = json.loads(f.read_text())
        if data["type"] != "EXECUTABLE":
            data["name"] = f"native_{data['name']}"
            f.write_text(json.dumps(data))
    return reply


def _report(graphs: tuple[Path, ...]) -> tuple[Session, dict[tuple[str, str], bool]]:
    binaries = (EXPORTS / "bin" / "cpu_server", *sorted((EXPORTS / "archives").rglob("*.a")))
    req = Request(
        graphs=graphs,
        use_cache=False,
        evidence={
            "linkmap": (EXPORTS / "linkmaps" / "cpu_server.bfd.map",),
            "binary": binaries,
        },
        workspace=MONO,
        select=("SLIM002",),
    )
    s = Session(req, config=Config())
    rep = s.report(s.select_roots([ROOT]))
    return s, {(f.target, f.dep): f.removable for f in rep.findings if f.dep}


def test_exports_that_do_not_line_up_are_said_in_one_note(tmp_path: Path) -> None:
    bazel = EXPORTS / "bazel" / "cquery.jsonproto.json"
    same = load_graph([bazel, EXPORTS / "cmake" / "reply"])
    assert not [n for n in same.notes if "do not line up" in n]
    renamed = _renamed_reply(tmp_path)
    merged = load_graph([bazel, renamed])
    notes = [n for n in merged.notes if "do not line up" in n]
    assert len(notes) == 1, merged.notes
    assert str(renamed) in notes[0]
    assert ":native_" in notes[0]


def test_merged_exports_that_do_not_line_up_propose_nothing_the_map_cannot_tell(
    tmp_path: Path,
) -> None:
    bazel = EXPORTS / "bazel" / "cquery.jsonproto.json"
    _, alone = _report((bazel,))
    assert alone[(ROOT, "//native/legacy_io:legacy_io")] is True
    _, merged = _report((bazel, _renamed_reply(tmp_path)))
    wrong = sorted(k for k, removable in merged.items() if removable and k not in alone)
    assert not wrong, wrong
    assert sum(merged.values()) <= sum(alone.values()), merged
