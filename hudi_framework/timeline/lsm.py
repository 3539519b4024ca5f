"""The LSM timeline (table versions 8 and 9): archived instants in Parquet files under ``.hoodie/timeline/history``.

Layout (Apache Hudi's ``LSMTimeline``/``LSMTimelineWriter``):

* ``<minInstant>_<maxInstant>_<layer>.parquet``: rows of ``HoodieLSMTimelineInstant`` (instant
  time, completion time, completed action, completed file bytes, plan bytes, version 1). An archival
  writes one layer-0 file holding every instant it moves.
* ``manifest_<N>``: JSON (Jackson's pretty printer) listing the files of snapshot ``N`` with their
  lengths; ``_version_``: the latest ``N`` as text. A reader takes the latest version's manifest and
  reads only the files it names, so a crash between writing a Parquet file and its manifest leaves
  no visible change; when ``_version_`` is missing or unreadable, the greatest listed manifest wins.
* Layer compaction: once a layer holds ``compaction_batch_size`` files, its oldest files (at most that
  many and at most 1 GiB together, at least two) are merged into one file of the next layer, which
  replaces them in a new manifest; then the next layer is checked. After a compaction, files no
  manifest of the latest ``3 + compacted layers`` versions names, and older manifests, are deleted.

Appending instants already archived (a crash between archiving and deleting the active instant
files, then a retry) does not duplicate them on read: :meth:`LsmArchive.read` keeps one row per
(instant time, action).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import pyarrow as pa
import pyarrow.parquet as pq

from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.errors import LsmTimelineError
from hudi_framework.timeline._jackson import dumps_pretty
from hudi_framework.timeline.archive import ArchivedInstant

__all__ = ["LSM_SCHEMA", "LsmArchive", "LsmFile", "compacted_file_name", "lsm_file_name"]

VERSION_FILE: Final = "_version_"
_MANIFEST_RE: Final = re.compile(r"^manifest_(\d+)$")
_DATA_FILE_RE: Final = re.compile(r"^(\d+)_(\d+)_(\d)\.parquet$")
#: ``HoodieLSMTimelineInstant.version`` of the rows written.
INSTANT_VERSION: Final = 1
#: Default of ``hoodie.timeline.compaction.batch.size``.
DEFAULT_COMPACTION_BATCH_SIZE: Final = 10
#: Java's compaction target (1 GiB): a group of files to merge stops growing past it.
COMPACTION_TARGET_BYTES: Final = 1024 * 1024 * 1024
#: Snapshot versions a cleaning keeps (besides one per layer compacted), so readers of a recent
#: version still find its files.
RETAINED_VERSIONS: Final = 3

_STRING: Final = {"type": "string", "avro.java.string": "String"}
#: ``org.apache.hudi.avro.model.HoodieLSMTimelineInstant``, as parquet-avro stores it in the footer.
_AVRO_SCHEMA: Final = {
    "type": "record",
    "name": "HoodieLSMTimelineInstant",
    "namespace": "org.apache.hudi.avro.model",
    "fields": [
        {"name": "instantTime", "type": ["null", _STRING], "default": None},
        {"name": "completionTime", "type": ["null", _STRING], "default": None},
        {"name": "action", "type": ["null", _STRING], "default": None},
        {"name": "metadata", "type": ["null", "bytes"], "default": None},
        {"name": "plan", "type": ["null", "bytes"], "default": None},
        {"name": "version", "type": "int", "default": 1},
    ],
}
LSM_SCHEMA: Final = pa.schema(
    [
        pa.field("instantTime", pa.string()),
        pa.field("completionTime", pa.string()),
        pa.field("action", pa.string()),
        pa.field("metadata", pa.binary()),
        pa.field("plan", pa.binary()),
        pa.field("version", pa.int32(), nullable=False),
    ],
    metadata={"parquet.avro.schema": json.dumps(_AVRO_SCHEMA, separators=(",", ":")), "writer.model.name": "avro"},
)


@dataclass(frozen=True, slots=True)
class LsmFile:
    """One data file of a snapshot, as its manifest lists it."""

    name: str
    length: int

    @property
    def min_instant(self) -> str:
        return _parse(self.name)[0]

    @property
    def max_instant(self) -> str:
        return _parse(self.name)[1]

    @property
    def layer(self) -> int:
        return _parse(self.name)[2]


def _parse(name: str) -> tuple[str, str, int]:
    m = _DATA_FILE_RE.match(name)
    if m is None:
        raise LsmTimelineError(name, "not an LSM timeline file name (<min>_<max>_<layer>.parquet)")
    return m.group(1), m.group(2), int(m.group(3))


def lsm_file_name(min_instant: str, max_instant: str, layer: int) -> str:
    """``<min>_<max>_<layer>.parquet``."""
    return f"{min_instant}_{max_instant}_{layer}.parquet"


def compacted_file_name(names: Sequence[str]) -> str:
    """The next layer's file replacing ``names`` (all of one layer): their instant range, layer + 1."""
    parsed = [_parse(n) for n in names]
    return lsm_file_name(min(p[0] for p in parsed), max(p[1] for p in parsed), parsed[0][2] + 1)


