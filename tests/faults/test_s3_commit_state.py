"""S3 "commit state unknown": the response of a PUT is lost after S3 stored the object.

The writer must settle the outcome by reading back, never commit twice and never roll back a write
that S3 committed. Lost responses are injected at the botocore level (``tests.faults.s3_faults``).
"""

from __future__ import annotations

import time

import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.errors import CommitStateUnknownError
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Action
from hudi_framework.write.client import WriteClient
from hudi_lock_storage.lease_record import LEASE_KEY, LeaseRecord
from tests.faults.s3_faults import FAST_RETRY, Rows, expected, new_bucket, s3_faults, s3_options, snapshot

pytestmark = pytest.mark.s3

BEFORE: Rows = [("a", "sf", 1), ("b", "sf", 1), ("x", "ny", 1)]
AFTER: Rows = [("a", "sf", 2), ("b", "sf", 1), ("c", "sf", 2), ("x", "ny", 1)]


def _batch(rows: Rows) -> pa.Table:
    return pa.table({"id": [r[0] for r in rows], "city": [r[1] for r in rows], "ts": [r[2] for r in rows]})


def _create(uri: str, endpoint: str, table_type: str, version: int) -> WriteClient:
    config = new_table_config(
        "t", version=version, table_type=table_type, record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    client = WriteClient(HudiTable.create(uri, config, storage_options=s3_options(endpoint, **FAST_RETRY)))
    client.insert(_batch(BEFORE))
    return client


def _is_completed_commit(key: str) -> bool:
    """The data table's completed instant files (the metadata table's, which complete first, are not)."""
    data = ".hoodie/" in key and "/.temp/" not in key and ".hoodie/metadata/" not in key
    return data and key.rsplit(".", 1)[-1] in ("commit", "deltacommit")


def _check_single_commit(client: WriteClient) -> None:
    timeline = client.table.reload().timeline
    assert not timeline.pending()
    assert timeline.by_action(Action.ROLLBACK) == [], "no rollback of a committed write"
    times = [i.requested_time for i in timeline.commits_timeline()]
    assert len(times) == len(set(times)) == 2, "exactly one completed instant per write"


@pytest.mark.parametrize(("table_type", "version"), [("COPY_ON_WRITE", 8), ("MERGE_ON_READ", 6)])
def test_lost_response_of_the_completed_instant(
    endpoint: str, monkeypatch: pytest.MonkeyPatch, table_type: str, version: int
) -> None:
    uri = f"s3://{new_bucket(endpoint, monkeypatch)}/t"
    client = _create(uri, endpoint, table_type, version)
    assert snapshot(uri, endpoint) == expected(BEFORE)
    with s3_faults() as faults:
        lost = faults.add("PutObject", _is_completed_commit, lost=True)
        client.upsert(_batch([("a", "sf", 2), ("c", "sf", 2)]))  # the caller sees success
    assert lost.injected == 1, lost.keys
    _check_single_commit(client)
    assert snapshot(uri, endpoint) == expected(AFTER)


def test_lost_response_then_retries_run_out(endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The backend gives up (every retry answered 503); the timeline writer reads the instant back."""
    uri = f"s3://{new_bucket(endpoint, monkeypatch)}/t"
    client = _create(uri, endpoint, "COPY_ON_WRITE", 8)
    with s3_faults() as faults:
        lost = faults.add("PutObject", _is_completed_commit, lost=True)
        busy = faults.add("PutObject", _is_completed_commit, code="SlowDown", status=503, times=FAST_RETRY_ATTEMPTS - 1)
        client.upsert(_batch([("a", "sf", 2), ("c", "sf", 2)]))
    assert (lost.injected, busy.injected) == (1, FAST_RETRY_ATTEMPTS - 1)
    _check_single_commit(client)
    assert snapshot(uri, endpoint) == expected(AFTER)


FAST_RETRY_ATTEMPTS = int(str(FAST_RETRY["max_attempts"]))


def test_commit_state_that_cannot_be_decided(endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """S3 keeps failing after the lost response: a typed error, the write is not undone, and once S3
    answers again the commit is there (it had landed) and the next writer rolls nothing back."""
    uri = f"s3://{new_bucket(endpoint, monkeypatch)}/t"
    client = _create(uri, endpoint, "COPY_ON_WRITE", 8)
    old = {f.key for f in client.table.storage.list(".hoodie/timeline")}

    def new_commit(key: str) -> bool:
        return _is_completed_commit(key) and key.split("/", 1)[1] not in old

    with s3_faults() as faults:
        lost = faults.add("PutObject", new_commit, lost=True)
        for op in ("PutObject", "GetObject", "HeadObject"):
            faults.add(op, new_commit, code="ServiceUnavailable", status=503, times=1000)
        with pytest.raises(CommitStateUnknownError, match="cannot tell whether"):
            client.upsert(_batch([("a", "sf", 2), ("c", "sf", 2)]))
        assert lost.injected == 1
    _check_single_commit(client)
    assert snapshot(uri, endpoint) == expected(AFTER)
    client.upsert(_batch([("x", "ny", 3)]))
    timeline = client.table.reload().timeline
    assert timeline.by_action(Action.ROLLBACK) == []
    assert len(timeline.commits_timeline()) == 3
    assert snapshot(uri, endpoint) == expected([*AFTER[:3], ("x", "ny", 3)])


def _data_or_marker(key: str) -> bool:
    name = key.rsplit("/", 1)[-1]
    return ".parquet" in name or ".log." in name or ".marker." in name or name.startswith(".hoodie_partition_metadata")


@pytest.mark.parametrize(("table_type", "version"), [("MERGE_ON_READ", 6), ("MERGE_ON_READ", 9)])
def test_lost_responses_of_data_files_and_markers(
    endpoint: str, monkeypatch: pytest.MonkeyPatch, table_type: str, version: int
) -> None:
    """Every data file, log file, marker and partition metadata PUT loses its first response: the
    retry (plain overwrite, or create-if-absent settled by the write token) succeeds."""
    uri = f"s3://{new_bucket(endpoint, monkeypatch)}/t"
    client = _create(uri, endpoint, table_type, version)
    with s3_faults() as faults:
        lost = faults.add("PutObject", _data_or_marker, lost=True, times=1000, once_per_key=True)
        client.upsert(_batch([("a", "sf", 2), ("c", "sf", 2), ("n", "la", 2)]))
    assert any(".marker." in k for k in lost.keys), lost.keys
    assert any(".parquet" in k or ".log." in k for k in lost.keys), lost.keys
    assert any(".hoodie_partition_metadata" in k for k in lost.keys), lost.keys
    _check_single_commit(client)
    assert snapshot(uri, endpoint) == expected([*AFTER, ("n", "la", 2)])


def test_lost_responses_of_the_lock_lease(endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under OCC with the storage lock, the lease's create (acquire) and compare-and-swap (release)
    lose their responses: both settle by the write token, the lock is released, and the next writer
    gets it at once instead of waiting for the lease to expire."""
    uri = f"s3://{new_bucket(endpoint, monkeypatch)}/t"
    settings = HudiSettings(
        write={"concurrency_mode": "optimistic_concurrency_control"},
        lock={"provider": "storage", "options": {"validity_timeout_secs": 60, "renew_interval_secs": 10}},
    )
    config = new_table_config(
        "t", version=8, record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"]
    )
    options = s3_options(endpoint, **FAST_RETRY)
    client = WriteClient(HudiTable.create(uri, config, storage_options=options), settings)
    client.insert(_batch(BEFORE))
    with s3_faults() as faults:
        lost = faults.add("PutObject", LEASE_KEY, lost=True, times=100)
        client.upsert(_batch([("a", "sf", 2), ("c", "sf", 2)]))
        assert lost.injected >= 2, "acquire and release both lost their responses"
        faults.clear()
    lease = LeaseRecord.decode(client.table.storage.read(LEASE_KEY))
    assert lease is not None
    assert lease.expired, "released"
    started = time.monotonic()
    WriteClient(HudiTable.open(uri, storage_options=options), settings).upsert(_batch([("x", "ny", 3)]))
    assert time.monotonic() - started < 30, "no wait for a 60 s lease"
    timeline = client.table.reload().timeline
    assert timeline.by_action(Action.ROLLBACK) == []
    assert len(timeline.commits_timeline()) == 3
    assert snapshot(uri, endpoint) == expected([*AFTER[:3], ("x", "ny", 3)])
