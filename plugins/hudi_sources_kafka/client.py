"""The Kafka client calls of the sources: partition offsets in the driver, one offset range in a reader.

The client is kafka-python (the project's ``kafka`` extra), imported when a source first talks to
Kafka, so the product imports without it. No consumer group takes part: the table's checkpoint is
the only record of what was read, so nothing is committed to Kafka and every range is read by
explicit assignment and seek.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from hudi_framework.errors import SourceError

if TYPE_CHECKING:
    from hudi_sources_kafka.options import KafkaSourceOptions

#: The distribution that provides the ``kafka`` module.
CLIENT_PACKAGE: Final = "kafka-python"
#: How long one poll waits for records before the reader checks its deadline again.
_POLL_MS: Final = 500


@dataclass(slots=True)
class FetchedRecords:
    """The records of one offset range, column by column (null values, Kafka's tombstones, dropped)."""

    values: list[bytes] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)
    timestamps: list[int] = field(default_factory=list)
    keys: list[bytes | None] = field(default_factory=list)


def _kafka(source: str) -> Any:
    try:
        import kafka  # optional dependency, imported when first used
    except ImportError as e:
        raise SourceError(
            source, f"the Kafka client is not installed: pip install {CLIENT_PACKAGE} (or hudi-framework[kafka])"
        ) from e
    return kafka


class ConsumerPool:
    """Consumers of no group on the configured brokers, kept open between plans and reads.

    Opening a consumer costs a connection and a version handshake (about a quarter of a second),
    reusing one a few milliseconds, and an executor reads many splits. A consumer serves one
    caller at a time (kafka-python's consumers are not thread-safe): each :meth:`lease` takes an
    idle one or opens another. :meth:`close` (also run when the pool is garbage collected)
    closes them all.
    """

    def __init__(self, source: str, options: KafkaSourceOptions) -> None:
        """Open nothing yet."""
        self._source = source
        self._options = options
        self._idle: list[Any] = []
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, _close_all, self._idle)

    def _open(self) -> Any:
        kafka = _kafka(self._source)
        try:
            return kafka.KafkaConsumer(
                bootstrap_servers=self._options.bootstrap_servers.split(","),
                group_id=None,
                enable_auto_commit=False,
                auto_offset_reset="none",  # a range that expired must fail, never be silently moved
                request_timeout_ms=max(int(self._options.request_timeout_secs * 1000), 1000),
            )
        except kafka.errors.KafkaError as e:
            raise SourceError(self._source, f"cannot reach Kafka at {self._options.bootstrap_servers}: {e!r}") from e

    @contextmanager
    def lease(self) -> Iterator[Any]:
        """A consumer for the caller alone; Kafka errors become SourceError (and that consumer is closed)."""
        kafka = _kafka(self._source)
        with self._lock:
            client = self._idle.pop() if self._idle else None
        if client is None:
            client = self._open()
        try:
            yield client
        except kafka.errors.KafkaError as e:
            client.close()
            raise SourceError(self._source, f"Kafka at {self._options.bootstrap_servers}: {e!r}") from e
        except BaseException:
            client.close()  # its state is unknown: never reuse it
            raise
        client.unsubscribe()
        with self._lock:
            self._idle.append(client)

    def close(self) -> None:
        """Close every idle consumer."""
        self._finalizer()


def _close_all(clients: list[Any]) -> None:
    while clients:
        clients.pop().close()


def partition_offsets(source: str, client: Any, topic: str) -> tuple[dict[int, int], dict[int, int]]:
    """Each partition's earliest offset still held and its end offset (the next record's offset).

    Raises:
        SourceError: The topic does not exist.
    """
    kafka = _kafka(source)
    partitions = client.partitions_for_topic(topic)
    if not partitions:
        raise SourceError(source, f"Kafka topic {topic!r} does not exist")
    parts = [kafka.TopicPartition(topic, p) for p in sorted(partitions)]
    earliest = client.beginning_offsets(parts)
    end = client.end_offsets(parts)
    return {tp.partition: int(o) for tp, o in earliest.items()}, {tp.partition: int(o) for tp, o in end.items()}


def fetch_range(
    source: str, client: Any, topic: str, partition: int, start: int, stop: int, *, split: str, timeout_secs: float
) -> FetchedRecords:
    """The records of ``[start, stop)`` of one partition, read by seek and poll.

    Offsets may have gaps (compacted topics, transaction markers): reading ends once the consumer's
    position reaches ``stop``.

    Raises:
        SourceError: The range is no longer in Kafka (retention deleted it), or Kafka did not deliver
            it within ``timeout_secs`` of the last progress; naming ``split``.
    """
    kafka = _kafka(source)
    tp = kafka.TopicPartition(topic, partition)
    client.assign([tp])
    client.seek(tp, start)
    out = FetchedRecords()
    deadline = time.monotonic() + timeout_secs
    position = start
    while position < stop:
        try:
            batches = client.poll(timeout_ms=_POLL_MS, max_records=max(1, min(stop - position, 100_000)))
        except kafka.errors.OffsetOutOfRangeError as e:
            raise SourceError(
                source, f"split {split}: offsets {start}..{stop} of partition {partition} are no longer in Kafka"
            ) from e
        progressed = False
        for record in batches.get(tp, ()):
            if record.offset >= stop:
                break
            progressed = True
            position = record.offset + 1
            if record.value is None:
                continue  # a tombstone carries no row
            out.values.append(record.value)
            out.offsets.append(record.offset)
            out.timestamps.append(record.timestamp)
            out.keys.append(record.key)
        if not progressed:
            position = max(position, client.position(tp))  # skipped gaps move the position only
        else:
            deadline = time.monotonic() + timeout_secs
        if position < stop and time.monotonic() > deadline:
            raise SourceError(
                source, f"split {split}: Kafka delivered offsets up to {position} of {start}..{stop} before timing out"
            )
    return out
