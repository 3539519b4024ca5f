"""The HFile writer: round trips through the reader, Java's block splitting, file info, and what it refuses."""

from __future__ import annotations

import json
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_framework.contracts.indexing.bloom_filter import BloomFilter, bloom_size
from hudi_framework.errors import HFileWriteError, HudiError, LogBlockEncodeError
from hudi_framework.log import HeaderKey, HFileBlock, decode_block, encode_block, read_log_bytes
from hudi_framework.log.hfile import (
    DATA_MAGIC,
    HFileCompression,
    _read_block,
    read_file_info,
    read_hfile,
    read_trailer,
)
from hudi_framework.log.hfile_records import (
    METADATA_BLOOM_FILTER,
    decode_hfile_records,
    encode_hfile_base_file,
    encode_hfile_records,
)
from hudi_framework.log.hfile_writer import (
    DEFAULT_BLOCK_SIZE,
    HFileWriteOptions,
    compression_from_name,
    java_hashmap_order,
    write_hfile,
)

CREATED = 1_772_900_000_000
NONE = HFileWriteOptions(compression=HFileCompression.NONE, creation_time_ms=CREATED)
GZ = HFileWriteOptions(compression=HFileCompression.GZ, creation_time_ms=CREATED)

sorted_cells = st.dictionaries(st.binary(max_size=40), st.binary(max_size=300), max_size=60).map(
    lambda d: sorted(d.items())
)


def _blocks(data: bytes) -> list[tuple[bytes, int, int, bytes]]:
    """(magic, offset, prevBlockOffset, payload) of every block before the trailer."""
    trailer = read_trailer(data)
    out = []
    offset = 0
    end = len(data) - 4096
    while offset < end:
        block = _read_block(data, offset, end, trailer.compression)
        prev = int.from_bytes(data[offset + 16 : offset + 24], "big", signed=True)
        out.append((block.magic, offset, prev, block.payload))
        offset = block.end
    return out


@settings(max_examples=60, deadline=None)
@given(cells=sorted_cells, gz=st.booleans(), block_size=st.sampled_from([1, 64, 700, DEFAULT_BLOCK_SIZE]))
def test_written_cells_read_back_equal(cells: list[tuple[bytes, bytes]], gz: bool, block_size: int) -> None:
    options = HFileWriteOptions(
        block_size=block_size, compression=HFileCompression.GZ if gz else HFileCompression.NONE, creation_time_ms=1
    )
    data = write_hfile([k for k, _ in cells], [v for _, v in cells], options=options)
    assert list(read_hfile(data)) == cells
    trailer = read_trailer(data)
    assert trailer.entry_count == len(cells)
    assert trailer.compression is options.compression
    info = read_file_info(data)
    last = cells[-1][0] if cells else b""
    assert info[b"hfile.LASTKEY"] == (len(last).to_bytes(2, "big") + last if last else b"")
    assert info[b"KEY_VALUE_VERSION"] == b"\0\0\0\1"


def test_blocks_split_where_java_splits() -> None:
    # Each cell counts len(key) + len(value) + 21 = 100 bytes against the block size.
    keys = [b"k%02d" % i for i in range(10)]
    values = [b"v" * 76] * 10
    data = write_hfile(keys, values, options=HFileWriteOptions(block_size=300, creation_time_ms=CREATED))
    blocks = [b for b in _blocks(data) if b[0] == DATA_MAGIC]
    assert [len(list(_cells_of(b[3]))) for b in blocks] == [3, 3, 3, 1]
    # Java's quirk: the first data block has prevBlockOffset -1, later ones their own offset.
    assert [b[2] for b in blocks] == [-1] + [b[1] for b in blocks[1:]]
    trailer = read_trailer(data)
    assert trailer.data_index_count == 4
    assert trailer.first_data_block_offset == 0
    assert trailer.last_data_block_offset == blocks[-1][1]
    assert list(read_hfile(data)) == list(zip(keys, values, strict=True))


def test_equal_keys_never_straddle_a_block_boundary() -> None:
    keys = [b"a", b"b", b"b", b"b", b"c"]
    data = write_hfile(keys, [b"x" * 100] * 5, options=HFileWriteOptions(block_size=150, creation_time_ms=CREATED))
    blocks = [list(_cells_of(b[3])) for b in _blocks(data) if b[0] == DATA_MAGIC]
    assert blocks == [[b"a"], [b"b", b"b", b"b"], [b"c"]]


