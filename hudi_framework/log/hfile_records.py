"""Records of an HFile (metadata-table base file or HFILE_DATA block) as an Arrow table.

Each HFile cell is one record: the row key is the record key and the value is the schemaless Avro
datum of the record in the writer schema (the block's SCHEMA header; for base files the caller's
schema or the file info's ``schema`` entry). Hudi blanks the ``key`` field before writing, since the
row key already holds it, and restores it on read; this decoder does the same and also sets
``_hoodie_record_key`` to the row key (metadata-table writers leave the meta fields null).

Unions of several record types (column-stats wrappers) become ``member<i>`` structs, see
:mod:`hudi_framework.log.avro_unions`.

:func:`encode_hfile_records` is the write side, as Apache Hudi's ``HFileUtils.serializeRecordsToLogBlock``:
records sorted by key, the ``key`` field blanked in each value, the writer schema in the file info;
:func:`encode_hfile_base_file` adds what ``HoodieAvroHFileWriter`` adds to base files (key range and
bloom filter).
"""

from __future__ import annotations

import io
import itertools
import json
from collections.abc import Mapping, Sequence, Set
from functools import lru_cache
from typing import Any, Final

import fastavro
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.indexing.bloom_filter import BloomFilter, BloomFilterConfig, BloomFilterType
from hudi_framework.errors import HFileFormatError, HFileWriteError, UnsupportedLogBlockError
from hudi_framework.log.avro_arrow import physical_schema, strip_logical_types, to_logical
from hudi_framework.log.avro_flat_schema import flat_fields
from hudi_framework.log.avro_unions import rewrite_unions
from hudi_framework.log.avro_vector_decode import (
    FlatRecordField,
    NullField,
    ValueField,
    decode_values_at,
    nested_value_field,
)
from hudi_framework.log.hfile import (
    find_cell_arrays,
    find_cells,
    find_prefixed_cells,
    read_file_info,
    read_hfile,
    read_trailer,
)
from hudi_framework.log.hfile_writer import HFileWriteOptions, write_hfile
from hudi_framework.log.keyed_records import KEY_FIELD as KEY_FIELD
from hudi_framework.log.keyed_records import KeyedRecords
from hudi_framework.model.schema import AvroSchema, avro_to_arrow

RECORD_KEY_COLUMN: Final = "_hoodie_record_key"
#: File info entry in which HBase-era Hudi writers stored the writer schema.
SCHEMA_INFO_KEY: Final = b"schema"


def decode_hfile_records(content: bytes, schema: AvroSchema | str | None = None) -> pa.Table:
    """Decode every record of the HFile ``content``.

    Args:
        content: A complete HFile.
        schema: The writer schema (Avro JSON or parsed); None to use the file info's ``schema``.

    Returns:
        One row per cell in key order, schema ``avro_to_arrow(schema)`` with multi-record unions as
        ``member<i>`` structs; ``key`` and ``_hoodie_record_key`` hold the row key (a
        ``_hoodie_record_key`` column is put first if the schema has none).

    Raises:
        HFileFormatError: The HFile is damaged, a value does not decode, or no schema is known.
        UnsupportedLogBlockError: The HFile uses a codec other than NONE/GZ, or the schema has a
            union of several non-record types.
    """
    return HFileRecordDecoder(_schema(content, schema)).decode(content)


@lru_cache(maxsize=32)
def hfile_decoder(schema_text: str, fields: tuple[str, ...] | None = None) -> HFileRecordDecoder:
    """The decoder of HFiles of the writer schema ``schema_text`` (projected on ``fields``), made once
    per process: a metadata table's files share a few schemas, and preparing one costs milliseconds
    (each write opens the metadata table anew). Decoders hold no state once made."""
    return HFileRecordDecoder(schema_text, fields=fields)


