"""Features the issue names besides the matrix: ``_hoodie_is_deleted`` rows, tables without meta
fields, table versions 6, 8 and 9 on disk, hive-style and url-encoded partition paths."""

from __future__ import annotations

from pathlib import Path

import hudi
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_framework.config.settings import HudiSettings
from hudi_framework.errors import IncrementalQueryError
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.vocabulary import WriteOperation
from tests.acceptance.data import to_table
from tests.acceptance.engines import Step, WriteEngine
from tests.acceptance.layouts import KeyGen, Layout, PartitionStyle
from tests.acceptance.oracle import canonical, hudi_rs_read
from tests.acceptance.scenario import Scenario


def _data_files(path: Path) -> list[Path]:
    return sorted(p for p in path.rglob("*.parquet") if ".hoodie" not in p.parts)


# ---------------------------------------------------------------------------- _hoodie_is_deleted
def test_is_deleted_rows_act_as_deletes(engine: WriteEngine, tmp_path: Path) -> None:
    sc = Scenario(engine, tmp_path / "t", Layout(KeyGen.SIMPLE, True))
    sc.write_inserts(12, WriteOperation.BULK_INSERT)
    rows = sc.rows.rows([0, 1, 2, 3, 500])  # 500 is unknown: its delete is a no-op
    flags = [True, False, True, False, True]
    marked = [dict(r, _hoodie_is_deleted=f) for r, f in zip(rows, flags, strict=True)]
    sc.run(Step(WriteOperation.UPSERT, to_table(rows, is_deleted=flags)), marked)
    ids = sorted(read_table(sc.table, columns=["id"]).column("id").to_pylist())
    assert ids == [f"k{n:04d}" for n in range(12) if n not in (0, 2)]
    # The flag is a delete marker here, not data: the table schema has no such column.
    assert all("_hoodie_is_deleted" not in pq.read_schema(f).names for f in _data_files(sc.path))
    sc.checker().check_all()


def test_is_deleted_as_a_table_column(engine: WriteEngine, tmp_path: Path) -> None:
    """A table whose schema has ``_hoodie_is_deleted`` stores it (false on live rows), as Java does."""
    base = tmp_path / "t"
    config = new_table_config("t", record_key_fields=["id"], partition_fields=["p"], ordering_fields=["ts"])
    table = HudiTable.create(str(base), config)

    def batch(ids: list[str], ts: list[int], deleted: list[bool]) -> pa.Table:
        return pa.table(
            {"id": ids, "p": ["a"] * len(ids), "ts": pa.array(ts, pa.int64()), "_hoodie_is_deleted": deleted}
        )

    engine.run(table, HudiSettings(), Step(WriteOperation.UPSERT, batch(["x", "y", "z"], [1, 1, 1], [False] * 3)))
    engine.run(
        table, HudiSettings(), Step(WriteOperation.UPSERT, batch(["x", "y", "w"], [2, 0, 2], [True, True, True]))
    )
    ours = read_table(HudiTable.open(str(base)), columns=["id", "ts", "_hoodie_is_deleted"]).sort_by("id").to_pylist()
    # x: deleted (newer); y: the delete is older than the stored version and loses; w: unknown key.
    assert ours == [
        {"id": "y", "ts": 1, "_hoodie_is_deleted": False},
        {"id": "z", "ts": 1, "_hoodie_is_deleted": False},
    ]
    assert canonical(read_table(HudiTable.open(str(base)))) == canonical(hudi_rs_read(str(base)))


# ---------------------------------------------------------------------------- meta fields off
@pytest.mark.parametrize("version", [6, 8, 9])
def test_a_table_without_meta_fields(version: int, engine: WriteEngine, tmp_path: Path) -> None:
    sc = Scenario(engine, tmp_path / "t", Layout(KeyGen.COMPLEX, True), version=version, populate_meta_fields=False)
    sc.write_inserts(60, WriteOperation.BULK_INSERT)
    sc.write_upsert(updates=20, stale=5, inserts=10, duplicates=5, deletes=5)
    sc.write_delete(8)
    sc.write_overwrite(existing=10, fresh=5)
    assert "hoodie.populate.meta.fields=false" in (sc.path / ".hoodie" / "hoodie.properties").read_text()
    for f in _data_files(sc.path):
        assert not [n for n in pq.read_schema(f).names if n.startswith("_hoodie_")], f
    sc.checker().check_all()
    with pytest.raises(IncrementalQueryError):
        read_table(sc.table, query_type="incremental")


