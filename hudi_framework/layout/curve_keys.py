"""Each sort column's values as unsigned curve coordinates: by value (``direct``) or by rank (``sample``).

A coordinate is a ``uint64`` that orders as the value does (never decreasing in it), so a curve over
coordinates keeps each column's order along its axis. ``direct`` maps every value as Apache Hudi's
``SpaceCurveSortingHelper`` does: integers with the sign bit flipped (Java ``int`` widths in 32 bits,
``long`` in 64), floating point by the IEEE order trick, strings and binaries by their first 8 bytes,
dates and timestamps as milliseconds since the epoch, booleans as 0/1. Where Apache Hudi's mapping
does not keep the order it maps the type so that it does (docs/operations.md, "Sort orders"). Nulls
come first on every axis (Apache Hudi's direct mapping sends most of them to the type's maximum).
``sample`` ranks each value among range boundaries drawn from a sample of the column, as Apache
Hudi's ``RangeSampleSort``, so that every column spans the same number of cells whatever its values.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.errors import UnsupportedSortColumnTypeError

__all__ = ["coordinate_bits", "direct_coordinates", "plain_values", "sample_coordinates", "sortable_values"]

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]

_SIGN64 = np.uint64(1 << 63)
_JAVA_INT_OFFSET = 1 << 31
_MS_PER_DAY = 86_400_000
_MS_PER_UNIT = {"s": None, "ms": 1, "us": 1_000, "ns": 1_000_000}
_INT64_MAX = np.iinfo(np.int64).max
_INT64_MIN = np.iinfo(np.int64).min
#: Decimal digits every unscaled value of which fits in a long.
_LONG_DIGITS = 18
#: Types whose coordinate is the value's leading bytes.
_BYTE_TYPES = (
    pa.types.is_string,
    pa.types.is_large_string,
    pa.types.is_binary,
    pa.types.is_large_binary,
    pa.types.is_fixed_size_binary,
)
#: Bytes of a string or binary value that make its coordinate (Apache Hudi: 8).
_PREFIX_BYTES = 8
#: Apache Hudi samples at most this many rows per boundary asked for, and at most a million rows.
_SAMPLE_ROWS_PER_BOUND = 20
_MAX_SAMPLE_ROWS = 1_000_000
#: Fixed seed: the same rows give the same sample, hence the same order, on every run.
_SAMPLE_SEED = 0x5EED


def plain_values(column: pa.ChunkedArray | pa.Array) -> pa.Array:
    """``column`` as one array of a type pyarrow sorts: dictionaries decoded, half floats and
    32/64-bit decimals widened (losslessly), string and binary views as offset arrays."""
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    if pa.types.is_float16(array.type):
        array = array.cast(pa.float32())
    if pa.types.is_string_view(array.type) or pa.types.is_binary_view(array.type):
        array = array.cast(pa.large_string() if pa.types.is_string_view(array.type) else pa.large_binary())
    if pa.types.is_decimal(array.type) and array.type.byte_width < 16:
        array = array.cast(pa.decimal128(array.type.precision, array.type.scale))
    return array


def sortable_values(column: pa.ChunkedArray | pa.Array, name: str, strategy: str) -> pa.Array:
    """``column`` as one array a curve can map, or the typed error naming it."""
    array = plain_values(column)
    if _mapper(array.type) is None:
        raise UnsupportedSortColumnTypeError(name, str(array.type), strategy)
    return array


def _int64_values(array: pa.Array) -> I64:
    if pa.types.is_temporal(array.type):  # dates and timestamps: their stored integers
        array = array.view(pa.int32() if array.type.bit_width == 32 else pa.int64())
    filled = pc.fill_null(array, 0) if array.null_count else array
    return np.asarray(filled.cast(pa.int64()).to_numpy(zero_copy_only=False), dtype=np.int64)


def _flip_long(values: I64) -> U64:
    """Java ``longTo8Byte``: a signed long with its sign bit flipped orders as an unsigned one."""
    return values.view(np.uint64) ^ _SIGN64


def _java_int(array: pa.Array) -> U64:
    """Java ``intTo8Byte``: an int shifted by 2**31 into the low 32 bits (booleans as 0 and 1, too)."""
    return (_int64_values(array) + _JAVA_INT_OFFSET).view(np.uint64)


def _long(array: pa.Array) -> U64:
    return _flip_long(_int64_values(array))


def _unsigned64(array: pa.Array) -> U64:
    filled = pc.fill_null(array, 0) if array.null_count else array
    return np.asarray(filled.to_numpy(zero_copy_only=False), dtype=np.uint64)


def _boolean(array: pa.Array) -> U64:
    return _java_int(array.cast(pa.int8()))


def _floating(array: pa.Array) -> U64:
    """IEEE order trick: negative numbers inverted, positive ones with the sign bit set; NaN last.

    Apache Hudi's ``doubleTo8Byte`` leaves 0.0 as all zero bits, below every negative number; here
    -0.0 and 0.0 sit between the negative and the positive numbers, and NaN above +inf as in Spark.
    """
    filled = pc.fill_null(array, 0.0) if array.null_count else array
    values = np.asarray(filled.cast(pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64)
    bits = values.view(np.uint64)
    negative = (bits & _SIGN64) != 0
    keys = np.where(negative, ~bits, bits | _SIGN64)
    keys[np.isnan(values)] = np.iinfo(np.uint64).max
    return keys


def _milliseconds(array: pa.Array) -> U64:
    """Dates and timestamps as Java's ``getTime()``: milliseconds since the epoch (UTC instants)."""
    kind = array.type
    if pa.types.is_date32(kind):
        return _flip_long(_int64_values(array) * _MS_PER_DAY)
    values = _int64_values(array)
    if pa.types.is_date64(kind):
        return _flip_long(values)
    per_ms = _MS_PER_UNIT[kind.unit]
    if per_ms is None:  # seconds: clipped so that the multiplication cannot overflow
        return _flip_long(np.clip(values, _INT64_MIN // 1000, _INT64_MAX // 1000) * 1000)
    return _flip_long(values // per_ms)


def _decimal(array: pa.Array) -> U64:
    """Up to 18 digits the unscaled value (the scale is the column's), sign bit flipped; wider
    decimals through the IEEE order of their nearest double.

    Apache Hudi takes ``BigDecimal.longValue()``, which drops the fraction and wraps values beyond
    a long; the unscaled value keeps the fraction's order, and a double keeps the order of values
    up to 38 digits and beyond (equal in their first 15 to 17 digits, they tie).
    """
    if array.type.precision > _LONG_DIGITS:
        return _floating(array.cast(pa.float64()))
    words_per_value = array.type.byte_width // 8
    buffer = array.buffers()[1]
    words = np.frombuffer(buffer, dtype="<i8") if buffer is not None else np.zeros(0, dtype=np.int64)
    unscaled = words.reshape(-1, words_per_value)[array.offset : array.offset + len(array), 0]
    return _flip_long(np.ascontiguousarray(unscaled, dtype=np.int64))


def _prefix(array: pa.Array) -> U64:
    """The first 8 bytes, big-endian, padded with zero bytes on the right: lexicographic order.

    Apache Hudi pads short values on the left (``paddingTo8Byte``), which orders "b" after "ab";
    padding on the right keeps the order of the bytes.
    """
    if pa.types.is_fixed_size_binary(array.type):
        width = array.type.byte_width
        starts = (np.arange(len(array), dtype=np.int64) + array.offset) * width
        lengths = np.full(len(array), width, dtype=np.int64)
        buffer = array.buffers()[1]
    else:
        if not (pa.types.is_large_binary(array.type) or pa.types.is_large_string(array.type)):
            array = array.cast(pa.large_binary())
        offsets = np.frombuffer(array.buffers()[1], dtype=np.int64)[array.offset : array.offset + len(array) + 1]
        starts = offsets[:-1]
        lengths = offsets[1:] - starts
        buffer = array.buffers()[2]
    keys = np.zeros(len(array), dtype=np.uint64)
    if buffer is None or buffer.size == 0:
        return keys
    data = np.frombuffer(buffer, dtype=np.uint8)
    for k in range(_PREFIX_BYTES):
        present = lengths > k
        if not present.any():
            break
        byte = data[np.where(present, starts + k, 0)].astype(np.uint64)
        byte[~present] = 0
        keys |= byte << np.uint64(8 * (_PREFIX_BYTES - 1 - k))
    return keys


def _mapper(kind: pa.DataType) -> Callable[[pa.Array], U64] | None:
    """The direct mapping of an Arrow type, or None when the type has no curve order here."""
    if pa.types.is_boolean(kind):
        return _boolean
    if pa.types.is_int64(kind):
        return _long
    if pa.types.is_uint64(kind):
        return _unsigned64
    if pa.types.is_integer(kind):
        return _java_int
    if pa.types.is_floating(kind):
        return _floating
    if pa.types.is_decimal(kind) and kind.byte_width in (16, 32):
        return _decimal
    if pa.types.is_date(kind) or pa.types.is_timestamp(kind):
        return _milliseconds
    if pa.types.is_time(kind) or pa.types.is_duration(kind):  # no Spark type: their stored integers
        return _long
    if any(is_bytes(kind) for is_bytes in _BYTE_TYPES):
        return _prefix
    if pa.types.is_null(kind):
        return lambda array: np.zeros(len(array), dtype=np.uint64)
    return None


def _nulls_first(keys: U64, array: pa.Array) -> U64:
    """Nulls at 0, every value one above its key (saturating at the top), when the column has nulls."""
    if not array.null_count:
        return keys
    valid = np.asarray(array.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
    top = np.iinfo(np.uint64).max
    shifted = np.where(keys == top, keys, keys + np.uint64(1))
    return np.where(valid, shifted, np.uint64(0))


def direct_coordinates(array: pa.Array) -> U64:
    """Each value's ``direct`` coordinate, its common leading bits dropped.

    Bits that every row shares change no comparison on a Z-order curve (they are the same in every
    position) and only pick a sub-cube of a Hilbert curve, itself a Hilbert curve; dropping them
    keeps the per-bit work to the bits the values actually span.
    """
    mapper = _mapper(array.type)
    assert mapper is not None  # sortable_values checked the type
    keys = _nulls_first(mapper(array), array)
    if len(keys) == 0:
        return keys
    common = int(keys.min()) ^ int(keys.max())
    return keys & np.uint64((1 << common.bit_length()) - 1) if common.bit_length() < 64 else keys


def sample_coordinates(arrays: list[pa.Array], sample_size: int) -> list[U64]:
    """Each column's ``sample`` coordinates: ranks among boundaries drawn from a sample of the rows.

    As Apache Hudi: up to ``min(20 * sample_size, 1,000,000)`` rows are sampled (the same rows for
    every column, drawn with a fixed seed so the order is deterministic), each column's sampled
    values give up to ``sample_size - 1`` distinct boundaries at equal steps, a value's rank is the
    number of boundaries below it, and the ranks of a column with fewer boundaries than the others
    are spread by the ratio so every axis spans the same range. Apache Hudi also adds a random offset
    within that spread; this order stays deterministic instead. Nulls rank first.
    """
    rows = len(arrays[0])
    wanted = min(rows, _SAMPLE_ROWS_PER_BOUND * sample_size, _MAX_SAMPLE_ROWS)
    if wanted < rows:
        picked = np.sort(np.random.default_rng(_SAMPLE_SEED).choice(rows, wanted, replace=False))
    else:
        picked = np.arange(rows)
    ranks: list[U64] = []
    for array in arrays:
        if array.null_count == len(array):  # nothing to rank (also the null type, which pyarrow cannot)
            ranks.append(np.zeros(rows, dtype=np.uint64))
            continue
        # A dense rank orders every type pyarrow sorts, strings on all their bytes.
        dense = np.asarray(
            pc.rank(array, sort_keys="ascending", tiebreaker="dense").to_numpy(zero_copy_only=False), dtype=np.int64
        )
        valid = np.asarray(array.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        top = int(dense.max())
        # The sample as counts per dense rank: its sorted order without sorting it.
        cumulative = np.cumsum(np.bincount(dense[picked][valid[picked]], minlength=top + 1))
        bounds = _boundaries(cumulative, min(sample_size, int(cumulative[-1])))
        # Boundaries below each dense rank, for every dense rank at once: a cumulative count.
        below = np.zeros(top + 2, dtype=np.uint64)
        below[bounds + 1] = 1
        rank = np.cumsum(below, dtype=np.uint64)[dense]
        ranks.append(np.where(valid, rank + np.uint64(1), np.uint64(0)) if array.null_count else rank)
    widest = max(int(r.max()) if len(r) else 0 for r in ranks)
    spread: list[U64] = []
    for rank in ranks:
        top = int(rank.max()) if len(rank) else 0
        factor = widest // top if top else 1
        spread.append(rank * np.uint64(factor) if factor > 1 else rank)
    return spread


def _boundaries(cumulative: I64, partitions: int) -> I64:
    """Up to ``partitions - 1`` distinct sampled values at equal steps of the sample's weight.

    ``cumulative[v]`` counts the sampled values up to ``v``; the value at sorted position ``p`` is
    the first ``v`` whose count exceeds ``p``.
    """
    total = int(cumulative[-1]) if len(cumulative) else 0
    if partitions <= 1 or total == 0:
        return np.zeros(0, dtype=np.int64)
    step = total / partitions
    positions = np.clip(np.ceil(step * np.arange(1, partitions)).astype(np.int64) - 1, 0, total - 1)
    values = np.searchsorted(cumulative, positions, side="right")  # ascending: duplicates adjacent
    return np.asarray(values[np.concatenate(([True], values[1:] != values[:-1]))], dtype=np.int64)


def coordinate_bits(coordinates: list[U64]) -> int:
    """Bits per dimension that hold every coordinate (at least 1)."""
    widest = max((int(c.max()) for c in coordinates if len(c)), default=0)
    return max(1, widest.bit_length())