class HFileRecordDecoder:
    """Decodes HFiles written in one schema, with the schema work (parsing, union rewriting, Arrow
    types) done once: readers of many HFiles of one writer schema (a metadata table) keep one.

    With ``fields``, only those top-level fields are decoded into Arrow (Avro schema resolution
    skips the others' bytes), which spares building values nobody reads.
    """

    def __init__(self, schema: AvroSchema | str, *, fields: Sequence[str] | None = None) -> None:
        """Prepare for records of the writer ``schema``.

        Raises:
            HFileFormatError: The schema is not an Avro record schema, or a field is not in it.
            UnsupportedLogBlockError: The schema has a union of several non-record types.
        """
        writer = _parsed(schema)
        reader = writer if fields is None else _project(writer, fields)
        self._arrow_schema, self._converter = rewrite_unions(reader)
        try:
            self._writer = fastavro.parse_schema(strip_logical_types(writer))
            self._reader = None if fields is None else fastavro.parse_schema(strip_logical_types(reader))
            self._target = physical_schema(self._arrow_schema)
            self._logical = avro_to_arrow(self._arrow_schema)
            self._value_names, self._value_fields = _value_shape(writer, self._target)
        except UnsupportedLogBlockError:
            raise
        except Exception as e:  # a broken schema fails in many ways
            raise HFileFormatError(f"schema is not a usable Avro record schema: {e}") from e

    def decode(
        self, content: bytes, only: Set[bytes] | None = None, *, prefixes: Sequence[bytes] | None = None
    ) -> pa.Table:
        """Decode every record of the HFile ``content`` (see :func:`decode_hfile_records`).

        With ``only`` (UTF-8 row keys), only the records of those keys: the others' values are
        neither copied nor decoded. With ``prefixes`` (and no ``only``), only the records whose
        key starts with one of them (all of equal length).

        Raises:
            HFileFormatError: The HFile is damaged or a value does not decode.
            UnsupportedLogBlockError: The HFile uses a codec other than NONE/GZ.
        """
        return self.decode_cells(self.cells(content, only, prefixes=prefixes))

    def cells(
        self, content: bytes, only: Set[bytes] | None = None, *, prefixes: Sequence[bytes] | None = None
    ) -> list[tuple[bytes, bytes]]:
        """The cells (row key, value) of the HFile ``content`` that :meth:`decode` decodes.

        Raises:
            HFileFormatError: The HFile is damaged.
            UnsupportedLogBlockError: The HFile uses a codec other than NONE/GZ.
        """
        if only is not None:
            return list(find_cells(content, sorted(only)))
        if prefixes is not None:
            return list(find_prefixed_cells(content, prefixes))
        return list(read_hfile(content))

    def decode_cells(self, cells: Sequence[tuple[bytes, bytes]]) -> pa.Table:
        """The records of ``cells`` (of one or several HFiles in this schema), in order: cells of
        many small HFiles decode in one column-wise pass instead of one pass each.

        Raises:
            HFileFormatError: A value does not decode.
        """
        if self._value_fields is not None:
            table = self._decode_vectorised(cells)
            if table is not None:
                return table
        return self._decode_each(cells)

    def decode_rows(self, content: bytes, rows: pa.Array) -> pa.Table:
        """The records of ``rows`` (distinct row keys, string or binary, no nulls) in the HFile
        ``content``, in key order: :meth:`decode` with ``only``, found and decoded as arrays
        (:func:`~hudi_framework.log.hfile.find_cell_arrays`; no Python step per record unless a
        value does not fit the vectorised decode).

        Raises:
            HFileFormatError: The HFile is damaged or a value does not decode.
            UnsupportedLogBlockError: The HFile uses a codec other than NONE/GZ.
        """
        found = find_cell_arrays(content, rows)
        if self._value_fields is not None and len(found.values):
            count, first = len(found.values), found.values.offset
            stored = np.frombuffer(found.values.buffers()[1], dtype=np.int32)[first : first + count + 1]
            offsets = stored.astype(np.int64)
            raw = found.values.buffers()[2]
            data = b"" if raw is None else raw.to_pybytes()
            columns = decode_values_at(data, offsets[:-1], offsets[1:], self._value_fields)
            if columns is not None:
                table = self._assemble(columns, found.rows)
                if table is not None:
                    return table
        return self._decode_each(list(zip(found.rows.to_pylist(), found.values.to_pylist(), strict=True)))

    def _decode_each(self, cells: Sequence[tuple[bytes, bytes]]) -> pa.Table:
        """The records of ``cells`` decoded one by one by fastavro (any schema shape)."""
        keys: list[str] = []
        rows: list[dict[str, Any]] = []
        converter = self._converter
        for row_key, value in cells:
            try:
                key = row_key.decode("utf-8")
                record: Any = fastavro.schemaless_reader(
                    io.BytesIO(value),
                    self._writer,
                    self._reader,
                    return_named_type=True,
                    return_named_type_override=True,
                )
            except Exception as e:  # fastavro raises many types on damaged bytes
                raise HFileFormatError(f"value of row {row_key!r} does not decode: {type(e).__name__}: {e}") from e
            keys.append(key)
            rows.append(record if converter is None else converter(record))
        try:
            table = to_logical(pa.Table.from_pylist(rows, schema=self._target), self._arrow_schema, self._logical)
        except Exception as e:
            raise HFileFormatError(f"records do not convert to Arrow: {type(e).__name__}: {e}") from e
        return self._with_keys(table, pa.array(keys, pa.string()))

    def _decode_vectorised(self, cells: Sequence[tuple[bytes, bytes]]) -> pa.Table | None:
        """The records of ``cells`` decoded column by column (no Python step per record), or None
        when a value does not fit the vectorised shape (then each is decoded by fastavro)."""
        assert self._value_fields is not None
        if not cells:
            return None
        values = [value for _, value in cells]
        lengths = np.fromiter((len(v) for v in values), dtype=np.int64, count=len(values))
        ends = np.cumsum(lengths)
        columns = decode_values_at(b"".join(values), ends - lengths, ends, self._value_fields)
        if columns is None:
            return None
        return self._assemble(columns, pa.array([row for row, _ in cells], pa.binary()))

    def _assemble(self, columns: list[pa.Array], rows: pa.Array) -> pa.Table | None:
        """The table of vectorised-decoded ``columns`` with the row keys ``rows`` (binary), or None
        when they do not convert (e.g. a row key that is not UTF-8: the per-record path names it)."""
        by_name = dict(zip(self._value_names, columns, strict=True))
        try:
            physical = pa.Table.from_arrays([by_name[f.name] for f in self._target], schema=self._target)
            return self._with_keys(to_logical(physical, self._arrow_schema, self._logical), rows.cast(pa.string()))
        except (pa.ArrowInvalid, pa.ArrowTypeError, KeyError):
            return None

    def _with_keys(self, table: pa.Table, key_column: pa.Array) -> pa.Table:
        """``table`` with the row keys restored into ``key`` and ``_hoodie_record_key``."""
        names = table.column_names
        if KEY_FIELD in names:
            i = names.index(KEY_FIELD)
            table = table.set_column(i, table.schema.field(i), key_column.cast(table.schema.field(i).type))
        if RECORD_KEY_COLUMN in names:
            i = names.index(RECORD_KEY_COLUMN)
            return table.set_column(i, table.schema.field(i), key_column)
        return table.add_column(0, pa.field(RECORD_KEY_COLUMN, pa.string(), nullable=False), key_column)


