"""Legacy payload classes: mapping onto mergers, the seed's worked examples, and the merger laws."""

from __future__ import annotations

import pyarrow as pa
import pytest

from hudi_framework.config.component_sections import MergerSettings
from hudi_framework.contracts.merger import MergeContext, RecordMerger
from hudi_framework.errors import HudiDeprecationWarning
from hudi_framework.merge import build_merger, merge_with_base
from hudi_framework.merge.choose import merger_for_write
from hudi_framework.plugin import ComponentKind, ComponentRegistry
from hudi_framework.table.table_config import new_table_config
from hudi_framework.testing import RecordMergerContract
from hudi_framework.vocabulary import RecordMergeMode
from hudi_merger_builtin import (
    CommitTimeOrderingMerger,
    DeleteMarkerMerger,
    EventTimeOrderingMerger,
    OverwriteNonDefaultsMerger,
    PartialUpdateMerger,
)

PKG = "org.apache.hudi.common.model."
SCHEMA = pa.schema([("_hoodie_record_key", pa.string()), ("id", pa.string()), ("ts", pa.int64()),
                    ("name", pa.string()), ("price", pa.string())])  # fmt: skip
CTX = MergeContext(ordering_fields=("ts",), schema=SCHEMA)


def _row(ts: int, name: str | None, price: str | None) -> pa.Table:
    return pa.Table.from_pylist(
        [{"_hoodie_record_key": "1", "id": "1", "ts": ts, "name": name, "price": price}], schema=SCHEMA
    )


def _visible(merger: RecordMerger, stored: pa.Table, incoming: pa.Table) -> list[tuple[object, ...]]:
    rows = merge_with_base(stored, incoming, merger, CTX).table.to_pylist()
    return [(r["id"], r["ts"], r["name"], r["price"]) for r in rows]


@pytest.mark.parametrize(
    ("payload", "cls", "mode", "v9_mode"),
    [
        ("OverwriteWithLatestAvroPayload", CommitTimeOrderingMerger, RecordMergeMode.COMMIT_TIME_ORDERING, None),
        ("DefaultHoodieRecordPayload", EventTimeOrderingMerger, RecordMergeMode.EVENT_TIME_ORDERING, None),
        ("EventTimeAvroPayload", EventTimeOrderingMerger, RecordMergeMode.EVENT_TIME_ORDERING, None),
        ("OverwriteNonDefaultsWithLatestAvroPayload", OverwriteNonDefaultsMerger, RecordMergeMode.CUSTOM,
         RecordMergeMode.COMMIT_TIME_ORDERING),
        ("PartialUpdateAvroPayload", PartialUpdateMerger, RecordMergeMode.CUSTOM, RecordMergeMode.EVENT_TIME_ORDERING),
        ("AWSDmsAvroPayload", DeleteMarkerMerger, RecordMergeMode.CUSTOM, RecordMergeMode.COMMIT_TIME_ORDERING),
        ("debezium.MySqlDebeziumAvroPayload", DeleteMarkerMerger, RecordMergeMode.CUSTOM,
         RecordMergeMode.EVENT_TIME_ORDERING),
        ("debezium.PostgresDebeziumAvroPayload", DeleteMarkerMerger, RecordMergeMode.CUSTOM,
         RecordMergeMode.EVENT_TIME_ORDERING),
    ],
)  # fmt: skip
def test_every_payload_class_maps_onto_a_merger_with_a_deprecation_warning(
    registry: ComponentRegistry,
    payload: str,
    cls: type[RecordMerger],
    mode: RecordMergeMode,
    v9_mode: RecordMergeMode | None,
) -> None:
    from hudi_framework.merge.choose import merger_for_table
    from hudi_framework.table.table_config import TableConfig

    # Versions 6 and 8 persist CUSTOM for the payloads that are no merge mode; Hudi 1.1 (v9) maps
    # every deprecated payload onto a built-in mode and keeps the class as the legacy one.
    for version in (6, 8, 9):
        config = new_table_config(
            "t", version=version, record_key_fields=["id"], ordering_fields=["ts"], payload_class=PKG + payload
        )
        expected = v9_mode or mode if version == 9 else mode
        assert config.effective_merge_mode is expected, version
        with pytest.warns(HudiDeprecationWarning, match=payload):
            merger = merger_for_write(registry, config, MergerSettings(payload_class=PKG + payload))
        assert type(merger) is cls, version
        # The persisted table alone (a reader, compaction) resolves the same merger, without a warning.
        reread = TableConfig.from_properties(config.to_properties())
        assert reread.effective_merge_mode is expected, version
        assert type(merger_for_table(registry, reread)) is cls, version


