"""Record merger plugin ``merger-builtin``: Apache Hudi's two built-in merge modes, vectorised.

* ``commit-time-ordering`` (``COMMIT_TIME_ORDERING``, ``OverwriteWithLatestAvroPayload``): the later
  write wins.
* ``event-time-ordering`` (``EVENT_TIME_ORDERING``, ``DefaultHoodieRecordPayload``): the larger
  ordering value wins, the later write on ties.

Both are also registered under their strategy UUIDs and mode names, so tables that persist either
resolve to them. The deprecated payload classes that are neither map onto the mergers of
:mod:`hudi_merger_builtin.payloads`, registered under the Java class names (simple and qualified).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hudi_framework.contracts.merger import RecordMerger
from hudi_framework.plugin import ComponentSpec, NoOptions, hookimpl
from hudi_framework.vocabulary import (
    COMMIT_TIME_STRATEGY_ID,
    DEBEZIUM_UNAVAILABLE_VALUE,
    EVENT_TIME_STRATEGY_ID,
    PAYLOAD_PACKAGE,
)
from hudi_merger_builtin.mergers import CommitTimeOrderingMerger, EventTimeOrderingMerger
from hudi_merger_builtin.payloads import (
    DeleteMarkerMerger,
    DeleteMarkerOptions,
    OverwriteNonDefaultsMerger,
    PartialUpdateMerger,
    PartialUpdateOptions,
)

__all__ = [
    "CommitTimeOrderingMerger",
    "DeleteMarkerMerger",
    "DeleteMarkerOptions",
    "EventTimeOrderingMerger",
    "OverwriteNonDefaultsMerger",
    "PartialUpdateMerger",
    "PartialUpdateOptions",
    "hudi_record_mergers",
]


@hookimpl
def hudi_record_mergers() -> Sequence[ComponentSpec[RecordMerger]]:
    """Register ``commit-time-ordering``, ``event-time-ordering`` and the legacy payload mergers."""
    return [*_MODE_SPECS, *_PAYLOAD_SPECS]


def _payload_aliases(simple: str) -> tuple[str, ...]:
    return (simple, PAYLOAD_PACKAGE + simple)


def _marker_factory(
    field: str, marker: str, *, event_time: bool, unavailable_value: str | None = None
) -> Callable[[NoOptions], RecordMerger]:
    options = DeleteMarkerOptions(
        delete_field=field, delete_marker=marker, event_time=event_time, unavailable_value=unavailable_value
    )

    def build(_options: NoOptions) -> RecordMerger:
        return DeleteMarkerMerger(options)

    return build


_PAYLOAD_SPECS: tuple[ComponentSpec[RecordMerger], ...] = (
    ComponentSpec(
        "overwrite-non-defaults",
        factory=OverwriteNonDefaultsMerger,
        options_model=NoOptions,
        description="The later write wins, except for its null columns (OverwriteNonDefaultsWithLatestAvroPayload)",
        aliases=_payload_aliases("OverwriteNonDefaultsWithLatestAvroPayload"),
    ),
    ComponentSpec(
        "partial-update",
        factory=PartialUpdateMerger,
        options_model=PartialUpdateOptions,
        description="Event-time winner, its null columns filled from the other version (PartialUpdateAvroPayload)",
        aliases=_payload_aliases("PartialUpdateAvroPayload"),
    ),
    ComponentSpec(
        "partial-update-event-time",
        factory=lambda _options: PartialUpdateMerger(PartialUpdateOptions(late_update_meta_columns=False)),
        options_model=NoOptions,
        description="PartialUpdateAvroPayload as version 9 migrates it: event time, IGNORE_DEFAULTS; a stored "
        "winner keeps its meta columns",
        aliases=tuple(f"{name}@EVENT_TIME_ORDERING" for name in _payload_aliases("PartialUpdateAvroPayload")),
    ),
    ComponentSpec(
        "delete-marker",
        factory=DeleteMarkerMerger,
        options_model=DeleteMarkerOptions,
        description="Rows whose delete field holds a marker value are deletes (CDC payloads)",
    ),
    ComponentSpec(
        "aws-dms",
        factory=_marker_factory("Op", "D", event_time=False),
        options_model=NoOptions,
        description="Commit-time ordering, Op = D deletes (AWSDmsAvroPayload)",
        aliases=("AWSDmsAvroPayload", PAYLOAD_PACKAGE + "AWSDmsAvroPayload"),
    ),
    ComponentSpec(
        "mysql-debezium",
        factory=_marker_factory("_change_operation_type", "d", event_time=True),
        options_model=NoOptions,
        description="Event-time ordering, _change_operation_type = d deletes (MySqlDebeziumAvroPayload)",
        aliases=("MySqlDebeziumAvroPayload", "org.apache.hudi.common.model.debezium.MySqlDebeziumAvroPayload"),
    ),
    ComponentSpec(
        "postgres-debezium",
        factory=_marker_factory(
            "_change_operation_type", "d", event_time=True, unavailable_value=DEBEZIUM_UNAVAILABLE_VALUE
        ),
        options_model=NoOptions,
        description="Event-time ordering, _change_operation_type = d deletes, TOASTed values kept "
        "(PostgresDebeziumAvroPayload)",
        aliases=("PostgresDebeziumAvroPayload", "org.apache.hudi.common.model.debezium.PostgresDebeziumAvroPayload"),
    ),
)
_MODE_SPECS: tuple[ComponentSpec[RecordMerger], ...] = (
    ComponentSpec(
        "commit-time-ordering",
        factory=CommitTimeOrderingMerger,
        options_model=NoOptions,
        description="The later write wins (COMMIT_TIME_ORDERING)",
        aliases=(COMMIT_TIME_STRATEGY_ID, "COMMIT_TIME_ORDERING"),
    ),
    ComponentSpec(
        "event-time-ordering",
        factory=EventTimeOrderingMerger,
        options_model=NoOptions,
        description="The larger ordering value wins, the later write on ties (EVENT_TIME_ORDERING)",
        aliases=(EVENT_TIME_STRATEGY_ID, "EVENT_TIME_ORDERING"),
    ),
)
