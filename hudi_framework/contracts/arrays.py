"""Numpy vectors and Python values to Arrow and back through buffers, skipping pyarrow's pandas probe.

``pa.array``, ``pa.scalar`` and ``Array.to_numpy`` first ask pyarrow's pandas shim whether the value is
a pandas object, and the first such question imports pandas: about 0.45 s of CPU, paid by every
merged read in a fresh process although no pandas object is ever involved. Building arrays from
buffers (and reading numpy views of them) is exact, copies nothing for numeric data, and never asks.
Hot merge-on-read paths use these helpers; anything else may still use pyarrow's own conversions.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa

__all__ = [
    "bitmap_bools",
    "contiguous",
    "from_numpy",
    "indices",
    "python_array",
    "repeated_dictionary",
    "repeated_string",
    "string_array",
    "to_numpy",
]

#: Arrow types of the numpy dtypes that convert zero-copy, by dtype name.
_TYPES: Final = MappingProxyType(
    {
        "bool": pa.bool_(),
        "int8": pa.int8(),
        "int16": pa.int16(),
        "int32": pa.int32(),
        "int64": pa.int64(),
        "uint8": pa.uint8(),
        "uint16": pa.uint16(),
        "uint32": pa.uint32(),
        "uint64": pa.uint64(),
        "float32": pa.float32(),
        "float64": pa.float64(),
    }
)

#: numpy dtypes by Arrow type id, for reading data buffers.
_DTYPES: Final = MappingProxyType({t.id: np.dtype(name) for name, t in _TYPES.items()})


def from_numpy(
    values: npt.NDArray[Any], type: pa.DataType | None = None, *, valid: npt.NDArray[np.bool_] | None = None
) -> pa.Array:
    """A one-dimensional boolean or numeric numpy vector as an Arrow array.

    Args:
        values: The vector.
        type: The Arrow type; by default the vector's own (``pa.array``'s inference). Must have the
            vector's width (``int64`` data for a ``timestamp('us')``, say).
        valid: Per value, whether it is set; None when all are.

    Raises:
        TypeError: A dtype without an Arrow equivalent (objects, strings): use ``pa.array``.
    """
    name = values.dtype.name
    own = _TYPES.get(name)
    if own is None:
        raise TypeError(f"no zero-copy Arrow type for numpy dtype {name}")
    target = own if type is None else type
    data = np.packbits(values, bitorder="little") if name == "bool" else np.ascontiguousarray(values)
    bitmap = None if valid is None or valid.all() else pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.Array.from_buffers(target, len(values), [bitmap, pa.py_buffer(data)])


def indices(values: npt.NDArray[Any]) -> pa.Array:
    """Row positions (any integer vector) as an ``int64`` Arrow array for ``take``."""
    return from_numpy(np.asarray(values, dtype=np.int64))


def repeated_string(value: str, length: int) -> pa.Array:
    """``length`` copies of ``value`` as a ``string`` array (``pa.scalar`` would probe pandas too)."""
    data = value.encode()
    offsets = np.arange(length + 1, dtype=np.int32) * np.int32(len(data))
    return pa.Array.from_buffers(pa.string(), length, [None, pa.py_buffer(offsets), pa.py_buffer(data * length)])


def repeated_dictionary(value: str, length: int) -> pa.DictionaryArray:
    """``length`` copies of ``value`` as ``dictionary<int32, string>``: one dictionary entry, zero indices.

    A file-wide value (a base file's name) written so spares the Parquet writer hashing every row;
    the file holds the same dictionary-encoded UTF8 column as from plain strings.
    """
    return pa.DictionaryArray.from_arrays(from_numpy(np.zeros(length, np.int32)), repeated_string(value, 1))


def string_array(values: Sequence[str | None]) -> pa.Array:
    """Python strings (None for null) as a ``string`` array, built from buffers."""
    encoded = [b"" if v is None else v.encode() for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)), out=offsets[1:])
    valid = np.fromiter((v is not None for v in values), dtype=np.bool_, count=len(values))
    bitmap = None if valid.all() else pa.py_buffer(np.packbits(valid, bitorder="little"))
    buffers = [bitmap, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    return pa.Array.from_buffers(pa.large_string(), len(encoded), buffers).cast(pa.string())


def python_array(values: Sequence[object]) -> pa.Array:
    """Python values as Arrow, as ``pa.array(values)`` infers them; built from buffers when all are
    ``int``, ``float`` or ``str`` (or None), through ``pa.array`` otherwise."""
    kinds = {type(v) for v in values if v is not None}
    valid = np.fromiter((v is not None for v in values), dtype=np.bool_, count=len(values))
    try:
        if kinds == {int}:
            return from_numpy(np.array([0 if v is None else v for v in values], dtype=np.int64), valid=valid)
        if kinds == {float}:
            return from_numpy(np.array([0.0 if v is None else v for v in values], dtype=np.float64), valid=valid)
    except OverflowError:
        pass  # beyond int64: pa.array decides (uint64, or an error), as before
    if kinds == {str}:
        return string_array([v if isinstance(v, str) else None for v in values])
    return pa.array(values)


def contiguous(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """``values`` as one array: the only chunk as it is, several concatenated.

    ``ChunkedArray.combine_chunks`` copies even a single chunk (a whole base file column, for a
    gather of a tenth of its rows).
    """
    if isinstance(values, pa.Array):
        return values
    if values.num_chunks == 1:
        return values.chunk(0)
    return values.combine_chunks() if values.num_chunks else pa.nulls(0, values.type)


def to_numpy(values: pa.Array | pa.ChunkedArray, *, null: int | None = None) -> npt.NDArray[Any]:
    """A boolean or numeric Arrow column as a numpy vector, read from its data buffer.

    Args:
        values: The column.
        null: Integer columns: the value nulls read as. Without it, columns with nulls (and other
            types) go through Arrow's ``to_numpy``.
    """
    dtype = _DTYPES.get(values.type.id)
    if isinstance(values, pa.ChunkedArray):
        if not values.num_chunks and dtype is not None:
            return np.zeros(0, dtype=dtype)  # combine_chunks() of no chunks goes through pa.array
        values = contiguous(values)
    n, offset = len(values), values.offset
    nulls = values.null_count
    if dtype is None or (nulls and (null is None or dtype == np.bool_)):
        return np.asarray(values.to_numpy(zero_copy_only=False))
    validity, data = values.buffers()[:2]
    if data is None or not n:
        return np.zeros(0, dtype=dtype)
    if dtype == np.bool_:
        return bitmap_bools(data, offset, n)
    out = np.frombuffer(data, dtype=dtype, count=offset + n)[offset:]
    if nulls and validity is not None:
        out = out.copy()
        out[~bitmap_bools(validity, offset, n)] = null
    return out


def bitmap_bools(buffer: pa.Buffer, offset: int, n: int) -> npt.NDArray[np.bool_]:
    """Bits ``offset`` to ``offset + n`` of an Arrow bitmap (validity or boolean data) as booleans."""
    bits = np.frombuffer(buffer, dtype=np.uint8)
    return np.unpackbits(bits, count=offset + n, bitorder="little")[offset:].view(np.bool_)
