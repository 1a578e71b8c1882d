from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from slim.model.columns import SEP, CodeColumn, LocationColumn, StringsColumn
from slim.model.graph import Location

paths = st.text(alphabet="abc/_.é ", min_size=1, max_size=12)


@given(st.dictionaries(st.integers(0, 10_000), st.tuples(paths, st.none() | st.integers(1, 9999))))
def test_locations_round_trip(raw: dict[int, tuple[str, int | None]]) -> None:
    locs = {k: Location(p, line) for k, (p, line) in raw.items()}
    col = LocationColumn.unpack(LocationColumn.pack(locs))
    assert dict(col.items()) == locs
    assert len(col) == len(locs)
    assert col.get(-1) is None
    assert ("x" in col) is False


@given(
    st.lists(paths, min_size=1, max_size=8, unique=True),
    st.lists(st.tuples(st.integers(0, 7), st.integers(-1, 99)), max_size=30),
)
def test_a_column_packs_as_its_locations_do(table: list[str], rows: list[tuple[int, int]]) -> None:
    """A builder's column (a path table some of whose paths no kept target uses) packs to
    the arrays of the same locations given one by one: the table cut to the paths used,
    in table order."""
    rows = [(p % len(table), line) for p, line in rows]
    ids = np.arange(len(rows), dtype=np.int64) * 3
    col = LocationColumn(
        ids,
        np.array([p for p, _ in rows], dtype=np.int64),
        np.array([line for _, line in rows], dtype=np.int64),
        table,
    )
    got = LocationColumn.pack(col)
    assert got["paths"] == SEP.join(table[k] for k in sorted({p for p, _ in rows}))
    assert dict(LocationColumn.unpack(got).items()) == dict(col.items())
    assert np.asarray(got["path_idx"]).dtype == np.int64


@given(
    st.dictionaries(
        st.integers(0, 10_000),
        st.lists(st.text(alphabet="ab:/é.", min_size=1), min_size=1).map(tuple),
    )
)
def test_strings_round_trip(raw: dict[int, tuple[str, ...]]) -> None:
    col = StringsColumn.unpack(StringsColumn.pack(raw))
    assert dict(col.items()) == raw
    assert col.get(10_001, ()) == ()


def test_group_by_path_is_the_same_for_dicts_and_columns() -> None:
    from slim.model.columns import group_by_path

    locs = {
        3: Location("a/BUILD", 1),
        7: Location("b/BUILD", 4),
        9: Location("a/BUILD", 9),
        11: Location("c/BUILD"),
    }
    col = LocationColumn.unpack(LocationColumn.pack(locs))
    ids = [11, 9, 3, 7, 5]
    assert (
        group_by_path(locs, ids) == group_by_path(col, ids) == {"a/BUILD": [9, 3], "b/BUILD": [7]}
    )


@given(
    st.dictionaries(
        st.integers(0, 300), st.dictionaries(st.sampled_from("abc"), st.integers(0, 9))
    ),
    st.lists(st.integers(-(2**70), 2**70) | st.integers(0, 400), max_size=20),
)
def test_get_of_every_column_is_dict_get(raw: dict[int, dict[str, int]], keys: list[int]) -> None:
    """`get` (no exception on a miss) answers as a dict does, for keys outside the ids'
    dtype too (the ids are int32 or int64 on disk)."""
    import numpy as np

    from slim.model.columns import MsgpackColumn

    packed = MsgpackColumn.pack(raw)
    strs = {k: tuple(sorted(v)) for k, v in raw.items() if v}
    for ids_dtype in (np.int32, np.int64):
        col = MsgpackColumn(packed["ids"].astype(ids_dtype), packed["bounds"], packed["blob"])
        scol = StringsColumn.unpack(StringsColumn.pack(strs))
        for k in [*keys, *raw]:
            assert col.get(k, "none") == raw.get(k, "none")
            assert scol.get(k, "none") == strs.get(k, "none")
            assert (k in col) == (k in raw)


