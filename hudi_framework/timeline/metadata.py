"""Commit metadata: ``HoodieCommitMetadata``, ``HoodieReplaceCommitMetadata`` and ``HoodieWriteStat``.

Two encodings (hudi-format.md §2.3-2.4):

* layout 1 (v6): UTF-8 JSON as Jackson pretty-prints Java's classes (``CommitMetadataSerDeV1``);
* layout 2 (v8+): an Avro container with the exact Java writer schema (``CommitMetadataSerDeV2``).

Decoding sniffs the content instead of trusting the layout, as Java's V2 reader does: Avro when the
bytes start with the container magic, JSON otherwise (legacy instants), and an empty instance for
a zero-length file (a requested or empty inflight file).
"""

from __future__ import annotations

import json
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from hudi_framework.errors import InstantMetadataError
from hudi_framework.timeline._jackson import dumps_pretty
from hudi_framework.timeline.avro_container import AVRO_MAGIC, AvroSchemaName, read_container, write_container
from hudi_framework.timeline.naming import LAYOUT_V1, check_layout


class _HudiModel(BaseModel):
    # Java field names are camelCase; unknown keys are ignored like Java's JSON mapper does.
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class RuntimeStats(_HudiModel):
    """``HoodieRuntimeStats``: timings of one write, in milliseconds."""

    total_scan_time: int | None = None
    total_create_time: int | None = None
    total_upsert_time: int | None = None


class WriteStat(_HudiModel):
    """``HoodieWriteStat`` (and v6's ``HoodieDeltaWriteStat``): what one task wrote to one file.

    Fields follow the Avro schema's order; every one is optional. See hudi-format.md §2.4 for the
    value conventions (``path`` relative to the base path, ``prevCommit`` the string ``"null"``
    for a new file group, and so on).
    """

    file_id: str | None = None
    path: str | None = None
    prev_commit: str | None = None
    num_writes: int | None = None
    num_deletes: int | None = None
    num_update_writes: int | None = None
    total_write_bytes: int | None = None
    total_write_errors: int | None = None
    partition_path: str | None = None
    total_log_records: int | None = None
    total_log_files: int | None = None
    total_updated_records_compacted: int | None = None
    num_inserts: int | None = None
    total_log_blocks: int | None = None
    total_corrupt_log_block: int | None = None
    total_rollback_blocks: int | None = None
    file_size_in_bytes: int | None = None
    log_version: int | None = None
    log_offset: int | None = None
    base_file: str | None = None
    log_files: list[str] | None = None
    cdc_stats: dict[str, int] | None = None
    prev_base_file: str | None = None
    min_event_time: int | None = None
    max_event_time: int | None = None
    runtime_stats: RuntimeStats | None = None
    total_log_files_compacted: int | None = None
    total_log_read_time_ms: int | None = None
    total_log_size_compacted: int | None = None
    temp_path: str | None = None
    num_updates: int | None = None
    #: v6 JSON only (``HoodieDeltaWriteStat.recordsStats``); not part of the Avro record.
    records_stats: dict[str, Any] | None = None

    @property
    def is_delta(self) -> bool:
        """Whether this stat describes a log-file write (Java's ``HoodieDeltaWriteStat``)."""
        return any(v is not None for v in (self.log_version, self.log_offset, self.base_file, self.log_files))


class CommitMetadata(_HudiModel):
    """``HoodieCommitMetadata``: the body of commit, deltacommit and compaction ``.commit`` files."""

    partition_to_write_stats: dict[str, list[WriteStat]] | None = Field(default_factory=dict)
    compacted: bool | None = False
    extra_metadata: dict[str, str] | None = Field(default_factory=dict)
    #: Avro only; Java writes null.
    version: int | None = None
    #: A :class:`WriteOperationType` name such as ``"UPSERT"``.
    operation_type: str | None = None

    def write_stats(self) -> list[WriteStat]:
        """Every write stat, partition by partition."""
        return [s for stats in (self.partition_to_write_stats or {}).values() for s in stats]

    @property
    def writer_schema(self) -> str | None:
        """``extraMetadata["schema"]``: the writer's Avro schema without meta fields, if recorded."""
        return (self.extra_metadata or {}).get("schema")


