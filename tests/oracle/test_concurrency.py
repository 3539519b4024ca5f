"""Apache Hudi as the oracle for concurrent writers: one writer of each engine on one table, under
optimistic concurrency control with one lock both take.

The shared lock is Apache Hudi's ``FileSystemBasedLockProvider`` (``.hoodie/lock``; ours: the
``filesystem`` plugin, which its class name resolves to): the only lock provider in Apache Hudi's
Spark bundle that works on local disk (its DynamoDB provider lives in ``hudi-aws-bundle`` and its
``StorageBasedLockProvider`` supports only S3, GCS and Azure through that bundle and its siblings;
see ``docs/compatibility.md``). Apache Hudi runs with its metadata table off, because our writers
remove it from any table they change.

Interleavings are made deterministic at two seams of our writer: before it writes its files (its
instant is already requested) and inside its commit lock (before the conflict check). Apache Hudi's
write runs in a thread of this process talking to the oracle; its progress is read from the timeline
and data files on disk.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework import HudiSettings, HudiTable, WriteClient, read_table
from hudi_framework.contracts.lock import LockContext, LockProvider
from hudi_framework.errors import LockAcquireTimeoutError, LockLostError, WriteConflictError
from hudi_framework.testing import DUMMY_AWS_ENV, moto_server
from hudi_framework.testing.memory_storage import MemoryStorageBackend
from hudi_framework.write import client as client_module
from hudi_framework.write import transaction as transaction_module
from hudi_framework.write.conflicts import check_write_conflicts
from hudi_framework.write.pipeline import WriteResult
from hudi_framework.write.target_task import write_target
from hudi_lock_dynamodb.options import DynamoDBLockOptions
from hudi_lock_dynamodb.provider import DynamoDBLockFactory
from hudi_lock_filesystem.options import FileSystemLockOptions
from hudi_lock_filesystem.provider import FileSystemLockFactory
from hudi_storage_local import LocalStorageProvider
from tests.oracle.aws_lock_client import AwsLockClient
from tests.oracle.client import ApacheHudi, ApacheHudiError
from tests.oracle.compare import Tally, compare_reads
from tests.oracle.provision import OracleUnavailableError, provision_aws_lock_client
from tests.oracle.sequence import DATA_COLUMNS, KEY, apache_hudi_options, trip_rows

pytestmark = pytest.mark.oracle

HUDI_LOCK = "org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider"
WAIT_S = 120.0
#: Keys k000..k011: k000, k003, k006, k009 are in partition sf; k001, k004, k007, k010 in ny.
SEEDED = range(12)
SF = range(0, 12, 3)
NY = range(1, 12, 3)


def _hudi_options(name: str, **extra: str) -> dict[str, str]:
    return {
        **apache_hudi_options(name, "COPY_ON_WRITE", 9),
        "hoodie.write.concurrency.mode": "optimistic_concurrency_control",
        "hoodie.write.lock.provider": HUDI_LOCK,
        "hoodie.cleaner.policy.failed.writes": "LAZY",
        "hoodie.metadata.enable": "false",
        # A writer that finds the lock taken retries for up to 40 x 0.5 s.
        "hoodie.write.lock.client.num_retries": "40",
        "hoodie.write.lock.client.wait_time_ms_between_retry": "500",
        "hoodie.write.lock.wait_time_ms": "500",
        **extra,
    }


def _our_settings(**extra: str) -> HudiSettings:
    return HudiSettings.from_hoodie_options(
        {
            "hoodie.write.concurrency.mode": "optimistic_concurrency_control",
            "hoodie.write.lock.provider": HUDI_LOCK,
            "hoodie.cleaner.policy.failed.writes": "LAZY",
            "hoodie.write.lock.wait_time_ms": "1000",
            "hoodie.write.lock.num_retries": "10",
            "hoodie.write.lock.wait_time_ms_between_retry": "200",
            "hoodie.write.lock.max_wait_time_ms_between_retry": "500",
            **extra,
        }
    )


def _seed(apache_hudi: ApacheHudi, tally: Tally, tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    tally.tables.add(str(path))
    apache_hudi.write(path, trip_rows(SEEDED, ts=1), _hudi_options(name), "insert")
    return path


def _ts_by_key(path: Path) -> dict[str, int]:
    rows = read_table(HudiTable.open(str(path)))
    return dict(zip(rows["id"].to_pylist(), rows["ts"].to_pylist(), strict=True))


def _expected(**ts_by_keys: tuple[range, int]) -> dict[str, int]:
    expected = {f"k{i:03d}": 1 for i in SEEDED}
    for keys, ts in ts_by_keys.values():
        expected.update({f"k{i:03d}": ts for i in keys})
    return expected


def _compare(apache_hudi: ApacheHudi, tally: Tally, path: Path, label: str) -> None:
    compare_reads(
        tally, label, read_table(HudiTable.open(str(path))), apache_hudi.read(path), key=KEY, data_columns=DATA_COLUMNS
    )


def _completed_instants(path: Path) -> set[str]:
    return {i.requested_time for i in HudiTable.open(str(path)).timeline.commits_timeline()}


def _wait_for(condition: Callable[[], bool], what: str, timeout_s: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _requested_by_apache_hudi(path: Path, known: set[str]) -> str | None:
    """The instant time of a write Apache Hudi has requested and not completed, if any."""
    names = [p.name for p in (path / ".hoodie" / "timeline").glob("*.commit.requested")]
    pending = sorted({n.split(".", 1)[0] for n in names} - known)
    return pending[-1] if pending else None


class _Gate:
    """Holds one of our writer's threads at a seam until the test opens it."""

    def __init__(self) -> None:
        self.reached = threading.Event()
        self.open = threading.Event()

    def wrap(self, target: Callable[..., Any]) -> Callable[..., Any]:
        def gated(*args: Any, **kwargs: Any) -> Any:
            self.reached.set()
            if not self.open.wait(WAIT_S):
                raise TimeoutError("the test never opened the gate")
            return target(*args, **kwargs)

        return gated


