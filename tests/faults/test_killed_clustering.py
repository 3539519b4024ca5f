"""kill -9 during clustering: readers see the table as before until the replacecommit exists, and a
re-run of the pending clustering (after rolling back the dead attempt's files) completes it with
the same rows. Writers in between do not roll a pending clustering back (as Apache Hudi)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import hudi
import pyarrow as pa
import pytest

from hudi_framework import open_table_service
from hudi_framework.config import HudiSettings
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.from_settings import table_config_from_settings
from hudi_framework.timeline.instant import Action, State
from hudi_framework.write.client import WriteClient
from tests.faults.processes import kill_writer

Rows = list[tuple[str, str, int]]
LAYOUTS = [("COPY_ON_WRITE", 6), ("COPY_ON_WRITE", 9), ("MERGE_ON_READ", 6), ("MERGE_ON_READ", 9)]
#: Where the clustering process dies: half-way through its second new base file, or with every
#: new file written and the replacecommit not.
KILL_POINTS = [
    pytest.param({"park": r"stream:\.parquet$@2"}, id="mid-file"),
    pytest.param({"when": "before"}, id="before-commit"),
]


def _settings(path: Path, table_type: str, version: int) -> HudiSettings:
    return HudiSettings.load(
        overrides={
            "table.base_path": str(path), "table.name": "k", "table.type": table_type, "table.version": version,
            "table.record_key_fields": ["id"], "table.partition_fields": ["city"], "table.ordering_fields": ["ts"],
            "write.small_file_limit_bytes": 0,
        },
        env=False,
    )  # fmt: skip


def _table(path: Path, table_type: str, version: int) -> WriteClient:
    settings = _settings(path, table_type, version)
    client = WriteClient(HudiTable.create(str(path), table_config_from_settings(settings)), settings)
    for n in range(3):
        ids = [f"{chr(97 + n)}{i}" for i in range(4)] + [f"{chr(110 + n)}{i}" for i in range(4)]
        client.insert(pa.Table.from_pylist([{"id": i, "city": "sf" if i < "m" else "ny", "ts": 1} for i in ids]))
    client.upsert(pa.Table.from_pylist([{"id": "a0", "city": "sf", "ts": 2}, {"id": "n1", "city": "ny", "ts": 2}]))
    return client


def _ours(path: Path) -> Rows:
    t = read_table(HudiTable.open(str(path))).select(["id", "city", "ts"])
    return sorted((r["id"], r["city"], r["ts"]) for r in t.to_pylist())


def _hudi_rs(path: Path) -> Rows:
    table = hudi.HudiTableBuilder.from_base_uri(str(path)).build()
    rows = pa.Table.from_batches(table.read(hudi.HudiReadOptions())).to_pylist()
    return sorted((r["id"], r["city"], r["ts"]) for r in rows)


def _snapshot(path: Path) -> str:
    ours = _ours(path)
    assert ours == _hudi_rs(path), "our reader and hudi-rs agree"
    return hashlib.sha256(json.dumps(ours).encode()).hexdigest()


def _data_files(path: Path) -> set[str]:
    return {
        str(p.relative_to(path)) for p in path.rglob("*")
        if p.is_file() and ".hoodie" not in p.parts and not p.name.startswith(".hoodie_partition_metadata")
    }  # fmt: skip


@pytest.mark.matrix  # each value of each parameter by default, every combination with HUDI_TEST_SLOW=1
@pytest.mark.parametrize("kill", KILL_POINTS)
@pytest.mark.parametrize(("table_type", "version"), LAYOUTS)
def test_killed_clustering_reads_identically_and_reruns(
    tmp_path: Path, table_type: str, version: int, kill: dict[str, str]
) -> None:
    path = tmp_path / "t"
    client = _table(path, table_type, version)
    before = _snapshot(path)
    files_before = _data_files(path)
    kill_writer(str(path), kill.get("when", "before"), tmp_path, [], None, "cluster", park=kill.get("park"))

    table = client.table.reload()
    (pending,) = table.timeline.pending_clustering_plans()
    assert pending.state is State.INFLIGHT
    assert _data_files(path) - files_before, "the killed clustering had written data files"
    assert _snapshot(path) == before, "readers see the table as before"

    # A writer in between neither rolls the clustering back nor writes into its file groups.
    client.insert(pa.Table.from_pylist([{"id": "z9", "city": "ny", "ts": 1}]))
    (still,) = client.table.reload().timeline.pending_clustering_plans()
    assert still.requested_time == pending.requested_time
    with_insert = _snapshot(path)

    settings = _settings(path, table_type, version)
    service, host = open_table_service(client.table.reload(), settings, "clustering")
    service.execute(host, pending.requested_time)  # rolls the dead attempt back, then runs the plan
    timeline = client.table.reload().timeline
    assert not timeline.pending_clustering_plans()
    done = timeline.get(pending.requested_time, Action.CLUSTERING)
    assert done.is_completed
    assert _snapshot(path) == with_insert
    written = {s.path for s in timeline.read_commit_metadata(done).write_stats()}
    leftovers = {f for f in _data_files(path) if pending.requested_time in f.rsplit("/", 1)[-1]} - written
    assert leftovers == set(), "no file of the dead attempt is left"
    assert not any((path / ".hoodie" / ".temp").rglob("*.marker.*"))
