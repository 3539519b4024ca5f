"""The metadata table (MDT) is on by default for writes (``hoodie.metadata.enable``, as in Apache
Hudi 1.x on Spark): a writer with default settings builds it on a new table and on an existing
table without one, keeping ``files``, ``column_stats`` and, on partitioned tables,
``partition_stats`` in step (the record index and bloom filters stay off, as in Apache Hudi).
Tables of version 6 keep none by default (we do not write that layout); ``true`` given there fails
before anything is written."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.errors import UnsupportedOptionError
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.properties import load_properties
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient
from hudi_storage_local.backend import LocalStorageBackend
from tests.acceptance.test_metadata_table_write import check_mdt

_DEFAULT_PARTITIONS = ("column_stats", "files", "partition_stats")


def _create(path: Path, table_type: str, *, version: int = 9, partitioned: bool = True) -> HudiTable:
    config = new_table_config(
        "t", version=version, table_type=table_type, record_key_fields=["id"],
        partition_fields=["city"] if partitioned else [], ordering_fields=["ts"],
    )  # fmt: skip
    return HudiTable.create(str(path), config)


def _rows(ids: str, city: str, ts: int) -> pa.Table:
    return pa.Table.from_pylist([{"id": i, "city": city, "ts": ts} for i in ids])


def _mdt_files(path: Path) -> list[Path]:
    return [p for p in (path / ".hoodie" / "metadata").rglob("*") if p.is_file()]


def test_the_default_is_on() -> None:
    assert HudiSettings().write.metadata_enable is True
    assert HudiSettings.from_hoodie_options({}, env=False).write.metadata_enable is True


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_a_new_table_written_with_default_settings_keeps_the_mdt(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, table_type: str
) -> None:
    path = tmp_path / "t"
    client = WriteClient(_create(path, table_type), HudiSettings())
    client.insert(pa.concat_tables([_rows("ab", "sf", 1), _rows("x", "ny", 1)]))
    assert check_mdt(path, caplog, _DEFAULT_PARTITIONS) == [("a", "sf", 1), ("b", "sf", 1), ("x", "ny", 1)]
    client.upsert(_rows("a", "sf", 2))
    client.delete(_rows("x", "ny", 3))
    assert check_mdt(path, caplog, _DEFAULT_PARTITIONS) == [("a", "sf", 2), ("b", "sf", 1)]


def test_a_non_partitioned_table_keeps_no_partition_stats(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "t"
    client = WriteClient(_create(path, "MERGE_ON_READ", partitioned=False), HudiSettings())
    client.insert(_rows("ab", "", 1))
    client.upsert(_rows("b", "", 2))
    assert check_mdt(path, caplog, ("column_stats", "files")) == [("a", "", 1), ("b", "", 2)]


def test_an_existing_table_without_an_mdt_gets_one_at_the_next_default_write(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "t"
    off = HudiSettings.from_hoodie_options({"hoodie.metadata.enable": "false"}, env=False)
    rows = pa.concat_tables([_rows("ab", "sf", 1), _rows("x", "ny", 1)])
    WriteClient(_create(path, "MERGE_ON_READ"), off).insert(rows)
    assert not _mdt_files(path)
    assert "hoodie.table.metadata.partitions" not in load_properties(LocalStorageBackend(str(path)))

    WriteClient(HudiTable.open(str(path)), HudiSettings()).upsert(_rows("y", "ny", 2))
    expected = [("a", "sf", 1), ("b", "sf", 1), ("x", "ny", 1), ("y", "ny", 2)]
    assert check_mdt(path, caplog, _DEFAULT_PARTITIONS) == expected


def test_a_version_6_table_keeps_no_mdt_by_default(tmp_path: Path) -> None:
    path = tmp_path / "t"
    client = WriteClient(_create(path, "COPY_ON_WRITE", version=6), HudiSettings())
    client.insert(_rows("ab", "sf", 1))
    client.upsert(_rows("a", "sf", 2))
    table = HudiTable.open(str(path))
    assert len(table.timeline.completed()) == 2
    assert not _mdt_files(path)
    assert "hoodie.table.metadata.partitions" not in table.properties

    given = HudiSettings.from_hoodie_options({"hoodie.metadata.enable": "true"}, env=False)
    with pytest.raises(UnsupportedOptionError, match=r"hoodie\.metadata\.enable"):
        WriteClient(table, given).upsert(_rows("b", "sf", 3))
    assert len(HudiTable.open(str(path)).timeline.instants) == 2, "nothing was written"
