"""The metadata table's ``record_index`` on local disk and on S3 (moto): built on an existing table when
enabled, kept in step by upserts, moves and deletes, undone by a rollback, and used to tag upserts
without opening a data file; ``hudi-fw index build`` builds it on a table written without it."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
from typer.testing import CliRunner

from hudi_framework.cli.app import app
from hudi_framework.config import HudiSettings
from hudi_framework.layout.naming import LogFileName
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.metadata_writer.file_groups import partition_dir
from hudi_framework.read import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient
from hudi_framework.write.savepoint import rollback_latest_commit
from tests.faults.s3_faults import Place

RLI = {
    "hoodie.metadata.enable": "true",
    "hoodie.metadata.record.index.enable": "true",
    "hoodie.index.type": "RECORD_INDEX",
}


def _settings(options: dict[str, str]) -> HudiSettings:
    return HudiSettings.from_hoodie_options(options, env=False)


def _rows(ids: range, city: str, ts: int) -> pa.Table:
    return pa.Table.from_pylist([{"id": f"k{i:02d}", "city": city, "ts": ts} for i in ids])


def _index_matches(table: HudiTable) -> dict[str, tuple[str, str]]:
    """The record index holds exactly the snapshot's keys, each at its partition and file group."""
    mdt = MetadataTable.open(table.storage, table.properties)
    assert mdt is not None
    snapshot = read_table(table)
    keys = snapshot.column("id").to_pylist()
    found = mdt.record_index([*keys, "absent"])
    where = {r["record_key"]: (r["partition_path"], r["file_id"]) for r in found.to_pylist()}
    assert set(where) == set(keys)
    for key, partition, name in zip(
        keys,
        snapshot.column("_hoodie_partition_path").to_pylist(),
        snapshot.column("_hoodie_file_name").to_pylist(),
        strict=True,
    ):
        assert where[key][0] == partition, key
        assert name.lstrip(".").startswith(where[key][1]), (key, name)
    return where


def test_record_index_kept_in_step_and_rolled_back(place: Place) -> None:
    config = new_table_config(
        "t", version=9, table_type="MERGE_ON_READ", record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    table = HudiTable.create(place.uri, config, storage_options=place.options)
    WriteClient(table, _settings({"hoodie.metadata.enable": "true"})).insert(_rows(range(20), "sf", 1))
    client = WriteClient(place.open(), _settings(RLI))
    client.upsert(pa.concat_tables([_rows(range(5), "sf", 2), _rows(range(20, 30), "ny", 2)]))
    table = place.open()
    assert "record_index" in table.config.metadata_partitions
    before = _index_matches(table)
    assert len(before) == 30

    client.delete(_rows(range(3), "sf", 3))
    assert "k00" not in _index_matches(place.open())
    client.upsert(_rows(range(30, 35), "la", 4))
    last = place.open().timeline.completed()[-1].requested_time
    logs = [LogFileName.try_parse(i.name) for i in place.open().storage.list(partition_dir("record_index"))]
    assert any(log is not None and log.instant_time == last for log in logs)
    rollback_latest_commit(place.open())
    after = _index_matches(place.open())
    assert set(after) == set(before) - {"k00", "k01", "k02"}


def test_index_build_command_builds_the_record_index(tmp_path: Path) -> None:
    path = tmp_path / "t"
    config = new_table_config(
        "t", version=9, table_type="COPY_ON_WRITE", record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    WriteClient(HudiTable.create(str(path), config), _settings({})).insert(_rows(range(25), "sf", 1))
    result = CliRunner().invoke(app, ["index", "build", str(path), "--type", "record_index"])
    assert result.exit_code == 0, result.output
    assert "record_index built" in result.output
    table = HudiTable.open(str(path))
    assert len(_index_matches(table)) == 25
    mdt = MetadataTable.open(table.storage, table.properties)
    assert mdt is not None
    assert len(mdt.record_index_slices()) == 10
    again = CliRunner().invoke(app, ["index", "build", str(path)])
    assert "already built" in again.output
    refused = CliRunner().invoke(app, ["index", "build", str(path), "--type", "secondary_index"])
    assert refused.exit_code == 2
