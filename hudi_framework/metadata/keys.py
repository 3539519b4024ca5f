"""Record keys of the metadata table's partitions, encoded exactly as Apache Hudi encodes them.

* ``files``: the partition path, ``.`` for a non-partitioned table's root, and
  :data:`ALL_PARTITIONS_KEY` for the record listing every partition.
* ``column_stats``: ``column id + partition id + file id``; ``bloom_filters``: ``partition id + file
  id``; ``partition_stats``: ``column id + partition id``.
* ``record_index``: the record key itself.

The ids are Java's ``ColumnIndexID`` / ``PartitionIndexID`` (XXH64 of the UTF-8 name with seed
``0xdabadaba`` sign-extended to 64 bits, as 8 big-endian bytes) and ``FileIndexID`` (MD5 of the file
name), each Base64 encoded with padding, so the ids have fixed widths (12, 12 and 24 characters) and
a key splits back into them. A hash has no inverse: decoding gives ids, which callers compare with
the ids of names they know (or read the names the record itself stores).
"""

from __future__ import annotations

import base64
import hashlib
import struct
from dataclasses import dataclass
from typing import Final

from hudi_framework.errors import MetadataKeyError

#: Key of the ``files`` record that lists every partition of the table.
ALL_PARTITIONS_KEY: Final = "__all_partitions__"
#: The ``files`` key (and partition identifier) of a non-partitioned table's only partition.
NON_PARTITIONED_NAME: Final = "."

#: Java passes the int seed ``0xdabadaba`` to ``XXHash64.hash(..., long seed)``: it is sign-extended.
HASH_SEED: Final = 0xDABADABA | 0xFFFFFFFF00000000
#: Widths of the Base64 ids: 8-byte XXH64 ids and 16-byte MD5 ids, padded.
COLUMN_ID_WIDTH: Final = 12
PARTITION_ID_WIDTH: Final = 12
FILE_ID_WIDTH: Final = 24

_MASK: Final = (1 << 64) - 1
_P1: Final = 0x9E3779B185EBCA87
_P2: Final = 0xC2B2AE3D27D4EB4F
_P3: Final = 0x165667B19E3779F9
_P4: Final = 0x85EBCA77C2B2AE63
_P5: Final = 0x27D4EB2F165667C5
_U64: Final = struct.Struct("<Q")
_U32: Final = struct.Struct("<I")


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & _MASK


def _round(acc: int, lane: int) -> int:
    acc = (acc + lane * _P2) & _MASK
    return (_rotl(acc, 31) * _P1) & _MASK


def _merge(acc: int, val: int) -> int:
    acc ^= _round(0, val)
    return (acc * _P1 + _P4) & _MASK


def xxh64(data: bytes, seed: int = 0) -> int:
    """XXH64 of ``data`` (unsigned 64-bit); keys are short names, so plain Python is fast enough."""
    seed &= _MASK
    n = len(data)
    i = 0
    if n >= 32:
        v1 = (seed + _P1 + _P2) & _MASK
        v2 = (seed + _P2) & _MASK
        v3 = seed
        v4 = (seed - _P1) & _MASK
        while i + 32 <= n:
            v1 = _round(v1, _U64.unpack_from(data, i)[0])
            v2 = _round(v2, _U64.unpack_from(data, i + 8)[0])
            v3 = _round(v3, _U64.unpack_from(data, i + 16)[0])
            v4 = _round(v4, _U64.unpack_from(data, i + 24)[0])
            i += 32
        h = (_rotl(v1, 1) + _rotl(v2, 7) + _rotl(v3, 12) + _rotl(v4, 18)) & _MASK
        for v in (v1, v2, v3, v4):
            h = _merge(h, v)
    else:
        h = (seed + _P5) & _MASK
    h = (h + n) & _MASK
    while i + 8 <= n:
        h ^= _round(0, _U64.unpack_from(data, i)[0])
        h = (_rotl(h, 27) * _P1 + _P4) & _MASK
        i += 8
    if i + 4 <= n:
        h ^= (_U32.unpack_from(data, i)[0] * _P1) & _MASK
        h = (_rotl(h, 23) * _P2 + _P3) & _MASK
        i += 4
    while i < n:
        h ^= (data[i] * _P5) & _MASK
        h = (_rotl(h, 11) * _P1) & _MASK
        i += 1
    h ^= h >> 33
    h = (h * _P2) & _MASK
    h ^= h >> 29
    h = (h * _P3) & _MASK
    return h ^ (h >> 32)


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def column_id(column: str) -> str:
    """Java ``ColumnIndexID(column).asBase64EncodedString()``."""
    return _b64(xxh64(column.encode("utf-8"), HASH_SEED).to_bytes(8, "big"))


