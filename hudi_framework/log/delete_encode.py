"""DELETE block content (version 3) encoded from Arrow columns, without a Python object per record.

The datum is the ``HoodieDeleteRecordList`` of :func:`~hudi_framework.log.delete_records.delete_list_schema`:
one array block (a zigzag ``long`` count, the items, a zero count), every item three union fields,
``recordKey: [null, string]``, ``partitionPath: [null, string]`` and ``orderingVal``, whose branch
``i + 1`` is the scalar wrapper ``SCALAR_ORDERING_TYPES[i]`` holding the value alone. Each item is
thus a flat record, encoded for all rows at once by
:func:`~hudi_framework.log.avro_vector_encode.encode_flat_items`. The bytes are those of the
reference encoder (:func:`~hudi_framework.log.delete_records.encode_delete_content`, fastavro),
which the tests check.
"""

from __future__ import annotations

import struct
from typing import Final

import pyarrow as pa

from hudi_framework.errors import LogBlockEncodeError
from hudi_framework.log.avro_flat_schema import FlatField
from hudi_framework.log.avro_vector_encode import encode_flat_items
from hudi_framework.log.delete_columns import ORDERING_ARROW_TYPES, DeleteColumns
from hudi_framework.log.delete_records import (
    DELETE_CONTENT_VERSION,
    SCALAR_ORDERING_TYPES,
    WRAPPED_AVRO_TYPES,
)

__all__ = ["encode_delete_columns"]

_HEAD = struct.Struct(">ii")
#: ``[null, string]`` union fields: null is branch 0.
_NULLABLE_STRING: Final = FlatField("string", 0, 0)


def encode_delete_columns(columns: DeleteColumns) -> bytes:
    """The DELETE block content of ``columns``.

    Raises:
        LogBlockEncodeError: The columns hold no ordering column (their records hold the values),
            or the column does not have its wrapper's Arrow type.
    """
    values = columns.ordering_values
    if values is None:
        raise LogBlockEncodeError("delete columns without an ordering column are encoded from their records")
    t = columns.ordering_type
    n = len(columns)
    if t is None:
        # No entry has an ordering value: every union is branch 0 (null) and no value follows.
        ordering = FlatField("int", 0, 0, branch=1)
        values = pa.nulls(n, pa.int32())
    else:
        if values.type != ORDERING_ARROW_TYPES[t]:
            raise LogBlockEncodeError(f"{t.name} ordering values must be {ORDERING_ARROW_TYPES[t]}, not {values.type}")
        ordering = FlatField(WRAPPED_AVRO_TYPES[t], 0, 0, branch=SCALAR_ORDERING_TYPES.index(t) + 1)
    fields = [_NULLABLE_STRING, _NULLABLE_STRING, ordering]
    items = encode_flat_items([columns.record_keys, columns.partition_paths, values], fields)
    # One array block of n items (fastavro writes no block for an empty list), then the end marker.
    body = (_zigzag_varint(n) + items if n else b"") + b"\x00"
    return _HEAD.pack(DELETE_CONTENT_VERSION, len(body)) + body


def _zigzag_varint(value: int) -> bytes:
    z = (value << 1) ^ (value >> 63)
    out = bytearray()
    while z > 0x7F:
        out.append((z & 0x7F) | 0x80)
        z >>= 7
    out.append(z)
    return bytes(out)