class LsmArchive:
    """The LSM timeline of one table: :class:`~hudi_framework.timeline.archive.ArchiveFormat` for layout 2."""

    def __init__(
        self, storage: StorageBackend, directory: str, *, compaction_batch_size: int = DEFAULT_COMPACTION_BATCH_SIZE
    ) -> None:
        """``directory``: the history directory's key under the table root (``.hoodie/timeline/history``)."""
        if compaction_batch_size < 2:
            raise LsmTimelineError(directory, f"compaction batch size must be >= 2, got {compaction_batch_size}")
        self._storage = storage
        self._dir = directory.strip("/")
        self._batch = compaction_batch_size

    def _key(self, name: str) -> str:
        return f"{self._dir}/{name}"

    # ------------------------------------------------------------------------------ snapshots
    def latest_version(self) -> int:
        """The latest snapshot version (``_version_``, else the greatest manifest listed), -1 if none."""
        try:
            return int(self._storage.read(self._key(VERSION_FILE)).decode("utf-8").strip())
        except (FileNotFoundError, ValueError, UnicodeDecodeError):
            # Java falls back to the listing too: the version file is rewritten after its manifest.
            return max(self.versions(), default=-1)

    def versions(self) -> list[int]:
        """Every snapshot version a manifest file exists for."""
        found = (_MANIFEST_RE.match(info.name) for info in self._storage.list(self._dir))
        return sorted(int(m.group(1)) for m in found if m is not None)

    def manifest(self, version: int | None = None) -> list[LsmFile]:
        """The files of snapshot ``version`` (default: the latest); empty when there is none.

        Raises:
            LsmTimelineError: The manifest cannot be decoded.
        """
        if version is None:
            version = self.latest_version()
        if version < 0:
            return []
        key = self._key(f"manifest_{version}")
        try:
            doc = json.loads(self._storage.read(key).decode("utf-8") or "{}")
            return [LsmFile(str(f["fileName"]), int(f["fileLen"])) for f in doc.get("files", [])]
        except FileNotFoundError:
            raise LsmTimelineError(self._storage.uri(key), "the manifest of the latest version is missing") from None
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise LsmTimelineError(self._storage.uri(key), f"undecodable manifest: {e}") from e

    # ---------------------------------------------------------------------------------- reads
    def read(self) -> list[ArchivedInstant]:
        """Every archived instant of the latest snapshot, oldest requested time first, each once.

        Raises:
            LsmTimelineError: A manifest or a file it names cannot be read.
        """
        files = self.manifest()
        if not files:
            return []
        keys = [self._key(f.name) for f in files]
        try:
            tables = [_read_rows(data) for data in self._storage.read_many(keys)]
        except FileNotFoundError as e:
            raise LsmTimelineError(self._storage.uri(self._dir), f"a file the manifest names is missing: {e}") from e
        except (pa.ArrowException, KeyError) as e:
            raise LsmTimelineError(self._storage.uri(self._dir), f"unreadable archive file: {e}") from e
        rows = pa.concat_tables(tables)
        seen: set[tuple[str, str]] = set()
        out: list[ArchivedInstant] = []
        columns = [rows.column(n).to_pylist() for n in ("instantTime", "completionTime", "action", "metadata", "plan")]
        for time, completion, action, metadata, plan in zip(*columns, strict=True):
            if time is None or action is None or (time, action) in seen:
                continue
            seen.add((time, action))
            out.append(ArchivedInstant(time, completion, action, metadata or None, plan or None))
        out.sort(key=lambda i: (i.requested_time, i.action))
        return out

    # --------------------------------------------------------------------------------- writes
    def append(self, instants: Sequence[ArchivedInstant]) -> None:
        """Write ``instants`` as one layer-0 file, publish it in a new snapshot, then compact and clean.

        An archival retried after a crash that left its file committed (the instants both archived
        and active) publishes nothing new; a file left unpublished by a crash is replaced.
        """
        if not instants:
            return
        ordered = sorted(instants, key=lambda i: (i.requested_time, i.action))
        name = lsm_file_name(ordered[0].requested_time, ordered[-1].requested_time, 0)
        if self._storage.exists(self._key(name)):
            if any(f.name == name for f in self.manifest()):
                return
            self._storage.delete(self._key(name))
        self._write_file(name, _rows(ordered))
        self._publish([], name)
        self.compact_and_clean()

    def _write_file(self, name: str, table: pa.Table) -> None:
        sink = pa.BufferOutputStream()
        # As Java's files: gzip, v1 pages, plain encoding (its dictionaries never pay off on unique instants).
        pq.write_table(table, sink, compression="gzip", use_dictionary=False, data_page_version="1.0")
        self._storage.write(self._key(name), sink.getvalue().to_pybytes())

    def _publish(self, remove: Sequence[str], add: str) -> None:
        """A new snapshot: the latest manifest minus ``remove`` plus ``add``, then ``_version_``."""
        latest = self.latest_version()
        files = [f for f in self.manifest(latest) if f.name not in set(remove)]
        files.append(LsmFile(add, self._storage.size(self._key(add))))
        doc = {"files": [{"fileName": f.name, "fileLen": f.length} for f in files]}
        version = 1 if latest < 0 else latest + 1
        # A manifest of this number left by a writer that died before its version file is garbage.
        self._storage.write(self._key(f"manifest_{version}"), dumps_pretty(doc).encode("utf-8"))
        self._storage.write(self._key(VERSION_FILE), str(version).encode("utf-8"))

    def compact_and_clean(self) -> None:
        """Merge full layers into the next one (layer 0 first), then clean after a compaction."""
        layer = 0
        while self._compact(layer):
            layer += 1
        if layer:
            self._clean(layer)

    def _compact(self, layer: int) -> bool:
        files = sorted((f for f in self.manifest() if f.layer == layer), key=lambda f: f.name)
        if len(files) < self._batch:
            return False
        group = _candidates(files, self._batch)
        if len(group) < 2:
            return False
        name = compacted_file_name(group)
        if self._storage.exists(self._key(name)):
            self._storage.delete(self._key(name))
        tables = [_read_rows(data) for data in self._storage.read_many([self._key(n) for n in group])]
        self._write_file(name, pa.concat_tables(tables))
        self._publish(group, name)
        return True

    def _clean(self, compacted_layers: int) -> None:
        versions = sorted(self.versions(), reverse=True)
        keep = versions[: RETAINED_VERSIONS + compacted_layers]
        if len(versions) <= len(keep):
            return
        referenced = {f.name for v in keep for f in self.manifest(v)}
        for version in versions[len(keep) :]:
            self._storage.delete(self._key(f"manifest_{version}"))
        for info in self._storage.list(self._dir):
            if info.name.endswith(".parquet") and info.name not in referenced:
                self._storage.delete(info.key)


