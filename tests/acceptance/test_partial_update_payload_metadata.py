"""``PartialUpdateAvroPayload`` on tables that run the payload itself (versions 6 and 8, merge mode
``CUSTOM``): when a later write loses by its ordering value ("disorder"), Java's payload keeps the
stored record's data (its nulls filled from the late one) but the late record's meta columns
(``mergeDisorderRecordsWithMetadata``). Version 9 runs the migrated mode (event time with
``IGNORE_DEFAULTS``), which keeps the stored record's meta columns. Found by the Apache Hudi oracle
(tests/oracle/test_merge_semantics.py).
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework import HudiSettings, HudiTable, WriteClient, new_table_config, open_table_service, read_table

PAYLOAD = "org.apache.hudi.common.model.PartialUpdateAvroPayload"


def _rows(ts: int, name: str | None, fare: float | None) -> pa.Table:
    return pa.table(
        {"id": ["k1", "k2"], "city": ["sf", "sf"], "ts": pa.array([ts, ts], pa.int64()),
         "name": pa.array([name, name], pa.string()), "fare": pa.array([fare, fare], pa.float64())}
    )  # fmt: skip


def _table(tmp_path: Path, version: int) -> tuple[HudiTable, list[str]]:
    config = new_table_config(
        "partial_payload", table_type="MERGE_ON_READ", version=version,
        record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"], payload_class=PAYLOAD,
    )  # fmt: skip
    table = HudiTable.create(str(tmp_path / "t"), config)
    first = WriteClient(table, HudiSettings()).insert(_rows(5, None, 1.0))
    late = WriteClient(HudiTable.open(str(tmp_path / "t")), HudiSettings()).upsert(_rows(3, "late", 2.0))
    return HudiTable.open(str(tmp_path / "t")), [first.instant.requested_time, late.instant.requested_time]


@pytest.mark.parametrize("version", [6, 8])
def test_late_update_takes_the_late_records_meta_columns_on_payload_tables(tmp_path: Path, version: int) -> None:
    table, (_first, late) = _table(tmp_path, version)
    rows = read_table(table).sort_by("id").to_pylist()
    file_id = rows[0]["_hoodie_file_name"]
    # The stored data wins (ts 5, fare 1.0) with its null name filled from the late record...
    assert [(r["ts"], r["fare"], r["name"]) for r in rows] == [(5, 1.0, "late")] * 2
    # ...under the late record's meta columns: its commit, its sequence number, the log record's file name.
    assert [r["_hoodie_commit_time"] for r in rows] == [late, late]
    assert all(r["_hoodie_commit_seqno"].startswith(late + "_") for r in rows)
    assert not file_id.endswith(".parquet")
    # Compaction writes what the snapshot read shows (a new base file, so only the file name differs).
    settings = HudiSettings()
    service, host = open_table_service(table, settings, "compaction")
    instant = service.schedule(host)
    assert instant is not None
    service.execute(host, instant)
    compacted = read_table(HudiTable.open(str(tmp_path / "t"))).sort_by("id").to_pylist()
    assert [(r["ts"], r["name"], r["_hoodie_commit_time"]) for r in compacted] == [(5, "late", late)] * 2


def test_late_update_keeps_the_stored_meta_columns_on_version_9(tmp_path: Path) -> None:
    table, (first, _late) = _table(tmp_path, 9)
    rows = read_table(table).sort_by("id").to_pylist()
    assert [r["_hoodie_commit_time"] for r in rows] == [first, first]
    assert all(r["_hoodie_file_name"].endswith(".parquet") for r in rows)
