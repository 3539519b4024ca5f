"""``find_cell_arrays``: the bulk lookup (rows placed in their blocks; each block searched, or all its
cells located and its rows matched at once) and its few-rows path give exactly the cells a full
read has for the wanted rows, in key order: absent rows, rows in the first and the last block,
blocks of one cell, rows of equal and of varied lengths, plain and compressed blocks, blocks whose
cells the vectorised scan cannot prove (stepped through instead), blocks holding no wanted row
(not read)."""

from __future__ import annotations

import struct
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_framework.errors import HFileFormatError
from hudi_framework.log.hfile import HFileCompression, find_cell_arrays, find_cells, read_hfile, read_trailer
from hudi_framework.log.hfile_cells import BlockCells, block_cells
from hudi_framework.log.hfile_writer import HFileWriteOptions, write_hfile


def _file(keys: list[bytes], block_size: int, compression: HFileCompression = HFileCompression.GZ) -> bytes:
    values = [b"v" * (i % 7) + k for i, k in enumerate(keys)]
    return write_hfile(keys, values, options=HFileWriteOptions(block_size=block_size, compression=compression))


def _pairs(data: bytes, wanted: list[bytes]) -> list[tuple[bytes, bytes]]:
    found = find_cell_arrays(data, pa.array(wanted, pa.binary()))
    return list(zip(found.rows.to_pylist(), found.values.to_pylist(), strict=True))


def _expected(data: bytes, wanted: list[bytes]) -> list[tuple[bytes, bytes]]:
    cells = dict(read_hfile(data))
    return [(k, cells[k]) for k in sorted(set(wanted)) if k in cells]


_EQUAL = sorted({f"key-{i:06d}".encode() for i in range(0, 4000, 2)})
_VARIED = sorted({f"k{i}".encode() * (1 + i % 3) for i in range(1500)} | {b"", b"\xc3\xbc", b"k\x00nul"})


@pytest.mark.parametrize("keys", [_EQUAL, _VARIED], ids=["equal-lengths", "varied-lengths"])
@pytest.mark.parametrize("compression", [HFileCompression.NONE, HFileCompression.GZ])
@pytest.mark.parametrize("block_size", [1, 200, 4096, 1 << 20])
@pytest.mark.parametrize("step", [1, 3, 250])
def test_found_arrays_are_the_full_reads_cells(
    keys: list[bytes], compression: HFileCompression, block_size: int, step: int
) -> None:
    data = _file(keys, block_size, compression)
    wanted = [*keys[::step], keys[0], keys[-1], b"\x00-before-all", b"key-000001", b"zzz-after-all"]
    wanted = list(dict.fromkeys(wanted))
    assert _pairs(data, wanted) == _expected(data, wanted)
    assert _pairs(data, wanted) == list(find_cells(data, sorted(wanted)))


@settings(max_examples=80, deadline=None)
@given(
    present=st.sets(st.binary(min_size=0, max_size=10), min_size=1, max_size=300),
    picks=st.data(),
    absent=st.sets(st.binary(max_size=12), max_size=40),
    block_size=st.sampled_from([1, 64, 300, 5000]),
    compression=st.sampled_from([HFileCompression.NONE, HFileCompression.GZ]),
)
def test_any_mix_of_rows_equals_the_full_read(
    present: set[bytes],
    picks: st.DataObject,
    absent: set[bytes],
    block_size: int,
    compression: HFileCompression,
) -> None:
    keys = sorted(present)
    data = _file(keys, block_size, compression)
    chosen = picks.draw(st.lists(st.sampled_from(keys), max_size=len(keys)))
    wanted = list(dict.fromkeys([*chosen, *absent]))
    assert _pairs(data, wanted) == _expected(data, wanted)


def test_rows_in_any_order_come_back_in_key_order() -> None:
    data = _file(_EQUAL, 512)
    wanted = list(reversed(_EQUAL[::5]))
    assert [r for r, _ in _pairs(data, wanted)] == sorted(wanted)


def test_no_rows_and_an_empty_file_find_nothing() -> None:
    assert _pairs(write_hfile([], []), [b"a"]) == []
    assert _pairs(_file(_EQUAL, 4096), []) == []


def _family_cell(row: bytes, value: bytes) -> bytes:
    """A cell whose key has a family (HBase's, never Hudi's): the vectorised scan declines it."""
    key = struct.pack(">H", len(row)) + row + b"\x01f" + b"\x7f\xff\xff\xff\xff\xff\xff\xff\x04"
    return struct.pack(">ii", len(key), len(value)) + key + value + b"\x00"


