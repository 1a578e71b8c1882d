"""Canonical JSON of native facts (maps, GC reports, why-extract/live, ELF) for goldens."""

from __future__ import annotations

import json
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import Any

import pytest

from slim.model.native import ElfFile, SectionList, SymbolTable
from tests.ingest._canonical import golden_path, update_goldens


def _plain(obj: Any) -> Any:
    if isinstance(obj, ElfFile):
        return elf_to_canonical(obj)
    if is_dataclass(obj) and not isinstance(obj, type):
        return {k: _plain(v) for k, v in asdict(obj).items()}
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple | SectionList):
        return [_plain(v) for v in obj]
    return obj


def _table(t: SymbolTable | None) -> list[list[object]] | None:
    if t is None:
        return None
    return [[s.name, s.defined, s.binding, s.type, s.size] for s in t.symbols()]


def elf_to_canonical(e: ElfFile) -> dict[str, object]:
    return {
        "path": Path(e.path).name,
        "kind": e.kind,
        "machine": e.machine,
        "archive": Path(e.archive).name if e.archive else "",
        "member": e.member,
        "needed": list(e.needed),
        "soname": e.soname,
        "has_static_init": e.has_static_init,
        "foreign_initializers": e.foreign_initializers,
        "sections": [[s.name, s.type, s.size] for s in e.sections],
        "symbols": _table(e.symbols),
        "dynamic_symbols": _table(e.dynamic_symbols),
        "defined": sorted(e.defined),
        "undefined": sorted(e.undefined),
        "weak_defined": sorted(e.weak_defined),
    }


def to_canonical(facts: list[object]) -> list[Any]:
    out = []
    for f in facts:
        d = _plain(f)
        if isinstance(d, dict) and "path" in d:
            d["path"] = Path(str(d["path"])).name
        out.append(d)
    return out


def check_golden(facts: list[object], sample: Path, request: pytest.FixtureRequest) -> list[Any]:
    got = to_canonical(facts)
    golden = golden_path(sample)
    if update_goldens(request):
        golden.write_text(json.dumps(got, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    assert golden.exists(), f"{golden} missing: run pytest --update-goldens"
    assert json.loads(golden.read_text(encoding="utf-8")) == got
    return got
