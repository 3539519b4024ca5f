"""Failed-write rollback and optimistic concurrency on S3 (moto server on 127.0.0.1).

moto's conditional put checks and then writes without a lock, so two truly concurrent creates of one
key could both "win"; the harness serialises moto's puts (``serialized_moto_s3``), which is what a
real S3 conditional write guarantees.
"""

from __future__ import annotations

import uuid

import boto3
import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.errors import WriteConflictError
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.testing import DUMMY_AWS_ENV
from hudi_framework.timeline.instant import Action
from hudi_framework.timeline.transitions import TimelineWriter
from hudi_framework.write.client import WriteClient
from hudi_framework.write.heartbeat import Heartbeat
from hudi_framework.write.pipeline import WriteResult
from hudi_framework.write.transaction import WriteTransaction
from tests.concurrent_writers import race_upserts

pytestmark = pytest.mark.s3


class _CrashError(Exception):
    """Stands in for the writer dying right before its completed instant."""


@pytest.fixture
def uri(endpoint: str, monkeypatch: pytest.MonkeyPatch) -> str:
    for name, value in DUMMY_AWS_ENV.items():
        monkeypatch.setenv(name, value)
    bucket = f"hudi-faults-{uuid.uuid4().hex[:10]}"
    boto3.session.Session().client("s3", endpoint_url=endpoint, region_name="us-east-1").create_bucket(Bucket=bucket)
    return f"s3://{bucket}/t"


def _options(endpoint: str) -> dict[str, object]:
    return {"endpoint_url": endpoint, "region": "us-east-1", "addressing_style": "path"}


def _open(uri: str, endpoint: str) -> HudiTable:
    return HudiTable.open(uri, storage_options=_options(endpoint))


def _create(uri: str, endpoint: str) -> HudiTable:
    config = new_table_config(
        "t", version=8, record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"]
    )
    return HudiTable.create(uri, config, storage_options=_options(endpoint))


def _batch(ids: list[str], city: str, ts: int) -> pa.Table:
    return pa.table({"id": ids, "city": [city] * len(ids), "ts": [ts] * len(ids)})


def _rows(table: HudiTable) -> list[tuple[str, int]]:
    return sorted((r["id"], r["ts"]) for r in read_table(table.reload()).select(["id", "ts"]).to_pylist())


def test_crashed_write_on_s3_is_rolled_back(uri: str, endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    table = _create(uri, endpoint)
    client = WriteClient(table)
    client.insert(_batch(["a", "b"], "sf", 1))
    before = _rows(table)
    with monkeypatch.context() as m:
        m.setattr(TimelineWriter, "complete", lambda *a, **k: (_ for _ in ()).throw(_CrashError()))
        m.setattr(WriteTransaction, "abort", lambda self: [])
        m.setattr(Heartbeat, "start", lambda self: self)
        with pytest.raises(_CrashError):
            client.upsert(_batch(["a", "c"], "sf", 2))
    (dead,) = table.reload().timeline.pending()
    storage = table.storage
    assert storage.list(f".hoodie/.temp/{dead.requested_time}", recursive=True)
    assert _rows(table) == before, "readers see the previous snapshot"
    WriteClient(_open(uri, endpoint)).upsert(_batch(["d"], "sf", 3))
    timeline = table.reload().timeline
    assert not timeline.pending()
    assert [i.is_completed for i in timeline.by_action(Action.ROLLBACK)] == [True]
    assert not storage.list(".hoodie/.temp", recursive=True)
    assert [f.key for f in storage.list("sf") if dead.requested_time in f.name] == []
    assert _rows(table) == [("a", 1), ("b", 1), ("d", 3)]


def test_occ_with_the_storage_lock_on_s3(uri: str, endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = HudiSettings(
        write={"concurrency_mode": "optimistic_concurrency_control"},
        lock={"provider": "storage", "options": {"validity_timeout_secs": 30, "renew_interval_secs": 5}},
    )
    table = _create(uri, endpoint)
    WriteClient(table, settings).insert(_batch(["a", "b"], "sf", 1))
    jobs = [
        (WriteClient(_open(uri, endpoint), settings), _batch(["a"], "sf", 2)),  # these two share a file group
        (WriteClient(_open(uri, endpoint), settings), _batch(["b"], "sf", 3)),
        (WriteClient(_open(uri, endpoint), settings), _batch(["n"], "ny", 4)),  # a new partition
    ]
    results = race_upserts(monkeypatch, jobs, timeout_s=180)
    assert isinstance(results[2], WriteResult), results
    sf = results[:2]
    assert sorted(type(r).__name__ for r in sf) == ["WriteConflictError", "WriteResult"], results
    lost = next(r for r in sf if isinstance(r, WriteConflictError))
    retry_client, retry_data = jobs[sf.index(lost)]
    retry_client.upsert(retry_data)
    assert _rows(table) == [("a", 2), ("b", 3), ("n", 4)]
    assert not table.reload().timeline.pending()
