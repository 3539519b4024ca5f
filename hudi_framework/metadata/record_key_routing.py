"""Which ``record_index`` file group a record key lives in: Java's ``mapRecordKeyToFileGroupIndex``
(``String.hashCode`` of the key, its absolute value, modulo the number of file groups), vectorised
over an Arrow array of keys."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["record_index_file_group", "record_index_file_groups"]


def record_index_file_group(record_key: str, file_groups: int) -> int:
    """The record-index file group a key lives in (Java ``mapRecordKeyToFileGroupIndex``)."""
    return int(record_index_file_groups(pa.array([record_key], pa.string()), file_groups)[0])


def record_index_file_groups(keys: pa.Array, file_groups: int) -> np.ndarray[Any, np.dtype[np.int64]]:
    """Java ``mapRecordKeyToFileGroupIndex`` of each key: ``String.hashCode`` (31-polynomial over
    UTF-16 code units, 32-bit wrap-around), its absolute value, modulo the number of file groups.

    Vectorised over keys: one numpy step per character position, not per key.
    """
    units, lengths = _utf16_units(keys)
    n = len(lengths)
    longest = int(lengths.max()) if n else 0
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]) if n else np.zeros(0, dtype=np.int64)
    if n * longest <= 4 * len(units) + 64:
        # Keys right-aligned in a zero-padded grid: leading zero units leave the hash at 0, so every
        # key is hashed by the same column steps (uint32 arithmetic wraps as Java's int does).
        grid = np.zeros((n, longest), dtype=np.uint32)
        rows = np.repeat(np.arange(n, dtype=np.int64), lengths)
        columns = np.arange(len(units), dtype=np.int64) + np.repeat(longest - lengths - starts, lengths)
        grid[rows, columns] = units
        h32 = np.zeros(n, dtype=np.uint32)
        for pos in range(longest):
            h32 = h32 * np.uint32(31) + grid[:, pos]
        signed = h32.view(np.int32).astype(np.int64)
    else:  # a few long keys among short ones: step only the keys still running
        h = np.zeros(n, dtype=np.int64)
        for pos in range(longest):
            live = lengths > pos
            h[live] = (h[live] * 31 + units[starts[live] + pos]) & 0xFFFFFFFF
        signed = np.where(h >= 1 << 31, h - (1 << 32), h)
    # Math.abs(Math.abs(h) % n): |Integer.MIN_VALUE| stays negative in Java, and the outer abs fixes it.
    return np.abs(signed) % file_groups


def _utf16_units(keys: pa.Array) -> tuple[np.ndarray[Any, np.dtype[np.int64]], np.ndarray[Any, np.dtype[np.int64]]]:
    """The UTF-16 code units of every key, concatenated, and the number of units per key."""
    encoded = (
        pc.cast(keys, pa.string()).combine_chunks() if isinstance(keys, pa.ChunkedArray) else keys.cast(pa.string())
    )
    encoded = pc.fill_null(encoded, "")
    lengths = pc.binary_length(encoded).to_numpy(zero_copy_only=False).astype(np.int64)
    offsets = np.frombuffer(encoded.buffers()[1], dtype=np.int32)[encoded.offset : encoded.offset + len(encoded) + 1]
    values = encoded.buffers()[2]
    data = (
        np.frombuffer(values, dtype=np.uint8)[offsets[0] : offsets[-1]] if values is not None else np.zeros(0, np.uint8)
    )
    if not data.size or int(data.max()) < 0x80:
        return data.astype(np.int64), lengths  # ASCII: one unit per byte (the common case)
    # Other text: Python's UTF-16 encoder per key.
    per_key = [np.frombuffer(k.encode("utf-16-be"), dtype=">u2").astype(np.int64) for k in encoded.to_pylist()]
    counts = np.array([len(u) for u in per_key], dtype=np.int64)
    return (np.concatenate(per_key) if per_key else np.zeros(0, np.int64)), counts
