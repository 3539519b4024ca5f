"""Log block records sorted by position with the two headers, or left alone when Java writes none."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from hudi_framework.log.blocks import HeaderKey
from hudi_framework.log.record_positions import decode_positions
from hudi_framework.write.record_positions import positioned

ROWS = pa.table({"k": ["a", "b", "c"]})


def test_records_sorted_by_position() -> None:
    rows, header = positioned(ROWS, np.array([9, 1, 4], dtype=np.int64), "001")
    assert rows.column("k").to_pylist() == ["b", "c", "a"]
    assert decode_positions(header[HeaderKey.RECORD_POSITIONS]).tolist() == [1, 4, 9]
    assert header[HeaderKey.BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS] == "001"


def test_no_headers_when_a_record_has_no_position_or_two_share_one() -> None:
    for positions in (np.array([9, -1, 4]), np.array([4, 1, 4]), None):
        rows, header = positioned(ROWS, positions, "001")
        assert header == {}
        assert rows is ROWS