@contextmanager
def _background(fn: Callable[[], Any]) -> Iterator[Future[Any]]:
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="occ-writer") as pool:
        yield pool.submit(fn)


def _outcome(future: Future[Any]) -> Any:
    try:
        return future.result(timeout=WAIT_S)
    except Exception as exc:  # the test inspects what the writer got
        return exc


def _ours_paused_before_its_files(
    monkeypatch: pytest.MonkeyPatch, path: Path, ours_rows: pa.Table, apache_hudi_writes: Callable[[], None]
) -> Any:
    """Our upsert requests its instant and stops before writing files; Apache Hudi writes to the end;
    then ours goes on. Returns what our upsert returned or raised."""
    gate = _Gate()
    monkeypatch.setattr(client_module, "write_target", gate.wrap(write_target))
    ours = WriteClient(HudiTable.open(str(path)), _our_settings())
    with _background(lambda: ours.upsert(ours_rows)) as future:
        assert gate.reached.wait(WAIT_S), "our writer never reached its file writes"
        apache_hudi_writes()
        gate.open.set()
        return _outcome(future)


def _ours_holding_the_lock(
    monkeypatch: pytest.MonkeyPatch,
    path: Path,
    ours_rows: pa.Table,
    apache_hudi_writes: Callable[[], None],
    while_held: Callable[[str, Future[Any]], None],
) -> tuple[Any, Any]:
    """Apache Hudi's write starts; once its instant is requested our upsert starts and stops inside its
    commit lock (before its conflict check) while ``while_held(Apache Hudi's instant, its write)``
    runs; then ours goes on. Returns what our upsert and Apache Hudi's write returned or raised."""
    before = _completed_instants(path)
    gate = _Gate()
    monkeypatch.setattr(transaction_module, "check_write_conflicts", gate.wrap(check_write_conflicts))
    with _background(apache_hudi_writes) as theirs:
        _wait_for(lambda: _requested_by_apache_hudi(path, before) is not None, "Apache Hudi's requested instant")
        hudi_instant = _requested_by_apache_hudi(path, before)
        assert hudi_instant is not None
        ours = WriteClient(HudiTable.open(str(path)), _our_settings())
        with _background(lambda: ours.upsert(ours_rows)) as mine:
            assert gate.reached.wait(WAIT_S), "our writer never took the lock"
            while_held(hudi_instant, theirs)
            gate.open.set()
            return _outcome(mine), _outcome(theirs)


