"""Vectorised location of every cell of an HFile data block (keyed lookups in large blocks).

A data block is a chain of cells ``keyLength(4) valueLength(4) key value [mvcc vlong]``: where a
cell starts depends on every cell before it, so a plain walk takes one Python step per cell. Hudi's
cells have a recognisable head, though: the key is ``rowLength(2) row family(1)=0 timestamp(8)
keyType(1)`` (empty family and qualifier), so ``keyLength == rowLength + 12``, and the lengths are
small (high bytes 0: record keys under 256 bytes, values under 16 MiB). This module

1. finds every byte offset whose bytes look like such a head (numpy over the whole block),
2. computes where the next cell would start from each candidate,
3. keeps the candidates reachable from offset 0 along that chain (pointer doubling: log(cells)
   array steps), and accepts the result only if the chain ends exactly at the block's end.

A candidate inside a value (bytes that happen to look like a head) is not on the chain from 0 and
drops out. Anything that does not check out (keys with a family or qualifier, a damaged block)
returns None: the caller then steps through the cells one by one, which names the damage. The
scan costs a few array passes over the block's bytes plus a few per cell, not a Python step per
cell (about 2.5x faster than the walk on a 1 MiB block of 11,500 record-index cells).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import pyarrow as pa

__all__ = ["BlockCells", "block_cells", "gather_binary"]

_I64 = np.ndarray[Any, np.dtype[np.int64]]
_U8 = np.ndarray[Any, np.dtype[np.uint8]]
#: keyLength(4) + valueLength(4).
_LENGTHS: Final = 8
#: rowLength(2) + family length(1) + timestamp(8) + keyType(1): a plain key's bytes besides its row.
_PLAIN_KEY_EXTRA: Final = 12
#: First byte of a one-byte Hadoop vlong is at or above this (as unsigned), or below 0x80.
_ONE_BYTE_VLONG: Final = 0x100 - 112


@dataclass(frozen=True, slots=True)
class BlockCells:
    """Where the cells of a data block are, in block (= key) order.

    Attributes:
        row_starts: Offset of each cell's row key in the block.
        row_lengths: Length of each row key.
        value_starts: Offset of each cell's value in the block.
        value_lengths: Length of each cell's value.
    """

    row_starts: _I64
    row_lengths: _I64
    value_starts: _I64
    value_lengths: _I64

    def find(self, payload: bytes, rows: Sequence[bytes]) -> Iterator[tuple[bytes, bytes]]:
        """The (row, value) of each of ``rows`` (ascending) the block holds, in order: a binary
        search per row over the cells (sorted by row), comparing the row bytes in place."""
        starts = self.row_starts.tolist()
        ends = (self.row_starts + self.row_lengths).tolist()
        count = len(starts)
        low = 0
        for row in rows:
            at = bisect.bisect_left(range(count), row, low, key=lambda i: payload[starts[i] : ends[i]])
            if at < count and payload[starts[at] : ends[at]] == row:
                start = int(self.value_starts[at])
                yield row, payload[start : start + int(self.value_lengths[at])]
                low = at + 1
            else:
                low = at

    def rows(self, payload: bytes) -> pa.BinaryArray:
        """Every cell's row key, as one Arrow array (gathered from the block with array operations)."""
        return gather_binary(payload, self.row_starts, self.row_lengths)

    def values(self, payload: bytes, cells: _I64) -> pa.BinaryArray:
        """The values of the cells at ``cells`` (indexes, ascending), as one Arrow array."""
        return gather_binary(payload, self.value_starts[cells], self.value_lengths[cells])

    def with_prefixes(self, payload: bytes, prefixes: Sequence[bytes]) -> Iterator[tuple[bytes, bytes]]:
        """The (row, value) of every cell whose row starts with one of ``prefixes`` (ascending,
        none a prefix of another), in order: each prefix's run of cells found by binary search."""
        starts = self.row_starts.tolist()
        ends = (self.row_starts + self.row_lengths).tolist()
        count = len(starts)
        low = 0
        for prefix in prefixes:
            width = len(prefix)
            at = bisect.bisect_left(range(count), prefix, low, key=lambda i: payload[starts[i] : ends[i]])
            while at < count and payload[starts[at] : min(ends[at], starts[at] + width)] == prefix:
                start = int(self.value_starts[at])
                yield payload[starts[at] : ends[at]], payload[start : start + int(self.value_lengths[at])]
                at += 1
            low = at


def gather_binary(payload: bytes, starts: _I64, lengths: _I64) -> pa.BinaryArray:
    """The byte ranges ``payload[starts[i] : starts[i] + lengths[i]]`` as an Arrow binary array,
    copied in one gather (rows of equal length, as record keys of one writer often are: one strided take)."""
    count = len(starts)
    offsets = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    u8 = np.frombuffer(payload, dtype=np.uint8)
    width = int(lengths[0]) if count else 0
    if count and width and int(lengths.min()) == int(lengths.max()) == width:
        data = _every(payload, f"S{width}")[starts].view(np.uint8)
    elif not width and count and int(lengths.max()) == 0:
        data = np.empty(0, dtype=np.uint8)
    else:
        data = u8[np.repeat(starts - offsets[:-1], lengths) + np.arange(int(offsets[-1]), dtype=np.int64)]
    buffers = [None, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(data)]
    out: pa.BinaryArray = pa.Array.from_buffers(pa.binary(), count, buffers)
    return out


