"""The log rows that won, taken from the pre-combined log rows: same rows whatever the path."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from hudi_framework.read.merged import _rows_at


def _logs() -> pa.Table:
    # Two chunks, as the log rows of a data block and a delete block concatenated.
    first = pa.table({"k": [f"key-{i}" for i in range(6)], "v": list(range(6))})
    second = pa.table({"k": ["key-6", "key-7"], "v": [6, 7]})
    return pa.concat_tables([first, second])


@pytest.mark.parametrize(
    "at",
    [
        [0, 1, 2, 3, 4, 5],  # a data block whose records all won, before a delete block
        [3, 2, 4],  # one run, in base order (not table order)
        [6, 7],  # a run in the second chunk
        [4, 5, 6],  # a run across chunks
        [0, 2, 5],  # scattered
        [7, 0],  # scattered, in base order
        [],
        list(range(8)),
    ],
)
def test_rows_at_are_the_marked_rows_in_table_order(at: list[int]) -> None:
    logs = _logs()
    taken = _rows_at(logs, np.array(at, dtype=np.int64))
    assert taken.schema == logs.schema
    assert taken.to_pylist() == [row for i, row in enumerate(logs.to_pylist()) if i in set(at)]


def test_a_run_of_rows_is_a_zero_copy_slice() -> None:
    logs = _logs().combine_chunks()
    taken = _rows_at(logs, np.array([4, 1, 2, 3], dtype=np.int64))
    assert taken.to_pylist() == logs.slice(1, 4).to_pylist()
    # The values are the log table's own buffer, not a copy of the four rows.
    source = logs.column("k").chunk(0).buffers()[2]
    result = taken.column("k").chunk(0).buffers()[2]
    assert result is not None
    assert source is not None
    assert result.address == source.address
