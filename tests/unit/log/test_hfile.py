"""HFile container reader and HFile records: synthetic files built to the hudi-io layout."""

from __future__ import annotations

import gzip
import io
import json
import struct

import fastavro
import pytest

from hudi_framework.errors import HFileFormatError, LogBlockDecodeError, LogFormatError, UnsupportedLogBlockError
from hudi_framework.log import HeaderKey, HFileBlock
from hudi_framework.log.hfile import (
    TRAILER_SIZE,
    HFileCompression,
    read_file_info,
    read_hfile,
    read_trailer,
)
from hudi_framework.log.hfile_records import decode_hfile_records, hfile_records_schema

GZ = HFileCompression.GZ
NONE = HFileCompression.NONE


# --------------------------------------------------------------------------- a tiny HFile writer
def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _pb_int(number: int, value: int) -> bytes:
    return _varint(number << 3) + _varint(value & ((1 << 64) - 1))


def _pb_bytes(number: int, value: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(value)) + value


def _block(magic: bytes, payload: bytes, codec: HFileCompression, checksum_bytes: int = 0) -> bytes:
    stored = gzip.compress(payload) if codec is GZ else payload
    header = struct.pack(">8siiqBii", magic, len(stored) + checksum_bytes, len(payload), -1, 0, 16384, 33 + len(stored))
    return header + stored + b"\0" * checksum_bytes


def _cell(row: bytes, value: bytes, mvcc: bool) -> bytes:
    key = struct.pack(">H", len(row)) + row + b"\0" + struct.pack(">qB", 0, 4)
    return struct.pack(">ii", len(key), len(value)) + key + value + (b"\0" if mvcc else b"")


def build_hfile(
    blocks: list[list[tuple[bytes, bytes]]],
    *,
    codec: HFileCompression = NONE,
    mvcc: bool = True,
    info: dict[bytes, bytes] | None = None,
    checksum_bytes: int = 0,
    codec_field: int | None = None,
) -> bytes:
    """An HFile v3 with one data block per entry of ``blocks``."""
    out = bytearray()
    for cells in blocks:
        out += _block(b"DATABLK*", b"".join(_cell(r, v, mvcc) for r, v in cells), codec, checksum_bytes)
    load_on_open = len(out)
    out += _block(b"IDXROOT2", b"", codec)  # the reader walks data blocks in file order
    out += _block(b"IDXROOT2", b"", codec)  # meta index
    entries = dict(info or {})
    if mvcc:
        entries[b"KEY_VALUE_VERSION"] = struct.pack(">i", 1)
        entries[b"MAX_MEMSTORE_TS_KEY"] = struct.pack(">q", 0)
    pairs = b"".join(_pb_bytes(1, _pb_bytes(1, k) + _pb_bytes(2, v)) for k, v in entries.items())
    out += _block(b"FILEINF2", b"PBUF" + _varint(len(pairs)) + pairs, codec)
    count = sum(len(b) for b in blocks)
    proto = (
        _pb_int(2, load_on_open)
        + _pb_int(5, len(blocks))
        + _pb_int(7, count)
        + _pb_int(8, 1)
        + _pb_int(9, 0 if count else -1)
        + _pb_int(12, int(codec) if codec_field is None else codec_field)
    )
    trailer = b'TRABLK"$' + _varint(len(proto)) + proto
    trailer += b"\0" * (TRAILER_SIZE - 4 - len(trailer)) + struct.pack(">i", 3)
    return bytes(out + trailer)


CELLS = [(b"a", b"1"), (b"b", b"22"), (b"c", b"")]


# --------------------------------------------------------------------------- container
@pytest.mark.parametrize("codec", [NONE, GZ])
@pytest.mark.parametrize("mvcc", [True, False])
def test_cells_come_back_in_order_across_blocks(codec: HFileCompression, mvcc: bool) -> None:
    data = build_hfile([CELLS, [(b"d", b"x" * 300)]], codec=codec, mvcc=mvcc)
    assert list(read_hfile(data)) == [*CELLS, (b"d", b"x" * 300)]
    trailer = read_trailer(data)
    assert (trailer.major_version, trailer.compression, trailer.entry_count) == (3, codec, 4)


