"""The ``services`` section: compaction, cleaning, archival and clustering.

Defaults are Apache Hudi's. The services themselves are plugins, found by the registered name in
``service``; this section says when they run (read by the kernel) and what they keep: those fields
are the service's options, handed to the plugin's own options model (:meth:`service_options`).
"""

from __future__ import annotations

from typing import Any, ClassVar, Self

from pydantic import Field, model_validator

from hudi_framework.config.base import CrossFieldError, CsvTuple, NonNegativeInt, PositiveInt, Section
from hudi_framework.config.components import ComponentName, ComponentRef
from hudi_framework.config.not_yet import ARCHIVAL, NotYet
from hudi_framework.vocabulary import (
    CleanerPolicy,
    ClusteringUpdateStrategy,
    CompactionTriggerStrategy,
    LayoutOptimizationStrategy,
    SpatialCurveBuildMethod,
)

__all__ = [
    "ArchiveSettings",
    "CleanSettings",
    "ClusteringSettings",
    "CompactionSettings",
    "LogCompactionSettings",
    "ServiceExecutionSettings",
    "ServiceSection",
    "ServicesSettings",
]


class ServiceSection(Section):
    """A table service's section: the service's registered name, when the kernel runs it, its options."""

    #: Fields only the kernel reads (which service, when it runs); every other field is an option of the service.
    kernel_fields: ClassVar[frozenset[str]] = frozenset({"service"})

    service: ComponentName
    """Registered name of the table service plugin that does the work."""

    def service_options(self) -> dict[str, Any]:
        """The service's options as plain values: the fields set here, but :attr:`kernel_fields`.

        Unset fields are left out: the service's own options model has the defaults, and a service
        that does not know a field the user set refuses it (``PluginConfigError``) instead of
        ignoring it.
        """
        return self.model_dump(mode="json", exclude_unset=True, exclude=set(self.kernel_fields))


class CompactionSettings(ServiceSection):
    """Merge-on-read compaction: folding log files into new base files."""

    kernel_fields: ClassVar[frozenset[str]] = frozenset(
        {"service", "inline", "schedule_inline", "trigger_strategy", "max_delta_commits", "max_delta_seconds"}
    )

    service: ComponentName = "compaction"
    """Registered name of the table service plugin that compacts."""
    inline: bool = False
    """Schedule and run compaction after each write that meets the trigger."""
    schedule_inline: bool = False
    """Only schedule (write the compaction plan) after each write; another job executes it."""
    trigger_strategy: CompactionTriggerStrategy = CompactionTriggerStrategy.NUM_COMMITS
    """What triggers inline compaction."""
    max_delta_commits: PositiveInt = 5
    """Delta commits since the last compaction that trigger the next one."""
    max_delta_seconds: PositiveInt = 3600
    """Seconds since the last compaction that trigger the next one (time-based triggers)."""
    strategy: ComponentRef = Field(default_factory=lambda: ComponentRef(name="log-file-size"))
    """Which file slices a plan picks, by registered name (Apache Hudi's default picks by log file size)."""
    target_io_mb: PositiveInt = 512_000
    """IO budget of one compaction plan, in MB (bounded-IO strategies)."""
    logfile_size_threshold_bytes: NonNegativeInt = 0
    """File slices whose log files total fewer bytes are not compacted (``log-file-size`` strategy)."""
    logfile_num_threshold: NonNegativeInt = 0
    """File slices with fewer log files are not compacted (``log-file-num`` strategy)."""
    daybased_target_partitions: PositiveInt = 10
    """Latest date partitions one plan covers (``day-based`` strategy)."""
    skip_corrupt_log_blocks: bool = False
    """Compact file slices whose corrupt log blocks may hold committed rows, dropping those rows for
    good; by default such a compaction is refused (``CompactionCorruptLogError``)."""

    not_yet = (
        NotYet(
            "strategy",
            "there is no partition-aware compaction strategy; day-based picks the latest date partitions",
            refused=("bounded-partition-aware", "unbounded-partition-aware"),
        ),
    )

    @model_validator(mode="after")
    def _check(self) -> Self:
        if self.inline and self.schedule_inline:
            raise CrossFieldError(
                "inline already schedules; set inline or schedule_inline, not both",
                ("services", "compaction", "schedule_inline"),
            )
        return self


