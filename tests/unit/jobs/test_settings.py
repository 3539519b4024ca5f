"""The ``[job]`` section and the plan built from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from hudi_framework.config import HudiSettings, JobSource
from hudi_framework.config.enums import WriteEngine
from hudi_framework.errors import ConfigError, InvalidConfigValueError
from hudi_framework.jobs.spec import plan_job
from hudi_framework.vocabulary import WriteOperation

CONFIGS = Path(__file__).resolve().parents[3] / "configs"


def test_quickstart_config() -> None:
    settings = HudiSettings.load(CONFIGS / "quickstart.toml", env=False)
    job = settings.job
    assert job.source is JobSource.GENERATE
    assert job.rows == 50_000
    assert [b.operation.value for b in job.batches] == ["upsert", "delete", "upsert"]
    assert job.spark_master == "local[*]"
    assert job.spark_conf == {"spark.sql.shuffle.partitions": "8"}
    assert settings.write.engine is WriteEngine.SPARK
    assert settings.index.type == "bloom"


def test_defaults_need_no_job_section() -> None:
    job = HudiSettings().job
    assert (job.source, job.rows, job.batches, job.verify) == (JobSource.GENERATE, 50_000, (), True)


@pytest.mark.parametrize(
    ("batch", "message"),
    [
        ({"operation": "delete", "updates": 5}, "updates does not apply to delete"),
        ({"operation": "upsert", "deletes": 5}, "deletes does not apply to upsert"),
        ({"operation": "upsert", "inserts": 5, "partitions": 2}, "partitions does not apply"),
        ({"operation": "insert"}, "needs at least one row"),
        ({"operation": "merge", "inserts": 1}, "job.batches"),
        ({"operation": "bulk_insert", "inserts": 1}, "upsert, insert, delete, insert_overwrite"),
    ],
)
def test_invalid_batches(batch: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidConfigValueError, match=message):
        HudiSettings.load(overrides={"job.batches": [batch]}, env=False)


def test_file_sources_need_a_path() -> None:
    with pytest.raises(InvalidConfigValueError, match="source_path"):
        HudiSettings.load(overrides={"job.source": "parquet"}, env=False)


def test_initial_operation_is_a_load() -> None:
    with pytest.raises(InvalidConfigValueError, match="initial_operation"):
        HudiSettings.load(overrides={"job.initial_operation": "delete"}, env=False)


def test_environment_overrides_the_job() -> None:
    settings = HudiSettings.load(CONFIGS / "quickstart.toml", env=False, overrides={"job": {"rows": 7, "seed": 1}})
    assert (settings.job.rows, settings.job.seed) == (7, 1)


def test_plan() -> None:
    settings = HudiSettings.load(CONFIGS / "quickstart.toml", env=False)
    plan = plan_job(settings)
    assert [s.label for s in plan.steps] == ["load", "batch 1", "batch 2", "batch 3", "read"]
    assert [s.operation for s in plan.steps[:4]] == [
        WriteOperation.INSERT,
        WriteOperation.UPSERT,
        WriteOperation.DELETE,
        WriteOperation.UPSERT,
    ]
    assert plan.steps[-1].operation is None
    assert plan.steps[-1].phases[-1] == "count (spark)"
    assert plan.source_name == "generated trips (seed 42)"
    overwrite = plan_job(settings, overwrite_existing=True)
    assert overwrite.steps[0].operation is WriteOperation.INSERT_OVERWRITE_TABLE


def test_plan_without_verify_or_path() -> None:
    settings = HudiSettings.load(CONFIGS / "quickstart.toml", env=False, overrides={"job.verify": False})
    assert [s.label for s in plan_job(settings).steps] == ["load", "batch 1", "batch 2", "batch 3"]
    with pytest.raises(ConfigError, match="base path"):
        plan_job(HudiSettings(table={"name": "t"}))
