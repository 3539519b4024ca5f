"""Options of the Kafka sources, under Apache Hudi's keys (``hoodie.streamer.source.kafka.*``).

Every field also takes its Apache Hudi keys, the ``hoodie.streamer.*`` spelling and the older
``hoodie.deltastreamer.*`` one, and the Kafka consumer's own ``bootstrap.servers`` and
``auto.offset.reset``, so a HoodieStreamer properties file's entries can be handed over as they are.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, model_validator

#: Apache Hudi's default of ``hoodie.streamer.kafka.source.maxEvents``.
DEFAULT_MAX_EVENTS: Final = 5_000_000

#: Confluent's deserializer (Apache Hudi's default) and Apache Hudi's own: values carry Confluent's
#: wire-format header (magic byte 0, a 4-byte schema id) before the Avro binary.
CONFLUENT_DESERIALIZERS: Final = frozenset(
    {
        "io.confluent.kafka.serializers.KafkaAvroDeserializer",
        "org.apache.hudi.utilities.deser.KafkaAvroSchemaDeserializer",
    }
)
#: Kafka's byte-array deserializer: values are bare Avro binary.
BYTE_ARRAY_DESERIALIZER: Final = "org.apache.kafka.common.serialization.ByteArrayDeserializer"


def hudi_keys(suffix: str, *, field: str) -> AliasChoices:
    """The field's own name plus Apache Hudi's two spellings of ``hoodie.streamer.<suffix>``."""
    return AliasChoices(field, f"hoodie.streamer.{suffix}", f"hoodie.deltastreamer.{suffix}")


class OffsetReset(StrEnum):
    """Where a topic is read from when the table has no checkpoint (``auto.offset.reset``)."""

    EARLIEST = "earliest"
    LATEST = "latest"


class KafkaSourceOptions(BaseModel):
    """The topic, the brokers, and how much one batch takes."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    #: ``hoodie.streamer.source.kafka.topic``: the topic read.
    topic: str = Field(
        min_length=1, pattern=r"^[A-Za-z0-9._-]+$", validation_alias=hudi_keys("source.kafka.topic", field="topic")
    )
    #: ``bootstrap.servers``: ``host:port[,host:port...]`` of the brokers.
    bootstrap_servers: str = Field(
        min_length=1, validation_alias=AliasChoices("bootstrap_servers", "bootstrap.servers")
    )
    #: ``auto.offset.reset``: without a checkpoint, read from the ``earliest`` records or only those
    #: produced from now on (``latest``, Apache Hudi's default).
    auto_offset_reset: OffsetReset = Field(
        default=OffsetReset.LATEST, validation_alias=AliasChoices("auto_offset_reset", "auto.offset.reset")
    )
    #: ``hoodie.streamer.source.kafka.enable.failOnDataLoss``: when the checkpoint's offsets were
    #: already deleted by Kafka's retention, fail (true) instead of reading from the earliest offsets
    #: still there (false, Apache Hudi's default).
    fail_on_data_loss: bool = Field(
        default=False, validation_alias=hudi_keys("source.kafka.enable.failOnDataLoss", field="fail_on_data_loss")
    )
    #: ``hoodie.streamer.kafka.source.maxEvents``: at most this many records in one batch when the job
    #: sets no source limit.
    max_events: int = Field(
        default=DEFAULT_MAX_EVENTS, ge=1, validation_alias=hudi_keys("kafka.source.maxEvents", field="max_events")
    )
    #: ``hoodie.streamer.source.kafka.minPartitions``: cut a batch into at least about this many
    #: splits (read in parallel); 0 means one split per Kafka partition.
    min_partitions: int = Field(
        default=0, ge=0, validation_alias=hudi_keys("source.kafka.minPartitions", field="min_partitions")
    )
    #: ``hoodie.streamer.source.kafka.append.offsets``: add the columns ``_hoodie_kafka_source_offset``,
    #: ``_hoodie_kafka_source_partition``, ``_hoodie_kafka_source_timestamp`` and
    #: ``_hoodie_kafka_source_key`` to every row.
    append_offsets: bool = Field(
        default=False, validation_alias=hudi_keys("source.kafka.append.offsets", field="append_offsets")
    )
    #: ``hoodie.streamer.schemaprovider.source.schema.file``: the ``.avsc`` file (a path or URI) of the
    #: values' schema. Required by ``kafka-avro``; ``kafka-json`` parses values with its types when given,
    #: else with the types the values show.
    schema_file: str | None = Field(
        default=None,
        min_length=1,
        validation_alias=hudi_keys("schemaprovider.source.schema.file", field="schema_file"),
    )
    #: Seconds a request to the brokers may take before the plan or the read fails.
    request_timeout_secs: float = Field(default=30.0, gt=0)

    @model_validator(mode="before")
    @classmethod
    def _refuse_unbuilt(cls, values: object) -> object:
        if isinstance(values, dict) and str(values.get("auto.offset.reset", "")).lower() == "group":
            raise ValueError("auto.offset.reset=group (the consumer group's committed offsets) is not supported")
        if isinstance(values, dict):
            for prefix in ("hoodie.streamer.", "hoodie.deltastreamer."):
                kind = values.get(prefix + "source.kafka.checkpoint.type")
                if kind is not None and str(kind) != "string":
                    raise ValueError(f"{prefix}source.kafka.checkpoint.type={kind!r} is not supported (only 'string')")
        return values


class AvroKafkaSourceOptions(KafkaSourceOptions):
    """The Kafka options plus the values' Avro schema and wire format."""

    #: ``hoodie.streamer.source.kafka.value.deserializer.schema``: the schema as JSON text, instead of a file.
    schema_text: str | None = Field(
        default=None,
        min_length=1,
        validation_alias=hudi_keys("source.kafka.value.deserializer.schema", field="schema_text"),
    )
    #: ``hoodie.streamer.source.kafka.value.deserializer.class``: Confluent's ``KafkaAvroDeserializer``
    #: (the default) or Apache Hudi's ``KafkaAvroSchemaDeserializer`` for values in Confluent's wire
    #: format; Kafka's ``ByteArrayDeserializer`` for bare Avro binary.
    value_deserializer: str = Field(
        default="io.confluent.kafka.serializers.KafkaAvroDeserializer",
        validation_alias=hudi_keys("source.kafka.value.deserializer.class", field="value_deserializer"),
    )

    @model_validator(mode="after")
    def _schema_and_format(self) -> AvroKafkaSourceOptions:
        if (self.schema_file is None) == (self.schema_text is None):
            raise ValueError(
                "give the values' Avro schema with exactly one of hoodie.streamer.schemaprovider.source.schema.file "
                "and hoodie.streamer.source.kafka.value.deserializer.schema"
            )
        if self.value_deserializer not in {*CONFLUENT_DESERIALIZERS, BYTE_ARRAY_DESERIALIZER}:
            known = ", ".join(sorted({*CONFLUENT_DESERIALIZERS, BYTE_ARRAY_DESERIALIZER}))
            raise ValueError(
                f"hoodie.streamer.source.kafka.value.deserializer.class={self.value_deserializer!r} "
                f"is not supported (one of {known})"
            )
        return self

    @property
    def confluent_framing(self) -> bool:
        """Whether values start with Confluent's 5-byte wire-format header."""
        return self.value_deserializer in CONFLUENT_DESERIALIZERS
