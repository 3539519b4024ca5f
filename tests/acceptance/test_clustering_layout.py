"""Clustering with sort columns makes column statistics prune: a range filter on the sort column reads
at least five times fewer files after clustering than before, and the same rows."""

from __future__ import annotations

import random
from pathlib import Path

import pyarrow as pa

from hudi_framework import open_table_service
from hudi_framework.config import HudiSettings
from hudi_framework.read.reader import build_options, plan_read, read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.from_settings import table_config_from_settings
from hudi_framework.write.client import WriteClient

FILTER = [("ts", ">=", 0), ("ts", "<", 500)]


def _settings(path: Path, **extra: object) -> HudiSettings:
    return HudiSettings.load(
        overrides={
            "table.base_path": str(path), "table.name": "z", "table.record_key_fields": ["id"],
            "table.partition_fields": [], "table.ordering_fields": ["seq"], "write.small_file_limit_bytes": 0,
            **extra,
        },
        hoodie_options={"hoodie.metadata.index.column.stats.enable": "true"},
        env=False,
    )  # fmt: skip


def _files_read(table: HudiTable) -> int:
    plan = plan_read(table.reload(), build_options(filters=FILTER))
    assert plan.skipping.stats_source == "metadata_table"
    return len(plan.tasks)


def _rows(table: HudiTable) -> list[tuple[str, int]]:
    got = read_table(table.reload(), filters=FILTER)
    return sorted(zip(got.column("id").to_pylist(), got.column("ts").to_pylist(), strict=True))


def test_sorted_clustering_prunes_range_filters_five_times_better(tmp_path: Path) -> None:
    rng = random.Random(7)
    settings = _settings(tmp_path / "t")
    table = HudiTable.create(str(tmp_path / "t"), table_config_from_settings(settings))
    client = WriteClient(table, settings)
    for n in range(20):  # every file spans the whole ts range
        ids = [f"k{n:02d}{i:03d}" for i in range(50)]
        client.insert(pa.table({"id": ids, "ts": pa.array([rng.randrange(10_000) for _ in ids], pa.int64()),
                                "seq": pa.array([1] * 50, pa.int64())}))  # fmt: skip
    before_files, before_rows = _files_read(table), _rows(table)
    assert before_files >= 15  # a file misses the range only by chance (0.95^50)
    total = sum(s.base_file.size or 0 for s in table.latest_file_slices() if s.base_file is not None)

    sorted_ = _settings(tmp_path / "t", **{"services.clustering.sort_columns": ["ts"],
                                           "services.clustering.target_file_max_bytes": total // 12})  # fmt: skip
    service, host = open_table_service(table.reload(), sorted_, "clustering")
    instant = service.schedule(host)
    assert instant is not None
    service.execute(host, instant)
    assert len(table.reload().latest_file_slices()) >= 10
    after_files = _files_read(table)
    assert after_files * 5 <= before_files, (before_files, after_files)
    assert _rows(table) == before_rows
