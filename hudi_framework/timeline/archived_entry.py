"""``HoodieArchivedMetaEntry``: how a table version 6 archive stores one state of one instant.

Apache Hudi's v6 archiver (``TimelineArchiverV1`` with ``MetadataConversionUtils.createMetaWrapper``)
writes one record per instant file it archives, requested, inflight and completed alike, with
``commitTime`` (the requested time), ``actionType`` (the file's action: a compaction is
``compaction`` while pending and ``commit`` once completed), ``actionState``, ``stateTransitionTime``
(the file's modification time; for the completed file, the completion time) and the file's content
decoded into the one field for its action:

=======================  ==================================  ===================================
action                   completed content                   requested (and inflight) content
=======================  ==================================  ===================================
commit, deltacommit      ``hoodieCommitMetadata``            (inflight: ``hoodieCommitMetadata``)
replacecommit            ``hoodieReplaceCommitMetadata``     ``hoodieRequestedReplaceMetadata``
clean                    ``hoodieCleanMetadata``             ``hoodieCleanerPlan``
rollback                 ``hoodieRollbackMetadata``          none
savepoint                ``hoodieSavePointMetadata``         (no requested file)
compaction, logcompact.  as commit / deltacommit             ``hoodieCompactionPlan``
indexing                 ``hoodieIndexCommitMetadata``       none
=======================  ==================================  ===================================

Restores and schema commits have no field and Java refuses to archive them; so does this codec.

Reading goes the other way: the records of one instant become one
:class:`~hudi_framework.timeline.archive.ArchivedInstant` whose contents are encoded as the v6
*active* timeline encodes them (commit metadata as JSON, the rest as Avro containers), so the
timeline's decoders read them unchanged. Records of very old archives lack ``actionState``: they
are completed instants (as Java reads them).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from hudi_framework.errors import InstantMetadataError
from hudi_framework.timeline.archive import ArchivedInstant
from hudi_framework.timeline.avro_container import AvroSchemaName, read_container, write_container
from hudi_framework.timeline.instant import NO_REQUESTED_STATE, Action, State
from hudi_framework.timeline.metadata import (
    CommitMetadata,
    ReplaceCommitMetadata,
    commit_metadata_to_avro_record,
    commit_metadata_to_json,
    decode_commit_metadata,
)

__all__ = ["ARCHIVE_ENTRY_SCHEMA", "entries_of", "instants_of"]

#: The schema of the records (Java's ``HoodieArchivedMetaEntry.getClassSchema()`` text).
ARCHIVE_ENTRY_SCHEMA: Final = AvroSchemaName.ARCHIVED_META_ENTRY

_COMMIT_FIELD: Final = "hoodieCommitMetadata"
#: Completed action -> the field holding a completed instant's content (commit metadata aside).
_AVRO_FIELDS: Final[Mapping[Action, tuple[str, AvroSchemaName]]] = {
    Action.CLEAN: ("hoodieCleanMetadata", AvroSchemaName.CLEAN_METADATA),
    Action.ROLLBACK: ("hoodieRollbackMetadata", AvroSchemaName.ROLLBACK_METADATA),
    Action.SAVEPOINT: ("hoodieSavePointMetadata", AvroSchemaName.SAVEPOINT_METADATA),
    Action.INDEXING: ("hoodieIndexCommitMetadata", AvroSchemaName.INDEX_COMMIT_METADATA),
}
#: Plan schema -> (field of the requested record, the pending action it means for a completed action).
_PLAN_FIELDS: Final[Mapping[str, tuple[str, AvroSchemaName]]] = {
    AvroSchemaName.COMPACTION_PLAN.value: ("hoodieCompactionPlan", AvroSchemaName.COMPACTION_PLAN),
    AvroSchemaName.CLEANER_PLAN.value: ("hoodieCleanerPlan", AvroSchemaName.CLEANER_PLAN),
    AvroSchemaName.REQUESTED_REPLACE_METADATA.value: (
        "hoodieRequestedReplaceMetadata",
        AvroSchemaName.REQUESTED_REPLACE_METADATA,
    ),
}
_PLAN_BY_FIELD: Final = {field: name for field, name in _PLAN_FIELDS.values()}
_JSON_ACTIONS: Final = frozenset({Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT})
_STATES: Final = {State.REQUESTED: "REQUESTED", State.INFLIGHT: "INFLIGHT", State.COMPLETED: "COMPLETED"}


# ------------------------------------------------------------------------------------ writing
def _pending_action(instant: ArchivedInstant, plan_schema: str | None) -> Action:
    """The action of the instant's requested and inflight files."""
    action = Action(instant.action)
    if plan_schema == AvroSchemaName.COMPACTION_PLAN.value:
        return Action.LOG_COMPACTION if action is Action.DELTA_COMMIT else Action.COMPACTION
    return action


