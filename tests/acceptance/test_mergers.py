"""Merge modes and record merger plugins on real tables (issue 6).

* Merge modes are inferred, persisted per table version as format section 6.1 says, and cannot change.
* The third-party ``acme-merger`` distribution (``examples/acme-merger``, installed by the test set-up)
  is found by its strategy UUID and changes results through ``WriteClient`` (COW and MOR), through
  compaction and through ``df.write.format("hudi")``; without it, opening the table for writing fails
  naming the missing UUID.
* Legacy payload classes still work, with a deprecation warning.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import hudi
import pyarrow as pa
import pytest
from acme_merger import ACME_ORDER_STRATEGY_ID

from hudi_framework import open_table_service
from hudi_framework.config import HudiSettings
from hudi_framework.errors import HudiDeprecationWarning, MergeModeMismatchError, MergeStrategyNotFoundError
from hudi_framework.plugin import build_plugin_manager
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.vocabulary import RecordMergeMode
from hudi_framework.write.client import WriteClient

SCHEMA = pa.schema(
    [
        ("order_id", pa.string()),
        ("status", pa.string()),
        ("ts", pa.int64()),
        ("order_item", pa.string()),
        ("order_amount", pa.float64()),
        ("order_updated_at", pa.int64()),
        ("payment_method", pa.string()),
        ("payment_failure_reason", pa.string()),
        ("payment_updated_at", pa.int64()),
    ]
)
COLUMNS = SCHEMA.names


def _rows(*rows: tuple[Any, ...]) -> pa.Table:
    return pa.Table.from_pylist([dict(zip(COLUMNS, r, strict=True)) for r in rows], schema=SCHEMA)


# The seed's order example: the order service creates the orders; the payment service then cancels
# o1 after its payment failed (event time 3); a late order-service update of o1 (event time 2)
# changes the amount while the order was still "created".
BATCHES = [
    _rows(("o1", "created", 1, "book", 10.0, 1, None, None, None),
          ("o2", "created", 1, "pen", 2.0, 1, None, None, None)),
    _rows(("o1", "canceled", 3, None, None, None, "card", "declined", 3),
          ("o2", "paid", 2, None, None, None, "cash", None, 2)),
    _rows(("o1", "created", 2, "book", 12.0, 2, None, None, None)),
]  # fmt: skip
ACME = {
    "o1": ("o1", "canceled", 3, "book", 12.0, 2, "card", "declined", 3),
    "o2": ("o2", "paid", 2, "pen", 2.0, 1, "cash", None, 2),
}
EVENT_TIME = {
    "o1": ("o1", "canceled", 3, None, None, None, "card", "declined", 3),
    "o2": ("o2", "paid", 2, None, None, None, "cash", None, 2),
}
COMMIT_TIME = {**EVENT_TIME, "o1": ("o1", "created", 2, "book", 12.0, 2, None, None, None)}
TABLE_TYPES = ["COPY_ON_WRITE", "MERGE_ON_READ"]


def _visible(table: HudiTable) -> dict[str, tuple[Any, ...]]:
    rows = read_table(table.reload(), columns=COLUMNS).to_pylist()
    return {r["order_id"]: tuple(r[c] for c in COLUMNS) for r in rows}


def _create(path: Path, table_type: str, version: int = 9, **merge: Any) -> HudiTable:
    config = new_table_config(
        "orders", table_type=table_type, version=version, record_key_fields=["order_id"], ordering_fields=["ts"],
        **merge,
    )  # fmt: skip
    return HudiTable.create(str(path), config, schema=SCHEMA)


def _write_all(table: HudiTable, settings: HudiSettings | None = None) -> None:
    client = WriteClient(table, settings or HudiSettings())
    for batch in BATCHES:
        client.upsert(batch)


# ---------------------------------------------------------------------------------------- modes
@pytest.mark.parametrize(
    ("ordering", "version", "expected"),
    [
        ((), 9, {"hoodie.record.merge.mode": "COMMIT_TIME_ORDERING"}),
        (("ts",), 9, {"hoodie.record.merge.mode": "EVENT_TIME_ORDERING", "hoodie.table.ordering.fields": "ts"}),
        (("ts",), 8, {"hoodie.record.merge.mode": "EVENT_TIME_ORDERING", "hoodie.table.precombine.field": "ts",
                      "hoodie.record.merge.strategy.id": "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5",
                      "hoodie.compaction.payload.class": "org.apache.hudi.common.model.DefaultHoodieRecordPayload"}),
        ((), 8, {"hoodie.record.merge.mode": "COMMIT_TIME_ORDERING",
                 "hoodie.record.merge.strategy.id": "ce9acb64-bde0-424c-9b91-f6ebba25356d",
                 "hoodie.compaction.payload.class": "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"}),
        (("ts",), 6, {"hoodie.table.precombine.field": "ts",
                      "hoodie.compaction.record.merger.strategy": "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5",
                      "hoodie.compaction.payload.class": "org.apache.hudi.common.model.DefaultHoodieRecordPayload"}),
        ((), 6, {"hoodie.compaction.payload.class": "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"}),
    ],
)  # fmt: skip
def test_inferred_mode_is_persisted_as_each_version_does(
    tmp_path: Path, ordering: tuple[str, ...], version: int, expected: dict[str, str]
) -> None:
    config = new_table_config("t", version=version, record_key_fields=["order_id"], ordering_fields=ordering)
    HudiTable.create(str(tmp_path), config, schema=SCHEMA)
    props = HudiTable.open(str(tmp_path)).properties
    merge_keys = {k: v for k, v in props.items() if "merge" in k or "payload" in k or k in expected}
    assert merge_keys == expected


def test_custom_mode_persists_the_strategy_id(tmp_path: Path) -> None:
    for version in (6, 8, 9):
        table = _create(tmp_path / str(version), "COPY_ON_WRITE", version, merge_strategy_id=ACME_ORDER_STRATEGY_ID)
        config = HudiTable.open(table.base_uri).config
        assert (config.effective_merge_mode, config.merge_strategy_id) == (
            RecordMergeMode.CUSTOM,
            ACME_ORDER_STRATEGY_ID,
        )
        key = "hoodie.compaction.record.merger.strategy" if version == 6 else "hoodie.record.merge.strategy.id"
        assert table.properties[key] == ACME_ORDER_STRATEGY_ID


@pytest.mark.parametrize(
    ("mode", "expected"), [("COMMIT_TIME_ORDERING", COMMIT_TIME), ("EVENT_TIME_ORDERING", EVENT_TIME)]
)
@pytest.mark.parametrize("table_type", TABLE_TYPES)
def test_built_in_modes_on_cow_and_mor(
    tmp_path: Path, table_type: str, mode: str, expected: dict[str, tuple[Any, ...]]
) -> None:
    table = _create(tmp_path, table_type, merge_mode=mode)
    _write_all(table, HudiSettings(table={"ordering_fields": ["ts"]}, merger={"mode": mode}))
    assert _visible(table) == expected
    if table_type == "COPY_ON_WRITE" or mode == "EVENT_TIME_ORDERING":
        # hudi-rs merges log files by ordering value only (format section 6.3): it reads COW tables
        # and event-time MOR tables the same as we do.
        rs = pa.Table.from_batches(hudi.HudiTableBuilder.from_base_uri(table.base_uri).build().read())
        assert {r["order_id"]: tuple(r[c] for c in COLUMNS) for r in rs.select(COLUMNS).to_pylist()} == expected


def test_changing_the_mode_of_a_table_fails_naming_both(tmp_path: Path) -> None:
    table = _create(tmp_path, "COPY_ON_WRITE")
    # Unset settings inherit the table's mode.
    WriteClient(table, HudiSettings()).upsert(BATCHES[0])
    with pytest.raises(MergeModeMismatchError, match=r"EVENT_TIME_ORDERING.*COMMIT_TIME_ORDERING") as info:
        WriteClient(table, HudiSettings(merger={"mode": "COMMIT_TIME_ORDERING"}))
    assert (info.value.table_value, info.value.write_value) == ("EVENT_TIME_ORDERING", "COMMIT_TIME_ORDERING")


def test_changing_the_strategy_of_a_custom_table_fails_naming_both(tmp_path: Path) -> None:
    table = _create(tmp_path, "COPY_ON_WRITE", merge_mode="CUSTOM", merge_strategy_id=ACME_ORDER_STRATEGY_ID)
    WriteClient(table, HudiSettings()).upsert(BATCHES[0])
    other = "11111111-2222-3333-4444-555555555555"
    with pytest.raises(MergeModeMismatchError, match=f"{ACME_ORDER_STRATEGY_ID}.*{other}"):
        WriteClient(table, HudiSettings(merger={"mode": "CUSTOM", "strategy_id": other}))
    with pytest.raises(MergeModeMismatchError, match=r"CUSTOM.*EVENT_TIME_ORDERING"):
        WriteClient(table, HudiSettings(table={"ordering_fields": ["ts"]}, merger={"mode": "EVENT_TIME_ORDERING"}))


def test_a_merger_chosen_by_name_must_implement_the_table_mode(tmp_path: Path) -> None:
    table = _create(tmp_path, "COPY_ON_WRITE")
    with pytest.raises(MergeModeMismatchError, match=ACME_ORDER_STRATEGY_ID):
        WriteClient(table, HudiSettings(merger={"name": "acme-order-merger"}))


@pytest.mark.parametrize("table_type", TABLE_TYPES)
@pytest.mark.parametrize("version", [6, 8, 9])
def test_the_first_write_of_a_new_table_chooses_how_records_merge(
    tmp_path: Path, table_type: str, version: int
) -> None:
    # The natural order: create the table (inferred EVENT_TIME_ORDERING), then write with a custom merger.
    table = _create(tmp_path, table_type, version)
    settings = HudiSettings(merger={"mode": "CUSTOM", "strategy_id": ACME_ORDER_STRATEGY_ID})
    _write_all(table, settings)
    assert _visible(table) == ACME
    config = HudiTable.open(table.base_uri).config
    assert (config.effective_merge_mode, config.merge_strategy_id) == (RecordMergeMode.CUSTOM, ACME_ORDER_STRATEGY_ID)
    # Once written, the table keeps it.
    with pytest.raises(MergeModeMismatchError, match=r"CUSTOM.*EVENT_TIME_ORDERING"):
        WriteClient(table, HudiSettings(table={"ordering_fields": ["ts"]}, merger={"mode": "EVENT_TIME_ORDERING"}))
    WriteClient(table, HudiSettings()).upsert(BATCHES[2])  # unset settings inherit the custom merger
    assert _visible(table) == ACME


# ---------------------------------------------------------------------------------------- acme plugin
@pytest.mark.parametrize("table_type", TABLE_TYPES)
def test_acme_merger_through_write_client(tmp_path: Path, table_type: str) -> None:
    table = _create(tmp_path, table_type, merge_mode="CUSTOM", merge_strategy_id=ACME_ORDER_STRATEGY_ID)
    _write_all(table)
    assert _visible(table) == ACME


def test_acme_merger_in_compaction(tmp_path: Path) -> None:
    table = _create(tmp_path, "MERGE_ON_READ", merge_mode="CUSTOM", merge_strategy_id=ACME_ORDER_STRATEGY_ID)
    settings = HudiSettings(merger={"mode": "CUSTOM", "strategy_id": ACME_ORDER_STRATEGY_ID})
    _write_all(table, settings)
    table = table.reload()
    assert any(s.log_file_names for s in table.file_system_view().latest_file_slices())
    service, host = open_table_service(table, settings, "compaction")
    instant = service.schedule(host)
    assert instant is not None
    service.execute(host, instant)
    table = table.reload()
    slices = table.file_system_view().latest_file_slices()
    assert slices
    assert all(s.base_file is not None and not s.log_file_names for s in slices)
    # The base files now hold the acme merge result itself (read-optimized reads no logs).
    assert _visible(table) == ACME
    rows = read_table(table, query_type="read_optimized", columns=COLUMNS).to_pylist()
    assert {r["order_id"]: tuple(r[c] for c in COLUMNS) for r in rows} == ACME


@pytest.mark.parametrize("table_type", TABLE_TYPES)
def test_missing_strategy_fails_when_opened_for_writing(tmp_path: Path, table_type: str) -> None:
    table = _create(tmp_path, table_type, merge_mode="CUSTOM", merge_strategy_id=ACME_ORDER_STRATEGY_ID)
    WriteClient(table).upsert(BATCHES[0])
    # "Not installed": the plugin manager blocks the acme distribution's entry point.
    without = HudiTable.open(str(tmp_path), plugin_manager=build_plugin_manager(disable=["acme-merger"]))
    with pytest.raises(MergeStrategyNotFoundError, match=ACME_ORDER_STRATEGY_ID) as info:
        WriteClient(without)
    assert info.value.strategy_id == ACME_ORDER_STRATEGY_ID


def test_implementation_classes_pick_among_mergers_of_one_strategy(tmp_path: Path) -> None:
    from hudi_framework.contracts.merger import MergeContext, PerRecordMerger, RecordRow
    from hudi_framework.plugin import ComponentSpec, NoOptions, hookimpl

    class NewestWins(PerRecordMerger):
        strategy_id = ACME_ORDER_STRATEGY_ID

        def __init__(self, options: NoOptions | None = None) -> None:
            pass

        def merge_record(self, older: RecordRow, newer: RecordRow, ctx: MergeContext) -> RecordRow | None:
            return newer

    class SecondImplementation:
        @hookimpl
        def hudi_record_mergers(self) -> list[ComponentSpec[Any]]:
            return [ComponentSpec("acme-newest-wins", factory=NewestWins, options_model=NoOptions)]

    pm = build_plugin_manager(extra_plugins={"acme-second": SecondImplementation()})
    config = new_table_config(
        "orders", record_key_fields=["order_id"], ordering_fields=["ts"], merge_strategy_id=ACME_ORDER_STRATEGY_ID
    )
    table = HudiTable.create(str(tmp_path), config, schema=SCHEMA, plugin_manager=pm)
    # Java classes do not fit this engine and are skipped; the first installed one listed wins.
    classes = ["org.apache.hudi.DefaultSparkRecordMerger", "acme-newest-wins", "acme-order-merger"]
    client = WriteClient(table, HudiSettings(merger={"implementation_classes": classes}))
    assert type(client.session.merger) is NewestWins
    for batch in BATCHES:
        client.upsert(batch)
    assert _visible(table) == COMMIT_TIME
    # Listing the acme class first picks it.
    acme_first = WriteClient(
        table.reload(), HudiSettings(merger={"implementation_classes": ["acme_merger.OrderMerger"]})
    )
    assert type(acme_first.session.merger).__name__ == "OrderMerger"


# ---------------------------------------------------------------------------------------- payloads
@pytest.mark.parametrize("table_type", TABLE_TYPES)
def test_partial_update_payload_on_a_table(tmp_path: Path, table_type: str) -> None:
    payload = "org.apache.hudi.common.model.PartialUpdateAvroPayload"
    table = _create(tmp_path, table_type, payload_class=payload)
    settings = HudiSettings(merger={"payload_class": payload})
    with pytest.warns(HudiDeprecationWarning, match="PartialUpdateAvroPayload"):
        client = WriteClient(table, settings)
    client.upsert(_rows(("o1", "created", 2, "book", None, 1, None, None, None)))
    client.upsert(_rows(("o1", "paid", 1, None, 12.0, None, "card", None, 1)))
    # The stored version wins on event time; its missing columns come from the late one.
    assert _visible(table) == {"o1": ("o1", "created", 2, "book", 12.0, 1, "card", None, 1)}


# ---------------------------------------------------------------------------------------- Spark
@pytest.mark.spark
@pytest.mark.parametrize("table_type", TABLE_TYPES)
def test_acme_merger_through_spark_datasource(spark: Any, tmp_path: Path, table_type: str) -> None:
    path = str(tmp_path / "orders")
    opts = {
        "hoodie.table.name": "orders",
        "hoodie.datasource.write.table.type": table_type,
        "hoodie.datasource.write.recordkey.field": "order_id",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.operation": "upsert",
        "hoodie.write.record.merge.mode": "CUSTOM",
        "hoodie.write.record.merge.strategy.id": ACME_ORDER_STRATEGY_ID,
    }
    for batch in BATCHES:
        spark.createDataFrame(batch).write.format("hudi").options(**opts).mode("append").save(path)
    rows = spark.read.format("hudi").load(path).select(*COLUMNS).collect()
    got = {r["order_id"]: tuple(None if v != v else v for v in r) for r in rows}  # NaN-free
    assert got == ACME
    table = HudiTable.open(path)
    assert (table.config.effective_merge_mode, table.config.merge_strategy_id) == (
        RecordMergeMode.CUSTOM,
        ACME_ORDER_STRATEGY_ID,
    )
    assert _visible(table) == ACME
