"""The ``record-level`` index on Spark: keys are looked up in executors, one task per group of
``record_index`` file groups, and tag exactly as the local engine does (Apache Hudi's table)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.contracts.index import LOCATION_FILE_ID, LOCATION_PARTITION, PARTITION_PATH, RECORD_KEY
from hudi_framework.index.tagging import tag_locations
from hudi_framework.metadata.record_index_locator import locator_for
from hudi_framework.runtime.table import HudiTable
from hudi_framework.spark import tagging_stage
from hudi_framework.spark.arrow_types import SparkResources, collect_arrow
from hudi_framework.spark.worker import WorkerSpec
from hudi_index_record import RecordLevelIndex
from hudi_storage_local.backend import LocalStorageBackend
from tests.acceptance.test_record_level_index import RLI_FIXTURES, _incoming
from tests.fixture_tables import FixtureTable

Extract = Callable[[FixtureTable], tuple[Path, Path | None]]
_COLUMNS = [RECORD_KEY, PARTITION_PATH, LOCATION_PARTITION, LOCATION_FILE_ID]


def _rows(table: pa.Table) -> list[tuple[str, ...]]:
    return sorted(tuple(str(r[c]) for c in _COLUMNS) for r in table.select(_COLUMNS).to_pylist())


@pytest.mark.parametrize("fixture", RLI_FIXTURES[:2], ids=[t.id for t in RLI_FIXTURES[:2]])
def test_spark_tags_from_the_record_index_as_the_local_engine(
    spark: Any, fixture: FixtureTable, extract_fixture: Extract, monkeypatch: pytest.MonkeyPatch
) -> None:
    base, _ = extract_fixture(fixture)
    table = HudiTable.open(str(base))
    slices = table.latest_file_slices()
    incoming = _incoming(base)
    storage = LocalStorageBackend(str(base))
    index = RecordLevelIndex()
    expected = tag_locations(index, incoming, slices, storage, locator=locator_for(index, storage))
    keyed: list[int] = []
    original = tagging_stage._keyed_found
    monkeypatch.setattr(tagging_stage, "_keyed_found", lambda *a, **k: keyed.append(1) or original(*a, **k))
    # The file-based lookups must not run: the record index answers.
    monkeypatch.setattr(tagging_stage, "_lookup_task", None)
    settings = HudiSettings.from_hoodie_options({"hoodie.index.type": "RECORD_INDEX"}, env=False)
    spec = WorkerSpec.of(table, settings)
    held = SparkResources()
    try:
        frame = spark.createDataFrame(incoming.to_pandas())
        tagged = tagging_stage.tag_rows(spark, spec, RecordLevelIndex(), frame, slices, tasks=3, held=held)
        got = collect_arrow(tagged)
    finally:
        held.release()
    assert keyed == [1]
    assert _rows(got) == _rows(expected)


@pytest.mark.parametrize("table_type", ["MERGE_ON_READ"])
def test_spark_writes_keep_the_record_index_as_local_writes(spark: Any, tmp_path: Path, table_type: str) -> None:
    from hudi_framework.spark.write_engine import SparkWriteClient
    from hudi_framework.write.client import WriteClient
    from tests.acceptance.test_record_index_write import RLI_ON, _check_index, _create, _rows, _settings, _snapshot

    steps = [
        ("insert", pa.concat_tables([_rows(range(0, 30), "sf", 1), _rows(range(30, 50), "ny", 1)])),
        ("upsert", pa.concat_tables([_rows(range(10, 40), "sf", 2), _rows(range(60, 70), "la", 2)])),
        ("delete", _rows(range(25, 35), "ny", 3)),
        ("upsert", _rows(range(28, 31), "la", 4)),
    ]
    settings = _settings(RLI_ON)
    remote = SparkWriteClient(
        _create(tmp_path / "spark", table_type),
        settings.model_copy(update={"write": settings.write.model_copy(update={"engine": "spark"})}),
        spark,
    )
    local = WriteClient(_create(tmp_path / "local", table_type), settings)
    for operation, rows in steps:
        getattr(local, operation)(rows)
        getattr(remote, operation)(spark.createDataFrame(rows.to_pandas()))
    assert _check_index(tmp_path / "spark") == 10
    data = ["id", "city", "ts", "v", "_hoodie_record_key", "_hoodie_partition_path"]
    assert (
        _snapshot(tmp_path / "spark").select(data).to_pylist() == _snapshot(tmp_path / "local").select(data).to_pylist()
    )