#: Physical Arrow types of the flat Avro kinds a value walk can step over without keeping them.
_SKIPPED_KINDS: Final = {
    "boolean": pa.bool_(), "int": pa.int32(), "long": pa.int64(), "float": pa.float32(),
    "double": pa.float64(), "string": pa.string(), "bytes": pa.binary(),
}  # fmt: skip


def _value_shape(writer: AvroSchema, target: pa.Schema) -> tuple[list[str], list[ValueField] | None]:
    """How :func:`decode_values_at` walks values of ``writer`` into the columns of ``target``: the
    names of the columns it yields and the fields, or None when the schema has another shape.

    Wanted fields must be flat, a nullable flat record, or a nullable record of flat fields, records
    and unions of records (walked by :func:`nested_value_field`'s nodes); every other field flat or a nullable
    anything (then it must be null in the values: metadata-table records fill one payload field).
    """
    names: list[str] = []
    steps: list[ValueField] = []
    wanted = set(target.names)
    named: dict[str, Any] | None = None
    for f in writer["fields"]:
        name, t = f["name"], f["type"]
        flat = flat_fields({"type": "record", "fields": [{"name": name, "type": t}]})
        if flat is not None:
            arrow = target.field(name).type if name in wanted else _SKIPPED_KINDS.get(flat[0].kind)
            if arrow is None:
                return names, None
            steps.append((flat[0], arrow))
            names.append(name)
            continue
        if not (isinstance(t, list) and len(t) == 2 and t.count("null") == 1):
            return names, None
        null_branch = t.index("null")
        if name not in wanted:
            steps.append((NullField(null_branch), None))
            continue
        record = flat_fields(t[1 - null_branch])
        arrow = target.field(name).type
        if record is not None and pa.types.is_struct(arrow):
            steps.append((FlatRecordField(null_branch, record, arrow), arrow))
        else:
            # A payload of records and unions (column statistics and their value wrappers).
            named = named if named is not None else _named_types(writer)
            nested = nested_value_field(t, arrow, named)
            if nested is None:
                return names, None
            steps.append((nested, arrow))
        names.append(name)
    return names, steps


