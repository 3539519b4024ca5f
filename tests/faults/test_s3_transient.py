"""Transient S3 errors (503, 500, 429, 409) on data-file and timeline calls of an upsert and a read.

The backend's retry policy (``hudi_storage_s3.retry``) absorbs them: the table ends up exactly as
in a run without faults, and every injected fault is counted to prove it happened.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Action
from hudi_framework.write.client import WriteClient
from tests.faults.s3_faults import (
    FAST_RETRY,
    Fault,
    Rows,
    S3Faults,
    expected,
    new_bucket,
    rows_of,
    s3_faults,
    s3_options,
    snapshot,
)

pytestmark = pytest.mark.s3

BEFORE: Rows = [("a", "sf", 1), ("b", "sf", 1), ("x", "ny", 1)]
UPSERT: Rows = [("a", "sf", 2), ("c", "sf", 2), ("y", "ny", 2), ("n", "la", 2)]
AFTER: Rows = [("a", "sf", 2), ("b", "sf", 1), ("c", "sf", 2), ("n", "la", 2), ("x", "ny", 1), ("y", "ny", 2)]


def _batch(rows: Rows) -> pa.Table:
    return pa.table({"id": [r[0] for r in rows], "city": [r[1] for r in rows], "ts": [r[2] for r in rows]})


def _data(key: str) -> bool:
    name = key.rsplit("/", 1)[-1]
    return ".marker." not in name and (".parquet" in name or ".log." in name)


def _timeline(key: str) -> bool:
    return ".hoodie/" in key and "/.temp/" not in key and "/.heartbeat/" not in key


def _write_faults(faults: S3Faults) -> list[Fault]:
    return [
        faults.add("PutObject", _data, code="SlowDown", status=503, times=2),
        faults.add("PutObject", _data, code="InternalError", status=500, times=1),
        faults.add("PutObject", ".marker.", code="OperationAborted", status=409, times=2),
        faults.add("PutObject", _timeline, code="InternalError", status=500, after=True, times=2),  # applied, then 500
        faults.add("PutObject", _timeline, code="ConditionalRequestConflict", status=409, times=1),
        faults.add("PutObject", _timeline, code="TooManyRequests", status=429, times=1),
        faults.add("GetObject", _timeline, code="SlowDown", status=429, times=2),
        faults.add("GetObject", _data, code="ServiceUnavailable", status=503, times=1),
        faults.add("ListObjectsV2", _timeline, code="SlowDown", status=503, times=2),
        faults.add("ListObjectsV2", lambda k: ".hoodie" not in k, code="InternalError", status=500, times=1),
        faults.add("HeadObject", lambda k: True, code="500", status=500, times=1),
    ]


def _read_faults(faults: S3Faults) -> list[Fault]:
    return [
        faults.add("GetObject", _data, code="SlowDown", status=503, times=2),
        faults.add("GetObject", _data, code="Throttling", status=429, times=1),
        faults.add("GetObject", _timeline, code="InternalError", status=500, times=2),
        faults.add("GetObject", "hoodie.properties", code="OperationAborted", status=409, times=1),
        faults.add("ListObjectsV2", lambda k: True, code="ServiceUnavailable", status=503, times=2),
    ]


@pytest.mark.parametrize(("table_type", "version"), [("COPY_ON_WRITE", 8), ("MERGE_ON_READ", 9)])
def test_transient_errors_during_upsert_and_read(
    endpoint: str, monkeypatch: pytest.MonkeyPatch, table_type: str, version: int
) -> None:
    uri = f"s3://{new_bucket(endpoint, monkeypatch)}/t"
    options = s3_options(endpoint, **FAST_RETRY)
    config = new_table_config(
        "t", version=version, table_type=table_type, record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    client = WriteClient(HudiTable.create(uri, config, storage_options=options))
    client.insert(_batch(BEFORE))
    assert snapshot(uri, endpoint) == expected(BEFORE)
    with s3_faults() as faults:
        write_rules = _write_faults(faults)
        client.upsert(_batch(UPSERT))
        faults.clear()
        read_rules = _read_faults(faults)
        read_back = rows_of(read_table(HudiTable.open(uri, storage_options=options)))
    for rule in write_rules + read_rules:
        assert rule.injected == rule.times, f"{rule.label()} injected {rule.injected} of {rule.times}"
    assert read_back == sorted(AFTER)
    timeline = client.table.reload().timeline
    assert not timeline.pending()
    assert timeline.by_action(Action.ROLLBACK) == []
    assert len(timeline.commits_timeline()) == 2, "one completed instant per write"
    assert snapshot(uri, endpoint) == expected(AFTER), "same result as without faults"
