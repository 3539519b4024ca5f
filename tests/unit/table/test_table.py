"""HudiTable facade: create/open, errors, schema resolution."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework.errors import (
    IncompatibleTableConfigError,
    InvalidInstantTimeError,
    TableExistsError,
    TableNotFoundError,
    UnknownComponentError,
)
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.vocabulary import TableType
from hudi_framework.write.client import WriteClient

SCHEMA = pa.schema([("id", pa.string()), ("ts", pa.int64()), ("p", pa.string())])


def _config(name: str = "t", **kw: object) -> object:
    return new_table_config(name, record_key_fields=["id"], partition_fields=["p"], ordering_fields=["ts"], **kw)  # type: ignore[arg-type]


def test_create_then_open(tmp_path: Path) -> None:
    created = HudiTable.create(str(tmp_path), _config(table_type="mor"), schema=SCHEMA)  # type: ignore[arg-type]
    assert (tmp_path / ".hoodie" / "hoodie.properties").is_file()
    table = HudiTable.open(f"file://{tmp_path}")
    assert table.config == created.config
    assert table.config.table_type is TableType.MERGE_ON_READ
    assert table.schema() == SCHEMA
    assert [f.name for f in table.schema(with_meta_fields=True)][:2] == [
        "_hoodie_commit_time",
        "_hoodie_commit_seqno",
    ]
    assert table.timeline.instants == ()
    assert table.latest_file_slices() == []


def test_create_twice_fails(tmp_path: Path) -> None:
    HudiTable.create(str(tmp_path), _config(), schema=SCHEMA)  # type: ignore[arg-type]
    with pytest.raises(TableExistsError):
        HudiTable.create(str(tmp_path), _config(), schema=SCHEMA)  # type: ignore[arg-type]


def test_open_missing_table(tmp_path: Path) -> None:
    with pytest.raises(TableNotFoundError):
        HudiTable.open(str(tmp_path / "nothing"))


def test_key_fields_must_be_in_schema(tmp_path: Path) -> None:
    with pytest.raises(IncompatibleTableConfigError, match="p"):
        HudiTable.create(str(tmp_path), _config(), schema=pa.schema([("id", pa.string())]))  # type: ignore[arg-type]
    assert not (tmp_path / ".hoodie").exists()


def test_unknown_scheme_lists_backends(tmp_path: Path) -> None:
    with pytest.raises(UnknownComponentError, match="local"):
        HudiTable.open("gs://bucket/table")


def test_bad_as_of(tmp_path: Path) -> None:
    table = HudiTable.create(str(tmp_path), _config(), schema=SCHEMA)  # type: ignore[arg-type]
    with pytest.raises(InvalidInstantTimeError):
        table.latest_file_slices(as_of="yesterday")
    assert table.latest_file_slices(as_of="2024-01-01T00:00:00") == []


def test_as_of_a_second_precision_time_matches_the_reader(tmp_path: Path) -> None:
    """HudiTable and the reader resolve ``as_of`` alike: a 14-digit time is the start of that second."""
    table = HudiTable.create(str(tmp_path / "t"), new_table_config("t", record_key_fields=["id"]))
    done = WriteClient(table).insert(pa.table({"id": ["a"], "v": [1]})).instant
    second = done.requested_time[:14]
    assert done.requested_time > second  # 17 digits: the write is after the start of its second
    table = table.reload()
    assert table.latest_file_slices(as_of=second) == []
    assert read_table(table, as_of=second).num_rows == 0
    assert len(table.latest_file_slices(as_of=done.requested_time)) == 1