def _named_types(schema: Any) -> dict[str, Any]:
    """Every named type defined in ``schema``, by short and by full name (for later references)."""
    out: dict[str, Any] = {}

    def visit(node: Any, namespace: str | None) -> None:
        if isinstance(node, list):
            for branch in node:
                visit(branch, namespace)
        elif isinstance(node, dict):
            kind = node.get("type")
            if kind in ("record", "error", "enum", "fixed") and "name" in node:
                namespace = node.get("namespace", namespace)
                name = str(node["name"])
                out[name.rsplit(".", 1)[-1]] = node
                out[name if "." in name or not namespace else f"{namespace}.{name}"] = node
            for f in node.get("fields") or ():
                visit(f.get("type"), namespace)
            for key in ("items", "values"):
                if key in node:
                    visit(node[key], namespace)
            if isinstance(kind, (dict, list)):
                visit(kind, namespace)

    visit(schema, None)
    return out


def _project(schema: AvroSchema, fields: Sequence[str]) -> AvroSchema:
    """The record ``schema`` with only ``fields`` (in schema order), as a reader schema."""
    names = [f["name"] for f in schema["fields"]]
    unknown = [f for f in fields if f not in names]
    if unknown:
        raise HFileFormatError(f"the schema has no field(s) {', '.join(unknown)}")
    wanted = set(fields)
    return {**schema, "fields": [f for f in schema["fields"] if f["name"] in wanted]}


def hfile_records_schema(schema: AvroSchema | str) -> pa.Schema:
    """The Arrow schema :func:`decode_hfile_records` gives for records of ``schema``."""
    parsed: AvroSchema = json.loads(schema) if isinstance(schema, str) else schema
    rewritten, _ = rewrite_unions(parsed)
    arrow = avro_to_arrow(rewritten)
    if RECORD_KEY_COLUMN in arrow.names:
        return arrow
    return arrow.insert(0, pa.field(RECORD_KEY_COLUMN, pa.string(), nullable=False))


def _schema(content: bytes, schema: AvroSchema | str | None) -> AvroSchema:
    if schema is None:
        schema = hfile_schema_text(content)
    return _parsed(schema)


def hfile_schema_text(content: bytes) -> str:
    """The writer schema an HFile's file info holds (its ``schema`` entry).

    Raises:
        HFileFormatError: The HFile is damaged or its file info has no schema.
    """
    text = read_file_info(content, read_trailer(content)).get(SCHEMA_INFO_KEY)
    if text is None:
        raise HFileFormatError("no schema given and the HFile's file info has no 'schema' entry")
    return text.decode("utf-8")


