"""Merge-on-read snapshots whose base files hold few-valued string columns (read as dictionaries and
filtered as indices by the merge): the rows are the model's, whichever way the slice merges (in
memory or spilled to disk, under event-time and commit-time ordering) and after compaction."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from hudi_framework import open_table_service
from hudi_framework.config.settings import HudiSettings
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient

ROWS = 6000  # more than the writer's dictionary sample, so unique columns are written plain


def _rows(ids: np.ndarray, ts: int, version: str) -> pa.Table:
    return pa.table(
        {
            "id": [f"key-{i:06d}" for i in ids],
            "region": [["eu", "us", "ap"][i % 3] for i in ids],
            "ts": pa.array(np.full(len(ids), ts), pa.int64()),
            "status": [None if i % 11 == 0 else ["new", "paid"][i % 2] for i in ids],
            "note": [f"{version}-{i}" for i in ids],
            "_hoodie_is_deleted": pa.array(np.zeros(len(ids), dtype=bool)),
        }
    )


def _settings(extra: dict[str, str]) -> HudiSettings:
    return HudiSettings.from_hoodie_options({"hoodie.parquet.small.file.limit": "0", **extra}, env=False)


def _table(path: Path, extra: dict[str, str]) -> tuple[HudiTable, pa.Table]:
    """A merge-on-read table after a bulk insert and one upsert of updates, deletes and new keys;
    returns it with the expected live rows (id, ts, status, note)."""
    base = _rows(np.arange(ROWS), 1, "v1")
    config = new_table_config(
        "t", table_type="MERGE_ON_READ", record_key_fields=["id"], partition_fields=["region"],
        ordering_fields=["ts"],
    )  # fmt: skip
    table = HudiTable.create(str(path), config, schema=base.schema)
    WriteClient(table, _settings(extra)).bulk_insert(base)
    updates = _rows(np.arange(0, ROWS, 8), 2, "v2")
    stale = _rows(np.arange(4, ROWS, 40), 0, "stale")  # older ordering value: the stored row stays
    deletes = _rows(np.arange(1, ROWS, 50), 3, "gone")
    deletes = deletes.set_column(5, "_hoodie_is_deleted", pa.array(np.ones(deletes.num_rows, dtype=bool)))
    inserts = _rows(np.arange(ROWS, ROWS + 300), 2, "new")
    table = HudiTable.open(str(path))
    WriteClient(table, _settings(extra)).upsert(pa.concat_tables([updates, stale, deletes, inserts]))
    live: dict[str, tuple[int, str | None, str]] = {}
    for rows in (base, updates, inserts):
        for r in rows.select(["id", "ts", "status", "note"]).to_pylist():
            live[r["id"]] = (r["ts"], r["status"], r["note"])
    for key in deletes.column("id").to_pylist():
        live.pop(key)
    expected = pa.table(
        {
            "id": list(live),
            "ts": pa.array([v[0] for v in live.values()], pa.int64()),
            "status": [v[1] for v in live.values()],
            "note": [v[2] for v in live.values()],
        }
    )
    return HudiTable.open(str(path)), expected.sort_by("id")


def _snapshot(table: HudiTable, **kwargs: object) -> pa.Table:
    got = read_table(table, **kwargs)  # type: ignore[arg-type]
    for name in ("_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_file_name", "region", "status"):
        assert got.schema.field(name).type == pa.string()
    partitions = set(got.column("_hoodie_partition_path").to_pylist())
    assert partitions == {"region=eu", "region=us", "region=ap"} or partitions == {"eu", "us", "ap"}
    return got.select(["id", "ts", "status", "note"]).sort_by("id")


@pytest.mark.parametrize(
    "extra",
    [
        pytest.param({}, id="event-time-selects"),
        pytest.param({"hoodie.write.record.merge.mode": "COMMIT_TIME_ORDERING"}, id="commit-time"),
    ],
)  # fmt: skip
def test_merged_snapshot_equals_the_model(tmp_path: Path, extra: dict[str, str]) -> None:
    table, expected = _table(tmp_path / "t", extra)
    if "hoodie.write.record.merge.mode" in extra:
        # Commit-time ordering: the stale versions win too.
        stale_ids = {f"key-{i:06d}" for i in range(4, ROWS, 40)} - {f"key-{i:06d}" for i in range(1, ROWS, 50)}
        stale = [i in stale_ids for i in expected.column("id").to_pylist()]
        note = [
            f"stale-{int(k[4:])}" if s else n
            for k, s, n in zip(
                expected.column("id").to_pylist(), stale, expected.column("note").to_pylist(), strict=True
            )
        ]
        ts = [0 if s else t for s, t in zip(stale, expected.column("ts").to_pylist(), strict=True)]
        expected = expected.set_column(3, "note", pa.array(note)).set_column(1, "ts", pa.array(ts, pa.int64()))
    assert _snapshot(table).equals(expected)
    # Spilled: every slice's log rows go to disk and the base file is partitioned by key hash.
    assert _snapshot(table, merge_max_memory_bytes=1).equals(expected)


def test_compacted_base_files_hold_the_merged_rows(tmp_path: Path) -> None:
    table, expected = _table(tmp_path / "t", {})
    service, host = open_table_service(table, _settings({}), "compaction")
    instant = service.schedule(host)
    assert instant is not None
    service.execute(host, instant)
    compacted = HudiTable.open(str(tmp_path / "t"))
    assert _snapshot(compacted).equals(expected)
    assert _snapshot(compacted, query_type="read_optimized").equals(expected)