def test_ours_commits_second_and_fails_with_a_write_conflict(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ours plans and requests its instant, Apache Hudi commits an update of the same file group,
    then ours commits: our conflict check (under the shared lock) refuses it."""
    path = _seed(apache_hudi, oracle_tally, tmp_path, "ours_second")
    before = _completed_instants(path)
    lost = _ours_paused_before_its_files(
        monkeypatch, path, trip_rows(SF, ts=2),
        lambda: apache_hudi.write(path, trip_rows(SF, ts=3), _hudi_options("ours_second"), "upsert"),
    )  # fmt: skip
    assert isinstance(lost, WriteConflictError), lost
    (theirs,) = _completed_instants(path) - before
    assert lost.other_instant == theirs
    assert len(lost.file_group_ids) == 1
    assert lost.file_group_ids[0].startswith("sf/")
    assert lost.instant not in _completed_instants(path)
    assert not list((path / "sf").glob(f"*_{lost.instant}.parquet")), "the loser's files are deleted"
    assert not (path / ".hoodie" / "lock").exists(), "the lock is released"
    assert _ts_by_key(path) == _expected(theirs=(SF, 3))
    _compare(apache_hudi, oracle_tally, path, "Apache Hudi won, ours lost the conflict")


@pytest.mark.oracle_full
def test_apache_hudi_commits_second_and_fails_with_a_write_conflict(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Apache Hudi requests its instant and writes its files; ours, started after, holds the shared
    lock while Apache Hudi reaches its commit (so Apache Hudi waits), commits and releases: Apache
    Hudi's conflict check then refuses its write."""
    path = _seed(apache_hudi, oracle_tally, tmp_path, "theirs_second")
    before = _completed_instants(path)

    def apache_hudi_waits(hudi_instant: str, _: Future[Any]) -> None:
        assert (path / ".hoodie" / "lock").exists()
        # Apache Hudi has written its new base file; it now waits for the lock ours holds.
        _wait_for(lambda: bool(list((path / "sf").glob(f"*_{hudi_instant}.parquet"))), "Apache Hudi's files")
        time.sleep(3)
        assert hudi_instant not in _completed_instants(path), "Apache Hudi committed while ours held the lock"

    won, lost = _ours_holding_the_lock(
        monkeypatch, path, trip_rows(SF, ts=2),
        lambda: apache_hudi.write(path, trip_rows(SF, ts=3), _hudi_options("theirs_second"), "upsert"),
        apache_hudi_waits,
    )  # fmt: skip
    assert isinstance(won, WriteResult), won
    assert isinstance(lost, ApacheHudiError), lost
    assert "HoodieWriteConflictException" in f"{lost.java_class} {lost.message}", lost
    assert _completed_instants(path) - before == {won.instant.requested_time}
    assert _ts_by_key(path) == _expected(ours=(SF, 2))
    _compare(apache_hudi, oracle_tally, path, "ours won, Apache Hudi lost the conflict")


@pytest.mark.oracle_full
def test_non_overlapping_writes_of_both_engines_both_commit(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same interleaving as the conflict case, on different file groups: no conflict."""
    path = _seed(apache_hudi, oracle_tally, tmp_path, "disjoint")
    before = _completed_instants(path)
    won = _ours_paused_before_its_files(
        monkeypatch, path, trip_rows(SF, ts=2),
        lambda: apache_hudi.write(path, trip_rows(NY, ts=3), _hudi_options("disjoint"), "upsert"),
    )  # fmt: skip
    assert isinstance(won, WriteResult), won
    assert len(_completed_instants(path) - before) == 2
    assert _ts_by_key(path) == _expected(ours=(SF, 2), theirs=(NY, 3))
    _compare(apache_hudi, oracle_tally, path, "disjoint writes of both engines")


def _our_lock(path: Path, owner: str) -> LockProvider:
    storage = LocalStorageProvider().open(str(path))
    factory = FileSystemLockFactory(FileSystemLockOptions(poll_interval_secs=0.1))
    return factory.open(LockContext(base_path=storage.root_uri, table_name=path.name, storage=storage, owner=owner))


def _hudi_lock(apache_hudi: ApacheHudi, path: Path, action: str, timeout_ms: int = 0) -> bool:
    options = {"hoodie.base.path": str(path), "hoodie.write.lock.filesystem.expire": "0"}
    answer = apache_hudi.call(
        {"op": "lock", "provider": HUDI_LOCK, "options": options, "action": action, "timeout_ms": timeout_ms}
    )
    return bool(answer["acquired"])


@pytest.mark.oracle_full
def test_a_lock_held_by_apache_hudi_stops_our_writer(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path
) -> None:
    path = _seed(apache_hudi, oracle_tally, tmp_path, "held_by_hudi")
    before = _completed_instants(path)
    assert _hudi_lock(apache_hudi, path, "try_lock")
    try:
        probe = _our_lock(path, "probe")
        assert not probe.try_lock(0.5)
        assert probe.last_holder() is not None
        ours = WriteClient(HudiTable.open(str(path)), _our_settings(**{"hoodie.write.lock.num_retries": "1"}))
        with pytest.raises(LockAcquireTimeoutError):
            ours.upsert(trip_rows(SF, ts=2))
        assert _completed_instants(path) == before
        assert _ts_by_key(path) == _expected()
    finally:
        _hudi_lock(apache_hudi, path, "unlock")
    assert not (path / ".hoodie" / "lock").exists()
    WriteClient(HudiTable.open(str(path)), _our_settings()).upsert(trip_rows(SF, ts=2))
    assert _ts_by_key(path) == _expected(ours=(SF, 2))
    _compare(apache_hudi, oracle_tally, path, "ours waited for Apache Hudi's lock, then wrote")


@pytest.mark.oracle_full
def test_a_lock_held_by_ours_stops_apache_hudis_writer(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path
) -> None:
    path = _seed(apache_hudi, oracle_tally, tmp_path, "held_by_ours")
    before = _completed_instants(path)
    holder = _our_lock(path, "ours-holder")
    assert holder.try_lock(0)
    try:
        assert not _hudi_lock(apache_hudi, path, "try_lock", timeout_ms=500)
        retries = {
            "hoodie.write.lock.client.num_retries": "3",
            "hoodie.write.lock.client.wait_time_ms_between_retry": "200",
        }
        options = _hudi_options("held_by_ours", **retries)
        with pytest.raises(ApacheHudiError) as refused:
            apache_hudi.write(path, trip_rows(SF, ts=3), options, "upsert")
        assert "HoodieLockException" in f"{refused.value.java_class} {refused.value.message}", refused.value
        assert _completed_instants(path) == before
        assert _ts_by_key(path) == _expected()
        assert holder.is_held(), "Apache Hudi's failed writer removed the lock ours holds"
    finally:
        holder.unlock()
    _compare(apache_hudi, oracle_tally, path, "Apache Hudi was refused the lock ours held")
    apache_hudi.write(path, trip_rows(SF, ts=3), _hudi_options("held_by_ours"), "upsert")
    assert _ts_by_key(path) == _expected(theirs=(SF, 3))
    _compare(apache_hudi, oracle_tally, path, "Apache Hudi wrote once ours released the lock")


@pytest.mark.oracle_full
def test_apache_hudi_deleting_the_lock_ours_holds_stops_our_commit(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Apache Hudi's ``FileSystemBasedLockProvider`` deletes ``.hoodie/lock`` whoever holds it when its
    writer gives up waiting for the lock (``docs/compatibility.md``). Ours, holding the lock at that
    moment, must notice before it commits: it fails with ``LockLostError`` and leaves nothing."""
    path = _seed(apache_hudi, oracle_tally, tmp_path, "lock_deleted")
    before = _completed_instants(path)
    sf_files = {p.name for p in (path / "sf").glob("*.parquet")}
    retries = {
        "hoodie.write.lock.client.num_retries": "4",
        "hoodie.write.lock.client.wait_time_ms_between_retry": "250",
    }

    def apache_hudi_gives_up(_: str, theirs: Future[Any]) -> None:
        refused = _outcome(theirs)
        assert isinstance(refused, ApacheHudiError), refused
        assert "HoodieLockException" in f"{refused.java_class} {refused.message}", refused
        # Apache Hudi's behaviour, not ours: its failed writer removed the lock file ours holds.
        assert not (path / ".hoodie" / "lock").exists()

    lost, _ = _ours_holding_the_lock(
        monkeypatch, path, trip_rows(SF, ts=2),
        lambda: apache_hudi.write(path, trip_rows(NY, ts=3), _hudi_options("lock_deleted", **retries), "upsert"),
        apache_hudi_gives_up,
    )  # fmt: skip
    assert isinstance(lost, LockLostError), lost
    assert _completed_instants(path) == before
    assert {p.name for p in (path / "sf").glob("*.parquet")} == sf_files, "our files are deleted"
    assert _ts_by_key(path) == _expected()
    _compare(apache_hudi, oracle_tally, path, "neither write applied after Apache Hudi deleted the lock")


@pytest.mark.oracle_full
def test_our_dynamodb_lock_and_the_aws_lock_client_exclude_each_other(monkeypatch: pytest.MonkeyPatch) -> None:
    """Apache Hudi's DynamoDB lock provider is not available here (``docs/compatibility.md``); the AWS
    DynamoDB lock client it drives is: on one moto DynamoDB server (127.0.0.1) each side's held lock
    stops the other, each side's release frees it, and neither fails on the other's item."""
    try:
        jars = provision_aws_lock_client()
    except OracleUnavailableError as exc:
        pytest.skip(f"the AWS DynamoDB lock client is unavailable offline (nothing cached): {exc}")
    for name, value in DUMMY_AWS_ENV.items():
        monkeypatch.setenv(name, value)
    with moto_server() as endpoint:
        assert endpoint.startswith("http://127.0.0.1:")
        options = DynamoDBLockOptions(
            table=f"hudi-locks-{uuid.uuid4().hex[:8]}", region="us-east-1", endpoint_url=endpoint,
            partition_key="trips", lease_duration_secs=3, heartbeat_interval_secs=1, margin_secs=0.2,
            poll_interval_secs=0.1,
        )  # fmt: skip
        context = LockContext("memory://t", "trips", MemoryStorageBackend("memory://t"), "ours")
        ours = DynamoDBLockFactory(options).open(context)
        assert ours.try_lock(1)  # creates the lock table
        ours.unlock()
        theirs = AwsLockClient(jars, endpoint, options.table, "trips", lease_ms=3000)
        try:
            assert theirs.acquire(0)[0] == "acquired"
            started = time.monotonic()
            # Longer than two of its leases: its heartbeats keep the lock alive, ours must not take it over.
            assert not ours.try_lock(8), "ours took over a lock the AWS lock client holds"
            assert time.monotonic() - started >= 8
            assert ours.last_holder() is not None
            assert theirs.release()
            assert ours.try_lock(1), "the AWS lock client's release (a delete) frees the lock"
            # The client waits its additional time plus the lease of the item it found: ours heartbeats.
            outcome, took_ms = theirs.acquire(2000)
            assert outcome == "not-granted", outcome
            assert took_ms >= 2000 + 3000
            ours.unlock()
            assert theirs.acquire(1000)[0] == "acquired", "ours' release (a delete) frees the lock"
            assert not ours.try_lock(0.5)
            assert theirs.release()
        finally:
            theirs.close()
            ours.unlock()
