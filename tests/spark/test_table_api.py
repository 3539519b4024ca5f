"""``HudiSparkTable``: every call on copy-on-write and merge-on-read tables is one commit whose rows
hudi-rs reads as a plain-Python model predicts; merges follow delta-spark's clause rules (first
matching clause wins, ambiguous matches refused); bad expressions are typed errors naming them."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import hudi
import pyarrow as pa
import pytest

from hudi_framework.errors import CompactionPlanError, InvalidRecordKeyError, MergeMatchError, TableExpressionError
from hudi_framework.runtime.table import HudiTable
from hudi_framework.spark import HudiSparkTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.vocabulary import TableType

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

pytestmark = pytest.mark.spark
DATA = ("id", "city", "ts", "v")
Row = tuple[str, str, int, float]
#: Cleaning by hand (not after each commit), keeping one version per file group: a clean then always has work.
_OPTIONS = {
    "hoodie.clean.automatic": "false",
    "hoodie.cleaner.policy": "KEEP_LATEST_FILE_VERSIONS",
    "hoodie.cleaner.fileversions.retained": "1",
}
DOCS = Path(__file__).resolve().parents[2] / "docs" / "spark.md"


def _create(path: Path, table_type: TableType = TableType.COPY_ON_WRITE) -> str:
    config = new_table_config(
        "t", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"], table_type=table_type
    )
    HudiTable.create(str(path), config)
    return str(path)


def _frame(spark: Any, rows: list[Row], extra: dict[str, list[Any]] | None = None) -> Any:
    columns: dict[str, Any] = {name: [r[i] for r in rows] for i, name in enumerate(DATA)}
    columns["ts"] = pa.array(columns["ts"], pa.int64())
    columns["v"] = pa.array(columns["v"], pa.float64())
    columns.update(extra or {})
    return spark.createDataFrame(pa.table(columns))


def _hudi_rs_rows(path: str) -> set[Row]:
    batches = hudi.HudiTableBuilder.from_base_uri(path).build().read()
    if not batches:
        return set()
    table = pa.Table.from_batches(batches).select(list(DATA))
    return {(r["id"], r["city"], r["ts"], r["v"]) for r in table.to_pylist()}


def _completed_commits(path: str) -> list[tuple[str, str]]:
    timeline = HudiTable.open(path).timeline
    done = timeline.completed()
    return [(i.requested_time, i.action.value) for i in sorted(done, key=lambda i: i.requested_time)]


class _Steps:
    """Runs table calls and checks each against the model: one new completed instant, the rows hudi-rs reads."""

    def __init__(self, path: str, model: dict[str, Row]) -> None:
        self.path = path
        self.model = model
        self.seen: list[tuple[str, str]] = []

    def check(self, result: Any, action: str, operation: str | None, history: Any) -> None:
        before = len(self.seen)
        self.seen = _completed_commits(self.path)
        assert len(self.seen) == before + 1, self.seen  # exactly one new completed instant
        assert self.seen[-1][1] == action
        if operation is not None:
            latest = history().first()
            assert (latest["action"], latest["state"], latest["operation"]) == (action, "completed", operation)
        assert _hudi_rs_rows(self.path) == set(self.model.values())


@pytest.mark.parametrize("table_type", [TableType.COPY_ON_WRITE, TableType.MERGE_ON_READ], ids=["cow", "mor"])
def test_every_call_is_one_commit_and_hudi_rs_reads_the_model(
    spark: Any, tmp_path: Path, table_type: TableType
) -> None:
    path = _create(tmp_path / "t", table_type)
    table = HudiSparkTable.for_path(spark, path, _OPTIONS)
    mor = table_type is TableType.MERGE_ON_READ
    write = "deltacommit" if mor else "commit"
    base: list[Row] = [("a", "sf", 1, 1.0), ("b", "sf", 1, 2.0), ("c", "ny", 1, 3.0), ("d", "ny", 1, 4.0)]
    model = {r[0]: r for r in base}
    steps = _Steps(path, model)

    steps.check(table.upsert(_frame(spark, base)), write, "UPSERT", table.history)
    assert table.to_df().count() == 4

    table.insert(_frame(spark, [("e", "la", 1, 5.0)]))
    model["e"] = ("e", "la", 1, 5.0)
    steps.check(None, write, "INSERT", table.history)

    result = table.update("v > 2.5 AND city = 'ny'", {"v": "v * 10", "ts": "t.ts + 1"})
    assert result.num_updates == 2
    model["c"], model["d"] = ("c", "ny", 2, 30.0), ("d", "ny", 2, 40.0)
    steps.check(result, write, "UPSERT", table.history)

    table.delete("t.id = 'a' OR v = 5.0")
    del model["a"], model["e"]
    steps.check(None, write, "DELETE", table.history)

    table.delete(_frame(spark, [("b", "sf", 1, 0.0)]).select("id", "city"))
    del model["b"]
    steps.check(None, write, "DELETE", table.history)

    source = _frame(spark, [("c", "ny", 3, 7.0), ("d", "ny", 3, 0.0), ("f", "sf", 3, 6.0)], {"op": ["U", "D", "I"]})
    result = (
        table.merge(source, "s.id = t.id")
        .when_matched_delete(condition="s.op = 'D'")
        .when_matched_update({"v": "s.v + t.v", "ts": "s.ts"})
        .when_not_matched_insert_all()
        .execute()
    )
    assert (result.num_inserts, result.num_updates, result.num_deletes) == (1, 1, 1)
    model["c"], model["f"] = ("c", "ny", 3, 37.0), ("f", "sf", 3, 6.0)
    del model["d"]
    steps.check(result, write, "UPSERT", table.history)

    if mor:
        assert table.compact() is not None
        steps.check(None, "commit", "COMPACT", table.history)
    else:
        with pytest.raises(CompactionPlanError, match="copy-on-write"):
            table.compact()
    assert len(table.clean()) == 1  # every file slice but the latest goes
    steps.check(None, "clean", None, table.history)
    assert table.cluster() is not None
    steps.check(None, "replacecommit", "CLUSTER", table.history)

    history = table.history().collect()
    assert [r["state"] for r in history] == ["completed"] * len(history)
    assert {r["requested_time"] for r in history} == {t for t, _ in steps.seen}
    slices = table.show_file_system_view().collect()
    assert {r["partition"] for r in slices} >= {"ny", "sf"}  # la's group is empty (its rows were deleted)
    assert all(r["num_log_files"] == 0 for r in slices)  # clustering rewrote every slice into base files


def _merge_table(spark: Any, tmp_path: Path) -> HudiSparkTable:
    path = _create(tmp_path / "m")
    table = HudiSparkTable.for_path(spark, path)
    table.upsert(_frame(spark, [("a", "sf", 1, 1.0), ("b", "sf", 1, 2.0), ("c", "ny", 1, 3.0), ("d", "ny", 1, 4.0)]))
    return table


def _model_merge(target: list[Row], source: list[tuple[str | None, str, int, float, str]]) -> set[tuple[Any, ...]]:
    """delta-spark's rules for the clauses of the merge test, on plain rows: first clause that holds wins."""
    out: set[tuple[Any, ...]] = set()
    for sid, city, ts, v, op in source:
        matches = [t for t in target if sid is not None and t[0] == sid]
        for t in matches:
            if op == "D":
                out.add((*t, True))
            elif v > t[3]:
                out.add((t[0], t[1], t[2], v + t[3], False))
        if not matches and op != "D":
            out.add((sid, city, ts, v, False))
    return out