def _java_block_sizes(keys: list[bytes], values: list[bytes], block_size: int) -> list[int]:
    """Cells per data block as Java's ``HFileWriterImpl.append`` loop splits them, cell by cell."""
    blocks: list[int] = []
    in_block, used, last = 0, 0, b""
    for key, value in zip(keys, values, strict=True):
        size = len(key) + len(value) + 21
        if key != last and used + size > block_size:
            if in_block:
                blocks.append(in_block)
            in_block, used = 0, 0
        in_block += 1
        used += size
        last = key
    return [*blocks, in_block] if in_block else blocks


@settings(max_examples=200, deadline=None)
@given(
    cells=st.lists(st.tuples(st.sampled_from([b"a", b"b", b"c", b"d", b"e"]), st.binary(max_size=120)), max_size=40),
    block_size=st.integers(1, 400),
)
def test_block_splitting_follows_javas_append_loop(cells: list[tuple[bytes, bytes]], block_size: int) -> None:
    cells.sort(key=lambda c: c[0])
    keys, values = [k for k, _ in cells], [v for _, v in cells]
    data = write_hfile(keys, values, options=HFileWriteOptions(block_size=block_size, creation_time_ms=CREATED))
    blocks = [len(_cells_of(b[3])) for b in _blocks(data) if b[0] == DATA_MAGIC]
    assert blocks == _java_block_sizes(keys, values, block_size)


def test_a_cell_larger_than_the_block_size_gets_its_own_block() -> None:
    data = write_hfile([b"a", b"b"], [b"x" * 5000, b"y"], options=HFileWriteOptions(block_size=64))
    assert [list(_cells_of(b[3])) for b in _blocks(data) if b[0] == DATA_MAGIC] == [[b"a"], [b"b"]]


def test_empty_hfile_is_written_as_java_writes_it() -> None:
    data = write_hfile([], [], options=GZ)
    trailer = read_trailer(data)
    assert trailer.entry_count == 0
    assert trailer.first_data_block_offset == -1
    assert list(read_hfile(data)) == []
    info = read_file_info(data)
    assert info[b"hfile.LASTKEY"] == b""
    assert info[b"hfile.AVG_KEY_LEN"] == info[b"hfile.AVG_VALUE_LEN"] == b"\0\0\0\0"


def test_gzip_blocks_carry_javas_header_and_checksum_bytes() -> None:
    data = write_hfile([b"key"], [b"value" * 100], options=GZ)
    stored = data[33 : int.from_bytes(data[29:33], "big")]
    assert stored[:10] == b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x00"
    assert zlib.decompress(stored, 31)[:4] == (3 + 12).to_bytes(4, "big")
    # Checksum type NULL (0), 16 KiB per checksum, one zeroed 4-byte checksum per started chunk.
    on_disk = int.from_bytes(data[8:12], "big")
    assert data[24] == 0
    assert int.from_bytes(data[25:29], "big") == 16384
    assert on_disk == len(stored) + 4
    assert data[33 + len(stored) : 33 + on_disk] == b"\0\0\0\0"


def test_file_info_holds_caller_entries_and_pinned_creation_time() -> None:
    data = write_hfile(
        [b"a", b"bcd"], [b"12", b"3456"], file_info={"schema": b"{}", "minRecordKey": b"a"}, options=NONE
    )
    info = read_file_info(data)
    assert info[b"schema"] == b"{}"
    assert info[b"minRecordKey"] == b"a"
    assert info[b"hfile.CREATE_TIME_TS"] == CREATED.to_bytes(8, "big")
    assert info[b"hfile.AVG_KEY_LEN"] == (2).to_bytes(4, "big")
    assert info[b"hfile.AVG_VALUE_LEN"] == (3).to_bytes(4, "big")
    assert info[b"MAX_MEMSTORE_TS_KEY"] == bytes(8)


def test_meta_blocks_are_indexed_by_name() -> None:
    data = write_hfile([b"a"], [b"1"], meta_blocks={"bloomFilter": b"bits" * 10}, options=GZ)
    metas = [b for b in _blocks(data) if b[0] == b"METABLKc"]
    assert [m[3] for m in metas] == [b"bits" * 10]
    (meta,) = metas
    _root, meta_index = [b for b in _blocks(data) if b[0] == b"IDXROOT2"]
    size = _blocks(data)[2][1] - meta[1]
    assert meta_index[3] == meta[1].to_bytes(8, "big") + size.to_bytes(4, "big") + b"\x0bbloomFilter"


