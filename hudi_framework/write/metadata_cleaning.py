"""Cleaning the metadata table (MDT): file slices its compactions made obsolete are deleted.

Apache Hudi cleans the MDT at the start of each data write, before compacting it
(``HoodieBackedTableMetadataWriter.cleanIfNecessary``), as an MDT ``clean`` instant at a fresh time
with its ``HoodieCleanerPlan`` and ``HoodieCleanMetadata``:

* only once at least 3 MDT instants completed after its latest compaction (a reader that listed
  the previous slice before that compaction may still be reading it);
* with the data table's cleaning policy, its retention raised (``HoodieMetadataWriteUtils``):
  ``KEEP_LATEST_COMMITS`` keeps ``max(20, 1.2 x hoodie.clean.commits.retained)`` commits,
  ``KEEP_LATEST_FILE_VERSIONS`` ``ceil(1.2 x hoodie.clean.fileversions.retained)`` slices and
  ``KEEP_LATEST_BY_HOURS`` ``ceil(1.2 x hoodie.clean.hours.retained)`` hours;
* per file group, as Apache Hudi's cleaner does: by commits (or hours), every slice that started
  before the earliest retained MDT commit goes, except the group's latest slice and the newest of
  those older slices (what a reader as of that commit reads); by versions, all but the newest
  slices.

The latest slice of every file group always stays: readers use nothing else. Nothing is cleaned
while an MDT instant is pending (a crashed write's rollback settles it first).
"""

from __future__ import annotations

import datetime as dt
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.errors import HudiError, StorageError
from hudi_framework.layout.file_group import FileSlice
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.metadata.records import METADATA_TABLE_DIR
from hudi_framework.metadata_writer.mdt_timeline import mdt_timeline_writer
from hudi_framework.services.clean_plan import CleanerPlan, CleanFileInfo, RetainedInstant, encode_cleaner_plan
from hudi_framework.table.properties import load_properties
from hudi_framework.table.table_config import TableConfig
from hudi_framework.timeline.clean_metadata import (
    CleanMetadata,
    CleanPartitionMetadata,
    decode_clean_metadata,
    encode_clean_metadata,
)
from hudi_framework.timeline.instant import COMPLETES_AS, Action, Instant
from hudi_framework.timeline.instant_time import InstantTimeGenerator, datetime_to_instant_time
from hudi_framework.timeline.timeline import Timeline
from hudi_framework.vocabulary import CleanerPolicy, TimelineTimezone

__all__ = ["MIN_INSTANTS_AFTER_COMPACTION", "MetadataCleanRetention", "clean_metadata_table"]

#: MDT instants that must complete after its latest compaction before it is cleaned.
MIN_INSTANTS_AFTER_COMPACTION: Final = 3
#: ``HoodieMetadataConfig.DEFAULT_METADATA_CLEANER_COMMITS_RETAINED``: the least commits kept.
MIN_COMMITS_RETAINED: Final = 20
#: How much more history the MDT keeps than the data table.
_RETENTION_FACTOR: Final = 1.2
_COMMITS: Final = frozenset({Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT})


@dataclass(frozen=True, slots=True)
class MetadataCleanRetention:
    """The data table's cleaning policy and retention, from which the MDT's follows.

    Attributes:
        policy: ``hoodie.clean.policy``.
        commits_retained: ``hoodie.clean.commits.retained``.
        file_versions_retained: ``hoodie.clean.fileversions.retained``.
        hours_retained: ``hoodie.clean.hours.retained``.
    """

    policy: CleanerPolicy = CleanerPolicy.KEEP_LATEST_COMMITS
    commits_retained: int = 10
    file_versions_retained: int = 3
    hours_retained: int = 24

    @classmethod
    def from_values(cls, values: Mapping[str, str]) -> MetadataCleanRetention:
        """From Apache Hudi's option keys (unset ones take Apache Hudi's defaults)."""
        default = cls()
        return cls(
            CleanerPolicy(values.get("hoodie.clean.policy") or default.policy),
            int(values.get("hoodie.clean.commits.retained") or default.commits_retained),
            int(values.get("hoodie.clean.fileversions.retained") or default.file_versions_retained),
            int(values.get("hoodie.clean.hours.retained") or default.hours_retained),
        )

    @property
    def mdt_commits(self) -> int:
        """Commits the MDT keeps (``KEEP_LATEST_COMMITS``)."""
        return max(MIN_COMMITS_RETAINED, int(self.commits_retained * _RETENTION_FACTOR))

    @property
    def mdt_versions(self) -> int:
        """Slices per file group the MDT keeps (``KEEP_LATEST_FILE_VERSIONS``)."""
        return math.ceil(self.file_versions_retained * _RETENTION_FACTOR)

    @property
    def mdt_hours(self) -> int:
        """Hours of history the MDT keeps (``KEEP_LATEST_BY_HOURS``)."""
        return math.ceil(self.hours_retained * _RETENTION_FACTOR)


