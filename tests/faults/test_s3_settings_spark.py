"""One S3 configuration reaches every step on Spark: ``hudi-fw run`` (from a clean environment,
starting with its own progress and without Spark's start-up chatter) and its read-back with the
settings only in the config file, ``format("hudi")`` with Apache Hudi's and Hadoop's option names,
and credentials from ``HUDI_STORAGE__S3__*`` variables reaching executors. Every request the moto
server receives for the table's bucket must be signed with the configured key."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hudi_framework.config.settings import HudiSettings
from hudi_framework.errors import ConfigError
from hudi_framework.jobs import run_job
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.from_settings import table_config_from_settings
from tests.faults.s3_faults import new_bucket
from tests.faults.s3_requests import isolated_aws_env, request_log

pytestmark = [pytest.mark.s3, pytest.mark.spark]

ROOT = Path(__file__).resolve().parents[2]
FILE_KEY = "AKIAHUDICONFIGFILE01"
ENV_KEY = "AKIAHUDIENVIRONMENT2"
OPTION_KEY = "AKIAHUDISPARKOPTION1"
#: Spark's start-up output a main job must not print.
MAIN_JOB_CHATTER = (
    "replaced a statically registered data source", "loopback address", "NativeCodeLoader",
    "default log4j profile", "setLogLevel",
)  # fmt: skip
TABLE_OPTIONS = {
    "hoodie.table.name": "trips",
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.partitionpath.field": "city",
    "hoodie.datasource.write.precombine.field": "ts",
}


def _cli(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from hudi_framework.cli.app import main; main()", *args],
        cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=900,
    )  # fmt: skip


def _quickstart_on_s3(path: Path, endpoint: str) -> Path:
    text = (ROOT / "configs" / "quickstart.toml").read_text().replace('"local[*]"', '"local[2]"')
    path.write_text(
        text
        + f"""
[storage.s3]
endpoint_url = "{endpoint}"
region = "us-east-1"
addressing_style = "path"
access_key_id = "{FILE_KEY}"
secret_access_key = "file-secret"

