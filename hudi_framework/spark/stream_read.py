"""``spark.readStream.format("hudi")``: a table's new records, micro-batch by micro-batch.

An offset is a point of the table's timeline, ``{"commitTime": "<time>"}`` as Apache Hudi's
``HoodieSourceOffset`` spells it: the latest **completion time** of a completed write on tables of
version 8 and later, the latest **requested time** on version 6 (Apache Hudi's ``HoodieStreamSourceV2``
and ``V1``). Spark keeps offsets in the query's checkpoint, so a restarted query goes on from the
last batch it committed. A micro-batch from offset ``a`` to ``b`` is the kernel's incremental read
of ``(a, b]`` (:mod:`hudi_framework.read.incremental`): every record written in the window, in its
latest state as of ``b``, planned on the driver and read in tasks as the batch reader reads.

On version 6 a pending write older than a completed one would be skipped by a requested-time window
once it completes, so the latest offset stops before the first pending write.

``hoodie.datasource.streaming.startOffset`` places a new query: ``earliest`` (default: the whole
table's history first), ``latest`` (only what is committed from now on) or a time (exclusive).
``Trigger.AvailableNow`` reads up to the offset that was latest when the query started.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Final

from pyspark.sql.datasource import DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import ReadLimit, SupportsTriggerAvailableNow
from pyspark.sql.types import StructType

from hudi_framework.errors import InvalidConfigValueError
from hudi_framework.spark.datasource_read import HudiDataSourceReader, read_splits
from hudi_framework.spark.options import STREAM_READ_KEYS, SourceOptions
from hudi_framework.spark.task_errors import reported_to_spark

if TYPE_CHECKING:
    import pyarrow as pa

    from hudi_framework.read.splits import SplitSizing
    from hudi_framework.runtime.table import HudiTable

__all__ = ["INIT_OFFSET", "START_OFFSET_KEY", "HudiStreamReader", "latest_offset"]

START_OFFSET_KEY: Final = "hoodie.datasource.streaming.startoffset"
#: ``HoodieSourceOffset``'s JSON field.
OFFSET_FIELD: Final = "commitTime"
#: Before every instant (Apache Hudi's ``INIT_INSTANT_TS``): a window from it reads from the start.
INIT_OFFSET: Final = "00000000000000"
#: Read options a stream sets itself, per micro-batch.
_WINDOW_KEYS: Final = (
    "hoodie.datasource.read.begin.instanttime",
    "hoodie.datasource.read.end.instanttime",
    "as.of.instant",
)
_QUERY_TYPE_KEY: Final = "hoodie.datasource.query.type"


def latest_offset(table: HudiTable) -> str:
    """The table's latest offset: the last completion time of a completed write (v8+), or (v6) the
    requested time of the last completed write older than every pending one; :data:`INIT_OFFSET`
    when there is none."""
    from hudi_framework.layout.fs_view import COMPLETION_TIME_SLICING_VERSION
    from hudi_framework.read.snapshot import first_incomplete_commit

    timeline = table.timeline
    commits = timeline.commits_timeline()
    if table.config.version >= COMPLETION_TIME_SLICING_VERSION:
        return max((i.completion_time for i in commits if i.completion_time), default=INIT_OFFSET)
    pending = first_incomplete_commit(timeline)
    before = [i.requested_time for i in commits if pending is None or i.requested_time < pending.requested_time]
    return max(before, default=INIT_OFFSET)


def _offset(time: str) -> dict[str, str]:
    return {OFFSET_FIELD: time}


def _time(offset: dict[str, str]) -> str:
    return str(offset[OFFSET_FIELD])


class HudiStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Offsets and plans on the driver (Spark's source runner keeps this reader), reads in tasks."""

    def __init__(self, options: SourceOptions, schema: StructType, sizing: SplitSizing | None, start: str) -> None:
        self._options = options
        self._sizing = sizing
        self._start = start
        self._tasks = HudiDataSourceReader(options, schema, sizing)
        #: Set for ``Trigger.AvailableNow``: no offset beyond it.
        self._target: str | None = None

    @classmethod
    def build(cls, options: SourceOptions, schema: StructType, sizing: SplitSizing | None) -> HudiStreamReader:
        """The reader of a query.

        Raises:
            InvalidConfigValueError: A sink option, an instant bound or time travel (each micro-batch
                sets its own window), a query type other than incremental, or an empty start offset.
        """
        options.refuse_streaming(STREAM_READ_KEYS)
        for key in _WINDOW_KEYS:
            if key in options.hoodie:
                reason = f"a stream sets each batch's window; start it with {START_OFFSET_KEY}"
                raise InvalidConfigValueError(key, reason)
        query_type = options.hoodie.get(_QUERY_TYPE_KEY, "incremental").strip().lower()
        if query_type != "incremental":
            raise InvalidConfigValueError(_QUERY_TYPE_KEY, "a stream reads incrementally (incremental)")
        start = options.streaming.get(START_OFFSET_KEY, "earliest").strip()
        if not start:
            raise InvalidConfigValueError(START_OFFSET_KEY, "expected earliest, latest or an instant time")
        return cls(options, schema, sizing, start)

    def _latest(self) -> str:
        return latest_offset(self._options.open_table())

    def initialOffset(self) -> dict[str, str]:  # noqa: N802 - Spark's name
        with reported_to_spark():
            lowered = self._start.lower()
            if lowered == "earliest":
                return _offset(INIT_OFFSET)
            if lowered == "latest":
                return _offset(self._latest())
            from hudi_framework.read.options import resolve_instant_time
            from hudi_framework.vocabulary import TimelineTimezone

            table = self._options.open_table()
            resolved = resolve_instant_time(self._start, TimelineTimezone(table.config.timeline_timezone))
            assert resolved is not None
            return _offset(resolved)

    def prepareForTriggerAvailableNow(self) -> None:  # noqa: N802 - Spark's name
        with reported_to_spark():
            self._target = self._latest()

    def latestOffset(self, start: dict[str, str], limit: ReadLimit) -> dict[str, str]:  # noqa: N802 - Spark's name
        with reported_to_spark():
            latest = self._latest()
            if self._target is not None:
                latest = min(latest, self._target)
            # Never behind the start (a start offset given in the future, or a table rewritten under
            # the query): Spark takes an unchanged offset for "no new data".
            return _offset(max(latest, _time(start)))

    def partitions(self, start: dict[str, str], end: dict[str, str]) -> Sequence[InputPartition]:
        begin, until = _time(start), _time(end)
        if begin >= until:
            return []
        from hudi_framework.read.reader import build_options, plan_read

        with reported_to_spark():
            hoodie = {k: v for k, v in self._options.hoodie.items() if k != _QUERY_TYPE_KEY}
            options = build_options(
                options=hoodie, query_type="incremental", begin=None if begin == INIT_OFFSET else begin, end=until
            )
            return read_splits(plan_read(self._options.open_table(), options), self._sizing)

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        return self._tasks.read(partition)

    def commit(self, end: dict[str, str]) -> None:
        """Nothing to release: offsets are timeline times, and the table keeps no reader state."""
