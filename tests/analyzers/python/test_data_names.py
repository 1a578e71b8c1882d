"""Dotted names in shipped text data files (`_data_names`): found with their lines, read
only up to the bound however large or hostile the file."""

from __future__ import annotations

from pathlib import Path

from slim_analyzers.python._data_names import MAX_DATA_BYTES, data_names, is_text_data


def test_names_in_a_payload_and_a_config(tmp_path: Path) -> None:
    p = tmp_path / "payload.json"
    p.write_text('{"py/object": "models.point.Point",\n "x": 3, "url": "v1.2"}\n')
    y = tmp_path / "conf.yaml"
    y.write_text("model:\n  _target_: models.net.Net\n  handler: app.h:make\n")
    assert data_names(p)[0] == ((1, "models.point.Point"),)
    assert data_names(y)[0] == ((2, "models.net.Net"), (3, "app.h"))
    assert is_text_data("cfg/Train.YAML")
    assert not is_text_data("weights.bin")


def test_a_huge_file_is_read_up_to_the_bound(tmp_path: Path) -> None:
    p = tmp_path / "big.txt"
    p.write_bytes(b"a.b\n" * (MAX_DATA_BYTES // 2))
    names, read = data_names(p)
    assert read == MAX_DATA_BYTES
    assert names[-1] == (MAX_DATA_BYTES // 4, "a.b")


def test_an_unreadable_file_names_nothing(tmp_path: Path) -> None:
    assert data_names(tmp_path / "missing.json") == ((), 0)
