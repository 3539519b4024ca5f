"""Stray objects: what storage holds that neither the timeline nor Hudi's known metadata accounts for.

The listing (every object; on local disk also every directory and every hidden temporary file the
backend's own listings skip; on S3 also incomplete multipart uploads) is compared with the
timeline. An object is accounted for when it is:

* ``.hoodie/hoodie.properties``;
* an instant file in the timeline directory (pending instants are reported separately), or a file
  of the archived timeline (``.hoodie/archived/``, ``.hoodie/timeline/history/``), of
  ``.hoodie/.aux/``, of ``.hoodie/.schema/`` or a storage lock's ``.hoodie/.locks/``;
* a partition's ``.hoodie_partition_metadata`` file (Apache Hudi's rollback leaves it too);
* a data file (base or log file) that a completed instant references: a commit, delta commit,
  replace commit or compaction commit in its write stats, a rollback (or restore) as a rollback
  log file or as a log file of the failed commit it cancelled (merge-on-read v6) -- unless a
  completed clean, rollback or restore lists it as deleted;
* the index definitions (``.hoodie/.index_defs/``, which outlive a deleted metadata table);
* while ``hoodie.table.metadata.partitions`` lists the metadata table (MDT): the MDT's own
  ``.hoodie`` (its properties, timeline and directories, which may be empty) and each MDT file (a
  base HFile or log file) of an MDT instant that completed; another MDT file is an
  ``unreferenced metadata-table file`` (a log of a rolled-back or crashed instant left behind).
  Without the listing every MDT file is unknown.

Everything else is a stray, classified:

``temporary file``, ``marker file``, ``scratch file under .hoodie/.temp``, ``heartbeat file``,
``hoodie.properties.backup``, ``unknown metadata file``, ``unreferenced data file``,
``data file deleted by a completed <action>``, ``unknown file``, ``empty directory under
.hoodie/.temp``, ``empty partition directory`` and ``empty directory`` (elsewhere under
``.hoodie``; each the topmost of an empty tree: ``.hoodie``, ``.hoodie/.temp``, ``.hoodie/.heartbeat``
and the archive, aux, schema and timeline directories may be empty) and ``incomplete multipart
upload``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from hudi_framework.layout.naming import parse_data_file_name
from hudi_framework.layout.partition_metadata import is_partition_metadata_file
from hudi_framework.metadata_writer.mdt_timeline import mdt_timeline_writer
from hudi_framework.runtime.table import HudiTable
from hudi_framework.timeline.clean_metadata import decode_clean_metadata
from hudi_framework.timeline.instant import WRITE_ACTIONS, Action, Instant
from hudi_framework.timeline.naming import parse_instant_file_name

#: The local backend's temporary files (``.<name>.<32 hex>.tmp``).
_TMP_NAME: Final = re.compile(r"^\..*\.[0-9a-f]{32}\.tmp$")
_META: Final = ".hoodie"
#: Directories of Hudi's metadata that may be empty, and trees whose files are Hudi's own.
_MAY_BE_EMPTY: Final = frozenset(
    {"", _META, f"{_META}/.temp", f"{_META}/.heartbeat", f"{_META}/timeline", f"{_META}/timeline/history",
     f"{_META}/archived", f"{_META}/.aux", f"{_META}/.schema", f"{_META}/.locks"}
)  # fmt: skip
_KNOWN_TREES: Final = (
    f"{_META}/archived/", f"{_META}/timeline/history/", f"{_META}/.aux/", f"{_META}/.schema/", f"{_META}/.locks/",
    f"{_META}/.index_defs/",
)  # fmt: skip
_MDT: Final = f"{_META}/metadata"
#: What a listed MDT adds to Hudi's own trees: its own ``.hoodie``.
_MDT_TREES: Final = (f"{_MDT}/{_META}/",)


@dataclass(frozen=True, slots=True)
class Listing:
    """Everything under a table's base path.

    Attributes:
        files: Object keys relative to the base path.
        dirs: Directories relative to the base path (local disk only).
        uploads: Keys of incomplete multipart uploads (S3 only).
    """

    files: frozenset[str]
    dirs: frozenset[str] = frozenset()
    uploads: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Stray:
    """One object nothing accounts for."""

    kind: str
    key: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.key}"


def local_listing(root: Path) -> Listing:
    """Every file and directory under ``root`` (hidden and temporary ones included)."""
    files: set[str] = set()
    dirs: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root).replace(os.sep, "/")
        rel = "" if rel == "." else rel
        dirs.update(f"{rel}/{d}" if rel else d for d in dirnames)
        files.update(f"{rel}/{f}" if rel else f for f in filenames)
    return Listing(frozenset(files), frozenset(dirs))


@dataclass(frozen=True, slots=True)
class _Accounts:
    referenced: frozenset[str]
    deleted: dict[str, str]


def _relative(entry: str, partition: str, root: str) -> str:
    """A key from a path or URI in instant metadata (full URIs, or bare names in a partition)."""
    if entry.startswith(root + "/"):
        return entry[len(root) + 1 :]
    if "/" not in entry:
        return f"{partition}/{entry}" if partition else entry
    return entry


def _rollback_files(record: dict[str, Any], root: str, referenced: set[str], deleted: dict[str, str], by: str) -> None:
    for partition, meta in (record.get("partitionMetadata") or {}).items():
        for entry in meta.get("successDeleteFiles") or ():
            deleted[_relative(entry, partition, root)] = by
        for field_name in ("rollbackLogFiles", "logFilesFromFailedCommit"):
            referenced.update(_relative(entry, partition, root) for entry in (meta.get(field_name) or {}))


def _accounts(table: HudiTable) -> _Accounts:
    """Data files referenced by completed instants, and those a completed instant deleted."""
    timeline = table.timeline
    root = table.storage.root_uri.rstrip("/")
    referenced: set[str] = set()
    deleted: dict[str, str] = {}
    for inst in timeline.completed():
        by = f"{inst.action} {inst.requested_time}"
        if inst.comparable_action in WRITE_ACTIONS:
            referenced.update(s.path for s in timeline.read_commit_metadata(inst).write_stats() if s.path)
        elif inst.action is Action.CLEAN:
            clean = decode_clean_metadata(timeline.read_bytes(inst), path=timeline.file_key(inst))
            for partition, meta in clean.partitions.items():
                deleted.update({_relative(name, partition, root): by for name in meta.success_delete_files})
        elif inst.action is Action.ROLLBACK:
            avro = timeline.read_avro(inst)
            if avro is not None:
                _rollback_files(dict(avro.record), root, referenced, deleted, by)
        elif inst.action is Action.RESTORE:
            avro = timeline.read_avro(inst)
            for records in ((avro.record.get("hoodieRestoreMetadata") or {}) if avro else {}).values():
                for record in records or ():
                    _rollback_files(dict(record or {}), root, referenced, deleted, by)
    return _Accounts(frozenset(referenced), deleted)


def table_listing(table: HudiTable) -> Listing:
    """Everything under ``table``'s base path: walked on local disk, else its storage's listing and
    incomplete writes."""
    storage = table.storage
    if "://" not in table.base_uri or table.base_uri.startswith("file://"):
        return local_listing(Path(storage.path("")))
    files = frozenset(info.key for info in storage.list("", recursive=True))
    return Listing(files, uploads=tuple(sorted(w.target for w in storage.list_incomplete("", recursive=True))))


def stray_objects(table: HudiTable) -> list[str]:
    """Every stray of ``table``, as ``kind: key`` (empty for a settled table)."""
    return [str(stray) for stray in find_strays(table, table_listing(table))]


def find_strays(table: HudiTable, listing: Listing) -> list[Stray]:
    """Every stray object of ``listing`` (see the module docstring), sorted by key."""
    table.reload()
    timeline = table.timeline
    accounts = _accounts(table)
    layout = table.config.timeline_layout_version
    mdt_done = _mdt_completed(table)
    strays = [s for s in (_classify(key, timeline.directory, layout, accounts, mdt_done) for key in listing.files) if s]
    strays += [Stray(_empty_kind(d), d) for d in _empty_dirs(listing, mdt_done is not None)]
    strays += [Stray("incomplete multipart upload", key) for key in listing.uploads]
    return sorted(strays, key=lambda s: (s.key, s.kind))


def _mdt_completed(table: HudiTable) -> frozenset[str] | None:
    """Requested times of the MDT's completed instants while the table lists its MDT, else None."""
    if "files" not in table.config.metadata_partitions:
        return None
    writer = mdt_timeline_writer(table.storage, table.config.timeline_timezone)
    return frozenset(i.requested_time for i in writer.timeline().completed())


