"""Record-key footer entries of base files: the bloom filter and min/max keys (hudi-format.md 5.2).

Apache Hudi's ``HoodieBloomFilterWriteSupport`` stores, in every parquet base file's key/value
metadata, the serialised bloom filter of the file's record keys, its type code when the filter is
dynamic, and the smallest and largest record key. Its BLOOM index prunes files by those keys, so
files written here carry the same entries with the same encoding.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

import pyarrow.parquet as pq

from hudi_framework.contracts.indexing.bloom_filter import BloomFilter, BloomFilterConfig, BloomFilterType
from hudi_framework.contracts.indexing.bloom_text import SerializedBloom
from hudi_framework.contracts.indexing.key_arrays import KeysLike, as_key_array, java_min_max
from hudi_framework.errors import BloomFilterFormatError

__all__ = [
    "BLOOM_FILTER_KEY",
    "BLOOM_FILTER_TYPE_CODE_KEY",
    "LEGACY_BLOOM_FILTER_KEY",
    "MAX_RECORD_KEY_KEY",
    "MIN_RECORD_KEY_KEY",
    "KeyFooter",
    "bloom_footer_metadata",
    "read_key_footer",
]

#: The serialised (base64) bloom filter.
BLOOM_FILTER_KEY: Final = b"org.apache.hudi.bloomfilter"
#: The same, as written before the project moved to Apache; still read.
LEGACY_BLOOM_FILTER_KEY: Final = b"com.uber.hoodie.bloomfilter"
#: ``DYNAMIC_V0``; absent for ``SIMPLE`` filters.
BLOOM_FILTER_TYPE_CODE_KEY: Final = b"hoodie_bloom_filter_type_code"
#: Smallest record key in the file (Java ``String.compareTo`` order).
MIN_RECORD_KEY_KEY: Final = b"hoodie_min_record_key"
#: Largest record key in the file.
MAX_RECORD_KEY_KEY: Final = b"hoodie_max_record_key"


@dataclass(frozen=True, slots=True)
class KeyFooter:
    """What a base file's footer says about its record keys.

    Attributes:
        min_key: ``hoodie_min_record_key``, None when absent (empty files, no meta fields).
        max_key: ``hoodie_max_record_key``, None when absent.
        bloom: The bloom filter, None when absent or not asked for.
    """

    min_key: str | None
    max_key: str | None
    bloom: BloomFilter | None


def bloom_footer_metadata(
    keys: KeysLike, config: BloomFilterConfig | None = None, *, bloom: BloomFilter | SerializedBloom | None = None
) -> dict[bytes, bytes]:
    """The footer key/value entries for a base file holding ``keys``.

    Args:
        keys: The file's ``_hoodie_record_key`` values **in row order** (a ``DYNAMIC_V0`` filter
            past its first row depends on the order, and Java adds keys as rows are written).
        config: Filter sizing; Apache Hudi's defaults when None.
        bloom: A filter already holding at least ``keys`` (one carried over from the file this
            one rewrites, :mod:`~hudi_framework.index.bloom_carry`, stays serialised); built from
            ``keys`` when None.

    Returns:
        ``org.apache.hudi.bloomfilter`` always; ``hoodie_bloom_filter_type_code`` for dynamic
        filters; ``hoodie_min_record_key``/``hoodie_max_record_key`` when there is a key. Values are
        UTF-8, as Java writes them.

    Raises:
        ValueError: A key is null or empty.
    """
    cfg = config or BloomFilterConfig()
    arr = as_key_array(keys)
    if bloom is None:
        bloom = BloomFilter.from_keys(arr, cfg)
    text = bloom.text if isinstance(bloom, SerializedBloom) else bloom.serialize().encode("ascii")
    out = {BLOOM_FILTER_KEY: text}
    if bloom.filter_type is BloomFilterType.DYNAMIC_V0:
        # Java writes the type code only for dynamic filters; readers assume SIMPLE without it.
        out[BLOOM_FILTER_TYPE_CODE_KEY] = bloom.filter_type.value.encode("ascii")
    bounds = java_min_max(arr)
    if bounds is not None:
        out[MIN_RECORD_KEY_KEY] = bounds[0].encode("utf-8")
        out[MAX_RECORD_KEY_KEY] = bounds[1].encode("utf-8")
    return out


def _key_value_metadata(metadata: pq.FileMetaData | Mapping[bytes, bytes] | None) -> Mapping[bytes, bytes]:
    if metadata is None:
        return {}
    if isinstance(metadata, pq.FileMetaData):
        return metadata.metadata or {}
    return metadata


def _text(value: bytes | None, what: str) -> str | None:
    if value is None:
        return None
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BloomFilterFormatError(f"footer entry {what} is not UTF-8") from e


def read_key_footer(metadata: pq.FileMetaData | Mapping[bytes, bytes] | None, *, with_bloom: bool = True) -> KeyFooter:
    """Read the record-key entries of a base file footer, written by Apache Hudi or by us.

    Args:
        metadata: The parquet footer (``ParquetFile.metadata``) or its key/value metadata.
        with_bloom: Deserialise the bloom filter; False reads only the min/max keys, which is
            all range pruning needs.

    Returns:
        The entries found; missing ones are None.

    Raises:
        BloomFilterFormatError: An entry is present but unreadable (bad base64 or filter bytes,
            an unknown type code).
    """
    kv = _key_value_metadata(metadata)
    min_key = _text(kv.get(MIN_RECORD_KEY_KEY), "hoodie_min_record_key")
    max_key = _text(kv.get(MAX_RECORD_KEY_KEY), "hoodie_max_record_key")
    bloom = None
    if with_bloom:
        serialised = kv.get(BLOOM_FILTER_KEY) or kv.get(LEGACY_BLOOM_FILTER_KEY)
        if serialised is not None:
            code = _text(kv.get(BLOOM_FILTER_TYPE_CODE_KEY), "hoodie_bloom_filter_type_code")
            try:
                kind = BloomFilterType(code) if code else BloomFilterType.SIMPLE
            except ValueError:
                raise BloomFilterFormatError(f"unknown bloom filter type code {code!r}") from None
            bloom = BloomFilter.deserialize(serialised, kind)
    return KeyFooter(min_key, max_key, bloom)
