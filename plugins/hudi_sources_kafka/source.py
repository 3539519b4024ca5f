"""The sources ``kafka-json`` and ``kafka-avro``: a Kafka topic, batch after batch, checkpointed by offsets.

* **Plan** (driver). The partitions' earliest and end offsets are fetched; the batch starts at the
  checkpoint's offsets (or, without one, at the earliest or the end offsets, as ``auto.offset.reset``
  says) and takes at most the job's source limit in records, else ``maxEvents``, spread over the
  partitions as Apache Hudi does (:mod:`hudi_sources_kafka.offsets`). One split per offset range;
  the new checkpoint names every partition's next offset, in Apache Hudi's format.
* **Read** (anywhere). A split's range is read by seek and poll, exactly ``[start, stop)``, and its
  values decoded in one call (:mod:`hudi_sources_kafka.decode`).
* **Expired checkpoint.** Offsets Kafka's retention already deleted fail the plan with
  ``enable.failOnDataLoss``; without it (the default) those partitions restart at their earliest
  offset and a warning names them. Partitions whose checkpoint is still valid keep it (Apache
  Hudi moves every partition back to its earliest offset then, reading the others again).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar, Final

import pyarrow as pa
from typing_extensions import override

from hudi_framework.contracts.avro_arrow import avro_to_arrow
from hudi_framework.contracts.source import Source, SourceContext, SourcePlan, SourceSplit
from hudi_framework.errors import CheckpointError, HudiError, SchemaConversionError, SourceError
from hudi_sources_kafka import avro_schema
from hudi_sources_kafka.client import ConsumerPool, FetchedRecords, fetch_range, partition_offsets
from hudi_sources_kafka.decode import OFFSET_FIELDS, ValueDecodeError, decode_avro, decode_json, strip_confluent_header
from hudi_sources_kafka.decode import with_offsets as append_offset_columns
from hudi_sources_kafka.offsets import compute_ranges, format_checkpoint, parse_checkpoint, reached
from hudi_sources_kafka.options import AvroKafkaSourceOptions, KafkaSourceOptions, OffsetReset

_log = logging.getLogger(__name__)
#: How many rows one yielded record batch holds at most.
_BATCH_ROWS: Final = 65_536


class KafkaSource(Source):
    """What both Kafka sources share: planning by offsets, reading one range, offset columns."""

    name: ClassVar[str]

    def __init__(self, options: KafkaSourceOptions) -> None:
        """Keep the validated options; nothing connects until the first plan or read."""
        self.options = options
        self._consumers = ConsumerPool(self.name, options)
        self._schema: pa.Schema | None = None
        self._schema_known = False

    def __getstate__(self) -> dict[str, Any]:
        """Only the options travel (a pickled source opens its own consumers where it lands)."""
        return {"options": self.options}

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Rebuild from the options."""
        self.__init__(state["options"])  # type: ignore[misc]

    # -- plan ---------------------------------------------------------------------------------------

    @override
    def plan(self, checkpoint: str | None, *, limit: int | None, context: SourceContext) -> SourcePlan:
        topic = self.options.topic
        with self._consumers.lease() as client:
            earliest, end = partition_offsets(self.name, client, topic)
        start = self._start_offsets(checkpoint, earliest, end)
        ranges = compute_ranges(
            start, end, limit=self.options.max_events if limit is None else limit,
            min_partitions=self.options.min_partitions,
        )  # fmt: skip
        schema = self.row_schema(context)
        if not ranges:
            if checkpoint is None and self.options.auto_offset_reset is OffsetReset.LATEST and start:
                # "From now on" must be pinned somewhere: the end offsets, which a job commits with its
                # empty batch as Apache Hudi's streamer does (the checkpoint changed); planning from
                # None again would start at the then newest end and never read anything.
                return SourcePlan((), format_checkpoint(topic, start), schema)
            return SourcePlan((), checkpoint, schema)
        splits = tuple(
            SourceSplit(
                id=f"{topic}-{r.partition}:{r.start}-{r.stop}",
                payload={"topic": topic, "partition": r.partition, "start": r.start, "stop": r.stop},
                size_hint=r.count,
            )
            for r in ranges
        )
        return SourcePlan(splits, format_checkpoint(topic, reached(start, ranges)), schema)

    def _start_offsets(self, checkpoint: str | None, earliest: dict[int, int], end: dict[int, int]) -> dict[int, int]:
        if not checkpoint:
            return dict(earliest if self.options.auto_offset_reset is OffsetReset.EARLIEST else end)
        offsets = parse_checkpoint(self.name, self.options.topic, checkpoint)
        unknown = sorted(set(offsets) - set(end))
        if unknown:
            raise CheckpointError(
                self.name,
                checkpoint,
                f"topic {self.options.topic!r} has no partition {unknown[0]} ({len(end)} partitions)",
            )
        ahead = [p for p, o in offsets.items() if o > end[p]]
        if ahead:
            p = ahead[0]
            raise CheckpointError(
                self.name, checkpoint,
                f"partition {p} ends at offset {end[p]}, before the checkpoint's {offsets[p]} (topic recreated?)",
            )  # fmt: skip
        expired = sorted(p for p, o in offsets.items() if o < earliest[p])
        if expired:
            lost = ", ".join(f"{p}:{{checkpoint={offsets[p]},earliest={earliest[p]}}}" for p in expired)
            message = f"records were deleted by Kafka before they were read; partitions out of bounds: {lost}"
            if self.options.fail_on_data_loss:
                raise CheckpointError(self.name, checkpoint, message)
            _log.warning(
                "source %r: %s; reading those from their earliest offsets "
                "(set hoodie.streamer.source.kafka.enable.failOnDataLoss=true to fail instead)",
                self.name, message,
            )  # fmt: skip
        return {p: max(offsets.get(p, earliest[p]), earliest[p]) for p in end}

    # -- read ---------------------------------------------------------------------------------------

    @override
    def read(self, split: SourceSplit, context: SourceContext) -> Iterator[pa.RecordBatch]:
        payload = split.payload
        try:
            topic, partition = str(payload["topic"]), _int(payload["partition"])
            start, stop = _int(payload["start"]), _int(payload["stop"])
        except (KeyError, TypeError, ValueError) as e:
            raise SourceError(self.name, f"split {split.id}: not a Kafka split ({e!r})") from e
        if topic != self.options.topic:
            raise SourceError(
                self.name, f"split {split.id}: of topic {topic!r}, this source reads {self.options.topic!r}"
            )
        with self._consumers.lease() as client:
            fetched = fetch_range(
                self.name, client, topic, partition, start, stop,
                split=split.id, timeout_secs=self.options.request_timeout_secs,
            )  # fmt: skip
        try:
            table = self.decode(fetched, context)
            if self.options.append_offsets:
                table = append_offset_columns(table, fetched, partition)
        except ValueDecodeError as e:
            raise SourceError(self.name, f"split {split.id}: {e}") from e
        yield from table.to_batches(max_chunksize=_BATCH_ROWS)

    def close(self) -> None:
        """Close the consumers kept open between calls (also done when the source is garbage collected)."""
        self._consumers.close()

    # -- schema -------------------------------------------------------------------------------------

    def row_schema(self, context: SourceContext) -> pa.Schema | None:
        """The rows' schema when the options give the values' one (with the offset columns if asked)."""
        values = self.value_schema(context)
        if values is None or not self.options.append_offsets:
            return values
        return pa.schema([*values, *OFFSET_FIELDS])

    def value_schema(self, context: SourceContext) -> pa.Schema | None:
        """The values' Arrow schema from the schema file, when one is given (read once per instance)."""
        if not self._schema_known:
            avro = self.avro_schema(context)
            self._schema = None if avro is None else _to_arrow(self.name, avro)
            self._schema_known = True
        return self._schema

    def avro_schema(self, context: SourceContext) -> dict[str, Any] | None:
        """The values' Avro schema given by the options, or None."""
        return None

    def decode(self, fetched: FetchedRecords, context: SourceContext) -> pa.Table:
        """The values of ``fetched`` as a table, one row per value in order."""
        raise NotImplementedError