def _classify(
    key: str, timeline_dir: str, layout: int, accounts: _Accounts, mdt_done: frozenset[str] | None
) -> Stray | None:
    parent, _, name = key.rpartition("/")
    if mdt_done is not None and not _TMP_NAME.match(name):
        if key.startswith(_MDT_TREES) or (key.startswith(f"{_MDT}/") and is_partition_metadata_file(name)):
            return None
        if key.startswith(f"{_MDT}/"):
            parsed = parse_data_file_name(name)
            if parsed is None or parsed.instant_time not in mdt_done:
                return Stray("unreferenced metadata-table file", key)
            return None
    if _TMP_NAME.match(name):
        return Stray("temporary file", key)
    if key == f"{_META}/hoodie.properties":
        return None
    if key.startswith(f"{_META}/.temp/"):
        return Stray("marker file" if ".marker." in name else "scratch file under .hoodie/.temp", key)
    if key.startswith(f"{_META}/.heartbeat/"):
        return Stray("heartbeat file", key)
    if key == f"{_META}/hoodie.properties.backup":
        return Stray("hoodie.properties.backup", key)
    if parent == timeline_dir and parse_instant_file_name(name, layout) is not None:
        return None
    if key.startswith(_KNOWN_TREES):
        return None
    if key == _META or key.startswith(f"{_META}/"):
        return Stray("unknown metadata file", key)
    if is_partition_metadata_file(name):
        return None
    if parse_data_file_name(name) is None:
        return Stray("unknown file", key)
    if key in accounts.deleted:
        return Stray(f"data file deleted by a completed {accounts.deleted[key].split()[0]}", key)
    if key not in accounts.referenced:
        return Stray("unreferenced data file", key)
    return None


