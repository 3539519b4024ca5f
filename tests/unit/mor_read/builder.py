"""Small merge-on-read tables by hand: base files from the read-test builder, log files from the log codec.

A delta commit appends one log file to a file group (named by the delta commit on v8+, by the slice's
base instant on v6) and completes with commit metadata listing it, so snapshot, time travel and
incremental planners all see it.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

from hudi_framework.layout.naming import LogFileName
from hudi_framework.layout.partition_metadata import write_partition_metadata
from hudi_framework.log import DataBlock, DeleteBlock, LogBlock, append_log_file, log_file_key
from hudi_framework.log.blocks import BlockType
from hudi_framework.log.delete_records import OrderingValue
from hudi_framework.model.schema import arrow_to_avro, avro_json, with_meta_fields
from hudi_framework.timeline import Action, Instant
from hudi_framework.timeline.metadata import CommitMetadata, WriteStat
from tests.unit.read.builder import SCHEMA, TableBuilder

__all__ = ["MorBuilder", "data_block", "delete_block"]


def _avro() -> dict[str, object]:
    return with_meta_fields(arrow_to_avro(SCHEMA, "trips"))


def data_block(
    instant: str, records: pa.Table, partition: str, file_id: str, *, block_type: BlockType = BlockType.AVRO_DATA
) -> DataBlock:
    """A data block of ``records`` (rows of SCHEMA) stamped with ``instant``'s meta columns."""
    n = records.num_rows
    meta = {
        "_hoodie_commit_time": [instant] * n,
        "_hoodie_commit_seqno": [f"{instant}_0_{i}" for i in range(n)],
        "_hoodie_record_key": records.column("id").to_pylist(),
        "_hoodie_partition_path": [partition] * n,
        "_hoodie_file_name": [file_id] * n,
    }
    table = pa.table({k: pa.array(v, pa.string()) for k, v in meta.items()})
    for name in records.column_names:
        table = table.append_column(name, records.column(name))
    return DataBlock.create(table, instant_time=instant, schema=_avro(), block_type=block_type)


def delete_block(
    instant: str, keys: Sequence[str], partition: str, orderings: Sequence[OrderingValue | None] | None = None
) -> DeleteBlock:
    """A delete block (commit-time deletes unless ``orderings`` are given)."""
    return DeleteBlock.create(keys, [partition] * len(keys), instant_time=instant, ordering_values=orderings)


class MorBuilder(TableBuilder):
    """A merge-on-read table under construction."""

    def __init__(self, path: str, *, version: int = 9, **kwargs: object) -> None:
        super().__init__(path, version=version, table_type="MERGE_ON_READ", **kwargs)  # type: ignore[arg-type]
        self._versions: dict[tuple[str, str], int] = {}

    def log_name(self, file_id: str, instant: str, base_instant: str) -> LogFileName:
        """The next log file name of a file group (v6: named by ``base_instant``, v8+: by ``instant``)."""
        named_by = base_instant if self.table.config.version < 8 else instant
        version = self._versions.get((file_id, named_by), 0) + 1
        self._versions[(file_id, named_by)] = version
        return LogFileName(file_id, named_by, version, "0-0-0")

    def append(
        self, partition: str, file_id: str, blocks: Sequence[LogBlock], *, instant: str, base_instant: str
    ) -> str:
        """Write one log file of ``blocks``; return its key."""
        key = log_file_key(partition, self.log_name(file_id, instant, base_instant))
        write_partition_metadata(self.storage, partition, instant)
        append_log_file(self.storage, key, blocks)
        return key

    def delta_commit(
        self,
        instant: str,
        partition: str,
        file_id: str,
        blocks: Sequence[LogBlock],
        *,
        base_instant: str,
        complete: bool = True,
    ) -> Instant:
        """Append a log file in a delta commit; leave it inflight unless ``complete``."""
        inflight = self.start(instant, Action.DELTA_COMMIT)
        key = self.append(partition, file_id, blocks, instant=instant, base_instant=base_instant)
        if not complete:
            return inflight
        stat = WriteStat(file_id=file_id, path=key, partition_path=partition, prev_commit=base_instant)
        extra = {"schema": avro_json(arrow_to_avro(self.schema, "trips"))}
        metadata = CommitMetadata(
            partition_to_write_stats={partition: [stat]}, extra_metadata=extra, operation_type="UPSERT"
        )
        if self.table.config.timeline_layout_version == 1:
            done = self.writer.complete(inflight, metadata)
        else:
            done = self.writer.complete(inflight, metadata, completion_time=instant[:-3] + "500")
        self.table.reload()
        return done
