"""Which completed instants an archival moves off the active timeline (Apache Hudi's ``TimelineArchiverV2`` rules).

Nothing is archived until the active timeline holds more than ``max_commits`` completed commits
(commit, deltacommit, replacecommit: compaction and clustering complete as those); then the oldest
ones are archived down to ``min_commits``, never one at or after any of these bounds:

* the earliest pending instant (any action): the newest completed commit before it is kept too, as
  Java keeps it;
* the earliest savepointed commit;
* merge-on-read tables whose compaction triggers on a number of delta commits: the latest completed
  compaction, or, when more delta commits followed it than trigger one, the ``max_delta_commits``-th
  newest delta commit (Java's ``CompactionUtils.getEarliestInstantToRetainForCompaction``);
* the earliest completed replacecommit whose replaced files are not cleaned yet (at or after the
  latest clean's retained commit, or any when nothing was cleaned): without it the file-system view
  would show the replaced file groups again;
* a data table with a metadata table: the first commit that completed after the metadata table's
  latest compaction (nothing at all before the metadata table compacted once);
* the metadata table's own timeline: the data table's earliest commit or pending instant, since the
  metadata table's rollback handling reads its instants for the data instants still active.

The cleaner's retention raises ``min_commits`` (and ``max_commits`` by as much) when it keeps more
commits than ``min_commits`` (Java's ``ArchivalUtils.getMinAndMaxInstantsToKeep``): the commit the
cleaner's policy retains from and the one before it stay active. The latest clean's own
``earliestCommitToRetain`` is no bound (as in Java): a merge-on-read table that is never compacted
has nothing to clean, and its last clean's retained commit would otherwise pin the timeline forever.
Completed cleans and rollbacks older than the newest commit archived go with it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from hudi_framework.config.settings import HudiSettings
from hudi_framework.timeline.instant import Action, Instant
from hudi_framework.timeline.instant_time import format_instant_time, parse_instant_time
from hudi_framework.vocabulary import CleanerPolicy, CompactionTriggerStrategy

__all__ = ["ArchivalPolicy", "MetadataTableState", "instants_to_archive"]

_DELTA_TRIGGERS = frozenset({CompactionTriggerStrategy.NUM_COMMITS, CompactionTriggerStrategy.NUM_AND_TIME})


@dataclass(frozen=True, slots=True)
class ArchivalPolicy:
    """The settings one archival applies.

    Attributes:
        min_commits: ``hoodie.keep.min.commits``.
        max_commits: ``hoodie.keep.max.commits``.
        clean_policy: ``hoodie.clean.policy`` (raises ``min_commits`` to what the cleaner keeps).
        commits_retained: ``hoodie.clean.commits.retained``.
        hours_retained: ``hoodie.clean.hours.retained``.
        compaction_delta_commits: Delta commits that trigger a compaction when the table is
            merge-on-read and compaction triggers on a count of them; None otherwise.
    """

    min_commits: int
    max_commits: int
    clean_policy: CleanerPolicy = CleanerPolicy.KEEP_LATEST_COMMITS
    commits_retained: int = 10
    hours_retained: int = 24
    compaction_delta_commits: int | None = None

    @classmethod
    def for_table(cls, settings: HudiSettings, *, merge_on_read: bool) -> ArchivalPolicy:
        """The data table's policy from the session's settings."""
        archive, clean, comp = settings.services.archive, settings.services.clean, settings.services.compaction
        delta = comp.max_delta_commits if merge_on_read and comp.trigger_strategy in _DELTA_TRIGGERS else None
        return cls(
            archive.min_commits, archive.max_commits, clean.policy, clean.commits_retained, clean.hours_retained, delta
        )

    @classmethod
    def for_metadata_table(cls, settings: HudiSettings) -> ArchivalPolicy:
        """The metadata table's policy: the same bounds; it compacts every ``metadata_compact_max_delta_commits``."""
        archive, clean = settings.services.archive, settings.services.clean
        return cls(
            archive.min_commits,
            archive.max_commits,
            CleanerPolicy.KEEP_LATEST_COMMITS,
            clean.commits_retained,
            clean.hours_retained,
            settings.write.metadata_compact_max_delta_commits,
        )


@dataclass(frozen=True, slots=True)
class MetadataTableState:
    """What the metadata table imposes on an archival.

    Attributes:
        latest_compaction: For a data table with a metadata table: the requested time of the
            metadata table's latest completed compaction, "" when it never compacted (nothing is
            archived then). None: no metadata table.
        data_floor: For the metadata table's own timeline: the data table's earliest commit or
            pending instant (None: not the metadata table, or a data table without instants).
    """

    latest_compaction: str | None = None
    data_floor: str | None = None


