"""What a job run did: one :class:`StepReport` per write, a :class:`ReadReport`, the timeline."""

from __future__ import annotations

from dataclasses import dataclass

from hudi_framework.config.enums import WriteEngine
from hudi_framework.timeline.instant import Instant
from hudi_framework.vocabulary import WriteOperation
from hudi_framework.write.client import WriteResult

__all__ = ["JobReport", "ReadReport", "StepReport"]


@dataclass(frozen=True, slots=True)
class StepReport:
    """One write of a job.

    Attributes:
        index: The step's position (0 is the initial load).
        label: ``load``, ``batch 1``...
        rows_in: Rows handed to the write.
        result: What the write client returned (instant, operation, write stats).
        seconds: Wall time of the step: preparing the rows and writing them.
        requested: The job's operation when the commit's differs (a delete batch the streamer
            ingested as an upsert of flagged rows); None: the commit's.
    """

    index: int
    label: str
    rows_in: int
    result: WriteResult
    seconds: float
    requested: WriteOperation | None = None

    @property
    def instant(self) -> Instant:
        """The completed instant of the write."""
        return self.result.instant

    @property
    def operation(self) -> str:
        """The job's write operation."""
        return (self.requested or self.result.operation).value

    @property
    def inserted(self) -> int:
        """New keys written."""
        return self.result.num_inserts

    @property
    def updated(self) -> int:
        """Existing keys rewritten."""
        return self.result.num_updates

    @property
    def deleted(self) -> int:
        """Keys deleted."""
        return self.result.num_deletes

    @property
    def files_written(self) -> int:
        """Base files the write produced (new file groups and new versions of existing ones)."""
        return len({s.path for s in self.result.stats if s.path})

    @property
    def bytes_written(self) -> int:
        """Bytes of the files written."""
        return sum(s.total_write_bytes or 0 for s in self.result.stats)


@dataclass(frozen=True, slots=True)
class ReadReport:
    """The final read and its comparison with the job's expected rows.

    Attributes:
        rows: Rows read with :func:`~hudi_framework.read.reader.read_table`.
        checksum: Content checksum of those rows.
        expected_rows: Rows the job's model holds.
        expected_checksum: Content checksum of the model.
        seconds: Wall time of the read and the comparison.
        spark_rows: Rows counted by ``spark.read.format("hudi")`` (Spark engine only).
    """

    rows: int
    checksum: str
    expected_rows: int
    expected_checksum: str
    seconds: float
    spark_rows: int | None = None

    @property
    def matches(self) -> bool:
        """Whether the table holds exactly the expected rows (every count agrees)."""
        same = self.rows == self.expected_rows and self.checksum == self.expected_checksum
        return same and self.spark_rows in (None, self.expected_rows)


@dataclass(frozen=True, slots=True)
class JobReport:
    """The outcome of a job run.

    Attributes:
        table_name: The table's name.
        base_path: The table's base path or URI.
        table_type: ``COPY_ON_WRITE``...
        engine: Where the writes ran.
        spark_master: The Spark master (Spark engine only).
        source: The data source as shown to users.
        created: Whether the job created the table.
        steps: One report per write, in order.
        expected_rows: Rows the job's model holds after the last write.
        read: The final read, or None when ``job.verify`` is off.
        timeline: The table's instants after the job.
        seconds: Wall time of the whole job (the Spark session start included).
    """

    table_name: str
    base_path: str
    table_type: str
    engine: WriteEngine
    spark_master: str | None
    source: str
    created: bool
    steps: tuple[StepReport, ...]
    expected_rows: int
    read: ReadReport | None
    timeline: tuple[Instant, ...]
    seconds: float

    @property
    def verified(self) -> bool:
        """Whether the read-back matched (False when nothing was read)."""
        return self.read is not None and self.read.matches

    @property
    def final_rows(self) -> int:
        """Rows the table holds after the job, as read back (or as expected when not read)."""
        return self.read.rows if self.read is not None else self.expected_rows
