"""Writing the timeline: requested -> inflight -> completed, each file created exactly once.

Every instant file is published with ``put_if_absent`` (an atomic create), so two writers can never
both create one file. Two races remain that a create alone cannot settle, and both are settled the
same way: after creating its file a writer lists the timeline once more, and if it sees a rival
it deletes its own file and backs off.

* Instant times: an instant must be newer than every instant already on the timeline. A rival is
  any other instant with a requested time >= ours (another process, another action, same time).
  If writer A did not see B's file, B's file came after A's listing, so B sees A and backs off;
  if both see each other, both back off. So at most one survives, and survivors appear in time
  order. Generated times are retried with a later time; an explicit time raises.
* Layout-2 completion: ``T_C.<action>`` names differ by ``C``, so the create cannot stop a second
  completion of ``T``; the same listing check does.

Completing writes exactly one file, the completed one, after everything else (layout 1 takes the
completion time from its modification time). When that create fails without saying whether it
landed (the storage's retries ran out after a lost response), the writer reads the file back:
its own bytes mean committed, absence means create again, and if storage cannot tell it raises
:class:`~hudi_framework.errors.CommitStateUnknownError` rather than guess (the caller must then not
roll the write back: it may be committed).
"""

from __future__ import annotations

import logging
import random
import time
import warnings
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Final, Protocol

from hudi_framework.errors import (
    CommitStateUnknownError,
    IllegalTransitionError,
    InstantNotFoundError,
    PostCommitWarning,
    PreconditionFailedError,
    StorageError,
    StorageNotFoundError,
    TimelineError,
)
from hudi_framework.timeline.avro_container import AvroSchemaName, write_container
from hudi_framework.timeline.commit_hooks import OBSERVED_ACTIONS, VETOABLE_ACTIONS, CommitHooks, metadata_view
from hudi_framework.timeline.instant import NO_REQUESTED_STATE, Action, Instant, State
from hudi_framework.timeline.instant_time import InstantTimeGenerator, datetime_to_instant_time, is_valid_instant_time
from hudi_framework.timeline.metadata import CommitMetadata, ReplaceCommitMetadata, encode_commit_metadata
from hudi_framework.timeline.naming import LAYOUT_V1, check_layout, instant_file_name, parse_instant_file_name
from hudi_framework.timeline.timeline import DEFAULT_TIMELINE_PATH, Timeline, timeline_dir
from hudi_framework.vocabulary import TimelineTimezone

if TYPE_CHECKING:
    from hudi_framework.contracts.storage import FileInfo, StorageBackend

_log = logging.getLogger(__name__)


class InstantSync(Protocol):
    """What a :class:`TimelineWriter` keeps in step with its instants (the metadata table)."""

    def before_complete(
        self, instant: Instant, metadata: CommitMetadata | bytes | None, timeline: Timeline | None = None
    ) -> None:
        """Record ``instant`` just before its completed file is created; raising leaves it inflight.
        ``timeline`` is the timeline the writer has just read (``instant`` inflight on it)."""
        ...

    def discard(self, instant_time: str) -> None:
        """Forget what was recorded for an instant undone without a rollback instant (an aborted write)."""
        ...


_ABSENT: Final = "absent"
_DEFAULT_ATTEMPTS: Final = 32
#: Read-back rounds that settle a completed-instant create whose outcome storage did not report.
_RESOLVE_ROUNDS: Final = 3


def empty_requested_replace_metadata() -> bytes:
    """``HoodieRequestedReplaceMetadata`` with every field null, as Java writes for insert_overwrite."""
    record = {"operationType": None, "clusteringPlan": None, "extraMetadata": None, "version": None}
    return write_container(AvroSchemaName.REQUESTED_REPLACE_METADATA, record)


def _default_requested_content(action: Action) -> bytes:
    if action is Action.REPLACE_COMMIT:
        return empty_requested_replace_metadata()
    return b""


