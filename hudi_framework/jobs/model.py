"""The rows a job expects the table to hold, kept in step with its writes, and a content checksum.

The model applies each batch with the semantics of the write operation on a copy-on-write table,
assuming what the job's data guarantees: inserted keys are new, updates carry a later ordering value
and keep their partition, and deleted keys are sampled from the live rows.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.arrays import repeated_string
from hudi_framework.vocabulary import WriteOperation

__all__ = ["ExpectedTable", "content_checksum", "joined_keys"]

#: Joins the fields of a composite key; a control character no generated or typical value holds.
_SEPARATOR = "\x1f"


def joined_keys(rows: pa.Table, fields: Sequence[str]) -> pa.ChunkedArray | pa.Array:
    """One string per row joining ``fields`` (all rows get ``""`` when ``fields`` is empty)."""
    if not fields:
        return repeated_string("", rows.num_rows)
    parts = [pc.cast(rows.column(f), pa.string()).fill_null("\x00") for f in fields]
    if len(parts) == 1:
        return parts[0]
    return pc.binary_join_element_wise(*parts, _SEPARATOR)


class ExpectedTable:
    """The live rows a table should hold after the batches applied so far.

    Args:
        schema: Schema of every batch.
        key_fields: The table's record key fields.
        partition_fields: The table's partition fields.
    """

    def __init__(self, schema: pa.Schema, key_fields: Sequence[str], partition_fields: Sequence[str]) -> None:
        """Start empty."""
        self._keys = tuple(key_fields)
        self._partitions = tuple(partition_fields)
        self.rows: pa.Table = schema.empty_table()

    def _without(self, fields: Sequence[str], values: pa.ChunkedArray | pa.Array) -> pa.Table:
        mask = pc.invert(pc.is_in(joined_keys(self.rows, fields), value_set=pa.array(values).unique()))
        return self.rows.filter(mask)

    def apply(self, operation: WriteOperation, batch: pa.Table) -> None:
        """Apply one write of ``batch``.

        Raises:
            ValueError: ``operation`` is not one a job uses.
        """
        batch = batch.select(self.rows.column_names).cast(self.rows.schema)
        if operation in (WriteOperation.INSERT, WriteOperation.BULK_INSERT):
            self.rows = pa.concat_tables([self.rows, batch])
        elif operation is WriteOperation.UPSERT:
            self.rows = pa.concat_tables([self._without(self._keys, _combined(joined_keys(batch, self._keys))), batch])
        elif operation is WriteOperation.DELETE:
            self.rows = self._without(self._keys, _combined(joined_keys(batch, self._keys)))
        elif operation is WriteOperation.INSERT_OVERWRITE:
            touched = _combined(joined_keys(batch, self._partitions))
            self.rows = pa.concat_tables([self._without(self._partitions, touched), batch])
        elif operation is WriteOperation.INSERT_OVERWRITE_TABLE:
            self.rows = batch
        else:
            raise ValueError(f"jobs do not use {operation.value}")
        self.rows = self.rows.combine_chunks()

    @property
    def num_rows(self) -> int:
        """Rows the table should hold."""
        return int(self.rows.num_rows)

    def checksum(self) -> str:
        """:func:`content_checksum` of the expected rows."""
        return content_checksum(self.rows)


def _combined(values: pa.ChunkedArray | pa.Array) -> pa.Array:
    return values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values


def _flat(rows: pa.Table) -> pa.Table:
    while any(pa.types.is_struct(f.type) for f in rows.schema):
        rows = rows.flatten()
    return rows


def content_checksum(rows: pa.Table) -> str:
    """An order-independent checksum of ``rows``: equal for equal multisets of rows.

    Struct columns are flattened and every value is compared in Arrow's text form, so data that
    reads back with other physical types but the same values (``string``/``large_string``,
    chunking) agrees. Each row becomes one line, the lines are sorted, and their bytes are hashed.

    Returns:
        16 hex digits (BLAKE2b, 8 bytes).
    """
    flat = _flat(rows)
    digest = hashlib.blake2b(digest_size=8)
    digest.update(",".join(flat.column_names).encode())
    if flat.num_rows and flat.num_columns:
        text = [pc.cast(column, pa.large_string()).fill_null("\x00null") for column in flat.columns]
        separator = pa.scalar(_SEPARATOR, pa.large_string())
        joined = pc.binary_join_element_wise(*text, separator) if len(text) > 1 else text[0]
        lines = _combined(joined)
        lines = lines.take(pc.array_sort_indices(lines))
        # A fresh array from take(): offsets start at the array's offset; hash exactly the used bytes.
        offsets = np.frombuffer(lines.buffers()[1], dtype=np.int64, count=len(lines) + 1, offset=lines.offset * 8)
        digest.update((offsets - offsets[0]).tobytes())
        digest.update(memoryview(lines.buffers()[2])[offsets[0] : offsets[-1]])
    return digest.hexdigest()
