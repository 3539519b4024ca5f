"""Interleave a base batch with merged rows: the columns of a merged file slice, each built in one pass.

A merged file slice keeps its base rows in file order, each matched one replaced in place by its merge
result and deleted ones dropped: a gather over *base rows followed by merged rows*.
``ChunkedArray.take`` over ``base ++ merged`` gives it, at several times the memory traffic of the
result: it concatenates the chunks first (a copy of the whole base column), and its string kernel
sizes the output from the mean value length of that concatenation. The merged side holds every log
row of the slice, delete rows (all null) and rows that lost their merge among them, so that mean
undershoots and the output buffer is reallocated at twice the size. In a fresh process every large
buffer is new memory to fault in; that was most of what a merge-on-read snapshot read cost beyond
decoding its base files.

So the output rows drawn from the merged side are gathered first (a small take), and then:

* fixed-width columns (numbers, timestamps, booleans) are built by numpy, at their exact size, in
  numpy's memory: one gather from the base values, one scatter of the merged values. (Taking them
  from Arrow's pool instead measured worse in fresh processes: its allocator gives large freed
  blocks back to the system, and the next ones fault in again, often as 2 MiB pages.)
* other columns (strings, nested, dictionary) go through Arrow's take over ``base ++ merged rows
  used``, whose mean value length is then that of the output's own sources.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from hudi_framework.merge.numpy_arrow import bitmap_bools, contiguous
from hudi_framework.merge.numpy_arrow import indices as positions

__all__ = ["interleave"]

_I64 = npt.NDArray[np.int64]
_Bools = npt.NDArray[np.bool_]

#: numpy dtypes that move fixed-width values of each byte width (only the bytes matter).
_ITEMS: Final[dict[int, np.dtype[Any]]] = {
    1: np.dtype(np.uint8),
    2: np.dtype(np.uint16),
    4: np.dtype(np.uint32),
    8: np.dtype(np.uint64),
}


@dataclass(frozen=True, slots=True)
class _Plan:
    """Where each output row comes from, shared by the columns of a batch.

    Attributes:
        base_source: Per output row its base row; 0 for rows from the merged side (overwritten).
        merged_at: Output rows taken from the merged side, ascending.
        merged_source: Their merged rows.
        gathered: Per output row its position in ``base ++ merged rows used`` (rows ``merged_source``
            in this order).
    """

    base_source: _I64
    merged_at: _I64
    merged_source: _I64
    gathered: pa.Array


def interleave(base: pa.Table, merged: pa.Table, indices: _I64) -> pa.Table:
    """Rows ``indices`` of the base rows followed by the merged rows, in ``base``'s schema.

    Args:
        base: The base rows.
        merged: The merged rows, in ``base``'s schema.
        indices: Per output row, a base row (below ``base.num_rows``) or ``base.num_rows`` plus a merged row.

    Returns:
        What ``pa.chunked_array(base ++ merged).take(indices)`` gives for every column, as one chunk each.
    """
    num_base = base.num_rows
    from_merged = indices >= num_base
    merged_at = np.flatnonzero(from_merged)
    base_source = np.where(from_merged, 0, indices)
    gathered = base_source.copy()
    gathered[merged_at] = num_base + np.arange(len(merged_at), dtype=np.int64)
    plan = _Plan(base_source, merged_at, indices[merged_at] - num_base, positions(gathered))
    used = merged.take(positions(plan.merged_source))
    columns = [_column(contiguous(b), contiguous(u), plan) for b, u in zip(base.columns, used.columns, strict=True)]
    return pa.Table.from_arrays(columns, schema=base.schema)


def _column(base: pa.Array, used: pa.Array, plan: _Plan) -> pa.Array:
    t = base.type
    if pa.types.is_boolean(t):
        return _bits_column(base, used, plan)
    if _item_width(t) in _ITEMS:
        return _fixed_column(base, used, plan)
    return contiguous(pa.chunked_array([base, used], type=t).take(plan.gathered))


def _item_width(t: pa.DataType) -> int:
    """Bytes per value of a primitive type laid out as validity plus one data buffer; 0 for others."""
    if pa.types.is_dictionary(t) or isinstance(t, pa.ExtensionType) or t.num_fields or t.num_buffers != 2:
        return 0
    try:
        bits = t.bit_width
    except ValueError:
        return 0
    return bits // 8 if bits % 8 == 0 else 0


def _valid(array: pa.Array) -> _Bools | None:
    """Per value whether it is set; None when all are."""
    if not array.null_count:
        return None
    return bitmap_bools(array.buffers()[0], array.offset, len(array))


def _validity(base: pa.Array, used: pa.Array, plan: _Plan) -> pa.Buffer | None:
    """The output's validity bitmap; None when every output value is set."""
    base_valid, used_valid = _valid(base), _valid(used)
    if base_valid is None and used_valid is None:
        return None
    n = len(plan.base_source)
    out = np.ones(n, dtype=np.bool_) if base_valid is None else base_valid[plan.base_source]
    out[plan.merged_at] = True if used_valid is None else used_valid
    return None if out.all() else pa.py_buffer(np.packbits(out, bitorder="little"))


def _values(array: pa.Array, dtype: np.dtype[Any]) -> npt.NDArray[Any]:
    """A fixed-width array's data buffer as numpy items, its offset applied."""
    data = array.buffers()[1]
    n, offset = len(array), array.offset
    if data is None or not n:
        return np.zeros(n, dtype=dtype)
    return np.frombuffer(data, dtype=dtype, count=offset + n)[offset:]


def _fixed_column(base: pa.Array, used: pa.Array, plan: _Plan) -> pa.Array:
    dtype = _ITEMS[_item_width(base.type)]
    n = len(plan.base_source)
    out = _values(base, dtype)[plan.base_source] if len(base) else np.zeros(n, dtype=dtype)
    out[plan.merged_at] = _values(used, dtype)
    return pa.Array.from_buffers(base.type, n, [_validity(base, used, plan), pa.py_buffer(out)])


def _bits_column(base: pa.Array, used: pa.Array, plan: _Plan) -> pa.Array:
    def flags(array: pa.Array) -> _Bools:
        data = array.buffers()[1]
        return np.zeros(len(array), dtype=np.bool_) if data is None else bitmap_bools(data, array.offset, len(array))

    n = len(plan.base_source)
    out = flags(base)[plan.base_source] if len(base) else np.zeros(n, dtype=np.bool_)
    out[plan.merged_at] = flags(used)
    data = pa.py_buffer(np.packbits(out, bitorder="little"))
    return pa.Array.from_buffers(base.type, n, [_validity(base, used, plan), data])
