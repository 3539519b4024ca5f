"""``df.write.format("hudi")``: direct writes (files written by the tasks) and staged writes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import hudi
import pyarrow as pa
import pytest

from hudi_framework.layout.naming import BaseFileName
from hudi_framework.runtime.table import HudiTable
from hudi_framework.timeline.instant import Action
from hudi_framework.timeline.metadata import ReplaceCommitMetadata

pytestmark = pytest.mark.spark


def _opts(operation: str) -> dict[str, str]:
    return {
        "hoodie.table.name": "t",
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "city",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.operation": operation,
    }


def _rows(n: int, cities: list[str], ts: int = 1, start: int = 0) -> pa.Table:
    ids = [f"k{i:04d}" for i in range(start, start + n)]
    return pa.table(
        {
            "id": ids,
            "city": [cities[i % len(cities)] for i in range(n)],
            "ts": [ts] * n,
            "v": [float(i) for i in range(n)],
        },
    )


def _hudi_rs(path: Path) -> list[tuple[Any, ...]]:
    batches = hudi.HudiTableBuilder.from_base_uri(str(path)).build().read()
    if not batches:
        return []
    t = pa.Table.from_batches(batches).select(["id", "city", "ts", "v"]).sort_by("id")
    return [tuple(r.values()) for r in t.to_pylist()]


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _base_files(path: Path) -> list[BaseFileName]:
    return [BaseFileName.parse(p.name) for p in path.rglob("*.parquet") if ".hoodie" not in p.parts]


def test_bulk_insert_files_are_written_by_the_tasks(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "t"
    data = _rows(40, ["sf", "ny"])
    df = spark.createDataFrame(data).repartition(2)
    df.write.format("hudi").options(**_opts("bulk_insert")).mode("append").save(str(path))

    table = HudiTable.open(str(path))
    (instant,) = table.timeline.completed()
    assert instant.action is Action.COMMIT
    files = _base_files(path)
    # Each of the 2 tasks wrote its own file group per partition; write tokens name the Spark task.
    assert len(files) == 4
    assert {f.write_token.split("-")[0] for f in files} == {"0", "1"}
    assert {f.instant_time for f in files} == {instant.requested_time}
    metadata = table.timeline.read_commit_metadata(instant)
    assert metadata.operation_type == "BULK_INSERT"
    assert sum(s.num_inserts or 0 for s in metadata.write_stats()) == 40
    on_disk = sorted(str(f.relative_to(path)) for f in path.rglob("*.parquet") if ".hoodie" not in f.parts)
    assert sorted(str(s.path) for s in metadata.write_stats()) == on_disk
    expected = sorted(tuple(r.values()) for r in data.to_pylist())
    assert _hudi_rs(path) == expected
    assert not list((path / ".hoodie" / ".temp").rglob("*.marker.*"))


def test_insert_overwrite_and_overwrite_mode_replace_file_groups(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "t"
    spark.createDataFrame(_rows(20, ["sf", "ny"])).write.format("hudi").options(**_opts("bulk_insert")).mode(
        "append"
    ).save(str(path))
    fresh = _rows(5, ["sf"], ts=2, start=100)
    spark.createDataFrame(fresh).write.format("hudi").options(**_opts("insert_overwrite")).mode("append").save(
        str(path)
    )
    ny = [r for r in _rows(20, ["sf", "ny"]).to_pylist() if r["city"] == "ny"]
    assert _hudi_rs(path) == sorted(tuple(r.values()) for r in [*ny, *fresh.to_pylist()])
    table = HudiTable.open(str(path))
    last = table.timeline.completed()[-1]
    assert last.action is Action.REPLACE_COMMIT
    replaced = table.timeline.read_commit_metadata(last)
    assert isinstance(replaced, ReplaceCommitMetadata)
    assert {p for p, _ in replaced.replaced_file_ids()} == {"sf"}

    # mode("overwrite") with an upsert operation replaces the whole table.
    only = _rows(3, ["la"], ts=3, start=200)
    spark.createDataFrame(only).write.format("hudi").options(**_opts("upsert")).mode("overwrite").save(str(path))
    assert _hudi_rs(path) == sorted(tuple(r.values()) for r in only.to_pylist())
    table = table.reload()
    last = table.timeline.completed()[-1]
    metadata = table.timeline.read_commit_metadata(last)
    assert isinstance(metadata, ReplaceCommitMetadata)
    assert metadata.operation_type == "INSERT_OVERWRITE_TABLE"
    assert {p for p, _ in metadata.replaced_file_ids()} == {"sf", "ny"}


def test_a_failed_direct_write_leaves_the_table_unchanged(spark: Any, tmp_path: Path) -> None:
    from pyspark.sql import functions as F  # noqa: N812
    from pyspark.sql.types import LongType

    path = tmp_path / "t"
    spark.createDataFrame(_rows(10, ["sf", "ny"])).write.format("hudi").options(**_opts("bulk_insert")).mode(
        "append"
    ).save(str(path))
    before = _tree(path)

    @F.udf(returnType=LongType())  # type: ignore[untyped-decorator]
    def explode_late(key):  # type: ignore[no-untyped-def]  # no hints: Spark would infer an Arrow UDF
        if key == "k0107":
            raise RuntimeError("injected task failure")
        return 2

    # Two tasks: one writes its files, the other fails; abort must remove the first one's files too.
    batch = spark.createDataFrame(_rows(8, ["sf", "ny"], start=100)).repartition(2, "id")
    failing = batch.withColumn("ts", explode_late("id"))
    with pytest.raises(Exception, match="injected task failure"):
        failing.write.format("hudi").options(**_opts("bulk_insert")).mode("append").save(str(path))
    after = _tree(path)
    assert {k: after.get(k) for k in before} == before
    assert len(_hudi_rs(path)) == 10
    # A straggling task (Spark aborts without awaiting the tasks it stops) may have written a file of
    # the undone instant after the abort; readers ignore it and the next write sweeps it.
    stragglers = set(after) - set(before)
    spark.createDataFrame(_rows(1, ["la"], start=300)).write.format("hudi").options(**_opts("bulk_insert")).mode(
        "append"
    ).save(str(path))
    assert not stragglers & set(_tree(path))
    assert len(_hudi_rs(path)) == 11


def test_upserts_through_the_staged_path(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "t"
    spark.createDataFrame(_rows(10, ["sf", "ny"])).write.format("hudi").options(**_opts("bulk_insert")).mode(
        "append"
    ).save(str(path))
    update = pa.table({"id": ["k0001", "k0050"], "city": ["ny", "la"], "ts": [5, 5], "v": [-1.0, -2.0]})
    spark.createDataFrame(update).write.format("hudi").options(**_opts("upsert")).mode("append").save(str(path))
    rows = {r[0]: r for r in _hudi_rs(path)}
    assert rows["k0001"] == ("k0001", "ny", 5, -1.0)
    assert rows["k0050"] == ("k0050", "la", 5, -2.0)
    assert len(rows) == 11
    assert not list((path / ".hoodie" / ".temp").rglob("*.parquet"))


def test_a_direct_write_rolls_back_a_crashed_earlier_write_first(spark: Any, tmp_path: Path) -> None:
    """Single writer, EAGER: an instant left inflight by a job that died (with a marked data file) is
    rolled back before the next direct write starts."""
    from hudi_framework.vocabulary import WriteOperation
    from hudi_framework.write.markers import IOType, create_marker
    from hudi_framework.write.transaction import WriteTransaction

    path = tmp_path / "t"
    spark.createDataFrame(_rows(10, ["sf", "ny"])).write.format("hudi").options(**_opts("bulk_insert")).mode(
        "append"
    ).save(str(path))
    table = HudiTable.open(str(path))
    crashed = WriteTransaction(table.storage, table.config, WriteOperation.BULK_INSERT)
    instant = crashed.start()
    orphan = f"sf/{BaseFileName('dead-0', '0-0-0', instant.requested_time, 'parquet').name}"
    create_marker(table.storage, instant.requested_time, "sf", orphan.split("/")[1], IOType.CREATE)
    table.storage.write(orphan, b"half a parquet file")

    spark.createDataFrame(_rows(5, ["la"], start=100)).write.format("hudi").options(**_opts("bulk_insert")).mode(
        "append"
    ).save(str(path))
    table = table.reload()
    assert not (path / orphan).exists()
    assert instant.requested_time not in {i.requested_time for i in table.timeline.pending()}
    assert len(_hudi_rs(path)) == 15


def _first_line(error: BaseException) -> str:
    return str(error).splitlines()[0]


def test_a_failed_write_names_our_error_first_and_says_the_table_is_unchanged(spark: Any, tmp_path: Path) -> None:
    from pyspark.errors import PySparkException

    from hudi_framework.errors import InvalidRecordKeyError, KeyFieldError
    from hudi_framework.spark import hudi_errors

    path = str(tmp_path / "t")
    good = spark.createDataFrame(_rows(4, ["sf"]))
    good.write.format("hudi").options(**_opts("upsert")).mode("append").save(path)
    before = _tree(tmp_path / "t")

    # Refused on the driver side, before any task: the writer is never built.
    wrong_key = {**_opts("upsert"), "hoodie.datasource.write.recordkey.field": "nope"}
    with pytest.raises(PySparkException) as raw:
        good.write.format("hudi").options(**wrong_key).mode("append").save(path)
    first = _first_line(raw.value)
    assert "hudi_framework.errors.IncompatibleTableConfigError: config conflict: " in first, first
    assert first.endswith("nothing was committed: the table is unchanged"), first
    keyless = good.drop("id")
    with pytest.raises(KeyFieldError) as typed, hudi_errors():
        keyless.write.format("hudi").options(**_opts("upsert")).mode("append").save(path)
    assert typed.value.field == "id"
    assert isinstance(typed.value.__cause__, PySparkException)

    # Refused in the commit, after the tasks staged their rows: a null record key.
    nulls = spark.createDataFrame(pa.table({"id": [None, "k9"], "city": ["sf", "sf"], "ts": [2, 2], "v": [1.0, 2.0]}))
    with pytest.raises(InvalidRecordKeyError), hudi_errors():
        nulls.write.format("hudi").options(**_opts("upsert")).mode("append").save(path)
    after = _tree(tmp_path / "t")
    assert {k: after.get(k) for k in before} == before
    assert len(_hudi_rs(tmp_path / "t")) == 4


def test_a_failed_read_is_caught_by_its_class(spark: Any, tmp_path: Path) -> None:
    from hudi_framework.errors import TableNotFoundError
    from hudi_framework.spark import hudi_errors

    with pytest.raises(TableNotFoundError), hudi_errors():
        spark.read.format("hudi").load(str(tmp_path / "missing")).count()
