"""Apache Hudi's bloom filters, ``SIMPLE`` and ``DYNAMIC_V0``, byte for byte (hudi-format.md 5.3).

A filter is a matrix of bit rows (one row for ``SIMPLE``). Keys are added and probed in batches:
every key's ``nbHash`` bit positions come from :class:`~hudi_framework.contracts.indexing.murmur.PreparedKeys`,
and setting or testing bits is numpy fancy indexing on a boolean matrix, so no Python code runs
per key. Serialisation packs each row LSB first, as Hadoop's ``BloomFilter.write`` does.

``DYNAMIC_V0`` adds a row each time the active row has ``nr`` (= ``num_entries``) keys, until
``rows * nr`` reaches ``max_entries``; from then on rows are used round-robin. Java's
``InternalDynamicBloomFilter`` sends the key that reaches the limit to row 0 *and* starts the
round-robin at row 0, so row 0 gets two keys in a row; this class does the same, so a filter built
here from the same keys in the same order has exactly Java's bytes.
"""

from __future__ import annotations

import base64
import binascii
import enum
import math
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
from pydantic import BaseModel, ConfigDict, Field

from hudi_framework.contracts.indexing.key_arrays import KeysLike, as_key_array
from hudi_framework.contracts.indexing.murmur import U32, PreparedKeys, bit_positions
from hudi_framework.errors import BloomFilterFormatError

__all__ = [
    "DYNAMIC_HEADER",
    "FILTER_HEADER",
    "MURMUR_HASH",
    "BloomFilter",
    "BloomFilterConfig",
    "BloomFilterType",
    "RowCursor",
    "bloom_size",
    "checked_keys",
    "filter_header",
    "key_bit_positions",
    "read_filter_header",
]

#: ``InternalFilter.VERSION``: the first int of every serialised filter header.
_VERSION: Final = -1
#: Hadoop ``Hash.MURMUR_HASH``; the only hash type Apache Hudi writes.
MURMUR_HASH: Final = 1
#: The header of a filter and of every ``DYNAMIC_V0`` row: version, nbHash, hashType, vectorSize.
FILTER_HEADER: Final = struct.Struct(">iibi")
#: ``DYNAMIC_V0``'s own header after the filter header: nr, currentNbRecord, rows.
DYNAMIC_HEADER: Final = struct.Struct(">iii")
#: Keys hashed per batch: bounds temporary memory and keeps the working arrays cache-sized.
_CHUNK: Final = 1 << 16


class BloomFilterType(enum.StrEnum):
    """``BloomFilterTypeCode``: the footer's ``hoodie_bloom_filter_type_code`` value."""

    SIMPLE = "SIMPLE"
    DYNAMIC_V0 = "DYNAMIC_V0"