def test_checksum_chunks_after_the_payload_are_skipped() -> None:
    data = build_hfile([CELLS, [(b"d", b"4")]], codec=GZ, checksum_bytes=4)
    assert [r for r, _ in read_hfile(data)] == [b"a", b"b", b"c", b"d"]


def test_empty_hfile_has_no_cells() -> None:
    assert list(read_hfile(build_hfile([]))) == []


def test_file_info_is_read() -> None:
    info = read_file_info(build_hfile([CELLS], info={b"hfile.LASTKEY": b"c"}))
    assert info[b"hfile.LASTKEY"] == b"c"
    assert info[b"KEY_VALUE_VERSION"] == b"\0\0\0\1"


@pytest.mark.parametrize(("codec", "name"), [(0, "LZO"), (3, "SNAPPY"), (6, "ZSTD")])
def test_other_codecs_are_unsupported_and_named(codec: int, name: str) -> None:
    data = build_hfile([CELLS], codec_field=codec)
    with pytest.raises(UnsupportedLogBlockError, match=name) as info:
        list(read_hfile(data))
    assert isinstance(info.value, LogFormatError)


# --------------------------------------------------------------------------- damage
def _damaged(data: bytes, at: int, replacement: bytes) -> bytes:
    return data[:at] + replacement + data[at + len(replacement) :]


