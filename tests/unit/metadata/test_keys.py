"""Metadata-table key encodings: Apache Hudi's hashed ids, partition names, file group routing."""

from __future__ import annotations

import pyarrow as pa
import pytest

from hudi_framework.errors import MetadataKeyError
from hudi_framework.metadata.keys import (
    ALL_PARTITIONS_KEY,
    bloom_filter_key,
    column_id,
    column_stats_key,
    decode_bloom_filter_key,
    decode_column_stats_key,
    decode_partition_stats_key,
    file_id,
    files_key,
    partition_id,
    partition_path_of,
    partition_stats_key,
    xxh64,
)
from hudi_framework.metadata.reader import record_index_file_group, record_index_file_groups
from hudi_framework.metadata.records import file_group_id, metadata_record_schema, partition_of_file_group

# Keys found in the v9_txns_simple_meta fixture's column_stats and partition_stats partitions.
FEE = "5RNSbpYG6oU="
US = "431THTTwO5Q="
APAC = "OOL0+QGXAHU="
FILE = "3e93c8a9-fda0-4e8a-91dc-b4ade7dab76d-0_1-27-53_20260307162557587.parquet"


def test_xxh64_reference_values() -> None:
    assert xxh64(b"") == 0xEF46DB3751D8E999
    assert xxh64(b"abc") == 0x44BC2CF5AD770999
    # Lanes of 32 bytes and every tail length go through different steps.
    assert len({xxh64(bytes(range(n))) for n in range(70)}) == 70


def test_ids_match_apache_hudi_keys() -> None:
    assert column_id("fee_amount") == FEE
    assert partition_id("region=us") == US
    assert partition_id("region=apac") == APAC
    assert file_id(FILE) == "F01d3NbdD9QcFpSCtykrRA=="
    assert column_stats_key("fee_amount", "region=us", FILE) == FEE + US + "F01d3NbdD9QcFpSCtykrRA=="
    assert partition_stats_key("currency", "region=us") == "/m6lxu4Dh5w=" + US
    assert bloom_filter_key("region=us", FILE) == US + "F01d3NbdD9QcFpSCtykrRA=="


def test_non_partitioned_root_is_dot() -> None:
    assert files_key("") == "."
    assert partition_id("") == column_id(".")
    assert partition_path_of(".") == ""
    assert ALL_PARTITIONS_KEY == "__all_partitions__"


def test_keys_split_back_into_ids() -> None:
    key = column_stats_key("fee_amount", "region=us", FILE)
    parts = decode_column_stats_key(key)
    assert (parts.column_id, parts.partition_id, parts.file_id) == (FEE, US, file_id(FILE))
    assert decode_bloom_filter_key(bloom_filter_key("p", FILE)).file_id == file_id(FILE)
    assert decode_partition_stats_key(partition_stats_key("c", "p")).column_id == column_id("c")


@pytest.mark.parametrize("bad", ["", "short", FEE + US + "not-base64!!!!!!!!!!!!!!!", FEE * 4])
def test_malformed_keys_raise(bad: str) -> None:
    with pytest.raises(MetadataKeyError) as info:
        decode_column_stats_key(bad)
    assert info.value.key == bad


def test_file_group_naming() -> None:
    assert file_group_id("files", 0) == "files-0000-0"
    assert file_group_id("column_stats", 3) == "col-stats-0003-0"
    assert file_group_id("record_index", 12) == "record-index-0012-0"
    assert file_group_id("secondary_index_merchant_idx", 4) == "secondary-index-merchant-idx-0004-0"
    assert partition_of_file_group("partition-stats-0000-0") == "partition_stats"
    assert partition_of_file_group("whatever-0000-0") is None


def _java_hash_code(text: str) -> int:
    raw = text.encode("utf-16-be")
    h = 0
    for i in range(0, len(raw), 2):
        h = (31 * h + int.from_bytes(raw[i : i + 2], "big")) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


@pytest.mark.parametrize("key", ["TXN-001", "", "a", "polygenelubricants", "é€😀x", "x" * 100])
def test_record_index_routing_is_javas(key: str) -> None:
    # "polygenelubricants".hashCode() is Integer.MIN_VALUE: Math.abs keeps it negative in Java.
    for groups in (1, 7, 10):
        assert record_index_file_group(key, groups) == abs(_java_hash_code(key)) % groups


def test_record_index_routing_is_vectorised() -> None:
    keys = pa.array(["k1", None, "a-much-longer-key-0001", "ü"])
    assert record_index_file_groups(keys, 10).tolist() == [
        record_index_file_group(k or "", 10) for k in ["k1", "", "a-much-longer-key-0001", "ü"]
    ]


def test_schema_is_hoodie_metadata_record() -> None:
    schema = metadata_record_schema()
    assert schema["name"] == "HoodieMetadataRecord"
    names = [f["name"] for f in schema["fields"]]
    assert names[:2] == ["key", "type"]
    assert {"filesystemMetadata", "ColumnStatsMetadata", "recordIndexMetadata", "BloomFilterMetadata"} <= set(names)
    with_meta = metadata_record_schema(with_meta_fields=True)
    assert [f["name"] for f in with_meta["fields"]][:5] == [
        "_hoodie_commit_time",
        "_hoodie_commit_seqno",
        "_hoodie_record_key",
        "_hoodie_partition_path",
        "_hoodie_file_name",
    ]
