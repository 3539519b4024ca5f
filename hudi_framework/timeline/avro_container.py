"""Avro object container files as Hudi's timeline writes them, and the exact Java writer schemas.

Java writes every Avro timeline file (``TimelineMetadataUtils.serializeAvroMetadata``) as a
container with codec null, one block holding one record, and ``avro.schema`` as the only header
key. We write the same layout by hand so the header carries Java's schema text byte for byte; the
record itself is encoded with fastavro, whose datum encoding matches Java's.
"""

from __future__ import annotations

import enum
import functools
import io
import json
import os
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

import fastavro

from hudi_framework.errors import InstantMetadataError

#: Namespace of every Hudi timeline record.
AVRO_NAMESPACE: Final = "org.apache.hudi.avro.model"
#: First bytes of an Avro object container file.
AVRO_MAGIC: Final = b"Obj\x01"
_SYNC_SIZE: Final = 16


class AvroSchemaName(enum.StrEnum):
    """Timeline record schemas shipped in ``hudi_framework/timeline/schemas``."""

    COMMIT_METADATA = "HoodieCommitMetadata"
    REPLACE_COMMIT_METADATA = "HoodieReplaceCommitMetadata"
    REQUESTED_REPLACE_METADATA = "HoodieRequestedReplaceMetadata"
    COMPACTION_PLAN = "HoodieCompactionPlan"
    ROLLBACK_PLAN = "HoodieRollbackPlan"
    ROLLBACK_METADATA = "HoodieRollbackMetadata"
    INDEX_PLAN = "HoodieIndexPlan"
    INDEX_COMMIT_METADATA = "HoodieIndexCommitMetadata"
    CLEANER_PLAN = "HoodieCleanerPlan"
    CLEAN_METADATA = "HoodieCleanMetadata"
    SAVEPOINT_METADATA = "HoodieSavepointMetadata"
    RESTORE_PLAN = "HoodieRestorePlan"
    RESTORE_METADATA = "HoodieRestoreMetadata"
    ARCHIVED_META_ENTRY = "HoodieArchivedMetaEntry"


@dataclass(frozen=True, slots=True)
class AvroRecord:
    """The single record of a timeline Avro file.

    Attributes:
        schema_name: The record's full name, e.g. ``org.apache.hudi.avro.model.HoodieCleanerPlan``.
        writer_schema: The ``avro.schema`` header text.
        record: The decoded record (field names as in the schema).
        datum: The record's raw Avro binary encoding (for byte-level comparisons).
    """

    schema_name: str
    writer_schema: str
    record: dict[str, Any]
    datum: bytes

    @property
    def short_name(self) -> str:
        """The record name without namespace."""
        return self.schema_name.rsplit(".", 1)[-1]


@functools.cache
def schema_text(name: AvroSchemaName) -> str:
    """The exact Java writer-schema text of ``name`` (read lazily from package data)."""
    path = resources.files("hudi_framework.timeline.schemas").joinpath(f"{name.value}.avsc")
    return path.read_text(encoding="utf-8").strip()


@functools.lru_cache(maxsize=64)
def _parse_schema_text(text: str) -> Any:
    # Timelines repeat a handful of writer schemas; parsing each once keeps listing fast.
    return fastavro.parse_schema(json.loads(text), named_schemas={})


def parsed_schema(name: AvroSchemaName) -> Any:
    """The fastavro-parsed schema of ``name``."""
    return _parse_schema_text(schema_text(name))


def encode_datum(name: AvroSchemaName, record: dict[str, Any]) -> bytes:
    """Avro binary encoding of ``record`` (every field should be present; missing ones take defaults)."""
    buf = io.BytesIO()
    fastavro.schemaless_writer(buf, parsed_schema(name), record)
    return buf.getvalue()