[storage.options]
max_attempts = 2
"""
    )
    return path


@pytest.mark.spark_process  # hudi-fw run starts a session of its own: beside the Spark group
def test_main_job_with_s3_settings_only_in_the_config_file(
    endpoint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bucket = new_bucket(endpoint, monkeypatch)
    uri = f"s3://{bucket}/quickstart"
    config = _quickstart_on_s3(tmp_path / "quickstart-s3.toml", endpoint)
    # Nothing of the checkout on the path either: what a user's shell has after the README's install.
    env = isolated_aws_env({k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SPARK_LOCAL_IP")})
    with request_log() as log:
        run = _cli("run", str(config), "--path", uri, "--rows", "300", env=env, cwd=tmp_path)
        assert run.returncode == 0, run.stderr[-4000:] + run.stdout[-4000:]
        assert "verified ✓" in run.stdout
        assert "read back 2,300 rows (expected 2,300)" in run.stdout
        # The main job starts with its own progress, without Spark's start-up chatter (the one
        # hudi-fw run of the suite that starts a session of its own: it also stands for local disk).
        assert run.stdout.startswith("hudi-fw run: table trips at"), run.stdout[:500]
        for chatter in MAIN_JOB_CHATTER:
            assert chatter not in run.stderr + run.stdout, run.stderr

        # The Python API, with the same file.
        settings = HudiSettings.load(config, overrides={"table.base_path": uri}, env=False)
        assert read_table(HudiTable.open(uri, settings=settings)).num_rows == 2_300

        # format("hudi") reads with these option names below (the option-name test), not here: this
        # test keeps off the session so that it runs beside the Spark group.

        # The CLI, with --config.
        shown = _cli("show", "table", uri, "--config", str(config), "--json", env=env, cwd=tmp_path)
        assert shown.returncode == 0, shown.stderr
        assert json.loads(shown.stdout)["hoodie.table.name"] == "trips"
        timeline = _cli("show", "timeline", uri, "--config", str(config), "--json", env=env, cwd=tmp_path)
        assert timeline.returncode == 0, timeline.stderr
        assert len(json.loads(timeline.stdout)) == 4
    assert log.key_ids(bucket) == {FILE_KEY}


def test_env_credentials_reach_executors_and_the_read_back(
    spark: Any, endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    bucket = new_bucket(endpoint, monkeypatch)
    uri = f"s3://{bucket}/quickstart"
    for name in [n for n in os.environ if n.startswith(("AWS_", "HUDI_"))]:
        monkeypatch.delenv(name)
    for field, value in (
        ("ENDPOINT_URL", endpoint),
        ("REGION", "us-east-1"),
        ("ADDRESSING_STYLE", "path"),
        ("ACCESS_KEY_ID", ENV_KEY),
        ("SECRET_ACCESS_KEY", "env-secret"),
    ):
        monkeypatch.setenv(f"HUDI_STORAGE__S3__{field}", value)
    batches = [{"operation": "upsert", "updates": 50, "inserts": 30}, {"operation": "delete", "deletes": 20}]
    settings = HudiSettings.load(
        ROOT / "configs" / "quickstart.toml",
        overrides={"table.base_path": uri, "job.rows": 200, "job.batches": batches},
    )
    with request_log() as log:
        report = run_job(settings, spark=spark)
    assert report.verified
    assert report.read is not None
    assert report.read.rows == report.read.spark_rows == 210
    assert log.key_ids(bucket) == {ENV_KEY}


def _hudi(endpoint: str) -> dict[str, str]:
    return {
        "hoodie.aws.access.key": OPTION_KEY,
        "hoodie.aws.secret.key": "option-secret",
        "hoodie.aws.session.token": "option-token",
        "fs.s3a.endpoint": endpoint,
        "fs.s3a.endpoint.region": "us-east-1",
        "fs.s3a.path.style.access": "true",
    }


def _hadoop(endpoint: str, prefix: str = "fs.s3a.") -> dict[str, str]:
    return {
        f"{prefix}access.key": OPTION_KEY,
        f"{prefix}secret.key": "option-secret",
        f"{prefix}session.token": "option-token",
        f"{prefix}aws.credentials.provider": "org.apache.hadoop.fs.s3a.TemporaryAWSCredentialsProvider",
        f"{prefix}endpoint": endpoint,
        f"{prefix}endpoint.region": "us-east-1",
        f"{prefix}path.style.access": "true",
    }


@pytest.mark.parametrize(
    "style",
    [_hudi, _hadoop, lambda endpoint: _hadoop(endpoint, "spark.hadoop.fs.s3a.")],
    ids=["hoodie.aws", "fs.s3a", "spark.hadoop.fs.s3a"],
)
def test_spark_writes_and_reads_with_hudi_and_hadoop_option_names(
    spark: Any, endpoint: str, monkeypatch: pytest.MonkeyPatch, style: Callable[[str], dict[str, str]]
) -> None:
    bucket = new_bucket(endpoint, monkeypatch)
    uri = f"s3://{bucket}/t"
    options = {**TABLE_OPTIONS, **style(endpoint)}
    rows = [(f"k{i}", "sf" if i % 2 else "nyc", i) for i in range(20)]
    frame = spark.createDataFrame(rows, "id string, city string, ts long")
    with request_log() as log:
        # bulk_insert: executors write the files, the driver side commits.
        frame.write.format("hudi").options(**options).option("hoodie.datasource.write.operation", "bulk_insert").mode(
            "append"
        ).save(uri)
        # upsert: executors stage the rows, the commit merges them.
        changes = spark.createDataFrame([(f"k{i}", "sf" if i % 2 else "nyc", 100 + i) for i in range(5)], frame.schema)
        changes.write.format("hudi").options(**options).option("hoodie.datasource.write.operation", "upsert").mode(
            "append"
        ).save(uri)
        read = spark.read.format("hudi").options(**style(endpoint)).load(uri)
        got = sorted((r["id"], r["ts"]) for r in read.select("id", "ts").collect())
    assert got == sorted([(f"k{i}", 100 + i) for i in range(5)] + [(f"k{i}", i) for i in range(5, 20)])
    assert log.key_ids(bucket) == {OPTION_KEY}


def test_an_unsupported_provider_class_fails_the_read_naming_it(spark: Any, endpoint: str) -> None:
    provider = "org.apache.hadoop.fs.s3a.auth.AssumedRoleCredentialProvider"
    reader = spark.read.format("hudi").option("fs.s3a.aws.credentials.provider", provider)
    with pytest.raises(Exception) as info:
        reader.load("s3://no-such-bucket-hudi/t").count()
    text = str(info.value)
    assert "InvalidConfigValueError" in text
    assert "fs.s3a.aws.credentials.provider" in text
    assert "AssumedRoleCredentialProvider" in text


def test_a_session_s3a_endpoint_the_storage_does_not_use_is_refused(
    spark: Any, endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hudi_framework.spark.write_engine import SparkWriteClient

    bucket = new_bucket(endpoint, monkeypatch)
    settings = HudiSettings.load(
        overrides={
            "table.name": "t",
            "table.record_key_fields": ["id"],
            "storage.s3": {"endpoint_url": endpoint, "region": "us-east-1", "addressing_style": "path"},
        },
        env=False,
    )
    table = HudiTable.create(f"s3://{bucket}/t", table_config_from_settings(settings), settings=settings)
    key = "spark.hadoop.fs.s3a.endpoint"
    spark.conf.set(key, "http://127.0.0.1:1")
    try:
        with pytest.raises(ConfigError) as info:
            SparkWriteClient(table, settings, spark)
        assert key in str(info.value)
        assert "storage.s3.endpoint_url" in str(info.value)
        spark.conf.set(key, endpoint)
        SparkWriteClient(table, settings, spark)  # the session and the storage agree
    finally:
        spark.conf.unset(key)
    # A table opened with other storage than the settings describe is refused too.
    other = HudiTable.open(
        f"s3://{bucket}/t",
        storage_options={
            "endpoint_url": endpoint,
            "region": "us-east-1",
            "addressing_style": "path",
            "max_attempts": 2,
        },
    )
    with pytest.raises(ConfigError, match=r"HudiTable\.open"):
        SparkWriteClient(other, settings, spark)