def _completed_content(instant: ArchivedInstant, action: Action, where: str) -> dict[str, Any]:
    data = instant.metadata
    if action in _JSON_ACTIONS:
        if data is None:
            return {}
        metadata = decode_commit_metadata(data, replace=action is Action.REPLACE_COMMIT, path=where)
        field = "hoodieReplaceCommitMetadata" if action is Action.REPLACE_COMMIT else _COMMIT_FIELD
        return {field: commit_metadata_to_avro_record(metadata)}
    if action not in _AVRO_FIELDS:
        raise InstantMetadataError(where, f"{action} instants have no place in a table version 6 archive")
    if not data:
        return {}
    field, name = _AVRO_FIELDS[action]
    avro = read_container(data, path=where)
    if avro.short_name != name.value:
        raise InstantMetadataError(where, f"{action} metadata must be {name.value}, found {avro.schema_name}")
    return {field: avro.record}


def entries_of(instant: ArchivedInstant, *, where: str = "<archive>") -> list[dict[str, Any]]:
    """The records Apache Hudi's v6 archiver writes for ``instant``: requested, inflight, completed.

    Args:
        instant: A completed instant.
        where: Named in errors (the archive being written).

    Raises:
        InstantMetadataError: An action the v6 archive cannot hold (restore, schema commit), or
            content that does not decode as its action's metadata or plan.
    """
    try:
        action = Action(instant.action)
    except ValueError:
        raise InstantMetadataError(where, f"unknown action {instant.action!r}") from None
    completed = _completed_content(instant, action, where)
    plan: dict[str, Any] = {}
    plan_schema = None
    if instant.plan:
        avro = read_container(instant.plan, path=where)
        plan_schema = avro.short_name
        # A rollback or indexing plan has no field: Java drops it too.
        if plan_schema in _PLAN_FIELDS:
            plan = {_PLAN_FIELDS[plan_schema][0]: avro.record}
    pending = _pending_action(instant, plan_schema)

    def entry(state: State, action_name: str, content: Mapping[str, Any], when: str | None) -> dict[str, Any]:
        return {
            "commitTime": instant.requested_time,
            "actionType": action_name,
            "actionState": _STATES[state],
            "stateTransitionTime": when,
            **content,
        }

    records = []
    if pending not in NO_REQUESTED_STATE:
        records.append(entry(State.REQUESTED, pending.value, plan, None))
    # Java's inflight clean record repeats the plan; an inflight write's content is not kept here.
    records.append(entry(State.INFLIGHT, pending.value, plan if pending is Action.CLEAN else {}, None))
    records.append(entry(State.COMPLETED, action.value, completed, instant.completion_time))
    return records


# ------------------------------------------------------------------------------------ reading
def _completed_bytes(action: str, record: Mapping[str, Any], where: str) -> bytes | None:
    try:
        kind = Action(action)
    except ValueError:
        return None
    if kind in _JSON_ACTIONS:
        field = "hoodieReplaceCommitMetadata" if kind is Action.REPLACE_COMMIT else _COMMIT_FIELD
        content = record.get(field)
        if content is None:
            return None
        replace = kind is Action.REPLACE_COMMIT
        try:
            metadata = (ReplaceCommitMetadata if replace else CommitMetadata).model_validate(content)
        except ValueError as e:
            raise InstantMetadataError(where, f"archived {action} {record.get('commitTime')}: {e}") from e
        return commit_metadata_to_json(metadata)
    if kind in _AVRO_FIELDS:
        field, name = _AVRO_FIELDS[kind]
        content = record.get(field)
        return None if content is None else write_container(name, content)
    return None


def _plan_bytes(record: Mapping[str, Any]) -> bytes | None:
    for field, name in _PLAN_BY_FIELD.items():
        content = record.get(field)
        if content is not None:
            return write_container(name, content)
    return None


def _comparable(action: str) -> str:
    try:
        return Action(action).completes_as.value
    except ValueError:
        return action


def instants_of(records: Iterable[Mapping[str, Any]], *, where: str = "<archive>") -> list[ArchivedInstant]:
    """The completed instants the records describe, oldest requested time first.

    An instant appended twice (an archival retried after a crash) counts once; instants with no
    completed record are left out (the archive only ever holds completed instants).

    Raises:
        InstantMetadataError: Commit metadata that does not validate.
    """
    completed: dict[tuple[str, str], Mapping[str, Any]] = {}
    plans: dict[tuple[str, str], Mapping[str, Any]] = {}
    for record in records:
        requested, action = record.get("commitTime"), record.get("actionType")
        if not isinstance(requested, str) or not isinstance(action, str):
            continue
        key = (requested, _comparable(action))
        state = record.get("actionState") or _STATES[State.COMPLETED]
        if state == _STATES[State.COMPLETED]:
            completed.setdefault(key, record)
        elif state == _STATES[State.REQUESTED]:
            plans.setdefault(key, record)
    out = []
    for key in sorted(completed):
        record = completed[key]
        action = str(record["actionType"])
        transition = record.get("stateTransitionTime")
        plan_record = plans.get(key)
        out.append(
            ArchivedInstant(
                requested_time=key[0],
                completion_time=transition if isinstance(transition, str) and transition else None,
                action=action,
                metadata=_completed_bytes(action, record, where),
                plan=_plan_bytes(plan_record) if plan_record is not None else None,
            )
        )
    return out