def test_merge_rows_follow_the_first_matching_clause(spark: Any, tmp_path: Path) -> None:
    table = _merge_table(spark, tmp_path)
    target: list[Row] = [("a", "sf", 1, 1.0), ("b", "sf", 1, 2.0), ("c", "ny", 1, 3.0), ("d", "ny", 1, 4.0)]
    source = [
        ("a", "sf", 2, 5.0, "U"),  # matched, bigger: updated
        ("b", "sf", 2, 0.5, "U"),  # matched, smaller: no clause holds, left as it is
        ("c", "ny", 2, 9.0, "D"),  # matched, deleted (the delete clause comes first)
        ("x", "la", 2, 1.0, "I"),  # not matched: inserted
        ("y", "la", 2, 1.0, "D"),  # not matched, insert condition false: dropped
        (None, "la", 2, 1.0, "D"),  # null key never matches; not inserted either
    ]
    frame = _frame(spark, [s[:4] for s in source], {"op": [s[4] for s in source]})  # type: ignore[misc]
    builder = (
        table.merge(frame, "s.id = t.id")
        .when_matched_delete(condition="s.op = 'D'")
        .when_matched_update({"v": "s.v + t.v"}, condition="s.v > t.v")
        .when_not_matched_insert_all(condition="s.op <> 'D'")
    )
    got = {(r["id"], r["city"], r["ts"], r["v"], r["_hoodie_is_deleted"]) for r in builder.rows().collect()}
    assert got == _model_merge(target, source)
    commits = _completed_commits(table.table.base_uri)

    # A null key that an insert clause takes fails the write before it starts, typed.
    with pytest.raises(InvalidRecordKeyError):
        table.merge(frame, "s.id = t.id").when_not_matched_insert_all().execute()
    # Several source rows on one target row: ambiguous, refused naming the target key.
    twice = _frame(spark, [("a", "sf", 3, 1.0), ("a", "sf", 4, 2.0), ("b", "sf", 3, 1.0)])
    with pytest.raises(MergeMatchError) as caught:
        table.merge(twice, "s.id = t.id").when_matched_update_all().execute()
    assert (caught.value.keys, caught.value.count) == (("a",), 1)
    assert _completed_commits(table.table.base_uri) == commits  # nothing written

    # One source row matching several target rows updates each of them.
    by_city = _frame(spark, [("z", "ny", 5, 0.0)])
    rows = table.merge(by_city, "s.city = t.city").when_matched_update({"ts": "s.ts"}).rows().collect()
    assert sorted((r["id"], r["ts"]) for r in rows) == [("c", 5), ("d", 5)]


