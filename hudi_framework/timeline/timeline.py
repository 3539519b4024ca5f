"""The active timeline: every instant of a table, read from one listing of the timeline directory.

Each instant appears once, in its latest state, keyed by (requested time, completed action) as
Java's timeline layout filter does, so ``T.compaction.requested`` + ``T.compaction.inflight`` +
``T_C.commit`` is one completed ``commit``. Instants sort by requested time (plain string order).

A :class:`Timeline` is an immutable snapshot; :meth:`Timeline.reload` lists again.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from hudi_framework.errors import InstantMetadataError, InstantNotFoundError
from hudi_framework.timeline.avro_container import AvroRecord, read_container
from hudi_framework.timeline.instant import WRITE_ACTIONS, Action, Instant, State
from hudi_framework.timeline.instant_time import datetime_to_instant_time
from hudi_framework.timeline.metadata import CommitMetadata, decode_commit_metadata, decode_written_files
from hudi_framework.timeline.naming import LAYOUT_V1, check_layout, parse_instant_file_name
from hudi_framework.vocabulary import TimelineTimezone

if TYPE_CHECKING:
    from hudi_framework.contracts.storage import FileInfo, StorageBackend

#: The meta folder under the base path.
META_FOLDER: Final = ".hoodie"
#: Default of ``hoodie.timeline.path`` (layout 2), relative to the meta folder.
DEFAULT_TIMELINE_PATH: Final = "timeline"
_EMPTY_REQUESTED: Final = frozenset({Action.COMMIT, Action.DELTA_COMMIT})


def timeline_dir(layout_version: int, timeline_path: str = DEFAULT_TIMELINE_PATH) -> str:
    """Storage key of the directory holding instant files (``.hoodie`` or ``.hoodie/<path>``)."""
    if check_layout(layout_version) == LAYOUT_V1:
        return META_FOLDER
    return f"{META_FOLDER}/{timeline_path.strip('/')}"


@dataclass(frozen=True, slots=True)
class _Entry:
    """One instant and the file of each state seen for it."""

    instant: Instant
    files: Mapping[State, FileInfo]


def _collect(files: Iterable[FileInfo], layout_version: int, timezone: TimelineTimezone) -> list[_Entry]:
    groups: dict[tuple[str, Action], dict[State, tuple[Instant, FileInfo]]] = {}
    for info in files:
        parsed = parse_instant_file_name(info.name, layout_version)
        if parsed is None:
            continue
        inst = parsed.instant
        if inst.is_completed and inst.completion_time is None:
            # Layout 1 (and legacy layout-2 names): the completed file's mtime is the completion time.
            inst = Instant(
                inst.requested_time,
                inst.action,
                inst.state,
                datetime_to_instant_time(info.modified, timezone),
            )
        states = groups.setdefault((inst.requested_time, inst.comparable_action), {})
        seen = states.get(inst.state)
        # Two completed files for one instant only exist for a moment while a racing writer backs
        # off (see transitions.py); the earliest completion is the one that stays.
        if seen is None or (inst.completion_time or "") < (seen[0].completion_time or ""):
            states[inst.state] = (inst, info)
    entries = []
    for states in groups.values():
        latest = max(states, key=lambda s: s.rank)
        entries.append(_Entry(states[latest][0], {s: f for s, (_, f) in states.items()}))
    entries.sort(key=lambda e: (e.instant.requested_time, e.instant.comparable_action.value))
    return entries


class Timeline:
    """A snapshot of a table's active timeline.

    Build one with :meth:`load`. Reading instant contents goes through the same storage backend.
    """

    def __init__(
        self,
        storage: StorageBackend,
        files: Iterable[FileInfo],
        *,
        layout_version: int,
        timeline_path: str = DEFAULT_TIMELINE_PATH,
        timezone: TimelineTimezone = TimelineTimezone.LOCAL,
        known_written_files: Mapping[Instant, tuple[tuple[str, str], ...]] | None = None,
    ) -> None:
        """Build a timeline from an already-made listing of the timeline directory.

        Args:
            storage: Backend rooted at the table base path.
            files: The objects directly in :func:`timeline_dir`; non-instant files are ignored.
            layout_version: ``hoodie.timeline.layout.version`` (1 for v6, 2 for v8+).
            timeline_path: ``hoodie.timeline.path`` (layout 2 only).
            timezone: ``hoodie.table.timeline.timezone``; formats layout-1 completion times.
            known_written_files: :attr:`known_written_files` of an earlier snapshot: instants still
                on this timeline (same completion) need not be read again.
        """
        self._storage = storage
        self._layout = check_layout(layout_version)
        self._timeline_path = timeline_path
        self._timezone = timezone
        self._dir = timeline_dir(layout_version, timeline_path)
        self._entries = _collect(files, self._layout, timezone)
        self._by_key = {(e.instant.requested_time, e.instant.comparable_action): e for e in self._entries}
        self._instants = tuple(e.instant for e in self._entries)
        # Memo of replacecommit -> replaced (partition, file id)s; commit files never change.
        self._replaced_memo: dict[Instant, tuple[tuple[str, str], ...]] = {}
        # Memo of completed write instant -> (partition, file name)s its write stats name.
        present = set(self._instants)
        self._written_memo = {i: f for i, f in (known_written_files or {}).items() if i in present}
        # The commit file read_commit_metadata read last (a completed instant's): the latest schema
        # is read from it and written_files then needs it again.
        self._content_memo: dict[Instant, bytes] = {}

    @classmethod
    def load(
        cls,
        storage: StorageBackend,
        *,
        layout_version: int,
        timeline_path: str = DEFAULT_TIMELINE_PATH,
        timezone: TimelineTimezone = TimelineTimezone.LOCAL,
        known_written_files: Mapping[Instant, tuple[tuple[str, str], ...]] | None = None,
    ) -> Timeline:
        """List the timeline directory once and build the timeline (arguments as in ``__init__``)."""
        files = storage.list(timeline_dir(layout_version, timeline_path))
        return cls(
            storage, files, layout_version=layout_version, timeline_path=timeline_path, timezone=timezone,
            known_written_files=known_written_files,
        )  # fmt: skip

    def reload(self) -> Timeline:
        """A fresh snapshot of the same timeline."""
        return Timeline.load(
            self._storage,
            layout_version=self._layout,
            timeline_path=self._timeline_path,
            timezone=self._timezone,
            known_written_files=self._written_memo,
        )

    # ------------------------------------------------------------------------------ properties
    @property
    def storage(self) -> StorageBackend:
        """The backend the timeline was read from."""
        return self._storage

    @property
    def layout_version(self) -> int:
        """1 (v6) or 2 (v8+)."""
        return self._layout

    @property
    def timeline_path(self) -> str:
        """``hoodie.timeline.path`` (meaningful for layout 2)."""
        return self._timeline_path

    @property
    def timezone(self) -> TimelineTimezone:
        """The timeline time zone."""
        return self._timezone

    @property
    def directory(self) -> str:
        """Storage key of the directory holding the instant files."""
        return self._dir

    @property
    def known_written_files(self) -> Mapping[Instant, tuple[tuple[str, str], ...]]:
        """What :meth:`written_files` has read so far (commit files never change once completed)."""
        return MappingProxyType(self._written_memo)

    @property
    def instants(self) -> tuple[Instant, ...]:
        """Every instant in its latest state, by requested time."""
        return self._instants

    def __iter__(self) -> Iterator[Instant]:
        """Iterate over :attr:`instants`."""
        return iter(self._instants)

    def __len__(self) -> int:
        """The number of instants."""
        return len(self._instants)

    # --------------------------------------------------------------------------------- filters
    def get(self, requested_time: str, action: Action | None = None) -> Instant:
        """The instant with this requested time (and completed action, if given).

        Raises:
            InstantNotFoundError: No such instant, or several and no ``action`` to choose.
        """
        if action is not None:
            entry = self._by_key.get((requested_time, action.completes_as))
            if entry is None:
                raise InstantNotFoundError(f"no {action} instant {requested_time} on the timeline")
            return entry.instant
        found = [e.instant for e in self._entries if e.instant.requested_time == requested_time]
        if len(found) != 1:
            what = "no" if not found else "more than one"
            raise InstantNotFoundError(f"{what} instant {requested_time} on the timeline")
        return found[0]

    def completed(self, actions: Collection[Action] | None = None, *, as_of: str | None = None) -> list[Instant]:
        """Completed instants, optionally of ``actions`` and with requested time <= ``as_of``."""
        return [
            i
            for i in self._instants
            if i.is_completed
            and (actions is None or i.action in actions)
            and (as_of is None or i.requested_time <= as_of)
        ]

    def pending(self, actions: Collection[Action] | None = None) -> list[Instant]:
        """Requested or inflight instants, optionally only of ``actions`` (their pending action)."""
        return [i for i in self._instants if i.is_pending and (actions is None or i.action in actions)]

    def by_action(self, *actions: Action) -> list[Instant]:
        """Instants in any state whose current or completed action is one of ``actions``."""
        wanted = set(actions)
        return [i for i in self._instants if i.action in wanted or i.comparable_action in wanted]

    def commits_timeline(self, *, include_pending: bool = False, as_of: str | None = None) -> list[Instant]:
        """Completed commit, deltacommit and replacecommit instants (the "commits timeline").

        Completed compaction, clustering and log compaction are included, as they complete as those
        actions; ``include_pending`` adds the pending instants of all of them.
        """
        return [
            i
            for i in self._instants
            if i.comparable_action in WRITE_ACTIONS
            and (include_pending or i.is_completed)
            and (as_of is None or i.requested_time <= as_of)
        ]

    def latest_completed_commit(self, *, as_of: str | None = None) -> Instant | None:
        """The completed commit-timeline instant with the greatest requested time."""
        commits = self.commits_timeline(as_of=as_of)
        return commits[-1] if commits else None

    def last_requested_time(self) -> str | None:
        """The greatest requested time of any instant, or None on an empty timeline."""
        return max((i.requested_time for i in self._instants), default=None)

    def last_completion_time(self) -> str | None:
        """The greatest completion time of any completed instant."""
        return max((i.completion_time for i in self._instants if i.completion_time), default=None)

    # ------------------------------------------------------------------------------- contents
    def _entry(self, instant: Instant) -> _Entry:
        entry = self._by_key.get((instant.requested_time, instant.comparable_action))
        if entry is None:
            raise InstantNotFoundError(f"instant {instant} is not on the timeline")
        return entry

    def file_key(self, instant: Instant, state: State | None = None) -> str:
        """Storage key of the instant's file for ``state`` (default: the instant's state).

        Raises:
            InstantNotFoundError: The instant, or its file for that state, is not on the timeline.
        """
        files = self._entry(instant).files
        wanted = state or instant.state
        info = files.get(wanted)
        if info is None:
            raise InstantNotFoundError(f"instant {instant} has no {wanted} file")
        return info.key

    def state_files(self, instant: Instant) -> dict[State, str]:
        """Storage key of each state's file the instant has on the timeline (requested, inflight, completed).

        Raises:
            InstantNotFoundError: The instant is not on the timeline.
        """
        return {state: info.key for state, info in self._entry(instant).files.items()}

    def read_bytes(self, instant: Instant, state: State | None = None) -> bytes:
        """Raw content of the instant's file for ``state`` (default: its current state)."""
        return self._storage.read(self.file_key(instant, state))

    def read_avro(self, instant: Instant, state: State | None = None) -> AvroRecord | None:
        """The Avro record in the instant's file, or None for an empty file (e.g. most inflights).

        Raises:
            InstantMetadataError: The file is not a one-record Avro container.
        """
        key = self.file_key(instant, state)
        data = self._storage.read(key)
        return read_container(data, path=self._storage.uri(key)) if data else None

    def read_commit_metadata(self, instant: Instant) -> CommitMetadata:
        """Decode the commit metadata of a commit-timeline instant, in its current state.

        Completed replacecommits give :class:`~hudi_framework.timeline.metadata.ReplaceCommitMetadata`.

        Raises:
            InstantMetadataError: Not a commit-like action, or undecodable content.
        """
        key = self.file_key(instant)
        # Requested files of table services and replacecommits hold plans, not commit metadata;
        # a requested commit or deltacommit is empty (decoded as an empty instance).
        plan_file = instant.state is State.REQUESTED and instant.action not in _EMPTY_REQUESTED
        if instant.comparable_action not in WRITE_ACTIONS or plan_file:
            raise InstantMetadataError(self._storage.uri(key), f"{instant} does not hold commit metadata")
        replace = True if instant.is_completed and instant.action is Action.REPLACE_COMMIT else None
        data = self._content_memo.get(instant)
        if data is None:
            data = self._storage.read(key)
            if instant.is_completed:  # a completed instant's file never changes; one kept (bounded)
                self._content_memo = {instant: data}
        # Errors name the file's full location: a damaged instant must be findable on any storage.
        return decode_commit_metadata(data, replace=replace, path=self._storage.uri(key))

    def written_files(self, instants: Iterable[Instant]) -> dict[Instant, tuple[tuple[str, str], ...]]:
        """``(partition path, file name)`` of every file each completed write instant's metadata names.

        Each commit file is read once per timeline (several at a time when many are needed) and only
        its write stats' paths are decoded.

        Raises:
            InstantMetadataError: Not a completed commit-timeline instant, or undecodable content.
        """
        wanted = list(dict.fromkeys(instants))
        todo = [i for i in wanted if i not in self._written_memo]
        for inst in todo:
            if not inst.is_completed or inst.comparable_action not in WRITE_ACTIONS:
                raise InstantMetadataError(self._storage.uri(self._dir), f"{inst} is not a completed write")
        for inst in [i for i in todo if i in self._content_memo]:
            path = self._storage.uri(self.file_key(inst))
            self._written_memo[inst] = decode_written_files(self._content_memo[inst], path=path)
        todo = [i for i in todo if i not in self._written_memo]
        keys = [self.file_key(i) for i in todo]
        for inst, key, data in zip(todo, keys, self._storage.read_many(keys) if keys else [], strict=True):
            self._written_memo[inst] = decode_written_files(data, path=self._storage.uri(key))
        return {i: self._written_memo[i] for i in wanted}

    def replaced_file_groups(self, as_of: str | None = None) -> dict[tuple[str, str], Instant]:
        """File groups replaced by completed replacecommits (requested time <= ``as_of``).

        Returns:
            ``(partition path, file id)`` -> the earliest replacecommit that replaced it.
        """
        out: dict[tuple[str, str], Instant] = {}
        for inst in self.completed({Action.REPLACE_COMMIT}, as_of=as_of):
            ids = self._replaced_memo.get(inst)
            if ids is None:
                md = self.read_commit_metadata(inst)
                parts = getattr(md, "partition_to_replace_file_ids", None) or {}
                ids = tuple((p, f) for p, fids in parts.items() for f in fids)
                self._replaced_memo[inst] = ids
            for key in ids:
                out.setdefault(key, inst)
        return out

    def _plans(self, action: Action) -> dict[Instant, dict[str, Any]]:
        plans: dict[Instant, dict[str, Any]] = {}
        for inst in self.pending({action}):
            record = self.read_avro(inst, State.REQUESTED)
            if record is None:
                path = self._storage.uri(self.file_key(inst, State.REQUESTED))
                raise InstantMetadataError(path, f"empty {action} plan")
            plans[inst] = record.record
        return plans

    def pending_compaction_plans(self) -> dict[Instant, dict[str, Any]]:
        """``HoodieCompactionPlan`` records of pending compactions (from ``T.compaction.requested``)."""
        return self._plans(Action.COMPACTION)

    def pending_log_compaction_plans(self) -> dict[Instant, dict[str, Any]]:
        """``HoodieCompactionPlan`` records of pending log compactions."""
        return self._plans(Action.LOG_COMPACTION)

    def pending_clustering_plans(self) -> dict[Instant, dict[str, Any]]:
        """``HoodieClusteringPlan`` records of pending clustering.

        Layout 2 names them ``clustering``; layout 1 uses ``replacecommit``, so there a pending
        replacecommit counts as clustering when its requested file carries a clustering plan
        (an insert_overwrite's requested metadata has none), as Java's ``ClusteringUtils`` checks.
        """
        plans: dict[Instant, dict[str, Any]] = {}
        for inst in self.pending({Action.CLUSTERING, Action.REPLACE_COMMIT}):
            if State.REQUESTED not in self._entry(inst).files:
                continue
            record = self.read_avro(inst, State.REQUESTED)
            plan = record.record.get("clusteringPlan") if record is not None else None
            if plan is not None:
                plans[inst] = plan
        return plans
