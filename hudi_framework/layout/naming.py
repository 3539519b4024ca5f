r"""Base and log file names: parsing, formatting, new file ids and write tokens.

Names follow Java Hudi's ``FSUtils`` (hudi-format.md section 3):

* base file ``<fileId>_<writeToken>_<instantTime>.<ext>``, recognised by Java's
  ``BASE_FILE_PATTERN`` ``[a-zA-Z0-9-]+_[a-zA-Z0-9-]+_[0-9]+\.[a-zA-Z0-9]+``;
* log file ``.<fileId>_<instantTime>.log.<version>_<writeToken>[.cdc]``, recognised by Java's
  ``LOG_FILE_PATTERN`` ``^\.(.+)_(.*)\.(log|archive)\.(\d+)(_((\d+)-(\d+)-(\d+))(.cdc)?)?``.

In a log name, ``instantTime`` is the *base instant* of the file slice for table version 6 and the
*requested time of the delta commit that wrote it* for table versions 8 and later.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from hudi_framework.errors import FileNameError as FileNameError  # re-exported

#: The data log file extension (``.log.``); ``archive`` is only used by the v6 archived timeline.
LOG_EXTENSION = "log"
ARCHIVE_EXTENSION = "archive"
#: Suffix of change-data-capture log files; they are not part of file slices.
CDC_SUFFIX = ".cdc"
#: Java's ``HoodieLogFile.LOGFILE_BASE_VERSION``: the first version of a log file.
LOG_BASE_VERSION = 1
#: First table version whose log file names carry the delta commit that wrote them (see above).
WRITER_IN_LOG_NAME_VERSION = 8

# Java's patterns, anchored at both ends: Java matches BASE_FILE_PATTERN with matches() (whole name);
# LOG_FILE_PATTERN is used with find(), but a full match keeps stray names such as Hadoop's
# ``..<log>.crc`` checksum files from being mistaken for logs. The ``.cdc`` dot is escaped here (Java
# leaves it unescaped, which only matters for names Java itself would never write).
_ID = r"[a-zA-Z0-9-]+"
_BASE_FILE_RE = re.compile(rf"({_ID})_({_ID})_([0-9]+)\.([a-zA-Z0-9]+)")
_LOG_FILE_RE = re.compile(r"\.(.+)_(.*)\.(log|archive)\.(\d+)(?:_((\d+)-(\d+)-(\d+))(\.cdc)?)?")
_ID_RE = re.compile(_ID)
_LOG_WRITE_TOKEN_RE = re.compile(r"\d+-\d+-\d+")
_DIGITS_RE = re.compile(r"[0-9]+")
_EXT_RE = re.compile(r"[a-zA-Z0-9]+")


def _check(value: str, pattern: re.Pattern[str], what: str) -> None:
    if not pattern.fullmatch(value):
        raise FileNameError(value, f"{what} must match {pattern.pattern!r}")


@dataclass(frozen=True, slots=True)
class BaseFileName:
    """The parts of a base file name ``<fileId>_<writeToken>_<instantTime>.<ext>``.

    Attributes:
        file_id: The file group id, normally ``<uuid4>-<n>``.
        write_token: ``<taskPartitionId>-<stageId>-<taskAttemptId>`` (any ``[a-zA-Z0-9-]+``).
        instant_time: Requested time of the write that produced this file version.
        extension: The format extension without the dot, such as ``parquet`` or ``lance``.
    """

    file_id: str
    write_token: str
    instant_time: str
    extension: str = "parquet"

    def __post_init__(self) -> None:
        # Validate on construction so a writer can never produce a name readers would skip.
        _check(self.file_id, _ID_RE, "file id")
        _check(self.write_token, _ID_RE, "write token")
        _check(self.instant_time, _DIGITS_RE, "instant time")
        _check(self.extension, _EXT_RE, "extension")

    @classmethod
    def parse(cls, name: str) -> BaseFileName:
        """Parse a base file name.

        Raises:
            FileNameError: ``name`` is not a base file name.
        """
        parsed = cls.try_parse(name)
        if parsed is None:
            raise FileNameError(name, f"not a base file name (expected {_BASE_FILE_RE.pattern!r})")
        return parsed

    @classmethod
    def try_parse(cls, name: str) -> BaseFileName | None:
        """Parse a base file name, or return None if ``name`` is not one."""
        m = _BASE_FILE_RE.fullmatch(name)
        if m is None:
            return None
        return cls(m.group(1), m.group(2), m.group(3), m.group(4))

    @property
    def name(self) -> str:
        """The file name."""
        return f"{self.file_id}_{self.write_token}_{self.instant_time}.{self.extension}"

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class LogFileName:
    """The parts of a log file name ``.<fileId>_<instantTime>.log.<version>_<writeToken>[.cdc]``.

    Attributes:
        file_id: The file group id.
        instant_time: v6: the base instant of the file slice; v8+: the requested time of the delta
            commit that wrote the file. Empty only for archive files.
        version: Log version, from 1, increasing within (file id, instant time).
        write_token: ``<taskPartitionId>-<stageId>-<taskAttemptId>``; None in very old names.
        extension: ``log`` for data log files, ``archive`` for the v6 archived timeline.
        cdc: Whether this is a change-data-capture log (``.cdc`` suffix).
    """

    file_id: str
    instant_time: str
    version: int = LOG_BASE_VERSION
    write_token: str | None = "0-0-0"
    extension: str = LOG_EXTENSION
    cdc: bool = False

    def __post_init__(self) -> None:
        _check(self.file_id, _ID_RE, "file id")
        if self.extension not in (LOG_EXTENSION, ARCHIVE_EXTENSION):
            raise FileNameError(self.extension, "log extension must be 'log' or 'archive'")
        if self.instant_time or self.extension == LOG_EXTENSION:
            _check(self.instant_time, _DIGITS_RE, "instant time")
        if self.version < 0:
            raise FileNameError(str(self.version), "log version must not be negative")
        if self.write_token is None:
            if self.cdc:
                raise FileNameError(self.file_id, "a .cdc log name needs a write token")
        else:
            _check(self.write_token, _LOG_WRITE_TOKEN_RE, "log write token")

    @classmethod
    def parse(cls, name: str) -> LogFileName:
        """Parse a log file name.

        Raises:
            FileNameError: ``name`` is not a log file name.
        """
        parsed = cls.try_parse(name)
        if parsed is None:
            raise FileNameError(name, f"not a log file name (expected {_LOG_FILE_RE.pattern!r})")
        return parsed

    @classmethod
    def try_parse(cls, name: str) -> LogFileName | None:
        """Parse a log file name, or return None if ``name`` is not one."""
        m = _LOG_FILE_RE.fullmatch(name)
        if m is None:
            return None
        try:
            return cls(
                file_id=m.group(1),
                instant_time=m.group(2),
                version=int(m.group(4)),
                write_token=m.group(5),
                extension=m.group(3),
                cdc=m.group(9) is not None,
            )
        except FileNameError:
            # The regex is looser than our fields (e.g. "_" inside the file id): not a data log.
            return None

    @property
    def name(self) -> str:
        """The file name."""
        token = f"_{self.write_token}" if self.write_token is not None else ""
        cdc = CDC_SUFFIX if self.cdc else ""
        return f".{self.file_id}_{self.instant_time}.{self.extension}.{self.version}{token}{cdc}"

    def sort_key(self) -> tuple[str, int, bool, str, bool]:
        """Java's ``HoodieLogFile.LogFileComparator`` order: instant, version, write token, suffix.

        A missing write token sorts first (Java uses ``Comparator.nullsFirst``).
        """
        return (
            self.instant_time,
            self.version,
            self.write_token is not None,
            self.write_token or "",
            self.cdc,
        )

    def __str__(self) -> str:
        return self.name


DataFileName = BaseFileName | LogFileName


def parse_data_file_name(name: str) -> DataFileName | None:
    """Classify a file found in a partition directory.

    Returns:
        A :class:`LogFileName` for log files (dot-prefixed), a :class:`BaseFileName` for base
        files, or None for anything else (partition metadata, ``.DS_Store``, checksum files...).
    """
    if name.startswith("."):
        return LogFileName.try_parse(name)
    return BaseFileName.try_parse(name)


def new_file_id_prefix() -> str:
    """A fresh random file-id prefix (Java ``FSUtils.createNewFileIdPfx``): a UUID4 string."""
    return str(uuid.uuid4())


def new_file_id(prefix: str | None = None, index: int = 0) -> str:
    """A new file group id ``<prefix>-<index>`` (Java ``FSUtils.createNewFileId``).

    Args:
        prefix: A prefix from :func:`new_file_id_prefix`; a fresh one when None.
        index: The suffix; Java writers use 0 for one file group per prefix.
    """
    if index < 0:
        raise FileNameError(str(index), "file id index must not be negative")
    file_id = f"{prefix if prefix is not None else new_file_id_prefix()}-{index}"
    _check(file_id, _ID_RE, "file id")
    return file_id


def make_write_token(task_partition_id: int, stage_id: int, task_attempt_id: int) -> str:
    """A write token ``<taskPartitionId>-<stageId>-<taskAttemptId>`` (Java ``FSUtils.makeWriteToken``)."""
    if min(task_partition_id, stage_id, task_attempt_id) < 0:
        raise FileNameError(
            f"{task_partition_id}-{stage_id}-{task_attempt_id}", "write token parts must not be negative"
        )
    return f"{task_partition_id}-{stage_id}-{task_attempt_id}"


def next_log_version(existing: Iterable[LogFileName], file_id: str, instant_time: str) -> int:
    """The version a new log file for (file id, instant) should take: one past the highest existing.

    Java's log writer rolls over to ``max + 1`` when a log for the same (file id, instant) exists
    (``HoodieLogFormatWriter``). CDC logs are not counted: they are versioned by their own writer.
    """
    versions = [
        log.version
        for log in existing
        if log.file_id == file_id
        and log.instant_time == instant_time
        and log.extension == LOG_EXTENSION
        and not log.cdc
    ]
    return max(versions) + 1 if versions else LOG_BASE_VERSION
