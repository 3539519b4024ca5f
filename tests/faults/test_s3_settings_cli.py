"""Every ``hudi-fw`` command reaches an S3 table with its settings only in ``--config`` (no AWS
variables, no ``~/.aws`` files), or only in ``HUDI_STORAGE__S3__*`` variables; every request the
commands send is signed with the configured key, at the configured endpoint."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow as pa
import pytest
from typer.testing import CliRunner

from hudi_framework.cli.app import app
from hudi_framework.config.settings import HudiSettings
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.from_settings import table_config_from_settings
from hudi_framework.write.client import WriteClient
from tests.faults.s3_faults import new_bucket
from tests.faults.s3_requests import isolated_aws_env, request_log

pytestmark = pytest.mark.s3

KEY_ID = "AKIAHUDICLICONFIG001"
SECRET = "cli-config-secret"
runner = CliRunner()


def _config(path: Path, endpoint: str, uri: str) -> Path:
    path.write_text(
        f"""
[table]
base_path = "{uri}"
name = "trips"
record_key_fields = ["id"]
partition_fields = ["city"]
ordering_fields = ["ts"]

[write]
engine = "local"

[storage.s3]
endpoint_url = "{endpoint}"
region = "us-east-1"
addressing_style = "path"
access_key_id = "{KEY_ID}"
secret_access_key = "{SECRET}"

[storage.options]
max_attempts = 2
"""
    )
    return path


def _rows(ids: range, ts: int) -> pa.Table:
    return pa.table(
        {"id": [f"k{i}" for i in ids], "city": ["sf" if i % 2 else "nyc" for i in ids], "ts": [ts] * len(ids)}
    )


def _isolate(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        monkeypatch.delenv(name)
    for name, value in isolated_aws_env({"PATH": "/usr/bin:/bin"}).items():
        monkeypatch.setenv(name, value)


def _invoke(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, f"{' '.join(args)}:\n{result.output}\n{result.exception!r}"
    return result.output


def test_every_command_reaches_s3_with_only_a_config_file(
    endpoint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bucket = new_bucket(endpoint, monkeypatch)
    uri = f"s3://{bucket}/trips"
    _isolate(monkeypatch)
    config = str(_config(tmp_path / "s3.toml", endpoint, uri))
    with request_log() as log:
        _invoke("init", "--config", config, "--schema", "id:string,city:string,ts:long")
        settings = HudiSettings.load(config)
        table = HudiTable.open(uri, settings=settings)
        client = WriteClient(table, settings)
        for n in range(3):
            client.upsert(_rows(range(n * 4, n * 4 + 6), ts=n))
        assert read_table(HudiTable.open(uri, settings=settings)).num_rows == 14

        assert json.loads(_invoke("show", "table", uri, "--config", config, "--json"))["hoodie.table.name"] == "trips"
        assert len(json.loads(_invoke("show", "timeline", uri, "--config", config, "--json"))) == 3
        assert json.loads(_invoke("show", "file-slices", uri, "--config", config, "--json"))
        assert "city" in _invoke("show", "schema", uri, "--config", config)
        _invoke("show", "log-blocks", uri, "--config", config, "--json")
        _invoke("compaction", "show", uri, "--config", config, "--json")
        _invoke("clean", "run", uri, "--config", config)
        _invoke("clean", "show", uri, "--config", config, "--json")
        _invoke("rollback", uri, "--config", config)
        first = json.loads(_invoke("show", "timeline", uri, "--config", config, "--json", "--commits"))[0]["requested"]
        _invoke("savepoint", "create", uri, first, "--config", config)
        assert [s["instant"] for s in json.loads(_invoke("savepoint", "list", uri, "--config", config, "--json"))] == [
            first
        ]
        _invoke("restore", uri, first, "--config", config)
        _invoke("savepoint", "delete", uri, first, "--config", config)
        _invoke("plugins", "--config", config)
    assert read_table(HudiTable.open(uri, settings=settings)).num_rows == 6  # restored to the first commit
    assert log.key_ids(bucket) == {KEY_ID}


def test_show_honours_hudi_storage_variables(endpoint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bucket = new_bucket(endpoint, monkeypatch)
    uri = f"s3://{bucket}/trips"
    _isolate(monkeypatch)
    settings = HudiSettings.load(_config(tmp_path / "s3.toml", endpoint, uri), env=False)
    HudiTable.create(uri, table_config_from_settings(settings), settings=settings)
    for field, value in (
        ("ENDPOINT_URL", endpoint),
        ("REGION", "us-east-1"),
        ("ADDRESSING_STYLE", "path"),
        ("ACCESS_KEY_ID", "AKIAHUDICLIENVIRON01"),
        ("SECRET_ACCESS_KEY", "env-secret"),
    ):
        monkeypatch.setenv(f"HUDI_STORAGE__S3__{field}", value)
    with request_log() as log:
        assert json.loads(_invoke("show", "table", uri, "--json"))["hoodie.table.name"] == "trips"
    assert log.key_ids(bucket) == {"AKIAHUDICLIENVIRON01"}
