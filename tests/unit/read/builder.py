"""Build small copy-on-write tables by hand: base files written with pyarrow, instants with TimelineWriter.

Enough of a writer to test reads: each commit writes whole base files (with the five meta columns) and
commit metadata listing them, and may replace file groups; completion times can be chosen freely so
tests can complete instants out of requested-time order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.parquet as pq

from hudi_framework.contracts.partition_path import PartitionPathFormat
from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.layout.partition_metadata import write_partition_metadata
from hudi_framework.model.schema import arrow_to_avro, avro_json
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline import Action, Instant, ReplaceCommitMetadata, TimelineWriter
from hudi_framework.timeline.metadata import CommitMetadata, WriteStat
from hudi_framework.vocabulary import TimelineTimezone

SCHEMA = pa.schema([("id", pa.string()), ("ts", pa.int64()), ("fare", pa.float64()), ("city", pa.string())])


@dataclass(frozen=True)
class FileWrite:
    """One base file a commit writes: the full content of a file group's new version.

    ``commit_times`` gives each row's ``_hoodie_commit_time`` (rows carried over keep older ones);
    None stamps every row with the writing instant.
    """

    partition: str
    file_id: str
    rows: pa.Table
    commit_times: Sequence[str] | None = None


class TableBuilder:
    """A copy-on-write table under construction (partitioned by ``city`` unless told otherwise)."""

    def __init__(
        self,
        storage_or_path: str | StorageBackend,
        *,
        version: int = 9,
        partition_fields: Sequence[str] = ("city",),
        hive_style: bool = False,
        drop_partition_columns: bool = False,
        populate_meta_fields: bool = True,
        table_type: str = "COPY_ON_WRITE",
        schema: pa.Schema = SCHEMA,
    ) -> None:
        config = new_table_config(
            "trips", table_type=table_type, version=version, record_key_fields=["id"],
            partition_fields=list(partition_fields), ordering_fields=["ts"], hive_style_partitioning=hive_style,
            populate_meta_fields=populate_meta_fields, timeline_timezone="UTC",
        )  # fmt: skip
        config = config.with_updates(drop_partition_columns=drop_partition_columns)
        if isinstance(storage_or_path, str):
            self.table = HudiTable.create(storage_or_path, config, schema=schema)
        else:
            self.table = HudiTable.create(storage_or_path.root_uri, config, schema=schema, storage=storage_or_path)
        self.storage = self.table.storage
        self.schema = schema
        self.format = PartitionPathFormat(tuple(partition_fields), hive_style)
        self.writer = TimelineWriter(
            self.storage,
            layout_version=config.timeline_layout_version,
            timezone=TimelineTimezone.UTC,
        )

    def path(self, **values: object) -> str:
        """The partition path of partition values given by field name."""
        return self.format.encode([values[f] for f in self.format.fields])

    def start(self, instant_time: str, action: Action = Action.COMMIT) -> Instant:
        """Create a requested and inflight instant."""
        requested = self.writer.create_requested(action, instant_time)
        return self.writer.transition_to_inflight(requested)

    def finish(
        self,
        instant: Instant,
        writes: Sequence[FileWrite],
        *,
        replaced: Sequence[tuple[str, str]] = (),
        completion_time: str | None = None,
    ) -> Instant:
        """Write the base files, then complete the instant with commit metadata listing them."""
        t = instant.requested_time
        stats: dict[str, list[WriteStat]] = {}
        for write in writes:
            name = f"{write.file_id}_0-0-0_{t}.parquet"
            key = f"{write.partition}/{name}" if write.partition else name
            self._write_file(key, write, name, t)
            write_partition_metadata(self.storage, write.partition, t)
            stats.setdefault(write.partition, []).append(
                WriteStat(
                    file_id=write.file_id,
                    path=key,
                    partition_path=write.partition,
                    num_writes=write.rows.num_rows,
                    prev_commit="null",
                )
            )
        extra = {"schema": avro_json(arrow_to_avro(self.schema, "trips"))}
        metadata: CommitMetadata
        if replaced or instant.action is Action.REPLACE_COMMIT:
            by_partition: dict[str, list[str]] = {}
            for partition, file_id in replaced:
                by_partition.setdefault(partition, []).append(file_id)
            metadata = ReplaceCommitMetadata(
                partition_to_write_stats=stats, extra_metadata=extra, operation_type="INSERT_OVERWRITE",
                partition_to_replace_file_ids=by_partition,
            )  # fmt: skip
        else:
            metadata = CommitMetadata(partition_to_write_stats=stats, extra_metadata=extra, operation_type="UPSERT")
        if self.table.config.timeline_layout_version == 1:
            # Layout 1 takes completion times from file modification times.
            done = self.writer.complete(instant, metadata)
        else:
            # Half a second after the request unless told: generated times would come from the wall clock.
            done = self.writer.complete(instant, metadata, completion_time=completion_time or t[:-3] + "500")
        self.table.reload()
        return done

    def commit(
        self,
        instant_time: str,
        writes: Sequence[FileWrite],
        *,
        replaced: Sequence[tuple[str, str]] = (),
        completion_time: str | None = None,
    ) -> Instant:
        """Start and finish a commit (a replacecommit when ``replaced`` is given)."""
        action = Action.REPLACE_COMMIT if replaced else Action.COMMIT
        return self.finish(self.start(instant_time, action), writes, replaced=replaced, completion_time=completion_time)

    def _write_file(self, key: str, write: FileWrite, name: str, instant_time: str) -> None:
        rows = write.rows
        n = rows.num_rows
        commit_times = list(write.commit_times) if write.commit_times is not None else [instant_time] * n
        populate = self.table.config.populate_meta_fields
        meta = {
            "_hoodie_commit_time": commit_times if populate else [None] * n,
            "_hoodie_commit_seqno": [f"{c}_0_{i}" for i, c in enumerate(commit_times)] if populate else [None] * n,
            "_hoodie_record_key": rows.column("id").to_pylist() if populate else [None] * n,
            "_hoodie_partition_path": [write.partition] * n if populate else [None] * n,
            "_hoodie_file_name": [name] * n,
        }
        data = rows
        if self.table.config.drop_partition_columns:
            data = data.drop_columns([f for f in self.format.fields if f in data.column_names])
        table = pa.table({k: pa.array(v, pa.string()) for k, v in meta.items()})
        for column in data.column_names:
            table = table.append_column(column, data.column(column))
        with self.storage.open_output(key) as sink:
            pq.write_table(table, sink)


def rows(*records: tuple[str, int, float, str]) -> pa.Table:
    """Rows of :data:`SCHEMA`: ``(id, ts, fare, city)``."""
    return pa.Table.from_pylist([dict(zip(SCHEMA.names, r, strict=True)) for r in records], schema=SCHEMA)


def t(n: int) -> str:
    """A 17-digit instant time ``n`` seconds after 2024-01-01 00:00:00."""
    seconds = n % 60
    minutes = (n // 60) % 60
    hours = n // 3600
    return f"20240101{hours:02d}{minutes:02d}{seconds:02d}000"
