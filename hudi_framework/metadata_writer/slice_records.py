"""MDT file slices as records: the base file, then the log blocks of completed MDT instants in order
(rollback command blocks dropping their target's blocks), merged per key with the partition
builder's rule; DELETE blocks remove keys. Records are dicts as the HFile encoder takes them, so a
merged slice can be written back (compaction) or aggregated (partition statistics)."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import Any

import fastavro

from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.errors import HudiError, MetadataTableUnusableError
from hudi_framework.layout.file_group import FileSlice
from hudi_framework.log.avro_arrow import strip_logical_types
from hudi_framework.log.blocks import CommandBlock, CorruptBlock, DeleteBlock, HeaderKey, HFileBlock
from hudi_framework.log.hfile import read_hfile
from hudi_framework.log.hfile_records import KEY_FIELD, hfile_schema_text
from hudi_framework.log.reader import read_log_bytes
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.metadata.records import METADATA_TABLE_DIR
from hudi_framework.metadata_writer.mdt_timeline import metadata_record_schema_text
from hudi_framework.metadata_writer.partition_builder import MetadataRecord, PartitionBuilder

__all__ = ["SliceRecords"]


class SliceRecords:
    """Reads MDT file slices as records (dicts, as the HFile encoder takes them), merged per key."""

    def __init__(self, storage: StorageBackend, mdt: MetadataTable) -> None:
        self._storage = storage
        self._mdt = mdt
        self._completed = mdt.completed_instants()
        instants = mdt.timeline.instants
        self._start = instants[0].requested_time if instants else None
        self._reader_schema = self._parse(metadata_record_schema_text(with_meta_fields=True))
        self._writers: dict[str, Any] = {}

    @staticmethod
    def _parse(text: str) -> Any:
        return fastavro.parse_schema(strip_logical_types(json.loads(text)))

    def _records(self, content: bytes, schema: str | None, where: str) -> list[MetadataRecord]:
        try:
            text = schema if schema is not None else hfile_schema_text(content)
            writer = self._writers.get(text)
            if writer is None:
                writer = self._writers[text] = self._parse(text)
            out: list[MetadataRecord] = []
            for row_key, value in read_hfile(content):
                record: Any = fastavro.schemaless_reader(
                    io.BytesIO(value),
                    writer,
                    self._reader_schema,
                    return_record_name=True,
                    return_record_name_override=True,
                )
                record[KEY_FIELD] = row_key.decode("utf-8")
                out.append(record)
            return out
        except HudiError as e:
            raise MetadataTableUnusableError(f"{where!r} does not decode: {e}") from e

    def _valid(self, instant: str | None) -> bool:
        return instant is not None and (
            instant in self._completed or (self._start is not None and instant < self._start)
        )

    def merge(self, builder: PartitionBuilder, file_slice: FileSlice) -> list[MetadataRecord]:
        """The records of ``file_slice`` merged per key with ``builder``'s rules, as a base file holds them."""
        keys = ([file_slice.base_file_key] if file_slice.base_file_key else []) + list(file_slice.log_file_keys)
        contents = dict(zip(keys, self._storage.read_many([f"{METADATA_TABLE_DIR}/{k}" for k in keys]), strict=True))
        # (instant, records or deleted keys) per block, so rollback command blocks can drop theirs.
        steps: list[tuple[str | None, Sequence[MetadataRecord] | None, Sequence[str]]] = []
        if file_slice.base_file_key is not None:
            steps.append((None, self._records(contents[file_slice.base_file_key], None, file_slice.base_file_key), ()))
        for log_key in file_slice.log_file_keys:
            full = f"{METADATA_TABLE_DIR}/{log_key}"
            for block in read_log_bytes(contents[log_key], path=full):
                if isinstance(block, CorruptBlock):
                    raise MetadataTableUnusableError(f"log file {full!r} has a corrupt block: {block.reason}")
                instant = block.header.get(HeaderKey.INSTANT_TIME)
                if isinstance(block, CommandBlock):
                    steps = [s for s in steps if s[0] is None or s[0] != block.target_instant_time]
                elif not self._valid(instant):
                    continue
                elif isinstance(block, HFileBlock):
                    schema = block.header.get(HeaderKey.SCHEMA)
                    steps.append((instant, self._records(block.content, schema, full), ()))
                elif isinstance(block, DeleteBlock):
                    steps.append((instant, None, [str(k) for k in block.columns.record_keys.to_pylist()]))
        merged: dict[str, MetadataRecord] = {}
        for _, records, deletes in steps:
            for record in records or ():
                key = record[KEY_FIELD]
                older = merged.get(key)
                merged[key] = record if older is None else builder.combine(older, record)
            for key in deletes:
                merged.pop(key, None)
        out = [builder.compacted(r) for _, r in sorted(merged.items())]
        return [r for r in out if r is not None]