def clean_metadata_table(
    storage: StorageBackend,
    config: TableConfig,
    retention: MetadataCleanRetention,
    *,
    now: dt.datetime | None = None,
    mdt_timeline: Timeline | None = None,
) -> str | None:
    """Clean the MDT when it is due; the completed clean instant, or None.

    Args:
        storage: The data table's storage.
        config: The data table's config (which MDT partitions are kept, the timeline's time zone).
        retention: The data table's cleaning policy.
        now: The current time (aware) for ``KEEP_LATEST_BY_HOURS``; the wall clock by default.
        mdt_timeline: The MDT's timeline if the caller loaded it (else it is loaded here).
    """
    writer = mdt_timeline_writer(storage, config.timeline_timezone)
    timeline = mdt_timeline if mdt_timeline is not None else writer.timeline()
    if timeline.pending():
        return None
    completed = timeline.completed()
    compactions = [i for i in completed if i.action is Action.COMMIT]
    if not compactions:
        return None  # one slice per file group: nothing to clean
    after = [i for i in completed if i.requested_time > compactions[-1].requested_time]
    if len(after) < MIN_INSTANTS_AFTER_COMPACTION:
        return None
    commits = [i for i in completed if COMPLETES_AS.get(i.action, i.action) in _COMMITS]
    timezone = TimelineTimezone(config.timeline_timezone)
    retained = _earliest_retained(commits, retention, timezone, now)
    if retention.policy is not CleanerPolicy.KEEP_LATEST_FILE_VERSIONS and (
        retained is None or not _new_slices_before(timeline, compactions, retained.requested_time)
    ):
        return None
    mdt = MetadataTable.open(storage, load_properties(storage))
    if mdt is None:
        return None
    retain_from = retained.requested_time if retained is not None else None
    doomed: dict[str, list[FileSlice]] = {}
    for partition in config.metadata_partitions:
        for group in mdt.file_groups(partition):
            slices = _to_clean(list(group.slices), retention, retain_from)
            if slices:
                doomed.setdefault(partition, []).extend(slices)
    if not doomed:
        return None
    root = storage.root_uri.rstrip("/")
    files = {
        partition: tuple(
            CleanFileInfo(key, f"{root}/{METADATA_TABLE_DIR}/{key}")
            for file_slice in slices
            for key in ([file_slice.base_file_key] if file_slice.base_file_key else []) + file_slice.log_file_keys
        )
        for partition, slices in sorted(doomed.items())
    }
    plan = CleanerPlan(
        earliest_instant_to_retain=(
            RetainedInstant(retained.requested_time, COMPLETES_AS.get(retained.action, retained.action).value)
            if retained is not None
            else None
        ),
        last_completed_commit=commits[-1].requested_time if commits else "",
        policy=retention.policy.value,
        files=files,
    )
    instant_time = writer.generator.next(after=timeline.instants[-1].requested_time)
    started = time.monotonic()
    requested = writer.create_requested(Action.CLEAN, instant_time, content=encode_cleaner_plan(plan))
    inflight = writer.transition_to_inflight(requested)
    outcome = {partition: _delete(storage, partition, infos, plan.policy) for partition, infos in files.items()}
    metadata = CleanMetadata(
        start_clean_time=instant_time,
        time_taken_ms=int((time.monotonic() - started) * 1000),
        earliest_commit_to_retain=retain_from or "",
        last_completed_commit=plan.last_completed_commit,
        partitions=outcome,
    )
    writer.complete(inflight, encode_clean_metadata(metadata))
    # The next data instant must be newer than the clean, as after an MDT compaction.
    clock = InstantTimeGenerator(timezone)
    while clock.next() <= instant_time:
        time.sleep(0.001)
    return instant_time


def _earliest_retained(
    commits: Sequence[Instant], retention: MetadataCleanRetention, timezone: TimelineTimezone, now: dt.datetime | None
) -> Instant | None:
    """The earliest MDT commit whose file slices the policy keeps (Apache Hudi's ``CleanPlanner``)."""
    if retention.policy is CleanerPolicy.KEEP_LATEST_COMMITS:
        keep = retention.mdt_commits
        return commits[len(commits) - keep] if len(commits) > keep else None
    if retention.policy is CleanerPolicy.KEEP_LATEST_BY_HOURS:
        moment = now if now is not None else dt.datetime.now(dt.UTC)
        cutoff = datetime_to_instant_time(moment - dt.timedelta(hours=retention.mdt_hours), timezone)
        return next((c for c in commits if c.requested_time >= cutoff), None)
    return None


def _new_slices_before(timeline: Timeline, compactions: Sequence[Instant], retain_from: str) -> bool:
    """Whether a compaction started slices before ``retain_from`` since the last clean's retained
    commit: otherwise a policy by commits or hours has nothing to delete (each file group keeps at
    most one slice older than the retained commit, which the last clean left), and the MDT's file
    groups are not listed for nothing at every write."""
    since = ""
    cleans = timeline.completed([Action.CLEAN])
    if cleans:
        try:
            since = decode_clean_metadata(timeline.read_bytes(cleans[-1])).earliest_commit_to_retain
        except HudiError:
            since = ""  # unreadable: look at every compaction, as without a clean
    return any(since <= c.requested_time < retain_from for c in compactions)


def _to_clean(slices: list[FileSlice], retention: MetadataCleanRetention, retain_from: str | None) -> list[FileSlice]:
    """The slices of one file group (oldest first) the policy deletes; never the latest."""
    if len(slices) < 2:
        return []
    if retention.policy is CleanerPolicy.KEEP_LATEST_FILE_VERSIONS:
        return slices[: max(len(slices) - retention.mdt_versions, 0)]
    assert retain_from is not None
    older = [s for s in slices[:-1] if s.base_instant_time < retain_from]
    return older[:-1]  # the newest older slice serves a reader as of the earliest retained commit


def _delete(
    storage: StorageBackend, partition: str, infos: Sequence[CleanFileInfo], policy: str
) -> CleanPartitionMetadata:
    ok, failed = [], []
    for info in infos:
        try:
            storage.delete(f"{METADATA_TABLE_DIR}/{info.key}", missing_ok=True)
            ok.append(info.name)
        except StorageError:
            failed.append(info.name)
    return CleanPartitionMetadata(
        partition_path=partition,
        policy=policy,
        delete_path_patterns=tuple(i.name for i in infos),
        success_delete_files=tuple(ok),
        failed_delete_files=tuple(failed),
    )
