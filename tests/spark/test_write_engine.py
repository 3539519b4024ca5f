"""The Spark engine (``SparkWriteClient``) against the local engine, hudi-rs and the files on disk."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import hudi
import numpy as np
import pyarrow as pa
import pytest

from hudi_framework.config.settings import HudiSettings
from hudi_framework.errors import InvalidRecordKeyError, SchemaMismatchError
from hudi_framework.layout.naming import BaseFileName
from hudi_framework.runtime.table import HudiTable
from hudi_framework.spark.placement import partition_slots, spark_int_hash
from hudi_framework.spark.task_errors import CarriedTaskError, recover_error
from hudi_framework.spark.write_engine import SparkWriteClient
from hudi_framework.table.table_config import new_table_config
from hudi_framework.vocabulary import WriteOperation
from hudi_framework.write.client import WriteClient, WriteResult
from hudi_framework.write.markers import IOType, create_marker
from hudi_framework.write.transaction import WriteTransaction

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from hudi_rs_check import canonical_hash

pytestmark = pytest.mark.spark
DATA = ["id", "city", "ts", "v"]
Step = tuple[str, pa.Table | list[str]]


def _batch(ids: list[str], cities: list[str], ts: list[int], v: list[float]) -> pa.Table:
    return pa.table({"id": ids, "city": cities, "ts": pa.array(ts, pa.int64()), "v": v})


def _read(base: str | Path) -> pa.Table | None:
    batches = hudi.HudiTableBuilder.from_base_uri(str(base)).build().read()
    return pa.Table.from_batches(batches) if batches else None


def _rows(base: str | Path) -> list[dict[str, Any]]:
    table = _read(base)
    return [] if table is None else table.select(DATA).sort_by("id").to_pylist()


def _digest(base: str | Path) -> str:
    table = _read(base)
    return "empty" if table is None else canonical_hash(table)[0]


def _files_and_timeline(base: str | Path) -> list[str]:
    root = Path(base)
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def _table(path: Path, *, partitioned: bool = True, meta: bool = True) -> HudiTable:
    config = new_table_config(
        "t",
        record_key_fields=["id"],
        partition_fields=["city"] if partitioned else [],
        ordering_fields=["ts"],
        populate_meta_fields=meta,
    )
    return HudiTable.create(str(path), config)


def _run(client: WriteClient | SparkWriteClient, step: Step, to_frame: Callable[[pa.Table], Any]) -> WriteResult:
    operation, data = step
    if isinstance(data, list):
        return client.delete_partition(data)
    return client.write(data if isinstance(client, WriteClient) else to_frame(data), operation)


def _counts(result: WriteResult) -> tuple[int, int, int, int]:
    return result.num_writes, result.num_inserts, result.num_updates, result.num_deletes


def _random_batch(seed: int, n: int, keys: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, keys, n)
    return pa.table(
        {
            "id": pa.array([f"k{i:06d}" for i in ids]),
            "city": pa.array(np.array(["sf", "ny", "la", "tokyo"])[ids % 4]),
            "ts": pa.array(rng.integers(0, 5, n), pa.int64()),
            "v": pa.array(rng.random(n)),
        }
    )


FIRST = _batch(["a", "b", "c", "d", "a", "a"], ["sf", "sf", "ny", "ny", "sf", "sf"], [3, 1, 1, 1, 5, 4],
               [3.0, 2.0, 3.0, 4.0, 5.0, 4.0])  # fmt: skip
SCENARIOS: dict[str, tuple[dict[str, bool], dict[str, Any], list[Step]]] = {
    "partitioned": (
        {},
        {},
        [
            ("upsert", FIRST),
            # a: newer event time wins; c: older loses; e: insert.
            ("upsert", _batch(["a", "c", "e"], ["sf", "ny", "la"], [6, 0, 2], [10.0, 30.0, 50.0])),
            ("delete", pa.table({"id": ["b", "zz"], "city": ["sf", "sf"]})),
            ("insert", _batch(["f", "g"], ["sf", "la"], [1, 1], [6.0, 7.0])),
            # A non-global index: one key in two partitions is two records.
            ("upsert", _batch(["h", "h", "h"], ["sf", "la", "sf"], [1, 1, 2], [1.0, 2.0, 3.0])),
            ("insert_overwrite", _batch(["x", "y"], ["ny", "ny"], [1, 1], [8.0, 9.0])),
            ("delete_partition", ["la"]),
        ],
    ),
    "non-partitioned": (
        {"partitioned": False},
        {},
        [
            ("upsert", FIRST),
            ("upsert", _batch(["a", "c", "e"], ["sf", "ny", "la"], [6, 0, 2], [10.0, 30.0, 50.0])),
            ("delete", pa.table({"id": ["b", "zz"], "city": ["sf", "sf"]})),
            ("insert_overwrite_table", _batch(["q", "r"], ["la", "la"], [1, 1], [1.0, 2.0])),
        ],
    ),
    "global-moves": (
        {},
        {"index": {"type": "global-simple"}},
        [
            ("upsert", FIRST),
            # a moves from sf to ny (a newer version); d is updated in place; e is new; b arrives in
            # la with an older version, which loses the merge with the stored b, so b stays in sf.
            ("upsert", _batch(["a", "d", "e", "b"], ["ny", "ny", "la", "la"], [9, 2, 1, 0], [1.5, 4.5, 5.5, 0.5])),
        ],
    ),
    "global-keeps-partition": (
        {},
        {"index": {"type": "global-bloom", "options": {"update_partition_path": False}}},
        [
            ("upsert", FIRST),
            ("upsert", _batch(["a", "c"], ["la", "sf"], [9, 2], [1.5, 3.5])),
        ],
    ),
    "virtual-keys": (
        {"meta": False},
        {},
        [
            ("upsert", FIRST),
            ("upsert", _batch(["a", "c", "e"], ["sf", "ny", "la"], [6, 0, 2], [10.0, 30.0, 50.0])),
            ("delete", pa.table({"id": ["d"], "city": ["ny"]})),
        ],
    ),
    "duplicate-keys": (
        {},
        {"write": {"small_file_limit_bytes": 0}},
        [
            # Inserts keep duplicates: a twice in one file group of sf, then once more in another.
            ("insert", _batch(["a", "a", "b"], ["sf", "sf", "sf"], [1, 2, 1], [1.0, 2.0, 3.0])),
            ("insert", _batch(["a"], ["sf"], [1], [4.0])),
            # Tagged with both file groups: the first copy of each is updated, then deleted.
            ("upsert", _batch(["a", "b"], ["sf", "sf"], [3, 3], [5.0, 6.0])),
            ("delete", pa.table({"id": ["a"], "city": ["sf"]})),
        ],
    ),
    "many-file-groups": (
        {},
        {"write": {"max_file_size_bytes": 2 << 20, "small_file_limit_bytes": 1 << 20, "record_size_estimate": 6000}},
        [
            ("upsert", _random_batch(1, 6_000, 4_000)),
            ("upsert", _random_batch(2, 6_000, 8_000)),
        ],
    ),
}


#: Scenarios whose general-path case runs only with ``HUDI_TEST_SPARK=full``: their table shape adds
#: nothing to the general path that another scenario's general case does not exercise.
GENERAL_WITH_FULL_SPARK = ("non-partitioned", "global-keeps-partition")
_FULL_SPARK = os.environ.get("HUDI_TEST_SPARK", "").lower() == "full"


def _engine_cases() -> list[Any]:
    cases = []
    for name in SCENARIOS:
        for paths in ("fast", "general"):
            marks = []
            if paths == "general" and name in GENERAL_WITH_FULL_SPARK and not _FULL_SPARK:
                marks.append(pytest.mark.skip(reason="with HUDI_TEST_SPARK=full (the fast path runs it)"))
            cases.append(pytest.param(name, paths, id=f"{name}-{paths}", marks=marks))
    return cases


@pytest.mark.parametrize(("name", "paths"), _engine_cases())
def test_engines_agree(spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, paths: str) -> None:
    from hudi_framework.spark import tagging_stage, write_engine

    if paths == "general":
        # The general paths: lookups shuffled by file, and raw rows keyed before the pre-combine shuffle.
        monkeypatch.setattr(tagging_stage, "NARROW_FILE_OPENS", 0)
        monkeypatch.setattr(write_engine.SparkWriteClient, "_key_source", lambda *a: None)
    key_sources: list[str | None] = []
    keyed = write_engine.keyed_rows

    def keyed_spy(*args: Any, **kwargs: Any) -> Any:
        key_sources.append(kwargs.get("key_source"))
        return keyed(*args, **kwargs)

    monkeypatch.setattr(write_engine, "keyed_rows", keyed_spy)
    shuffled: list[str] = []  # operations tagged by the shuffled path (the first step finds no files)
    current: list[str] = []
    original = write_engine.tag_rows

    def spy(*args: Any, **kwargs: Any) -> Any:
        shuffled.append(current[-1] if len(current) > 1 else "first")
        return original(*args, **kwargs)

    monkeypatch.setattr(write_engine, "tag_rows", spy)
    table_options, overrides, steps = SCENARIOS[name]
    settings = HudiSettings(**overrides)
    local = WriteClient(_table(tmp_path / "local", **table_options), settings)
    remote = SparkWriteClient(_table(tmp_path / "spark", **table_options), settings, spark)
    for step in steps:
        current.append(step[0])
        expected = _run(local, step, spark.createDataFrame)
        got = _run(remote, step, spark.createDataFrame)
        assert _counts(got) == _counts(expected), step[0]
        assert str(got.instant.action) == str(expected.instant.action)
        assert _digest(remote.table.base_uri) == _digest(local.table.base_uri), step[0]
    base = Path(remote.table.base_uri)
    assert not [p for p in (base / ".hoodie" / ".temp").rglob("*") if p.is_file()]  # markers are gone
    tokens = {BaseFileName.parse(p.name).write_token for p in base.rglob("*.parquet")}
    assert all(re.fullmatch(r"\d+-\d+-0", t) for t in tokens)  # <partition>-<stage>-<attempt>
    if name == "partitioned":
        assert _rows(base) == [
            {"id": "a", "city": "sf", "ts": 6, "v": 10.0},
            {"id": "f", "city": "sf", "ts": 1, "v": 6.0},
            {"id": "h", "city": "sf", "ts": 2, "v": 3.0},
            {"id": "x", "city": "ny", "ts": 1, "v": 8.0},
            {"id": "y", "city": "ny", "ts": 1, "v": 9.0},
        ]
    if name == "global-moves":
        assert {r["id"]: (r["city"], r["ts"]) for r in _rows(base)} == {
            "a": ("ny", 9), "b": ("sf", 1), "c": ("ny", 1), "d": ("ny", 2), "e": ("la", 1)
        }  # fmt: skip
    if name == "many-file-groups":
        assert len(remote.table.reload().latest_file_slices()) > 4
    # Pre-combined upserts of a table with base files tag in the pre-combine tasks unless forced not to,
    # and the raw rows of a string key are shuffled by it unless forced not to.
    assert ("upsert" in shuffled) == (paths == "general")
    assert ("id" in key_sources) == (paths == "fast")


def test_precombine_keeps_the_latest_version(spark: Any, tmp_path: Path) -> None:
    client = SparkWriteClient(_table(tmp_path), None, spark)
    # Spread the duplicates over several input partitions: arrival order must still decide ties.
    frame = spark.createDataFrame(_batch(["a", "a", "a", "b"], ["sf"] * 4, [3, 5, 5, 1], [3.0, 5.0, 5.5, 1.0]))
    result = client.upsert(frame.repartition(3))
    assert result.num_inserts == 2
    rows = {r["id"]: (r["ts"], r["v"]) for r in _rows(tmp_path)}
    assert rows["b"] == (1, 1.0)
    assert rows["a"][0] == 5


def test_bad_batches_fail_typed_and_leave_the_table_unchanged(spark: Any, tmp_path: Path) -> None:
    client = SparkWriteClient(_table(tmp_path), None, spark)
    client.upsert(spark.createDataFrame(_batch(["a"], ["sf"], [1], [1.0])))
    before = _files_and_timeline(tmp_path)
    from pyspark.sql import functions as F  # noqa: N812

    # A new non-nullable column (a literal): Apache Hudi adds only nullable ones.
    extra = spark.createDataFrame(_batch(["b"], ["sf"], [1], [1.0])).withColumn("extra", F.lit(1))
    with pytest.raises(SchemaMismatchError, match="'extra'"):
        client.upsert(extra)
    # A boolean into a long column: refused from the schemas on the driver, whatever the values.
    bad_value = pa.table({"id": ["b"], "city": ["sf"], "ts": [True], "v": [1.0]})
    with pytest.raises(SchemaMismatchError, match="'ts'") as caught:
        client.upsert(spark.createDataFrame(bad_value))
    assert caught.value.column == "ts"
    # Found inside an executor: the typed error still reaches the caller.
    null_key = pa.table({"id": pa.array(["c", None], pa.string()), "city": ["sf", "sf"], "ts": [1, 1], "v": [1.0, 2.0]})
    with pytest.raises(InvalidRecordKeyError) as null_caught:
        client.upsert(spark.createDataFrame(null_key))
    assert null_caught.value.fields == ("id",)
    assert _files_and_timeline(tmp_path) == before
    assert [r["id"] for r in _rows(tmp_path)] == ["a"]


def test_a_failing_task_rolls_the_write_back(spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    client = SparkWriteClient(_table(tmp_path), None, spark)
    client.insert(spark.createDataFrame(_batch(["a", "b", "c"], ["la", "ny", "zz"], [1, 1, 1], [1.0, 2.0, 3.0])))
    # Corrupt the (small) base file in partition zz: the task merging new rows into it fails in
    # its executor, after the tasks of la and ny wrote their files (2 cores, zz's task runs last).
    (zz_slice,) = client.table.reload().latest_file_slices(partition="zz")
    assert zz_slice.base_file_key is not None
    (tmp_path / zz_slice.base_file_key).write_bytes(b"not a parquet file")
    before = _files_and_timeline(tmp_path)
    aborted: list[list[str]] = []
    real_abort = WriteTransaction.abort

    def recording_abort(self: WriteTransaction) -> list[str]:
        aborted.append(real_abort(self))
        return aborted[-1]

    monkeypatch.setattr(WriteTransaction, "abort", recording_abort)
    with pytest.raises(Exception, match=r"(?i)parquet"):
        client.insert(spark.createDataFrame(_batch(["d", "e", "f"], ["la", "ny", "zz"], [2, 2, 2], [4.0, 5.0, 6.0])))
    assert _files_and_timeline(tmp_path) == before
    assert len(aborted) == 1
    assert aborted[0], "the rollback deleted the files of the tasks that succeeded"


def test_commit_removes_files_no_stat_reports(tmp_path: Path) -> None:
    table = _table(tmp_path)
    WriteClient(table).insert(_batch(["a"], ["sf"], [1], [1.0]))
    txn = WriteTransaction(table.storage, table.config, WriteOperation.INSERT)
    txn.start()
    name = BaseFileName("ffffffff-0000-0000-0000-000000000000-0", "1-5-0", txn.instant_time, "parquet").name
    create_marker(table.storage, txn.instant_time, "sf", name, IOType.CREATE)  # a failed duplicate attempt
    table.storage.write(f"sf/{name}", b"partial")
    txn.commit([], schema_json=None)
    assert not (tmp_path / "sf" / name).exists()


def test_typed_errors_survive_the_text_boundary() -> None:
    carried = CarriedTaskError.carrying(SchemaMismatchError("ts", "type string cannot be cast to int64"))
    spark_side = RuntimeError(f"An exception was thrown from the Python worker:\nTraceback ...\n{carried}\n")
    recovered = recover_error(spark_side)
    assert isinstance(recovered, SchemaMismatchError)
    assert (recovered.column, recovered.reason) == ("ts", "type string cannot be cast to int64")
    assert str(recovered) == "column 'ts': type string cannot be cast to int64"
    assert recover_error(RuntimeError("no marker here")) is None


def test_partition_slots_place_each_target_in_its_own_partition(spark: Any) -> None:
    from pyspark.sql import functions as F  # noqa: N812

    values = list(range(-3, 200))
    hashed = spark.createDataFrame([(v,) for v in values], "v int").select(F.hash("v").alias("h")).collect()
    assert [r.h for r in hashed] == [spark_int_hash(v) for v in values]
    slots = partition_slots(7)
    frame = spark.createDataFrame([(s,) for s in slots], "s int").repartition(7, "s")
    placed = frame.select("s", F.spark_partition_id().alias("p")).collect()
    assert sorted((slots.index(r.s), r.p) for r in placed) == [(p, p) for p in range(7)]


@pytest.mark.parametrize("driver_footers", [32, 0], ids=["footers-on-driver", "footers-in-a-job"])
def test_key_ranges_read_by_the_driver_or_a_job_tag_alike(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, driver_footers: int
) -> None:
    from hudi_framework.spark import tagging_stage

    monkeypatch.setattr(tagging_stage, "DRIVER_FOOTER_FILES", driver_footers)
    monkeypatch.setattr(tagging_stage, "NARROW_FILE_OPENS", 0)
    calls: list[str] = []
    for name in ("_driver_footers", "_with_key_ranges"):
        original = getattr(tagging_stage, name)
        monkeypatch.setattr(tagging_stage, name, lambda *a, _f=original, _n=name, **k: calls.append(_n) or _f(*a, **k))
    _, overrides, steps = SCENARIOS["many-file-groups"]
    settings = HudiSettings(**overrides, index={"type": "bloom"})
    local = WriteClient(_table(tmp_path / "local"), settings)
    remote = SparkWriteClient(_table(tmp_path / "spark"), settings, spark)
    for step in steps:
        expected, got = _run(local, step, spark.createDataFrame), _run(remote, step, spark.createDataFrame)
        assert _counts(got) == _counts(expected)
    assert _digest(remote.table.base_uri) == _digest(local.table.base_uri)
    # The second upsert tags against the first one's files (the first finds an empty table).
    assert calls == ["_driver_footers" if driver_footers else "_with_key_ranges"]
