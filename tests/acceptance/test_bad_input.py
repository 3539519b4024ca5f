"""Bad input leaves the table unchanged: every file (paths and bytes, timeline included) is the same
after the failed write as before it, the error is the typed one, and all readers agree as before.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.config.settings import HudiSettings
from hudi_framework.errors import (
    HudiError,
    InvalidConfigValueError,
    InvalidRecordKeyError,
    SchemaMismatchError,
    StorageError,
    UnknownConfigKeyError,
)
from hudi_framework.vocabulary import WriteOperation
from hudi_framework.write import client as client_module
from hudi_framework.write.target_task import write_target
from tests.acceptance.data import to_table
from tests.acceptance.engines import LocalEngine, Step, WriteEngine
from tests.acceptance.layouts import KeyGen, Layout
from tests.acceptance.oracle import snapshot_files
from tests.acceptance.scenario import Scenario

LAYOUTS = [
    pytest.param((Layout(KeyGen.SIMPLE, True), 9), id="simple-v9"),
    pytest.param((Layout(KeyGen.COMPLEX, True), 8), id="complex-v8"),
    pytest.param((Layout(KeyGen.NON_PARTITION, False), 6), id="nonpart-v6"),
]


def _scenario(engine: WriteEngine, path: Path, layout: Layout, version: int) -> Scenario:
    sc = Scenario(engine, path, layout, version=version)
    sc.write_inserts(60, WriteOperation.BULK_INSERT)
    sc.write_upsert(updates=10, stale=2, inserts=10, duplicates=2, deletes=2)
    return sc


@pytest.fixture(params=LAYOUTS)
def scenario(request: pytest.FixtureRequest, engine: WriteEngine, tmp_path: Path) -> Scenario:
    return _scenario(engine, tmp_path / "table", *request.param)


def _assert_unchanged(sc: Scenario, attempt: Callable[[], Any], error: type[BaseException]) -> BaseException:
    before = snapshot_files(sc.path)
    with pytest.raises(error) as info:
        attempt()
    after = snapshot_files(sc.path)
    assert sorted(after) == sorted(before), "files appeared or vanished"
    assert [k for k in before if before[k] != after[k]] == [], "files changed"
    sc.checker().check_latest()  # readers still agree with the model, which saw no write
    return info.value


def _rows(sc: Scenario, n: int = 5) -> pa.Table:
    return to_table(sc.rows.rows(range(1000, 1000 + n)))


def _write(sc: Scenario, data: pa.Table, op: WriteOperation = WriteOperation.UPSERT) -> Callable[[], None]:
    return lambda: sc.engine.run(sc.table, sc.settings, Step(op, data))


@pytest.mark.parametrize("op", [WriteOperation.UPSERT, WriteOperation.INSERT, WriteOperation.INSERT_OVERWRITE])
def test_a_new_required_column(scenario: Scenario, op: WriteOperation) -> None:
    # A new nullable column is added to the table (schema evolution); a required one cannot be.
    data = _rows(scenario).append_column(pa.field("surprise", pa.int64(), nullable=False), pa.array([1] * 5))
    err = _assert_unchanged(scenario, _write(scenario, data, op), SchemaMismatchError)
    assert err.column == "surprise"  # type: ignore[attr-defined]


def test_an_uncastable_column(scenario: Scenario) -> None:
    data = _rows(scenario).set_column(3, "ts", pa.array([True] * 5))  # no promotion, no evolution
    err = _assert_unchanged(scenario, _write(scenario, data), SchemaMismatchError)
    assert err.column == "ts"  # type: ignore[attr-defined]


@pytest.mark.parametrize("value", [None, ""], ids=["null", "empty"])
@pytest.mark.parametrize("op", [WriteOperation.UPSERT, WriteOperation.BULK_INSERT, WriteOperation.DELETE])
def test_a_bad_record_key(scenario: Scenario, value: str | None, op: WriteOperation) -> None:
    data = _rows(scenario)
    ids = data.column("id").to_pylist()
    ids[2] = value
    data = data.set_column(0, "id", pa.array(ids, pa.string()))
    if scenario.layout.keygen is KeyGen.COMPLEX:
        # A complex key fails only when every field is null or empty.
        kinds = data.column("kind").to_pylist()
        kinds[2] = value
        data = data.set_column(1, "kind", pa.array(kinds, pa.string()))
    err = _assert_unchanged(scenario, _write(scenario, data, op), InvalidRecordKeyError)
    assert "id" in str(err)


def test_an_unknown_option_is_refused_before_any_write(scenario: Scenario) -> None:
    def attempt() -> None:
        HudiSettings.from_hoodie_options({"hoodie.index.typ": "BLOOM", "hoodie.table.name": "t"}, env=False)

    err = _assert_unchanged(scenario, attempt, UnknownConfigKeyError)
    assert isinstance(err, HudiError)
    assert err.key == "hoodie.index.typ"  # type: ignore[attr-defined]
    assert "hoodie.index.type" in err.suggestions  # type: ignore[attr-defined]
    assert "did you mean 'hoodie.index.type'" in str(err)


@pytest.mark.parametrize(
    ("layout", "version", "fail_on"),
    [
        pytest.param(Layout(KeyGen.SIMPLE, True), 9, 0, id="simple-v9-first-task"),
        pytest.param(Layout(KeyGen.SIMPLE, True), 6, 2, id="simple-v6-third-task"),
        pytest.param(Layout(KeyGen.COMPLEX, True), 8, 1, id="complex-v8-second-task"),
        pytest.param(Layout(KeyGen.NON_PARTITION, False), 6, 0, id="nonpart-v6-only-task"),
    ],
)
def test_a_task_failing_after_writing_its_file(
    layout: Layout, version: int, fail_on: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Local engine: a task writes its file (and marker), then fails; tasks started before it completed.

    (The Spark engine runs tasks on executors; its failure injection belongs with its own tests.)
    """
    sc = _scenario(LocalEngine(), tmp_path / "table", layout, version)
    calls: list[str] = []

    def flaky(*args: Any, **kwargs: Any) -> Any:
        stats = write_target(*args, **kwargs)  # the files and their markers exist from here on
        (stat,) = stats  # one file per target here (no log rollover)
        assert stat.path is not None
        calls.append(stat.path)
        assert (sc.path / stat.path).is_file()
        if len(calls) - 1 == fail_on:
            raise StorageError("injected task failure after the file was written")
        return stats

    monkeypatch.setattr(client_module, "write_target", flaky)
    data = to_table(sc.rows.rows(sc.live_keys()[:20]) + sc.rows.rows(range(2000, 2010)))
    _assert_unchanged(sc, _write(sc, data), StorageError)
    # Tasks run two at a time: the other one running may finish after the failing one.
    assert len(calls) >= fail_on + 1, "the failure was not injected where intended"
    monkeypatch.undo()
    # The table still takes writes afterwards, and they are read back right.
    sc.write_upsert(updates=5, stale=1, inserts=5, duplicates=1, deletes=1)
    sc.checker().check_all()


