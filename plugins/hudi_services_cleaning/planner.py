"""Planning a clean: which files go, handed to the kernel to write as ``T.clean.requested``.

The policy decides (:func:`decide_clean`), from what the host hands out: the commits, savepoints,
pending compactions and, per partition, the file groups with their committed slices. With
``incremental`` (Apache Hudi's ``hoodie.clean.incremental.enabled``, on by default) only the
partitions written since the last clean's retained commit are listed
(:mod:`hudi_services_cleaning.incremental`); otherwise every partition is. Only committed files are
ever handed out, so an inflight write (or a pending compaction's new base file) is never touched.
The kernel turns the decision into Apache Hudi's ``HoodieCleanerPlan``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from hudi_framework import table_service_host
from hudi_framework.contracts.clean import CleanDecision, CleanerPlanView, CleanHost, ServiceFileGroup, ServiceFileSlice
from hudi_services_cleaning.incremental import partitions_to_clean
from hudi_services_cleaning.options import CleanServiceOptions
from hudi_services_cleaning.retention import earliest_commit_to_retain
from hudi_services_cleaning.selection import (
    SliceGuard,
    replaced_slices_to_clean,
    slices_to_clean_by_commits,
    slices_to_clean_by_versions,
)

__all__ = ["build_clean_plan", "decide_clean", "schedule_clean"]


def _slices_to_clean(
    groups: Sequence[ServiceFileGroup], settings: CleanServiceOptions, retain_from: str | None, guard: SliceGuard
) -> list[ServiceFileSlice]:
    out: list[ServiceFileSlice] = []
    by_versions = settings.policy == "KEEP_LATEST_FILE_VERSIONS"
    for group in groups:
        if group.replaced_by is not None:
            if by_versions or (retain_from is not None and group.replaced_by < retain_from):
                out += replaced_slices_to_clean(group.slices, guard)
        elif by_versions:
            out += slices_to_clean_by_versions(group.slices, settings.file_versions_retained, guard)
        elif retain_from is not None:
            out += slices_to_clean_by_commits(group.slices, retain_from, guard)
    return out


def decide_clean(host: CleanHost, settings: CleanServiceOptions, *, now: dt.datetime | None = None) -> CleanDecision:
    """What a clean would delete now (possibly nothing).

    Args:
        host: The table, as the kernel hands it to the service (its timeline as loaded is used).
        settings: The service's options (policy and retention).
        now: Current time for ``KEEP_LATEST_BY_HOURS`` (aware); the wall clock by default.
    """
    retained = earliest_commit_to_retain(host, settings, now=now)
    latest = host.latest_completed_commit()
    last_completed = latest.requested_time if latest else ""
    policy = str(settings.policy)
    by_commits = settings.policy != "KEEP_LATEST_FILE_VERSIONS"
    if by_commits and retained is None:
        # Not enough history yet: nothing is old enough, and nothing needs listing.
        return CleanDecision(policy, None, last_completed)
    savepoints = host.savepoints()
    guard = SliceGuard(
        savepointed_files=frozenset(name for s in savepoints for names in s.files.values() for name in names),
        pending_compaction_bases=host.pending_compaction_bases(),
    )
    retain_from = retained.requested_time if retained is not None else None
    partitions = None
    if settings.incremental and by_commits and retain_from is not None:
        partitions = partitions_to_clean(host, retain_from, [s.instant_time for s in savepoints])
    files: dict[str, tuple[str, ...]] = {}
    for partition, groups in host.file_groups(partitions).items():
        keys: list[str] = []
        for file_slice in _slices_to_clean(groups, settings, retain_from, guard):
            if file_slice.base_file_key is not None:
                keys.append(file_slice.base_file_key)
            keys += file_slice.log_file_keys
        files[partition] = tuple(keys)
    return CleanDecision(policy, retained, last_completed, files, [s.instant_time for s in savepoints])


def build_clean_plan(host: Any, settings: CleanServiceOptions, *, now: dt.datetime | None = None) -> CleanerPlanView:
    """The ``HoodieCleanerPlan`` a clean would run now (possibly deleting nothing; nothing is written).

    Args:
        host: The kernel's ``TableServiceHost`` (or a ``HudiTable``, with default settings).
        settings: The service's options (policy and retention).
        now: Current time for ``KEEP_LATEST_BY_HOURS`` (aware); the wall clock by default.
    """
    bound = table_service_host(host)
    return bound.cleaner_plan(decide_clean(bound, settings, now=now))


def schedule_clean(
    host: Any,
    settings: CleanServiceOptions,
    *,
    instant_time: str | None = None,
    now: dt.datetime | None = None,
) -> str | None:
    """Plan a clean and have the kernel write its ``T.clean.requested`` file, unless it would delete nothing.

    Args:
        host: The kernel's ``TableServiceHost`` (or a ``HudiTable``, with default settings).
        settings: The service's options.
        instant_time: The clean instant; a new time after every instant by default.
        now: Current time for ``KEEP_LATEST_BY_HOURS``.

    Returns:
        The clean instant, or None when no file needs deleting (nothing is written, as Apache Hudi).

    Raises:
        IllegalTransitionError: ``instant_time`` is not newer than every instant on the timeline.
    """
    bound = table_service_host(host)
    bound.reload()
    decision = decide_clean(bound, settings, now=now)
    if decision.file_count == 0:
        return None
    return bound.request_clean(decision, instant_time=instant_time)
