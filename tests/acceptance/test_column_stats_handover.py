"""The ``column_stats`` upkeep takes the statistics of written log files from the local write path
instead of reading the log files back: for random merge-on-read writes over columns of many types
(nulls, negative and non-ASCII values), the records it writes are exactly those the read-back
gives, and no written log file is read for them. ``partition_stats`` of a partition that only got
log files are the previous partition statistics folded with the new logs', exactly the records a
recomputation from every latest file's column statistics gives."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import random
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.metadata.log_file_stats import COLUMN_STATS_FACT
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.metadata_writer import file_column_stats
from hudi_framework.metadata_writer.column_stats_partition import SHARED_STATS, ColumnStatsBuilder
from hudi_framework.metadata_writer.partition_builder import InstantContext, PartitionRecords
from hudi_framework.metadata_writer.partition_stats_partition import PartitionStatsBuilder
from hudi_framework.read.metadata_stats import MetadataTableStats
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.properties import load_properties
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.metadata import CommitMetadata
from hudi_framework.write.client import WriteClient

CITIES = ("sf", "ny", "zürich")


def _settings() -> HudiSettings:
    settings = HudiSettings.from_hoodie_options(
        {"hoodie.metadata.enable": "true", "hoodie.parquet.small.file.limit": "0"}, env=False
    )
    return settings.model_copy(update={"write": settings.write.model_copy(update={"engine": "local"})})


def _rows(keys: list[int], ts: int, rng: random.Random) -> pa.Table:
    def maybe(value: Any) -> Any:
        return None if rng.random() < 0.2 else value

    n = len(keys)
    return pa.table(
        {
            "id": [f"k{i:03d}" for i in keys],
            "city": [CITIES[i % len(CITIES)] for i in keys],  # updates stay in their partition: log files
            "ts": pa.array([ts] * n, pa.int64()),
            "small": pa.array([maybe(rng.randint(-100, 100)) for _ in keys], pa.int32()),
            "ratio": pa.array([maybe(rng.uniform(-1e6, 1e6)) for _ in keys], pa.float64()),
            "single": pa.array([maybe(rng.uniform(-10, 10)) for _ in keys], pa.float32()),
            "flag": pa.array([maybe(rng.random() < 0.5) for _ in keys], pa.bool_()),
            "name": pa.array([maybe(rng.choice(["ä", "b", "Ω", "", "zz"])) for _ in keys], pa.string()),
            "amount": pa.array(
                [maybe(decimal.Decimal(rng.randint(-99999, 99999)).scaleb(-2)) for _ in keys], pa.decimal128(10, 2)
            ),
            "day": pa.array([maybe(datetime.date(2024, 1, rng.randint(1, 28))) for _ in keys], pa.date32()),
            "at": pa.array(
                [maybe(datetime.datetime(2024, 1, 1, rng.randint(0, 23), tzinfo=datetime.UTC)) for _ in keys],
                pa.timestamp("us", tz="UTC"),
            ),
            "tags": pa.array([[ts]] * n, pa.list_(pa.int64())),  # not indexable
        }
    )


def _create(path: Path) -> None:
    config = new_table_config(
        "t", version=9, table_type="MERGE_ON_READ", record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    HudiTable.create(str(path), config)


def _normal(records: PartitionRecords) -> list[Any]:
    return sorted((r["key"], repr(r)) for r in records.upserts)


def spy(monkeypatch: pytest.MonkeyPatch) -> tuple[list[int], list[bool]]:
    """Make every column_stats commit also compute its records by reading the written files back,
    and every partition_stats commit by recomputing each touched partition from column_stats;
    assert both equal and that no log file was read for the handed-over ones. Returns the number
    of handed-over log files per commit checked, and per upsert whether its partition statistics
    were all folded from the previous ones (column_stats not read)."""
    reads: list[str] = []
    log_stats = file_column_stats._log_stats

    def counted(partition: str, name: str, content: bytes, columns: Any) -> pa.Table | None:
        reads.append(name)
        return log_stats(partition, name, content, columns)

    monkeypatch.setattr(file_column_stats, "_log_stats", counted)
    column_stats = ColumnStatsBuilder.commit_records
    partition_stats = PartitionStatsBuilder.commit_records
    handed_logs: list[int] = []
    merged_commits: list[bool] = []

    def both_ways(self: ColumnStatsBuilder, ctx: InstantContext, metadata: CommitMetadata) -> PartitionRecords:
        reads.clear()
        handed = column_stats(self, ctx, metadata)
        written = [s.path for stats in (metadata.partition_to_write_stats or {}).values() for s in stats]
        logs = [p for p in written if ".log." in p]
        fact = ctx.facts.get(COLUMN_STATS_FACT)
        if logs:
            assert isinstance(fact, dict), metadata.operation_type
            assert set(fact) == set(logs)
            assert reads == [], f"{metadata.operation_type} read back {reads}"
            handed_logs.append(sum(t is not None for t in fact.values()))
        shared = ctx.shared.get(SHARED_STATS)
        read_back = column_stats(self, dataclasses.replace(ctx, facts={}, shared={}), metadata)
        assert _normal(handed) == _normal(read_back), metadata.operation_type
        if shared is not None:
            ctx.shared[SHARED_STATS] = shared  # partition_stats builds on the handed-over ones
        return handed

    def partition_both_ways(
        self: PartitionStatsBuilder, ctx: InstantContext, metadata: CommitMetadata
    ) -> PartitionRecords:
        file_reads.clear()
        handed = partition_stats(self, ctx, metadata)
        if metadata.operation_type == "UPSERT":
            merged_commits.append(not file_reads)  # every touched partition folded from partition_stats
        with monkeypatch.context() as m:  # the reference: every touched partition recomputed
            m.setattr(PartitionStatsBuilder, "appended_partitions", lambda *_: [])
            read_back = partition_stats(self, dataclasses.replace(ctx, facts={}, shared={}), metadata)
        assert _normal(handed) == _normal(read_back), metadata.operation_type
        return handed

    file_reads: list[object] = []
    column_stats_of_files = MetadataTableStats.column_stats

    def counted_files(self: MetadataTableStats, files: Any, columns: Any) -> pa.Table | None:
        file_reads.append(files)
        return column_stats_of_files(self, files, columns)

    monkeypatch.setattr(MetadataTableStats, "column_stats", counted_files)

    monkeypatch.setattr(ColumnStatsBuilder, "commit_records", both_ways)
    monkeypatch.setattr(PartitionStatsBuilder, "commit_records", partition_both_ways)
    return handed_logs, merged_commits


@pytest.mark.parametrize("seed", [1, 2])
def test_handed_over_log_statistics_equal_the_read_back(
    tmp_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    handed_logs, merged_commits = spy(monkeypatch)
    path = tmp_path / "t"
    _create(path)
    rng = random.Random(seed)
    WriteClient(HudiTable.open(str(path)), _settings()).insert(_rows(list(range(40)), 1, rng))
    for ts in range(2, 7):
        # Updates (log files only: partition statistics folded), a delete, an insert (new file
        # groups: those partitions recomputed).
        op = {4: "delete", 5: "insert"}.get(ts, "upsert")
        keys = list(range(100 + 10 * ts, 106 + 10 * ts)) if op == "insert" else rng.sample(range(40), 12)
        getattr(WriteClient(HudiTable.open(str(path)), _settings()), op)(_rows(keys, ts, rng))
    # Three upserts went to log files whose statistics were handed over (the delete's logs have none).
    assert len(handed_logs) == 4
    assert sum(1 for n in handed_logs if n) == 3
    assert any(merged_commits)


def test_partition_stats_read_after_several_commits_are_the_latest_tight_records(tmp_path: Path) -> None:
    """A tight partition-statistics record replaces the older ones of its key when the MDT is read
    (Apache Hudi's ``mergeColumnStatsRecords``: only loose records widen and add up)."""
    path = tmp_path / "t"
    _create(path)
    rows = pa.table({"id": ["a", "b", "c"], "city": ["sf"] * 3, "ts": pa.array([1, 1, 1], pa.int64())})
    WriteClient(HudiTable.open(str(path)), _settings()).insert(rows)
    for ts in (2, 3):
        update = pa.table({"id": ["a"], "city": ["sf"], "ts": pa.array([ts], pa.int64())})
        WriteClient(HudiTable.open(str(path)), _settings()).upsert(update)
    table = HudiTable.open(str(path))
    mdt = MetadataTable.open(table.storage, load_properties(table.storage))
    assert mdt is not None
    stats = mdt.partition_stats(["ts"]).to_pylist()
    # The latest slice: the base file (3 rows, ts 1) and two logs (1 row each, ts 2 and 3).
    assert [(r["file_name"], r["value_count"], r["null_count"], r["is_tight_bound"]) for r in stats] == [
        ("sf", 5, 0, True)
    ]