class CleanSettings(ServiceSection):
    """The cleaner: deleting file slices no longer needed by the retained history."""

    kernel_fields: ClassVar[frozenset[str]] = frozenset({"service", "automatic", "async_enabled"})

    service: ComponentName = "clean"
    """Registered name of the table service plugin that cleans."""
    automatic: bool = True
    """Clean after each commit."""
    async_enabled: bool = False
    """Clean concurrently with the write instead of after it."""
    policy: CleanerPolicy = CleanerPolicy.KEEP_LATEST_COMMITS
    """What to keep."""
    commits_retained: PositiveInt = 10
    """Commits whose file slices are kept (``KEEP_LATEST_COMMITS``); bounds incremental-read history."""
    file_versions_retained: PositiveInt = 3
    """File slices kept per file group (``KEEP_LATEST_FILE_VERSIONS``)."""
    hours_retained: PositiveInt = 24
    """Hours of history kept (``KEEP_LATEST_BY_HOURS``)."""
    max_commits: PositiveInt = 1
    """Commits since the last clean that trigger the next one."""
    incremental: bool = True
    """Plan from the partitions written since the last clean's retained commit instead of listing every partition."""


class ArchiveSettings(Section):
    """Timeline archival: moving the oldest completed instants off the active timeline into the archive."""

    automatic: bool = True
    """Archive after each commit when the active timeline holds more than ``max_commits`` commits."""
    async_enabled: bool = False
    """Only ``false``: archival runs inline, after the commit (or as ``hudi-fw archive``)."""
    min_commits: PositiveInt = 20
    """Completed commits an archival leaves on the active timeline."""
    max_commits: PositiveInt = 30
    """Completed commits on the active timeline that trigger an archival."""
    timeline_compaction_batch_size: PositiveInt = 10
    """LSM timeline (v8+): files of one layer that are merged into one file of the next layer."""

    not_yet = (
        NotYet(
            "async_enabled",
            "archival runs inline after the commit or as `hudi-fw archive`, never concurrently with the write",
            ARCHIVAL,
            accepted=(False,),
        ),
    )

    @model_validator(mode="after")
    def _check(self) -> Self:
        if self.max_commits <= self.min_commits:
            raise CrossFieldError(
                f"max_commits ({self.max_commits}) must be greater than min_commits ({self.min_commits})",
                ("services", "archive", "max_commits"),
            )
        if self.timeline_compaction_batch_size < 2:
            raise CrossFieldError(
                "timeline_compaction_batch_size must be at least 2 (files merged at once)",
                ("services", "archive", "timeline_compaction_batch_size"),
            )
        return self


class ClusteringSettings(ServiceSection):
    """Clustering: rewriting small file slices into fewer, bigger file groups, optionally sorted."""

    kernel_fields: ClassVar[frozenset[str]] = frozenset(
        {
            "service", "inline", "schedule_inline", "async_enabled", "max_commits", "async_max_commits",
            "update_strategy", "layout_optimize_build_method", "layout_optimize_sample_size",
        }
    )  # fmt: skip

    service: ComponentName = "clustering"
    """Registered name of the table service plugin that clusters."""
    inline: bool = False
    """Schedule and run clustering after each write once ``max_commits`` commits completed since the last one."""
    schedule_inline: bool = False
    """Only schedule (write the clustering plan) after such writes; another job runs it."""
    async_enabled: bool = False
    """Schedule after writes once ``async_max_commits`` commits completed since the last clustering;
    ``hudi-fw clustering run`` executes the plans."""
    max_commits: PositiveInt = 4
    """Commits since the last clustering that trigger the next one (inline and schedule_inline)."""
    async_max_commits: PositiveInt = 4
    """Commits since the last clustering that trigger scheduling the next one (async_enabled)."""
    update_strategy: ClusteringUpdateStrategy = ClusteringUpdateStrategy.REJECT
    """What a write updating a file group under pending clustering does (Apache Hudi's default
    rejects it with ``ClusteringUpdateError``)."""
    small_file_limit_bytes: NonNegativeInt = 314_572_800
    """File slices whose base file is smaller are clustering candidates."""
    target_file_max_bytes: PositiveInt = 1_073_741_824
    """Target size of clustered files: a group is written into ceil(group bytes / this) file groups."""
    max_bytes_per_group: PositiveInt = 2_147_483_648
    """Bytes of input one clustering group takes at most."""
    max_num_groups: PositiveInt = 30
    """Clustering groups one plan holds at most."""
    sort_columns: CsvTuple = ()
    """Columns clustered rows are ordered by (none: read order)."""
    layout_optimize_strategy: LayoutOptimizationStrategy = LayoutOptimizationStrategy.LINEAR
    """How rows are ordered by ``sort_columns``: ``linear``, ``z-order`` or ``hilbert``."""
    layout_optimize_build_method: SpatialCurveBuildMethod = SpatialCurveBuildMethod.DIRECT
    """How z-order and Hilbert map a value to its coordinate: ``direct`` (the value's own bits) or
    ``sample`` (its rank among boundaries from a sample, so every column gets an equal share)."""
    layout_optimize_sample_size: PositiveInt = 200_000
    """Rows sampled for the ``sample`` build method's boundaries."""
    preserve_commit_metadata: bool = True
    """Rewritten rows keep their ``_hoodie_commit_time`` and sequence number."""
    single_group_clustering_enabled: bool = True
    """Plan a group of a single file slice too (always, when sort columns are set)."""
    partition_regex_pattern: str | None = None
    """Only partitions whose path matches this regular expression (fully) are clustered."""
    partition_selected: CsvTuple = ()
    """Only these partitions are clustered (takes precedence over the pattern)."""

    not_yet = (
        NotYet(
            "update_strategy",
            "writes under pending clustering are rejected (SparkRejectUpdateStrategy); the allow strategy "
            "would let a clustering silently drop the updates it did not plan",
            refused=(ClusteringUpdateStrategy.ALLOW,),
        ),
    )

    @model_validator(mode="after")
    def _check(self) -> Self:
        if self.inline and self.schedule_inline:
            raise CrossFieldError(
                "inline already schedules; set inline or schedule_inline, not both",
                ("services", "clustering", "schedule_inline"),
            )
        return self