def _empty_kind(directory: str) -> str:
    if directory.startswith(f"{_META}/.temp/"):
        return "empty directory under .hoodie/.temp"
    return "empty directory" if directory.startswith(f"{_META}/") else "empty partition directory"


def _empty_dirs(listing: Listing, mdt_listed: bool = False) -> list[str]:
    """The topmost directories that hold no file at any depth (except those that may be empty, and
    while the MDT is listed those of the MDT, which a partition dropped from it may leave)."""
    holding: set[str] = set()
    for key in listing.files:
        parts = key.split("/")[:-1]
        holding.update("/".join(parts[: i + 1]) for i in range(len(parts)))
    empty = sorted(
        d
        for d in listing.dirs
        if d not in holding
        and d not in _MAY_BE_EMPTY
        and not d.startswith(_KNOWN_TREES)
        and not (mdt_listed and (d == _MDT or d.startswith(f"{_MDT}/")))
    )
    return [d for d in empty if not any(d.startswith(e + "/") for e in empty if e != d)]


def pending(table: HudiTable) -> list[Instant]:
    """The instants still requested or inflight."""
    return list(table.reload().timeline.pending())


def describe(instants: Iterable[Instant]) -> list[str]:
    return [f"{i.requested_time} {i.action}.{i.state}" for i in instants]
