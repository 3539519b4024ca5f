"""Compacting the metadata table (MDT): every file group with log files gets a new base HFile.

Once ``hoodie.metadata.compact.max.delta.commits`` delta commits completed since the MDT's last
compaction, one ``compaction`` (Apache Hudi's plan, completed as a ``commit`` with ``COMPACT``) at a
fresh instant merges each file group's latest slice (the base file, then the log blocks of
completed MDT instants in order, DELETE blocks removing keys) with its partition builder's merge
rule, and writes the merged records as the group's new base file.

A compaction is skipped while the data timeline has a pending instant whose MDT delta commit
completed (a crashed write): its records must stay in a log file its rollback can delete.
"""

from __future__ import annotations

import io
import json
import time
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
from hudi_framework.metadata.file_groups import write_base_file
from hudi_framework.metadata.mdt_timeline import mdt_commit_metadata, mdt_timeline_writer, metadata_record_schema_text
from hudi_framework.metadata.partition_builder import MetadataRecord, PartitionBuilder
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.metadata.records import METADATA_TABLE_DIR
from hudi_framework.metadata.sync import kept_partitions
from hudi_framework.services.compaction_plan import CompactionOperation, CompactionPlan, encode_compaction_plan
from hudi_framework.table.properties import load_properties
from hudi_framework.table.table_config import TableConfig
from hudi_framework.timeline.instant import Action
from hudi_framework.timeline.instant_time import InstantTimeGenerator
from hudi_framework.timeline.timeline import Timeline
from hudi_framework.vocabulary import TimelineTimezone

__all__ = ["compact_metadata_table"]


def compact_metadata_table(
    storage: StorageBackend, config: TableConfig, data_timeline: Timeline, *, max_delta_commits: int
) -> str | None:
    """Compact the MDT when it is due; the compaction instant, or None."""
    writer = mdt_timeline_writer(storage, config.timeline_timezone)
    mdt_timeline = writer.timeline()
    if mdt_timeline.pending():
        return None  # an MDT write in flight or crashed: its data instant's rollback settles it first
    completed = mdt_timeline.completed()
    compactions = [i for i in completed if i.action is Action.COMMIT]
    since = max((i.completion_time or "" for i in compactions), default="")
    deltas = [i for i in completed if i.action is Action.DELTA_COMMIT and (i.completion_time or "") > since]
    if len(deltas) < max_delta_commits:
        return None
    mdt_done = {i.requested_time for i in deltas}
    if any(i.requested_time in mdt_done for i in data_timeline.pending()):
        return None
    mdt = MetadataTable.open(storage, load_properties(storage))
    if mdt is None:
        return None
    listed = set(config.metadata_partitions)
    work: list[tuple[PartitionBuilder, FileSlice]] = [
        (builder, file_slice)
        for builder in kept_partitions(config)
        if builder.partition in listed
        for file_slice in mdt.file_slices(builder.partition)
        if file_slice.log_files
    ]
    if not work:
        return None
    instant_time = writer.generator.next(after=max(mdt_timeline.instants[-1].requested_time, _newest(data_timeline)))
    plan = CompactionPlan(
        operations=tuple(
            CompactionOperation(
                file_group=s.file_group_id,
                base_instant_time=s.base_instant_time,
                delta_file_names=tuple(s.log_file_names),
                data_file_name=s.base_file_name,
            )
            for _, s in work
        )
    )
    requested = writer.create_requested(Action.COMPACTION, instant_time, content=encode_compaction_plan(plan))
    inflight = writer.transition_to_inflight(requested)
    merger = _SliceMerger(storage, mdt)
    stats = [
        write_base_file(storage, builder.partition, s.file_id, instant_time, merger.merge(builder, s))
        for builder, s in work
    ]
    writer.complete(inflight, mdt_commit_metadata(stats, "COMPACT", compacted=True))
    # The next data instant must be newer than the compaction: its MDT delta commit then belongs
    # to the new slice and never shares the compaction's time.
    clock = InstantTimeGenerator(TimelineTimezone(config.timeline_timezone))
    while clock.next() <= instant_time:
        time.sleep(0.001)
    return instant_time


def _newest(timeline: Timeline) -> str:
    return timeline.instants[-1].requested_time if timeline.instants else ""


class _SliceMerger:
    """Merges MDT file slices record by record (records as the HFile encoder takes them)."""

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
