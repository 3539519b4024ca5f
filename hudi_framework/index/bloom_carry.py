"""Carrying a base file's bloom filter over to the file that rewrites it (copy-on-write merges).

A rewrite keeps most of a file group's keys, and building a filter from scratch is the costliest
part of writing a base file after encoding it: Apache Hudi's default ``fpp`` of 1e-9 means 30
chained hashes and 30 random bit writes per key. A bloom filter only promises no false negatives,
so the previous file's filter with the keys new to the group added is a valid filter for the new
file; keys deleted since stay in it as false positives. To keep the false-positive rate near the
configured one, a filter is carried only while such stale keys stay under :data:`STALE_RATIO` of
the new file's rows, and only when it was built with the sizing the writer asks for. Otherwise
(and for ``SIMPLE`` filters, whose key count is not stored) the writer builds a fresh filter.

Readers probe every row of a ``DYNAMIC_V0`` filter, so which row a key went to does not matter:
a carried filter answers membership exactly like a fresh one, bar the stale keys.

The filter stays in its serialised form throughout
(:class:`~hudi_framework.contracts.indexing.bloom_text.SerializedBloom`): the new keys are patched
into the base64 text, which costs a fraction of decoding and re-encoding it and gives the same text
byte for byte.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Final

import pyarrow as pa

from hudi_framework.contracts.indexing.bloom_filter import MURMUR_HASH, BloomFilterConfig, BloomFilterType, bloom_size
from hudi_framework.contracts.indexing.bloom_text import SerializedBloom
from hudi_framework.contracts.indexing.footer import (
    BLOOM_FILTER_KEY,
    BLOOM_FILTER_TYPE_CODE_KEY,
    LEGACY_BLOOM_FILTER_KEY,
    read_key_footer,
)
from hudi_framework.errors import BloomFilterFormatError

#: Stale (deleted) keys a carried filter may hold, as a share of the new file's rows.
STALE_RATIO: Final = 0.1


def _previous_filter(footer: Mapping[bytes, bytes]) -> SerializedBloom | None:
    """The footer's filter, checked as :func:`~hudi_framework.contracts.indexing.footer.read_key_footer` checks
    it but left encoded.

    Raises:
        BloomFilterFormatError: An unreadable entry (as ``read_key_footer`` raises).
    """
    read_key_footer(footer, with_bloom=False)  # the min/max entries must be readable too
    serialised = footer.get(BLOOM_FILTER_KEY) or footer.get(LEGACY_BLOOM_FILTER_KEY)
    if serialised is None:
        return None
    code = footer.get(BLOOM_FILTER_TYPE_CODE_KEY)
    try:
        kind = BloomFilterType(code.decode("utf-8")) if code else BloomFilterType.SIMPLE
    except (UnicodeDecodeError, ValueError):
        raise BloomFilterFormatError(f"unknown bloom filter type code {code!r}") from None
    return SerializedBloom.parse(serialised, kind)


def carried_bloom(
    previous: Mapping[bytes, bytes] | None, config: BloomFilterConfig, *, live_rows: int, added: pa.Array
) -> SerializedBloom | None:
    """The previous file's filter with ``added`` keys, or None when a fresh one must be built.

    Args:
        previous: The key/value footer of the file being rewritten.
        config: The writer's filter sizing.
        live_rows: Rows of the new file.
        added: Keys the new file holds that the previous one lacks (a merge's inserts).
    """
    if previous is None or config.filter_type is not BloomFilterType.DYNAMIC_V0:
        return None
    try:
        bloom = _previous_filter(previous)
    except BloomFilterFormatError:
        return None  # an unreadable filter is simply rebuilt
    if bloom is None or bloom.filter_type is not BloomFilterType.DYNAMIC_V0 or bloom.hash_type != MURMUR_HASH:
        return None
    vector_size, nb_hash = bloom_size(config.num_entries, config.fpp)
    if (bloom.vector_size, bloom.nb_hash, bloom.row_capacity) != (vector_size, nb_hash, config.num_entries):
        return None
    if bloom.num_rows > max(1, math.ceil(config.dynamic_max_entries / config.num_entries)):
        return None
    total = bloom.keys_added + len(added)
    # Fewer keys counted than rows means the filter does not describe that file: never trust it.
    if total < live_rows or total > live_rows * (1 + STALE_RATIO):
        return None
    return bloom.with_keys(added, max_entries=config.dynamic_max_entries)
