"""Damaged gzip data blocks of an HFile are named, whichever inflater reads them: a block header
claiming more bytes than its gzip member holds (an inflater told the size would pad the rest), a
member whose bytes or CRC are damaged, a member cut short. Undamaged blocks read the same by every
lookup path."""

from __future__ import annotations

import struct
from collections.abc import Iterator

import pyarrow as pa
import pytest

from hudi_framework.errors import HFileFormatError
from hudi_framework.log.hfile import HFileCompression, find_cell_arrays, find_cells, read_hfile
from hudi_framework.log.hfile_writer import HFileWriteOptions, write_hfile

_KEYS = [f"key-{i:05d}".encode() for i in range(300)]
_HEADER = struct.Struct(">8siiqBii")


def _file() -> bytearray:
    values = [b"value-" + k for k in _KEYS]
    return bytearray(write_hfile(_KEYS, values, options=HFileWriteOptions(compression=HFileCompression.GZ)))


def _lookups(data: bytes) -> Iterator[str]:
    """Every way of reading the cells, each expected to raise."""
    wanted = pa.array(_KEYS, pa.binary())
    for read in (
        lambda: list(read_hfile(data)),
        lambda: find_cell_arrays(data, wanted),
        lambda: list(find_cells(data, _KEYS[:3])),
    ):
        with pytest.raises(HFileFormatError) as caught:
            read()
        yield str(caught.value)


def test_a_header_claiming_more_bytes_than_the_member_holds_is_named() -> None:
    data = _file()
    magic, on_disk, uncompressed, prev, kind, per_checksum, with_header = _HEADER.unpack_from(data, 0)
    assert magic == b"DATABLK*"
    _HEADER.pack_into(data, 0, magic, on_disk, uncompressed + 5, prev, kind, per_checksum, with_header)
    for message in _lookups(bytes(data)):
        assert f"its header says {uncompressed + 5}" in message


def test_a_member_with_a_damaged_byte_is_named() -> None:
    data = _file()
    data[_HEADER.size + 40] ^= 0xFF
    for message in _lookups(bytes(data)):
        assert "does not gunzip" in message


def test_a_member_whose_length_trailer_lies_is_named() -> None:
    data = _file()
    _, _, uncompressed, _, _, _, end = _HEADER.unpack_from(data, 0)  # the member ends where checksums start
    assert int.from_bytes(data[end - 4 : end], "little") == uncompressed
    data[end - 4 : end] = (uncompressed - 1).to_bytes(4, "little")
    for message in _lookups(bytes(data)):
        assert "does not gunzip" in message


def test_every_path_reads_an_undamaged_file_alike() -> None:
    data = bytes(_file())
    expected = [(k, b"value-" + k) for k in _KEYS]
    assert list(read_hfile(data)) == expected
    found = find_cell_arrays(data, pa.array(_KEYS, pa.binary()))
    assert list(zip(found.rows.to_pylist(), found.values.to_pylist(), strict=True)) == expected
    assert list(find_cells(data, _KEYS[::7])) == expected[::7]
