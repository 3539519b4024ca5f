"""The column-wise decode of values with nested records and unions of records (column statistics
with their value wrappers) gives exactly the per-record (fastavro) decode: every wrapper type, null
bounds, null payloads and value types, whole files and prefix scans. A value of a shape the walk does
not take (an array wrapper) or damaged bytes go to the per-record decode."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_framework.log.avro_vector_decode import decode_values_at
from hudi_framework.log.hfile import read_hfile
from hudi_framework.log.hfile_records import HFileRecordDecoder, encode_hfile_records
from hudi_framework.log.hfile_writer import HFileWriteOptions
from hudi_framework.metadata.records import RecordType
from hudi_framework.metadata_writer.mdt_timeline import metadata_record_schema_text
from tests.hypothesis_budget import examples

SCHEMA = metadata_record_schema_text(with_meta_fields=True)
NS = "org.apache.hudi.avro.model."
FIELDS = ["key", "ColumnStatsMetadata"]
_I32 = st.integers(-(1 << 31), (1 << 31) - 1)
_I64 = st.integers(-(1 << 63), (1 << 63) - 1)
_LONG = st.one_of(st.none(), _I64)

#: Every value wrapper but the array one, with a strategy for its value.
_WRAPPERS: dict[str, st.SearchStrategy[Any]] = {
    "BooleanWrapper": st.booleans(),
    "IntWrapper": _I32,
    "LongWrapper": _I64,
    "FloatWrapper": st.floats(width=32, allow_nan=False),
    "DoubleWrapper": st.floats(allow_nan=False),
    "BytesWrapper": st.binary(max_size=20),
    "StringWrapper": st.text(max_size=20),
    "DateWrapper": _I32,
    "DecimalWrapper": st.integers(-(10**29), 10**29 - 1).map(lambda v: v.to_bytes(13, "big", signed=True)),
    "TimeMicrosWrapper": st.integers(0, 86_400_000_000 - 1),
    "TimestampMicrosWrapper": _I64,
    "LocalDateWrapper": _I32,
}
_WRAPPED = st.one_of(
    st.none(),
    *(v.map(lambda x, name=name: (f"{NS}{name}", {"value": x})) for name, v in _WRAPPERS.items()),
)
_STATS = st.fixed_dictionaries(
    {
        "fileName": st.one_of(st.none(), st.text(max_size=30)),
        "columnName": st.one_of(st.none(), st.text(max_size=10)),
        "minValue": _WRAPPED,
        "maxValue": _WRAPPED,
        "valueCount": _LONG,
        "nullCount": _LONG,
        "totalSize": _LONG,
        "totalUncompressedSize": _LONG,
        "isDeleted": st.booleans(),
        "isTightBound": st.booleans(),
        "valueType": st.one_of(
            st.none(),
            st.fixed_dictionaries({"typeOrdinal": _I32, "additionalInfo": st.one_of(st.none(), st.text(max_size=8))}),
        ),
    }
)


def _decoders(fields: list[str] | None) -> tuple[HFileRecordDecoder, HFileRecordDecoder]:
    fast = HFileRecordDecoder(SCHEMA, fields=fields)
    slow = HFileRecordDecoder(SCHEMA, fields=fields)
    slow._value_fields = None  # the per-record reference path
    return fast, slow


def _records(entries: dict[str, dict[str, Any] | None]) -> list[dict[str, Any]]:
    return [{"key": k, "type": int(RecordType.COLUMN_STATS), "ColumnStatsMetadata": v} for k, v in entries.items()]


@settings(max_examples=examples(80), deadline=None)
@given(
    entries=st.dictionaries(st.text(min_size=1, max_size=12), st.one_of(st.none(), _STATS), min_size=1, max_size=50),
    block_size=st.sampled_from([64, 1 << 20]),
    prefix_length=st.integers(1, 2),
)
def test_column_stats_values_decode_as_per_record(
    entries: dict[str, dict[str, Any] | None], block_size: int, prefix_length: int
) -> None:
    content = encode_hfile_records(_records(entries), SCHEMA, HFileWriteOptions(block_size=block_size))
    fast, slow = _decoders(FIELDS)
    assert fast._decode_vectorised(list(read_hfile(content))) is not None  # not a fallback
    assert fast.decode(content).equals(slow.decode(content))
    prefixes = sorted({k.encode()[:prefix_length] for k in entries if len(k.encode()) >= prefix_length})[:2]
    if len({len(p) for p in prefixes}) == 1:
        assert fast.decode(content, prefixes=prefixes).equals(slow.decode(content, prefixes=prefixes))


def test_bounds_of_several_wrapper_types_in_one_file_keep_their_members() -> None:
    stats = {"fileName": "f.parquet", "columnName": "c", "valueCount": 2, "nullCount": 0, "totalSize": 1,
             "totalUncompressedSize": 1, "isDeleted": False, "isTightBound": True, "valueType": None}  # fmt: skip
    entries: dict[str, dict[str, Any] | None] = {
        "a": {**stats, "minValue": (f"{NS}IntWrapper", {"value": 1}), "maxValue": (f"{NS}IntWrapper", {"value": 9})},
        "b": {**stats, "minValue": (f"{NS}StringWrapper", {"value": "x"}), "maxValue": None},
        "c": {**stats, "minValue": (f"{NS}DecimalWrapper", {"value": b"\x01\x00"}), "maxValue": None},
    }
    content = encode_hfile_records(_records(entries), SCHEMA)
    fast, slow = _decoders(FIELDS)
    got = fast.decode(content)
    assert got.equals(slow.decode(content))
    low = got.column("ColumnStatsMetadata").combine_chunks().field("minValue")
    assert low.field("member1").to_pylist() == [{"value": 1}, None, None]
    assert low.field("member6").to_pylist() == [None, {"value": "x"}, None]
    assert [str(v["value"]) if v else None for v in low.field("member8").to_pylist()] == [
        None, None, "2.56E-13",
    ]  # fmt: skip


def test_an_array_wrapper_bound_goes_to_the_per_record_decode() -> None:
    stats = {"fileName": "f", "columnName": "c", "valueCount": 1, "nullCount": 0, "totalSize": 1,
             "totalUncompressedSize": 1, "isDeleted": False, "isTightBound": False, "valueType": None}  # fmt: skip
    array = (f"{NS}ArrayWrapper", {"wrappedValues": [{"member1": {"value": 4}}]})
    entries: dict[str, dict[str, Any] | None] = {
        "a": {**stats, "minValue": array, "maxValue": None},
        "b": {**stats, "minValue": (f"{NS}LongWrapper", {"value": 4}), "maxValue": None},
    }
    records = _records(entries)
    try:
        content = encode_hfile_records(records, SCHEMA)
    except Exception:  # the writer may not take the array's inner union: the walk's refusal is what counts
        content = None
    fast, slow = _decoders(FIELDS)
    if content is not None:
        assert fast._decode_vectorised(list(read_hfile(content))) is None
        assert fast.decode(content).equals(slow.decode(content))
    shape = fast._value_fields
    assert shape is not None
    # An array-wrapper branch index in a value that otherwise walks: refused, never guessed.
    one = encode_hfile_records(_records({"b": entries["b"]}), SCHEMA)
    ((_, value),) = list(read_hfile(one))
    assert decode_values_at(value, np.array([0]), np.array([len(value)]), shape) is not None
    at = value.index(b"c" + bytes([2 * 3, 2 * 4])) + 1  # after the column name: LongWrapper (branch 3) of 4
    damaged = value[:at] + bytes([2 * 13]) + value[at + 1 :]  # ArrayWrapper's branch, no array after it
    assert decode_values_at(damaged, np.array([0]), np.array([len(damaged)]), shape) is None
