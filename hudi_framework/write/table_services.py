"""Table services a writer runs after each commit (inline mode).

:func:`run_inline_services` is the one call the write pipeline makes once a commit completed. For
merge-on-read tables it checks the compaction trigger and then, as ``services.compaction`` says:

* ``inline``: schedules a compaction and executes it right away (Apache Hudi's
  ``hoodie.compact.inline``);
* ``schedule_inline``: only writes the plan; another job runs it (``hudi-fw compaction run``).

Then, as ``services.clustering`` says (Apache Hudi's ``hoodie.clustering.inline``,
``hoodie.clustering.schedule.inline``, ``hoodie.clustering.async.enabled``): ``inline`` runs any
pending clustering, then schedules one and runs it once ``max_commits`` commits completed since the
last clustering; the other two only write the plan (``hudi-fw clustering run`` executes it).

Then, with ``services.log_compaction.inline`` (``hoodie.log.compaction.inline``), plans a log
compaction of the slices with enough log blocks and executes it (Apache Hudi schedules a log
compaction after every write; the blocks threshold decides which slices it takes).

Then, as ``services.clean`` says (Apache Hudi's ``hoodie.clean.automatic``, on by default, and
``hoodie.clean.async``, off): finishes pending cleans, and when ``max_commits`` commits completed
since the last clean, schedules a clean and executes it.

Last, as ``services.archive`` says (Apache Hudi's ``hoodie.archive.automatic``, on by default):
archives the timeline when it holds more than ``max_commits`` completed commits
(:mod:`hudi_framework.write.archival`, part of the kernel: it needs no plugin).

Services are plugins, looked up among the writer's components by the names the settings give
(``services.compaction.service``, ``services.clean.service``; ``compaction`` and ``clean`` by
default) and handed a :class:`~hudi_framework.write.service_host.ServiceHost`. Inline compaction is
opt-in, so configuring it without the plugin is an error; automatic cleaning is the default, so an
installation without the cleaning plugin simply does not clean.

The services run their per-file-group work on the writer's engine: the pipeline hands over its
:class:`~hudi_framework.contracts.task_runner.ServiceTaskRunner` (Spark executors for a Spark
writer; None: the local engine's process pool or the calling process).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hudi_framework.config.settings import HudiSettings
from hudi_framework.contracts.service import TableService
from hudi_framework.contracts.task_runner import ServiceTaskRunner
from hudi_framework.errors import UnknownComponentError
from hudi_framework.plugin.registry import ComponentKind
from hudi_framework.runtime.components import Components
from hudi_framework.runtime.table import HudiTable
from hudi_framework.services.clean_trigger import clean_due, nothing_to_clean
from hudi_framework.services.clustering_trigger import clustering_due
from hudi_framework.services.compaction_trigger import compaction_due
from hudi_framework.timeline.instant import Action
from hudi_framework.timeline.instant_time import InstantTimeGenerator
from hudi_framework.vocabulary import FailedWritesPolicy, TableType, TimelineTimezone
from hudi_framework.write.archival import archival_due, archive_timeline
from hudi_framework.write.log_compactor import execute_log_compaction, schedule_log_compaction
from hudi_framework.write.service_host import ServiceHost, build_table_service

__all__ = ["LOG_COMPACTION_SERVICE", "ServiceRun", "check_inline_services", "run_inline_services"]


@dataclass(frozen=True, slots=True)
class ServiceRun:
    """One service action taken after a commit.

    Attributes:
        service: The service's registered name (``compaction``, ``clean``), or ``archive``.
        instant: The instant it scheduled (archival: the newest instant it archived).
        executed: Whether it also executed (and completed) it.
    """

    service: str
    instant: str
    executed: bool


def check_inline_services(table: HudiTable, settings: HudiSettings, components: Components) -> None:
    """Fail before a write starts if an inline service it would run after its commit is missing.

    Raises:
        UnknownComponentError: Inline compaction is configured on a merge-on-read table but no
            plugin provides the service ``services.compaction.service`` names.
    """
    comp = settings.services.compaction
    if (comp.inline or comp.schedule_inline) and table.config.table_type is TableType.MERGE_ON_READ:
        installed = components.service_names()
        if comp.service not in installed:
            raise UnknownComponentError(ComponentKind.SERVICE.label, comp.service, installed)
    clustering = settings.services.clustering
    if clustering.inline or clustering.schedule_inline or clustering.async_enabled:
        installed = components.service_names()
        if clustering.service not in installed:
            raise UnknownComponentError(ComponentKind.SERVICE.label, clustering.service, installed)


def run_inline_services(
    table: HudiTable,
    settings: HudiSettings,
    components: Components,
    *,
    on_failure: Callable[[str, Exception], None] | None = None,
    runner: ServiceTaskRunner | None = None,
) -> list[ServiceRun]:
    """Run the table services configured to run inline, after a commit completed.

    Args:
        table: The table just written, reloaded after the commit.
        settings: The writer's settings (``services.*``).
        components: The writer's components (the compaction and cleaning services among them).
        on_failure: Called with the service name and the error when a service fails; the next
            service still runs. None: the error propagates.
        runner: Where the services' per-file-group tasks run (None: the local engine's runner).

    Returns:
        What was scheduled or executed (empty when nothing was due).

    Raises:
        UnknownComponentError: Inline compaction is configured but no plugin provides it.
        TableServiceError: A service failed (a failed compaction was rolled back to requested).
    """
    runs: list[ServiceRun] = []
    services = settings.services
    # In Apache Hudi's order; each step sees the runs before it (the clean reloads the table only
    # when a service changed it since the pipeline's reload after its commit).
    steps: list[tuple[str, Callable[[], list[ServiceRun]]]] = [
        (services.compaction.service, lambda: _inline_compaction(table, settings, components, runner)),
        (services.clustering.service, lambda: _inline_clustering(table, settings, components, runner)),
        (LOG_COMPACTION_SERVICE, lambda: _inline_log_compaction(table, settings, runner)),
        (services.clean.service, lambda: _inline_clean(table, settings, components, runner, reload=bool(runs))),
        (ARCHIVE_SERVICE, lambda: _inline_archive(table, settings)),
    ]
    for name, step in steps:
        try:
            runs += step()
        except Exception as e:
            if on_failure is None:
                raise
            on_failure(name, e)
    return runs


#: :attr:`ServiceRun.service` of log compactions (a kernel service, not a plugin).
LOG_COMPACTION_SERVICE = "log_compaction"


def _inline_log_compaction(
    table: HudiTable, settings: HudiSettings, runner: ServiceTaskRunner | None
) -> list[ServiceRun]:
    lc = settings.services.log_compaction
    if not lc.inline:
        return []
    table.reload()
    if table.config.table_type is not TableType.MERGE_ON_READ:
        return []
    instant = schedule_log_compaction(table, blocks_threshold=lc.blocks_threshold)
    if instant is None:
        return []
    execute_log_compaction(table, instant, settings, runner=runner)
    return [ServiceRun(LOG_COMPACTION_SERVICE, instant, executed=True)]


#: The name archival runs under in :class:`ServiceRun` and post-commit failures.
ARCHIVE_SERVICE = "archive"


def _inline_archive(table: HudiTable, settings: HudiSettings) -> list[ServiceRun]:
    archive = settings.services.archive
    # The common case is decided from the timeline already loaded: too few commits to archive.
    if not archive.automatic or not archival_due(table.timeline, archive.max_commits):
        return []
    result = archive_timeline(table, settings)
    if not result.archived:
        return []
    return [ServiceRun(ARCHIVE_SERVICE, result.archived[-1].requested_time, executed=True)]


def _inline_compaction(
    table: HudiTable, settings: HudiSettings, components: Components, runner: ServiceTaskRunner | None
) -> list[ServiceRun]:
    runs: list[ServiceRun] = []
    comp = settings.services.compaction
    if not (comp.inline or comp.schedule_inline):
        return runs
    table.reload()
    if table.config.table_type is not TableType.MERGE_ON_READ:
        return runs
    now = InstantTimeGenerator(TimelineTimezone(table.config.timeline_timezone)).next()
    if not compaction_due(table.timeline, comp, now):
        return runs
    service = build_table_service(components, comp, "services.compaction")
    host = ServiceHost(table, settings, runner=runner)
    instant = service.schedule(host)
    if instant is None:
        return runs
    if comp.inline:
        service.execute(host, instant)
    runs.append(ServiceRun(comp.service, instant, executed=comp.inline))
    return runs


def _inline_clustering(
    table: HudiTable, settings: HudiSettings, components: Components, runner: ServiceTaskRunner | None
) -> list[ServiceRun]:
    """Java's inline clustering: pending plans run first, then a new one when due (``inline``);
    ``schedule_inline`` and ``async_enabled`` only write the plan."""
    section = settings.services.clustering
    if not (section.inline or section.schedule_inline or section.async_enabled):
        return []
    timeline = table.reload().timeline
    runs: list[ServiceRun] = []
    service = build_table_service(components, section, "services.clustering")
    host = ServiceHost(table, settings, runner=runner)
    if section.inline:
        for pending in sorted(i.requested_time for i in timeline.pending_clustering_plans()):
            service.execute(host, pending)
            runs.append(ServiceRun(section.service, pending, executed=True))
        if runs:
            timeline = table.reload().timeline
    if not clustering_due(timeline, section):
        return runs
    instant = service.schedule(host)
    if instant is None:
        return runs
    if section.inline:
        service.execute(host, instant)
    runs.append(ServiceRun(section.service, instant, executed=section.inline))
    return runs


def _inline_clean(
    table: HudiTable,
    settings: HudiSettings,
    components: Components,
    runner: ServiceTaskRunner | None,
    *,
    reload: bool,
) -> list[ServiceRun]:
    clean = settings.services.clean
    # Async cleaning belongs to a separate job (``hudi-fw clean run``); the writer does not wait for it.
    if not clean.automatic or clean.async_enabled or clean.service not in components.service_names():
        return []
    timeline = (table.reload() if reload else table).timeline
    done = [i.requested_time for i in timeline.pending({Action.CLEAN})]
    host = ServiceHost(table, settings, runner=runner)
    if done:
        service = _clean_service(settings, components)
        for instant in done:  # a clean that crashed half way is finished first
            service.execute(host, instant)
        timeline = table.reload().timeline
    if not clean_due(timeline, clean.max_commits):
        return _clean_runs(clean.service, done)
    # The common no-op (too little history to clean) is decided here from the timeline, without the
    # service's listings, lock and re-reads. Not under LAZY: scheduling a clean also rolls back
    # failed writes then, so the service must run.
    lazy = settings.write.effective_failed_writes_policy is FailedWritesPolicy.LAZY
    if not lazy and nothing_to_clean(timeline, clean):
        return _clean_runs(clean.service, done)
    service = _clean_service(settings, components)
    scheduled = service.schedule(host)
    if scheduled is not None:
        service.execute(host, scheduled)
        done.append(scheduled)
    return _clean_runs(clean.service, done)


def _clean_service(settings: HudiSettings, components: Components) -> TableService:
    return build_table_service(components, settings.services.clean, "services.clean")


def _clean_runs(service: str, instants: list[str]) -> list[ServiceRun]:
    return [ServiceRun(service, instant, executed=True) for instant in instants]
