"""The table-lock holder dies (SIGKILL) inside the locked section of an optimistic-concurrency write.

The writer subprocess (``tests.faults.kill_writer``, ``before``) parks inside
``TimelineWriter.complete``, which under OCC runs while it holds the ``storage`` lock, and is killed
there. Another writer gets the lock only once the dead holder's lease expired (plus the clock-drift
margin), then commits; the dead writer's inflight instant is rolled back by LAZY cleaning once its
heartbeat expired, leaving no orphan data files, markers or heartbeats. On local disk and on moto S3.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Action
from hudi_framework.write.client import WriteClient
from hudi_lock_storage.lease_record import LEASE_KEY, LeaseRecord
from hudi_lock_storage.provider import StorageLockProvider
from tests.faults.processes import kill_writer
from tests.faults.s3_faults import Rows, expected, new_bucket, s3_options, snapshot

LEASE = {"validity_timeout_secs": 2.0, "renew_interval_secs": 0.4, "clock_drift_margin_secs": 0.3}
SETTINGS: dict[str, Any] = {
    "write": {
        "concurrency_mode": "optimistic_concurrency_control",
        "failed_writes_policy": "LAZY",
        "heartbeat_interval_ms": 100,
        "heartbeat_tolerable_misses": 2,
    },
    "lock": {"provider": "storage", "options": {**LEASE, "poll_interval_secs": 0.05}},
}
BEFORE: Rows = [("a", "sf", 1), ("b", "sf", 1), ("x", "ny", 1)]


@pytest.fixture(params=["local", pytest.param("s3", marks=pytest.mark.s3)])
def place(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[str, str | None]]:
    if request.param == "local":
        yield str(tmp_path / "t"), None
    else:
        endpoint = request.getfixturevalue("endpoint")
        yield f"s3://{new_bucket(endpoint, monkeypatch)}/t", endpoint


def _batch(rows: Rows) -> pa.Table:
    return pa.table({"id": [r[0] for r in rows], "city": [r[1] for r in rows], "ts": [r[2] for r in rows]})


def test_lock_holder_killed_inside_the_locked_section(
    place: tuple[str, str | None], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    uri, endpoint = place
    options = s3_options(endpoint) if endpoint else None
    settings = HudiSettings.model_validate(SETTINGS)
    config = new_table_config(
        "t", version=8, record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"]
    )
    client = WriteClient(HudiTable.create(uri, config, storage_options=options), settings)
    client.insert(_batch(BEFORE))
    before = snapshot(uri, endpoint)
    storage = client.table.storage
    held: list[LeaseRecord] = []

    def lease() -> LeaseRecord:
        record = LeaseRecord.decode(storage.read(LEASE_KEY))
        assert record is not None
        return record

    def holds_the_lock() -> None:
        held.append(lease())

    env = {"HUDI_FAULT_SETTINGS": json.dumps(SETTINGS), "HUDI_FAULT_STORAGE_OPTIONS": json.dumps(options)}
    dead_rows = [{"id": "a", "city": "sf", "ts": 2}, {"id": "c", "city": "sf", "ts": 2}]
    killed_at = kill_writer(uri, "before", tmp_path, dead_rows, env=env, while_parked=holds_the_lock)
    (holder,) = held
    assert not holder.expired
    assert holder.expiration > killed_at * 1000, "the killed writer held a live lease"
    dead_lease = lease()  # no renewals after the kill: this expiry is final
    assert dead_lease.owner == holder.owner
    (dead,) = client.table.reload().timeline.pending()
    assert snapshot(uri, endpoint) == before, "readers see the previous snapshot"

    acquired: list[float] = []
    real_attempt = StorageLockProvider._attempt

    def timed_attempt(self: StorageLockProvider) -> bool:
        won = real_attempt(self)
        if won:
            acquired.append(time.time())
        return won

    monkeypatch.setattr(StorageLockProvider, "_attempt", timed_attempt)
    time.sleep(0.4)  # > 2 missed heartbeats of 100 ms: the dead write counts as failed (LAZY)
    writer = WriteClient(HudiTable.open(uri, storage_options=options), settings)
    writer.upsert(_batch([("b", "sf", 3), ("y", "ny", 3)]))

    expiry_s = dead_lease.expiration / 1000
    margin_s = LEASE["clock_drift_margin_secs"]
    first = acquired[0]
    assert first >= expiry_s + margin_s - 0.01, f"lock taken {expiry_s + margin_s - first:.3f}s before expiry+margin"
    assert first - killed_at >= expiry_s - killed_at, "waited for the lease to expire"
    timeline = writer.table.reload().timeline
    assert not timeline.pending()
    assert dead.requested_time not in {i.requested_time for i in timeline.instants}, "dead write rolled back"
    assert [i.is_completed for i in timeline.by_action(Action.ROLLBACK)] == [True]
    assert len(timeline.commits_timeline()) == 2
    assert not storage.list(".hoodie/.temp", recursive=True), "no orphan markers"
    assert not storage.list(".hoodie/.heartbeat", recursive=True), "no heartbeats left"
    data = [f.key for f in storage.list("", recursive=True) if not f.key.startswith(".hoodie/")]
    assert [k for k in data if dead.requested_time in k] == [], "no orphan data files"
    final = lease()
    assert final.expired, "released"
    assert final.owner != holder.owner
    assert final.generation > holder.generation, "taken over, not reused"
    left = expiry_s - killed_at
    print(f"lock wait after the kill: {first - killed_at:.3f}s (lease left {left:.3f}s + margin {margin_s}s)")
    assert snapshot(uri, endpoint) == expected([("a", "sf", 1), ("b", "sf", 3), ("x", "ny", 1), ("y", "ny", 3)])
