"""Completing an instant when storage does not say whether the completed file was stored."""

from __future__ import annotations

import pyarrow as pa
import pytest

from hudi_framework.errors import CommitStateUnknownError, IllegalTransitionError, PostCommitWarning, StorageError
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.testing import MemoryStorageBackend
from hudi_framework.timeline.instant import Action, Instant, State
from hudi_framework.timeline.transitions import TimelineWriter
from hudi_framework.vocabulary import WriteOperation
from hudi_framework.write.client import WriteClient
from hudi_framework.write.transaction import WriteTransaction


class _Flaky(MemoryStorageBackend):
    """Fails the next ``put_failures`` completed-instant creates (after storing when ``lands``), and
    the next ``read_failures`` reads of them."""

    def __init__(self) -> None:
        super().__init__()
        self.put_failures = 0
        self.read_failures = 0
        self.lands = True
        self.puts = 0

    @staticmethod
    def _completed(key: str) -> bool:
        return key.endswith(".commit")

    def put_if_absent(self, key: str, data: bytes) -> str:
        if self._completed(key):
            self.puts += 1
            if self.put_failures:
                self.put_failures -= 1
                if self.lands:
                    super().put_if_absent(key, data)
                raise StorageError(f"injected: response of PUT {key} lost")
        return super().put_if_absent(key, data)

    def read(self, key: str) -> bytes:
        if self._completed(key) and self.read_failures:
            self.read_failures -= 1
            raise StorageError(f"injected: GET {key} failed")
        return super().read(key)


def _inflight(storage: _Flaky) -> tuple[TimelineWriter, Instant]:
    writer = TimelineWriter(storage, layout_version=2)
    return writer, writer.transition_to_inflight(writer.create_requested(Action.COMMIT))


def test_lost_response_resolved_by_reading_back() -> None:
    storage = _Flaky()
    writer, inflight = _inflight(storage)
    storage.put_failures = 1
    done = writer.complete(inflight)
    assert done.state is State.COMPLETED
    assert storage.puts == 1, "read back, not written twice"
    assert [i.state for i in writer.timeline().instants] == [State.COMPLETED]


def test_nothing_landed_so_it_is_created_again() -> None:
    storage = _Flaky()
    writer, inflight = _inflight(storage)
    storage.put_failures, storage.lands = 1, False
    writer.complete(inflight)
    assert storage.puts == 2
    assert writer.timeline().instants[0].is_completed


def test_other_bytes_mean_a_concurrent_completion() -> None:
    storage = _Flaky()
    writer, inflight = _inflight(storage)
    storage.put_failures, storage.lands = 1, False
    real = storage.put_if_absent

    def rival_first(key: str, data: bytes) -> str:
        if key.endswith(".commit") and storage.put_failures:
            MemoryStorageBackend.put_if_absent(storage, key, b"someone else's")
        return real(key, data)

    storage.put_if_absent = rival_first  # type: ignore[method-assign]
    with pytest.raises(IllegalTransitionError, match="completed by another writer"):
        writer.complete(inflight, b"ours")


def test_undecidable_raises_commit_state_unknown() -> None:
    storage = _Flaky()
    writer, inflight = _inflight(storage)
    storage.put_failures, storage.read_failures = 1, 100
    with pytest.raises(CommitStateUnknownError, match="cannot tell whether"):
        writer.complete(inflight)


def test_abort_after_an_unknown_commit_state_keeps_the_write(monkeypatch: pytest.MonkeyPatch) -> None:
    """The write may be committed: the pipeline's abort must not roll it back."""
    storage = _Flaky()
    config = new_table_config("t", version=8, record_key_fields=["id"], partition_fields=[], ordering_fields=["ts"])
    client = WriteClient(HudiTable.create(storage.root_uri, config, storage=storage))
    storage.put_failures, storage.read_failures = 1, 100
    with pytest.raises(CommitStateUnknownError):
        client.insert(pa.table({"id": ["a"], "ts": [1]}))
    storage.read_failures = 0
    timeline = client.table.reload().timeline
    assert [i.state for i in timeline.instants] == [State.COMPLETED], "landed and kept, not rolled back"
    assert timeline.by_action(Action.ROLLBACK) == []
    assert read_table(client.table.reload()).num_rows == 1


def test_abort_of_a_completed_write_is_a_no_op() -> None:
    storage = _Flaky()
    config = new_table_config("t", version=8, record_key_fields=["id"], partition_fields=[], ordering_fields=["ts"])
    table = HudiTable.create(storage.root_uri, config, storage=storage)
    WriteClient(table).insert(pa.table({"id": ["a"], "ts": [1]}))
    done = table.reload().timeline.instants[0]
    txn = WriteTransaction(storage, table.config, WriteOperation.INSERT, instant=done)
    assert txn.abort() == []
    assert list(table.reload().timeline.instants) == [done]


def test_cleanup_failure_after_the_commit_is_not_a_failed_write() -> None:
    """Markers that cannot be deleted after the completed instant: the write still succeeded."""
    storage = _Flaky()
    config = new_table_config("t", version=8, record_key_fields=["id"], partition_fields=[], ordering_fields=["ts"])
    table = HudiTable.create(storage.root_uri, config, storage=storage)
    real_delete = storage.delete

    def failing_delete(key: str, *, missing_ok: bool = True) -> None:
        if key.startswith(".hoodie/.temp/"):
            raise StorageError(f"injected: DELETE {key} failed")
        real_delete(key, missing_ok=missing_ok)

    storage.delete = failing_delete  # type: ignore[method-assign]
    with pytest.warns(PostCommitWarning, match="markers"):
        result = WriteClient(table).insert(pa.table({"id": ["a"], "ts": [1]}))
    assert result.instant.is_completed
    assert [f.step for f in result.post_commit_failures] == ["markers"], "reported, not raised"
    timeline = table.reload().timeline
    assert [i.state for i in timeline.instants] == [State.COMPLETED]
    assert read_table(table.reload()).num_rows == 1
