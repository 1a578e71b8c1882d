from __future__ import annotations

import pickle

from slim.errors import InputError, describe_found


def test_found_text_is_short_and_printable() -> None:
    assert describe_found(b"hello") == "'hello'"
    assert describe_found(b"") == "end of file"
    long = describe_found("x" * 10_000)
    assert len(long) < 80
    assert long.endswith("…")
    assert describe_found(b"\x00\x01abc") == "binary data (00 01 61 62 63)"
    assert describe_found("é".encode() * 3 + "é".encode()[:1]) == "'ééé'"


def test_input_error_renders_line_or_offset_and_survives_pickling() -> None:
    e = InputError("a.map", "a section line", "'x'", line=12)
    assert str(e) == "a.map:12: expected a section line, found 'x'"
    b = InputError("k.o", "ELF magic", "binary data (00)", offset=64)
    assert str(b) == "k.o:byte 64: expected ELF magic, found binary data (00)"
    assert str(pickle.loads(pickle.dumps(b))) == str(b)
