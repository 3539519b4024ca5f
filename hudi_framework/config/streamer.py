"""The ``[streamer]`` section: what ``hudi-fw streamer`` ingests, how, and how often.

The streamer reads a source plugin batch after batch and writes each batch to the table the other
sections describe, with the source's checkpoint in the same commit. Its fields carry Apache Hudi's
HoodieStreamer option keys where HoodieStreamer has one (``hoodie.streamer.transformer.sql``,
``hoodie.streamer.schemaprovider.source.schema.file``); its command-line flags map onto the same
fields. The table's ordering field (HoodieStreamer's ``--source-ordering-field``) is
``table.ordering_fields``, and which engine writes is ``write.engine``, as for every write.
"""

from __future__ import annotations

from typing import Any, Final, Self

from pydantic import Field, field_validator, model_validator

from hudi_framework.config.base import CrossFieldError, PositiveInt, Section
from hudi_framework.vocabulary import WriteOperation

__all__ = ["SQL_TRANSFORMER", "SRC_PLACEHOLDER", "STREAMER_OPERATIONS", "StreamerSettings"]

#: Write operations a streamer round may use (HoodieStreamer's ``--op``).
STREAMER_OPERATIONS: Final = frozenset({WriteOperation.UPSERT, WriteOperation.INSERT, WriteOperation.BULK_INSERT})
#: The transformer that runs ``streamer.transformer_sql`` (Apache Hudi's SqlQueryBasedTransformer).
SQL_TRANSFORMER: Final = "sql"
#: What a transformer's SQL query names the batch by (Apache Hudi's placeholder).
SRC_PLACEHOLDER: Final = "<SRC>"


class StreamerSettings(Section):
    """The ``hudi-fw streamer`` job: a source, an optional transformer, checkpoints and the loop."""

    source: str | None = Field(default=None, min_length=1)
    """The source plugin, by name or alias (``json-dfs``, ``JsonDFSSource``, Apache Hudi's full class name)."""
    source_options: dict[str, Any] = Field(default_factory=dict)
    """Options of the source plugin, validated by its own options model; ``hoodie.streamer.source.*``
    keys (and their ``hoodie.deltastreamer.*`` spellings) given anywhere land here as written."""
    source_limit: PositiveInt | None = None
    """At most this many bytes (file sources) or records (Kafka) per round; unset: no limit."""
    operation: WriteOperation = WriteOperation.UPSERT
    """Write operation of every round: ``upsert``, ``insert`` or ``bulk_insert``."""
    transformers: tuple[str, ...] = ()
    """Transformers applied in order to each batch: ``sql`` (Apache Hudi's SqlQueryBasedTransformer,
    also by its class name) runs ``transformer_sql``; a transformer plugin by name or alias
    (``flatten``, ``FlatteningTransformer``); or a Python function ``package.module:function``."""
    transformer_options: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """Options of the transformer plugins, a table per transformer under its name in ``transformers``
    (or its registered name), validated by its own options model."""
    transformer_sql: str | None = Field(default=None, min_length=1)
    """The Spark SQL query of the ``sql`` transformer; it names the batch ``<SRC>``."""
    schema_file: str | None = Field(default=None, min_length=1)
    """An Avro schema file (``.avsc``) every batch is cast to (Apache Hudi's FilebasedSchemaProvider)."""
    checkpoint: str | None = Field(default=None, min_length=1)
    """Resume from this checkpoint instead of the table's, once: it is recorded as the reset key, and a
    later run given the same value resumes from the table's checkpoint again."""
    continuous: bool = False
    """Run round after round until stopped (SIGTERM or SIGINT stop it after the current round)."""
    min_sync_interval_seconds: float = Field(default=0.0, ge=0)
    """``continuous``: a round starts at least this many seconds after the previous one started."""
    max_rounds: PositiveInt | None = None
    """``continuous``: stop after this many rounds (unset: run until stopped)."""
    stop_after_idle_rounds: PositiveInt | None = None
    """``continuous``: stop after this many rounds in a row found nothing new (Apache Hudi's
    NoNewDataTerminationStrategy); unset: keep polling."""
    disable_compaction: bool = False
    """Merge-on-read: no compaction by the streamer (HoodieStreamer's ``--disable-compaction``). Otherwise,
    as Apache Hudi's streamer does, a one-round run compacts inline (``services.compaction`` decides
    when) and a continuous run schedules compactions inline and executes them in the background
    while the next rounds ingest; ``services.compaction.inline`` or ``schedule_inline`` set
    explicitly keep their own meaning."""
    max_pending_compactions: PositiveInt = 5
    """``continuous``: a round waits while this many compaction plans are pending (HoodieStreamer's
    ``--max-pending-compactions``)."""
    max_pending_clustering: PositiveInt = 5
    """``continuous`` with ``services.clustering.async_enabled``: a round waits while this many
    clustering plans are pending (HoodieStreamer's ``--max-pending-clustering``)."""
    spark_master: str = Field(default="local[*]", min_length=1)
    """Spark master URL of the session the streamer starts when ``write.engine`` is ``spark``."""
    spark_conf: dict[str, str] = Field(default_factory=dict)
    """Extra Spark settings for that session."""

    @field_validator("transformers", mode="before")
    @classmethod
    def _split_transformers(cls, value: object) -> object:
        # HoodieStreamer takes a comma-separated list in one --transformer-class.
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    @model_validator(mode="after")
    def _check(self) -> Self:
        if self.operation not in STREAMER_OPERATIONS:
            allowed = ", ".join(sorted(op.value for op in STREAMER_OPERATIONS))
            raise CrossFieldError(
                f"streamer.operation is one of {allowed}, not {self.operation.value}", ("streamer", "operation")
            )
        return self