class ReplaceCommitMetadata(CommitMetadata):
    """``HoodieReplaceCommitMetadata``: commit metadata plus the file groups a replacecommit replaces."""

    partition_to_replace_file_ids: dict[str, list[str]] | None = Field(default_factory=dict)

    def replaced_file_ids(self) -> list[tuple[str, str]]:
        """``(partition, file id)`` of every replaced file group."""
        return [(p, f) for p, ids in (self.partition_to_replace_file_ids or {}).items() for f in ids]


# ------------------------------------------------------------------------------------------- JSON
#: Key order of Java 0.x's Jackson output for ``HoodieWriteStat`` (field declaration order).
_JSON_STAT_KEYS: Final = (
    "file_id", "path", "cdc_stats", "prev_commit", "num_writes", "num_deletes", "num_update_writes",
    "num_inserts", "total_write_bytes", "total_write_errors", "temp_path", "partition_path",
    "total_log_records", "total_log_files_compacted", "total_log_size_compacted",
    "total_updated_records_compacted", "total_log_blocks", "total_corrupt_log_block",
    "total_rollback_blocks", "file_size_in_bytes", "min_event_time", "max_event_time",
)  # fmt: skip
#: Fields Java 1.x added to the class; written only when set so 0.x-shaped files stay identical.
_JSON_STAT_OPTIONAL_KEYS: Final = (
    "total_log_files",
    "prev_base_file",
    "total_log_read_time_ms",
    "num_updates",
)
_JSON_DELTA_KEYS: Final = ("log_version", "log_offset", "base_file", "log_files")


def _stat_to_json(stat: WriteStat) -> dict[str, Any]:
    out: dict[str, Any] = {to_camel(k): getattr(stat, k) for k in _JSON_STAT_KEYS}
    rt = stat.runtime_stats
    out["runtimeStats"] = (
        None
        if rt is None
        else {
            "totalScanTime": rt.total_scan_time,
            "totalUpsertTime": rt.total_upsert_time,
            "totalCreateTime": rt.total_create_time,
        }
    )
    for key in _JSON_STAT_OPTIONAL_KEYS:
        if (value := getattr(stat, key)) is not None:
            out[to_camel(key)] = value
    if stat.is_delta:
        out.update({to_camel(k): getattr(stat, k) for k in _JSON_DELTA_KEYS})
        out["recordsStats"] = stat.records_stats if stat.records_stats is not None else {"val": None}
    return out


def commit_metadata_to_json(metadata: CommitMetadata) -> bytes:
    """Encode as v6 JSON, byte-compatible with Java's Jackson pretty printer."""
    doc: dict[str, Any] = {
        "partitionToWriteStats": {
            p: [_stat_to_json(s) for s in stats] for p, stats in (metadata.partition_to_write_stats or {}).items()
        },
        "compacted": bool(metadata.compacted),
        "extraMetadata": dict(metadata.extra_metadata or {}),
        "operationType": metadata.operation_type,
    }
    if isinstance(metadata, ReplaceCommitMetadata):
        doc["partitionToReplaceFileIds"] = dict(metadata.partition_to_replace_file_ids or {})
    return dumps_pretty(doc).encode("utf-8")


# ------------------------------------------------------------------------------------------- Avro
def _stat_to_avro(stat: WriteStat) -> dict[str, Any]:
    return stat.model_dump(by_alias=True, exclude={"records_stats"})


def commit_metadata_to_avro_record(metadata: CommitMetadata) -> dict[str, Any]:
    """The Avro record (camelCase keys, every schema field present, in schema order)."""
    record: dict[str, Any] = {
        "partitionToWriteStats": None
        if metadata.partition_to_write_stats is None
        else {p: [_stat_to_avro(s) for s in stats] for p, stats in metadata.partition_to_write_stats.items()},
        "compacted": metadata.compacted,
        "extraMetadata": None if metadata.extra_metadata is None else dict(metadata.extra_metadata),
        "version": metadata.version,
        "operationType": metadata.operation_type,
    }
    if isinstance(metadata, ReplaceCommitMetadata):
        ids = metadata.partition_to_replace_file_ids
        record["partitionToReplaceFileIds"] = None if ids is None else {p: list(v) for p, v in ids.items()}
    return record