def _every(payload: bytes, dtype: str) -> np.ndarray[Any, Any]:
    """A ``dtype`` value starting at every byte offset of ``payload`` (a strided view, no copy)."""
    width = np.dtype(dtype).itemsize
    return np.ndarray((len(payload) - width + 1,), dtype=dtype, buffer=payload, strides=(1,))


def block_cells(payload: bytes, with_mvcc: bool, scratch: _U8 | None = None) -> BlockCells | None:
    """Every cell of the data block ``payload``, or None when its cells are not all plain Hudi
    cells chained exactly to the block's end (then walk the block cell by cell).

    ``scratch`` (at least as long as the block) holds the pass over every byte: a caller scanning
    many blocks passes one, sparing a fresh block-sized array per block (about half the pass).
    """
    size = len(payload)
    span = size - _LENGTHS - 2  # offsets where both lengths and the row length fit
    if span <= 0:
        return None
    u8 = np.frombuffer(payload, dtype=np.uint8)
    diff = scratch[:span] if scratch is not None and len(scratch) >= span else np.empty(span, dtype=np.uint8)
    # Key lengths are below 64 KiB (the row length is 2 bytes), values below 16 MiB in any MDT
    # record and record keys below 256 bytes: a cell head has zero high bytes there; and the key
    # length's low byte is the row length's plus 12 (modulo 256). Together these leave few offsets
    # besides the cells' own. (A longer key breaks the chain: that block is walked instead.) The
    # low-byte test alone already leaves few: it is the one pass over every byte, the zero bytes
    # are checked at its candidates only.
    np.subtract(u8[3 : span + 3], u8[_LENGTHS + 1 : span + _LENGTHS + 1], out=diff)
    head = diff.view(np.bool_)
    np.equal(diff, _PLAIN_KEY_EXTRA, out=head)  # in place: each byte read before it is written
    at = np.flatnonzero(head)
    at = at[(u8[at] == 0) & (u8[at + 1] == 0) & (u8[at + 4] == 0) & (u8[at + _LENGTHS] == 0)].astype(np.int64)
    u16 = _every(payload, ">u2")
    key_length = u16[at + 2].astype(np.int64)
    value_length = _every(payload, ">u4")[at + 4].astype(np.int64)
    row_length = u16[at + _LENGTHS].astype(np.int64)
    end = at + _LENGTHS + key_length + value_length
    fits = (key_length == row_length + _PLAIN_KEY_EXTRA) & (end <= size)
    family_at = np.minimum(at + _LENGTHS + 2 + row_length, size - 1)
    fits &= u8[family_at] == 0
    at, end, row_length, value_length = at[fits], end[fits], row_length[fits], value_length[fits]
    if not len(at) or at[0] != 0:
        return None
    if with_mvcc:
        inside = end < size
        first = np.where(inside, u8[np.minimum(end, size - 1)].astype(np.int64), 0)
        signed = np.where(first > 127, first - 256, first)
        width = np.where(signed >= -112, 1, np.where(signed >= -120, -111 - signed, -119 - signed))
        end = np.where(inside, end + width, size + 1)  # a cell cut off before its version: no chain
    chain = _chain_from_start(at, end, size)
    if chain is None:
        return None
    at, row_length, value_length = at[chain], row_length[chain], value_length[chain]
    return BlockCells(
        row_starts=at + _LENGTHS + 2,
        row_lengths=row_length,
        value_starts=at + _LENGTHS + row_length + _PLAIN_KEY_EXTRA,
        value_lengths=value_length,
    )


def _chain_from_start(at: _I64, nxt: _I64, size: int) -> _I64 | None:
    """Indexes (into ``at``) of the cells on the chain from ``at[0]``, when it ends at ``size``."""
    count = len(at)
    if count and int(nxt[-1]) == size and np.array_equal(nxt[:-1], at[1:]):
        return np.arange(count, dtype=np.int64)  # every candidate is a cell: the common case
    where = np.searchsorted(at, nxt)
    hit = where < count
    hit[hit] = at[where[hit]] == nxt[hit]
    # Nodes 0..count-1 are candidates, count is the block's end, count + 1 a dead end.
    step = np.where(hit, where, np.where(nxt == size, count, count + 1))
    if np.array_equal(step, np.arange(1, count + 1)):
        return np.arange(count, dtype=np.int64)  # every candidate is a cell: the common case
    step = np.concatenate([step, [count, count + 1]])
    jumps = [step]
    while (1 << len(jumps)) <= count + 1:
        jumps.append(jumps[-1][jumps[-1]])
    # Every node within 2**len(jumps) - 1 steps of node 0: add the jumps from the longest down.
    # Distinct distances along one forward chain are distinct nodes, except the end and the dead
    # end, which step to themselves: no de-duplication needed on the way.
    reached = np.zeros(1, dtype=np.int64)
    for jump in reversed(jumps):
        reached = np.concatenate([reached, jump[reached]])
    if (reached == count + 1).any() or not (reached == count).any():
        return None  # a dead end, or the block's end never reached
    return np.sort(reached[reached < count])
