"""The source contract: where an ingestion job (the streamer) gets its rows, batch after batch.

A source reads in two steps, so that the driver only plans and executors do the reading:

1. :meth:`Source.plan` runs in the driver. Given the checkpoint of the last committed batch (None for
   the first run), it decides what the next batch is: a tuple of :class:`SourceSplit` (a file, a
   Kafka partition's offset range, a table's file slice...) and the checkpoint that is reached once
   those splits are written. It does no bulk reading.
2. :meth:`Source.read` runs wherever the engine puts a split (a Spark task, a local worker) and
   yields the split's rows as Arrow record batches.

The job writes the batch and commits the new checkpoint in the same commit's extra metadata, so a
crash at any point either keeps the old checkpoint (the batch is read again) or the new one (the
batch is never read again): exactly once, provided :meth:`Source.plan` is deterministic for a given
checkpoint and limit over data that no longer changes, and :meth:`Source.read` returns the same rows
for the same split.

A source is built from its validated options (see
:class:`~hudi_framework.plugin.spec.ComponentSpec`) in the driver and again in each process that
reads splits; :meth:`Source.read` must rely only on its options, the split and the context. Splits
and schemas must pickle.
"""

from __future__ import annotations

import abc
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from pydantic import AliasChoices, BaseModel

if TYPE_CHECKING:
    import pyarrow as pa

    from hudi_framework.contracts.storage import StorageBackend

__all__ = ["Source", "SourceContext", "SourcePlan", "SourceSplit", "option_keys"]


@dataclass(frozen=True, slots=True)
class SourceSplit:
    """One unit of reading, small enough to ship to an executor.

    Attributes:
        id: Stable name of the split (a file's URI, ``topic-2:100-200``), shown in progress and errors.
        payload: What :meth:`Source.read` needs to read it, JSON-compatible values only.
        size_hint: Expected bytes (or records, where bytes are unknown), to balance tasks; 0 if unknown.
    """

    id: str
    payload: Mapping[str, object] = field(default_factory=dict)
    size_hint: int = 0


@dataclass(frozen=True, slots=True)
class SourcePlan:
    """The next batch of a source.

    Attributes:
        splits: What to read; empty when nothing new has arrived.
        checkpoint: The checkpoint reached once ``splits`` are written, in the source's own format
            (Apache Hudi's where it has one: a DFS source's last modification time in epoch
            milliseconds, a Kafka source's ``topic,0:120,1:98``). When ``splits`` is empty this is the
            checkpoint the plan started from.
        schema: The batch's schema when the source knows it before reading (Parquet, Avro, a schema
            registry), else None and the engine takes it from the rows read.
    """

    splits: tuple[SourceSplit, ...]
    checkpoint: str | None
    schema: pa.Schema | None = None

    @property
    def empty(self) -> bool:
        """True when there is nothing new to ingest."""
        return not self.splits


class SourceContext(Protocol):
    """What the kernel hands a source, in the driver and in executors."""

    def storage(self, uri: str) -> StorageBackend:
        """A storage backend rooted at ``uri`` (``file:///landing``, ``s3://bucket/landing``), opened
        with the job's storage settings (credentials, endpoint) by the installed storage plugins.

        Opening a backend can cost more than reading a small file (an S3 client): sources keep the
        backend they opened for a context and reuse it while the context is the same object."""
        ...


def option_keys(options_model: type[BaseModel]) -> frozenset[str]:
    """Every key ``options_model`` accepts: its field names and their aliases.

    Source options models take Apache Hudi's keys (``hoodie.streamer.source.dfs.root`` and the older
    ``hoodie.deltastreamer.*`` spelling) as validation aliases, so a job holding a HoodieStreamer
    properties file hands each source exactly the entries it knows and no others.
    """
    keys: set[str] = set()
    for name, info in options_model.model_fields.items():
        keys.add(name)
        for alias in (info.alias, info.validation_alias):
            if isinstance(alias, str):
                keys.add(alias)
            elif isinstance(alias, AliasChoices):
                keys.update(choice for choice in alias.choices if isinstance(choice, str))
    return frozenset(keys)


class Source(abc.ABC):
    """A plugin that feeds an ingestion job; see the module docs for the plan/read split."""

    @abc.abstractmethod
    def plan(self, checkpoint: str | None, *, limit: int | None, context: SourceContext) -> SourcePlan:
        """Decide the next batch after ``checkpoint``.

        Args:
            checkpoint: The checkpoint the table's last ingestion commit recorded, or None on the first
                run (or after the user reset it).
            limit: At most this many bytes (file sources) or records (Kafka) in the batch; None: no limit.
                A single file larger than the limit is still taken whole.
            context: Storage access.

        Returns:
            The splits and the checkpoint they reach.

        Raises:
            SourceError: The checkpoint is not one this source wrote, or the source cannot be listed.
        """

    @abc.abstractmethod
    def read(self, split: SourceSplit, context: SourceContext) -> Iterator[pa.RecordBatch]:
        """The rows of ``split``, as record batches of one schema.

        Raises:
            SourceError: The split cannot be read or decoded (naming the split's ``id``).
        """
