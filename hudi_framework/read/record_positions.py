"""Merging by record position (``hoodie.merge.use.record.positions``): which base row each log record updates.

A log block written with positions (:mod:`hudi_framework.write.record_positions`) holds its records
sorted by their base-file row index, encoded in the RECORD_POSITIONS header, and names the base file
by BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS. When every valid block of a slice has positions of
the slice's own base file, each (pre-combined) log record has a base row, and the merge pairs them
by position instead of hashing every base row's key (Apache Hudi's
``PositionBasedFileGroupRecordBuffer``). A block without positions, or with positions of another
base file (written before a compaction), makes the slice merge by key, as Java switches to its
key-based buffer. The pairs are checked on the way: a base row whose key is not its log record's
key sends the rest of the slice to the key-based merge, so a wrong header never changes the rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.arrays import contiguous, from_numpy, to_numpy
from hudi_framework.errors import RecordPositionsError
from hudi_framework.log.blocks import HeaderKey
from hudi_framework.log.record_positions import decode_positions

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["PositionPairs", "SlicePositions", "same_keys"]


@dataclass(slots=True)
class SlicePositions:
    """The record positions of a slice's log blocks, gathered while its blocks are read.

    Attributes:
        base_instant: Instant of the slice's base file: positions of other base files do not count.
    """

    base_instant: str
    _keys: list[pa.Array] = field(default_factory=list)
    _positions: list[npt.NDArray[np.int64]] = field(default_factory=list)
    complete: bool = True

    def add_block(self, header: Mapping[HeaderKey, str], keys: pa.Array | pa.ChunkedArray) -> None:
        """Take the positions of a valid data or delete block whose rows have ``keys`` (block order)."""
        if not self.complete:
            return
        encoded = header.get(HeaderKey.RECORD_POSITIONS)
        if encoded is None or header.get(HeaderKey.BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS) != self.base_instant:
            self.complete = False
            return
        try:
            positions = decode_positions(encoded)
        except RecordPositionsError:
            self.complete = False  # the key-based merge does not need the header
            return
        if len(positions) != len(keys):
            self.complete = False
            return
        self._keys.append(contiguous(keys))
        self._positions.append(positions)

    def of(self, keys: pa.Array | pa.ChunkedArray) -> npt.NDArray[np.int64] | None:
        """The base row of each key (pre-combined log records), None unless every one has a position."""
        if not self.complete or not self._keys:
            return None
        known = pa.chunked_array(self._keys).combine_chunks() if len(self._keys) > 1 else self._keys[0]
        if known.type != keys.type:
            known = known.cast(keys.type)
        found = contiguous(pc.index_in(keys, value_set=known))
        if found.null_count:
            return None
        return np.concatenate(self._positions)[to_numpy(found).astype(np.int64)]


class PositionPairs:
    """Log records by base row: the (base row in batch, log record) pairs of each base batch in turn."""

    def __init__(self, positions: npt.NDArray[np.int64]) -> None:
        self._order = np.argsort(positions, kind="stable")
        self._sorted = positions[self._order]
        self._start = 0

    def next_batch(self, num_rows: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """The pairs of the next ``num_rows`` base rows: (row in the batch ascending, log record)."""
        lo, hi = np.searchsorted(self._sorted, [self._start, self._start + num_rows])
        base_at = self._sorted[lo:hi] - self._start
        self._start += num_rows
        return base_at, self._order[lo:hi]


def same_keys(
    base_keys: pa.Array, log_keys: pa.Array, base_at: npt.NDArray[np.int64], at: npt.NDArray[np.int64]
) -> bool:
    """Whether every paired base row holds its log record's key."""
    if not len(base_at):
        return True
    equal = pc.equal(base_keys.take(from_numpy(base_at)), log_keys.take(from_numpy(at)))
    return bool(equal.null_count == 0 and pc.all(equal).as_py())
