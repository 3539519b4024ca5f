"""Stray objects: what a table holds that no settled state accounts for (leaks of killed writers).

A settled table (no writer running, recovery done) holds exactly:

* ``.hoodie/hoodie.properties`` (and its backup), instant files on the timeline, archived timeline
  files, lock files of the storage lock;
* data files (base and log files) that a completed instant names: write stats of the commits
  timeline, rollback log files and the failed write's v6 log files of completed rollbacks and
  restores;
* partition metadata files;
* the marker directories, heartbeats and data files of pending instants (none once every failed
  write is rolled back).

Anything else is stray: orphan data files, markers or heartbeats of instants that are not pending,
an empty marker directory (local disk), unparseable files in the timeline directory, and every
incomplete write (a local temporary file, an S3 multipart upload never completed).
"""

from __future__ import annotations

from hudi_framework.layout.naming import parse_data_file_name
from hudi_framework.table.table import HudiTable
from hudi_framework.timeline.instant import WRITE_ACTIONS, Action
from hudi_framework.timeline.naming import parse_instant_file_name
from hudi_framework.write.heartbeat import HEARTBEAT_ROOT
from hudi_framework.write.markers import MARKER_ROOT

_META = ".hoodie/"
_ALWAYS = {".hoodie/hoodie.properties", ".hoodie/hoodie.properties.backup"}
_META_DIRS_KEPT = (
    ".hoodie/.locks/",
    ".hoodie/archived/",
    ".hoodie/timeline/history/",
    ".hoodie/.aux/",
    ".hoodie/.schema/",
)


def _key(partition: str, uri: str) -> str:
    name = uri.rsplit("/", 1)[-1]
    return f"{partition}/{name}" if partition else name


def _rollback_files(record: dict[str, object]) -> set[str]:
    out: set[str] = set()
    partitions = record.get("partitionMetadata") or {}
    assert isinstance(partitions, dict)
    for partition, entry in partitions.items():
        for field in ("rollbackLogFiles", "logFilesFromFailedCommit"):
            for uri in entry.get(field) or {}:
                out.add(_key(partition, uri))
    return out


def accounted_data_files(table: HudiTable) -> set[str]:
    """Keys of the data files completed instants name."""
    timeline = table.reload().timeline
    keys: set[str] = set()
    for instant in timeline.completed():
        if instant.comparable_action in WRITE_ACTIONS:
            keys |= {s.path for s in timeline.read_commit_metadata(instant).write_stats() if s.path}
        elif instant.action is Action.ROLLBACK:
            avro = timeline.read_avro(instant)
            keys |= _rollback_files(avro.record if avro else {})
        elif instant.action is Action.RESTORE:
            avro = timeline.read_avro(instant)
            for records in ((avro.record if avro else {}).get("hoodieRestoreMetadata") or {}).values():
                for rollback in records or []:
                    keys |= _rollback_files(dict(rollback or {}))
    return keys


def stray_objects(table: HudiTable) -> list[str]:
    """Every stray object of ``table`` (see the module docstring), as readable descriptions."""
    storage = table.storage
    timeline = table.reload().timeline
    layout = table.config.timeline_layout_version
    pending = {i.requested_time for i in timeline.pending()}
    data = accounted_data_files(table)
    stray = []
    for info in storage.list("", recursive=True):
        key, name = info.key, info.name
        if key in _ALWAYS or key.startswith(_META_DIRS_KEPT):
            continue
        if key.startswith(MARKER_ROOT + "/"):
            if key.split("/")[2] not in pending:
                stray.append(f"marker or scratch file {key}")
            continue
        if key.startswith(HEARTBEAT_ROOT + "/"):
            if name not in pending:
                stray.append(f"heartbeat {key}")
            continue
        if key.startswith(_META):
            in_timeline = key.rsplit("/", 1)[0] == timeline.directory
            if not (in_timeline and parse_instant_file_name(name, layout) is not None):
                stray.append(f"metadata file {key}")
            continue
        if name.startswith(".hoodie_partition_metadata"):
            continue
        parsed = parse_data_file_name(name)
        if parsed is None:
            stray.append(f"unknown file {key}")
        elif key not in data and parsed.instant_time not in pending:
            stray.append(f"orphan data file {key}")
    for directory in storage.list_dirs(MARKER_ROOT):
        if directory.rsplit("/", 1)[-1] not in pending:
            stray.append(f"marker directory {directory}")
    stray += [f"incomplete write {w.handle} (of {w.target})" for w in storage.list_incomplete("", recursive=True)]
    return sorted(set(stray))
