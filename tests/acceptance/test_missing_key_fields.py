"""A batch without a record key or partition field is refused with ``KeyFieldError`` naming the field.

Filling the absent column with nulls (as for any other nullable column) would put every row into
``__HIVE_DEFAULT_PARTITION__``: a second copy of the key under a non-global index, a moved record
that keeps its old partition value under a global one. So every operation that computes keys, on
both engines and both table types, refuses such a batch before anything is written, partial updates
included (a batch may lack data columns, never a key or partition field).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.config.settings import HudiSettings
from hudi_framework.errors import KeyFieldError
from hudi_framework.vocabulary import WriteOperation
from tests.acceptance.data import to_table
from tests.acceptance.engines import Step, WriteEngine
from tests.acceptance.layouts import KeyGen, Layout
from tests.acceptance.scenario import Scenario
from tests.spark.test_datasource_write import _opts, _tree

OPERATIONS = [
    WriteOperation.UPSERT,
    WriteOperation.INSERT,
    WriteOperation.BULK_INSERT,
    WriteOperation.DELETE,
    WriteOperation.INSERT_OVERWRITE,
    WriteOperation.INSERT_OVERWRITE_TABLE,
]
LAYOUTS = [
    pytest.param((Layout(KeyGen.SIMPLE, True), 9, "COPY_ON_WRITE"), id="simple-cow-v9"),
    pytest.param((Layout(KeyGen.COMPLEX, True), 8, "MERGE_ON_READ"), id="complex-mor-v8"),
    pytest.param((Layout(KeyGen.CUSTOM, True), 6, "COPY_ON_WRITE"), id="custom-cow-v6"),
    pytest.param((Layout(KeyGen.TIMESTAMP, True), 9, "MERGE_ON_READ"), id="timestamp-mor-v9"),
]


def _scenario(
    engine: WriteEngine,
    path: Path,
    layout: Layout,
    version: int,
    table_type: str,
    options: dict[str, str] | None = None,
) -> Scenario:
    sc = Scenario(engine, path, layout, version=version, table_type=table_type, options=options or {})
    sc.write_inserts(30, WriteOperation.BULK_INSERT)
    return sc


def _key_fields(layout: Layout) -> list[str]:
    fields = [*layout.record_key_fields, *(f.split(":")[0] for f in layout.partition_fields_raw)]
    return list(dict.fromkeys(fields))


@pytest.mark.parametrize("op", OPERATIONS)
@pytest.mark.parametrize("setup", LAYOUTS)
def test_every_operation_refuses_a_batch_without_a_key_field(
    setup: tuple[Layout, int, str], op: WriteOperation, engine: WriteEngine, tmp_path: Path
) -> None:
    layout, version, table_type = setup
    sc = _scenario(engine, tmp_path / "t", layout, version, table_type)
    live = sc.live_keys()[:5]
    for field in _key_fields(layout):
        data = to_table(sc.rows.rows(live) + sc.rows.rows(range(500, 505)))
        if op is WriteOperation.DELETE:
            data = data.select(["id", "kind", "region", "ts"])
        err = sc.refused(Step(op, data.drop_columns([field])), KeyFieldError)
        assert err.field == field
        assert "missing" in str(err)


@pytest.mark.parametrize("index", ["SIMPLE", "GLOBAL_SIMPLE", "GLOBAL_BLOOM"])
def test_an_update_without_its_partition_column(index: str, engine: WriteEngine, tmp_path: Path) -> None:
    """The reviewer's case: a duplicate key (simple index) or a moved record whose stored partition
    value no longer matches its path (global index)."""
    sc = _scenario(
        engine, tmp_path / "t", Layout(KeyGen.SIMPLE, True), 9, "COPY_ON_WRITE", {"hoodie.index.type": index}
    )
    data = to_table(sc.rows.rows(sc.live_keys()[:3])).drop_columns(["region"])
    err = sc.refused(Step(WriteOperation.UPSERT, data), KeyFieldError)
    assert err.field == "region"


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_a_partial_update_still_needs_every_key_field(table_type: str, tmp_path: Path) -> None:
    from tests.acceptance.engines import LocalEngine

    sc = _scenario(LocalEngine(), tmp_path / "t", Layout(KeyGen.COMPLEX, True), 9, table_type)
    full = to_table(sc.rows.rows(sc.live_keys()[:3]))
    # Lacking data columns only: a partial update, accepted.
    partial = full.select(["id", "kind", "region", "seq", "note"])
    sc.engine.run(sc.table, sc.settings, Step(WriteOperation.UPSERT, partial))
    sc = _scenario(LocalEngine(), tmp_path / "t2", Layout(KeyGen.COMPLEX, True), 9, table_type)
    full = to_table(sc.rows.rows(sc.live_keys()[:3]))
    for missing in ("kind", "region", "id"):
        data = full.select([c for c in ("id", "kind", "region", "seq", "note") if c != missing])
        assert sc.refused(Step(WriteOperation.UPSERT, data), KeyFieldError).field == missing
    # Even when missing columns are to be set to null.
    sc.settings = HudiSettings.from_hoodie_options(
        {"hoodie.write.set.null.for.missing.columns": "true", "hoodie.index.bloom.num_entries": "500"}, env=False
    )
    assert sc.refused(Step(WriteOperation.UPSERT, full.drop_columns(["region"])), KeyFieldError).field == "region"


def test_a_batch_without_the_record_key_column_names_it(tmp_path: Path) -> None:
    """Not "is null in N row(s)": the column is not there at all."""
    from tests.acceptance.engines import LocalEngine

    sc = _scenario(LocalEngine(), tmp_path / "t", Layout(KeyGen.SIMPLE, True), 9, "COPY_ON_WRITE")
    data = to_table(sc.rows.rows(range(500, 502))).drop_columns(["id"])
    err = sc.refused(Step(WriteOperation.UPSERT, data), KeyFieldError)
    assert err.field == "id"
    assert "null" not in str(err)


# ------------------------------------------------------------------------- Spark data source
@pytest.mark.spark
@pytest.mark.parametrize("operation", ["upsert", "bulk_insert", "insert_overwrite"])
def test_the_data_source_refuses_a_frame_without_the_partition_column(
    spark: Any, operation: str, tmp_path: Path
) -> None:
    path = tmp_path / "t"
    first = pa.table({"id": ["a", "b"], "city": ["sf", "ny"], "ts": [1, 1], "v": [1.0, 2.0]})
    spark.createDataFrame(first).write.format("hudi").options(**_opts("bulk_insert")).mode("append").save(str(path))
    before = _tree(path)
    lacking = pa.table({"id": ["a", "c"], "ts": [2, 2], "v": [3.0, 4.0]})
    with pytest.raises(Exception, match=r"KeyFieldError.*'city'") as info:
        spark.createDataFrame(lacking).write.format("hudi").options(**_opts(operation)).mode("append").save(str(path))
    assert "missing" in str(info.value)
    assert _tree(path) == before  # refused on the driver, before a task staged or wrote a file
