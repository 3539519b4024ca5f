"""The streamer job: round after round, plan a batch from the last checkpoint, write it with the next.

A round (Apache Hudi's HoodieStreamer sync):

1. resume: the checkpoint of the table's latest checkpointed commit, or the user's override
   (:mod:`hudi_framework.streamer.checkpoint`);
2. plan: ``Source.plan`` in the driver, limited by ``streamer.source_limit``; an empty plan ends the
   round without a commit (nothing new: the checkpoint stays where it is);
3. read, transform and write on the job's engine (:mod:`hudi_framework.streamer.engines`), the new
   checkpoint in the same commit's extra metadata; the write runs the inline table services.

A kill at any point leaves either the old checkpoint with the old data (the failed instant is
rolled back by the next writer) or the new checkpoint with the batch: no row lost, none twice.
Without ``streamer.continuous`` the job runs one round; with it, rounds repeat at most every
``min_sync_interval_seconds`` until :meth:`StopSignal.stop` (the CLI's SIGTERM/SIGINT), which lets
the current round finish.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from hudi_framework.config.enums import WriteEngine
from hudi_framework.config.settings import HudiSettings
from hudi_framework.contracts.transformer import Engine
from hudi_framework.errors import ConfigError, IncompatibleTableConfigError, TableNotFoundError
from hudi_framework.runtime.sources import SourceRef
from hudi_framework.runtime.table import HudiTable
from hudi_framework.streamer.async_services import AsyncServiceRun, AsyncTableServices
from hudi_framework.streamer.checkpoint import checkpoint_metadata, resolve_resume
from hudi_framework.streamer.engines import LocalEngine, RoundEngine, SparkEngine, Written
from hudi_framework.streamer.schema import read_schema_file
from hudi_framework.streamer.service_modes import service_modes
from hudi_framework.streamer.transformers import check_engine, transformers_of
from hudi_framework.table.from_settings import table_config_from_settings
from hudi_framework.table.table_config import TableConfig
from hudi_framework.write.client import WriteClient, WriteResult

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import SparkSession

    from hudi_framework.contracts.task_runner import ServiceTaskRunner

__all__ = ["RoundReport", "StopSignal", "StreamerObserver", "StreamerReport", "run_streamer"]


@dataclass(frozen=True, slots=True)
class RoundReport:
    """One round.

    Attributes:
        number: 1 for the first round of the run.
        resumed_from: The checkpoint the source planned from.
        checkpoint: The checkpoint the round's commit recorded (the one it resumed from when empty).
        splits: Splits planned.
        rows: Rows written (0: nothing new, no commit).
        instant: The commit's instant time (None: no commit).
        inserts: Rows inserted.
        updates: Rows updated.
        services: Inline table services the write ran (``compaction 2025...``).
        post_commit_failures: Steps after the commit that failed (the batch is committed regardless).
        seconds: Wall time of the round.
        result: The write's result (None: no commit).
    """

    number: int
    resumed_from: str | None
    checkpoint: str | None
    splits: int
    rows: int
    instant: str | None
    inserts: int
    updates: int
    services: tuple[str, ...]
    post_commit_failures: tuple[str, ...]
    seconds: float
    result: WriteResult | None = None

    @property
    def committed(self) -> bool:
        """The round wrote a commit."""
        return self.instant is not None


@dataclass(frozen=True, slots=True)
class StreamerReport:
    """A streamer run.

    Attributes:
        table_name: The table's name.
        base_path: The table's base URI.
        source: The source as configured.
        engine: Where rounds ran.
        rounds: Every round, in order.
        stopped_by: Why the run ended (``one round``, ``signal``, ``max rounds``, ``idle``).
        seconds: Wall time of the run.
        background: Plans the background table service executed (continuous runs), in order.
    """

    table_name: str
    base_path: str
    source: str
    engine: WriteEngine
    rounds: tuple[RoundReport, ...]
    stopped_by: str
    seconds: float
    background: tuple[AsyncServiceRun, ...] = ()

    @property
    def rows(self) -> int:
        """Rows written by all rounds."""
        return sum(r.rows for r in self.rounds)

    @property
    def commits(self) -> int:
        """Commits written."""
        return sum(1 for r in self.rounds if r.committed)


class StreamerObserver(Protocol):
    """Receives a streamer's progress (the CLI draws it).

    An observer may also define ``service_done(run: AsyncServiceRun) -> None``: it is then called,
    from the background service's thread, after each plan that service executed.
    """

    def round_started(self, number: int, resumed_from: str | None) -> None:
        """Round ``number`` starts planning from ``resumed_from``."""
        ...

    def round_planned(self, number: int, splits: int) -> None:
        """Round ``number`` reads ``splits`` splits (0: nothing new)."""
        ...

    def round_done(self, report: RoundReport) -> None:
        """Round ``number`` ended."""
        ...


class _Silent:
    def round_started(self, number: int, resumed_from: str | None) -> None:
        pass

    def round_planned(self, number: int, splits: int) -> None:
        pass

    def round_done(self, report: RoundReport) -> None:
        pass


class StopSignal:
    """Asks a running streamer to stop after its current round (thread- and signal-handler-safe)."""

    def __init__(self) -> None:
        """Not stopped."""
        self._event = threading.Event()
        self.reason = "signal"

    def stop(self, reason: str = "signal") -> None:
        """Stop after the current round; a wait between rounds ends at once."""
        self.reason = reason
        self._event.set()

    @property
    def stopped(self) -> bool:
        """:meth:`stop` was called."""
        return self._event.is_set()

    def wait(self, seconds: float) -> bool:
        """Sleep up to ``seconds``; True when stopped meanwhile."""
        return self._event.wait(max(seconds, 0.0))


def _open(settings: HudiSettings, config: TableConfig) -> HudiTable | None:
    base = settings.table.base_path or ""
    try:
        table = HudiTable.open(base, settings=settings)
    except TableNotFoundError:
        return None
    found = table.config
    mine = (config.name, config.table_type, config.record_key_fields, config.partition_fields)
    theirs = (found.name, found.table_type, found.record_key_fields, found.partition_fields)
    if mine != theirs:
        raise IncompatibleTableConfigError(
            f"the table at {table.base_uri} is {found.name!r} ({found.table_type.value}, keys "
            f"{list(found.record_key_fields)}, partitions {list(found.partition_fields)}); the streamer's settings "
            f"describe {config.name!r} ({config.table_type.value}, keys {list(config.record_key_fields)}, "
            f"partitions {list(config.partition_fields)})"
        )
    return table


class _Rounds:
    """The state a run keeps between rounds: settings, source, engine, table."""

    def __init__(self, settings: HudiSettings, engine: RoundEngine, ref: SourceRef) -> None:
        self.settings = settings
        self.engine = engine
        self.ref = ref
        self.config = table_config_from_settings(settings)
        self.table = _open(settings, self.config)
        #: The table was just opened: the first round need not load its timeline again.
        self.fresh = True
        file = settings.streamer.schema_file
        self.schema: pa.Schema | None = read_schema_file(file, ref.context()) if file else None
        #: A checkpoint a plan moved without rows (a source starting at its latest position) that no
        #: commit could record yet (no table or no schema): later rounds of this run resume from it.
        self.carried: str | None = None

    def run(self, number: int, observer: StreamerObserver) -> RoundReport:
        started = time.perf_counter()
        streamer = self.settings.streamer
        if self.table is not None and not self.fresh:
            self.table = self.table.reload()
        self.fresh = False
        resume = resolve_resume(self.table, streamer.checkpoint)
        start = resume.checkpoint if resume.checkpoint is not None else self.carried
        observer.round_started(number, start)
        plan = self.ref.source().plan(start, limit=streamer.source_limit, context=self.ref.context())
        observer.round_planned(number, len(plan.splits))
        written = None
        # A plan without rows may still move the checkpoint (Kafka's auto.offset.reset=latest on a
        # first run): it is committed alone, as Apache Hudi does, or later rounds would skip what
        # arrives meanwhile.
        moved = plan.empty and plan.checkpoint is not None and plan.checkpoint != start
        schema = self.schema or plan.schema
        if not plan.empty or moved:
            if self.table is None and (not plan.empty or schema is not None):
                base = self.settings.table.base_path or ""
                self.table = HudiTable.create(base, self.config, settings=self.settings)
            if self.table is not None:
                extra = checkpoint_metadata(plan.checkpoint, streamer.checkpoint, self.table.config.version)
                if not plan.empty:
                    written = self.engine.write_plan(self.table, plan, schema, streamer.operation, extra)
                if written is None:
                    written = self._empty_commit(self.table, schema, extra)
        if moved and written is None:
            self.carried = plan.checkpoint
        result = written.result if written is not None else None
        report = RoundReport(
            number=number,
            resumed_from=start,
            checkpoint=plan.checkpoint if written is not None or moved else start,
            splits=len(plan.splits),
            rows=written.rows if written is not None else 0,
            instant=result.instant.requested_time if result is not None else None,
            inserts=result.num_inserts if result is not None else 0,
            updates=result.num_updates if result is not None else 0,
            services=tuple(f"{run.service} {run.instant}" for run in result.services) if result is not None else (),
            post_commit_failures=tuple(str(f) for f in result.post_commit_failures) if result is not None else (),
            seconds=time.perf_counter() - started,
            result=result,
        )
        observer.round_done(report)
        return report

    def _empty_commit(self, table: HudiTable, schema: pa.Schema | None, extra: dict[str, str]) -> Written | None:
        """The splits held no row: commit the checkpoint alone (as Apache Hudi does when the checkpoint
        moves), so the next round does not plan the same empty splits again. A table with no schema
        yet (created by this round) cannot take an empty write: the round then commits nothing."""
        if schema is None and table.latest_commit() is not None:
            schema = table.schema()
        if schema is None:
            return None
        client = WriteClient(table, self.settings)
        return Written(0, client.write(schema.empty_table(), self.settings.streamer.operation, extra_metadata=extra))


def run_streamer(
    settings: HudiSettings,
    *,
    spark: SparkSession | None = None,
    observer: StreamerObserver | None = None,
    stop: StopSignal | None = None,
) -> StreamerReport:
    """Run the streamer the ``streamer`` section describes on the table the other sections describe.

    Args:
        settings: All settings; ``table`` (base path, name, keys), ``write`` (engine), ``streamer``.
        spark: A session for the Spark engine; when None and ``write.engine`` is ``spark``, one is
            started with ``streamer.spark_master`` and ``streamer.spark_conf`` and stopped at the end.
        observer: Receives progress.
        stop: Stops a continuous run after its current round.

    Returns:
        What the run did.

    Raises:
        ConfigError: No base path, table name or source.
        StreamerError: A transformer the engine cannot run, or no checkpoint to resume from.
        SourceError: The source cannot plan or read (a :class:`CheckpointError` for a foreign checkpoint).
        TableServiceError: The background compaction or clustering of a continuous run failed (the
            plan stays requested; the next run executes it again).
    """
    started = time.perf_counter()
    watcher: StreamerObserver = observer or _Silent()
    signal = stop or StopSignal()
    streamer = settings.streamer
    if not settings.table.base_path:
        raise ConfigError("no base path: set table.base_path (--target-base-path)")
    if not settings.table.name:
        raise ConfigError("no table name: set table.name (--target-table)")
    if streamer.source is None:
        raise ConfigError("no source: set streamer.source (--source-class)")
    base_path = settings.table.base_path
    modes = service_modes(settings, table_config_from_settings(settings).table_type)
    settings = modes.settings
    ref = SourceRef(settings)
    ref.source()  # an unknown source or bad options fail here, before a Spark session starts
    # So do unknown transformers, bad transformer options and ones the engine cannot run.
    engine_name: Engine = "spark" if settings.write.engine is WriteEngine.SPARK else "local"
    check_engine(transformers_of(settings, ref.context().components), engine_name)
    owned: SparkSession | None = None
    engine: RoundEngine
    runner: ServiceTaskRunner | None = None
    if settings.write.engine is WriteEngine.SPARK:
        if spark is None:
            spark = owned = _start_spark(streamer.spark_master, streamer.spark_conf)
        engine = SparkEngine(settings, ref, spark)
        from hudi_framework.spark.service_runner import SparkTaskRunner

        runner = SparkTaskRunner(spark)
    else:
        engine = LocalEngine(settings, ref)
    rounds: list[RoundReport] = []
    background = None
    if modes.background:
        background = AsyncTableServices(
            settings,
            compaction=modes.async_compaction,
            clustering=modes.async_clustering,
            runner=runner,
            on_run=getattr(watcher, "service_done", None),
        )
    try:
        state = _Rounds(settings, engine, ref)
        if background is not None:
            background.start()
        try:
            stopped_by = _loop(state, streamer.continuous, watcher, signal, rounds, background)
        except KeyboardInterrupt:  # a second signal: stop at once (the plan is run again next time)
            if background is not None:
                background.close(drain=False, wait=False)
            raise
        except BaseException:
            if background is not None:
                background.close(drain=False)
            raise
        if background is not None:
            # Stopped by a signal: the running plan finishes, the others wait for the next run.
            background.close(drain=not signal.stopped)
    finally:
        if owned is not None:
            owned.stop()
    table = state.table
    return StreamerReport(
        table_name=state.config.name,
        base_path=table.base_uri if table is not None else base_path,
        source=streamer.source,
        engine=settings.write.engine,
        rounds=tuple(rounds),
        stopped_by=stopped_by,
        seconds=time.perf_counter() - started,
        background=tuple(background.runs) if background is not None else (),
    )


def _start_spark(master: str, conf: dict[str, str]) -> SparkSession:
    """A session whose Python workers run this interpreter. (Not ``jobs.engine.start_spark``: the
    jobs package ingests through the streamer, so the streamer must not import it.)"""
    from hudi_framework.spark.session import spark_session

    # Spark's own console progress bar would draw over the streamer's progress.
    # The streamer never reads through format("hudi"): no planner processes to start.
    session = spark_session(
        "hudi-fw streamer",
        master=master,
        conf={"spark.ui.showConsoleProgress": "false", **conf},
        prestart_planners=False,
    )
    session.sparkContext.setLogLevel("ERROR")
    return session


def _loop(
    state: _Rounds,
    continuous: bool,
    observer: StreamerObserver,
    stop: StopSignal,
    rounds: list[RoundReport],
    background: AsyncTableServices | None,
) -> str:
    streamer = state.settings.streamer
    idle = 0
    while True:
        began = time.monotonic()
        if background is not None and state.table is not None:
            background.wait_for_backlog(state.table, lambda: stop.stopped)
            if stop.stopped:
                return stop.reason
        report = state.run(len(rounds) + 1, observer)
        rounds.append(report)
        if background is not None:
            if report.committed:
                background.wake()
            background.raise_failure()
        idle = 0 if report.committed else idle + 1
        if not continuous:
            return "one round"
        if stop.stopped:
            return stop.reason
        if streamer.max_rounds is not None and len(rounds) >= streamer.max_rounds:
            return "max rounds"
        if streamer.stop_after_idle_rounds is not None and idle >= streamer.stop_after_idle_rounds:
            return "idle"
        if stop.wait(streamer.min_sync_interval_seconds - (time.monotonic() - began)):
            return stop.reason
