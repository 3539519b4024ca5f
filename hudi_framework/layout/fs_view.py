"""The file-system view: which file slices make up the table as of an instant.

The view is built from two inputs and nothing else (it never reads the timeline itself):

* the files listed in each partition (:func:`~hudi_framework.layout.discovery.list_table`), and
* timeline facts as plain data: the completed instants with their completion times, the file groups
  replaced by completed replacecommits, the pending compaction of each file group, and the table
  version.

Rules (tech spec "Reader Expectations", hudi-format.md 10.6; Java ``AbstractTableFileSystemView``):

1. A file whose instant is not a completed write instant (as of ``as_of``) is uncommitted and dropped.
   Instants older than ``timeline_start`` count as completed: they were archived.
2. A file group replaced by a replacecommit whose requested time is at or before ``as_of`` is dropped.
3. Slicing. **v6**: a log file names the base instant of its slice, so it joins the slice with that
   base instant. **v8+**: a log file names its own delta commit, and joins the latest slice whose base
   instant is at or before that delta commit's *completion* time.
4. A pending compaction opens a new slice at its instant (without a base file until it completes).
   The *merged* latest slice, which readers use, folds that slice back into the previous one.
5. ``as_of`` compares *requested* times, like Java's time travel and hudi-rs. For v6 the log files of
   a visible slice are all returned: which of their blocks are visible is decided by the log reader.

File groups that only have log files are kept and flagged (:attr:`FileGroup.is_log_only`); Java reads
them, hudi-rs drops them.

**Files the timeline names.** A listing alone cannot tell a file that was never written from one that
was lost: without its newest base file a file group silently falls back to its previous slice (or
vanishes). Given ``timeline_files`` (the files the commit metadata of completed instants names), the
view slices the union of both, so the slice chosen as of any instant is the one the timeline
describes; :meth:`FileSystemView.check_files` then raises for chosen files the listing lacks.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field

from hudi_framework.contracts.storage import FileInfo, StorageBackend
from hudi_framework.errors import MissingDataFileError, UnsupportedFormatError
from hudi_framework.layout.discovery import TableListing, list_table
from hudi_framework.layout.file_group import BaseFile, FileGroup, FileGroupId, FileSlice, LogFile
from hudi_framework.layout.naming import BaseFileName, LogFileName, parse_data_file_name
from hudi_framework.timeline.instant import COMPLETES_AS, WRITE_ACTIONS, Instant

#: First table version whose log files are named by delta commit and sliced by completion time.
COMPLETION_TIME_SLICING_VERSION = 8


@dataclass(slots=True)
class _Candidates:
    """Every parsed data file of one file group, before any timeline filtering."""

    base_files: list[BaseFile] = field(default_factory=list)
    log_files: list[LogFile] = field(default_factory=list)


class FileSystemView:
    """File groups and slices of a table, as of any instant.

    Immutable after construction; results are computed lazily and cached per ``as_of``.
    """

    def __init__(
        self,
        files: TableListing | Mapping[str, Iterable[FileInfo]],
        *,
        completed_instants: Iterable[Instant],
        table_version: int,
        replaced_file_groups: Mapping[FileGroupId, str] | None = None,
        pending_compactions: Mapping[FileGroupId, str] | None = None,
        timeline_start: str | None = None,
        base_file_extensions: Collection[str] | None = None,
        timeline_files: Mapping[str, Mapping[str, str]] | None = None,
    ) -> None:
        """Build the view.

        Args:
            files: Partition path -> files directly in that partition (a :class:`TableListing` or
                any mapping of :class:`FileInfo`). Names that are neither base nor data log files
                (partition metadata, CDC logs, ``.DS_Store``...) are ignored.
            completed_instants: Completed instants; only write actions (commit, deltacommit,
                replacecommit, and what compaction/clustering/log compaction complete as) are used.
                Their ``completion_time`` drives v8+ slicing.
            table_version: ``hoodie.table.version``; 8 and later slice by completion time.
            replaced_file_groups: File group -> requested time of the *completed* replacecommit
                (clustering, insert overwrite, delete partition) that replaced it.
            pending_compactions: File group -> requested time of its pending compaction.
            timeline_start: Requested time of the first instant of the active timeline when older
                instants were archived: files older than it count as committed (Java's
                ``containsOrBeforeTimelineStarts``). For v8+ their completion time is taken to be
                their requested time, unless ``completed_instants`` includes them.
            base_file_extensions: Extensions that count as base files (for example the table's
                ``hoodie.table.base.file.format``); None accepts every base-file-shaped name.
            timeline_files: Partition path -> file name -> requested time of the (first) completed
                instant whose commit metadata names the file. Names the listing lacks are sliced as
                if listed (size unknown) and reported by :meth:`check_files`.
        """
        self._table_version = table_version
        self._by_completion = table_version >= COMPLETION_TIME_SLICING_VERSION
        self._completion: dict[str, str] = {}
        for inst in completed_instants:
            action = COMPLETES_AS.get(inst.action, inst.action)
            if inst.is_completed and action in WRITE_ACTIONS:
                self._completion[inst.requested_time] = inst.completion_time or inst.requested_time
        self._replaced = dict(replaced_file_groups or {})
        self._pending = dict(pending_compactions or {})
        self._timeline_start = timeline_start
        exts = None if base_file_extensions is None else {e.lower().lstrip(".") for e in base_file_extensions}
        mapping = files.files if isinstance(files, TableListing) else files
        self._candidates: dict[FileGroupId, _Candidates] = defaultdict(_Candidates)
        listed: dict[str, set[str]] = {}
        for partition, infos in mapping.items():
            names = listed[partition] = set()
            for info in infos:
                names.add(info.name)
                self._add_file(partition, info.name, info.size, exts)
        # Storage key -> the instant whose metadata names it, for files the listing lacks.
        self._unlisted: dict[str, str] = {}
        partitions = set(mapping)
        for partition, written in (timeline_files or {}).items():
            present = listed.get(partition, set())
            for name, instant in written.items():
                if name not in present and self._add_file(partition, name, None, exts):
                    self._unlisted[FileGroupId(partition, "").key(name)] = instant
                    partitions.add(partition)  # a partition lost whole is still the table's
        self._partitions = sorted(partitions)
        self._cache: dict[tuple[str | None, FileGroupId], FileGroup | None] = {}

    @classmethod
    def from_storage(
        cls,
        storage: StorageBackend,
        *,
        partitions: Iterable[str] | None = None,
        completed_instants: Iterable[Instant],
        table_version: int,
        replaced_file_groups: Mapping[FileGroupId, str] | None = None,
        pending_compactions: Mapping[FileGroupId, str] | None = None,
        timeline_start: str | None = None,
        base_file_extensions: Collection[str] | None = None,
        timeline_files: Mapping[str, Mapping[str, str]] | None = None,
    ) -> FileSystemView:
        """List the table (all partitions, or only ``partitions``) and build the view.

        See :meth:`__init__` for the other arguments.
        """
        return cls(
            list_table(storage, partitions),
            completed_instants=completed_instants,
            table_version=table_version,
            replaced_file_groups=replaced_file_groups,
            pending_compactions=pending_compactions,
            timeline_start=timeline_start,
            base_file_extensions=base_file_extensions,
            timeline_files=timeline_files,
        )

    def _add_file(self, partition: str, name: str, size: int | None, exts: set[str] | None) -> bool:
        """Add a data file of the table's state; False for names that are not one."""
        parsed = parse_data_file_name(name)
        if isinstance(parsed, BaseFileName):
            if exts is None or parsed.extension.lower() in exts:
                fg = FileGroupId(partition, parsed.file_id)
                self._candidates[fg].base_files.append(BaseFile(parsed, size))
                return True
        elif isinstance(parsed, LogFileName) and parsed.extension == "log" and not parsed.cdc:
            # CDC logs hold change records for incremental CDC queries, not table state.
            fg = FileGroupId(partition, parsed.file_id)
            self._candidates[fg].log_files.append(LogFile(parsed, size))
            return True
        return False

    # ----------------------------------------------------------------- timeline facts
    @property
    def table_version(self) -> int:
        """The table version the view slices for."""
        return self._table_version

    @property
    def partitions(self) -> list[str]:
        """Listed partition paths, sorted."""
        return list(self._partitions)

    def _is_committed(self, instant: str, as_of: str | None) -> bool:
        if as_of is not None and instant > as_of:
            return False
        if instant in self._completion:
            return True
        return self._timeline_start is not None and instant < self._timeline_start

    def _pending_compaction(self, fg: FileGroupId, as_of: str | None) -> str | None:
        pending = self._pending.get(fg)
        if pending is None or (as_of is not None and pending > as_of):
            return None
        return pending

    def _replaced_by(self, fg: FileGroupId, as_of: str | None) -> str | None:
        replaced = self._replaced.get(fg)
        if replaced is None or (as_of is not None and replaced > as_of):
            return None
        return replaced

    def _unlisted_after(self, fg: FileGroupId, log: LogFile, as_of: str | None) -> bool:
        """A v6 log file only the timeline names, first written after ``as_of``: no block of it is
        visible then, so a snapshot as of ``as_of`` does not read (or miss) it."""
        if as_of is None:
            return False
        written = self._unlisted.get(fg.key(log.name))
        return written is not None and written > as_of

    # ----------------------------------------------------------------- slicing
    def _base_files(self, cands: _Candidates, as_of: str | None, pending: str | None) -> dict[str, BaseFile]:
        """Committed base files per instant; a pending compaction's (partial) base file is ignored."""
        out: dict[str, BaseFile] = {}
        for base in sorted(cands.base_files, key=lambda b: b.name):
            instant = base.instant_time
            if instant == pending or not self._is_committed(instant, as_of):
                continue
            # Two base files for one instant only survive a crashed retry that was not cleaned up;
            # like Java on a sorted listing, the last name wins.
            out[instant] = BaseFile(base.file_name, base.size, self._completion.get(instant))
        return out

    def _slices_v6(
        self, fg: FileGroupId, cands: _Candidates, as_of: str | None, pending: str | None
    ) -> list[FileSlice]:
        bases = self._base_files(cands, as_of, pending)
        logs: dict[str, list[LogFile]] = defaultdict(list)
        for log in cands.log_files:
            # The name carries the slice's base instant: committed, or the pending compaction that
            # new log files are written against.
            visible = log.instant_time == pending or self._is_committed(log.instant_time, as_of)
            if visible and not self._unlisted_after(fg, log, as_of):
                logs[log.instant_time].append(log)
        keys = set(bases) | set(logs) | ({pending} if pending else set())
        return [FileSlice.create(fg, key, bases.get(key), logs.get(key, [])) for key in sorted(keys)]

    def _slices_by_completion(
        self, fg: FileGroupId, cands: _Candidates, as_of: str | None, pending: str | None
    ) -> list[FileSlice]:
        bases = self._base_files(cands, as_of, pending)
        keys = sorted(set(bases) | ({pending} if pending else set()))
        logs: dict[str, list[LogFile]] = defaultdict(list)
        for log in sorted(cands.log_files, key=LogFile.sort_key):
            if not self._is_committed(log.instant_time, as_of):
                continue
            completion = self._completion.get(log.instant_time, log.instant_time)
            at = bisect.bisect_right(keys, completion) - 1
            if at >= 0:
                key = keys[at]
            else:
                # Completed before every base file (or the group has none): Java opens a slice at
                # the log's own delta commit, and later logs of the group join it.
                key = log.instant_time
                bisect.insort(keys, key)
            logs[key].append(LogFile(log.file_name, log.size, completion))
        return [FileSlice.create(fg, key, bases.get(key), logs.get(key, [])) for key in keys]

    def _group(self, fg: FileGroupId, as_of: str | None) -> FileGroup | None:
        """The file group with its slices as of ``as_of`` (replaced or not), None if nothing visible."""
        cache_key = (as_of, fg)
        if cache_key in self._cache:
            return self._cache[cache_key]
        cands = self._candidates.get(fg)
        group = None
        if cands is not None:
            pending = self._pending_compaction(fg, as_of)
            build = self._slices_by_completion if self._by_completion else self._slices_v6
            slices = build(fg, cands, as_of, pending)
            # Only a pending compaction's slice can be empty; alone it makes no visible file group.
            if any(not s.is_empty for s in slices):
                group = FileGroup(fg, tuple(slices), self._replaced_by(fg, as_of))
        self._cache[cache_key] = group
        return group

    def _merged_latest(self, group: FileGroup, as_of: str | None) -> FileSlice | None:
        """The latest slice with a pending compaction's slice folded into the one before it."""
        slices = group.slices
        if not slices:
            return None
        latest = slices[-1]
        pending = self._pending_compaction(group.id, as_of)
        if latest.base_instant_time != pending or latest.base_file is not None or len(slices) < 2:
            return latest
        previous = slices[-2]
        return FileSlice.create(
            group.id, previous.base_instant_time, previous.base_file, previous.log_files + latest.log_files
        )

    # ----------------------------------------------------------------- queries
    def _file_group_ids(self, partition: str | None) -> list[FileGroupId]:
        ids = self._candidates.keys()
        return sorted(fg for fg in ids if partition is None or fg.partition_path == partition)

    def all_file_groups(
        self, partition: str | None = None, *, as_of: str | None = None, include_replaced: bool = False
    ) -> list[FileGroup]:
        """File groups with at least one committed file, sorted by id.

        Args:
            partition: Only this partition; None for all.
            as_of: Instant to view the table at; None for the latest state.
            include_replaced: Also return groups replaced by a completed replacecommit.
        """
        out = []
        for fg in self._file_group_ids(partition):
            group = self._group(fg, as_of)
            if group is not None and (include_replaced or group.replaced_by is None):
                out.append(group)
        return out

    def file_slices(self, file_group: FileGroupId, *, as_of: str | None = None) -> list[FileSlice]:
        """All committed slices of one file group, oldest first, without pending-compaction merging.

        Returns an empty list for unknown, uncommitted or replaced groups.
        """
        group = self._group(file_group, as_of)
        if group is None or group.replaced_by is not None:
            return []
        return list(group.slices)

    def latest_file_slice(
        self, file_group: FileGroupId, *, as_of: str | None = None, merge_pending_compaction: bool = True
    ) -> FileSlice | None:
        """The latest slice of one file group, or None (unknown, uncommitted or replaced).

        Args:
            file_group: The group.
            as_of: Instant to view the table at; None for the latest state.
            merge_pending_compaction: Fold a pending compaction's slice into the previous slice
                (what readers need). Writers of v6 logs pass False to get the slice whose base instant
                new log files must be named after.
        """
        group = self._group(file_group, as_of)
        if group is None or group.replaced_by is not None:
            return None
        return self._merged_latest(group, as_of) if merge_pending_compaction else group.latest_slice

    def latest_file_slices(
        self,
        partition: str | None = None,
        *,
        as_of: str | None = None,
        merge_pending_compaction: bool = True,
        include_log_only: bool = True,
    ) -> list[FileSlice]:
        """The latest slice of every live file group, sorted by file group id.

        Args:
            partition: Only this partition; None for all.
            as_of: Instant to view the table at; None for the latest state.
            merge_pending_compaction: See :meth:`latest_file_slice`.
            include_log_only: Keep file groups without any base file (hudi-rs drops them).
        """
        out = []
        for group in self.all_file_groups(partition, as_of=as_of):
            if not include_log_only and group.is_log_only:
                continue
            latest = self._merged_latest(group, as_of) if merge_pending_compaction else group.latest_slice
            if latest is not None:
                out.append(latest)
        return out

    def missing_files(self, slices: Iterable[FileSlice]) -> dict[str, str]:
        """Files of ``slices`` the timeline names but the listing lacks: storage key -> the instant
        whose commit metadata names it (empty unless built with ``timeline_files``)."""
        if not self._unlisted:
            return {}
        out: dict[str, str] = {}
        for file_slice in slices:
            keys = file_slice.log_file_keys
            if file_slice.base_file_key is not None:
                keys.append(file_slice.base_file_key)
            for key in keys:
                if key in self._unlisted:
                    out[key] = self._unlisted[key]
        return out

    def check_files(self, slices: Iterable[FileSlice]) -> None:
        """Raise if a file of ``slices`` is named by the timeline but missing from the listing.

        Raises:
            MissingDataFileError: Naming the missing files and the instant that wrote the first.
        """
        missing = self.missing_files(slices)
        if missing:
            keys = sorted(missing)
            raise MissingDataFileError(keys, missing[keys[0]])


def check_base_file_formats(slices: Iterable[FileSlice], supported: Collection[str] = ("parquet",)) -> None:
    """Raise if any slice has a base file in a format the caller cannot read (such as Lance).

    Raises:
        UnsupportedFormatError: Naming the format and one file that has it.
    """
    allowed = {s.lower() for s in supported}
    for file_slice in slices:
        fmt = file_slice.base_file_format
        if fmt is not None and fmt not in allowed:
            raise UnsupportedFormatError(
                f"base file format {fmt!r} is not supported (supported: {', '.join(sorted(allowed))}); "
                f"found {file_slice.base_file_key!r}"
            )
