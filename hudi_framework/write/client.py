"""``WriteClient``: the write operations of a copy-on-write table, on pyarrow data (local engine).

Every operation is one instant: keys are generated and validated first (nothing is written for a
batch with a null key or an incompatible schema), duplicates are pre-combined by the table's merger,
keys are tagged by the index, rows are routed to file groups, each file group is rewritten once by
:func:`~hudi_framework.write.file_group_task.write_file_group`, and the commit completes last. Any
failure after the instant started deletes what the write produced (by markers) and the instant.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from hudi_framework.config.settings import HudiSettings
from hudi_framework.contracts.keygen import KeyGenerator
from hudi_framework.contracts.merger import MergeContext, RecordMerger
from hudi_framework.errors import TableError
from hudi_framework.index.tagging import tag_locations
from hudi_framework.merge.choose import build_merger
from hudi_framework.model.keys import build_key_generator
from hudi_framework.model.schema import META_FIELDS, arrow_to_avro, avro_json
from hudi_framework.plugin.registry import ComponentKind
from hudi_framework.table.table import HudiTable
from hudi_framework.table.table_config import TableType
from hudi_framework.timeline.instant import Instant
from hudi_framework.timeline.metadata import WriteStat
from hudi_framework.write.base_file_writer import ParquetOptions
from hudi_framework.write.batch import conform_batch, normalised_schema
from hudi_framework.write.file_group_task import WriteTaskContext, write_file_group
from hudi_framework.write.operation import WriteOperation
from hudi_framework.write.planner import IS_DELETED, PARTITION_PATH, RECORD_KEY, WritePlan, plan_write, split_by_target
from hudi_framework.write.sizing import SizingOptions
from hudi_framework.write.transaction import WriteTransaction


@dataclass(frozen=True, slots=True)
class WriteResult:
    """What one write did."""

    instant: Instant
    operation: WriteOperation
    stats: tuple[WriteStat, ...]

    @property
    def num_writes(self) -> int:
        """Rows in the files written."""
        return sum(s.num_writes or 0 for s in self.stats)

    @property
    def num_inserts(self) -> int:
        """New keys."""
        return sum(s.num_inserts or 0 for s in self.stats)

    @property
    def num_updates(self) -> int:
        """Updated keys."""
        return sum(s.num_update_writes or 0 for s in self.stats)

    @property
    def num_deletes(self) -> int:
        """Deleted keys."""
        return sum(s.num_deletes or 0 for s in self.stats)


class WriteClient:
    """Write operations on one table with the in-process (``local``) engine."""

    def __init__(self, table: HudiTable, settings: HudiSettings | None = None) -> None:
        """Bind to ``table``; ``settings`` supply write, index and merger options (defaults otherwise)."""
        if table.config.table_type is not TableType.COPY_ON_WRITE:
            raise TableError(f"table {table.config.name!r} is MERGE_ON_READ; merge-on-read writes come with issue 5")
        self._table = table
        self._settings = settings or HudiSettings()
        registry = table.registry
        self._keygen: KeyGenerator = build_key_generator(registry, table.config)
        self._merger: RecordMerger = build_merger(registry, self._settings.merger, table.config.ordering_fields)
        index_ref = self._settings.index.component
        self._index = registry.build(ComponentKind.INDEX, index_ref.name, index_ref.options, field_path="index")

    @property
    def table(self) -> HudiTable:
        """The table written to."""
        return self._table

    # ------------------------------------------------------------------ operations
    def upsert(self, data: pa.Table) -> WriteResult:
        """Insert new keys and update existing ones (merged by the table's merger)."""
        return self.write(data, WriteOperation.UPSERT)

    def insert(self, data: pa.Table) -> WriteResult:
        """Insert rows without looking up existing keys (duplicates of stored keys are possible)."""
        return self.write(data, WriteOperation.INSERT)

    def bulk_insert(self, data: pa.Table) -> WriteResult:
        """Insert rows into new file groups only (fastest initial load)."""
        return self.write(data, WriteOperation.BULK_INSERT)

    def delete(self, data: pa.Table) -> WriteResult:
        """Delete the records whose keys ``data`` holds (rows or just the key and partition columns)."""
        return self.write(data, WriteOperation.DELETE)

    def insert_overwrite(self, data: pa.Table) -> WriteResult:
        """Replace every file group of the partitions ``data`` touches with ``data``."""
        return self.write(data, WriteOperation.INSERT_OVERWRITE)

    def insert_overwrite_table(self, data: pa.Table) -> WriteResult:
        """Replace the whole table with ``data``."""
        return self.write(data, WriteOperation.INSERT_OVERWRITE_TABLE)

    def delete_partition(self, partitions: Sequence[str]) -> WriteResult:
        """Drop whole partitions (a replacecommit; files stay until cleaning)."""
        return self._run(WriteOperation.DELETE_PARTITION, None, list(partitions))

    def write(self, data: pa.Table, operation: WriteOperation | str) -> WriteResult:
        """Run ``operation`` on ``data``."""
        op = WriteOperation(operation)
        if op is WriteOperation.DELETE_PARTITION:
            raise ValueError("use delete_partition(partitions)")
        return self._run(op, data, [])

    # ------------------------------------------------------------------ the pipeline
    def _sizing(self) -> SizingOptions:
        w = self._settings.write
        return SizingOptions(w.small_file_limit_bytes, w.max_file_size_bytes, w.record_size_estimate)

    def _record_size(self) -> int:
        latest = self._table.timeline.latest_completed_commit()
        if latest is not None:
            stats = self._table.timeline.read_commit_metadata(latest).write_stats()
            written = sum(s.num_writes or 0 for s in stats)
            size = sum(s.total_write_bytes or 0 for s in stats)
            if written > 0 and size > 0:
                return max(1, size // written)
        return self._settings.write.record_size_estimate

    def _data_schema(self, data: pa.Table | None) -> pa.Schema:
        try:
            return self._table.schema()
        except TableError:
            if data is None:
                raise
            return normalised_schema(data.schema, self._table.config.name)

    def _prepare(self, op: WriteOperation, data: pa.Table, schema: pa.Schema) -> pa.Table:
        cfg = self._table.config
        if op is WriteOperation.DELETE:
            keys_only = conform_batch(data, schema, allow_missing=True)
            rows = keys_only.append_column(RECORD_KEY, self._keygen.record_keys(keys_only))
            rows = rows.append_column(PARTITION_PATH, self._keygen.partition_paths(keys_only))
            rows = rows.append_column(IS_DELETED, pa.array(np.ones(rows.num_rows, dtype=bool)))
            return rows
        conformed = conform_batch(data, schema, allow_missing=False)
        rows = conformed.append_column(RECORD_KEY, self._keygen.record_keys(conformed))
        rows = rows.append_column(PARTITION_PATH, self._keygen.partition_paths(conformed))
        combine = {
            WriteOperation.UPSERT: self._settings.write.combine_before_upsert,
            WriteOperation.INSERT: self._settings.write.combine_before_insert,
        }.get(op, False)
        if combine:
            rows = self._merger.combine(rows, MergeContext(ordering_fields=cfg.ordering_fields))
        return rows

    def _run(self, op: WriteOperation, data: pa.Table | None, drop_partitions: list[str]) -> WriteResult:
        table = self._table.reload()
        cfg = table.config
        schema = self._data_schema(data)
        prepared = self._prepare(op, data, schema) if data is not None else None
        slices = table.latest_file_slices()
        if prepared is not None and op.looks_up_existing:
            prepared = tag_locations(self._index, prepared, slices, table.storage)
        key_cols = (
            prepared.select([c for c in prepared.column_names if c.startswith("_hoodie_")])
            if prepared is not None
            else pa.table({RECORD_KEY: pa.array([], pa.string()), PARTITION_PATH: pa.array([], pa.string())})
        )
        plan = plan_write(
            op,
            key_cols,
            slices,
            sizing=self._sizing(),
            record_size=self._record_size(),
            overwrite_partitions=drop_partitions,
        )
        meta = [pa.field(n, pa.string()) for n in META_FIELDS] if cfg.populate_meta_fields else []
        file_schema = pa.schema(meta + list(schema))
        txn = WriteTransaction(table.storage, cfg, op)
        txn.start()
        try:
            stats = self._execute(txn.instant_time, plan, prepared, file_schema)
            done = txn.commit(
                stats,
                schema_json=avro_json(arrow_to_avro(schema, cfg.name)),
                replaced=plan.replaced,
            )
        except BaseException:
            txn.abort()
            raise
        table.reload()
        return WriteResult(done, op, tuple(stats))

    def _execute(
        self, instant: str, plan: WritePlan, prepared: pa.Table | None, file_schema: pa.Schema
    ) -> list[WriteStat]:
        cfg = self._table.config
        if prepared is None or not plan.targets:
            return []
        rows = prepared
        # Keys moving partitions (global index): a delete row for the old file group.
        if len(plan.moved):
            moved_rows = rows.take(plan.moved)
            flag_idx = moved_rows.schema.get_field_index(IS_DELETED)
            flags = pa.array(np.ones(moved_rows.num_rows, dtype=bool))
            moved_rows = (
                moved_rows.set_column(flag_idx, IS_DELETED, flags)
                if flag_idx >= 0
                else moved_rows.append_column(IS_DELETED, flags)
            )
            if flag_idx < 0:
                rows = rows.append_column(IS_DELETED, pa.array(np.zeros(rows.num_rows, dtype=bool)))
            rows = pa.concat_tables([rows, moved_rows.select(rows.column_names)])
            routing = pa.concat_arrays([plan.routing, plan.moved_targets])
        else:
            routing = plan.routing
        rows = rows.drop_columns([c for c in rows.column_names if c.startswith("_hoodie_location_")])
        ctx = WriteTaskContext(
            instant=instant,
            schema=file_schema,
            ordering_fields=cfg.ordering_fields,
            populate_meta_fields=cfg.populate_meta_fields,
            parquet=ParquetOptions(compression=self._settings.write.parquet_compression_codec.value.lower()),
        )
        per_target = split_by_target(rows, routing, len(plan.targets))
        stats = []
        for task_id, (target, incoming) in enumerate(zip(plan.targets, per_target, strict=True)):
            stats.append(
                write_file_group(
                    self._table.storage,
                    self._merger,
                    ctx,
                    target,
                    incoming,
                    task_partition_id=task_id,
                    write_token=f"{task_id}-0-0",
                    keygen=self._keygen,
                )
            )
        return stats
