"""The ``[job]`` section: what ``hudi-fw run`` does with the table the other sections describe.

A job loads a sample dataset (generated, or read from a Parquet or CSV file), writes it, applies a
list of change batches and reads the table back. Which engine runs the writes is ``write.engine``
(``spark`` or ``local``), the same switch every other write obeys, so the job has no engine field
of its own. None of these fields has an Apache Hudi key: they drive the demo job, not the table.
"""

from __future__ import annotations

import enum
from types import MappingProxyType
from typing import Final, Self

from pydantic import Field, model_validator

from hudi_framework.config.base import CrossFieldError, NonNegativeInt, PositiveInt, Section
from hudi_framework.vocabulary import WriteOperation

__all__ = ["BATCH_OPERATIONS", "JobBatch", "JobIngest", "JobSettings", "JobSource", "OnExistingTable"]


class JobSource(enum.StrEnum):
    """Where the job's rows come from."""

    GENERATE = "generate"
    """A deterministic ``trips`` dataset (``trip_id`` key, ``city`` partition, ``ts`` ordering)."""
    PARQUET = "parquet"
    """A Parquet file or directory (``job.source_path``)."""
    CSV = "csv"
    """A CSV file with a header row (``job.source_path``)."""


class JobIngest(enum.StrEnum):
    """How each step's rows reach the table."""

    STREAMER = "streamer"
    """Landed as a Parquet file in ``job.landing_path``, then ingested by one streamer round (the
    ``parquet-dfs`` source, the checkpoint in the commit), as ``hudi-fw streamer`` would. The
    overwrites a streamer does not make (``insert_overwrite`` batches, reloading an existing table)
    are written directly."""
    DIRECT = "direct"
    """Handed to the write client (in process or ``SparkWriteClient``) as one write."""


class OnExistingTable(enum.StrEnum):
    """What the job does when the table already holds commits."""

    OVERWRITE = "overwrite"
    """Load the initial rows with ``insert_overwrite_table``: the data starts over, the timeline goes on."""
    FAIL = "fail"
    """Stop with an error before writing anything."""


#: Write operations a change batch can use, and the row counts each one takes.
BATCH_OPERATIONS: Final = MappingProxyType(
    {
        WriteOperation.UPSERT: frozenset({"updates", "inserts"}),
        WriteOperation.INSERT: frozenset({"inserts"}),
        WriteOperation.DELETE: frozenset({"deletes"}),
        WriteOperation.INSERT_OVERWRITE: frozenset({"inserts", "partitions"}),
    }
)
#: Initial loads may use these operations (the table is empty or being overwritten).
_INITIAL_OPERATIONS = frozenset({WriteOperation.INSERT, WriteOperation.BULK_INSERT, WriteOperation.UPSERT})


class JobBatch(Section):
    """One change batch: a single write operation, hence one instant on the timeline."""

    operation: WriteOperation = WriteOperation.UPSERT
    """``upsert``, ``insert``, ``delete`` or ``insert_overwrite``."""
    updates: NonNegativeInt = 0
    """``upsert`` only: existing keys rewritten with a later ordering value (capped at the live rows)."""
    inserts: NonNegativeInt = 0
    """``upsert``, ``insert``, ``insert_overwrite``: rows with new keys."""
    deletes: NonNegativeInt = 0
    """``delete`` only: existing keys removed (capped at the live rows)."""
    partitions: PositiveInt = 1
    """``insert_overwrite`` with a generated source: how many partitions the new rows fill (and replace)."""

    @model_validator(mode="after")
    def _check(self) -> Self:
        allowed = BATCH_OPERATIONS.get(self.operation)
        if allowed is None:
            raise CrossFieldError(
                f"a batch's operation is one of {', '.join(op.value for op in BATCH_OPERATIONS)}, not "
                f"{self.operation.value}",
                ("job", "batches"),
            )
        # Checked on values, not on fields set: a dumped batch (all fields) must load back.
        given = {"updates": self.updates, "inserts": self.inserts, "deletes": self.deletes}
        given["partitions"] = self.partitions - 1
        for name, value in given.items():
            if value and name not in allowed:
                raise CrossFieldError(f"{name} does not apply to {self.operation.value} batches", ("job", "batches"))
        if self.updates + self.inserts + self.deletes == 0:
            raise CrossFieldError(f"a {self.operation.value} batch needs at least one row", ("job", "batches"))
        return self


class JobSettings(Section):
    """The ``hudi-fw run`` job: sample data, an initial write, change batches, a verified read."""

    source: JobSource = JobSource.GENERATE
    """``generate`` (the ``trips`` sample), ``parquet`` or ``csv`` (read from ``source_path``)."""
    source_path: str | None = Field(default=None, min_length=1)
    """File or directory read by the ``parquet`` and ``csv`` sources."""
    rows: PositiveInt = 50_000
    """Rows of the initial write: generated, or the first rows of the file (the rest feed inserts)."""
    seed: int = 42
    """Seed of every random choice; the same seed and settings give the same data and results."""
    initial_operation: WriteOperation = WriteOperation.INSERT
    """Operation of the initial write: ``insert``, ``bulk_insert`` or ``upsert``."""
    on_existing_table: OnExistingTable = OnExistingTable.OVERWRITE
    """``overwrite`` (the initial write replaces the table's rows) or ``fail``, when the table has commits."""
    batches: tuple[JobBatch, ...] = ()
    """Change batches applied in order after the initial write (``[[job.batches]]`` tables)."""
    ingest: JobIngest = JobIngest.DIRECT
    """``streamer`` (every step's rows land as a file and a streamer round ingests it) or ``direct``."""
    landing_path: str | None = Field(default=None, min_length=1)
    """``streamer`` ingestion: the local directory the rows land in (unset: ``<base path>.landing``
    beside a local table, a temporary directory for a remote one)."""
    verify: bool = True
    """Read the table back and compare row count and checksum with the rows the job expects."""
    spark_master: str = Field(default="local[*]", min_length=1)
    """Spark master URL of the session the job starts when ``write.engine`` is ``spark``."""
    spark_conf: dict[str, str] = Field(default_factory=dict)
    """Extra Spark settings for that session (``"spark.sql.shuffle.partitions" = "8"``)."""

    @model_validator(mode="after")
    def _check(self) -> Self:
        if self.source is not JobSource.GENERATE and self.source_path is None:
            raise CrossFieldError(f"the {self.source.value} source needs job.source_path", ("job", "source_path"))
        if self.initial_operation not in _INITIAL_OPERATIONS:
            raise CrossFieldError(
                "job.initial_operation is insert, bulk_insert or upsert", ("job", "initial_operation")
            )
        return self
