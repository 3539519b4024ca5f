"""Footer entries: what we write, and reading Apache Hudi's (and legacy) entries back."""

from __future__ import annotations

import io

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_framework.contracts.indexing.bloom_filter import BloomFilter, BloomFilterConfig, BloomFilterType
from hudi_framework.contracts.indexing.footer import (
    BLOOM_FILTER_KEY,
    BLOOM_FILTER_TYPE_CODE_KEY,
    LEGACY_BLOOM_FILTER_KEY,
    MAX_RECORD_KEY_KEY,
    MIN_RECORD_KEY_KEY,
    bloom_footer_metadata,
    read_key_footer,
)
from hudi_framework.errors import BloomFilterFormatError


def test_dynamic_footer_entries() -> None:
    keys = ["k3", "k1", "\U0001f600", "\uffee", "k2"]
    meta = bloom_footer_metadata(keys)
    assert set(meta) == {BLOOM_FILTER_KEY, BLOOM_FILTER_TYPE_CODE_KEY, MIN_RECORD_KEY_KEY, MAX_RECORD_KEY_KEY}
    assert meta[BLOOM_FILTER_TYPE_CODE_KEY] == b"DYNAMIC_V0"
    assert meta[MIN_RECORD_KEY_KEY] == b"k1"
    # Java's String order: the surrogate pair (U+1F600) sorts below U+FFEE.
    assert meta[MAX_RECORD_KEY_KEY] == "\uffee".encode()
    assert meta[BLOOM_FILTER_KEY] == BloomFilter.from_keys(keys).serialize().encode()


def test_simple_footer_has_no_type_code_and_empty_files_no_range() -> None:
    meta = bloom_footer_metadata([], BloomFilterConfig(filter_type=BloomFilterType.SIMPLE, num_entries=10))
    assert set(meta) == {BLOOM_FILTER_KEY}
    footer = read_key_footer(meta)
    assert (footer.min_key, footer.max_key) == (None, None)
    assert footer.bloom is not None
    assert footer.bloom.filter_type is BloomFilterType.SIMPLE


def test_round_trip_through_a_parquet_file() -> None:
    keys = [f"id-{i}" for i in range(50)]
    config = BloomFilterConfig(num_entries=100, fpp=1e-4)
    table = pa.table({"_hoodie_record_key": keys}).replace_schema_metadata(bloom_footer_metadata(keys, config))
    sink = io.BytesIO()
    pq.write_table(table, sink)
    metadata = pq.ParquetFile(io.BytesIO(sink.getvalue())).metadata
    footer = read_key_footer(metadata)
    assert (footer.min_key, footer.max_key) == ("id-0", "id-9")
    assert footer.bloom is not None
    assert footer.bloom.might_contain(keys).all()
    assert footer.bloom.to_bytes() == BloomFilter.from_keys(keys, config).to_bytes()
    assert read_key_footer(metadata, with_bloom=False).bloom is None


def test_legacy_key_and_missing_entries() -> None:
    serialised = BloomFilter.from_keys(["a"], BloomFilterConfig(num_entries=10, filter_type="SIMPLE")).serialize()
    footer = read_key_footer({LEGACY_BLOOM_FILTER_KEY: serialised.encode()})
    assert footer.bloom is not None
    assert footer.bloom.might_contain(["a"]).all()
    assert read_key_footer(None) == read_key_footer({}) == read_key_footer({b"other": b"x"})
    assert read_key_footer(None).bloom is None


def test_bad_entries() -> None:
    good = bloom_footer_metadata(["a"], BloomFilterConfig(num_entries=10))
    with pytest.raises(BloomFilterFormatError, match="type code"):
        read_key_footer({**good, BLOOM_FILTER_TYPE_CODE_KEY: b"DYNAMIC_V9"})
    with pytest.raises(BloomFilterFormatError, match="UTF-8"):
        read_key_footer({MIN_RECORD_KEY_KEY: b"\xff"})
    with pytest.raises(BloomFilterFormatError):
        read_key_footer({BLOOM_FILTER_KEY: b"AAAA"})
    with pytest.raises(ValueError, match="empty"):
        bloom_footer_metadata(["a", ""])
