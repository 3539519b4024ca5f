"""A job's rows ingested as an upstream system would deliver them: landed as files, taken by the streamer.

With ``job.ingest = "streamer"`` each step's rows are written as one Parquet file into the landing
directory, then one streamer round (:func:`~hudi_framework.streamer.run_streamer`, the
``parquet-dfs`` source over that directory) plans it from the table's checkpoint, reads it and
writes it, the new checkpoint in the same commit. Deletes land as rows flagged
``_hoodie_is_deleted`` and are upserted, as Apache Hudi's streamer ingests a CDC feed. The writes
a streamer does not make, ``insert_overwrite`` batches and the reload of an existing table with
``insert_overwrite_table``, go to the direct writer.

The landing directory belongs to the job: files it landed in an earlier run are removed when a run
starts, and any other file there stops the run (the streamer would ingest it too).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Final

import pyarrow as pa
import pyarrow.parquet as pq

from hudi_framework.config.settings import HudiSettings
from hudi_framework.config.streamer import StreamerSettings
from hudi_framework.errors import JobError
from hudi_framework.jobs.engine import BatchWriter
from hudi_framework.streamer.job import run_streamer
from hudi_framework.vocabulary import WriteOperation
from hudi_framework.write.batch import IS_DELETED
from hudi_framework.write.client import WriteResult

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["LandingWriter", "landing_directory"]

#: The streamer's source for the landed files (Apache Hudi's ParquetDFSSource).
SOURCE: Final = "ParquetDFSSource"
_PREFIX: Final = "hudi-fw-job-"


def landing_directory(settings: HudiSettings) -> tuple[Path, bool]:
    """The landing directory of the job, and whether it is a temporary one (removed after the run)."""
    configured = settings.job.landing_path
    if configured is not None:
        return Path(configured), False
    base = settings.table.base_path or ""
    local = base.removeprefix("file://")
    if "://" in local:  # a remote table: the files land in this machine's temporary directory
        return Path(tempfile.mkdtemp(prefix="hudi-fw-landing-")), True
    return Path(local.rstrip("/") + ".landing"), False


class LandingWriter:
    """Writes each batch by landing it as a Parquet file and running one streamer round over it.

    Args:
        settings: The job's settings (the table, engine and services the streamer writes with).
        landing: The landing directory (created; the job's earlier files removed).
        direct: The writer of the overwrites (``insert_overwrite``, ``insert_overwrite_table``).
        spark: The job's session on the Spark engine (None: the local engine).
    """

    def __init__(self, settings: HudiSettings, landing: Path, direct: BatchWriter, spark: SparkSession | None) -> None:
        """Prepare the landing directory.

        Raises:
            JobError: The directory holds files the job did not land.
        """
        landing.mkdir(parents=True, exist_ok=True)
        # Hidden files are never ingested (the source skips ``.``/``_`` names); ours may be left from a crash.
        foreign = sorted(p.name for p in landing.iterdir() if not p.name.startswith((_PREFIX, ".", "_")))
        if foreign:
            raise JobError(
                f"the landing directory {landing} holds files the job did not land ({', '.join(foreign[:3])}): "
                "the streamer would ingest them too; set job.landing_path to an empty directory"
            )
        for path in landing.iterdir():
            if path.name.startswith((_PREFIX, "." + _PREFIX)):
                path.unlink()
        self._settings = settings
        self._landing = landing
        self._direct = direct
        self._spark = spark
        self._landed = 0
        self._last_ms = 0

    def write(self, data: pa.Table, operation: WriteOperation) -> WriteResult:
        """Land ``data`` and ingest it with one streamer round.

        Raises:
            JobError: The round committed nothing.
        """
        if operation in (WriteOperation.INSERT_OVERWRITE, WriteOperation.INSERT_OVERWRITE_TABLE):
            return self._direct.write(data, operation)
        if operation is WriteOperation.DELETE:
            data = data.append_column(pa.field(IS_DELETED, pa.bool_()), pa.repeat(pa.scalar(True), data.num_rows))
            operation = WriteOperation.UPSERT
        self._land(data)
        streamer = StreamerSettings(
            source=SOURCE,
            source_options={"hoodie.streamer.source.dfs.root": str(self._landing)},
            operation=operation,
        )
        # The job's own services settings decide compaction, as for a direct write: marked as set, so
        # the streamer does not apply HoodieStreamer's inline-compaction default of one-round runs.
        services = self._settings.services
        compaction = services.compaction.model_copy(update={"inline": services.compaction.inline})
        settings = self._settings.model_copy(
            update={"streamer": streamer, "services": services.model_copy(update={"compaction": compaction})}
        )
        report = run_streamer(settings, spark=self._spark)
        result = report.rounds[0].result if report.rounds else None
        if result is None:
            raise JobError(f"the streamer found nothing to ingest in {self._landing}")
        return result

    def _land(self, data: pa.Table) -> None:
        self._landed += 1
        path = self._landing / f"{_PREFIX}{self._landed:05d}.parquet"
        partial = path.with_name("." + path.name + ".tmp")
        pq.write_table(data, partial)
        # The checkpoint is the last modification time taken (milliseconds): every file lands later
        # than the one before, even within a millisecond or on a coarse clock.
        now_ms = max(time.time_ns() // 1_000_000, self._last_ms + 1)
        self._last_ms = now_ms
        os.utime(partial, ns=(now_ms * 1_000_000, now_ms * 1_000_000))
        shutil.move(partial, path)

    def close(self, *, remove: bool) -> None:
        """Remove the landing directory when it was a temporary one."""
        if remove:
            shutil.rmtree(self._landing, ignore_errors=True)
