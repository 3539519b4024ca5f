"""The kernel's side of a table service run: :class:`ServiceHost`, the contract's ``TableServiceHost``.

A service plugin decides (which slices to compact, which files to clean); everything it needs
from the kernel goes through the host, bound to one table and the session's settings: timeline
facts and file listings for the decision, then the machinery that carries it out (plan files,
:mod:`hudi_framework.write.compactor`, :mod:`hudi_framework.write.cleaner`, the table lock, the
rollback of failed writes). The kernel builds one per service call (:func:`build_table_service`).

The host also carries the engine the service's per-file-group work runs on (a
:class:`~hudi_framework.contracts.task_runner.ServiceTaskRunner`): Spark executors when a Spark
writer or job started the service, the local engine's process pool or the calling process otherwise.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Hashable, Iterator, Sequence

from hudi_framework.config.services import ServiceSection
from hudi_framework.config.settings import HudiSettings
from hudi_framework.contracts.clean import CleanDecision, LastClean, ServiceInstant
from hudi_framework.contracts.clustering import ClusteringSelector
from hudi_framework.contracts.compaction import CompactionSelector
from hudi_framework.contracts.service import TableService, TableServiceHost
from hudi_framework.contracts.task_runner import ServiceTaskRunner
from hudi_framework.errors import ConfigError, TableError
from hudi_framework.layout.file_group import FileGroup, FileGroupId
from hudi_framework.lock import table_lock
from hudi_framework.runtime.components import Components
from hudi_framework.runtime.table import HudiTable
from hudi_framework.services.clean_plan import (
    SAVEPOINTED_TIMESTAMPS,
    CleanerPlan,
    CleanFileInfo,
    RetainedInstant,
    encode_cleaner_plan,
    savepoint_extra_metadata,
)
from hudi_framework.services.clean_trigger import commits_since_last_clean
from hudi_framework.services.clustering_plan import ClusteringPlan
from hudi_framework.services.compaction_plan import CompactionPlan
from hudi_framework.timeline.clean_metadata import decode_clean_metadata
from hudi_framework.timeline.instant import Action, Instant
from hudi_framework.timeline.instant_time import datetime_to_instant_time
from hudi_framework.vocabulary import FailedWritesPolicy
from hudi_framework.write.cleaner import CleanResult, execute_clean
from hudi_framework.write.clusterer import ClusteringResult, execute_clustering, rollback_clustering
from hudi_framework.write.clustering_scheduler import build_clustering_plan, schedule_clustering
from hudi_framework.write.compaction_scheduler import build_compaction_plan, schedule_compaction
from hudi_framework.write.compactor import (
    CompactionResult,
    SliceMerge,
    execute_compaction,
    merge_slice,
    rollback_inflight,
)
from hudi_framework.write.concurrency import WriteConcurrency
from hudi_framework.write.failed_writes import rollback_failed_writes, sweep_leftovers
from hudi_framework.write.metadata_upkeep import metadata_table_upkeep, metadata_write_options
from hudi_framework.write.rollback import RollbackResult
from hudi_framework.write.savepoint import Savepoint, list_savepoints
from hudi_framework.write.task_pool import LocalTaskRunner
from hudi_framework.write.transaction import timeline_writer

__all__ = ["ServiceHost", "build_table_service", "open_table_service", "table_service_host"]


class ServiceHost(TableServiceHost):
    """One table and the session's settings, as a table service sees them.

    Args:
        table: The table.
        settings: The session's settings (parquet, bloom filter, merge memory, lock, failed-writes
            policy); defaults otherwise.
        merge: Merges one file slice during compaction (the reader's merge; tests inject failures).
        runner: Runs the services' per-file-group tasks (None: the local engine's runner, from
            ``services.execution``).
    """

    def __init__(
        self,
        table: HudiTable,
        settings: HudiSettings | None = None,
        *,
        merge: SliceMerge = merge_slice,
        runner: ServiceTaskRunner | None = None,
    ) -> None:
        self.table = table
        self.settings = settings or HudiSettings()
        self._merge = merge
        self.runner = runner

    # ------------------------------------------------------------------ common
    @property
    def base_uri(self) -> str:
        """The table's base URI."""
        return self.table.base_uri

    def prepare(self) -> None:
        """Build the metadata table (``hoodie.metadata.enable``) or delete it (format section 7),
        re-reading the table when its properties changed."""
        table, write = self.table, self.settings.write
        changed = metadata_table_upkeep(
            table.storage,
            table.config,
            lambda: table.timeline,
            metadata_write_options(write, self.settings.services.clean),
        )
        if changed:
            table.reload()

    def reload(self) -> None:
        """Re-read the table's config and timeline."""
        self.table.reload()

    def _concurrency(self) -> WriteConcurrency:
        return WriteConcurrency.from_settings(self.settings, self.table)

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the table lock under optimistic concurrency control or serialized commits; a no-op otherwise."""
        cc = self._concurrency()
        if cc.locks and cc.open_lock is not None:
            with table_lock(cc.open_lock(), table=cc.table, policy=cc.lock_policy):
                yield
        else:
            yield

    @property
    def task_runner(self) -> ServiceTaskRunner:
        """The runner given, else the local engine's (``services.execution``)."""
        return self.runner or LocalTaskRunner(self.settings.services.execution)

    # ------------------------------------------------------------------ compaction
    def compaction_plan(self, selector: CompactionSelector, instant: str) -> CompactionPlan | None:
        """The plan a compaction at ``instant`` would run (nothing is written)."""
        return build_compaction_plan(
            self.table, selector, instant, max_file_size=self.settings.write.max_file_size_bytes
        )

    def schedule_compaction(self, selector: CompactionSelector, *, instant_time: str | None = None) -> str | None:
        """Plan with ``selector`` and write ``T.compaction.requested``."""
        return schedule_compaction(
            self.table, selector, instant_time=instant_time, max_file_size=self.settings.write.max_file_size_bytes
        )

    def execute_compaction(self, instant: str, *, skip_corrupt_log_blocks: bool = False) -> CompactionResult:
        """Execute the pending compaction ``instant`` and complete it."""
        return execute_compaction(
            self.table,
            instant,
            self.settings,
            merge=self._merge,
            skip_corrupt_log_blocks=skip_corrupt_log_blocks,
            runner=self.runner,
        )

    def rollback_compaction(self, instant: str) -> list[str]:
        """Undo a failed or crashed attempt of ``instant``."""
        return rollback_inflight(self.table, instant)

    # ------------------------------------------------------------------ clustering
    def clustering_plan(self, selector: ClusteringSelector, instant: str) -> ClusteringPlan | None:
        """The plan a clustering would run (nothing is written; ``instant`` only names it)."""
        return build_clustering_plan(self.table, selector, max_file_size=self.settings.write.max_file_size_bytes)

    def schedule_clustering(self, selector: ClusteringSelector, *, instant_time: str | None = None) -> str | None:
        """Plan with ``selector`` and write the requested clustering."""
        return schedule_clustering(
            self.table, selector, instant_time=instant_time, max_file_size=self.settings.write.max_file_size_bytes
        )

    def execute_clustering(self, instant: str) -> ClusteringResult:
        """Execute the pending clustering ``instant`` and complete it as a ``replacecommit``."""
        return execute_clustering(self.table, instant, self.settings, runner=self.runner)

    def rollback_clustering(self, instant: str) -> list[str]:
        """Undo a failed or crashed attempt of ``instant`` (the plan stays requested)."""
        return rollback_clustering(self.table, instant)

    def pending_clustering(self) -> list[str]:
        """Pending clustering instants, oldest first (the table is re-read)."""
        plans = self.table.reload().timeline.pending_clustering_plans()
        return sorted(i.requested_time for i in plans)

    # ------------------------------------------------------------------ cleaning: the planner's inputs
    def commits(self, *, include_pending: bool = False) -> list[Instant]:
        """The commits timeline, oldest first."""
        return self.table.timeline.commits_timeline(include_pending=include_pending)

    def latest_completed_commit(self) -> Instant | None:
        """The newest completed commit."""
        return self.table.timeline.latest_completed_commit()

    def instant_time_before(self, now: dt.datetime, hours: int) -> str:
        """The instant time ``hours`` before ``now``, in the timeline's time zone."""
        return datetime_to_instant_time(now - dt.timedelta(hours=hours), self.table.timeline.timezone)

    def last_clean(self) -> LastClean | None:
        """What the newest completed clean recorded."""
        timeline = self.table.timeline
        cleans = timeline.completed({Action.CLEAN})
        if not cleans:
            return None
        data = timeline.read_bytes(cleans[-1])
        if not data:
            return None
        last = decode_clean_metadata(data, path=timeline.file_key(cleans[-1]))
        kept = (last.extra_metadata or {}).get(SAVEPOINTED_TIMESTAMPS, "")
        return LastClean(last.earliest_commit_to_retain or "", tuple(t for t in kept.split(",") if t))

    def partitions_written(self, commit: ServiceInstant) -> set[str]:
        """Partitions a completed commit wrote or replaced files in."""
        timeline = self.table.timeline
        instant = commit if isinstance(commit, Instant) else timeline.get(commit.requested_time, Action(commit.action))
        metadata = timeline.read_commit_metadata(instant)
        out = set(metadata.partition_to_write_stats or {})
        out |= set(getattr(metadata, "partition_to_replace_file_ids", None) or {})
        return out

    def savepoints(self) -> list[Savepoint]:
        """Every completed savepoint, oldest first (the table is re-read)."""
        return list_savepoints(self.table)

    def pending_compaction_bases(self) -> dict[Hashable, str]:
        """File group -> base instant of the slice a pending compaction or log compaction reads."""
        timeline = self.table.timeline
        out: dict[Hashable, str] = {}
        for plans in (timeline.pending_compaction_plans(), timeline.pending_log_compaction_plans()):
            for plan in plans.values():
                for op in plan.get("operations") or ():
                    fg = FileGroupId(op.get("partitionPath") or "", op["fileId"])
                    base = op.get("baseInstantTime") or ""
                    out[fg] = min(out.get(fg, base), base)
        return out

    def file_groups(self, partitions: Sequence[str] | None = None) -> dict[str, list[FileGroup]]:
        """Partition -> its committed file groups, replaced ones included."""
        view = self.table.file_system_view(partitions=list(partitions) if partitions is not None else None)
        return {p: list(view.all_file_groups(p, include_replaced=True)) for p in view.partitions}

    def commits_since_last_clean(self) -> int:
        """Completed commits after the newest commit the last completed clean saw."""
        return commits_since_last_clean(self.table.timeline)

    # ------------------------------------------------------------------ cleaning: the machinery
    def cleaner_plan(self, decision: CleanDecision) -> CleanerPlan:
        """The ``HoodieCleanerPlan`` of ``decision``: files as full URIs, savepoints in ``extraMetadata``."""
        storage = self.table.storage
        retained = decision.earliest_to_retain
        return CleanerPlan(
            earliest_instant_to_retain=RetainedInstant(retained.requested_time, str(retained.action))
            if retained is not None
            else None,
            last_completed_commit=decision.last_completed_commit,
            policy=decision.policy,
            files={p: tuple(CleanFileInfo(k, storage.uri(k)) for k in keys) for p, keys in decision.files.items()},
            extra_metadata=savepoint_extra_metadata(list(decision.savepointed_times)),
        )

    def request_clean(self, decision: CleanDecision, *, instant_time: str | None = None) -> str:
        """Write ``T.clean.requested`` with the plan of ``decision``."""
        writer = timeline_writer(self.table.storage, self.table.config)
        plan = encode_cleaner_plan(self.cleaner_plan(decision))
        requested = writer.create_requested(Action.CLEAN, instant_time, plan)
        self.table.reload()
        return requested.requested_time

    def pending_cleans(self) -> list[str]:
        """Pending clean instants, oldest first (the table is re-read)."""
        return [i.requested_time for i in self.table.reload().timeline.pending({Action.CLEAN})]

    def execute_clean(self, instant: str) -> CleanResult:
        """Delete the planned files and complete the clean (the completion under the lock with OCC)."""
        return execute_clean(self.table, instant, self._concurrency(), settings=self.settings, runner=self.runner)

    @property
    def lazy_failed_writes(self) -> bool:
        """Whether the cleaner rolls back failed writes (``LAZY``)."""
        return self.settings.write.effective_failed_writes_policy is FailedWritesPolicy.LAZY

    def rollback_failed_writes(self) -> list[RollbackResult]:
        """Roll back writes whose heartbeat expired (``LAZY`` only)."""
        cc = self._concurrency()
        if cc.failed_writes is not FailedWritesPolicy.LAZY:
            return []
        table = self.table
        writer = timeline_writer(table.storage, table.config)
        results = rollback_failed_writes(table.storage, table.config, writer, cc.failed_writes, cc.heartbeat)
        table.reload()
        return results

    def sweep_leftovers(self) -> None:
        """Remove leftovers of completed writes and half-written metadata files."""
        sweep_leftovers(self.table.storage, self.table.reload().timeline)


