"""RECORD_POSITIONS header codec: Java's portable 64-bit Roaring bitmap, byte for byte."""

from __future__ import annotations

import base64
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_framework.errors import RecordPositionsError
from hudi_framework.log.record_positions import decode_positions, encode_positions


def _raw(positions: list[int]) -> bytes:
    return base64.b64decode(encode_positions(positions))


def test_array_container_layout() -> None:
    # One high bitmap (key 0); cookie 12346 + count 1; key 0, cardinality-1 = 2; offset 16; values.
    expected = struct.pack("<Q", 1) + struct.pack("<I", 0)
    expected += struct.pack("<IIHHI", 12346, 1, 0, 2, 16) + struct.pack("<3H", 1, 2, 3)
    assert _raw([3, 1, 2, 2]) == expected


def test_run_container_layout_has_no_offsets_below_four_containers() -> None:
    # 0..99 as a run: 6 bytes instead of 200; cookie 12347 | (1 - 1) << 16, run marks 0x01, no offsets.
    expected = struct.pack("<QI", 1, 0) + struct.pack("<IB", 12347, 1) + struct.pack("<HH", 0, 99)
    expected += struct.pack("<HHH", 1, 0, 99)
    assert _raw(list(range(100))) == expected


def test_offsets_with_runs_from_four_containers() -> None:
    values = [v for key in range(4) for v in range(key << 16, (key << 16) + 10)]
    raw = _raw(values)
    cookie, marks = struct.unpack_from("<IB", raw, 12)
    assert cookie == 12347 | 3 << 16
    assert marks == 0b1111
    header = 12 + 4 + 1 + 4 * 4
    offsets = struct.unpack_from("<4I", raw, header)
    first = 4 + 1 + 4 * 4 + 4 * 4
    assert offsets == (first, first + 6, first + 12, first + 18)
    assert decode_positions(encode_positions(values)).tolist() == values


def test_bitmap_container_above_4096_values() -> None:
    values = list(range(0, 10_000, 2))  # 5000 values, 5000 runs: a bitmap is smaller than runs
    raw = _raw(values)
    assert struct.unpack_from("<IIHH", raw, 12) == (12346, 1, 0, 4999)
    words = np.frombuffer(raw[12 + 8 + 4 + 4 :], dtype="<u8")
    assert len(words) == 1024
    assert words[0] == 0x5555555555555555
    assert decode_positions(encode_positions(values)).tolist() == values


def test_positions_beyond_32_bits_use_several_high_bitmaps() -> None:
    values = [7, (1 << 32) + 1, (3 << 32) + 5]
    raw = _raw(values)
    assert struct.unpack_from("<QI", raw, 0) == (3, 0)
    assert decode_positions(encode_positions(values)).tolist() == values


def test_empty_set() -> None:
    assert _raw([]) == struct.pack("<Q", 0)
    assert decode_positions(encode_positions([])).tolist() == []


@settings(max_examples=150, deadline=None)
@given(st.sets(st.integers(min_value=0, max_value=300_000), max_size=3000))
def test_round_trip(values: set[int]) -> None:
    assert decode_positions(encode_positions(sorted(values))).tolist() == sorted(values)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 200_000), st.integers(1, 9000)), max_size=6))
def test_round_trip_of_runs(runs: list[tuple[int, int]]) -> None:
    values = sorted({v for start, n in runs for v in range(start, start + n)})
    assert decode_positions(encode_positions(values)).tolist() == values


def test_negative_position_is_refused() -> None:
    with pytest.raises(RecordPositionsError, match="-1"):
        encode_positions([3, -1])


@pytest.mark.parametrize(
    ("value", "match"),
    [
        ("not base64!", "Base64"),
        (base64.b64encode(struct.pack("<QI", 1, 0) + struct.pack("<I", 999)).decode(), "cookie 999"),
        (base64.b64encode(struct.pack("<QI", 1, 0) + struct.pack("<II", 12346, 1)).decode(), "needed"),
        (base64.b64encode(base64.b64decode(encode_positions([1, 2])) + b"\0").decode(), "1 bytes after"),
    ],
)
def test_damaged_values_raise_typed_errors(value: str, match: str) -> None:
    with pytest.raises(RecordPositionsError, match=match):
        decode_positions(value)
