"""The column-wise decode of metadata-table values (flat fields and one nullable flat record per
value, the other payload fields null) gives exactly the per-record (fastavro) decode, for whole
files and keyed lookups; values of another shape fall back to the per-record decode."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_framework.log.hfile import read_hfile
from hudi_framework.log.hfile_records import HFileRecordDecoder, encode_hfile_records
from hudi_framework.log.hfile_writer import HFileWriteOptions
from hudi_framework.metadata.records import RecordType
from hudi_framework.metadata_writer.mdt_timeline import metadata_record_schema_text
from tests.hypothesis_budget import examples

SCHEMA = metadata_record_schema_text(with_meta_fields=True)
_I64 = st.integers(-(1 << 63), (1 << 63) - 1)
_TEXT = st.text(max_size=40)


def _decoders(fields: list[str] | None) -> tuple[HFileRecordDecoder, HFileRecordDecoder]:
    fast = HFileRecordDecoder(SCHEMA, fields=fields)
    slow = HFileRecordDecoder(SCHEMA, fields=fields)
    slow._value_fields = None  # the per-record reference path
    return fast, slow


_INFO = st.fixed_dictionaries(
    {
        "partitionName": st.one_of(st.none(), _TEXT),
        "fileIdHighBits": st.one_of(st.none(), _I64),
        "fileIdLowBits": st.one_of(st.none(), _I64),
        "fileIndex": st.one_of(st.none(), st.integers(-(1 << 31), (1 << 31) - 1)),
        "fileId": st.one_of(st.none(), _TEXT),
        "instantTime": st.one_of(st.none(), _I64),
        "fileIdEncoding": st.integers(-(1 << 31), (1 << 31) - 1),
        "position": st.one_of(st.none(), _I64),
    }
)


@settings(max_examples=examples(80), deadline=None)
@given(
    entries=st.dictionaries(st.text(min_size=1, max_size=30), _INFO, min_size=1, max_size=60),
    picked=st.data(),
    block_size=st.sampled_from([64, 1 << 20]),
)
def test_record_index_values_decode_as_per_record(
    entries: dict[str, dict[str, Any]], picked: st.DataObject, block_size: int
) -> None:
    records = [{"key": k, "type": int(RecordType.RECORD_INDEX), "recordIndexMetadata": v} for k, v in entries.items()]
    content = encode_hfile_records(records, SCHEMA, HFileWriteOptions(block_size=block_size))
    keys = sorted(entries)
    only = {k.encode() for k in picked.draw(st.lists(st.sampled_from(keys), max_size=len(keys)))} | {b"absent"}
    fast, slow = _decoders(["key", "recordIndexMetadata"])
    assert fast._decode_vectorised(list(read_hfile(content))) is not None  # not a fallback
    assert fast.decode(content, only).equals(slow.decode(content, only))
    assert fast.decode(content).equals(slow.decode(content))
    full_fast, full_slow = _decoders(None)
    assert full_fast.decode(content).equals(full_slow.decode(content))


def test_bloom_filter_values_decode_as_per_record() -> None:
    records = [
        {
            "key": f"bloom-{i}",
            "type": int(RecordType.BLOOM_FILTER),
            "BloomFilterMetadata": {
                "type": "DYNAMIC_V0",
                "timestamp": "2026",
                "bloomFilter": bytes(i),
                "isDeleted": i % 2 == 0,
            },
        }
        for i in range(30)
    ]
    content = encode_hfile_records(records, SCHEMA)
    fast, slow = _decoders(["key", "BloomFilterMetadata"])
    assert fast._decode_vectorised(list(read_hfile(content))) is not None
    assert fast.decode(content).equals(slow.decode(content))
    assert fast.decode(content).num_rows == 30


def test_values_of_another_shape_fall_back_to_the_per_record_decode() -> None:
    info = {"partitionName": "p", "fileIdHighBits": 1, "fileIdLowBits": 2, "fileIndex": 0, "fileId": "",
            "instantTime": 3, "fileIdEncoding": 0, "position": None}  # fmt: skip
    records: list[dict[str, Any]] = [
        {
            "key": "a-files",
            "type": int(RecordType.FILE_LIST),
            "filesystemMetadata": {"f1": {"size": 5, "isDeleted": False}},
        },
        {"key": "b-index", "type": int(RecordType.RECORD_INDEX), "recordIndexMetadata": info},
    ]
    content = encode_hfile_records(records, SCHEMA)
    fast, slow = _decoders(["key", "recordIndexMetadata"])
    got = fast.decode(content)
    assert got.equals(slow.decode(content))  # the files record's map is not null: per record
    assert got.column("recordIndexMetadata").to_pylist() == [None, info]
    assert fast.decode(content, {b"b-index"}).column("recordIndexMetadata").to_pylist() == [info]