class JsonKafkaSource(KafkaSource):
    """``kafka-json``: values are JSON objects (Apache Hudi's ``JsonKafkaSource``)."""

    name = "kafka-json"

    @override
    def avro_schema(self, context: SourceContext) -> dict[str, Any] | None:
        path = self.options.schema_file
        return None if path is None else _parse(self.name, read_text(self.name, context, path), path)

    @override
    def decode(self, fetched: FetchedRecords, context: SourceContext) -> pa.Table:
        return decode_json(fetched.values, self.value_schema(context))


class AvroKafkaSource(KafkaSource):
    """``kafka-avro``: values are Avro binary of a schema given in the options (Apache Hudi's ``AvroKafkaSource``)."""

    name = "kafka-avro"
    options: AvroKafkaSourceOptions

    def __init__(self, options: AvroKafkaSourceOptions) -> None:
        """Keep the validated options; nothing connects until the first plan or read."""
        super().__init__(options)
        self._avro: dict[str, Any] | None = None

    @override
    def avro_schema(self, context: SourceContext) -> dict[str, Any]:
        if self._avro is None:
            path = self.options.schema_file
            text = self.options.schema_text if path is None else read_text(self.name, context, path)
            self._avro = _parse(self.name, text or "", path or "hoodie.streamer.source.kafka.value.deserializer.schema")
        return self._avro

    @override
    def decode(self, fetched: FetchedRecords, context: SourceContext) -> pa.Table:
        values = fetched.values
        if self.options.confluent_framing:
            values = strip_confluent_header(values, fetched.offsets)
        schema = self.value_schema(context)
        assert schema is not None  # an Avro source always has a schema
        return decode_avro(values, self.avro_schema(context), schema)


def read_text(source: str, context: SourceContext, path: str) -> str:
    """A schema file's text, read through the job's storage (a local path, ``file:`` or ``s3:`` URI)."""
    uri = path if "://" in path else Path(path.removeprefix("file:")).expanduser().resolve().as_uri()
    parent, _, name = uri.rstrip("/").rpartition("/")
    try:
        return context.storage(parent).read(name).decode("utf-8")
    except (HudiError, OSError, UnicodeDecodeError) as e:
        raise SourceError(source, f"cannot read the schema file {path!r}: {e}") from e


def _parse(source: str, text: str, where: str) -> dict[str, Any]:
    try:
        return avro_schema.parse_schema(text)
    except avro_schema.AvroSchemaError as e:
        raise SourceError(source, f"the Avro schema in {where}: {e}") from e


def _to_arrow(source: str, schema: dict[str, Any]) -> pa.Schema:
    try:
        return avro_to_arrow(schema)
    except (SchemaConversionError, TypeError, ValueError) as e:
        raise SourceError(source, f"the Avro schema {schema.get('name')!r} has no row form: {e}") from e


def _int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise TypeError(f"expected an integer, got {value!r}")
    return int(value)