@given(
    st.dictionaries(st.integers(0, 300), st.lists(st.text("ab:/é", min_size=1), min_size=1)),
    st.lists(st.text("xyé/:", max_size=6), min_size=1, max_size=40),
    st.lists(st.integers(0, 400), max_size=30),
)
def test_bulk_lookups_answer_as_one_by_one(
    raw: dict[int, list[str]], texts: list[str], keys: list[int]
) -> None:
    """`StringsColumn.get_many` and `TextColumn.many` (the planner's bulk paths) give what
    `get` and indexing give, id by id."""
    import numpy as np

    from slim.model.columns import LabelColumn, TextColumn

    strs = {k: tuple(v) for k, v in raw.items()}
    col = StringsColumn.unpack(StringsColumn.pack(strs))
    ids = np.asarray(keys, dtype=np.int64)
    assert col.get_many(ids) == [strs.get(k) for k in keys]
    picks = np.asarray([k % len(texts) for k in keys], dtype=np.int64)
    for packed in (TextColumn.pack(texts), LabelColumn.pack(texts)):
        text = TextColumn(packed["blob"], packed["offsets"])
        assert text.many(picks) == [texts[i] for i in picks.tolist()]
        text.as_list()
        assert text.many(picks) == [texts[i] for i in picks.tolist()]


@given(st.lists(st.text(alphabet="ab:/\x00é", max_size=8), max_size=30))
def test_text_and_label_columns_keep_any_text(texts: list[str]) -> None:
    """Packed in one pass when no text holds the separator and all are ASCII, one by one
    otherwise: the column gives back every text and finds every label either way."""
    from slim.model.columns import LabelColumn, TextColumn

    packed = TextColumn.pack(texts)
    assert list(TextColumn(packed["blob"], packed["offsets"])) == texts
    labels = LabelColumn.pack(texts)
    col = LabelColumn(labels["blob"], labels["offsets"], labels["hashes"], labels["order"])
    assert list(col) == texts
    for t in texts:
        i = col.find(t)
        assert i is not None
        assert texts[i] == t
    assert col.find("zz") is None


@settings(max_examples=200)
@given(
    st.lists(st.text(max_size=3), min_size=1, max_size=200, unique=True).flatmap(
        lambda table: st.tuples(
            st.just(table), st.lists(st.integers(0, len(table) - 1), max_size=60)
        )
    )
)
def test_a_code_column_packs_as_its_strings_do(case: tuple[list[str], list[int]]) -> None:
    """A builder's kinds (a table in order of first use, codes per id) pack to the same
    sorted table and narrow codes as the list of their strings."""
    table, codes = case
    column = CodeColumn(table, np.array(codes, dtype=np.int32))
    got_table, got = CodeColumn.pack(column)
    want_table, want = CodeColumn.pack(list(column))
    assert got_table == want_table
    assert got.dtype == want.dtype
    assert got.tolist() == want.tolist()


@settings(max_examples=150)
@given(
    st.lists(
        st.tuples(st.integers(0, 10_000), st.text(alphabet="ab:/.\0", max_size=6)),
        max_size=40,
        unique_by=lambda t: t[0],
    )
)
def test_values_left_in_call_order_read_by_id(items: list[tuple[int, str]]) -> None:
    """Values laid in the order they came (ids unsorted) are read by id through the order
    that sorts the ids, before and after a trip through the cache's arrays."""
    ids = np.array([i for i, _ in items], dtype=np.int64)
    texts = [t for _, t in items]
    order = np.argsort(ids, kind="stable") if len(ids) > 1 else None
    blob = np.frombuffer("".join(texts).encode(), dtype=np.uint8)
    lengths = np.array([len(t) for t in texts], dtype=np.int32)
    col = StringsColumn.from_laid(ids, lengths, blob, order)
    want = {i: tuple(t.split("\0")) for i, t in items}
    assert dict(col.items()) == want
    back = StringsColumn.unpack(col._arrays())
    assert dict(back.items()) == want
    assert back.get_many(np.array([*ids.tolist(), 10_001], dtype=np.int64)) == [
        *(want[i] for i in ids.tolist()),
        None,
    ]