def commit_metadata_to_avro(metadata: CommitMetadata, *, sync_marker: bytes | None = None) -> bytes:
    """Encode as a v8+ Avro container with Java's exact writer schema."""
    name = (
        AvroSchemaName.REPLACE_COMMIT_METADATA
        if isinstance(metadata, ReplaceCommitMetadata)
        else AvroSchemaName.COMMIT_METADATA
    )
    return write_container(name, commit_metadata_to_avro_record(metadata), sync_marker=sync_marker)


def encode_commit_metadata(metadata: CommitMetadata, layout_version: int) -> bytes:
    """Encode for a timeline layout: JSON for layout 1, Avro for layout 2."""
    if check_layout(layout_version) == LAYOUT_V1:
        return commit_metadata_to_json(metadata)
    return commit_metadata_to_avro(metadata)


# ----------------------------------------------------------------------------------------- decode
_AVRO_NAMES: Final = frozenset({AvroSchemaName.COMMIT_METADATA.value, AvroSchemaName.REPLACE_COMMIT_METADATA.value})


def _decode_record(data: bytes, path: str) -> tuple[dict[str, Any], bool]:
    """The commit metadata record of non-empty content, and whether it is replacecommit metadata."""
    if data.startswith(AVRO_MAGIC):
        avro = read_container(data, path=path)
        if avro.short_name not in _AVRO_NAMES:
            raise InstantMetadataError(path, f"expected commit metadata, found Avro record {avro.schema_name}")
        return avro.record, avro.short_name == AvroSchemaName.REPLACE_COMMIT_METADATA.value
    try:
        record = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InstantMetadataError(path, f"neither Avro nor JSON: {e}") from e
    if not isinstance(record, dict):
        raise InstantMetadataError(path, "JSON commit metadata must be an object")
    return record, "partitionToReplaceFileIds" in record


def decode_commit_metadata(data: bytes, *, replace: bool | None = None, path: str = "<bytes>") -> CommitMetadata:
    """Decode commit metadata in either encoding.

    Args:
        data: File content: Avro container, JSON, or empty.
        replace: Force the result type (True for replacecommits); None infers it from the Avro
            schema name or the presence of ``partitionToReplaceFileIds`` in JSON.
        path: Used in error messages.

    Raises:
        InstantMetadataError: The content is neither valid Avro commit metadata nor valid JSON.
    """
    if not data.strip():
        return ReplaceCommitMetadata() if replace else CommitMetadata()
    record, is_replace = _decode_record(data, path)
    cls = ReplaceCommitMetadata if (is_replace if replace is None else replace) else CommitMetadata
    try:
        return cls.model_validate(record)
    except ValidationError as e:
        raise InstantMetadataError(path, f"invalid commit metadata: {e}") from e


def decode_written_files(data: bytes, *, path: str = "<bytes>") -> tuple[tuple[str, str], ...]:
    """``(partition path, file name)`` of every file the write stats of commit metadata name.

    Only the stats' ``path`` and ``partitionPath`` are looked at, without validating the whole
    metadata: the file-system view cross-checks its listing against these names on every read and
    write, so this stays cheap. The name is the last segment of ``path``; the partition is the
    stat's ``partitionPath`` (the map key when the stat has none).

    Raises:
        InstantMetadataError: The content is neither Avro commit metadata nor a JSON object.
    """
    if not data.strip():
        return ()
    record, _ = _decode_record(data, path)
    by_partition = record.get("partitionToWriteStats") or {}
    if not isinstance(by_partition, dict) or not all(isinstance(v, list | None) for v in by_partition.values()):
        raise InstantMetadataError(path, "partitionToWriteStats must map partitions to lists of write stats")
    out: list[tuple[str, str]] = []
    for partition, stats in by_partition.items():
        for stat in stats or ():
            file_path = stat.get("path") if isinstance(stat, dict) else None
            if not isinstance(file_path, str) or file_path in ("", "null"):
                continue
            stat_partition = stat.get("partitionPath")
            out.append((stat_partition if isinstance(stat_partition, str) else partition, file_path.rsplit("/", 1)[-1]))
    return tuple(out)
