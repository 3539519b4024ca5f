"""AVRO_DATA block content, version 3: records as schemaless Avro datums (hudi-format.md section 4).

Content layout::

    int32 version = 3 | int32 recordCount | recordCount x (int32 length | Avro binary datum)

Each datum is encoded with the block's SCHEMA header (the table schema with the five meta fields
first), exactly as Java's ``HoodieAvroDataBlock.serializeRecords`` writes it. Avro binary encoding
is canonical, so re-encoding decoded records gives the same bytes.

Records are exchanged as a :class:`pyarrow.Table` whose schema is
:func:`~hudi_framework.model.schema.avro_to_arrow` of the writer schema: decimals are
``decimal128`` (Avro ``fixed``), timestamps microsecond (or millisecond) timestamps, dates
``date32``. Type conversion is columnar (:mod:`hudi_framework.log.avro_arrow`). Flat schemas
(nullable primitives, ``fixed`` and logical types over them: what writers produce for ordinary
tables) are encoded and decoded a column at a time with numpy
(:mod:`~hudi_framework.log.avro_vector_encode`, :mod:`~hudi_framework.log.avro_vector_decode`);
nested schemas, and content the vectorised walk finds damaged, go through fastavro one record at a
time, which also names the damage.
"""

from __future__ import annotations

import io
import struct
from collections.abc import Iterable
from typing import Any, Final

import fastavro
import pyarrow as pa

from hudi_framework.errors import LogBlockDecodeError, LogBlockEncodeError, SchemaConversionError
from hudi_framework.log.avro_arrow import physical_schema, strip_logical_types, to_logical, to_physical
from hudi_framework.log.avro_flat_schema import flat_fields
from hudi_framework.log.avro_vector_decode import decode_flat_records
from hudi_framework.log.avro_vector_encode import encode_flat_records
from hudi_framework.model.schema import AvroSchema, avro_to_arrow

#: The AVRO_DATA content version written and read.
AVRO_CONTENT_VERSION: Final = 3

_INT32 = struct.Struct(">i")
_HEAD = struct.Struct(">ii")


def conform_records(records: pa.Table, schema: AvroSchema) -> pa.Table:
    """``records`` with the columns of ``schema`` in its order, cast to ``avro_to_arrow(schema)``.

    Raises:
        LogBlockEncodeError: A column is missing or extra, or a value cannot be cast safely.
    """
    try:
        target = avro_to_arrow(schema)
    except (SchemaConversionError, LookupError, TypeError, ValueError) as e:
        # LookupError/TypeError: a malformed schema (a field without "name", a non-dict type...).
        raise LogBlockEncodeError(f"writer schema has no Arrow form: {type(e).__name__}: {e}") from e
    have, want = set(records.column_names), set(target.names)
    if have != want or len(records.column_names) != len(have):
        missing = sorted(want - have)
        extra = sorted(have - want)
        raise LogBlockEncodeError(
            f"record columns do not match the writer schema (missing {missing}, extra {extra}, or duplicated names)"
        )
    try:
        return records.select(target.names).cast(target)
    except (ValueError, TypeError, NotImplementedError) as e:
        # pyarrow's ArrowInvalid / ArrowTypeError / ArrowNotImplementedError derive from these, and a
        # null in a non-nullable field is a plain ValueError.
        raise LogBlockEncodeError(f"records do not fit the writer schema: {e}") from e


def encode_avro_records(records: pa.Table, schema: AvroSchema) -> bytes:
    """The AVRO_DATA content (version 3) of ``records`` under writer schema ``schema``.

    Raises:
        LogBlockEncodeError: The records do not fit the schema (a null in a non-null field, a
            decimal too wide for its ``fixed``...).
    """
    conformed = conform_records(records, schema)
    physical = to_physical(conformed, schema)
    fields = flat_fields(schema)
    if fields is not None:
        return _HEAD.pack(AVRO_CONTENT_VERSION, physical.num_rows) + encode_flat_records(physical, fields)
    return _encode_per_record(physical, schema)


def _encode_per_record(physical: pa.Table, schema: AvroSchema) -> bytes:
    """The reference encoder, one fastavro call per record: nested schemas (records, lists, maps, enums)."""
    parsed = fastavro.parse_schema(strip_logical_types(schema))
    names = physical.column_names
    # Column by column: Table.to_pylist (and maps_as_pydicts) builds one scalar object per value.
    columns = [_python_values(physical.column(i)) for i in range(physical.num_columns)]
    # Not strict: every row comes from the conformed table, so no field can be missing.
    rows = (dict(zip(names, values, strict=True)) for values in zip(*columns, strict=True))
    return encode_avro_datums(rows, physical.num_rows, parsed)


