"""Which slices merge by position: every valid block must carry positions of the slice's own base file."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from hudi_framework.log.blocks import HeaderKey
from hudi_framework.log.record_positions import encode_positions
from hudi_framework.read.record_positions import PositionPairs, SlicePositions, same_keys

BASE = "20260101000000000"


def _header(positions: list[int], base: str = BASE) -> dict[HeaderKey, str]:
    return {
        HeaderKey.RECORD_POSITIONS: encode_positions(positions),
        HeaderKey.BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS: base,
    }


def test_keys_get_the_positions_of_their_blocks() -> None:
    positions = SlicePositions(BASE)
    positions.add_block(_header([2, 9]), pa.array(["b", "a"]))
    positions.add_block(_header([4]), pa.array(["c"]))
    assert positions.of(pa.array(["a", "c", "b"])).tolist() == [9, 4, 2]


def test_a_key_without_a_position_means_merging_by_key() -> None:
    positions = SlicePositions(BASE)
    positions.add_block(_header([2]), pa.array(["b"]))
    assert positions.of(pa.array(["b", "zz"])) is None


def test_blocks_that_disqualify_the_slice() -> None:
    cases: list[tuple[dict[HeaderKey, str], pa.Array]] = [
        ({}, pa.array(["a"])),  # no positions
        (_header([1], base="20250101000000000"), pa.array(["a"])),  # another base file
        ({**_header([1]), HeaderKey.RECORD_POSITIONS: "%%%"}, pa.array(["a"])),  # does not decode
        (_header([1, 2]), pa.array(["a"])),  # not one position per record
    ]
    for header, keys in cases:
        positions = SlicePositions(BASE)
        positions.add_block(_header([5]), pa.array(["x"]))
        positions.add_block(header, keys)
        assert positions.of(pa.array(["x"])) is None, header


def test_pairs_follow_the_base_batches() -> None:
    pairs = PositionPairs(np.array([7, 0, 3, 12], dtype=np.int64))
    first_rows, first_records = pairs.next_batch(5)
    assert first_rows.tolist() == [0, 3]
    assert first_records.tolist() == [1, 2]
    second_rows, second_records = pairs.next_batch(5)
    assert second_rows.tolist() == [2]
    assert second_records.tolist() == [0]
    assert pairs.next_batch(5)[1].tolist() == [3]


def test_same_keys() -> None:
    base, log = pa.array(["a", "b", "c"]), pa.array(["c", "a"])
    assert same_keys(base, log, np.array([0, 2]), np.array([1, 0]))
    assert not same_keys(base, log, np.array([0, 1]), np.array([1, 0]))