@pytest.mark.parametrize("block_size", [512, 1 << 20], ids=["several-blocks", "one-block"])
def test_a_block_the_scan_cannot_prove_is_stepped_through(block_size: int) -> None:
    keys = _EQUAL[:200]
    data = bytearray(_file(keys, block_size, HFileCompression.NONE))
    # Give the first cell of the only data block a family of one byte: the same block length when
    # the value loses the byte the key gains (the first value is the row itself).
    first = keys[0]
    header = 33
    key_length, value_length = struct.unpack_from(">ii", data, header)
    assert data[header + 8 + key_length : header + 8 + key_length + value_length] == first
    replaced = _family_cell(first, first[1:])
    assert len(replaced) == 8 + key_length + value_length + 1  # MVCC version 0 after the value
    data[header : header + len(replaced)] = replaced
    wanted = keys  # more than a few per block: the bulk path
    assert len(wanted) > 8 * read_trailer(bytes(data)).data_index_count
    found = _pairs(bytes(data), wanted)
    assert found[0] == (first, first[1:])
    assert found[1:] == _expected(bytes(data), wanted)[1:]


def test_a_cell_count_other_than_the_trailers_is_named() -> None:
    keys = _EQUAL[:100]
    data = bytearray(_file(keys, 1 << 20, HFileCompression.NONE))
    trailer = read_trailer(bytes(data))
    assert trailer.entry_count == 100
    # The trailer's entry count (protobuf field 7, a one-byte varint here) says 99.
    start = len(data) - 4096
    at = data.index(bytes([7 << 3, 100]), start)
    data[at + 1] = 99
    with pytest.raises(HFileFormatError, match="100 cells in the data blocks, the trailer says 99"):
        find_cell_arrays(bytes(data), pa.array(keys, pa.binary()))


# A large index and a lookup of scattered keys: each block holds a few of the wanted rows next to
# thousands of cells (the record index's 1% upsert), found by byte search block by block.
_LARGE = [f"key-{i:08d}".encode() for i in range(20_000)]


def _counting_block_cells(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []

    def counted(payload: bytes, with_mvcc: bool, scratch: np.ndarray[Any, Any] | None = None) -> BlockCells | None:
        calls.append(len(payload))
        return block_cells(payload, with_mvcc, scratch)

    monkeypatch.setattr("hudi_framework.log.hfile.block_cells", counted)
    return calls


@pytest.mark.parametrize("compression", [HFileCompression.NONE, HFileCompression.GZ])
def test_scattered_rows_are_searched_for_in_their_blocks(
    compression: HFileCompression, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _file(_LARGE, 1 << 16, compression)
    trailer = read_trailer(data)
    assert trailer.data_index_count > 8
    # An absent row between present ones in most blocks: its search stops at the next present row's
    # cell, a small waste, so the blocks stay searched.
    wanted = [*_LARGE[::97], *(k + b"-absent" for k in _LARGE[::1500])]
    calls = _counting_block_cells(monkeypatch)
    assert _pairs(data, wanted) == _expected(data, wanted)
    assert calls == []  # no block had its cells located: every one was searched


def test_a_block_missing_many_rows_is_located_instead(monkeypatch: pytest.MonkeyPatch) -> None:
    data = _file(_LARGE, 1 << 16, HFileCompression.GZ)
    blocks = read_trailer(data).data_index_count
    # Forty absent rows in a row: no present row bounds their searches, which run to the block's
    # end; past a block's worth of such scans its cells are located instead, and so are the later
    # blocks' (a batch missing many rows: locating cells does not mind misses).
    absent = [f"key-{4100:08d}-absent-{j:02d}".encode() for j in range(40)]
    wanted = [*_LARGE[::97], *absent]
    calls = _counting_block_cells(monkeypatch)
    assert _pairs(data, wanted) == _expected(data, wanted)
    assert 0 < len(calls) < blocks


def test_a_block_holding_no_wanted_row_is_not_read() -> None:
    data = bytearray(_file(_LARGE, 1 << 16, HFileCompression.GZ))
    header = 33
    # Damage the first block's gzip member: only a lookup reading that block can notice.
    data[header + 40] ^= 0xFF
    damaged = bytes(data)
    later = _LARGE[5000::97]  # none in the first block
    assert _pairs(damaged, later) == _expected(_file(_LARGE, 1 << 16, HFileCompression.GZ), later)
    with pytest.raises(HFileFormatError, match="does not gunzip"):
        _pairs(damaged, _LARGE[::97])
