"""A custom key generator table whose ``hoodie.properties`` lacks the timestamp options of its
``:TIMESTAMP`` fields (Apache Hudi persists them only for the timestamp key generator, so every table
its Spark writer creates with ``CustomKeyGenerator`` is such a table) is written with the options the
writer gives (``hoodie.keygen.timebased.*``), as Apache Hudi's writer takes them on every write."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework import HudiSettings, HudiTable, WriteClient, new_table_config, read_table
from hudi_framework.errors import InvalidConfigValueError

OPTIONS = {
    "hoodie.keygen.timebased.timestamp.type": "EPOCHMILLISECONDS",
    "hoodie.keygen.timebased.output.dateformat": "yyyy/MM/dd",
    "hoodie.keygen.timebased.timezone": "UTC",
}
ROWS = pa.table({"id": ["a", "b"], "city": ["sf", "ny"], "event": pa.array([1_700_000_000_000, 1_700_100_000_000])})


def _table(path: Path, **extra: str) -> HudiTable:
    config = new_table_config(
        "t", record_key_fields=["id"], partition_fields=["city:SIMPLE", "event:TIMESTAMP"],
        key_generator_type="CUSTOM", extra=extra,
    )  # fmt: skip
    return HudiTable.create(str(path), config)


def test_the_writers_timestamp_options_fill_in(tmp_path: Path) -> None:
    table = _table(tmp_path / "t")
    settings = HudiSettings.from_hoodie_options(OPTIONS, env=False)
    WriteClient(table, settings).upsert(ROWS)
    got = read_table(table.reload()).sort_by("id")
    assert got["_hoodie_partition_path"].to_pylist() == ["sf/2023/11/14", "ny/2023/11/16"]
    assert sorted(p.name for p in (tmp_path / "t" / "sf" / "2023" / "11").iterdir()) == ["14"]


def test_persisted_timestamp_options_win(tmp_path: Path) -> None:
    table = _table(tmp_path / "t", **{**OPTIONS, "hoodie.keygen.timebased.output.dateformat": "yyyy-MM"})
    settings = HudiSettings.from_hoodie_options(OPTIONS, env=False)
    WriteClient(table, settings).upsert(ROWS)
    got = read_table(table.reload()).sort_by("id")
    assert got["_hoodie_partition_path"].to_pylist() == ["sf/2023-11", "ny/2023-11"]


def test_without_them_the_write_fails_naming_the_option(tmp_path: Path) -> None:
    table = _table(tmp_path / "t")
    with pytest.raises(InvalidConfigValueError, match=r"hoodie\.keygen\.timebased\.timestamp\.type"):
        WriteClient(table, HudiSettings()).upsert(ROWS)
    assert table.reload().timeline.commits_timeline() == []
