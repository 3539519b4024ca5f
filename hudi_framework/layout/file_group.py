"""File groups and file slices (tech spec "File Layout Hierarchy").

A *file group* is identified by (partition path, file id) and holds versions of a base file. A *file
slice* is one version: the base file written at its *base instant* plus the log files holding
updates against it (merge-on-read). A slice may have no base file: a pending compaction's new slice
before the compaction completes, or a file group whose first write went to log files.
"""

from __future__ import annotations

from dataclasses import dataclass

from hudi_framework.layout.naming import BaseFileName, LogFileName


@dataclass(frozen=True, slots=True, order=True)
class FileGroupId:
    """Identity of a file group; orders by partition path, then file id.

    Attributes:
        partition_path: Relative partition path, ``""`` for a non-partitioned table.
        file_id: The file id shared by every file of the group.
    """

    partition_path: str
    file_id: str

    def key(self, file_name: str) -> str:
        """Storage key (relative to the base path) of a file of this group."""
        return f"{self.partition_path}/{file_name}" if self.partition_path else file_name

    def __str__(self) -> str:
        return f"{self.partition_path}/{self.file_id}" if self.partition_path else self.file_id


@dataclass(frozen=True, slots=True)
class BaseFile:
    """A base file as found in storage.

    Attributes:
        file_name: The parsed name.
        size: Size in bytes, or None if unknown.
        completion_time: Completion time of the instant that wrote it, when the timeline gives one.
    """

    file_name: BaseFileName
    size: int | None = None
    completion_time: str | None = None

    @property
    def name(self) -> str:
        """The file name."""
        return self.file_name.name

    @property
    def instant_time(self) -> str:
        """Requested time of the write that produced the file."""
        return self.file_name.instant_time

    @property
    def extension(self) -> str:
        """The base file format's extension, lower case (``parquet``, ``orc``, ``lance``...)."""
        return self.file_name.extension.lower()


@dataclass(frozen=True, slots=True)
class LogFile:
    """A log file as found in storage.

    Attributes:
        file_name: The parsed name.
        size: Size in bytes, or None if unknown.
        completion_time: v8+: completion time of the delta commit named in the file name (which
            decides the slice the file belongs to); None for v6, where the name carries the slice's
            base instant instead.
    """

    file_name: LogFileName
    size: int | None = None
    completion_time: str | None = None

    @property
    def name(self) -> str:
        """The file name."""
        return self.file_name.name

    @property
    def instant_time(self) -> str:
        """The instant in the name: v6 base instant, v8+ delta commit requested time."""
        return self.file_name.instant_time

    def sort_key(self) -> tuple[str, int, bool, str, bool]:
        """Java's log file order within a slice: (instant, version, write token, suffix)."""
        return self.file_name.sort_key()


@dataclass(frozen=True, slots=True)
class FileSlice:
    """One version of a file group: an optional base file and the log files applied on top of it.

    Attributes:
        file_group_id: The group this slice belongs to.
        base_instant_time: The instant that started the slice (the base file's instant, or the
            pending compaction / first delta commit for slices without a base file).
        base_file: The base file, or None.
        log_files: Log files in Java's order (instant, version, write token); see :meth:`create`.
    """

    file_group_id: FileGroupId
    base_instant_time: str
    base_file: BaseFile | None = None
    log_files: tuple[LogFile, ...] = ()

    @classmethod
    def create(
        cls,
        file_group_id: FileGroupId,
        base_instant_time: str,
        base_file: BaseFile | None = None,
        log_files: tuple[LogFile, ...] | list[LogFile] = (),
    ) -> FileSlice:
        """Build a slice, sorting the log files into Java's order."""
        return cls(file_group_id, base_instant_time, base_file, tuple(sorted(log_files, key=LogFile.sort_key)))

    @property
    def partition_path(self) -> str:
        """The partition path of the file group."""
        return self.file_group_id.partition_path

    @property
    def file_id(self) -> str:
        """The file id of the file group."""
        return self.file_group_id.file_id

    @property
    def base_file_name(self) -> str | None:
        """The base file's name, or None."""
        return self.base_file.name if self.base_file is not None else None

    @property
    def log_file_names(self) -> list[str]:
        """Names of the log files, in order."""
        return [log.name for log in self.log_files]

    @property
    def base_file_format(self) -> str | None:
        """Lower-case extension of the base file (``parquet``, ``lance``...), or None without one.

        Readers check it and raise :class:`~hudi_framework.errors.UnsupportedFormatError` for formats
        they cannot read, instead of failing inside a parquet reader.
        """
        return self.base_file.extension if self.base_file is not None else None

    @property
    def base_file_key(self) -> str | None:
        """Storage key of the base file relative to the table base path, or None."""
        return self.file_group_id.key(self.base_file.name) if self.base_file is not None else None

    @property
    def log_file_keys(self) -> list[str]:
        """Storage keys of the log files, in order."""
        return [self.file_group_id.key(log.name) for log in self.log_files]

    @property
    def has_log_files(self) -> bool:
        """Whether the slice has log files."""
        return bool(self.log_files)

    @property
    def is_empty(self) -> bool:
        """Neither a base file nor log files (a freshly scheduled compaction's slice)."""
        return self.base_file is None and not self.log_files


@dataclass(frozen=True, slots=True)
class FileGroup:
    """A file group and its slices, oldest first.

    Attributes:
        id: The file group's identity.
        slices: Slices ordered by base instant.
        replaced_by: Requested time of the completed replacecommit (clustering, insert overwrite)
            that replaced this group, if any.
    """

    id: FileGroupId
    slices: tuple[FileSlice, ...]
    replaced_by: str | None = None

    @property
    def latest_slice(self) -> FileSlice | None:
        """The newest slice, or None if the group has none."""
        return self.slices[-1] if self.slices else None

    @property
    def has_base_file(self) -> bool:
        """Whether any slice has a base file."""
        return any(s.base_file is not None for s in self.slices)

    @property
    def is_log_only(self) -> bool:
        """A group with log files but no base file in any slice.

        Java reads such groups (a write can start a file group in log files, e.g. with bucket
        indexes); hudi-rs drops them ("TODO support creating file groups without base files").
        """
        return not self.has_base_file and any(s.log_files for s in self.slices)
