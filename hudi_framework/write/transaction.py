"""One write as one instant: start it, commit it with its write stats, or undo it completely.

Order on storage (format section 10.1): requested file, inflight file, markers and data files,
partition metadata files, then the completed file last. ``commit`` first deletes marked data files
that no write stat reports (files of failed or duplicate task attempts). ``abort`` rolls the write back
(:mod:`~hudi_framework.write.rollback`): it deletes every data file the markers name and the instant's
files, so a failed write leaves the table as before (merge-on-read v6: rollback blocks instead).

With a :class:`~hudi_framework.write.concurrency.WriteConcurrency`, ``start`` first rolls back other
writers' failed writes (EAGER: every unfinished write; LAZY: those whose heartbeat expired) and then
keeps a heartbeat for its own instant until ``commit``/``abort``; under optimistic concurrency
control ``commit`` checks for conflicting writes and completes the instant while holding the table
lock, and a write that lost is rolled back and raises :class:`~hudi_framework.errors.WriteConflictError`.

Once the completed instant is written the write has succeeded: what ``commit`` does afterwards
(releasing the lock, dropping the markers and the heartbeat) is recorded in
:attr:`WriteTransaction.post_commit_failures` when it fails, never raised, and ``abort`` never
undoes a completed instant.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.errors import (
    CommitStateUnknownError,
    CommitVetoedError,
    IllegalTransitionError,
    InstantNotFoundError,
    SchemaEvolutionConflictError,
    StorageError,
    WriteConflictError,
)
from hudi_framework.layout.partition_metadata import write_partition_metadata
from hudi_framework.lock import table_lock
from hudi_framework.metadata_writer.options import MetadataWriteOptions
from hudi_framework.metadata_writer.writer import metadata_sync
from hudi_framework.table.properties import load_properties
from hudi_framework.table.table_config import TableConfig
from hudi_framework.timeline.commit_hooks import CommitHooks
from hudi_framework.timeline.instant import Action, Instant, State
from hudi_framework.timeline.metadata import CommitMetadata, ReplaceCommitMetadata, WriteStat
from hudi_framework.timeline.timeline import Timeline
from hudi_framework.timeline.transitions import TimelineWriter
from hudi_framework.vocabulary import TimelineTimezone, WriteOperation, operation_type
from hudi_framework.write.concurrency import WriteConcurrency
from hudi_framework.write.conflicts import WriteBaseline, check_write_conflicts, file_groups_of_write
from hudi_framework.write.failed_writes import rollback_failed_writes
from hudi_framework.write.heartbeat import Heartbeat, heartbeat_key
from hudi_framework.write.incomplete import discard_incomplete_writes
from hudi_framework.write.markers import delete_markers, marked_data_files
from hudi_framework.write.metadata_upkeep import metadata_table_upkeep
from hudi_framework.write.operation import action_of
from hudi_framework.write.post_commit import PostCommitFailure, PostCommitSteps
from hudi_framework.write.rollback import RollbackResult, rollback_failed_write
from hudi_framework.write.schema_conflicts import RecordedSchema, latest_recorded_schema, resolve_commit_schema


def timeline_writer(
    storage: StorageBackend, config: TableConfig, *, hooks: CommitHooks | None = None
) -> TimelineWriter:
    """A timeline writer for the table's layout and time zone, calling ``hooks`` (the table's
    :attr:`~hudi_framework.runtime.table.HudiTable.commit_hooks`) around completions and keeping the
    metadata table, when the table has one, in step with every instant it completes."""
    return TimelineWriter(
        storage,
        layout_version=config.timeline_layout_version,
        timeline_path=config.timeline_path,
        timezone=TimelineTimezone(config.timeline_timezone),
        hooks=hooks,
        sync=metadata_sync(storage, config),
    )


@dataclass
class WriteTransaction:
    """The timeline side of one write operation.

    Attributes:
        storage: Backend rooted at the table base path.
        config: The table config.
        operation: The write operation.
        instant: The inflight instant once :meth:`start` ran.
        concurrency: Failed-write policy, heartbeat and lock; None: a bare single writer (no
            heartbeat, no rollback of other instants), as a write resumed from another process.
        baseline: The timeline the write planned against (conflict checks); by default the
            instants completed before :meth:`start`.
        schema_at_start: Under optimistic concurrency, the table's recorded schema when the write
            planned: the commit's schema is resolved against a concurrent evolution
            (:mod:`~hudi_framework.write.schema_conflicts`).
        hooks: The plugins' commit hooks (``HudiTable.commit_hooks``): ``hudi_pre_commit`` may
            veto the commit (it is then rolled back as any failed write), ``hudi_commit_completed``
            runs after it (a failure there is a post-commit failure). None: no hooks.
        metadata: The metadata-table options: with ``enable``, ``start`` builds the metadata table
            when the table has none (its enabled partitions; compacts it when due) and every
            completion updates it; without, ``start`` deletes it.
    """

    storage: StorageBackend
    config: TableConfig
    operation: WriteOperation
    instant: Instant | None = None
    concurrency: WriteConcurrency | None = None
    baseline: WriteBaseline | None = None
    schema_at_start: RecordedSchema | None = None
    hooks: CommitHooks | None = None
    metadata: MetadataWriteOptions = field(default_factory=MetadataWriteOptions)
    _writer: TimelineWriter | None = field(default=None, repr=False)
    _heartbeat: Heartbeat | None = field(default=None, repr=False)
    _failed_writes_done: bool = field(default=False, repr=False)
    _commit_state_unknown: bool = field(default=False, repr=False)
    _post_commit: PostCommitSteps | None = field(default=None, repr=False)

    @property
    def post_commit_failures(self) -> tuple[PostCommitFailure, ...]:
        """Steps after the completed instant that failed in :meth:`commit` (the write is committed)."""
        return tuple(self._post_commit.failures) if self._post_commit is not None else ()

    @property
    def writer(self) -> TimelineWriter:
        """The timeline writer (created on first use)."""
        if self._writer is None:
            self._writer = timeline_writer(self.storage, self.config, hooks=self.hooks)
        return self._writer

    @property
    def action(self) -> Action:
        """The timeline action this operation produces."""
        return action_of(self.operation, self.config.table_type)

    @property
    def instant_time(self) -> str:
        """The requested time of the started instant."""
        if self.instant is None:
            raise RuntimeError("the write has not started")
        return self.instant.requested_time

    def start(self) -> Instant:
        """Create the requested and inflight instant files (a new, strictly later instant time).

        The metadata table is built first (``metadata.enable``) or deleted (it would not list what
        this write adds).
        """
        changed = metadata_table_upkeep(
            self.storage,
            self.config,
            self.writer.timeline,
            self.metadata,
        )
        if changed:
            self.config = TableConfig.from_properties(load_properties(self.storage))
            self._writer = None  # the new writer keeps the metadata table in step
        cc = self.concurrency
        if not self._failed_writes_done:
            self.rollback_failed_writes()
        if cc is not None and cc.optimistic and self.baseline is None:
            self.baseline = WriteBaseline.of(self.writer.timeline())
        requested = self.writer.create_requested(self.action)
        if cc is not None:
            self._heartbeat = Heartbeat(self.storage, requested.requested_time, cc.heartbeat).start()
        # Java writes a skeleton commit metadata into the inflight file; an empty file is accepted
        # by every reader and tells no lies about counts we do not know yet.
        try:
            self.instant = self.writer.transition_to_inflight(requested)
        except BaseException:
            self._stop_heartbeat(requested.requested_time)
            raise
        return self.instant

    def rollback_failed_writes(self) -> list[RollbackResult]:
        """Roll back other writers' failed writes by the policy in force (once; ``start`` runs it too).

        Returns:
            One result per instant rolled back (none without a :class:`WriteConcurrency`).
        """
        self._failed_writes_done = True
        cc = self.concurrency
        if cc is None:
            return []
        return rollback_failed_writes(
            self.storage, self.config, self.writer, cc.failed_writes, cc.heartbeat, exclude=self._own_times()
        )

    def _own_times(self) -> tuple[str, ...]:
        return () if self.instant is None else (self.instant.requested_time,)

    def _stop_heartbeat(self, instant: str) -> None:
        if self._heartbeat is not None:
            self._heartbeat.stop()
            self._heartbeat = None
        elif self.concurrency is not None:
            self.storage.delete(heartbeat_key(instant), missing_ok=True)

    def commit(
        self,
        stats: Iterable[WriteStat],
        *,
        schema_json: str | None,
        replaced: Mapping[str, Iterable[str]] | None = None,
        extra_metadata: Mapping[str, str] | None = None,
    ) -> Instant:
        """Write partition metadata for every written partition and complete the instant.

        Args:
            stats: One write stat per data file written.
            schema_json: The writer's Avro schema without meta fields (``extraMetadata.schema``).
            replaced: Partition -> file ids replaced (replacecommits).
            extra_metadata: More ``extraMetadata`` entries.

        Raises:
            CommitVetoedError: A plugin's ``hudi_pre_commit`` vetoed the commit; the instant is not
                completed (:meth:`abort` rolls it back).
        """
        instant = self.instant
        if instant is None or instant.state is not State.INFLIGHT:
            raise RuntimeError("commit() needs a started write")
        stats = list(stats)
        self.remove_unreported_files(stats)
        by_partition: dict[str, list[WriteStat]] = {}
        for stat in stats:
            by_partition.setdefault(stat.partition_path or "", []).append(stat)
        for partition in sorted(by_partition):
            write_partition_metadata(self.storage, partition, instant.requested_time)
        extra = dict(extra_metadata or {})
        if schema_json:
            extra["schema"] = schema_json
        metadata: CommitMetadata
        if self.action is Action.REPLACE_COMMIT:
            metadata = ReplaceCommitMetadata(
                partition_to_write_stats=by_partition,
                compacted=False,
                extra_metadata=extra,
                operation_type=operation_type(self.operation).value,
                partition_to_replace_file_ids={p: sorted(ids) for p, ids in (replaced or {}).items()},
            )
        else:
            metadata = CommitMetadata(
                partition_to_write_stats=by_partition,
                compacted=False,
                extra_metadata=extra,
                operation_type=operation_type(self.operation).value,
            )
        cc = self.concurrency
        steps = self._post_commit = PostCommitSteps(instant.requested_time)
        try:
            if cc is not None and cc.locks:
                done = self._complete_under_lock(cc, instant, metadata, file_groups_of_write(stats, replaced), steps)
            else:
                done = self.writer.complete(instant, metadata)
        except CommitStateUnknownError:
            self._commit_state_unknown = True  # maybe committed: abort() must not undo it
            raise
        self.instant = done  # before the cleanup: a failure there must not make abort() undo a commit
        # Committed: the write succeeded even if a cleanup or an observer fails; the next writer drops leftovers.
        steps.run("markers", lambda: delete_markers(self.storage, instant.requested_time))
        steps.run("heartbeat", lambda: self._stop_heartbeat(instant.requested_time))
        # Observers last, the lock released: a slow catalog sync holds no other writer up.
        self.writer.notify_completed(instant, done, metadata, on_failure=steps.record)
        return done

    def _complete_under_lock(
        self,
        cc: WriteConcurrency,
        instant: Instant,
        metadata: CommitMetadata,
        groups: set[tuple[str, str]],
        steps: PostCommitSteps,
    ) -> Instant:
        """Completion while holding the table lock (fenced); under optimistic concurrency control
        after the conflict check (serialized single-writer commits have no concurrent writer)."""
        if cc.open_lock is None:
            raise RuntimeError("a locked commit needs a lock provider")
        done: Instant | None = None
        try:
            with table_lock(cc.open_lock(), table=cc.table, policy=cc.lock_policy) as held:
                if cc.optimistic:
                    try:
                        timeline = self.writer.timeline()
                        check_write_conflicts(timeline, instant.requested_time, groups, self.baseline)
                        self._resolve_schema(timeline, instant, metadata)
                    except (WriteConflictError, SchemaEvolutionConflictError):
                        self.abort()  # the loser's files go before the lock is released
                        raise
                held.ensure_held()
                try:
                    done = self.writer.complete(instant, metadata)
                except CommitVetoedError:
                    self.abort()  # as a conflict's loser: its files go before the lock is released
                    raise
        except Exception as e:
            if done is None:
                raise
            steps.record("lock release", e)  # committed while holding the lock: releasing it is follow-up work
        assert done is not None
        return done

    def _resolve_schema(self, timeline: Timeline, instant: Instant, metadata: CommitMetadata) -> None:
        """Record the schema a concurrent evolution leaves (raises if both writes evolved it)."""
        extra = metadata.extra_metadata
        if self.schema_at_start is None or extra is None or not extra.get("schema"):
            return
        now = latest_recorded_schema(timeline)
        extra["schema"] = resolve_commit_schema(instant.requested_time, extra["schema"], self.schema_at_start, now)

    def remove_unreported_files(self, stats: Iterable[WriteStat]) -> list[str]:
        """Delete every marked data file that no write stat reports (before completing the instant).

        A task attempt that wrote files but whose result never reached the driver (a failed or
        duplicate Spark attempt) leaves files that only its markers name; a reader must never see
        them next to the reported file of the same file group.

        Returns:
            The data file keys deleted.
        """
        instant = self.instant
        if instant is None:
            return []
        reported = {s.path for s in stats if s.path}
        unreported = [k for k in marked_data_files(self.storage, instant.requested_time) if k not in reported]
        deleted = []
        for key in unreported:
            if self.storage.exists(key):
                self.storage.delete(key)
                deleted.append(key)
        if unreported:  # a dead attempt may also have left a file half-written
            discard_incomplete_writes(
                self.storage, {k.rpartition("/")[0] for k in unreported}, set(unreported).__contains__
            )
        return deleted

    def abort(self) -> list[str]:
        """Undo a write that did not complete: its data files (by markers) and its instant go.

        Merge-on-read v6 keeps the write's log files and rolls them back with COMMAND blocks
        instead (:func:`~hudi_framework.write.rollback.rollback_failed_write`). A write that
        completed, or whose completion is unknown, is left alone: undoing a committed write loses
        data; if it did not land, the next writer rolls it back as a failed write.

        Returns:
            The data file keys deleted.
        """
        instant = self.instant
        if instant is None:
            return []
        if instant.state is State.COMPLETED or self._commit_state_unknown:
            # Stopping the heartbeat lets others roll it back if it did not land; if storage still
            # fails, the heartbeat expires on its own.
            with contextlib.suppress(StorageError):
                self._stop_heartbeat(instant.requested_time)
            return []
        # The heartbeat goes first: a process dying during the rollback then leaves an instant that
        # reads as failed (LAZY judges it by its requested time), never a heartbeat without one.
        self._stop_heartbeat(instant.requested_time)
        try:
            result = rollback_failed_write(self.storage, self.config, self.writer, instant)
        except IllegalTransitionError:
            return []  # the timeline has it completed (its completion landed after all): never undo a commit
        except InstantNotFoundError:
            result = RollbackResult()  # another writer rolled it back already
        self.instant = None
        return list(result.deleted)
