"""``block_cells``: the vectorised cell scan of a data block finds exactly the cells a sequential
walk finds, whatever bytes rows and values hold (values that contain copies of cell heads
included), and declines (None) blocks it cannot prove: keys with a family, cut-off cells."""

from __future__ import annotations

import struct

from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_framework.log.hfile_cells import block_cells

_TAIL = b"\x7f\xff\xff\xff\xff\xff\xff\xff\x04"  # timestamp + key type (Put)


def _vlong(v: int) -> bytes:
    """Hadoop ``WritableUtils.writeVLong`` of a non-negative value."""
    if v <= 127:
        return bytes([v])
    raw = v.to_bytes((v.bit_length() + 7) // 8, "big")
    return bytes([(-112 - len(raw)) & 0xFF]) + raw


def _cell(row: bytes, value: bytes, mvcc: int | None, family: bytes = b"") -> bytes:
    key = struct.pack(">H", len(row)) + row + bytes([len(family)]) + family + _TAIL
    return struct.pack(">ii", len(key), len(value)) + key + value + (b"" if mvcc is None else _vlong(mvcc))


def _block(cells: list[tuple[bytes, bytes, int | None]]) -> tuple[bytes, list[tuple[bytes, bytes]]]:
    return b"".join(_cell(r, v, m) for r, v, m in cells), [(r, v) for r, v, _ in cells]


def _found(payload: bytes, with_mvcc: bool) -> list[tuple[bytes, bytes]] | None:
    cells = block_cells(payload, with_mvcc)
    if cells is None:
        return None
    out = []
    for rs, rl, vs, vl in zip(
        cells.row_starts.tolist(), cells.row_lengths.tolist(), cells.value_starts.tolist(),
        cells.value_lengths.tolist(), strict=True,
    ):  # fmt: skip
        out.append((payload[rs : rs + rl], payload[vs : vs + vl]))
    return out


#: Bytes that look like cell heads, to hide inside rows and values.
_FAKE_HEADS = st.sampled_from(
    [
        _cell(b"fake", b"", None),
        _cell(b"fake-row", b"x" * 20, 0),
        b"\x00\x00\x00\x19\x00\x00\x00\x39\x00\x0d",
        b"\x00\x00\x00\x0c\x00\x00\x00\x00\x00\x00\x00",
        b"\x00" * 16,
    ]
)
_BYTES = st.lists(st.one_of(st.binary(max_size=30), _FAKE_HEADS), max_size=4).map(b"".join)


@settings(max_examples=200, deadline=None)
@given(
    cells=st.lists(
        st.tuples(_BYTES.filter(lambda b: len(b) < 200), _BYTES, st.integers(0, 1 << 40)), min_size=1, max_size=40
    ),
    with_mvcc=st.booleans(),
)
def test_the_scan_finds_exactly_the_written_cells(cells: list[tuple[bytes, bytes, int]], with_mvcc: bool) -> None:
    payload, expected = _block([(r, v, m if with_mvcc else None) for r, v, m in cells])
    assert _found(payload, with_mvcc) == expected


def test_a_value_holding_whole_cells_is_one_value() -> None:
    inner, _ = _block([(b"inner-%d" % i, b"v", 0) for i in range(50)])
    payload, expected = _block([(b"a", inner, 0), (b"b", inner[7:], 0), (b"c", b"", 0)])
    assert _found(payload, True) == expected


def test_blocks_it_cannot_prove_are_declined() -> None:
    payload, _ = _block([(b"a", b"1", 0), (b"b", b"2", 0)])
    assert _found(payload[:-1], True) is None  # the last cell's version is cut off
    assert _found(payload[:-3], True) is None  # a value runs past the block
    assert _found(payload + b"\x00", True) is None  # trailing bytes
    with_family = _cell(b"a", b"1", 0, family=b"cf") + _cell(b"b", b"2", 0, family=b"cf")
    assert _found(with_family, True) is None  # HBase cells with a column family: walked instead
    assert _found(b"", True) is None
