"""Which base rows ``index_in`` matched, read from its result's buffers."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from hudi_framework.read.merged import _matches


@pytest.mark.parametrize(
    ("keys", "log_keys"),
    [
        (["a", "b", "c", "d"], ["c", "a"]),  # some match
        (["a", "b"], ["a", "b"]),  # all match: no validity bitmap
        (["a", "b"], ["x"]),  # none match
        ([], ["x"]),  # empty batch
        (["a", None, "c"], ["c", None]),  # a null key matches a null log key, as index_in does
    ],
)
def test_matches_are_the_set_values_of_index_in(keys: list[str | None], log_keys: list[str | None]) -> None:
    found = pc.index_in(pa.array(keys, pa.string()), value_set=pa.array(log_keys, pa.string()))
    expected = [(row, index) for row, index in enumerate(found.to_pylist()) if index is not None]
    base_at, at = _matches(found)
    assert base_at.dtype == at.dtype == np.int64
    assert list(zip(base_at.tolist(), at.tolist(), strict=True)) == expected


def test_sliced_result_keeps_its_offset() -> None:
    found = pc.index_in(pa.array(["q", "a", "z", "b", "a", "x"]), value_set=pa.array(["a", "b"])).slice(1, 4)
    base_at, at = _matches(found)
    assert base_at.tolist() == [0, 2, 3]
    assert at.tolist() == [0, 1, 0]
