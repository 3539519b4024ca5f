"""``df.write.format("hudi")`` staged writes merged by a distributed job started from the commit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import hudi
import pyarrow as pa
import pytest

from hudi_framework.errors import InvalidRecordKeyError
from hudi_framework.layout.naming import BaseFileName
from hudi_framework.runtime.table import HudiTable
from hudi_framework.spark import hudi_errors

pytestmark = pytest.mark.spark


def _opts(operation: str, *, distributed: bool = True, table_type: str = "COPY_ON_WRITE") -> dict[str, str]:
    opts = {
        "hoodie.table.name": "t",
        "hoodie.datasource.write.table.type": table_type,
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "city",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.operation": operation,
    }
    if distributed:
        opts["write.distributed.min.bytes"] = "0"
    return opts


def _rows(ids: list[int], ts: int, v: float) -> pa.Table:
    return pa.table(
        {
            "id": [f"k{i:03d}" for i in ids],
            "city": ["sf" if i % 2 else "ny" for i in ids],
            "ts": pa.array([ts] * len(ids), pa.int64()),
            "v": [v + i for i in ids],
        }
    )


def _hudi_rs(path: Path) -> dict[str, tuple[Any, ...]]:
    batches = hudi.HudiTableBuilder.from_base_uri(str(path)).build().read()
    t = pa.Table.from_batches(batches).select(["id", "city", "ts", "v"])
    return {r["id"]: (r["city"], r["ts"], r["v"]) for r in t.to_pylist()}


def _stages(path: Path) -> set[str]:
    """Stage ids in the write tokens of the base files (the local engine writes stage 0)."""
    names = [BaseFileName.parse(p.name) for p in path.rglob("*.parquet") if ".hoodie" not in p.parts]
    return {n.write_token.split("-")[1] for n in names}


def _save(spark: Any, data: pa.Table, opts: dict[str, str], path: Path, parts: int = 2) -> None:
    spark.createDataFrame(data).repartition(parts).write.format("hudi").options(**opts).mode("append").save(str(path))


def test_upsert_merges_in_executor_tasks(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "t"
    _save(spark, _rows(list(range(20)), 1, 0.0), _opts("upsert"), path)
    # Updates of 0..9, inserts of 20..24; key 3 twice in the batch: the later row (by order) wins.
    batch = pa.concat_tables([_rows([*range(10), *range(20, 25)], 2, 100.0), _rows([3], 3, 999.0)])
    spark.createDataFrame(batch).coalesce(1).write.format("hudi").options(**_opts("upsert")).mode("append").save(
        str(path)
    )
    rows = _hudi_rs(path)
    assert len(rows) == 25
    assert rows["k003"] == ("sf", 3, 1002.0)
    assert rows["k005"] == ("sf", 2, 105.0)
    assert rows["k015"] == ("sf", 1, 15.0)
    assert rows["k022"] == ("ny", 2, 122.0)
    assert "0" not in _stages(path)  # every file written by a Spark task, none by the commit process
    table = HudiTable.open(str(path))
    assert len(table.timeline.completed()) == 2
    assert not [p for p in (path / ".hoodie" / ".temp").rglob("*") if p.is_file()]


def test_delete_and_merge_on_read(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "t"
    mor = _opts("upsert", table_type="MERGE_ON_READ")
    _save(spark, _rows(list(range(10)), 1, 0.0), mor, path)
    _save(spark, _rows([1, 2], 2, 50.0), mor, path)
    keys = _rows([4, 5], 1, 0.0).select(["id", "city"])
    _save(spark, keys, {**mor, "hoodie.datasource.write.operation": "delete"}, path)
    rows = _hudi_rs(path)
    assert sorted(rows) == [f"k{i:03d}" for i in (0, 1, 2, 3, 6, 7, 8, 9)]
    assert rows["k002"] == ("ny", 2, 52.0)
    logs = [p for p in path.rglob(".*.log.*") if ".hoodie" not in p.parts]
    assert logs  # updates and deletes appended as log files by the Spark engine
    assert "0" not in _stages(path)


def test_a_failed_merge_leaves_the_table_as_it_was(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "t"
    _save(spark, _rows(list(range(6)), 1, 0.0), _opts("upsert"), path)
    before = sorted(str(p.relative_to(path)) for p in path.rglob("*") if p.is_file() and ".temp" not in p.parts)
    bad = pa.table({"id": ["k001", None], "city": ["sf", "ny"], "ts": pa.array([5, 5], pa.int64()), "v": [1.0, 2.0]})
    with pytest.raises(InvalidRecordKeyError), hudi_errors():
        _save(spark, bad, _opts("upsert"), path)
    after = sorted(str(p.relative_to(path)) for p in path.rglob("*") if p.is_file() and ".temp" not in p.parts)
    assert after == before
    assert not [p for p in (path / ".hoodie" / ".temp").rglob("*.parquet")]
    assert _hudi_rs(path)["k001"] == ("sf", 1, 1.0)


def test_small_batches_merge_in_the_commit_by_default(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "t"
    _save(spark, _rows(list(range(6)), 1, 0.0), _opts("upsert", distributed=False), path)
    assert _stages(path) == {"0"}