def _parsed(schema: AvroSchema | str) -> AvroSchema:
    try:
        parsed: AvroSchema = json.loads(schema) if isinstance(schema, str) else schema
    except json.JSONDecodeError as e:
        raise HFileFormatError(f"schema is not JSON: {e}") from e
    if not isinstance(parsed, dict) or parsed.get("type") != "record":
        raise HFileFormatError("schema is not an Avro record schema")
    return parsed


#: The bloom filter of Apache Hudi's metadata-table base files: ``hoodie.metadata.bloom.filter.type``,
#: ``.num.entries``, ``.fpp`` and ``.dynamic.max.entries`` at their defaults.
METADATA_BLOOM_FILTER: Final = BloomFilterConfig(
    num_entries=10_000, fpp=1e-9, filter_type=BloomFilterType.DYNAMIC_V0, dynamic_max_entries=100_000
)


def encode_hfile_records(
    records: Sequence[Mapping[str, Any]],
    schema: AvroSchema | str,
    options: HFileWriteOptions | None = None,
) -> bytes:
    """The HFile of ``records`` as Apache Hudi writes an ``HFILE_DATA`` block's content.

    Each record becomes one cell: the row key is its ``key`` field (UTF-8), the value its
    schemaless Avro datum in ``schema`` with ``key`` set to ``""``. Cells are sorted by key bytes;
    the file info holds ``schema``.

    Args:
        records: Records as fastavro writes them: physical Avro values (logical types not
            applied), a union branch of several record types as ``(full name, record)`` when the
            branch is ambiguous.
        schema: The writer schema (JSON text is stored as given; a parsed schema compactly).
        options: Block size (Hudi uses 1 MiB for log blocks), codec (GZ) and creation time.

    Raises:
        HFileWriteError: A record has no string ``key``, two records share a key, or a record
            does not fit the schema.
    """
    text = schema if isinstance(schema, str) else json.dumps(schema, separators=(",", ":"))
    keys, values = _cells(records, text)
    return write_hfile(keys, values, file_info={SCHEMA_INFO_KEY.decode(): text.encode("utf-8")}, options=options)


def encode_hfile_base_file(
    records: Sequence[Mapping[str, Any]],
    schema: AvroSchema | str,
    *,
    bloom_filter: BloomFilterConfig | None = METADATA_BLOOM_FILTER,
    options: HFileWriteOptions | None = None,
) -> bytes:
    """A metadata-table base file (``*.hfile``) of ``records``, as Apache Hudi's ``HoodieAvroHFileWriter``.

    The cells are those of :func:`encode_hfile_records`. The file info holds ``schema`` and, with a
    bloom filter, ``minRecordKey``, ``maxRecordKey`` and ``bloomFilterTypeCode``; the filter of
    every key (Hudi's metadata-table defaults unless ``bloom_filter`` says otherwise, None for
    none) is the ``bloomFilter`` meta block, serialised as Hudi serialises it.

    Raises:
        HFileWriteError: As :func:`encode_hfile_records`.
    """
    text = schema if isinstance(schema, str) else json.dumps(schema, separators=(",", ":"))
    keys, values = _cells(records, text)
    info = {SCHEMA_INFO_KEY.decode(): text.encode("utf-8")}
    meta: dict[str, bytes] = {}
    if bloom_filter is not None:
        info |= {
            "minRecordKey": keys[0] if keys else b"",
            "maxRecordKey": keys[-1] if keys else b"",
            "bloomFilterTypeCode": str(bloom_filter.filter_type).encode(),
        }
        bloom = BloomFilter.from_keys(pa.array(keys, pa.binary()).cast(pa.string()), bloom_filter)
        meta["bloomFilter"] = bloom.serialize().encode()
    return write_hfile(keys, values, file_info=info, meta_blocks=meta, options=options)


