"""Apache Hudi's legacy payload classes and the merge mode each one means.

Two rules, one table. Before version 9, only three payload classes mean a built-in merge mode; any
other one makes the table ``CUSTOM`` (``HoodieTableConfig.inferCorrectMergingBehavior``). Hudi 1.1
deprecates eight payload classes (RFC-97): a version-9 table persists a merge mode for each, keeps the
class as ``hoodie.table.legacy.payload.class`` and adds the partial-update mode and merge properties
readers need (``HoodieTableConfig.inferMergingConfigsForV9TableCreation``, the same as
``EightToNineUpgradeHandler``).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from hudi_framework.vocabulary.merge_modes import RecordMergeMode

__all__ = [
    "DEBEZIUM_UNAVAILABLE_VALUE",
    "DEPRECATED_PAYLOAD_MODES",
    "MERGE_PROPERTY_PREFIX",
    "PARTIAL_UPDATE_MODE_KEY",
    "PAYLOAD_PACKAGE",
    "default_payload_class",
    "deprecated_payload_mode",
    "legacy_payload_properties",
    "payload_merge_mode",
]

#: Package of the payload classes below (the Debezium ones live in its ``debezium`` sub-package).
PAYLOAD_PACKAGE: Final = "org.apache.hudi.common.model."
#: Hudi 1.1 (v9) table key for the partial-update mode of a deprecated payload.
PARTIAL_UPDATE_MODE_KEY: Final = "hoodie.table.partial.update.mode"
#: Hudi 1.1 (v9) table key prefix of the merge properties of a deprecated payload.
MERGE_PROPERTY_PREFIX: Final = "hoodie.record.merge.property."

#: What Debezium's Postgres connector writes for a TOASTed column it did not send.
DEBEZIUM_UNAVAILABLE_VALUE: Final = "__debezium_unavailable_value"

_EVENT = RecordMergeMode.EVENT_TIME_ORDERING
_COMMIT = RecordMergeMode.COMMIT_TIME_ORDERING

#: The payload classes that mean a built-in merge mode at every table version, by simple name.
_BUILTIN_MODE_PAYLOADS: Final = MappingProxyType(
    {"DefaultHoodieRecordPayload": _EVENT, "EventTimeAvroPayload": _EVENT, "OverwriteWithLatestAvroPayload": _COMMIT}
)

#: The eight payload classes Apache Hudi 1.1 deprecates, by simple name, and the merge mode a
#: version-9 table persists for each.
DEPRECATED_PAYLOAD_MODES: Mapping[str, RecordMergeMode] = MappingProxyType(
    {
        **_BUILTIN_MODE_PAYLOADS,
        "MySqlDebeziumAvroPayload": _EVENT,
        "PartialUpdateAvroPayload": _EVENT,
        "PostgresDebeziumAvroPayload": _EVENT,
        "OverwriteNonDefaultsWithLatestAvroPayload": _COMMIT,
        "AWSDmsAvroPayload": _COMMIT,
    }
)

#: The payload class tables of a built-in mode persist before version 9.
_DEFAULT_PAYLOADS: Final = MappingProxyType(
    {_EVENT: "DefaultHoodieRecordPayload", _COMMIT: "OverwriteWithLatestAvroPayload"}
)


def _simple_name(payload_class: str) -> str:
    return payload_class.rsplit(".", 1)[-1]


def payload_merge_mode(payload_class: str) -> RecordMergeMode:
    """The merge mode a payload class means before version 9: a built-in mode for three classes, else CUSTOM."""
    return _BUILTIN_MODE_PAYLOADS.get(_simple_name(payload_class), RecordMergeMode.CUSTOM)


def deprecated_payload_mode(payload_class: str | None) -> RecordMergeMode | None:
    """The merge mode a version-9 table persists for a payload class Hudi 1.1 deprecates, else None."""
    return DEPRECATED_PAYLOAD_MODES.get(_simple_name(payload_class)) if payload_class else None


def default_payload_class(mode: RecordMergeMode) -> str | None:
    """The fully qualified payload class a table of a built-in mode persists before version 9."""
    simple = _DEFAULT_PAYLOADS.get(mode)
    return PAYLOAD_PACKAGE + simple if simple else None


def legacy_payload_properties(payload_class: str) -> dict[str, str]:
    """The extra ``hoodie.properties`` keys Hudi 1.1 writes for a deprecated payload class on a v9 table.

    ``hoodie.table.partial.update.mode`` (IGNORE_DEFAULTS for the two payloads that fill nulls from the
    older record, FILL_UNAVAILABLE for Postgres Debezium) and ``hoodie.record.merge.property.*``
    entries that readers need (the AWS DMS and Postgres Debezium delete field and marker, Debezium's
    unavailable value).
    """
    simple = _simple_name(payload_class)
    props: dict[str, str] = {}
    if simple in ("PartialUpdateAvroPayload", "OverwriteNonDefaultsWithLatestAvroPayload"):
        props[PARTIAL_UPDATE_MODE_KEY] = "IGNORE_DEFAULTS"
    elif simple == "PostgresDebeziumAvroPayload":
        props[PARTIAL_UPDATE_MODE_KEY] = "FILL_UNAVAILABLE"
        props[MERGE_PROPERTY_PREFIX + "hoodie.write.partial.update.unavailable.value"] = DEBEZIUM_UNAVAILABLE_VALUE
        # Apache Hudi 1.2 also persists the delete marker; its writers need it to take 'd' rows as deletes.
        props[MERGE_PROPERTY_PREFIX + "hoodie.payload.delete.field"] = "_change_operation_type"
        props[MERGE_PROPERTY_PREFIX + "hoodie.payload.delete.marker"] = "d"
    elif simple == "AWSDmsAvroPayload":
        props[MERGE_PROPERTY_PREFIX + "hoodie.payload.delete.field"] = "Op"
        props[MERGE_PROPERTY_PREFIX + "hoodie.payload.delete.marker"] = "D"
    return props