class ServiceExecutionSettings(Section):
    """Where a service's per-file-group work runs on the local engine (Apache Hudi has no such keys).

    Started from Spark (``SparkWriteClient``, Spark jobs), a service runs its tasks in Spark
    executors and these fields do not apply.
    """

    local_workers: PositiveInt | None = None
    """Processes of the local engine's pool (default: the CPUs this process may use, at most one
    per task); ``1`` runs every task in process."""
    local_min_bytes: NonNegativeInt = 256 * 1024 * 1024
    """Work (bytes a plan reads) below which the tasks run in process: a worker process costs about
    a second of CPU to start and rebuild its components, more than it saves on small plans
    (docs/benchmarks.md). ``0``: always use the pool when there are two tasks or more."""


class LogCompactionSettings(Section):
    """Merge-on-read log compaction: merging a file slice's log blocks into one log file (no base rewrite)."""

    inline: bool = False
    """Plan and run a log compaction after each write (``hoodie.log.compaction.inline``)."""
    blocks_threshold: PositiveInt = 5
    """A file slice is log-compacted once a merged read applies at least this many of its log blocks
    (``hoodie.log.compaction.blocks.threshold``)."""


class ServicesSettings(Section):
    """Table services: when they run and what they keep."""

    compaction: CompactionSettings = Field(default_factory=CompactionSettings)
    """Compaction (merge-on-read tables)."""
    clean: CleanSettings = Field(default_factory=CleanSettings)
    """Cleaning."""
    archive: ArchiveSettings = Field(default_factory=ArchiveSettings)
    """Timeline archival."""
    clustering: ClusteringSettings = Field(default_factory=ClusteringSettings)
    """Clustering."""
    execution: ServiceExecutionSettings = Field(default_factory=ServiceExecutionSettings)
    """Where services run their per-file-group work on the local engine."""
    log_compaction: LogCompactionSettings = Field(default_factory=LogCompactionSettings)
    """Log compaction (merge-on-read tables)."""

    @model_validator(mode="after")
    def _check_archive_keeps_cleaned_history(self) -> Self:
        # Apache Hudi's rule: archiving commits the cleaner still retains would let incremental
        # reads miss data of those instants.
        if self.archive.min_commits <= self.clean.commits_retained:
            raise CrossFieldError(
                f"min_commits ({self.archive.min_commits}, hoodie.keep.min.commits) must be greater than "
                f"services.clean.commits_retained ({self.clean.commits_retained}, hoodie.clean.commits.retained): "
                "archiving commits the cleaner retains loses incremental history",
                ("services", "archive", "min_commits"),
            )
        return self