def encode_avro_datums(records: Iterable[dict[str, Any]], count: int, parsed: Any) -> bytes:
    """AVRO_DATA content (version 3) of ``count`` records given as Python values, one fastavro call
    each, under the fastavro-parsed writer schema ``parsed`` (records Java reads as Avro objects:
    the v6 archive's ``HoodieArchivedMetaEntry``).

    Raises:
        LogBlockEncodeError: A record does not fit the schema.
    """
    out = io.BytesIO()
    out.write(_HEAD.pack(AVRO_CONTENT_VERSION, count))
    written = 0
    try:
        for record in records:
            length_at = out.tell()
            out.write(b"\0\0\0\0")  # the datum's length, filled in below
            fastavro.schemaless_writer(out, parsed, record)
            end = out.tell()
            out.seek(length_at)
            out.write(_INT32.pack(end - length_at - 4))
            out.seek(end)
            written += 1
    except (ValueError, TypeError, KeyError, AttributeError) as e:
        raise LogBlockEncodeError(f"record does not fit the writer schema: {type(e).__name__}: {e}") from e
    if written != count:
        raise LogBlockEncodeError(f"{written} records given for a count of {count}")
    return out.getvalue()


def _python_values(column: pa.ChunkedArray) -> list[Any]:
    """The column's values for fastavro: Avro maps must be dicts, which Arrow gives as pair lists."""
    values: list[Any] = column.to_pylist()
    if _has_map(column.type):
        values = [_maps_to_dicts(v, column.type) for v in values]
    return values


def _has_map(t: pa.DataType) -> bool:
    if pa.types.is_map(t):
        return True
    if pa.types.is_struct(t):
        return any(_has_map(f.type) for f in t)
    if pa.types.is_list(t):
        return _has_map(t.value_type)
    return False


def _maps_to_dicts(value: Any, t: pa.DataType) -> Any:
    if value is None or not _has_map(t):
        return value
    if pa.types.is_map(t):
        return {k: _maps_to_dicts(v, t.item_type) for k, v in value}
    if pa.types.is_struct(t):
        return {f.name: _maps_to_dicts(value[f.name], f.type) for f in t}
    return [_maps_to_dicts(v, t.value_type) for v in value]


def decode_avro_records(content: bytes, schema: AvroSchema) -> pa.Table:
    """Decode AVRO_DATA content written with ``schema``.

    Raises:
        LogBlockDecodeError: The content is not version 3, or a record does not decode to exactly
            its stated length, or bytes are left over.
    """
    count = _record_count(content)
    try:
        parsed = fastavro.parse_schema(strip_logical_types(schema))
        target = physical_schema(schema)
    except Exception as e:  # a damaged SCHEMA header can fail in many ways
        raise LogBlockDecodeError(f"SCHEMA header is not a usable Avro record schema: {e}") from e
    fields = flat_fields(schema)
    if fields is not None:
        physical = decode_flat_records(content, _HEAD.size, count, fields, target)
        if physical is not None:
            try:
                return to_logical(physical, schema)
            except Exception as e:
                raise LogBlockDecodeError(f"records do not convert to Arrow: {type(e).__name__}: {e}") from e
    # Nested schemas, and damaged content (the reference decoder names the damage).
    rows = _read_rows(content, count, parsed)
    try:
        return to_logical(pa.Table.from_pylist(rows, schema=target), schema)
    except Exception as e:
        raise LogBlockDecodeError(f"records do not convert to Arrow: {type(e).__name__}: {e}") from e


def _record_count(content: bytes) -> int:
    total = len(content)
    if total < _HEAD.size:
        raise LogBlockDecodeError(f"data content of {total} bytes is shorter than its header")
    version, count = _HEAD.unpack_from(content)
    if version != AVRO_CONTENT_VERSION:
        raise LogBlockDecodeError(f"avro data content version {version} is not supported (only 3)")
    # Each record takes at least its 4-byte length; this bounds a damaged count before looping.
    if count < 0 or count * 4 > total - _HEAD.size:
        raise LogBlockDecodeError(f"implausible record count {count}")
    return int(count)


def decode_avro_datums(content: bytes, parsed: Any) -> list[dict[str, Any]]:
    """The records of AVRO_DATA content as Python values (the reverse of :func:`encode_avro_datums`).

    Raises:
        LogBlockDecodeError: Not version 3 content, or a record that does not decode to exactly its
            stated length, or bytes left over.
    """
    return _read_rows(content, _record_count(content), parsed)


def _read_rows(content: bytes, count: int, parsed: Any) -> list[dict[str, Any]]:
    stream = io.BytesIO(content)
    stream.seek(_HEAD.size)
    total = len(content)
    rows: list[dict[str, Any]] = []
    for index in range(count):
        start = stream.tell()
        if start + 4 > total:
            raise LogBlockDecodeError(f"record {index} length runs past the content")
        (length,) = _INT32.unpack(stream.read(4))
        if length < 0 or start + 4 + length > total:
            raise LogBlockDecodeError(f"record {index} length {length} runs past the content")
        try:
            row = fastavro.schemaless_reader(stream, parsed, None)
        except Exception as e:  # fastavro raises many types on damaged bytes; all mean the same here
            raise LogBlockDecodeError(f"record {index} does not decode: {type(e).__name__}: {e}") from e
        # The per-record length is the only redundancy in the format: use it to catch damage.
        if stream.tell() != start + 4 + length:
            raise LogBlockDecodeError(f"record {index} decodes to {stream.tell() - start - 4} bytes, not {length}")
        if not isinstance(row, dict):
            raise LogBlockDecodeError(f"record {index} is not an Avro record")
        rows.append(row)
    if stream.tell() != total:
        raise LogBlockDecodeError(f"{total - stream.tell()} bytes follow the last record")
    return rows
