"""``df.writeStream.format("hudi")``: each micro-batch is one Hudi commit, applied exactly once.

Tasks stage their rows (one Parquet file each under ``.hoodie/.temp/``), as the batch
``format("hudi")`` write does for upserts; the commit of micro-batch ``n`` writes them with the
local engine as one instant (the operation of ``hoodie.datasource.write.operation``, upsert by
default; ``outputMode("complete")`` replaces the table) whose extra metadata holds Apache Hudi's
streaming sink checkpoint ``_hudi_streaming_sink_checkpoint = {"<identifier>": "<n>"}``
(``hoodie.datasource.write.streaming.checkpoint.identifier``, default ``default_single_writer``).

After a restart Spark replays every batch its own checkpoint does not record as committed, which
may be one the table already holds (the query stopped between the Hudi commit and Spark's commit
log). A batch whose id is at most the latest id committed under this identifier is therefore
skipped: each batch reaches the table once, whichever side of the Hudi commit the query stopped.
Unlike Apache Hudi, deletes are skipped the same way (their batch ids are real ones here).

A failed batch leaves the table as it was; it is retried (``...streaming.retry.count`` attempts in
all, waiting ``...retry.interval.ms``, doubled after each) when the failure may pass (an I/O error,
a write conflict, an unknown commit outcome: the checkpoint is looked up again before each
attempt), and then fails the query, unless ``...streaming.ignore.failed.batch`` skips it.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Final

import pyarrow as pa
import pyarrow.parquet as pq
from pyspark.sql.datasource import DataSourceStreamArrowWriter, WriterCommitMessage
from pyspark.sql.types import StructType

from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.errors import (
    CommitError,
    ConcurrencyError,
    HudiError,
    InstantMetadataError,
    InvalidConfigValueError,
    UnsupportedOptionError,
)
from hudi_framework.runtime.components import Components
from hudi_framework.runtime.table import HudiTable
from hudi_framework.spark.datasource_write import STAGING_ROOT, check_frame, open_or_create, task_identity
from hudi_framework.spark.options import STREAM_WRITE_KEYS, SourceOptions
from hudi_framework.spark.task_errors import reported_write
from hudi_framework.vocabulary import WriteOperation
from hudi_framework.write.client import WriteClient
from hudi_framework.write.markers import STAGING_DIR_PREFIX
from hudi_framework.write.post_commit import PostCommitSteps

__all__ = [
    "DEFAULT_IDENTIFIER",
    "SINK_CHECKPOINT_KEY",
    "HudiStreamWriter",
    "SinkOptions",
    "checkpoint_value",
    "committed_batch_id",
]

_LOG = logging.getLogger(__name__)

#: Apache Hudi's extra-metadata key of its Structured Streaming sink (``HoodieStreamingSink``).
SINK_CHECKPOINT_KEY: Final = "_hudi_streaming_sink_checkpoint"
IDENTIFIER_KEY: Final = "hoodie.datasource.write.streaming.checkpoint.identifier"
DEFAULT_IDENTIFIER: Final = "default_single_writer"
RETRY_COUNT_KEY: Final = "hoodie.datasource.write.streaming.retry.count"
RETRY_INTERVAL_KEY: Final = "hoodie.datasource.write.streaming.retry.interval.ms"
IGNORE_FAILED_KEY: Final = "hoodie.datasource.write.streaming.ignore.failed.batch"
DISABLE_COMPACTION_KEY: Final = "hoodie.datasource.write.streaming.disable.compaction"
ASYNC_COMPACTION_KEY: Final = "hoodie.datasource.compaction.async.enable"
#: The task-local property Spark's micro-batch execution sets to the batch id.
BATCH_ID_PROPERTY: Final = "streaming.sql.batchId"

_NO_ASYNC_COMPACTION: Final = (
    "the streaming sink does not compact asynchronously: compact after a batch's commit with "
    "hoodie.compact.inline=true, or schedule plans with hoodie.compact.schedule.inline=true and run them "
    "as a table service"
)


def _flag(raw: Mapping[str, str], key: str, default: bool) -> bool:
    value = raw.get(key)
    if value is None:
        return default
    text = value.strip().lower()
    if text not in ("true", "false"):
        raise InvalidConfigValueError(key, "expected true or false")
    return text == "true"


def _count(raw: Mapping[str, str], key: str, default: int, minimum: int) -> int:
    value = raw.get(key)
    if value is None:
        return default
    text = value.strip()
    if not text.isdigit() or int(text) < minimum:
        raise InvalidConfigValueError(key, f"expected a whole number >= {minimum}")
    return int(text)


@dataclass(frozen=True)
class SinkOptions:
    """The sink's own options (Apache Hudi's ``hoodie.datasource.write.streaming.*``).

    Attributes:
        identifier: Whose batch ids the checkpoint holds (one per query writing the table).
        retry_count: Attempts per batch whose failure may pass (Apache Hudi's default, 3).
        retry_interval_ms: Wait before the first retry, doubled after each (default 2000).
        ignore_failed_batch: Skip a batch that failed instead of failing the query (default false).
    """

    identifier: str = DEFAULT_IDENTIFIER
    retry_count: int = 3
    retry_interval_ms: int = 2000
    ignore_failed_batch: bool = False

    @classmethod
    def parse(cls, options: SourceOptions) -> SinkOptions:
        """The sink options among a query's; streaming-source options and async compaction are refused.

        Raises:
            InvalidConfigValueError: A value that is not valid, or an option of ``readStream``.
            UnsupportedOptionError: Asynchronous compaction asked for (the sink has none).
        """
        options.refuse_streaming(STREAM_WRITE_KEYS)
        raw = options.streaming
        if _flag(options.hoodie, ASYNC_COMPACTION_KEY, False):
            raise UnsupportedOptionError(ASYNC_COMPACTION_KEY, _NO_ASYNC_COMPACTION)
        # Apache Hudi's default (false) runs asynchronous compaction; only turning it off is honest here.
        if DISABLE_COMPACTION_KEY in raw and not _flag(raw, DISABLE_COMPACTION_KEY, True):
            raise UnsupportedOptionError(DISABLE_COMPACTION_KEY, _NO_ASYNC_COMPACTION)
        identifier = raw.get(IDENTIFIER_KEY, DEFAULT_IDENTIFIER).strip()
        if not identifier:
            raise InvalidConfigValueError(IDENTIFIER_KEY, "must not be empty")
        return cls(
            identifier=identifier,
            retry_count=_count(raw, RETRY_COUNT_KEY, 3, 1),
            retry_interval_ms=_count(raw, RETRY_INTERVAL_KEY, 2000, 0),
            ignore_failed_batch=_flag(raw, IGNORE_FAILED_KEY, False),
        )


def checkpoint_value(identifier: str, batch_id: int) -> str:
    """The ``_hudi_streaming_sink_checkpoint`` value recording ``batch_id`` (JSON, as Apache Hudi writes it)."""
    return json.dumps({identifier: str(batch_id)}, separators=(",", ":"))


def committed_batch_id(table: HudiTable, identifier: str) -> int | None:
    """The latest batch id committed under ``identifier``: the checkpoint of the newest completed write
    instant (requested-time order, active timeline) whose checkpoint names ``identifier``.

    Raises:
        InstantMetadataError: A checkpoint value that is not a JSON object of batch ids.
    """
    timeline = table.timeline
    for instant in reversed(timeline.commits_timeline()):
        value = (timeline.read_commit_metadata(instant).extra_metadata or {}).get(SINK_CHECKPOINT_KEY)
        if not value:
            continue
        try:
            recorded = json.loads(value)
            if not isinstance(recorded, dict):
                raise TypeError(value)
            if identifier not in recorded:
                continue  # another query's checkpoint
            return int(recorded[identifier])
        except (ValueError, TypeError):
            reason = f"{SINK_CHECKPOINT_KEY} is not a JSON object of batch ids: {value!r}"
            raise InstantMetadataError(table.storage.uri(timeline.file_key(instant)), reason) from None
    return None


def _may_pass(error: Exception) -> bool:
    """Whether retrying may succeed: not bad input or a table in a state a retry cannot change."""
    return not isinstance(error, HudiError) or isinstance(error, ConcurrencyError | CommitError)


def _staging_dir(identifier: str, batch_id: int) -> str:
    # Derived, not random: the tasks, the commit and an abort run in different processes, each with
    # its own writer, and an abort gets no messages to name the files.
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", identifier)
    return f"{STAGING_ROOT}/{STAGING_DIR_PREFIX}stream-{safe}-{batch_id}"


def _task_batch_id() -> int:
    from pyspark import TaskContext

    ctx = TaskContext.get()
    value = ctx.getLocalProperty(BATCH_ID_PROPERTY) if ctx is not None else None
    return int(value) if value is not None else -1


@dataclass
class _Staged(WriterCommitMessage):
    key: str
    rows: int


class HudiStreamWriter(DataSourceStreamArrowWriter):
    """Tasks stage a micro-batch's rows; ``commit`` writes them as one instant, once per batch id."""

    def __init__(self, options: SourceOptions, sink: SinkOptions, operation: WriteOperation) -> None:
        self._options = options
        self._sink = sink
        self._operation = operation

    @classmethod
    def build(cls, options: SourceOptions, schema: StructType, overwrite: bool) -> HudiStreamWriter:
        """The writer of a query (bad options and a schema that does not fit the table fail here)."""
        sink = SinkOptions.parse(options)
        operation, _ = check_frame(options, schema, overwrite)
        return cls(options, sink, operation)

    def _table(self, schema: pa.Schema | None = None) -> HudiTable | None:
        return open_or_create(self._options, schema)

    def _storage(self) -> StorageBackend:
        table = self._table()
        if table is not None:
            return table.storage
        return Components.from_settings(self._options.settings).storage(self._options.path)

    @reported_write
    def write(self, iterator: Iterator[pa.RecordBatch]) -> _Staged:
        part, stage, attempt = task_identity()
        batches = list(iterator)
        if not batches:
            return _Staged(key="", rows=0)
        rows = pa.Table.from_batches(batches)
        key = f"{_staging_dir(self._sink.identifier, _task_batch_id())}/{part:05d}-{stage}-{attempt}.parquet"
        with self._storage().open_output(key) as sink:
            pq.write_table(rows, sink)
        return _Staged(key=key, rows=rows.num_rows)

    @reported_write
    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:  # noqa: N803 - Spark's name
        storage = self._storage()
        keys = sorted(m.key for m in messages if isinstance(m, _Staged) and m.key)
        try:
            self._commit_with_retries(storage, keys, batchId)
        finally:
            # Committed, skipped or failed: the staged rows are done with (a leftover is swept by the
            # next write, never an error here).
            PostCommitSteps(str(batchId)).run("staging cleanup", lambda: self._cleanup(storage, batchId))

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:  # noqa: N803 - Spark's name
        self._cleanup(self._storage(), batchId)

    def _cleanup(self, storage: StorageBackend, batch_id: int) -> None:
        storage.delete_tree(_staging_dir(self._sink.identifier, batch_id))

    def _commit_with_retries(self, storage: StorageBackend, keys: list[str], batch_id: int) -> None:
        delay = self._sink.retry_interval_ms / 1000
        data: pa.Table | None = None
        loaded = False
        for attempt in range(1, self._sink.retry_count + 1):
            try:
                if self._already_committed(batch_id):
                    return
                if not loaded:
                    # Read once: the write sweeps staging directories it does not own before it starts.
                    data, loaded = _read_staged(storage, keys), True
                if data is not None:  # an empty batch commits nothing (and replaying it writes nothing)
                    self._write(data, batch_id)
                return
            except Exception as e:
                if self._sink.ignore_failed_batch:
                    _LOG.warning("hudi streaming sink: batch %d failed and is skipped (%s): %s", batch_id,
                                 IGNORE_FAILED_KEY, e)  # fmt: skip
                    return
                if attempt == self._sink.retry_count or not _may_pass(e):
                    raise
                _LOG.warning("hudi streaming sink: batch %d failed (attempt %d of %d), retrying in %.1f s: %s",
                             batch_id, attempt, self._sink.retry_count, delay, e)  # fmt: skip
                time.sleep(delay)
                delay *= 2

    def _already_committed(self, batch_id: int) -> bool:
        table = self._table()
        last = committed_batch_id(table, self._sink.identifier) if table is not None else None
        if last is not None and last >= batch_id:
            _LOG.warning("hudi streaming sink: batch %d is already committed (latest batch %d of %r): skipped",
                         batch_id, last, self._sink.identifier)  # fmt: skip
            return True
        return False

    def _write(self, data: pa.Table, batch_id: int) -> None:
        table = self._table(data.schema)
        assert table is not None
        extra = {SINK_CHECKPOINT_KEY: checkpoint_value(self._sink.identifier, batch_id)}
        WriteClient(table, self._options.settings).write(data, self._operation, extra_metadata=extra)


def _read_staged(storage: StorageBackend, keys: list[str]) -> pa.Table | None:
    parts = []
    for key in keys:
        with storage.open_input(key) as f:
            parts.append(pq.read_table(f))
    return pa.concat_tables(parts, promote_options="default") if parts else None