def test_java_hashmap_order_matches_apache_hudis_file_info_order() -> None:
    # The order Apache Hudi 1.x wrote these keys in the v9 fixtures' metadata-table base files.
    inserted = [
        "MAX_MEMSTORE_TS_KEY", "schema", "minRecordKey", "maxRecordKey", "bloomFilterTypeCode",
        "hfile.LASTKEY", "hfile.AVG_KEY_LEN", "hfile.CREATE_TIME_TS", "hfile.AVG_VALUE_LEN", "KEY_VALUE_VERSION",
    ]  # fmt: skip
    assert java_hashmap_order(inserted) == [
        "schema", "bloomFilterTypeCode", "hfile.LASTKEY", "hfile.AVG_VALUE_LEN", "minRecordKey",
        "hfile.AVG_KEY_LEN", "maxRecordKey", "KEY_VALUE_VERSION", "MAX_MEMSTORE_TS_KEY", "hfile.CREATE_TIME_TS",
    ]  # fmt: skip


def test_java_hashmap_order_grows_the_table_past_three_quarters() -> None:
    # "Aa" and "BB" share Java's String hash (2112), so they keep insertion order in one bucket.
    names = ["BB", "Aa"] + [f"k{i}" for i in range(20)]
    order = java_hashmap_order(names)
    assert sorted(order) == sorted(names)
    assert order.index("BB") < order.index("Aa")


@pytest.mark.parametrize(
    ("keys", "values", "match"),
    [
        ([b"b", b"a"], [b"", b""], "key order"),
        ([b"a"], [], "1 keys but 0 values"),
        ([b"x" * 40000], [b""], "more than 32767"),
    ],
)
def test_bad_cells_are_refused(keys: list[bytes], values: list[bytes], match: str) -> None:
    with pytest.raises(HFileWriteError, match=match) as raised:
        write_hfile(keys, values)
    assert isinstance(raised.value, LogBlockEncodeError)
    assert isinstance(raised.value, HudiError)


def test_codecs_apache_hudi_cannot_write_are_refused() -> None:
    assert compression_from_name("gz") is HFileCompression.GZ
    assert compression_from_name("NONE") is HFileCompression.NONE
    with pytest.raises(HFileWriteError, match=r"hoodie\.hfile\.compression\.algorithm='snappy'"):
        compression_from_name("snappy")
    with pytest.raises(HFileWriteError, match="use GZ or NONE"):
        compression_from_name("gzip")  # Apache Hudi knows GZ by the name "gz" only
    with pytest.raises(HFileWriteError, match="SNAPPY cannot be written"):
        HFileWriteOptions(compression=HFileCompression.SNAPPY)
    with pytest.raises(HFileWriteError, match="block size"):
        HFileWriteOptions(block_size=0)
    with pytest.raises(HFileWriteError, match="gzip OS byte"):
        HFileWriteOptions(gzip_os=3)


@pytest.mark.parametrize("os_byte", [0, 255])
def test_gzip_os_byte_follows_the_jdk_being_matched(os_byte: int) -> None:
    data = write_hfile([b"k"], [b"v"], options=HFileWriteOptions(gzip_os=os_byte))
    assert data[33:43] == b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00" + bytes([os_byte])
    assert list(read_hfile(data)) == [(b"k", b"v")]


SCHEMA = {
    "type": "record",
    "name": "R",
    "namespace": "t",
    "fields": [
        {"name": "key", "type": "string"},
        {"name": "type", "type": "int"},
        {"name": "payload", "type": ["null", "bytes"], "default": None},
    ],
}

records = st.dictionaries(
    st.text(max_size=20),
    st.tuples(st.integers(-(2**31), 2**31 - 1), st.none() | st.binary(max_size=200)),
    max_size=40,
).map(lambda d: [{"key": k, "type": t, "payload": p} for k, (t, p) in d.items()])