def table_service_host(table: HudiTable | TableServiceHost, settings: HudiSettings | None = None) -> TableServiceHost:
    """The host a table service works on: ``table`` bound to ``settings`` (defaults otherwise).

    A host is returned as it is (``settings`` must then be None: the host has its own), so a
    service can accept either (the kernel always passes a host; users may call a service with a
    table).

    Raises:
        ConfigError: ``settings`` given with a host.
        TableError: ``table`` is neither a ``HudiTable`` nor a ``TableServiceHost``.
    """
    if isinstance(table, TableServiceHost):
        if settings is not None:
            raise ConfigError("a TableServiceHost is bound to its settings already; give settings with a HudiTable")
        return table
    if isinstance(table, HudiTable):
        return ServiceHost(table, settings)
    raise TableError(f"a table service needs a HudiTable or a TableServiceHost, got {type(table).__name__}")


def build_table_service(components: Components, section: ServiceSection, field_path: str) -> TableService:
    """The table service ``section.service`` names, built with the section's options.

    Args:
        components: The plugins of the run (the session's settings load them).
        section: The service's settings section (``services.compaction``, ``services.clean``).
        field_path: Where the section sits in the settings, for errors.

    Raises:
        UnknownComponentError: No plugin provides that service.
        PluginConfigError: The options fail the service's own options model.
        PluginError: The component is not a table service.
    """
    return components.service(section.service, section.service_options(), field_path=field_path)


def open_table_service(table: HudiTable, settings: HudiSettings, slot: str) -> tuple[TableService, ServiceHost]:
    """The table service of ``settings.services.<slot>`` from the plugins ``settings`` load, and the host it works on.

    Args:
        table: The table.
        settings: The session's settings: ``services.<slot>`` names the service and holds its
            options; the rest (parquet, lock...) configures the host.
        slot: ``compaction`` or ``clean``.

    Raises:
        ConfigError: ``services.<slot>`` is not a table service's section.
        UnknownComponentError: No plugin provides the service.
        PluginConfigError: The section's options fail the service's options model.
        PluginError: The component is not a table service.
    """
    section = getattr(settings.services, slot, None)
    if not isinstance(section, ServiceSection):
        raise ConfigError(f"services.{slot} is not a table service section")
    components = table.components.with_settings(settings)
    return build_table_service(components, section, f"services.{slot}"), ServiceHost(table, settings)