def _zigzag(value: int) -> bytes:
    n = (value << 1) ^ (value >> 63)
    out = bytearray()
    while n & ~0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def write_container(name: AvroSchemaName, record: dict[str, Any], *, sync_marker: bytes | None = None) -> bytes:
    """Encode ``record`` as a Java-style container file (codec null, one block, one record).

    Args:
        name: The schema to write with; its exact Java text goes in the header.
        record: The record.
        sync_marker: 16 bytes; random when omitted (as Java does). Tests pass a fixture's marker to
            compare whole files.
    """
    sync = sync_marker if sync_marker is not None else os.urandom(_SYNC_SIZE)
    if len(sync) != _SYNC_SIZE:
        raise ValueError("sync marker must be 16 bytes")
    schema = schema_text(name).encode("utf-8")
    key = b"avro.schema"
    datum = encode_datum(name, record)
    header = b"".join((AVRO_MAGIC, _zigzag(1), _zigzag(len(key)), key, _zigzag(len(schema)), schema, _zigzag(0), sync))
    return b"".join((header, _zigzag(1), _zigzag(len(datum)), datum, sync))


def _read_long(buf: io.BytesIO) -> int:
    shift = 0
    acc = 0
    while True:
        raw = buf.read(1)
        if not raw:
            raise EOFError("truncated varint")
        acc |= (raw[0] & 0x7F) << shift
        shift += 7
        if not raw[0] & 0x80:
            return (acc >> 1) ^ -(acc & 1)


def _read_header(buf: io.BytesIO) -> dict[str, bytes]:
    meta: dict[str, bytes] = {}
    while True:
        count = _read_long(buf)
        if count == 0:
            return meta
        if count < 0:  # a negative count is followed by the block's byte size
            _read_long(buf)
            count = -count
        for _ in range(count):
            key = buf.read(_read_long(buf)).decode("utf-8")
            meta[key] = buf.read(_read_long(buf))


def read_container(data: bytes, *, path: str = "<bytes>") -> AvroRecord:
    """Decode a timeline Avro file holding exactly one record.

    Raises:
        InstantMetadataError: Not an Avro container, truncated, or not exactly one record.
    """
    if not data.startswith(AVRO_MAGIC):
        raise InstantMetadataError(path, "not an Avro object container file")
    try:
        buf = io.BytesIO(data)
        buf.seek(len(AVRO_MAGIC))
        meta = _read_header(buf)
        writer_schema = meta["avro.schema"].decode("utf-8")
        codec = meta.get("avro.codec", b"null").decode("ascii")
        schema = _parse_schema_text(writer_schema)
        sync = buf.read(_SYNC_SIZE)
        if codec != "null":
            # Hudi writes codec null; other codecs are left to fastavro's full reader.
            records: list[Any] = list(fastavro.reader(io.BytesIO(data)))
            datum = b""
        else:
            records, datum = _read_null_blocks(buf, len(data), schema, sync)
    except InstantMetadataError:
        raise
    except (EOFError, KeyError, ValueError, TypeError, IndexError, UnicodeDecodeError) as e:
        raise InstantMetadataError(path, f"corrupt Avro container: {type(e).__name__}: {e}") from e
    if len(records) != 1 or not isinstance(records[0], dict):
        raise InstantMetadataError(path, f"expected one record, found {len(records)} values")
    name = schema["name"] if isinstance(schema, dict) else str(schema)
    return AvroRecord(name, writer_schema, records[0], datum)


def _read_null_blocks(buf: io.BytesIO, total: int, schema: Any, sync: bytes) -> tuple[list[Any], bytes]:
    records: list[Any] = []
    datum = b""
    while buf.tell() < total:
        count = _read_long(buf)
        size = _read_long(buf)
        block = buf.read(size)
        if len(block) != size or buf.read(_SYNC_SIZE) != sync:
            raise ValueError("block truncated or sync marker mismatch")
        block_buf = io.BytesIO(block)
        for _ in range(count):
            start = block_buf.tell()
            records.append(fastavro.schemaless_reader(block_buf, schema, None))
            datum = block[start : block_buf.tell()]
    return records, datum


def read_named_record(data: bytes, name: AvroSchemaName, *, path: str = "<bytes>") -> dict[str, Any]:
    """The one record of a timeline Avro file whose writer schema is ``name`` (a plan or metadata file).

    Raises:
        InstantMetadataError: Empty, not a one-record Avro container, or another schema.
    """
    if not data:
        raise InstantMetadataError(path, f"empty {name.value} file")
    avro = read_container(data, path=path)
    if avro.short_name != name.value:
        raise InstantMetadataError(path, f"expected {name.value}, found {avro.schema_name}")
    record: dict[str, Any] = avro.record
    return record