def partition_identifier(partition_path: str) -> str:
    """The name the MDT uses for a partition: ``.`` for the non-partitioned root (``""``)."""
    return partition_path or NON_PARTITIONED_NAME


def partition_path_of(identifier: str) -> str:
    """Inverse of :func:`partition_identifier`: ``""`` for ``.``."""
    return "" if identifier == NON_PARTITIONED_NAME else identifier


def partition_id(partition_path: str) -> str:
    """Java ``PartitionIndexID(partitionIdentifier).asBase64EncodedString()``."""
    return column_id(partition_identifier(partition_path))


def file_id(file_name: str) -> str:
    """Java ``FileIndexID(fileName).asBase64EncodedString()`` (MD5 of the file name)."""
    return _b64(hashlib.md5(file_name.encode("utf-8"), usedforsecurity=False).digest())


def files_key(partition_path: str) -> str:
    """Key of a partition's record in ``files``."""
    return partition_identifier(partition_path)


def column_stats_key(column: str, partition_path: str, file_name: str) -> str:
    """Key of a file's column statistics record in ``column_stats``."""
    return column_id(column) + partition_id(partition_path) + file_id(file_name)


def bloom_filter_key(partition_path: str, file_name: str) -> str:
    """Key of a base file's bloom filter record in ``bloom_filters``."""
    return partition_id(partition_path) + file_id(file_name)


def partition_stats_key(column: str, partition_path: str) -> str:
    """Key of a partition's column statistics record in ``partition_stats``."""
    return column_id(column) + partition_id(partition_path)


@dataclass(frozen=True, slots=True)
class IndexKey:
    """The ids a hashed key is made of (None where the key kind has none)."""

    column_id: str | None
    partition_id: str
    file_id: str | None


def _check(key: str, widths: tuple[int, ...], kind: str) -> list[str]:
    """Split ``key`` into ids of ``widths``, each valid padded Base64."""
    if len(key) != sum(widths):
        raise MetadataKeyError(key, f"a {kind} key has {sum(widths)} characters")
    parts = []
    at = 0
    for width in widths:
        part = key[at : at + width]
        try:
            base64.b64decode(part, validate=True)
        except ValueError as e:
            raise MetadataKeyError(key, f"a {kind} key is Base64 ids") from e
        parts.append(part)
        at += width
    return parts


def decode_column_stats_key(key: str) -> IndexKey:
    """Split a ``column_stats`` key into its ids.

    Raises:
        MetadataKeyError: The key is not three Base64 ids of the expected widths.
    """
    column, partition, file = _check(key, (COLUMN_ID_WIDTH, PARTITION_ID_WIDTH, FILE_ID_WIDTH), "column_stats")
    return IndexKey(column, partition, file)


def decode_bloom_filter_key(key: str) -> IndexKey:
    """Split a ``bloom_filters`` key into its ids.

    Raises:
        MetadataKeyError: The key is not two Base64 ids of the expected widths.
    """
    partition, file = _check(key, (PARTITION_ID_WIDTH, FILE_ID_WIDTH), "bloom_filters")
    return IndexKey(None, partition, file)


def decode_partition_stats_key(key: str) -> IndexKey:
    """Split a ``partition_stats`` key into its ids.

    Raises:
        MetadataKeyError: The key is not two Base64 ids of the expected widths.
    """
    column, partition = _check(key, (COLUMN_ID_WIDTH, PARTITION_ID_WIDTH), "partition_stats")
    return IndexKey(column, partition, None)