class BloomFilterConfig(BaseModel):
    """How a base file's bloom filter is sized; Apache Hudi's Spark defaults."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    num_entries: int = Field(default=60_000, gt=0, le=2**31 - 1)
    """``hoodie.index.bloom.num_entries``: keys per filter (per row for ``DYNAMIC_V0``)."""
    fpp: float = Field(default=1e-9, gt=0.0, lt=1.0)
    """``hoodie.index.bloom.fpp``: target false-positive probability at ``num_entries`` keys."""
    filter_type: BloomFilterType = BloomFilterType.DYNAMIC_V0
    """``hoodie.bloom.index.filter.type``."""
    dynamic_max_entries: int = Field(default=100_000, gt=0, le=2**31 - 1)
    """``hoodie.bloom.index.filter.dynamic.max.entries``: rows stop growing at this many keys."""


def bloom_size(num_entries: int, fpp: float) -> tuple[int, int]:
    """``BloomFilterUtils``: ``(vector_size, nb_hash)`` for ``num_entries`` keys at ``fpp``.

    The float operations follow Java's expression order so the ceilings land where Java's do.
    """
    bits = math.ceil(num_entries * (-math.log(fpp) / (math.log(2) * math.log(2))))
    hashes = math.ceil(math.log(2) * bits / num_entries)
    return bits, hashes


@dataclass(frozen=True, slots=True)
class RowCursor:
    """Where a ``DYNAMIC_V0`` filter sends its next keys (``InternalDynamicBloomFilter``'s add state).

    Attributes:
        num_rows: Rows in the matrix.
        count: Keys counted in the active row (``currentNbRecord``).
        reached_max: Rows stopped growing and keys go round-robin; not serialised (Java resets it on read).
        next_row: The round-robin row of the next key; not serialised either.
    """

    num_rows: int
    count: int
    reached_max: bool = False
    next_row: int = 0

    def assign(self, n: int, row_capacity: int, max_entries: int) -> tuple[npt.NDArray[np.int64], RowCursor]:
        """Rows of the next ``n`` keys and the state after them; rows past ``num_rows`` are new, empty rows."""
        out = np.zeros(n, dtype=np.int64)
        rows, count, reached, next_row = self.num_rows, self.count, self.reached_max, self.next_row
        pos = 0
        # One iteration per row boundary, never per key.
        while pos < n and not reached:
            if count >= row_capacity:
                if rows * row_capacity < max_entries:
                    rows += 1
                    count = 0
                else:
                    # getActiveStandardBF: this key goes to row 0 and the round-robin index stays 0.
                    reached = True
                    out[pos] = 0
                    pos += 1
                    count += 1
                    break
            take = min(row_capacity - count, n - pos)
            out[pos : pos + take] = rows - 1
            count += take
            pos += take
        if pos < n:
            rest = n - pos
            out[pos:] = (next_row + np.arange(rest, dtype=np.int64)) % rows
            next_row += rest
            count += rest
        return out, RowCursor(rows, count, reached, next_row)


def checked_keys(keys: KeysLike) -> pa.LargeStringArray:
    """``keys`` as one array, refusing what Java's ``HashFunction`` cannot add.

    Raises:
        ValueError: A key is null or empty.
    """
    arr = as_key_array(keys)
    if arr.null_count:
        raise ValueError("bloom filter keys must not be null")
    if len(arr) and pc.min(pc.binary_length(arr)).as_py() == 0:
        raise ValueError("bloom filter keys must not be empty (Apache Hudi rejects empty keys)")
    return arr


def key_bit_positions(
    keys: pa.LargeStringArray, rows: npt.NDArray[np.int64], nb_hash: int, vector_size: int
) -> Iterator[tuple[npt.NDArray[np.int64], Iterator[U32]]]:
    """Per batch of keys: their rows and, per hash function, their bit positions (both in one key order).

    Args:
        keys: Checked keys (:func:`checked_keys`).
        rows: The row of every key, input order.
        nb_hash: Hash functions per key.
        vector_size: Bits per row.
    """
    for start in range(0, len(keys), _CHUNK):
        prepared = PreparedKeys.from_keys(keys.slice(start, _CHUNK))
        yield prepared.from_input_order(rows[start : start + _CHUNK]), prepared.positions(nb_hash, vector_size)


class BloomFilter:
    """A ``SIMPLE`` or ``DYNAMIC_V0`` bloom filter over UTF-8 record keys.

    Build one with :meth:`create` / :meth:`from_keys`, or read Java's with :meth:`deserialize`.
    """

    def __init__(
        self,
        filter_type: BloomFilterType,
        *,
        vector_size: int,
        nb_hash: int,
        rows: npt.NDArray[np.uint8] | None = None,
        row_capacity: int = 0,
        max_entries: int = 0,
        current_count: int = 0,
        hash_type: int = MURMUR_HASH,
    ) -> None:
        """Wrap filter state; prefer the class methods.

        Args:
            filter_type: ``SIMPLE`` (one row) or ``DYNAMIC_V0``.
            vector_size: Bits per row.
            nb_hash: Hash functions per key.
            rows: Packed bit matrix ``(rows, ceil(vector_size / 8))``, LSB first as serialised;
                one empty row when None.
            row_capacity: ``DYNAMIC_V0`` ``nr``: keys per row before a new row is added.
            max_entries: ``DYNAMIC_V0`` ``maxNr``; Java does not serialise it, so a filter read
                back has 0 here, as in Java.
            current_count: ``DYNAMIC_V0`` ``currentNbRecord``: keys in the active row.
            hash_type: Hadoop hash type; only ``MURMUR_HASH`` (1) can be probed.

        Raises:
            BloomFilterFormatError: Sizes that Java could not have written.
        """
        if vector_size <= 0 or nb_hash <= 0:
            raise BloomFilterFormatError(f"vector size {vector_size} and hash count {nb_hash} must be positive")
        if filter_type is BloomFilterType.DYNAMIC_V0 and row_capacity <= 0:
            raise BloomFilterFormatError(f"a DYNAMIC_V0 filter needs a positive row capacity, got {row_capacity}")
        self._type = BloomFilterType(filter_type)
        self._vector_size = vector_size
        self._nb_hash = nb_hash
        self._hash_type = hash_type
        nbytes = (vector_size + 7) // 8
        # Rows stay packed: that is the serialised form, and 8x denser arrays keep probes in cache.
        self._rows = np.zeros((1, nbytes), dtype=np.uint8) if rows is None else np.ascontiguousarray(rows, np.uint8)
        if self._rows.ndim != 2 or self._rows.shape[1] != nbytes or not self._rows.shape[0]:
            raise BloomFilterFormatError(f"bit rows of shape {self._rows.shape} do not fit {vector_size} bits")
        self._nr = row_capacity
        self._max_entries = max_entries
        self._count = current_count
        # Round-robin state of InternalDynamicBloomFilter; not serialised (Java resets it on read).
        self._reached_max = False
        self._next_row = 0

    # ------------------------------------------------------------------ construction
    @classmethod
    def create(cls, config: BloomFilterConfig | None = None) -> BloomFilter:
        """An empty filter sized from ``config`` (Apache Hudi's defaults when None)."""
        cfg = config or BloomFilterConfig()
        vector_size, nb_hash = bloom_size(cfg.num_entries, cfg.fpp)
        return cls(
            cfg.filter_type,
            vector_size=vector_size,
            nb_hash=nb_hash,
            row_capacity=cfg.num_entries,
            max_entries=cfg.dynamic_max_entries,
        )

    @classmethod
    def from_keys(cls, keys: KeysLike, config: BloomFilterConfig | None = None) -> BloomFilter:
        """A filter holding ``keys``, added in the given order (order matters past one row)."""
        bloom = cls.create(config)
        bloom.add(keys)
        return bloom

    def resumed(self, max_entries: int) -> BloomFilter:
        """A copy that keeps adding as a filter created with ``max_entries`` would.

        A filter read back has no ``maxNr`` (Java does not serialise it), so it would stop adding
        rows at once; the copy takes the writer's ``hoodie.bloom.index.filter.dynamic.max.entries``.
        """
        return BloomFilter(
            self._type,
            vector_size=self._vector_size,
            nb_hash=self._nb_hash,
            rows=self._rows.copy(),
            row_capacity=self._nr,
            max_entries=max_entries,
            current_count=self._count,
            hash_type=self._hash_type,
        )

    @property
    def keys_added(self) -> int:
        """``DYNAMIC_V0``: how many keys were added, from the rows and the active row's count."""
        return (self.num_rows - 1) * self._nr + self._count

    # ------------------------------------------------------------------ properties
    @property
    def filter_type(self) -> BloomFilterType:
        """``SIMPLE`` or ``DYNAMIC_V0``."""
        return self._type

    @property
    def vector_size(self) -> int:
        """Bits per row."""
        return self._vector_size

    @property
    def nb_hash(self) -> int:
        """Hash functions per key."""
        return self._nb_hash

    @property
    def hash_type(self) -> int:
        """Hadoop hash type (1 = murmur)."""
        return self._hash_type

    @property
    def num_rows(self) -> int:
        """Rows in the bit matrix (always 1 for ``SIMPLE``)."""
        return int(self._rows.shape[0])

    @property
    def row_capacity(self) -> int:
        """``DYNAMIC_V0`` keys per row (0 for ``SIMPLE``)."""
        return self._nr

    @property
    def current_count(self) -> int:
        """``DYNAMIC_V0`` keys counted in the active row (Java's ``currentNbRecord``)."""
        return self._count

    @property
    def bits(self) -> npt.NDArray[np.bool_]:
        """The bit matrix ``(rows, vector_size)``, unpacked (a copy)."""
        return np.unpackbits(self._rows, axis=1, bitorder="little", count=self._vector_size).astype(np.bool_)

    # ------------------------------------------------------------------ add / probe
    def _row_assignment(self, n: int) -> npt.NDArray[np.int64]:
        """Rows for the next ``n`` keys, advancing the ``DYNAMIC_V0`` state exactly as Java would."""
        if self._type is BloomFilterType.SIMPLE:
            return np.zeros(n, dtype=np.int64)
        cursor = RowCursor(self.num_rows, self._count, self._reached_max, self._next_row)
        out, after = cursor.assign(n, self._nr, self._max_entries)
        if after.num_rows > self.num_rows:
            grown = np.zeros((after.num_rows - self.num_rows, self._rows.shape[1]), dtype=np.uint8)
            self._rows = np.vstack([self._rows, grown])
        self._count, self._reached_max, self._next_row = after.count, after.reached_max, after.next_row
        return out

    def add(self, keys: KeysLike) -> None:
        """Add keys in order (vectorised).

        Raises:
            ValueError: A key is null or empty (Java's ``HashFunction`` rejects empty keys).
        """
        arr = checked_keys(keys)
        self._require_murmur()
        if not len(arr):
            return
        rows = self._row_assignment(len(arr))
        # Setting bits is cheapest on unpacked booleans (ufunc.at on packed bytes is far slower); the
        # 0/1 bytes are viewed as booleans, not copied (a copy costs as much as hashing 10k keys).
        unpacked = np.unpackbits(self._rows, axis=1, bitorder="little").view(np.bool_)
        flat = unpacked.reshape(-1)
        row_bits = unpacked.shape[1]
        for key_rows, hashes in key_bit_positions(arr, rows, self._nb_hash, self._vector_size):
            base = key_rows * row_bits
            for positions in hashes:
                flat[base + positions] = True
        self._rows = np.packbits(unpacked, axis=1, bitorder="little")

    def might_contain(self, keys: KeysLike) -> npt.NDArray[np.bool_]:
        """Whether each key may be in the filter (False means surely absent); input order.

        Null and empty keys are never members: Java cannot add them.
        """
        arr = as_key_array(keys)
        self._require_murmur()
        result = np.zeros(len(arr), dtype=np.bool_)
        for start in range(0, len(arr), _CHUNK):
            chunk = arr.slice(start, _CHUNK)
            member = self._probe(PreparedKeys.from_keys(chunk))
            valid = pc.greater(pc.binary_length(chunk), 0).fill_null(False).to_numpy(zero_copy_only=False)
            result[start : start + len(chunk)] = member & valid
        return result

    def _probe(self, prepared: PreparedKeys) -> npt.NDArray[np.bool_]:
        """Membership of prepared keys, in input order of the chunk."""
        member = np.zeros(len(prepared), dtype=np.bool_)
        # Per row: keys still possibly in that row; a key is a member if it survives in any row.
        alive = np.ones((self.num_rows, len(prepared)), dtype=np.bool_)
        keys = prepared
        index = np.arange(len(prepared))  # prepared position of each key in `keys`
        seeds = np.zeros(len(prepared), dtype=np.uint32)
        for _ in range(self._nb_hash):
            seeds = keys.hash(seeds)
            positions = bit_positions(seeds, self._vector_size)
            byte_index = positions >> np.uint32(3)
            shift = (positions & np.uint32(7)).astype(np.uint8)
            for row, row_alive in zip(self._rows, alive, strict=True):
                row_alive &= ((row.take(byte_index) >> shift) & np.uint8(1)).astype(np.bool_)
            survivors = np.logical_or.reduce(alive, axis=0)
            count = int(np.count_nonzero(survivors))
            if count == 0:
                return member
            if count * 2 < len(survivors):
                # Most absent keys fail on the first hashes: stop hashing them.
                keys = keys.select(survivors)
                index = index[survivors]
                seeds = seeds[survivors]
                alive = alive[:, survivors]
        member[index] = alive.any(axis=0)
        return prepared.to_input_order(member)

    def _require_murmur(self) -> None:
        if self._hash_type != MURMUR_HASH:
            raise BloomFilterFormatError(f"hash type {self._hash_type} is not supported (only murmur, 1)")

    # ------------------------------------------------------------------ serialisation
    def _header(self) -> bytes:
        return filter_header(self._nb_hash, self._hash_type, self._vector_size)

    def to_bytes(self) -> bytes:
        """Java's ``write(DataOutput)`` bytes (before base64)."""
        packed = self._rows
        header = self._header()
        if self._type is BloomFilterType.SIMPLE:
            first: bytes = packed[0].tobytes()
            return header + first
        parts = [header, DYNAMIC_HEADER.pack(self._nr, self._count, self.num_rows)]
        for row in packed:
            parts += [header, row.tobytes()]
        return b"".join(parts)

    def serialize(self) -> str:
        """``serializeToString()``: standard, padded base64 of :meth:`to_bytes`."""
        return base64.b64encode(self.to_bytes()).decode("ascii")

    @classmethod
    def from_bytes(cls, data: bytes, filter_type: BloomFilterType | str = BloomFilterType.SIMPLE) -> BloomFilter:
        """Read Java's serialised bytes.

        Raises:
            BloomFilterFormatError: Truncated, trailing or inconsistent bytes, or an old header.
        """
        kind = BloomFilterType(filter_type)
        view = memoryview(data)
        nb_hash, hash_type, vector_size, offset = read_filter_header(view, 0)
        if kind is BloomFilterType.SIMPLE:
            row, offset = _read_row(view, offset, vector_size)
            _expect_end(view, offset)
            return cls(kind, vector_size=vector_size, nb_hash=nb_hash, rows=row[None, :], hash_type=hash_type)
        if len(view) < offset + DYNAMIC_HEADER.size:
            raise BloomFilterFormatError("truncated DYNAMIC_V0 header")
        nr, count, nrows = DYNAMIC_HEADER.unpack_from(view, offset)
        offset += DYNAMIC_HEADER.size
        if nrows <= 0:
            raise BloomFilterFormatError(f"a DYNAMIC_V0 filter has {nrows} rows")
        expected = offset + nrows * (FILTER_HEADER.size + (vector_size + 7) // 8)
        # Checked before allocating the rows: a damaged row count may ask for terabytes.
        if len(view) < expected:
            raise BloomFilterFormatError(f"truncated filter: {len(view)} bytes, the header describes {expected}")
        _expect_end(view, expected)
        rows = np.empty((nrows, (vector_size + 7) // 8), dtype=np.uint8)
        for i in range(nrows):
            row_hash, row_type, row_size, offset = read_filter_header(view, offset)
            if (row_hash, row_type, row_size) != (nb_hash, hash_type, vector_size):
                raise BloomFilterFormatError(f"row {i} header differs from the filter header")
            rows[i], offset = _read_row(view, offset, vector_size)
        _expect_end(view, offset)
        return cls(
            kind,
            vector_size=vector_size,
            nb_hash=nb_hash,
            rows=rows,
            row_capacity=nr,
            current_count=count,
            hash_type=hash_type,
        )

    @classmethod
    def deserialize(cls, text: str | bytes, filter_type: BloomFilterType | str = BloomFilterType.SIMPLE) -> BloomFilter:
        """Read ``serializeToString()`` output (base64), as stored in a parquet footer.

        Raises:
            BloomFilterFormatError: Not base64, or bad filter bytes.
        """
        try:
            raw = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError) as e:
            raise BloomFilterFormatError(f"bloom filter is not valid base64: {e}") from e
        return cls.from_bytes(raw, filter_type)

    def __repr__(self) -> str:
        return (
            f"BloomFilter({self._type.value}, vector_size={self._vector_size}, nb_hash={self._nb_hash}, "
            f"rows={self.num_rows}, current_count={self._count})"
        )


def filter_header(nb_hash: int, hash_type: int, vector_size: int) -> bytes:
    """The serialised header of a filter, and of each of a ``DYNAMIC_V0`` filter's rows."""
    return FILTER_HEADER.pack(_VERSION, nb_hash, hash_type, vector_size)


def read_filter_header(view: memoryview, offset: int) -> tuple[int, int, int, int]:
    """``(nb_hash, hash_type, vector_size, end offset)`` of the filter header at ``offset``.

    Raises:
        BloomFilterFormatError: Truncated, not version -1, or non-positive sizes.
    """
    if len(view) < offset + FILTER_HEADER.size:
        raise BloomFilterFormatError(f"truncated filter header at byte {offset}")
    version, nb_hash, hash_type, vector_size = FILTER_HEADER.unpack_from(view, offset)
    if version != _VERSION:
        # A positive first int is Hadoop's pre-versioning layout (Jenkins hash); Hudi never wrote it.
        raise BloomFilterFormatError(f"unsupported filter version {version} at byte {offset}")
    if nb_hash <= 0 or vector_size <= 0:
        raise BloomFilterFormatError(f"bad filter sizes at byte {offset}: {nb_hash} hashes, {vector_size} bits")
    return nb_hash, hash_type, vector_size, offset + FILTER_HEADER.size


def _read_row(view: memoryview, offset: int, vector_size: int) -> tuple[npt.NDArray[np.uint8], int]:
    nbytes = (vector_size + 7) // 8
    if len(view) < offset + nbytes:
        raise BloomFilterFormatError(f"truncated filter bits at byte {offset}")
    packed = np.frombuffer(view, dtype=np.uint8, count=nbytes, offset=offset).copy()
    # Java's readFields ignores bits past vector_size in the last byte; clear them so a
    # re-serialised filter has Java's bytes.
    spare = nbytes * 8 - vector_size
    if spare:
        packed[-1] &= np.uint8(0xFF >> spare)
    return packed, offset + nbytes


def _expect_end(view: memoryview, offset: int) -> None:
    if offset != len(view):
        raise BloomFilterFormatError(f"{len(view) - offset} unexpected bytes after the filter")