@pytest.mark.parametrize(
    ("mutate", "reason"),
    [
        (lambda d: d[: len(d) // 2], "trailer version|shorter than"),
        (lambda d: d[:-TRAILER_SIZE], "trailer version"),
        (lambda d: d[100:], "trailer offsets|block|magic"),
        (lambda d: _damaged(d, len(d) - TRAILER_SIZE, b"TRABLK!!"), "trailer magic"),
        (lambda d: _damaged(d, len(d) - 4, b"\0\0\0\x07"), "trailer version"),
        (lambda d: _damaged(d, 0, b"DATABLK?"), "unknown HFile block magic"),
        (lambda d: _damaged(d, 8, b"\x7f\0\0\0"), "runs past"),
        (lambda d: _damaged(d, 33, b"\0\0\x7f\0"), "cell"),
        (lambda d: b"", "cannot hold"),
    ],
)
def test_damage_raises_a_typed_error_naming_the_problem(mutate: object, reason: str) -> None:
    data = mutate(build_hfile([CELLS]))  # type: ignore[operator]
    with pytest.raises(HFileFormatError, match=reason) as info:
        list(read_hfile(data))
    assert isinstance(info.value, LogBlockDecodeError)


def test_damaged_gzip_payload_is_reported() -> None:
    data = bytearray(build_hfile([CELLS], codec=GZ))
    data[33 + 12] ^= 0xFF  # inside the deflate stream (after the 10-byte gzip header)
    with pytest.raises(HFileFormatError, match=r"gunzip|cell"):
        list(read_hfile(bytes(data)))


def test_entry_count_mismatch_is_reported() -> None:
    data = build_hfile([CELLS])
    # Drop the last cell by shrinking the block's sizes: the trailer still says three.
    short = bytearray(data)
    cut = len(_cell(b"c", b"", True))
    payload_len = struct.unpack_from(">i", data, 12)[0]
    struct.pack_into(">i", short, 12, payload_len - cut)
    with pytest.raises(HFileFormatError, match="2 cells"):
        list(read_hfile(bytes(short)))


# --------------------------------------------------------------------------- records
WRAPPERS = [
    {"type": "record", "name": "IntWrapper", "fields": [{"name": "value", "type": "int"}]},
    {"type": "record", "name": "StringWrapper", "fields": [{"name": "value", "type": "string"}]},
]
SCHEMA = {
    "type": "record",
    "name": "HoodieMetadataRecord",
    "namespace": "org.apache.hudi.avro.model",
    "fields": [
        {"name": "_hoodie_record_key", "type": ["null", "string"], "default": None},
        {"name": "key", "type": "string"},
        {"name": "type", "type": "int"},
        {"name": "files", "type": ["null", {"type": "map", "values": "long"}], "default": None},
        {"name": "minValue", "type": ["null", *WRAPPERS], "default": None},
        {"name": "maxValue", "type": ["null", "IntWrapper", "StringWrapper"], "default": None},
    ],
}


def _datum(record: dict[str, object]) -> bytes:
    out = io.BytesIO()
    fastavro.schemaless_writer(out, fastavro.parse_schema(SCHEMA), record)
    return out.getvalue()


def _record(min_value: object, max_value: object) -> dict[str, object]:
    # Hudi blanks `key` in the value: the row key holds it.
    return {
        "_hoodie_record_key": None,
        "key": "",
        "type": 2,
        "files": {"f": 1},
        "minValue": min_value,
        "maxValue": max_value,
    }


@pytest.mark.parametrize("codec", [NONE, GZ])
def test_records_are_keyed_by_row_key_with_unions_as_members(codec: HFileCompression) -> None:
    data = build_hfile(
        [
            [
                (b"k1", _datum(_record(("org.apache.hudi.avro.model.IntWrapper", {"value": 5}), None))),
                (b"k2", _datum(_record(None, ("org.apache.hudi.avro.model.StringWrapper", {"value": "z"})))),
            ]
        ],
        codec=codec,
    )
    table = decode_hfile_records(data, json.dumps(SCHEMA))
    assert table.schema == hfile_records_schema(SCHEMA)
    rows = table.to_pylist()
    assert [(r["_hoodie_record_key"], r["key"], r["files"]) for r in rows] == [
        ("k1", "k1", [("f", 1)]),
        ("k2", "k2", [("f", 1)]),
    ]
    assert rows[0]["minValue"] == {"member0": {"value": 5}, "member1": None}
    assert rows[0]["maxValue"] is None
    assert rows[1]["maxValue"] == {"member0": None, "member1": {"value": "z"}}


def test_schema_from_file_info_and_key_column_added() -> None:
    schema = {"type": "record", "name": "R", "fields": [{"name": "v", "type": "long"}]}
    out = io.BytesIO()
    fastavro.schemaless_writer(out, fastavro.parse_schema(schema), {"v": 7})
    data = build_hfile([[(b"r", out.getvalue())]], info={b"schema": json.dumps(schema).encode()})
    table = decode_hfile_records(data)
    assert table.column_names == ["_hoodie_record_key", "v"]
    assert table.to_pylist() == [{"_hoodie_record_key": "r", "v": 7}]


def test_missing_schema_and_bad_values_are_typed_errors() -> None:
    data = build_hfile([[(b"r", b"\x02")]])
    with pytest.raises(HFileFormatError, match="no schema"):
        decode_hfile_records(data)
    with pytest.raises(HFileFormatError, match="row b'r'"):
        decode_hfile_records(data, SCHEMA)


def test_union_of_primitives_is_unsupported() -> None:
    schema = {"type": "record", "name": "R", "fields": [{"name": "v", "type": ["null", "int", "string"]}]}
    with pytest.raises(UnsupportedLogBlockError, match="v"):
        decode_hfile_records(build_hfile([]), schema)


def test_hfile_block_records_use_the_schema_header() -> None:
    data = build_hfile([[(b"k", _datum(_record(None, None)))]], codec=GZ)
    block = HFileBlock(data, {HeaderKey.INSTANT_TIME: "1", HeaderKey.SCHEMA: json.dumps(SCHEMA)})
    assert block.records.column("key").to_pylist() == ["k"]
    with pytest.raises(HFileFormatError, match="trailer"):
        _ = HFileBlock(b"raw", {HeaderKey.INSTANT_TIME: "1"}).records
