"""Records sharing payloads (:class:`KeyedRecords`) encode to exactly the bytes of the same records
as a list of dicts (the per-record encoder), for HFILE_DATA contents and base files; the same
errors are raised; and routing them to file groups gives each group the records the per-record
routing gives it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_framework.errors import HFileWriteError
from hudi_framework.log.hfile_records import encode_hfile_base_file, encode_hfile_records
from hudi_framework.log.hfile_writer import HFileWriteOptions
from hudi_framework.log.keyed_records import KeyedRecords
from hudi_framework.metadata.records import RecordType
from hudi_framework.metadata_writer.file_groups import route
from hudi_framework.metadata_writer.mdt_timeline import metadata_record_schema_text
from tests.hypothesis_budget import examples

SCHEMA = metadata_record_schema_text(with_meta_fields=True)
_I64 = st.integers(-(1 << 63), (1 << 63) - 1)
_TEXT = st.text(max_size=20)
_LOCATION = st.fixed_dictionaries(
    {
        "partitionName": st.one_of(st.none(), _TEXT),
        "fileIdHighBits": _I64,
        "fileIdLowBits": _I64,
        "fileIndex": st.integers(-(1 << 31), (1 << 31) - 1),
        "fileId": _TEXT,
        "instantTime": _I64,
        "fileIdEncoding": st.integers(0, 1),
        "position": st.one_of(st.none(), _I64),
    }
)
_PINNED = HFileWriteOptions(creation_time_ms=1_700_000_000_000)


def _keyed(keys: list[str], payload_of: list[int], locations: list[dict[str, Any]]) -> KeyedRecords:
    payloads = tuple({"type": int(RecordType.RECORD_INDEX), "recordIndexMetadata": loc} for loc in locations)
    return KeyedRecords(pa.array(keys, pa.string()), np.array(payload_of, dtype=np.int64), payloads)


@st.composite
def _batches(draw: st.DrawFn) -> KeyedRecords:
    # Keys of any code points (the sort must be by UTF-8 bytes, unsigned), payloads shared.
    keys = draw(st.lists(st.text(min_size=1, max_size=24), min_size=0, max_size=80, unique=True))
    locations = draw(st.lists(_LOCATION, min_size=1, max_size=5))
    payload_of = draw(st.lists(st.integers(0, len(locations) - 1), min_size=len(keys), max_size=len(keys)))
    return _keyed(keys, payload_of, locations)


@settings(max_examples=examples(120), deadline=None)
@given(records=_batches(), block_size=st.sampled_from([48, 200, 1 << 20]))
def test_encoding_is_byte_equal_to_the_per_record_encoder(records: KeyedRecords, block_size: int) -> None:
    options = HFileWriteOptions(block_size=block_size, creation_time_ms=1_700_000_000_000)
    as_dicts = list(records)
    assert encode_hfile_records(records, SCHEMA, options) == encode_hfile_records(as_dicts, SCHEMA, options)
    assert encode_hfile_base_file(records, SCHEMA, options=options) == encode_hfile_base_file(
        as_dicts, SCHEMA, options=options
    )


@settings(max_examples=60, deadline=None)
@given(records=_batches(), file_groups=st.integers(1, 12))
def test_routing_gives_each_file_group_the_records_of_the_per_record_routing(
    records: KeyedRecords, file_groups: int
) -> None:
    fast = route(records, [], file_groups)
    slow = route(list(records), [], file_groups)
    assert sorted(fast) == sorted(slow)
    for index, (upserts, deletes) in slow.items():
        assert isinstance(fast[index][0], KeyedRecords)
        assert list(fast[index][0]) == list(upserts)
        assert fast[index][1] == deletes == []


def test_a_duplicate_key_is_refused_as_by_the_per_record_encoder() -> None:
    loc = {"partitionName": "p", "fileIdHighBits": 1, "fileIdLowBits": 2, "fileIndex": 0, "fileId": "",
           "instantTime": 3, "fileIdEncoding": 0, "position": None}  # fmt: skip
    records = _keyed(["b", "a", "b"], [0, 0, 0], [loc])
    with pytest.raises(HFileWriteError, match="two records with key 'b'"):
        encode_hfile_records(records, SCHEMA, _PINNED)
    with pytest.raises(HFileWriteError, match="two records with key 'b'"):
        encode_hfile_records(list(records), SCHEMA, _PINNED)


def test_a_null_key_or_a_payload_that_does_not_fit_is_refused() -> None:
    loc = {"partitionName": "p", "fileIdHighBits": 1, "fileIdLowBits": 2, "fileIndex": 0, "fileId": "",
           "instantTime": 3, "fileIdEncoding": 0, "position": None}  # fmt: skip
    with pytest.raises(HFileWriteError, match="no string 'key'"):
        encode_hfile_records(_keyed(["a", None], [0, 0], [loc]), SCHEMA, _PINNED)  # type: ignore[list-item]
    bad = {**loc, "fileIndex": "not an int"}
    with pytest.raises(HFileWriteError, match="record 'k1' does not fit the schema"):
        encode_hfile_records(_keyed(["k2", "k1"], [0, 1], [loc, bad]), SCHEMA, _PINNED)


def test_last_per_key_keeps_the_last_record_of_each_key_in_order() -> None:
    payloads = tuple({"n": i} for i in range(5))
    records = KeyedRecords(pa.array(["a", "b", "a", "c", "b"]), np.array([0, 1, 2, 3, 4]), payloads)
    kept = records.last_per_key()
    assert [(r["key"], r["n"]) for r in kept] == [("a", 2), ("c", 3), ("b", 4)]
    unique = KeyedRecords.from_groups([(pa.array(["x", "y"]), {"n": 0}), (pa.chunked_array([["z"]]), {"n": 1})])
    assert unique.last_per_key() is unique
    assert [(r["key"], r["n"]) for r in unique] == [("x", 0), ("y", 0), ("z", 1)]
    assert list(unique[1:]) == [{"key": "y", "n": 0}, {"key": "z", "n": 1}]
    assert unique[2] == {"key": "z", "n": 1}
