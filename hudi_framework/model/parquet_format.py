"""How our Parquet files (base files and Parquet log blocks) store each column, as Apache Hudi does.

Apache Hudi writes Parquet through parquet-avro (``HoodieAvroParquetWriter``), which derives each
column from the Avro writer schema: ``timestamp-millis`` is INT64 ``TIMESTAMP(MILLIS,
isAdjustedToUTC=true)``, ``local-timestamp-micros`` INT64 ``TIMESTAMP(MICROS, false)``,
``time-millis`` INT32 ``TIME(MILLIS, true)``, ``time-micros`` INT64 ``TIME(MICROS, true)``, ``date``
INT32 ``DATE``, a ``fixed`` decimal a FIXED_LEN_BYTE_ARRAY of the fixed's size. pyarrow writes the same
when the Arrow types are exactly those of the Avro schema (``avro_to_arrow``) and nothing coerces
them: :func:`as_file_types` casts rows to those types, :data:`PARQUET_TYPE_OPTIONS` keeps pyarrow
from changing a unit or the time zone flag.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

import pyarrow as pa
import pyarrow.parquet as pq

from hudi_framework.errors import SchemaMismatchError

#: pyarrow writes Parquet TIME as ``isAdjustedToUTC=false`` unless told otherwise (before 22 it
#: could only write ``true``, and has no such argument); parquet-avro writes ``true``.
_TIME_UTC: Final = "write_time_adjusted_to_utc"
_HAS_TIME_UTC: Final = _TIME_UTC in inspect.signature(pq.ParquetWriter.__init__).parameters

#: ``pq.ParquetWriter`` / ``pq.write_table`` arguments fixing each column's Parquet type: every
#: timestamp at the unit of its Arrow type (the Avro schema's), no Arrow schema blob (Hudi readers
#: take the schema from Parquet itself), lists in the 3-level layout of Parquet's spec.
PARQUET_TYPE_OPTIONS: Final[Mapping[str, Any]] = MappingProxyType(
    {
        "coerce_timestamps": None,
        "allow_truncated_timestamps": False,
        "use_compliant_nested_type": True,
        "store_schema": False,
        **({_TIME_UTC: True} if _HAS_TIME_UTC else {}),
    }
)

#: ``hoodie.parquet.compression.codec`` values (Java ``CompressionCodecName``) pyarrow spells otherwise.
_PYARROW_CODECS: Final = MappingProxyType({"uncompressed": "none"})


def pyarrow_codec(codec: str) -> str:
    """The pyarrow ``compression`` name of an Apache Hudi codec name (``uncompressed`` is ``none``).

    ``lz4`` is written as Parquet's ``LZ4_RAW`` (pyarrow writes no other LZ4), which parquet-mr reads
    since 1.13 (Apache Hudi 0.14+, Spark 3.5+).
    """
    name = codec.lower()
    return _PYARROW_CODECS.get(name, name)


def _same_type(actual: pa.DataType, wanted: pa.DataType) -> bool:
    # A dictionary of the right values is written as those values (the writer keeps them encoded).
    return bool(actual == wanted or (pa.types.is_dictionary(actual) and actual.value_type == wanted))


def as_file_types(rows: pa.Table, schema: pa.Schema) -> pa.Table:
    """``rows`` with every column ``schema`` has cast to its type there (the file's exact types).

    Rows merged through a read schema carry the read's types (timestamps in microseconds, ``fixed``
    as ``binary``); written as they are, the file would contradict its Avro schema.

    Raises:
        SchemaMismatchError: A column's values do not fit the file type (a ``fixed`` of another width,
            sub-millisecond digits in a ``timestamp-millis`` column).
    """
    for index, field in enumerate(rows.schema):
        target = schema.field(field.name).type if field.name in schema.names else None
        if target is None or _same_type(field.type, target):
            continue
        try:
            column = rows.column(index).cast(target)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as e:
            raise SchemaMismatchError(field.name, f"type {field.type} cannot be written as {target}: {e}") from e
        rows = rows.set_column(index, pa.field(field.name, target, nullable=field.nullable), column)
    return rows


__all__ = ["PARQUET_TYPE_OPTIONS", "as_file_types", "pyarrow_codec"]