def test_a_v6_custom_table_written_without_partition_types(engine: WriteEngine, tmp_path: Path) -> None:
    """Version 6 persists custom partition fields untyped; a writer that does not give the types
    is refused before anything is written (Java 0.x fails the same way)."""
    sc = _scenario(engine, tmp_path / "table", Layout(KeyGen.CUSTOM, True), 6)
    settings = HudiSettings.from_hoodie_options({}, env=False)

    def attempt() -> None:
        sc.engine.run(sc.table, settings, Step(WriteOperation.UPSERT, _rows(sc)))

    err = _assert_unchanged(sc, attempt, InvalidConfigValueError)
    assert "hoodie.datasource.write.partitionpath.field" in str(err)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("hoodie.datasource.write.recordkey.field", "nope"),
        ("hoodie.datasource.write.partitionpath.field", "other"),
        ("hoodie.datasource.write.precombine.field", "zz"),
        ("hoodie.table.name", "another"),
        ("hoodie.datasource.write.table.type", "MERGE_ON_READ"),
        ("hoodie.datasource.write.keygenerator.type", "COMPLEX"),
        ("hoodie.datasource.write.hive_style_partitioning", "true"),
    ],
)
def test_a_write_giving_another_table_property_is_refused(tmp_path: Path, option: str, value: str) -> None:
    """Settings that make keys, partitions or files differently than the table's hoodie.properties
    would otherwise be accepted and ignored (Apache Hudi: ``Config conflict``)."""
    from hudi_framework.errors import IncompatibleTableConfigError
    from hudi_framework.runtime.table import HudiTable
    from hudi_framework.table.table_config import new_table_config
    from hudi_framework.write.client import WriteClient

    config = new_table_config("t", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"])
    table = HudiTable.create(str(tmp_path), config)
    rows = pa.table({"id": ["a"], "city": ["sf"], "ts": [1], "other": ["x"], "zz": [1], "nope": ["n"]})
    WriteClient(table).upsert(rows)
    same = {"hoodie.table.name": "t", "hoodie.datasource.write.recordkey.field": "id"}
    WriteClient(table, HudiSettings.from_hoodie_options(same, env=False)).upsert(rows)  # the table's own values
    with pytest.raises(IncompatibleTableConfigError, match=option.replace(".", r"\.")):
        WriteClient(table, HudiSettings.from_hoodie_options({option: value}, env=False))
