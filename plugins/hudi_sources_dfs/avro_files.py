"""Avro object container files as Arrow record batches.

fastavro decodes each container block (in C when its extension is built); the rows are turned into
Arrow a block's worth at a time against the Arrow schema of the file's writer schema (the shared
conversion, :mod:`hudi_framework.contracts.avro_arrow`), so columns keep their declared types even
when a batch holds only nulls.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO, Final

import fastavro
import pyarrow as pa

from hudi_framework.contracts.avro_arrow import avro_to_arrow

#: Rows per record batch.
BATCH_ROWS: Final = 65_536


class UnsupportedAvroTypeError(ValueError):
    """The file's schema is not a record (a file of bare strings, say): it has no rows of columns."""


def read_avro_batches(stream: BinaryIO, *, batch_rows: int = BATCH_ROWS) -> Iterator[pa.RecordBatch]:
    """The rows of the container file ``stream`` as record batches of its writer schema.

    Raises:
        UnsupportedAvroTypeError: The writer schema is not a record.
        SchemaConversionError: The writer schema has a type with no Arrow form.
        ValueError: The file is not an Avro container file or is damaged (fastavro's errors).
    """
    reader = fastavro.reader(stream)
    if not isinstance(reader.writer_schema, dict):  # a primitive type's name, or a union's list
        raise UnsupportedAvroTypeError("the file's schema is not a record")
    schema = avro_to_arrow(reader.writer_schema)
    rows: list[dict[str, Any]] = []
    emitted = False
    for row in reader:
        if not isinstance(row, dict):
            raise UnsupportedAvroTypeError("the file's rows are not records")
        rows.append(row)
        if len(rows) >= batch_rows:
            yield pa.RecordBatch.from_pylist(rows, schema=schema)
            emitted, rows = True, []
    if rows or not emitted:  # an empty file still gives its schema
        yield pa.RecordBatch.from_pylist(rows, schema=schema)
