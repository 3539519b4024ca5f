"""Rolling back a completed commit: never visible half done, and an error means it did not happen.

Found by the fault campaign (``kill-local``, ``rollback-mor-v9``, campaign seed 1717, trial seed
1797970607: SIGKILL at the 21st of 31 storage calls of ``hudi-fw rollback``, the delete of the
commit's second data file; and ``rollback-mor-v6``, campaign seed 4242, trial seed 1511736597:
SIGKILL while the second rollback block was written): readers saw rows of the commit in one
partition and not in the other, and the next writer left it so. Apache Hudi unpublishes the
commit (reverts it to inflight) before it deletes any of its files, so readers see either the
commit or nothing of it. Here the crash is an exception raised by the storage backend at the same
point: on local disk as a crash of the process would stop it, on S3 as a DeleteObject failing for
good.

Found by the S3 fault campaign (``s3-faults``, ``rollback-cow-v6``, campaign seed 777, trial seed
1428257906: the DeleteObject of the rolled-back commit's inflight file failed three times): the
commit was gone, yet ``hudi-fw rollback`` raised ``StorageError``, so the operator, told the
rollback failed, would run it again and roll back the commit before. A rollback is now an instant of
its own (plan first, as Apache Hudi's): one that raises midway stays pending, readers see the commit
unpublished, and running ``hudi-fw rollback`` again finishes that rollback and rolls back nothing
else.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.errors import StorageError
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient
from hudi_framework.write.savepoint import rollback_latest_commit
from hudi_storage_local.backend import LocalStorageBackend
from tests.faults.s3_faults import FAST_RETRY, Rows, hudi_rs, new_bucket, ours, s3_faults, s3_options

BEFORE: Rows = [("a", "sf", 2), ("b", "sf", 1), ("x", "ny", 2), ("y", "ny", 1)]  # with the commit
AFTER: Rows = [("a", "sf", 1), ("b", "sf", 1), ("x", "ny", 1), ("y", "ny", 1)]  # rolled back
LAYOUTS = [("COPY_ON_WRITE", 9), ("MERGE_ON_READ", 9), ("COPY_ON_WRITE", 6), ("MERGE_ON_READ", 6)]


class _CrashError(StorageError):
    """Stands in for the process dying inside the rollback."""


def _batch(rows: Rows) -> pa.Table:
    return pa.table({"id": [r[0] for r in rows], "city": [r[1] for r in rows], "ts": [r[2] for r in rows]})


def _table(base: str, table_type: str, version: int, storage_options: dict[str, object] | None) -> HudiTable:
    config = new_table_config(
        "t", version=version, table_type=table_type, record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    table = HudiTable.create(base, config, storage_options=storage_options)
    client = WriteClient(table)
    client.insert(_batch(AFTER))
    client.upsert(_batch([("a", "sf", 2), ("x", "ny", 2)]))  # one file group written in each partition
    return table


def _visible(uri: str, endpoint: str | None = None) -> Rows:
    rows = ours(uri, s3_options(endpoint, **FAST_RETRY) if endpoint else None)
    assert rows == hudi_rs(uri, endpoint), "our reader and hudi-rs agree"
    return rows


def _is_data_file(key: str) -> bool:
    return not key.startswith(".hoodie") and ".hoodie_partition_metadata" not in key


@pytest.mark.parametrize(("table_type", "version"), LAYOUTS)
def test_rollback_crashing_after_a_first_file_is_not_visible_half_done(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, table_type: str, version: int
) -> None:
    """The crash comes at the rollback's second change of a data file: a delete, or (merge-on-read
    v6) the log file holding the second rollback block."""
    base = str(tmp_path / "t")
    table = _table(base, table_type, version, None)
    assert _visible(base) == BEFORE
    changed: list[str] = []

    def crash_at_second(name: str) -> Callable[..., Any]:
        real = getattr(LocalStorageBackend, name)

        def change(self: LocalStorageBackend, key: str, *args: Any, **kwargs: Any) -> Any:
            if _is_data_file(key) and changed:
                raise _CrashError(f"crashed before {name} {key}")
            result = real(self, key, *args, **kwargs)
            if _is_data_file(key):
                changed.append(key)
            return result

        return change

    for name in ("delete", "write", "put_if_absent", "open_output"):
        monkeypatch.setattr(LocalStorageBackend, name, crash_at_second(name))
    with pytest.raises(_CrashError):
        rollback_latest_commit(table)
    assert changed, "the rollback changed a first data file before the crash"
    monkeypatch.undo()
    assert _visible(base) in (BEFORE, AFTER), "the commit, or nothing of it"


@pytest.mark.s3
def test_rollback_failing_on_s3_after_a_first_file_is_not_visible_half_done(
    endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    uri = f"s3://{new_bucket(endpoint, monkeypatch)}/t"
    table = _table(uri, "COPY_ON_WRITE", 9, s3_options(endpoint, **FAST_RETRY))
    assert _visible(uri, endpoint) == BEFORE
    seen: list[str] = []

    def second_data_file(key: str) -> bool:
        if not _is_data_file(key.split("/", 1)[1]):
            return False
        seen.append(key)
        return len(set(seen)) > 1

    with s3_faults() as faults:
        down = faults.add("DeleteObject", second_data_file, code="ServiceUnavailable", status=503, times=100)
        with pytest.raises(StorageError):
            rollback_latest_commit(table)
    assert down.injected == FAST_RETRY["max_attempts"], "the second data file's delete failed for good"
    assert _visible(uri, endpoint) in (BEFORE, AFTER), "the commit, or nothing of it"


@pytest.mark.s3
def test_rollback_that_raises_on_s3_has_not_rolled_back(endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The last step of the rollback, deleting the rolled-back commit's own instant files, fails
    for good: either the rollback raises and the commit is still there, or it has happened and
    reports success."""
    uri = f"s3://{new_bucket(endpoint, monkeypatch)}/t"
    table = _table(uri, "COPY_ON_WRITE", 6, s3_options(endpoint, **FAST_RETRY))
    latest = table.timeline.latest_completed_commit()
    assert latest is not None
    inflight = f"{latest.requested_time}.inflight"
    with s3_faults() as faults:
        down = faults.add("DeleteObject", inflight, code="InternalError", status=500, times=100)
        try:
            rollback_latest_commit(table)
            raised = None
        except StorageError as e:
            raised = e
    assert down.injected == FAST_RETRY["max_attempts"], "the delete of the inflight file failed for good"
    rows = _visible(uri, endpoint)
    if raised is None:
        assert rows == AFTER
        return
    # Raised midway: either nothing happened, or the rollback is pending and the commit unpublished.
    pending = HudiTable.open(uri, storage_options=s3_options(endpoint, **FAST_RETRY)).timeline.pending()
    assert rows == BEFORE or any(i.action.value == "rollback" for i in pending), (raised, rows, pending)
    # Running it again finishes that rollback and rolls back nothing else.
    again = HudiTable.open(uri, storage_options=s3_options(endpoint, **FAST_RETRY))
    rollback_latest_commit(again)
    assert _visible(uri, endpoint) == AFTER
    assert again.reload().timeline.pending() == []
