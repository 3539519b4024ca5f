"""Source plugin for Kafka topics: ``kafka-json`` and ``kafka-avro`` (Apache Hudi's ``JsonKafkaSource``
and ``AvroKafkaSource``), checkpointed by offsets in Apache Hudi's ``topic,partition:offset,...`` format.

Needs the ``kafka`` extra (kafka-python); without it a plan or read fails with a ``SourceError``
naming the package, and nothing else changes.
"""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.contracts.source import Source
from hudi_framework.plugin import ComponentSpec, hookimpl, lazy_exports

#: Re-exported implementation names, imported on first access (plugin/lazy.py).
_EXPORTS = {
    "AvroKafkaSource": "hudi_sources_kafka.source",
    "AvroKafkaSourceOptions": "hudi_sources_kafka.options",
    "JsonKafkaSource": "hudi_sources_kafka.source",
    "KafkaSourceOptions": "hudi_sources_kafka.options",
    "OffsetRange": "hudi_sources_kafka.offsets",
    "compute_ranges": "hudi_sources_kafka.offsets",
    "format_checkpoint": "hudi_sources_kafka.offsets",
    "parse_checkpoint": "hudi_sources_kafka.offsets",
}
__all__ = [*_EXPORTS, "hudi_sources"]
__getattr__ = lazy_exports(__name__, _EXPORTS)

_HUDI_PACKAGE = "org.apache.hudi.utilities.sources"


@hookimpl
def hudi_sources() -> Sequence[ComponentSpec[Source]]:
    """Register ``kafka-json`` and ``kafka-avro``."""
    return [
        ComponentSpec(
            "kafka-json",
            factory="hudi_sources_kafka.source:JsonKafkaSource",
            options_model="hudi_sources_kafka.options:KafkaSourceOptions",
            description="JSON values of a Kafka topic, checkpointed by offsets (Apache Hudi's JsonKafkaSource)",
            aliases=("JsonKafkaSource", f"{_HUDI_PACKAGE}.JsonKafkaSource"),
        ),
        ComponentSpec(
            "kafka-avro",
            factory="hudi_sources_kafka.source:AvroKafkaSource",
            options_model="hudi_sources_kafka.options:AvroKafkaSourceOptions",
            description="Avro values of a Kafka topic, checkpointed by offsets (Apache Hudi's AvroKafkaSource)",
            aliases=("AvroKafkaSource", f"{_HUDI_PACKAGE}.AvroKafkaSource"),
        ),
    ]