def instants_to_archive(
    instants: Sequence[Instant],
    policy: ArchivalPolicy,
    *,
    last_clean_retained: str | None = None,
    metadata: MetadataTableState | None = None,
) -> list[Instant]:
    """The completed instants to archive, oldest requested time first.

    Args:
        instants: The active timeline's instants (each in its latest state), by requested time.
        policy: The settings.
        last_clean_retained: The latest completed clean's ``earliestCommitToRetain``, if any.
        metadata: What the metadata table imposes (None: nothing).
    """
    commits = [i for i in instants if i.is_completed and i.comparable_action in _COMMIT_ACTIONS]
    low, high = _min_max(commits, policy)
    if len(commits) <= high:
        return []
    metadata = metadata or MetadataTableState()
    if metadata.latest_compaction == "":
        return []
    bounds = [b for b in _bounds(instants, commits, policy, last_clean_retained, metadata) if b is not None]
    bound = min(bounds, default=None)
    chosen = [c for c in commits if bound is None or c.requested_time < bound][: len(commits) - low]
    if not chosen:
        return []
    last = chosen[-1].requested_time
    others = [i for i in instants if i.is_completed and i.action in _ARCHIVED_WITH_COMMITS and i.requested_time < last]
    return sorted([*chosen, *others], key=lambda i: (i.requested_time, i.action.value))


_COMMIT_ACTIONS = frozenset({Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT})
_ARCHIVED_WITH_COMMITS = frozenset({Action.CLEAN, Action.ROLLBACK})


def _bounds(
    instants: Sequence[Instant],
    commits: Sequence[Instant],
    policy: ArchivalPolicy,
    last_clean_retained: str | None,
    metadata: MetadataTableState,
) -> list[str | None]:
    pending = next((i for i in instants if i.is_pending), None)
    pending_bound = None
    if pending is not None:
        before = [c for c in commits if c.requested_time < pending.requested_time]
        pending_bound = before[-1].requested_time if before else pending.requested_time
    savepoint = next((i.requested_time for i in instants if i.action is Action.SAVEPOINT), None)
    cleaned_before = last_clean_retained or ""
    replaced = next(
        (c.requested_time for c in commits if c.action is Action.REPLACE_COMMIT and c.requested_time >= cleaned_before),
        None,
    )
    mdt = None
    if metadata.latest_compaction:
        after = [c for c in commits if (c.completion_time or c.requested_time) > metadata.latest_compaction]
        mdt = min((c.requested_time for c in after), default=None)
    return [
        pending_bound,
        savepoint,
        _compaction_bound(instants, policy.compaction_delta_commits),
        replaced,
        mdt,
        metadata.data_floor,
    ]


def _compaction_bound(instants: Sequence[Instant], delta_commits: int | None) -> str | None:
    if delta_commits is None:
        return None
    done = [i for i in instants if i.is_completed]
    compactions = [i for i in done if i.action is Action.COMMIT]
    latest = compactions[-1].requested_time if compactions else None
    deltas = [i for i in done if i.action is Action.DELTA_COMMIT and (latest is None or i.requested_time > latest)]
    if len(deltas) >= delta_commits:
        return deltas[len(deltas) - delta_commits].requested_time
    if latest is not None:
        return latest
    return deltas[0].requested_time if deltas else None


def _min_max(commits: Sequence[Instant], policy: ArchivalPolicy) -> tuple[int, int]:
    retained = _cleaner_retained(commits, policy)
    low, high = policy.min_commits, policy.max_commits
    if retained is not None:
        by_clean = sum(1 for c in commits if c.requested_time > retained) + 2
        if low < by_clean:
            return by_clean, by_clean + high - low
    return low, high


def _cleaner_retained(commits: Sequence[Instant], policy: ArchivalPolicy) -> str | None:
    """The commit the cleaner's policy keeps history from (as Java computes it for archival)."""
    if not commits:
        return None
    if policy.clean_policy is CleanerPolicy.KEEP_LATEST_COMMITS:
        if len(commits) <= policy.commits_retained:
            return None
        return commits[len(commits) - policy.commits_retained].requested_time
    if policy.clean_policy is CleanerPolicy.KEEP_LATEST_BY_HOURS:
        try:
            latest = parse_instant_time(commits[-1].requested_time)
        except ValueError:
            return None
        cutoff = format_instant_time(latest - dt.timedelta(hours=policy.hours_retained))
        return next((c.requested_time for c in commits if c.requested_time >= cutoff), None)
    return None