def test_bad_expressions_are_typed_errors_naming_them(spark: Any, tmp_path: Path) -> None:
    table = _merge_table(spark, tmp_path)
    commits = _completed_commits(table.table.base_uri)
    source = _frame(spark, [("a", "sf", 2, 5.0)])
    with pytest.raises(TableExpressionError, match="nope") as caught:
        table.update("id = 'a'", {"nope": "1"})
    assert caught.value.expression == "nope"
    with pytest.raises(TableExpressionError, match="cannot be set"):
        table.update("id = 'a'", {"id": "'z'"})
    with pytest.raises(TableExpressionError, match="missing"):
        table.update("missing > 1", {"v": "2"})
    with pytest.raises(TableExpressionError, match="`x`") as caught:
        table.merge(source, "x.id = t.id").when_matched_update_all().execute()
    assert caught.value.expression == "x.id = t.id"
    with pytest.raises(TableExpressionError, match=re.escape("`s`.`w`")):
        table.merge(source, "s.id = t.id").when_matched_update({"v": "s.w"}).execute()
    with pytest.raises(TableExpressionError, match="'v'"):
        table.merge(source.drop("v"), "s.id = t.id").when_not_matched_insert_all().execute()
    with pytest.raises(TableExpressionError, match="no clause"):
        table.merge(source, "s.id = t.id").execute()
    assert _completed_commits(table.table.base_uri) == commits


def test_procedures_savepoint_restore_and_rollback(spark: Any, tmp_path: Path) -> None:
    table = _merge_table(spark, tmp_path)
    first = table.create_savepoint(comments="before the update")
    assert [r["instant_time"] for r in table.show_savepoints().collect()] == [first.instant_time]
    table.update(None, {"v": "v + 100"})
    assert _hudi_rs_rows(table.table.base_uri) >= {("a", "sf", 1, 101.0)}
    table.rollback_to_savepoint(first.instant_time)
    assert ("a", "sf", 1, 1.0) in _hudi_rs_rows(table.table.base_uri)
    commits = table.show_commits().collect()
    assert [r["requested_time"] for r in commits] == [first.instant_time]


def _doc_examples() -> list[str]:
    text = DOCS.read_text()
    section = re.search(r"^## Table API\s*$(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    assert section, "docs/spark.md has no '## Table API' section"
    return re.findall(r"```python\n(.*?)```", section.group(1), re.DOTALL)


def test_the_documented_examples_run(spark: Any, tmp_path: Path) -> None:
    examples = _doc_examples()
    assert examples
    path = _create(tmp_path / "orders")
    scope: dict[str, Any] = {"spark": spark, "path": path}
    for code in examples:
        exec(compile(code, str(DOCS), "exec"), scope)  # the docs' own examples
    assert _hudi_rs_rows(path)  # the examples leave rows hudi-rs reads