# ---------------------------------------------------------------------------- table versions
@pytest.mark.parametrize("version", [6, 8, 9])
def test_table_versions_on_disk(version: int, engine: WriteEngine, tmp_path: Path) -> None:
    sc = Scenario(engine, tmp_path / "t", Layout(KeyGen.TIMESTAMP, True), version=version)
    sc.write_inserts(40, WriteOperation.BULK_INSERT)
    sc.write_upsert(updates=10, stale=2, inserts=5, duplicates=2, deletes=2)
    sc.write_overwrite(existing=5, fresh=5)
    props = hudi.HudiTableBuilder.from_base_uri(str(sc.path)).build().hudi_options()
    assert props["hoodie.table.version"] == str(version)
    assert props["hoodie.timeline.layout.version"] == ("1" if version == 6 else "2")
    timeline = sc.path / ".hoodie" / ("" if version == 6 else "timeline")
    for inst, action in zip(sc.instants, ("commit", "commit", "replacecommit"), strict=True):
        assert str(inst.action) == action
        completed = (
            f"{inst.requested_time}.{action}"
            if version == 6
            else f"{inst.requested_time}_{inst.completion_time}.{action}"
        )
        assert (timeline / completed).is_file(), sorted(p.name for p in timeline.iterdir())
    sc.checker().check_all()


# ---------------------------------------------------------------------------- partition path styles
STYLES = [
    pytest.param(PartitionStyle.HIVE, ["region=ap", "region=eu", "region=us"], id="hive"),
    pytest.param(PartitionStyle.URL_ENCODED, ["ap %231%3Dx", "eu%2Fwest", "us%3Aeast"], id="url-encoded"),
    pytest.param(
        PartitionStyle.HIVE_URL_ENCODED,
        ["region=ap %231%3Dx", "region=eu%2Fwest", "region=us%3Aeast"],
        id="hive-url-encoded",
    ),
]


@pytest.mark.parametrize(("style", "folders"), STYLES)
@pytest.mark.parametrize("version", [6, 9])
def test_partition_folders(
    style: PartitionStyle, folders: list[str], version: int, engine: WriteEngine, tmp_path: Path
) -> None:
    sc = Scenario(engine, tmp_path / "t", Layout(KeyGen.SIMPLE, True, style), version=version)
    sc.write_inserts(30, WriteOperation.BULK_INSERT)
    sc.write_upsert(updates=10, stale=2, inserts=5, duplicates=2, deletes=2)
    on_disk = sorted(p.name for p in sc.path.iterdir() if p.is_dir() and p.name != ".hoodie")
    assert on_disk == folders
    assert all((sc.path / f / ".hoodie_partition_metadata").is_file() for f in folders)
    sc.checker().check_all()
    # A filter on a partition value prunes by the decoded path (the special characters included).
    value = sc.layout.regions[0]
    ours = read_table(sc.table, filters=[("region", "=", value)])
    expected = [r for r in sc.model.snapshot(len(sc.instants) - 1) if r.row["region"] == value]
    assert ours.num_rows == len(expected) > 0
    assert set(ours.column("region").to_pylist()) == {value}


# ---------------------------------------------------------------------------- custom key generator types
@pytest.mark.parametrize(("version", "persisted"), [(6, "region,ts"), (8, "region:SIMPLE,ts:TIMESTAMP"),
                                                    (9, "region:SIMPLE,ts:TIMESTAMP")])  # fmt: skip
def test_custom_partition_fields_per_version(version: int, persisted: str, engine: WriteEngine, tmp_path: Path) -> None:
    """Version 6 persists the names only (Hudi 0.x; hudi-rs reads it as is); 8 and 9 the types too
    (Hudi 1.x, HUDI-7996), which hudi-rs 0.5.0 cannot parse (the checker strips them for it)."""
    sc = Scenario(engine, tmp_path / "t", Layout(KeyGen.CUSTOM, True), version=version)
    sc.write_inserts(40, WriteOperation.BULK_INSERT)
    props = (sc.path / ".hoodie" / "hoodie.properties").read_text()
    assert f"hoodie.table.partition.fields={persisted}\n" in props
    sc.write_upsert(updates=10, stale=2, inserts=5, duplicates=2, deletes=2)
    checker = sc.checker()
    assert (checker.rs_path == str(sc.path)) is (version == 6)
    checker.check_all()