def test_seed_overwrite_with_latest_vs_default_payload(registry: ComponentRegistry) -> None:
    stored, incoming = _row(2, "name_2", "price_2"), _row(1, "name_1", "price_1")
    for payload, expected in [
        ("OverwriteWithLatestAvroPayload", ("1", 1, "name_1", "price_1")),
        ("DefaultHoodieRecordPayload", ("1", 2, "name_2", "price_2")),
    ]:
        merger = build_merger(registry, MergerSettings(payload_class=PKG + payload), ("ts",))
        assert _visible(merger, stored, incoming) == [expected], payload


def test_seed_partial_update_payload(registry: ComponentRegistry) -> None:
    merger = build_merger(registry, MergerSettings(payload_class=PKG + "PartialUpdateAvroPayload"), ("ts",))
    # Current (1, 2, name_1, null), incoming (1, 1, null, price_1) -> (1, 2, name_1, price_1).
    assert _visible(merger, _row(2, "name_1", None), _row(1, None, "price_1")) == [("1", 2, "name_1", "price_1")]
    # The newer version winning keeps its own values and takes the missing ones from storage.
    assert _visible(merger, _row(1, "name_1", None), _row(2, None, "price_2")) == [("1", 2, "name_1", "price_2")]


def test_overwrite_non_defaults_keeps_stored_values_for_nulls(registry: ComponentRegistry) -> None:
    merger = registry.build(ComponentKind.MERGER, "overwrite-non-defaults")
    assert _visible(merger, _row(2, "name_2", "price_2"), _row(1, None, "price_1")) == [("1", 1, "name_2", "price_1")]


def test_aws_dms_op_d_deletes(registry: ComponentRegistry) -> None:
    merger = registry.build(ComponentKind.MERGER, "AWSDmsAvroPayload")
    schema = pa.schema([("_hoodie_record_key", pa.string()), ("Op", pa.string()), ("v", pa.int64())])
    stored = pa.Table.from_pylist([{"_hoodie_record_key": k, "Op": "I", "v": 1} for k in "ab"], schema=schema)
    incoming = pa.Table.from_pylist(
        [{"_hoodie_record_key": "a", "Op": "D", "v": 2}, {"_hoodie_record_key": "c", "Op": "D", "v": 2},
         {"_hoodie_record_key": "b", "Op": "U", "v": 3}], schema=schema,
    )  # fmt: skip
    result = merge_with_base(stored, incoming, merger, MergeContext(schema=schema))
    assert result.table.to_pylist() == [{"_hoodie_record_key": "b", "Op": "U", "v": 3}]
    assert (result.num_deletes, result.num_inserts) == (1, 0)


def test_debezium_orders_by_event_sequence(registry: ComponentRegistry) -> None:
    merger = registry.build(ComponentKind.MERGER, "MySqlDebeziumAvroPayload")
    schema = pa.schema([("_hoodie_record_key", pa.string()), ("_change_operation_type", pa.string()),
                        ("_event_seq", pa.int64())])  # fmt: skip
    ctx = MergeContext(ordering_fields=("_event_seq",), schema=schema)
    stored = pa.Table.from_pylist([{"_hoodie_record_key": "a", "_change_operation_type": "u", "_event_seq": 5}], schema)
    late_delete = pa.Table.from_pylist(
        [{"_hoodie_record_key": "a", "_change_operation_type": "d", "_event_seq": 3}], schema
    )
    assert merge_with_base(stored, late_delete, merger, ctx).table.num_rows == 1
    delete = late_delete.set_column(2, "_event_seq", pa.array([9], pa.int64()))
    assert merge_with_base(stored, delete, merger, ctx).table.num_rows == 0


