"""Space-filling curve arithmetic over whole columns: bit interleaving (Z-order) and the Hilbert index.

Coordinates are ``uint64`` numpy arrays, one per dimension, each using its low ``bits`` bits. A
curve position has ``bits * dimensions`` bits and is returned as ``uint64`` words, most significant
word first, so ``numpy.lexsort`` over the reversed words orders rows along the curve. Every loop here
runs over bits or dimensions, never over rows.

The bit layout is Apache Hudi's (``BinaryUtil.interleaving``): most significant bits first, and at
each bit level the first dimension's bit before the second's. The Hilbert index is John Skilling's
transform ("Programming the Hilbert curve", 2004), the algorithm of the library Apache Hudi uses
(``org.davidmoten.hilbert``), followed by the same interleaving of the transposed coordinates.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np
import numpy.typing as npt

__all__ = ["WORD_BITS", "hilbert_words", "interleave_words", "order_of_words"]

U64 = npt.NDArray[np.uint64]

#: Bits in one word of a curve position.
WORD_BITS = 64
_ONE = np.uint64(1)
_HILBERT_BLOCK_ROWS = 1 << 15


@cache
def _spread_table(dimensions: int, chunk: int) -> U64:
    """For every ``chunk``-bit value, its bits moved ``dimensions`` apart (bit t to bit ``t * dimensions``)."""
    values = np.arange(1 << chunk, dtype=np.uint64)
    spread = np.zeros(1 << chunk, dtype=np.uint64)
    for t in range(chunk):
        spread |= ((values >> np.uint64(t)) & _ONE) << np.uint64(t * dimensions)
    spread.setflags(write=False)
    return spread


def interleave_words(coordinates: Sequence[U64], bits: int) -> list[U64]:
    """The Z-order position of each row: the coordinates' low ``bits`` bits interleaved, as words.

    Every coordinate must be below ``2 ** bits``.

    Bit ``s`` of dimension ``j`` (of ``d``) lands at bit ``s * d + (d - 1 - j)`` of the position,
    counted from its least significant end: at every level the first dimension is the most
    significant. Spreads ``chunk`` bits at a time through a lookup table.
    """
    dimensions = len(coordinates)
    rows = len(coordinates[0]) if dimensions else 0
    total = bits * dimensions
    words = [np.zeros(rows, dtype=np.uint64) for _ in range(max(1, -(-total // WORD_BITS)))]
    chunk = max(1, min(8, WORD_BITS // dimensions)) if dimensions else 1
    table = _spread_table(dimensions, chunk)
    chunk_mask = np.uint64((1 << chunk) - 1)
    top_spread_bit = (chunk - 1) * dimensions  # highest bit a spread chunk can set
    for j, coordinate in enumerate(coordinates):
        for first in range(0, bits, chunk):
            spread = table[(coordinate >> np.uint64(first)) & chunk_mask]
            position = first * dimensions + (dimensions - 1 - j)
            word, offset = divmod(position, WORD_BITS)
            target = words[len(words) - 1 - word]
            target |= spread << np.uint64(offset)
            if offset and top_spread_bit + offset >= WORD_BITS and word + 1 < len(words):
                words[len(words) - 2 - word] |= spread >> np.uint64(WORD_BITS - offset)
    return words


def hilbert_words(coordinates: Sequence[U64], bits: int) -> list[U64]:
    """The Hilbert-curve position of each row over ``bits``-bit coordinates, as words.

    Skilling's transform turns the coordinates into the transposed Hilbert index in place
    (vectorised: a branch per row becomes a mask), then the index's bits are interleaved exactly as
    for Z-order. Consecutive positions are grid neighbours: that is the curve's defining property.
    """
    x = [np.array(c, dtype=np.uint64, copy=True) for c in coordinates]
    if x and bits > 0:
        # Blocks of rows small enough to stay in cache across the ~10 passes per bit and dimension.
        for start in range(0, len(x[0]), _HILBERT_BLOCK_ROWS):
            _transpose_in_place([c[start : start + _HILBERT_BLOCK_ROWS] for c in x], bits)
    return interleave_words(x, bits)


def _transpose_in_place(x: list[U64], bits: int) -> None:
    """Skilling's ``AxestoTranspose`` over views of the coordinate arrays."""
    dimensions = len(x)
    rows = len(x[0])
    t = np.empty(rows, dtype=np.uint64)
    hit = np.empty(rows, dtype=np.uint64)
    keep = np.empty(rows, dtype=np.uint64)
    # Inverse undo: walk the levels from the most significant, exchanging or inverting lower bits.
    for level in range(bits - 1, 0, -1):
        q = np.uint64(level)
        low = np.uint64((1 << level) - 1)
        for i in range(dimensions):
            # hit: the low bits where bit `level` of x[i] is set, else zero.
            np.right_shift(x[i], q, out=hit)
            np.bitwise_and(hit, _ONE, out=hit)
            np.negative(hit, out=hit)
            np.bitwise_and(hit, low, out=hit)
            if i == 0:
                x[0] ^= hit  # set: invert x[0]'s low bits; clear: nothing to exchange with itself
                continue
            # clear: exchange x[0]'s and x[i]'s low bits (t); set: invert x[0]'s low bits (hit).
            np.bitwise_xor(hit, low, out=keep)
            np.bitwise_xor(x[0], x[i], out=t)
            np.bitwise_and(t, keep, out=t)
            x[i] ^= t
            np.bitwise_xor(hit, t, out=hit)
            x[0] ^= hit
    # Gray encode.
    for i in range(1, dimensions):
        x[i] ^= x[i - 1]
    t.fill(0)
    for level in range(bits - 1, 0, -1):
        np.right_shift(x[dimensions - 1], np.uint64(level), out=hit)
        np.bitwise_and(hit, _ONE, out=hit)
        np.negative(hit, out=hit)
        t ^= hit & np.uint64((1 << level) - 1)
    for i in range(dimensions):
        x[i] ^= t


def order_of_words(words: Sequence[U64], bits: int) -> npt.NDArray[np.int64]:
    """Row indices sorting rows by their ``bits``-bit curve positions (stable: ties keep the input order).

    The position's leading 64 bits nearly always decide: rows are sorted by them alone, then only
    the runs of rows they leave tied are sorted by the whole position.
    """
    leading = words[0]
    used = bits - WORD_BITS * (len(words) - 1)  # bits of the position in the most significant word
    if len(words) > 1 and 0 < used < WORD_BITS:
        leading = (words[0] << np.uint64(WORD_BITS - used)) | (words[1] >> np.uint64(used))
    order = np.argsort(leading, kind="stable").astype(np.int64, copy=False)
    if len(words) == 1 or len(order) < 2:
        return order
    leading = leading[order]
    tied_next = leading[1:] == leading[:-1]
    if not tied_next.any():
        return order
    # Positions (in sorted order) inside a run of equal leading words, and each run's id.
    in_run = np.zeros(len(order), dtype=bool)
    in_run[1:] |= tied_next
    in_run[:-1] |= tied_next
    run_id = np.cumsum(np.concatenate(([True], ~tied_next)))
    positions = np.flatnonzero(in_run)
    rows = order[positions]
    # lexsort's last key is the primary one: the run, then the lower words, then the input order
    # (kept by the stable sort, since rows within a run are in input order already).
    keys = [word[rows] for word in reversed(words[1:])]
    within = np.lexsort([*keys, run_id[positions]])
    order[positions] = rows[within]
    return order