@settings(max_examples=60, deadline=None)
@given(rows=records, gz=st.booleans())
def test_hfile_data_block_round_trips(rows: list[dict[str, object]], gz: bool) -> None:
    options = HFileWriteOptions(compression=HFileCompression.GZ if gz else HFileCompression.NONE, block_size=512)
    block = HFileBlock.create(rows, instant_time="20260101000000000", schema=SCHEMA, options=options)
    assert block.header[HeaderKey.INSTANT_TIME] == "20260101000000000"
    assert json.loads(block.header[HeaderKey.SCHEMA]) == SCHEMA
    (decoded,) = read_log_bytes(encode_block(block))
    assert isinstance(decoded, HFileBlock)
    assert decoded == block
    expected = sorted(rows, key=lambda r: str(r["key"]).encode())
    table = decoded.records
    assert table.column("key").to_pylist() == [r["key"] for r in expected]
    assert table.column("type").to_pylist() == [r["type"] for r in expected]
    assert table.column("payload").to_pylist() == [r["payload"] for r in expected]
    # The key is blanked inside each value, as Apache Hudi does.
    for _, value in read_hfile(decoded.content):
        assert value[:1] == b"\x00"


def test_hfile_data_block_header_and_file_info_schema_agree() -> None:
    text = json.dumps(SCHEMA)
    block = HFileBlock.create([{"key": "a", "type": 1, "payload": None}], instant_time="1", schema=text)
    assert block.header[HeaderKey.SCHEMA] == text
    assert read_file_info(block.content)[b"schema"] == text.encode()
    assert decode_block(encode_block(block)) == block
    assert decode_hfile_records(block.content).column("key").to_pylist() == ["a"]


@pytest.mark.parametrize(
    ("rows", "schema", "match"),
    [
        ([{"key": "a", "type": 1}, {"key": "a", "type": 2}], SCHEMA, "two records with key 'a'"),
        ([{"type": 1}], SCHEMA, "no string 'key' field"),
        ([{"key": "a", "type": "x"}], SCHEMA, "record 'a' does not fit the schema"),
        ([], {"type": "record", "name": "n", "fields": []}, "no 'key' field"),
        ([], "not json", "schema is not JSON"),
    ],
)
def test_bad_records_are_refused(rows: list[dict[str, object]], schema: object, match: str) -> None:
    with pytest.raises(HFileWriteError, match=match):
        encode_hfile_records(rows, schema)  # type: ignore[arg-type]


def _cells_of(payload: bytes) -> list[bytes]:
    """Row keys of a data block's cells (mvcc byte after each value)."""
    keys = []
    pos = 0
    while pos < len(payload):
        key_length = int.from_bytes(payload[pos : pos + 4], "big")
        value_length = int.from_bytes(payload[pos + 4 : pos + 8], "big")
        row_length = int.from_bytes(payload[pos + 8 : pos + 10], "big")
        keys.append(payload[pos + 10 : pos + 10 + row_length])
        pos += 8 + key_length + value_length + 1
    return keys


def test_base_file_carries_key_range_and_the_metadata_tables_bloom_filter() -> None:
    rows = [{"key": k, "type": 2, "payload": None} for k in ("m", "a", "z")]
    data = encode_hfile_base_file(rows, SCHEMA, options=GZ)
    info = read_file_info(data)
    assert info[b"minRecordKey"] == b"a"
    assert info[b"maxRecordKey"] == b"z"
    assert info[b"bloomFilterTypeCode"] == b"DYNAMIC_V0"
    assert json.loads(info[b"schema"]) == SCHEMA
    (meta,) = [b[3] for b in _blocks(data) if b[0] == b"METABLKc"]
    bloom = BloomFilter.deserialize(meta, "DYNAMIC_V0")
    assert bloom.might_contain(["a", "m", "z"]).all()
    assert (bloom.vector_size, bloom.nb_hash) == bloom_size(
        METADATA_BLOOM_FILTER.num_entries, METADATA_BLOOM_FILTER.fpp
    )
    assert decode_hfile_records(data).column("key").to_pylist() == ["a", "m", "z"]


def test_base_file_without_bloom_filter_has_only_the_schema() -> None:
    data = encode_hfile_base_file([{"key": "a", "type": 1, "payload": b"x"}], SCHEMA, bloom_filter=None, options=NONE)
    assert set(read_file_info(data)) & {b"minRecordKey", b"maxRecordKey", b"bloomFilterTypeCode"} == set()
    assert [b for b in _blocks(data) if b[0] == b"METABLKc"] == []
    assert read_trailer(data).entry_count == 1