def test_postgres_debezium_keeps_stored_values_of_unavailable_columns(registry: ComponentRegistry) -> None:
    merger = registry.build(ComponentKind.MERGER, "PostgresDebeziumAvroPayload")
    schema = pa.schema([("_hoodie_record_key", pa.string()), ("_change_operation_type", pa.string()),
                        ("_event_lsn", pa.int64()), ("doc", pa.string()), ("blob", pa.binary()),
                        ("n", pa.int64())])  # fmt: skip
    ctx = MergeContext(ordering_fields=("_event_lsn",), schema=schema)
    marker = "__debezium_unavailable_value"
    stored = pa.Table.from_pylist(
        [{"_hoodie_record_key": k, "_change_operation_type": "c", "_event_lsn": 5, "doc": f"big-{k}",
          "blob": b"bytes", "n": 1} for k in "abc"], schema,
    )  # fmt: skip
    incoming = pa.Table.from_pylist(
        [  # a: TOASTed doc and blob keep the stored values; b: a real update; c: a late event loses anyway
            {"_hoodie_record_key": "a", "_change_operation_type": "u", "_event_lsn": 6, "doc": marker,
             "blob": marker.encode(), "n": 2},
            {"_hoodie_record_key": "b", "_change_operation_type": "u", "_event_lsn": 6, "doc": "new", "blob": None,
             "n": 3},
            {"_hoodie_record_key": "c", "_change_operation_type": "u", "_event_lsn": 1, "doc": marker, "blob": None,
             "n": 4},
        ], schema,
    )  # fmt: skip
    rows = {r["_hoodie_record_key"]: r for r in merge_with_base(stored, incoming, merger, ctx).table.to_pylist()}
    assert (rows["a"]["doc"], rows["a"]["blob"], rows["a"]["n"]) == ("big-a", b"bytes", 2)
    assert (rows["b"]["doc"], rows["b"]["blob"], rows["b"]["n"]) == ("new", None, 3)
    assert (rows["c"]["doc"], rows["c"]["n"]) == ("big-c", 1)
    # MySQL's Debezium payload has no such placeholder: the value is taken as written.
    mysql = registry.build(ComponentKind.MERGER, "MySqlDebeziumAvroPayload")
    assert merge_with_base(stored, incoming, mysql, ctx).table.to_pylist()[0]["doc"] == marker


class TestOverwriteNonDefaults(RecordMergerContract):
    @pytest.fixture
    def merger(self, registry: ComponentRegistry) -> RecordMerger:
        merger: RecordMerger = registry.build(ComponentKind.MERGER, "overwrite-non-defaults")
        return merger


class TestPartialUpdate(RecordMergerContract):
    # Filling from the losing version is associative only when event time agrees with arrival order
    # (docs/mergers.md, "Tie rules and laws"); Apache Hudi's payload has the same property.
    monotone_ordering = True

    @pytest.fixture
    def merger(self, registry: ComponentRegistry) -> RecordMerger:
        merger: RecordMerger = registry.build(ComponentKind.MERGER, "partial-update")
        return merger


class TestPartialUpdateEventTime(TestPartialUpdate):
    """The version-9 form (a stored winner keeps its meta columns)."""

    @pytest.fixture
    def merger(self, registry: ComponentRegistry) -> RecordMerger:
        merger: RecordMerger = registry.build(ComponentKind.MERGER, "partial-update-event-time")
        return merger


class TestAwsDms(RecordMergerContract):
    @pytest.fixture
    def merger(self, registry: ComponentRegistry) -> RecordMerger:
        merger: RecordMerger = registry.build(ComponentKind.MERGER, "aws-dms")
        return merger


class TestMySqlDebezium(RecordMergerContract):
    @pytest.fixture
    def merger(self, registry: ComponentRegistry) -> RecordMerger:
        merger: RecordMerger = registry.build(ComponentKind.MERGER, "mysql-debezium")
        return merger
