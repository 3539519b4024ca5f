"""``hudi-fw run``'s job on the Spark engine: the quickstart config on a few thousand rows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import hudi
import pytest

from hudi_framework.config.enums import WriteEngine
from hudi_framework.config.settings import HudiSettings
from hudi_framework.jobs import run_job

pytestmark = pytest.mark.spark
CONFIGS = Path(__file__).resolve().parents[2] / "configs"
BATCHES = [
    {"operation": "upsert", "updates": 500, "inserts": 300},
    {"operation": "delete", "deletes": 200},
    {"operation": "upsert", "updates": 800, "inserts": 100},
]


def _settings(base: Path, **overrides: Any) -> HudiSettings:
    values = {"table.base_path": str(base), "job.rows": 3_000, "job.batches": BATCHES, **overrides}
    return HudiSettings.load(CONFIGS / "quickstart.toml", overrides=values, env=False)


def test_quickstart_job_on_spark(spark: Any, tmp_path: Path) -> None:
    settings = _settings(tmp_path / "spark")
    assert settings.write.engine is WriteEngine.SPARK
    report = run_job(settings, spark=spark)

    assert report.engine is WriteEngine.SPARK
    assert report.spark_master == spark.sparkContext.master
    load, upsert, delete, upsert2 = report.steps
    assert (load.inserted, upsert.inserted, upsert.updated, delete.deleted) == (3_000, 300, 500, 200)
    assert (upsert2.inserted, upsert2.updated) == (100, 800)
    assert report.read is not None
    assert report.verified
    assert report.read.rows == report.read.spark_rows == 3_200
    rs_rows = sum(b.num_rows for b in hudi.HudiTableBuilder.from_base_uri(report.base_path).build().read())
    assert rs_rows == 3_200
    assert len(report.timeline) == 4
    # The runner never stops a session it was given.
    assert spark.range(3).count() == 3

    # The same job in-process writes the same rows.
    local = run_job(_settings(tmp_path / "local", **{"write.engine": "local"}))
    assert local.read is not None
    assert local.read.checksum == report.read.checksum
