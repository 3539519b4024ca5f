"""Tables of the deprecated payload classes (issue 6 items 5, plus the v9 persistence and CDC deletes).

* Version 9 persists each of the eight payload classes as Apache Hudi 1.1 does
  (``HoodieTableConfig.inferMergingConfigsForV9TableCreation``, the same as ``EightToNineUpgradeHandler``):
  a built-in merge mode and its strategy id, the class under ``hoodie.table.legacy.payload.class``,
  ``hoodie.table.partial.update.mode`` and ``hoodie.record.merge.property.*`` where the payload needs them.
* On merge-on-read tables, rows that AWS DMS (``Op = D``) or Debezium (``_change_operation_type = d``)
  mark as deletes go to the DELETE block with their ordering value, whether or not the batch is
  pre-combined, and reads and compaction apply them.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework import open_table_service
from hudi_framework.config import HudiSettings
from hudi_framework.log.blocks import DataBlock, DeleteBlock
from hudi_framework.log.delete_records import OrderingType, OrderingValue
from hudi_framework.log.reader import read_log_file
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.from_settings import table_config_from_settings
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient

PKG = "org.apache.hudi.common.model."
EVENT = {"hoodie.record.merge.mode": "EVENT_TIME_ORDERING",
         "hoodie.record.merge.strategy.id": "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5"}  # fmt: skip
COMMIT = {"hoodie.record.merge.mode": "COMMIT_TIME_ORDERING",
          "hoodie.record.merge.strategy.id": "ce9acb64-bde0-424c-9b91-f6ebba25356d"}  # fmt: skip
V9_PROPERTIES: dict[str, dict[str, str]] = {
    "OverwriteWithLatestAvroPayload": COMMIT,
    "DefaultHoodieRecordPayload": EVENT,
    "EventTimeAvroPayload": EVENT,
    "OverwriteNonDefaultsWithLatestAvroPayload": {**COMMIT, "hoodie.table.partial.update.mode": "IGNORE_DEFAULTS"},
    "PartialUpdateAvroPayload": {**EVENT, "hoodie.table.partial.update.mode": "IGNORE_DEFAULTS"},
    "AWSDmsAvroPayload": {**COMMIT, "hoodie.record.merge.property.hoodie.payload.delete.field": "Op",
                          "hoodie.record.merge.property.hoodie.payload.delete.marker": "D"},
    "debezium.MySqlDebeziumAvroPayload": EVENT,
    # Apache Hudi 1.2.0 also persists Debezium's delete field and marker (the oracle's table; without
    # them its writer took 'd' rows of ours as live rows).
    "debezium.PostgresDebeziumAvroPayload": {
        **EVENT, "hoodie.table.partial.update.mode": "FILL_UNAVAILABLE",
        "hoodie.record.merge.property.hoodie.write.partial.update.unavailable.value": "__debezium_unavailable_value",
        "hoodie.record.merge.property.hoodie.payload.delete.field": "_change_operation_type",
        "hoodie.record.merge.property.hoodie.payload.delete.marker": "d",
    },
}  # fmt: skip


def _merge_keys(path: Path) -> dict[str, str]:
    text = (path / ".hoodie" / "hoodie.properties").read_text()
    props = dict(line.split("=", 1) for line in text.splitlines() if line and not line.startswith("#"))
    return {k: v for k, v in props.items() if "merge" in k or "payload" in k or "partial" in k}


@pytest.mark.parametrize("payload", sorted(V9_PROPERTIES))
def test_v9_persists_each_payload_class_as_hudi_1_1(tmp_path: Path, payload: str) -> None:
    expected = {**V9_PROPERTIES[payload], "hoodie.table.legacy.payload.class": PKG + payload}
    # From the API, and from Apache Hudi's write options (the datasource path).
    config = new_table_config("t", record_key_fields=["id"], ordering_fields=["ts"], payload_class=PKG + payload)
    HudiTable.create(str(tmp_path / "api"), config)
    assert _merge_keys(tmp_path / "api") == expected
    options = {
        "hoodie.table.name": "t",
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.payload.class": PKG + payload,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from_options = table_config_from_settings(HudiSettings.from_hoodie_options(options, env=False))
    HudiTable.create(str(tmp_path / "options"), from_options)
    assert _merge_keys(tmp_path / "options") == expected
    # Rewriting the properties (an upgrade, a commit that touches them) keeps every key.
    assert HudiTable.open(str(tmp_path / "api")).config.to_properties().items() >= expected.items()


def test_custom_payload_class_stays_a_custom_payload_table(tmp_path: Path) -> None:
    config = new_table_config("t", record_key_fields=["id"], payload_class="com.acme.MyPayload")
    HudiTable.create(str(tmp_path), config)
    assert _merge_keys(tmp_path) == {
        "hoodie.record.merge.mode": "CUSTOM",
        "hoodie.compaction.payload.class": "com.acme.MyPayload",
        "hoodie.record.merge.strategy.id": "00000000-0000-0000-0000-000000000000",
    }


# ------------------------------------------------------------------------------------------ CDC deletes
CDC = {
    "aws-dms": (PKG + "AWSDmsAvroPayload", "Op", "D", "U"),
    "mysql-debezium": (PKG + "debezium.MySqlDebeziumAvroPayload", "_change_operation_type", "d", "u"),
}


def _cdc(field: str, *rows: tuple[str, int, str, str]) -> pa.Table:
    return pa.table({"id": [r[0] for r in rows], "ts": pa.array([r[1] for r in rows], pa.int64()),
                     field: [r[2] for r in rows], "v": [r[3] for r in rows]})  # fmt: skip


def _blocks(table: HudiTable) -> list[Any]:
    out: list[Any] = []
    for file_slice in table.reload().file_system_view().latest_file_slices():
        for name in file_slice.log_file_names:
            out.extend(read_log_file(table.storage, name))
    return out


@pytest.mark.filterwarnings("ignore::hudi_framework.errors.HudiDeprecationWarning")
@pytest.mark.parametrize("combine", [True, False])
@pytest.mark.parametrize("kind", sorted(CDC))
def test_cdc_deletes_go_to_the_delete_block(tmp_path: Path, kind: str, combine: bool) -> None:
    payload, field, delete, update = CDC[kind]
    config = new_table_config(
        "cdc", table_type="MERGE_ON_READ", record_key_fields=["id"], ordering_fields=["ts"], payload_class=payload
    )
    table = HudiTable.create(str(tmp_path), config)
    settings = HudiSettings(write={"engine": "local", "combine_before_upsert": combine},
                            merger={"payload_class": payload})  # fmt: skip
    client = WriteClient(table, settings)
    client.upsert(_cdc(field, ("1", 5, "I", "a"), ("2", 5, "I", "b"), ("3", 5, "I", "c")))
    # Key 1 deleted (newer event), key 2 updated, key 3 deleted by a late event (ts 4 < 5).
    client.upsert(_cdc(field, ("1", 6, delete, "x"), ("2", 6, update, "y"), ("3", 4, delete, "z")))
    blocks = _blocks(table)
    data = [b for b in blocks if isinstance(b, DataBlock)]
    deletes = [b for b in blocks if isinstance(b, DeleteBlock)]
    assert [b.records.column("id").to_pylist() for b in data] == [["2"]]
    assert len(deletes) == 1
    assert {(r.record_key, r.ordering_value) for r in deletes[0].records} == {
        ("1", OrderingValue(OrderingType.LONG, 6)),
        ("3", OrderingValue(OrderingType.LONG, 4)),
    }
    # AWS DMS orders by commit time: every delete applies. Debezium orders by event time: the late
    # delete of key 3 loses against the stored ts 5.
    expected = {"2": "y"} if kind == "aws-dms" else {"2": "y", "3": "c"}

    def visible(**options: Any) -> dict[str, str]:
        return {r["id"]: r["v"] for r in read_table(table.reload(), columns=["id", "v"], **options).to_pylist()}

    assert visible() == expected
    service, host = open_table_service(table.reload(), settings, "compaction")
    instant = service.schedule(host)
    assert instant is not None
    service.execute(host, instant)
    assert visible() == expected
    assert visible(query_type="read_optimized") == expected
