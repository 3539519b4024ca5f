"""A bloom filter kept as its footer text, growing by patches to the base64 instead of a full decode.

A copy-on-write rewrite carries the previous file's filter with a few thousand keys added
(:mod:`~hudi_framework.index.bloom_carry`). Apache Hudi's default filter is ~650 KB of bits, ~860 KB
of base64 in the footer; decoding and re-encoding all of it costs more than hashing the new keys.
Base64 is the bytes' bit stream cut into 6-bit characters, and a key sets ``nbHash`` bits at
positions the layout fixes (filter header, ``DYNAMIC_V0`` header, then per row a header and the
row's bytes), so each new bit changes exactly one character. :meth:`SerializedBloom.with_keys` copies
the text and rewrites just those characters (and the few groups holding the header's counts).

The result is byte for byte ``BloomFilter.deserialize(text).resumed(max_entries)`` with the keys
added, serialised: the header's key count and row count are rewritten, rows the filter grows are
encoded together with the old text's last partial group (which also makes that group canonical, as
re-encoding does), and the spare bits past ``vector_size`` that reading clears are cleared.
:meth:`SerializedBloom.parse` checks the whole text as the full decoder does (alphabet, length,
padding, every header) and raises the same :class:`~hudi_framework.errors.BloomFilterFormatError`.
"""

from __future__ import annotations

import binascii
from dataclasses import dataclass, replace
from typing import Any, Final, TypeVar

import numpy as np
import numpy.typing as npt

from hudi_framework.contracts.indexing.bloom_filter import (
    DYNAMIC_HEADER,
    FILTER_HEADER,
    MURMUR_HASH,
    BloomFilter,
    BloomFilterType,
    RowCursor,
    checked_keys,
    filter_header,
    key_bit_positions,
    read_filter_header,
)
from hudi_framework.contracts.indexing.key_arrays import KeysLike
from hudi_framework.contracts.indexing.murmur import U32
from hudi_framework.errors import BloomFilterFormatError

__all__ = ["SerializedBloom"]

_T = TypeVar("_T", bound=np.generic)
_Index = npt.NDArray[np.signedinteger[Any]]

