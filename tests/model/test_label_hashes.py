from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from slim.model.label_hashes import SortedHashes, label_hashes

_LABELS = st.lists(st.text(min_size=1, max_size=6), unique=True, max_size=60)


@given(labels=_LABELS, cuts=st.lists(st.integers(0, 60), max_size=8), queries=_LABELS)
def test_find_gives_the_id_of_each_label_taken_in_batch_by_batch(
    labels: list[str], cuts: list[int], queries: list[str]
) -> None:
    """Labels taken in over several batches (more than the runs kept apart, so they are
    sorted together again) are found by their hashes; others are not."""
    index = SortedHashes()
    for cut in sorted(cuts):
        index.extend(labels[:cut])
        index.find(label_hashes(queries))
    index.extend(labels)
    got = index.find(label_hashes(queries + labels)).tolist()
    ids = {x: i for i, x in enumerate(labels)}
    assert got == [ids.get(q, -1) for q in queries + labels]
    assert index.count == len(labels)


def test_a_hash_several_labels_share_finds_one_of_them() -> None:
    index = SortedHashes()
    index.extend(["a", "b", "c"], np.array([7, 7, 9], dtype=np.int64))
    index.extend(["a", "b", "c", "d"], np.array([7], dtype=np.int64))
    assert index.find(np.array([7, 9, 8], dtype=np.int64)).tolist()[1:] == [2, -1]
    assert index.find(np.array([7], dtype=np.int64))[0] in (0, 1, 3)