class TimelineWriter:
    """Creates and advances instants on one table's timeline.

    One writer per process and table is enough; it is thread-safe as far as its generator is, and
    every check goes to storage, so several writers (and processes) may share a table.
    """

    def __init__(
        self,
        storage: StorageBackend,
        *,
        layout_version: int,
        timeline_path: str = DEFAULT_TIMELINE_PATH,
        timezone: TimelineTimezone = TimelineTimezone.LOCAL,
        generator: InstantTimeGenerator | None = None,
        max_attempts: int = _DEFAULT_ATTEMPTS,
        hooks: CommitHooks | None = None,
        sync: InstantSync | None = None,
    ) -> None:
        """Create a writer.

        Args:
            storage: Backend rooted at the table base path.
            layout_version: 1 (v6) or 2 (v8+).
            timeline_path: ``hoodie.timeline.path`` (layout 2).
            timezone: ``hoodie.table.timeline.timezone``.
            generator: Instant-time source; a new one in ``timezone`` by default.
            max_attempts: How often a generated instant time is retried after losing a race.
            hooks: The commit observers (the plugins' ``hudi_pre_commit`` and
                ``hudi_commit_completed``); none when None.
            sync: Told of each instant after the hooks passed and just before its completed file
                is created, and of writes undone without a rollback instant (the metadata table);
                a failure leaves the instant inflight.
        """
        self._storage = storage
        self._layout = check_layout(layout_version)
        self._timeline_path = timeline_path
        self._timezone = timezone
        self._dir = timeline_dir(layout_version, timeline_path)
        self._generator = generator if generator is not None else InstantTimeGenerator(timezone)
        self._max_attempts = max_attempts
        self._hooks = hooks
        self._sync = sync

    @property
    def sync(self) -> InstantSync | None:
        """What this writer keeps in step with its instants (the metadata table's sync), if anything."""
        return self._sync

    @property
    def layout_version(self) -> int:
        """The timeline layout version (1 or 2)."""
        return self._layout

    @property
    def timeline_directory(self) -> str:
        """Storage key of the directory holding the instant files."""
        return self._dir

    @property
    def generator(self) -> InstantTimeGenerator:
        """The instant-time generator in use."""
        return self._generator

    def timeline(self, files: Iterable[FileInfo] | None = None) -> Timeline:
        """A fresh snapshot of the timeline (from ``files``, a listing of :attr:`timeline_directory`
        the caller made, instead of listing it here)."""
        if files is not None:
            return Timeline(
                self._storage, files, layout_version=self._layout, timeline_path=self._timeline_path,
                timezone=self._timezone,
            )  # fmt: skip
        return Timeline.load(
            self._storage,
            layout_version=self._layout,
            timeline_path=self._timeline_path,
            timezone=self._timezone,
        )

    def _key(self, instant: Instant) -> str:
        return f"{self._dir}/{instant_file_name(instant, self._layout)}"

    # ------------------------------------------------------------------------------- creating
    def create_requested(
        self, action: Action, instant_time: str | None = None, content: bytes | None = None
    ) -> Instant:
        """Create ``<T>.<action>.requested``.

        Args:
            action: The action; savepoints have no requested state (use :meth:`create_inflight`).
            instant_time: The requested time; generated (and retried on collision) when None.
            content: File content; by default empty, or a null ``HoodieRequestedReplaceMetadata``
                for replacecommit. Plans (compaction, clustering, clean...) are the caller's.

        Returns:
            The requested instant.

        Raises:
            IllegalTransitionError: ``instant_time`` is not newer than every requested time (and,
                in layout 2, completion time) on the timeline, already exists, or lost a race;
                or the action has no requested state.
            TimelineError: No unique time could be generated in ``max_attempts`` tries.
        """
        if action in NO_REQUESTED_STATE:
            raise IllegalTransitionError(instant_time or "?", _ABSENT, State.REQUESTED, f"{action} starts inflight")
        data = content if content is not None else _default_requested_content(action)
        return self._create_first(action, State.REQUESTED, instant_time, data)

    def create_inflight(self, action: Action, instant_time: str | None = None, content: bytes | None = None) -> Instant:
        """Create the first file of an action without a requested state (``<T>.savepoint.inflight``).

        Raises:
            IllegalTransitionError: The action has a requested state, or as :meth:`create_requested`.
        """
        if action not in NO_REQUESTED_STATE:
            raise IllegalTransitionError(
                instant_time or "?", _ABSENT, State.INFLIGHT, f"{action} must be requested first"
            )
        return self._create_first(action, State.INFLIGHT, instant_time, content or b"")

    def create_savepoint_inflight(self, instant_time: str, content: bytes = b"") -> Instant:
        """Create ``<T>.savepoint.inflight`` for the completed commit at ``T``.

        A savepoint takes the time of the instant it keeps, which is older than the timeline's
        newest instant, so the newness rule of :meth:`create_inflight` does not apply; the
        file is still created exactly once.

        Raises:
            IllegalTransitionError: A savepoint of ``T`` exists already.
        """
        instant = Instant(instant_time, Action.SAVEPOINT, State.INFLIGHT)
        key = self._key(instant)
        try:
            self._storage.put_if_absent(key, content)
        except PreconditionFailedError:
            raise IllegalTransitionError(instant_time, _ABSENT, State.INFLIGHT, f"{key} already exists") from None
        return instant

    def _create_first(self, action: Action, state: State, instant_time: str | None, data: bytes) -> Instant:
        if instant_time is not None and not is_valid_instant_time(instant_time):
            raise ValueError(f"not an instant time: {instant_time!r}")
        for attempt in range(self._max_attempts):
            last = self._newest_time(self.timeline())
            if instant_time is None:
                t = self._generator.next(after=last)
            elif last is not None and instant_time <= last:
                raise IllegalTransitionError(instant_time, _ABSENT, state, f"not newer than instant {last}")
            else:
                t = instant_time
            instant = Instant(t, action, state)
            key = self._key(instant)
            try:
                self._storage.put_if_absent(key, data)
            except PreconditionFailedError:
                if instant_time is not None:
                    raise IllegalTransitionError(t, _ABSENT, state, f"{key} already exists") from None
                continue
            rival = self._rival(t, own_key=key)
            if rival is None:
                return instant
            self._storage.delete(key)
            if instant_time is not None:
                raise IllegalTransitionError(t, _ABSENT, state, f"concurrent instant {rival} is not older")
            # Both sides may back off at once; jitter keeps them from colliding again in lockstep.
            time.sleep(random.uniform(0, 0.002 * (attempt + 1)))
        raise TimelineError(f"no unique instant time for {action} after {self._max_attempts} attempts")

    def _newest_time(self, timeline: Timeline) -> str | None:
        # Layout 2 also keeps new requested times above every completion time, as Java's single
        # generator does; layout-1 completion times are storage mtimes, from another clock.
        times = [timeline.last_requested_time()]
        if self._layout != LAYOUT_V1:
            times.append(timeline.last_completion_time())
        return max((t for t in times if t is not None), default=None)

    def _rival(self, requested_time: str, *, own_key: str) -> str | None:
        for info in self._storage.list(self._dir):
            # Instant files start with their requested time: older ones need no parsing.
            if info.key == own_key or info.name[: len(requested_time)] < requested_time:
                continue
            parsed = parse_instant_file_name(info.name, self._layout)
            if parsed is not None and parsed.instant.requested_time >= requested_time:
                return info.name
        return None

    # ----------------------------------------------------------------------------- advancing
    def _current(self, instant: Instant) -> tuple[Timeline, Instant]:
        timeline = self.timeline()
        try:
            return timeline, timeline.get(instant.requested_time, instant.action)
        except InstantNotFoundError:
            raise InstantNotFoundError(f"instant {instant} is not on the timeline") from None

    def transition_to_inflight(self, instant: Instant, content: bytes | None = None) -> Instant:
        """Move a requested instant to inflight by creating its inflight file.

        Args:
            instant: The requested instant.
            content: The inflight file's content (empty by default, which Java accepts).

        Raises:
            InstantNotFoundError: The instant is not on the timeline.
            IllegalTransitionError: The instant is not (or no longer) requested.
        """
        _, current = self._current(instant)
        if current.state is not State.REQUESTED:
            raise IllegalTransitionError(instant.requested_time, current.state, State.INFLIGHT)
        inflight = Instant(instant.requested_time, instant.action, State.INFLIGHT)
        try:
            self._storage.put_if_absent(self._key(inflight), content or b"")
        except PreconditionFailedError:
            raise IllegalTransitionError(
                instant.requested_time, State.INFLIGHT, State.INFLIGHT, "already inflight"
            ) from None
        return inflight

    def complete(
        self,
        instant: Instant,
        metadata: CommitMetadata | bytes | None = None,
        completion_time: str | None = None,
        *,
        known: Timeline | None = None,
    ) -> Instant:
        """Complete an inflight instant by creating its completed file (the last file of a write).

        Args:
            instant: The inflight instant.
            metadata: Commit metadata (encoded as JSON for layout 1, Avro for layout 2), raw bytes
                (e.g. an Avro clean or rollback record), or None for an empty file.
            completion_time: Layout 2 only: the completion time ``C >= T``; generated (greater
                than ``T`` and every completion time on the timeline) when None. Layout 1 takes
                it from the file's modification time and rejects an explicit value.
            known: The timeline as the caller last listed it, when it created ``instant``'s
                inflight file since and holds the lock: it is not listed again (and ``instant`` is
                taken as inflight). A concurrent completion is still checked for after the
                completed file is created.

        Returns:
            The completed instant, with its completion time.

        Raises:
            InstantNotFoundError: The instant is not on the timeline.
            IllegalTransitionError: The instant is not inflight (requested, or already completed),
                the completion time precedes ``T``, or a concurrent completion won.
            CommitVetoedError: A ``hudi_pre_commit`` hook vetoed the instant; it stays inflight
                (the caller rolls it back as any failed write).
            ValueError: An explicit completion time on layout 1, or a malformed one.
        """
        timeline, current = (known, instant) if known is not None else self._current(instant)
        t = instant.requested_time
        if current.state is not State.INFLIGHT:
            raise IllegalTransitionError(t, current.state, State.COMPLETED)
        data = self._encode(instant, metadata)
        hooks = self._active_hooks(instant, VETOABLE_ACTIONS)
        if hooks is not None:
            # Last step before the completed file: a veto leaves nothing a reader would see.
            hooks.pre_commit(t, instant.action.value, metadata_view(metadata))
        if self._sync is not None:
            self._sync.before_complete(instant, metadata, timeline)
        if self._layout == LAYOUT_V1:
            if completion_time is not None:
                raise ValueError("layout 1 takes completion times from the completed file's modification time")
            done = Instant(t, instant.action.completes_as, State.COMPLETED)
            key = self._key(done)
            self._create_completed(key, t, data)
            try:
                modified = self._storage.info(key).modified
            except StorageError:
                return done  # committed; only its completion time is not known here
            return Instant(t, done.action, State.COMPLETED, datetime_to_instant_time(modified, self._timezone))
        if completion_time is None:
            floor = max(t, timeline.last_completion_time() or t)
            completion_time = self._generator.next(after=floor)
        elif not is_valid_instant_time(completion_time):
            raise ValueError(f"not an instant time: {completion_time!r}")
        elif completion_time < t:
            raise IllegalTransitionError(t, State.INFLIGHT, State.COMPLETED, f"completion {completion_time} < {t}")
        done = Instant(t, instant.action.completes_as, State.COMPLETED, completion_time)
        key = self._key(done)
        self._create_completed(key, t, data)
        try:
            rival = self._rival_completion(done, own_key=key)
        except StorageError as e:
            raise CommitStateUnknownError(
                t, f"{self._storage.uri(key)} was written but the check for a concurrent completion of {t} failed: {e}"
            ) from e
        if rival is not None:
            self._storage.delete(key)
            raise IllegalTransitionError(t, State.COMPLETED, State.COMPLETED, f"completed concurrently as {rival}")
        return done

    def _active_hooks(self, instant: Instant, actions: frozenset[Action]) -> CommitHooks | None:
        hooks = self._hooks
        if hooks is None or instant.action not in actions or not hooks.active:
            return None
        return hooks

    def notify_completed(
        self,
        inflight: Instant,
        done: Instant,
        metadata: CommitMetadata | bytes | None = None,
        *,
        on_failure: Callable[[str, Exception], None] | None = None,
    ) -> None:
        """Run the ``hudi_commit_completed`` hooks for ``done``, once it completed (never raises).

        Call it after :meth:`complete` returned and any table lock is released: observers sync
        catalogs or send notifications, which must not hold other writers up.

        Args:
            inflight: The instant as it was inflight (its action names it: ``compaction``, not ``commit``).
            done: The completed instant :meth:`complete` returned.
            metadata: The metadata it was completed with.
            on_failure: Called with ``(step, error)`` per failing hook (a post-commit failure);
                by default each is logged and issued as a :class:`~hudi_framework.errors.PostCommitWarning`.
        """
        hooks = self._active_hooks(inflight, OBSERVED_ACTIONS)
        if hooks is None:
            return
        t = done.requested_time
        try:
            view = metadata_view(metadata)
            failures = hooks.commit_completed(t, inflight.action.value, done.completion_time or "", view)
        except Exception as e:  # the instant is completed: nothing here may turn it into a failure
            failures = [("hudi_commit_completed", e)]
        for step, error in failures:
            if on_failure is not None:
                on_failure(step, error)
            else:
                _log.warning("instant %s completed; %s failed: %s", t, step, error)
                warnings.warn(PostCommitWarning(t, step, error), stacklevel=2)

    def _rival_completion(self, done: Instant, *, own_key: str) -> str | None:
        for info in self._storage.list(self._dir):
            # Instant files start with their requested time: other instants' need no parsing.
            if info.key == own_key or not info.name.startswith(done.requested_time):
                continue
            parsed = parse_instant_file_name(info.name, self._layout)
            if parsed is None:
                continue
            other = parsed.instant
            if (
                other.is_completed
                and other.requested_time == done.requested_time
                and other.comparable_action is done.comparable_action
            ):
                return info.name
        return None

    def _create_completed(self, key: str, requested_time: str, data: bytes) -> None:
        try:
            self._storage.put_if_absent(key, data)
        except PreconditionFailedError:
            raise IllegalTransitionError(
                requested_time, State.COMPLETED, State.COMPLETED, "already completed"
            ) from None
        except StorageError as e:
            self._resolve_completed(key, requested_time, data, e)

    def _resolve_completed(self, key: str, requested_time: str, data: bytes, cause: StorageError) -> None:
        """Settle a completed-instant create whose outcome is unknown by reading the file back.

        Our exact bytes there: the create landed (its response was lost), so the instant is
        committed once, never twice. Absent: nothing landed, so create it again. Other bytes: a
        concurrent completion won. Storage still failing: :class:`CommitStateUnknownError`.
        """
        last: StorageError = cause
        for _ in range(_RESOLVE_ROUNDS):
            try:
                stored: bytes | None = self._storage.read(key)
            except StorageNotFoundError:
                stored = None
            except StorageError as e:
                last = e
                continue
            if stored is not None:
                if stored == data:
                    return
                raise IllegalTransitionError(
                    requested_time, State.COMPLETED, State.COMPLETED, f"{key} was completed by another writer"
                ) from cause
            try:
                self._storage.put_if_absent(key, data)
                return
            except PreconditionFailedError:
                continue  # landed meanwhile (ours or a rival's): the next read tells
            except StorageError as e:
                last = e
        raise CommitStateUnknownError(
            requested_time,
            f"cannot tell whether {self._storage.uri(key)} (completing {requested_time}) was stored: {last}",
        ) from last

    def _encode(self, instant: Instant, metadata: CommitMetadata | bytes | None) -> bytes:
        if metadata is None:
            return b""
        if isinstance(metadata, bytes):
            return metadata
        if instant.comparable_action is Action.REPLACE_COMMIT and not isinstance(metadata, ReplaceCommitMetadata):
            # A replacecommit's completed file is always HoodieReplaceCommitMetadata in Java.
            metadata = ReplaceCommitMetadata.model_validate(metadata.model_dump())
        return encode_commit_metadata(metadata, self._layout)

    # ------------------------------------------------------------------------------- removing
    def revert_to_inflight(self, instant: Instant) -> Instant | None:
        """Undo the completion of ``instant``: delete its completed file (a rollback of a completed
        write starts so, as Apache Hudi's does, so that readers stop seeing the write before any of
        its files is deleted).

        Returns:
            The instant as it is now (inflight, or requested if it had no inflight file), or None
            if no other file of it is left.

        Raises:
            InstantNotFoundError: The instant is not on the timeline.
            IllegalTransitionError: The instant is not completed.
        """
        timeline, current = self._current(instant)
        if not current.is_completed:
            raise IllegalTransitionError(instant.requested_time, current.state, State.INFLIGHT, "not completed")
        self._storage.delete(timeline.file_key(current, State.COMPLETED))
        try:
            return self._current(instant)[1]
        except InstantNotFoundError:
            return None

    def discard_synced(self, instant_time: str) -> None:
        """Tell the sync a write was undone without a rollback instant (before its instant goes)."""
        if self._sync is not None:
            self._sync.discard(instant_time)

    def delete_instant(self, instant: Instant, *, allow_completed: bool = False) -> None:
        """Delete an instant's files, completed first and requested last (rollback's cleanup).

        Deleting in that order means a concurrent reader sees the instant go back through
        inflight and requested, never a completed instant without its requested file.

        Raises:
            InstantNotFoundError: The instant is not on the timeline.
            IllegalTransitionError: The instant completed and ``allow_completed`` is False.
        """
        timeline, current = self._current(instant)
        if current.is_completed and not allow_completed:
            raise IllegalTransitionError(instant.requested_time, State.COMPLETED, _ABSENT, "instant completed")
        for state in (State.COMPLETED, State.INFLIGHT, State.REQUESTED):
            try:
                key = timeline.file_key(current, state)
            except InstantNotFoundError:
                continue
            self._storage.delete(key)