_ALPHABET: Final = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
#: Characters of the first groups: enough for the filter and ``DYNAMIC_V0`` headers (25 bytes).
_PREFIX_CHARS: Final = 4 * -(-(FILTER_HEADER.size + DYNAMIC_HEADER.size) // 3)
#: Byte offset of ``currentNbRecord`` (then the row count) in a ``DYNAMIC_V0`` filter.
_COUNT_OFFSET: Final = FILTER_HEADER.size + 4


def _read_only(array: npt.NDArray[_T]) -> npt.NDArray[_T]:
    array.flags.writeable = False
    return array


def _decode_table() -> npt.NDArray[np.uint8]:
    table = np.zeros(256, dtype=np.uint8)  # '=' reads as 0: the text is validated first, padding bits drop
    table[np.frombuffer(_ALPHABET, dtype=np.uint8)] = np.arange(64, dtype=np.uint8)
    return _read_only(table)


_SIX: Final = _decode_table()
_CHARS: Final = _read_only(np.frombuffer(_ALPHABET, dtype=np.uint8).copy())
#: ``1 << (5 - i)``: bit ``i`` (from the most significant) of a character's 6-bit value.
_SIX_BIT: Final = _read_only(np.array([1 << (5 - i) for i in range(6)], dtype=np.uint8))
_BIT: Final = _read_only(np.array([1 << i for i in range(8)], dtype=np.uint8))
_QUAD: Final = _read_only(np.arange(4, dtype=np.int64))
_SHIFTS: Final = _read_only(np.array([18, 12, 6, 0], dtype=np.uint32))
#: Bit positions patched per step: big enough to amortise numpy's per-call cost, small enough that
#: the temporaries stay in cache and reuse freed memory (fresh large arrays cost page faults).
_BATCH: Final = 8192


def _group_values(text: npt.NDArray[np.uint8], groups: npt.NDArray[np.int64]) -> npt.NDArray[np.uint32]:
    """The 24 bits (3 bytes, first byte highest) that 4-character ``groups`` of ``text`` encode."""
    six = _SIX[text[(groups * 4)[:, None] + _QUAD]].astype(np.uint32) << _SHIFTS
    values: npt.NDArray[np.uint32] = six[:, 0] | six[:, 1] | six[:, 2] | six[:, 3]
    return values


def _write_groups(out: npt.NDArray[np.uint8], groups: npt.NDArray[np.int64], values: npt.NDArray[np.uint32]) -> None:
    out[(groups * 4)[:, None] + _QUAD] = _CHARS[(values[:, None] >> _SHIFTS) & np.uint32(63)]


def _byte_shift(offsets: npt.NDArray[np.int64], groups: npt.NDArray[np.int64]) -> npt.NDArray[np.uint32]:
    """Where byte ``offsets`` sit in their group's 24 bits (``offsets - 3 * groups``: numpy's ``%`` is slow)."""
    return (16 - 8 * (offsets - 3 * groups)).astype(np.uint32)


def _decode_at(text: npt.NDArray[np.uint8], offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.uint8]:
    """The decoded bytes at ``offsets`` of validated base64 ``text``."""
    groups = offsets // 3
    return ((_group_values(text, groups) >> _byte_shift(offsets, groups)) & np.uint32(0xFF)).astype(np.uint8)


def _edit_bytes(
    out: npt.NDArray[np.uint8], offsets: npt.NDArray[np.int64], clear: npt.NDArray[np.uint8], put: npt.NDArray[np.uint8]
) -> None:
    """``b = b & ~clear | put`` for the decoded bytes at ``offsets`` of ``out``, in place; for a few bytes."""
    groups = offsets // 3
    touched, where = np.unique(groups, return_inverse=True)
    shift = _byte_shift(offsets, groups)
    clear_mask = np.zeros(len(touched), dtype=np.uint32)
    set_mask = np.zeros(len(touched), dtype=np.uint32)
    np.bitwise_or.at(clear_mask, where, clear.astype(np.uint32) << shift)
    np.bitwise_or.at(set_mask, where, put.astype(np.uint32) << shift)
    _write_groups(out, touched, (_group_values(out, touched) & ~clear_mask) | set_mask)


def _set_bits(out: npt.NDArray[np.uint8], stream: _Index) -> None:
    """Set the decoded bits at ``stream`` positions of ``out``, in place; positions may repeat.

    Base64 is a bit stream read most significant bit first, 6 bits per character: stream position
    ``p`` is in character ``p // 6``, so a bit is set by rewriting that one character. Where several
    bits land in one character the scatter keeps one write; those lost are set again from the
    updated text until none is (a few percent of a batch, then none).
    """
    chars = stream // 6
    masks = _SIX_BIT[stream - chars * 6]
    while len(chars):
        written = _CHARS[_SIX[out[chars]] | masks]
        out[chars] = written
        lost = out[chars] != written
        chars, masks = chars[lost], masks[lost]


def _set_row_bits(
    out: npt.NDArray[np.uint8],
    tail: npt.NDArray[np.uint8],
    boundary: int,
    row_bits: _Index,
    positions: list[U32],
) -> None:
    """Set the bits at ``positions`` (one array per hash function, keys in the order of ``row_bits``,
    the stream position of their row's first byte) in ``out``, or in ``tail`` from byte ``boundary`` on."""
    joined = np.concatenate(positions) if len(positions) > 1 else positions[0]
    # Bit k (least significant first) of byte b is stream position 8 * b + 7 - k: with b = start +
    # pos // 8 and k = pos % 8 that is 8 * start + (pos ^ 7).
    stream = np.tile(row_bits, len(positions)) + (joined ^ np.uint32(7)).astype(row_bits.dtype)
    beyond = stream >= 8 * boundary
    if beyond.any():
        past = stream[beyond] - 8 * boundary
        np.bitwise_or.at(tail, past >> 3, _BIT[7 - (past & 7)])
        stream = stream[~beyond]
    _set_bits(out, stream)


def _checked_base64(text: str | bytes) -> bytes:
    """``text`` as canonically shaped base64 bytes (whole groups of the alphabet, at most two ``=`` at
    the very end), or raise where ``b64decode(validate=True)`` raises.

    Anything else strict decoding accepts (extra ``=`` after whole groups, which Python 3.11 lets
    through) is rare enough to be decoded and re-encoded whole.
    """
    try:
        raw = text.encode("ascii") if isinstance(text, str) else bytes(text)
    except UnicodeEncodeError as e:
        raise BloomFilterFormatError(f"bloom filter is not valid base64: {e}") from e
    # Deleting the alphabet leaves what else there is: nothing, or the padding at the very end.
    rest = raw.translate(None, _ALPHABET)
    if not len(raw) % 4 and (not rest or (rest in (b"=", b"==") and raw.endswith(rest))):
        return raw
    try:
        return binascii.b2a_base64(binascii.a2b_base64(raw, strict_mode=True), newline=False)
    except binascii.Error as e:
        raise BloomFilterFormatError(f"bloom filter is not valid base64: {e}") from e


@dataclass(frozen=True, slots=True)
class SerializedBloom:
    """A ``SIMPLE`` or ``DYNAMIC_V0`` filter as its validated ``serializeToString()`` text.

    Build one with :meth:`parse`. Attributes mirror
    :class:`~hudi_framework.contracts.indexing.bloom_filter.BloomFilter`'s properties; ``text`` is the
    standard, padded base64 (ASCII bytes).
    """

    text: bytes
    filter_type: BloomFilterType
    nb_hash: int
    hash_type: int
    vector_size: int
    row_capacity: int
    current_count: int
    num_rows: int

    @classmethod
    def parse(cls, text: str | bytes, filter_type: BloomFilterType | str = BloomFilterType.SIMPLE) -> SerializedBloom:
        """Check ``text`` as :meth:`BloomFilter.deserialize` does, without decoding the bits.

        Raises:
            BloomFilterFormatError: Not base64, or bad filter bytes (truncated, trailing, inconsistent headers).
        """
        kind = BloomFilterType(filter_type)
        raw = _checked_base64(text)
        data_length = len(raw) // 4 * 3 - (2 if raw.endswith(b"==") else 1 if raw.endswith(b"=") else 0)
        prefix = memoryview(binascii.a2b_base64(raw[:_PREFIX_CHARS], strict_mode=True))  # checked above
        nb_hash, hash_type, vector_size, offset = read_filter_header(prefix, 0)
        row_bytes = (vector_size + 7) // 8
        nr = count = 0
        nrows = 1
        if kind is BloomFilterType.DYNAMIC_V0:
            if len(prefix) < offset + DYNAMIC_HEADER.size:
                raise BloomFilterFormatError("truncated DYNAMIC_V0 header")
            nr, count, nrows = DYNAMIC_HEADER.unpack_from(prefix, offset)
            offset += DYNAMIC_HEADER.size
            if nrows <= 0:
                raise BloomFilterFormatError(f"a DYNAMIC_V0 filter has {nrows} rows")
            if nr <= 0:
                raise BloomFilterFormatError(f"a DYNAMIC_V0 filter needs a positive row capacity, got {nr}")
            expected = offset + nrows * (FILTER_HEADER.size + row_bytes)
        else:
            expected = offset + row_bytes
        if data_length < expected:
            raise BloomFilterFormatError(f"truncated filter: {data_length} bytes, the header describes {expected}")
        if data_length > expected:
            raise BloomFilterFormatError(f"{data_length - expected} unexpected bytes after the filter")
        bloom = cls(raw, kind, nb_hash, hash_type, vector_size, nr, count, nrows)
        if kind is BloomFilterType.DYNAMIC_V0:
            bloom._check_row_headers()
        return bloom

    # ------------------------------------------------------------------ layout
    @property
    def keys_added(self) -> int:
        """``DYNAMIC_V0``: keys added, from the rows and the active row's count (as ``BloomFilter``)."""
        return (self.num_rows - 1) * self.row_capacity + self.current_count

    def _row_starts(self, num_rows: int) -> npt.NDArray[np.int64]:
        """Byte offset of the bits of rows ``0 .. num_rows - 1``."""
        if self.filter_type is BloomFilterType.SIMPLE:
            return np.array([FILTER_HEADER.size], dtype=np.int64)
        stride = FILTER_HEADER.size + (self.vector_size + 7) // 8
        first = FILTER_HEADER.size + DYNAMIC_HEADER.size + FILTER_HEADER.size
        return first + stride * np.arange(num_rows, dtype=np.int64)

    def _data_length(self, num_rows: int) -> int:
        return int(self._row_starts(num_rows)[-1]) + (self.vector_size + 7) // 8

    def _check_row_headers(self) -> None:
        text = np.frombuffer(self.text, dtype=np.uint8)
        headers = (self._row_starts(self.num_rows) - FILTER_HEADER.size)[:, None] + np.arange(FILTER_HEADER.size)
        stored = _decode_at(text, headers.reshape(-1)).reshape(headers.shape)
        expected = np.frombuffer(filter_header(self.nb_hash, self.hash_type, self.vector_size), dtype=np.uint8)
        bad = np.flatnonzero((stored != expected).any(axis=1))
        if bad.size:
            raise BloomFilterFormatError(f"row {int(bad[0])} header differs from the filter header")

    # ------------------------------------------------------------------ adding keys
    def with_keys(self, keys: KeysLike, *, max_entries: int) -> SerializedBloom:
        """The filter with ``keys`` added in order, as one resumed with ``max_entries`` would add them.

        Args:
            keys: Keys to add (none is fine: the text is still made canonical).
            max_entries: ``hoodie.bloom.index.filter.dynamic.max.entries`` (Java does not store it).

        Raises:
            ValueError: A key is null or empty.
            BloomFilterFormatError: The hash type is not murmur.
        """
        arr = checked_keys(keys)
        if self.hash_type != MURMUR_HASH:
            raise BloomFilterFormatError(f"hash type {self.hash_type} is not supported (only murmur, 1)")
        if self.filter_type is BloomFilterType.SIMPLE:
            rows = np.zeros(len(arr), dtype=np.int64)
            after = RowCursor(1, self.current_count)
        else:
            rows, after = RowCursor(self.num_rows, self.current_count).assign(len(arr), self.row_capacity, max_entries)
        old = np.frombuffer(self.text, dtype=np.uint8)
        old_length = self._data_length(self.num_rows)
        new_length = self._data_length(after.num_rows)
        # Whole groups of old bytes are patched in place in a copy of the text. The bytes after them
        # (the old partial group, new rows) are edited decoded and encoded at the end.
        whole = old_length // 3
        boundary = whole * 3
        tail = np.zeros(new_length - boundary, dtype=np.uint8)
        tail[: old_length - boundary] = _decode_at(old, np.arange(boundary, old_length, dtype=np.int64))
        row_starts = self._row_starts(after.num_rows)
        header = np.frombuffer(filter_header(self.nb_hash, self.hash_type, self.vector_size), dtype=np.uint8)
        for start in row_starts[self.num_rows :] - boundary:
            tail[start - FILTER_HEADER.size : start] = header
        out = np.empty(4 * whole + 4 * -(-len(tail) // 3), dtype=np.uint8)
        out[: 4 * whole] = old[: 4 * whole]

        index = np.dtype(np.int32 if 8 * len(out) < 2**31 else np.int64)  # int32: half the memory traffic
        for key_rows, hashes in key_bit_positions(arr, rows, self.nb_hash, self.vector_size):
            row_bits: _Index = (row_starts[key_rows] * 8).astype(index)
            per_batch = max(1, _BATCH // max(1, len(row_bits)))
            pending: list[U32] = []
            for positions in hashes:
                pending.append(positions)
                if len(pending) == per_batch:
                    _set_row_bits(out, tail, boundary, row_bits, pending)
                    pending = []
            if pending:
                _set_row_bits(out, tail, boundary, row_bits, pending)

        # Bytes rewritten whole (the header's counts) or in part (spare bits, which reading clears).
        edits: dict[int, tuple[int, int]] = {}
        if self.filter_type is BloomFilterType.DYNAMIC_V0:
            counts = DYNAMIC_HEADER.pack(self.row_capacity, after.count, after.num_rows)[4:]
            edits.update({_COUNT_OFFSET + i: (0xFF, b) for i, b in enumerate(counts)})
        spare = 8 - self.vector_size % 8
        if spare < 8:
            last = row_starts[: self.num_rows] + (self.vector_size + 7) // 8 - 1
            edits.update(dict.fromkeys(last.tolist(), (0xFF & ~(0xFF >> spare), 0)))
        at = np.fromiter(edits, dtype=np.int64, count=len(edits))
        clear = np.array([c for c, _ in edits.values()], dtype=np.uint8)
        put = np.array([v for _, v in edits.values()], dtype=np.uint8)
        beyond = at >= boundary
        tail[at[beyond] - boundary] &= ~clear[beyond]  # distinct offsets: plain fancy indexing
        tail[at[beyond] - boundary] |= put[beyond]
        _edit_bytes(out, at[~beyond], clear[~beyond], put[~beyond])

        out[4 * whole :] = np.frombuffer(binascii.b2a_base64(tail.tobytes(), newline=False), dtype=np.uint8)
        return replace(self, text=out.tobytes(), current_count=after.count, num_rows=after.num_rows)

    # ------------------------------------------------------------------ as a filter
    def serialize(self) -> str:
        """``serializeToString()``: the text."""
        return self.text.decode("ascii")

    def to_filter(self) -> BloomFilter:
        """The decoded filter (decodes the whole text: for probing, not on the write path)."""
        return BloomFilter.deserialize(self.text, self.filter_type)

    def might_contain(self, keys: KeysLike) -> npt.NDArray[np.bool_]:
        """:meth:`BloomFilter.might_contain` of the decoded filter."""
        return self.to_filter().might_contain(keys)
