"""Record-key arrays as raw UTF-8 buffers, and Java's string order on them.

Hashing and range pruning work on the UTF-8 bytes of many keys at once, so this module turns any
Arrow string column into one ``(offsets, data)`` pair of numpy arrays without copying per key.

Apache Hudi compares record keys with Java's ``String.compareTo``, which orders UTF-16 code units.
That differs from UTF-8 byte order (code point order) in one place only: characters above U+FFFF
(surrogate pairs, ``0xD800``-``0xDBFF``) sort *before* U+E000-U+FFFF in UTF-16 but after them in
code point order. Remapping the five 4-byte lead bytes ``F0``-``F4`` below ``EE``/``EF`` makes plain
byte comparison agree with Java; continuation bytes (``80``-``BF``) never take those values, so the
remap is safe on whole buffers. Min/max footers and range pruning both use this order, so files
written here prune correctly in Apache Hudi and vice versa.
"""

from __future__ import annotations

from typing import Final, TypeAlias

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.arrays import contiguous

__all__ = [
    "KeysLike",
    "as_key_array",
    "from_java_order_bytes",
    "in_java_range",
    "java_min_max",
    "java_order_bytes",
    "java_sort_keys",
    "utf8_buffers",
]

#: UTF-8 bytes -> bytes whose lexicographic order is Java's ``String.compareTo`` order.
_TO_JAVA: Final = bytes(
    {0xEE: 0xF3, 0xEF: 0xF4, 0xF0: 0xEE, 0xF1: 0xEF, 0xF2: 0xF0, 0xF3: 0xF1, 0xF4: 0xF2}.get(b, b) for b in range(256)
)
#: The inverse permutation of :data:`_TO_JAVA`.
_FROM_JAVA: Final = bytes(_TO_JAVA.index(b) for b in range(256))

KeysLike: TypeAlias = pa.Array | pa.ChunkedArray | list[str] | tuple[str, ...]
"""Anything accepted as a batch of record keys."""


def as_key_array(keys: KeysLike) -> pa.LargeStringArray:
    """Return ``keys`` as one contiguous ``large_string`` array (zero-copy for the data buffer).

    Raises:
        TypeError: The values are not strings.
    """
    if isinstance(keys, list | tuple):
        arr: pa.Array | pa.ChunkedArray = pa.array(keys, type=pa.large_string())
    else:
        arr = keys
    if isinstance(arr, pa.ChunkedArray):
        arr = contiguous(arr)
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    # A null-typed array is what ``pa.array([])`` gives: no keys, or only nulls.
    accepted = (pa.types.is_string, pa.types.is_large_string, pa.types.is_string_view, pa.types.is_null)
    if not any(check(arr.type) for check in accepted):
        raise TypeError(f"record keys must be strings, got {arr.type}")
    result: pa.LargeStringArray = arr.cast(pa.large_string())
    return result


def utf8_buffers(keys: pa.LargeStringArray) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint8]]:
    """The offsets (``len(keys) + 1``, absolute into ``data``) and UTF-8 data of ``keys``.

    Null slots keep whatever (usually empty) extent Arrow gave them; callers mask nulls.
    """
    buffers = keys.buffers()
    n = len(keys)
    offsets = np.frombuffer(buffers[1], dtype=np.int64, count=keys.offset + n + 1)[keys.offset :]
    data_buf = buffers[2]
    data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else np.zeros(0, dtype=np.uint8)
    return offsets, data


def java_sort_keys(keys: KeysLike) -> pa.LargeBinaryArray:
    """Binary sort keys whose byte order is Java's ``String.compareTo`` order (see module doc)."""
    arr = as_key_array(keys)
    validity, offsets, data_buf = arr.buffers()
    if data_buf is not None and data_buf.size:
        data = np.frombuffer(data_buf, dtype=np.uint8)
        if int(data.max()) >= 0xEE:
            data_buf = pa.py_buffer(np.frombuffer(_TO_JAVA, dtype=np.uint8)[data])
    result: pa.LargeBinaryArray = pa.Array.from_buffers(
        pa.large_binary(), len(arr), [validity, offsets, data_buf], null_count=arr.null_count, offset=arr.offset
    )
    return result


def java_order_bytes(key: str) -> bytes:
    """The sort key of one string (same order as :func:`java_sort_keys`)."""
    return key.encode("utf-8").translate(_TO_JAVA)


def from_java_order_bytes(sort_key: bytes) -> str:
    """Invert :func:`java_order_bytes`."""
    return sort_key.translate(_FROM_JAVA).decode("utf-8")


def java_min_max(keys: KeysLike) -> tuple[str, str] | None:
    """Smallest and largest non-null key in Java's ``String.compareTo`` order; None if there is none."""
    sort_keys = java_sort_keys(keys)
    if sort_keys.null_count == len(sort_keys):
        return None
    bounds = pc.min_max(sort_keys)
    low: bytes = bounds["min"].as_py()
    high: bytes = bounds["max"].as_py()
    return from_java_order_bytes(low), from_java_order_bytes(high)


def in_java_range(keys: KeysLike, low: str | None, high: str | None) -> npt.NDArray[np.bool_]:
    """Which keys lie in ``[low, high]`` in Java's order (a missing bound does not restrict)."""
    sort_keys = java_sort_keys(keys)
    mask = np.ones(len(sort_keys), dtype=np.bool_)
    if low is not None:
        ge = pc.greater_equal(sort_keys, pa.scalar(java_order_bytes(low), pa.large_binary()))
        mask &= ge.fill_null(False).to_numpy(zero_copy_only=False)
    if high is not None:
        le = pc.less_equal(sort_keys, pa.scalar(java_order_bytes(high), pa.large_binary()))
        mask &= le.fill_null(False).to_numpy(zero_copy_only=False)
    return mask
