"""Concurrent schema evolution under optimistic concurrency: which schema a commit records.

Two writers that planned against one table schema may commit in either order; the later one must not
record a schema that drops the columns the earlier one added. Apache Hudi 1.x resolves this under the
table lock (``SimpleSchemaConflictResolutionStrategy``, the default of
``hoodie.write.concurrency.schema.conflict.resolution.strategy``), comparing the table schema when the
write started, the table schema now, and the writer's schema:

* the table schema did not change meanwhile: the writer's schema;
* it changed, and the writer did not evolve it: the table's current schema (the other writer's
  evolution is kept; this write's files simply lack its new columns, read as null);
* it changed to exactly the writer's schema: the writer's schema;
* otherwise both evolved it differently: the write fails (:class:`SchemaEvolutionConflictError`).

Readers take the schema of the completed write with the latest requested time. A write that evolved
the schema while a concurrent write with a *later* requested time completed first would be shadowed
by that write's schema (its added columns invisible), so it fails the same way, unless that schema is
already its own; retried, it plans against the new schema.

Schemas are compared as the Avro records this project writes for them (nullability aside), so a table
schema Apache Hudi recorded compares equal to ours for the same columns and types.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pyarrow as pa

from hudi_framework.errors import SchemaEvolutionConflictError
from hudi_framework.model.schema import META_FIELDS, arrow_to_avro, avro_to_arrow
from hudi_framework.timeline.instant import WRITE_ACTIONS
from hudi_framework.timeline.timeline import Timeline

__all__ = ["RecordedSchema", "latest_recorded_schema", "resolve_commit_schema"]


@dataclass(frozen=True, slots=True)
class RecordedSchema:
    """A completed write's ``extraMetadata.schema``: its text (as recorded) and the instant."""

    text: str
    instant: str

    def canonical(self) -> object:
        """The schema's fields as this project writes them (comparable across writers)."""
        return _canonical(avro_to_arrow(self.text))


def _canonical(schema: pa.Schema) -> object:
    data = pa.schema([f for f in schema if f.name not in META_FIELDS])
    return arrow_to_avro(data, "t")["fields"]


def latest_recorded_schema(timeline: Timeline) -> RecordedSchema | None:
    """The schema of the latest completed write that recorded one (None: no such write)."""
    for inst in reversed(timeline.commits_timeline()):
        if inst.action in WRITE_ACTIONS:
            text = (timeline.read_commit_metadata(inst).extra_metadata or {}).get("schema")
            if text:
                return RecordedSchema(text, inst.requested_time)
    return None


def resolve_commit_schema(
    instant: str, writer: str, at_start: RecordedSchema | None, now: RecordedSchema | None
) -> str:
    """The schema text ``instant`` commits with (see the module docstring).

    Args:
        instant: The committing write.
        writer: The writer's schema text.
        at_start: The table's recorded schema when the write planned.
        now: The table's recorded schema under the lock, just before completing.

    Raises:
        SchemaEvolutionConflictError: Both this write and a concurrent one evolved the schema, differently.
    """
    if now is None or at_start is None or now.instant == at_start.instant:
        return writer
    start, current, mine = at_start.canonical(), now.canonical(), _canonical(avro_to_arrow(writer))
    if mine == current:
        return writer
    if mine == start:
        return now.text
    if now.instant > instant:  # readers would take the later-requested write's schema, not this one's
        reason = "the concurrent write, requested later, committed first: its schema would hide this write's columns"
        raise SchemaEvolutionConflictError(instant, now.instant, reason)
    if current == start:
        return writer
    raise SchemaEvolutionConflictError(instant, now.instant, _diff(json.dumps(mine), json.dumps(current)))


def _diff(mine: str, current: str) -> str:
    return f"this write's schema {mine} differs from the one {current} committed concurrently"
