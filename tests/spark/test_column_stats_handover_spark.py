"""Spark writes hand the column_stats upkeep each written log file's column statistics (the
executors return those few rows with their write stats, never the rows): the records equal the
read-back and no written log file is read for them."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from tests.acceptance.test_column_stats_handover import _create, _rows, _settings, spy


def test_spark_hands_over_log_statistics_equal_to_the_read_back(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hudi_framework.runtime.table import HudiTable
    from hudi_framework.spark.write_engine import SparkWriteClient

    handed_logs, _ = spy(monkeypatch)
    path = tmp_path / "t"
    _create(path)
    settings = _settings()
    settings = settings.model_copy(update={"write": settings.write.model_copy(update={"engine": "spark"})})
    rng = random.Random(3)

    def write(op: str, keys: list[int], ts: int) -> None:
        client = SparkWriteClient(HudiTable.open(str(path)), settings, spark)
        getattr(client, op)(spark.createDataFrame(_rows(keys, ts, rng).drop_columns(["tags"]).to_pandas()))

    write("insert", list(range(30)), 1)
    write("upsert", rng.sample(range(30), 10), 2)
    write("delete", rng.sample(range(30), 4), 3)
    write("upsert", rng.sample(range(30), 10), 4)
    assert len(handed_logs) == 3  # the upserts' and the delete's log files, all handed back
    assert sum(1 for n in handed_logs if n) == 2