def _candidates(files: Sequence[LsmFile], batch: int) -> list[str]:
    """At most ``batch`` consecutive files from the oldest, stopping past the size target (Java's rule)."""
    group: list[str] = []
    total = 0
    for f in files:
        total += f.length
        group.append(f.name)
        if len(group) >= batch:
            break
        if total > COMPACTION_TARGET_BYTES:
            if len(group) < 2:
                group, total = [], 0
            else:
                break
    return group


def _rows(instants: Sequence[ArchivedInstant]) -> pa.Table:
    return pa.table(
        {
            "instantTime": [i.requested_time for i in instants],
            "completionTime": [i.completion_time for i in instants],
            "action": [i.action for i in instants],
            "metadata": [i.metadata for i in instants],
            "plan": [i.plan for i in instants],
            "version": pa.array([INSTANT_VERSION] * len(instants), pa.int32()),
        },
        schema=LSM_SCHEMA,
    )


def _read_rows(data: bytes) -> pa.Table:
    table = pq.read_table(pa.BufferReader(data))
    # Files of other writers may carry more columns or another field order: select by name; a
    # missing optional column reads as nulls, a missing version as the only version there is.
    columns: dict[str, pa.ChunkedArray | pa.Array] = {}
    for f in LSM_SCHEMA:
        if f.name in table.column_names:
            columns[f.name] = table.column(f.name).cast(f.type)
        elif f.name == "version":
            columns[f.name] = pa.array([INSTANT_VERSION] * table.num_rows, pa.int32())
        else:
            columns[f.name] = pa.nulls(table.num_rows, f.type)
    return pa.table(columns, schema=LSM_SCHEMA)