def _cells(records: Sequence[Mapping[str, Any]], text: str) -> tuple[list[bytes], list[bytes]]:
    """Row keys (sorted) and values (the key blanked) of ``records`` in the schema ``text``."""
    parsed = _schema_for_write(text)
    if isinstance(records, KeyedRecords):
        return _keyed_cells(records, parsed)
    keyed: list[tuple[bytes, Mapping[str, Any]]] = []
    for record in records:
        key = record.get(KEY_FIELD)
        if not isinstance(key, str):
            raise HFileWriteError(f"record has no string {KEY_FIELD!r} field: {key!r}")
        keyed.append((key.encode("utf-8"), record))
    keyed.sort(key=lambda item: item[0])
    keys = [k for k, _ in keyed]
    for previous, key in itertools.pairwise(keys):
        if previous == key:
            shown = key.decode("utf-8", "replace")
            raise HFileWriteError(f"two records with key {shown!r}: an HFile holds one per key")
    buffer = io.BytesIO()
    values: list[bytes] = []
    for key, record in keyed:
        buffer.seek(0)
        buffer.truncate()
        try:
            fastavro.schemaless_writer(buffer, parsed, {**record, KEY_FIELD: ""})
        except Exception as e:  # fastavro raises many types on a misfit record
            raise HFileWriteError(
                f"record {key.decode('utf-8', 'replace')!r} does not fit the schema: {type(e).__name__}: {e}"
            ) from e
        values.append(buffer.getvalue())
    return keys, values


def _keyed_cells(records: KeyedRecords, parsed: Any) -> tuple[list[bytes], list[bytes]]:
    """:func:`_cells` of records sharing payloads: each payload encoded once, keys sorted by Arrow.

    The bytes are those of the per-record path: a value with the key blanked depends only on the
    payload, and Arrow orders binary keys by unsigned bytes as Python does.
    """
    keys = records.keys.cast(pa.binary())
    if keys.null_count:
        raise HFileWriteError(f"record has no string {KEY_FIELD!r} field: None")
    order = pc.sort_indices(keys)
    ordered = keys.take(order)
    if len(ordered) > 1:
        same = pc.equal(ordered.slice(1), ordered.slice(0, len(ordered) - 1))
        if pc.any(same).as_py():
            key = ordered[int(pc.index(same, True).as_py())].as_py()
            shown = key.decode("utf-8", "replace")
            raise HFileWriteError(f"two records with key {shown!r}: an HFile holds one per key")
    index = records.payload_index[order.to_numpy()]
    buffer = io.BytesIO()
    encoded: dict[int, bytes] = {}
    for p in np.unique(index).tolist():
        buffer.seek(0)
        buffer.truncate()
        try:
            fastavro.schemaless_writer(buffer, parsed, {**records.payloads[p], KEY_FIELD: ""})
        except Exception as e:  # fastavro raises many types on a misfit record
            first = ordered[int(np.argmax(index == p))].as_py().decode("utf-8", "replace")
            raise HFileWriteError(f"record {first!r} does not fit the schema: {type(e).__name__}: {e}") from e
        encoded[p] = buffer.getvalue()
    return ordered.to_pylist(), [encoded[p] for p in index.tolist()]


@lru_cache(maxsize=16)
def _schema_for_write(text: str) -> Any:
    # Parsed once per process per schema: the metadata table writes many files of one schema.
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as e:
        raise HFileWriteError(f"schema is not JSON: {e}") from e
    if not isinstance(parsed, dict) or parsed.get("type") != "record":
        raise HFileWriteError("schema is not an Avro record schema")
    if KEY_FIELD not in {f.get("name") for f in parsed.get("fields", [])}:
        raise HFileWriteError(f"schema has no {KEY_FIELD!r} field to key the cells by")
    try:
        return fastavro.parse_schema(strip_logical_types(parsed))
    except Exception as e:  # a broken schema fails in many ways
        raise HFileWriteError(f"schema is not a usable Avro record schema: {e}") from e
