"""Read errors: queries, data files, filters, record indexes."""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.errors.base import HudiError

__all__ = [
    "BloomFilterFormatError",
    "CleanedInstantError",
    "CorruptDataFileError",
    "IncrementalPathNotFoundError",
    "IncrementalQueryError",
    "InvalidFilterError",
    "ReadError",
    "RecordIndexError",
    "TimeTravelError",
    "UnknownColumnError",
    "UnsupportedQueryError",
]


class RecordIndexError(HudiError):
    """A record index cannot tag keys (for example a base file without a record-key column)."""


class BloomFilterFormatError(RecordIndexError, ValueError):
    """Serialised bloom filter bytes (or their footer entries) cannot be read."""


class ReadError(HudiError):
    """A read cannot be planned or executed as asked."""


class CorruptDataFileError(ReadError):
    """A data file of the table (a base file or a log file) cannot be read: its content is damaged,
    cut short, or not the format its name says. Raised by every read of the file (queries, index
    lookups, rewrites, compaction), with the reader's own error chained.

    Attributes:
        path: The file's location (``s3://bucket/trips/city=sf/<file>.parquet``, or a local path).
        key: Its path relative to the table's base path.
        reason: What the reader reported.
    """

    def __init__(self, path: str, key: str, reason: str) -> None:
        self.path = path
        self.key = key
        self.reason = reason
        super().__init__(f"cannot read data file {path!r} ({key!r} in the table): {reason}")


class UnsupportedQueryError(ReadError, NotImplementedError):
    """The query type is not supported for this table yet (for example merged MOR snapshots).

    Attributes:
        query_type: The query type asked for.
        reason: Why it cannot be served, and what to use instead.
    """

    def __init__(self, query_type: str, reason: str) -> None:
        self.query_type = query_type
        self.reason = reason
        super().__init__(f"{query_type} query not supported: {reason}")


class IncrementalQueryError(ReadError, ValueError):
    """An incremental query cannot run on this table (for example without ``_hoodie_commit_time``)."""


class IncrementalPathNotFoundError(ReadError, FileNotFoundError):
    """A file written in the incremental window is gone (cleaned) and full-scan fallback is off.

    Attributes:
        key: The missing file, relative to the base path.
        cleaned_by: The clean that deleted it, if one of the active timeline did.
        retained: The latest clean's earliest retained commit, if it has one.
    """

    def __init__(self, key: str, *, cleaned_by: str | None = None, retained: str | None = None) -> None:
        self.key, self.cleaned_by, self.retained = key, cleaned_by, retained
        cause = f"deleted by clean {cleaned_by}" if cleaned_by else "likely cleaned"
        history = f"; history is retained from commit {retained} on" if retained else ""
        super().__init__(
            f"file {key!r} of the incremental window no longer exists ({cause}{history}); enable "
            "hoodie.datasource.read.incr.fallback.fulltablescan.enable to fall back to a full table scan"
        )

    def __str__(self) -> str:
        return str(self.args[0])


class TimeTravelError(ReadError, ValueError):
    """A time-travel instant is not earlier than the first incomplete commit (Java's check).

    Attributes:
        as_of: The requested instant.
        incomplete: Requested time of the first incomplete commit.
    """

    def __init__(self, as_of: str, incomplete: str) -> None:
        self.as_of = as_of
        self.incomplete = incomplete
        super().__init__(
            f"time travel's timestamp {as_of!r} must be earlier than the first incomplete commit "
            f"timestamp {incomplete!r}"
        )


class CleanedInstantError(ReadError, ValueError):
    """Time travel to an instant whose files cleaning deleted.

    Attributes:
        as_of: The requested instant.
        earliest: The earliest instant still readable (None when no later instant is).
        savepoints: Savepointed instants, which stay readable whatever their age.
        reason: What cleaning removed.
    """

    def __init__(self, as_of: str, earliest: str | None, reason: str, savepoints: Sequence[str] = ()) -> None:
        self.as_of = as_of
        self.earliest = earliest
        self.savepoints = tuple(savepoints)
        self.reason = reason
        readable = f"the earliest instant still readable is {earliest!r}" if earliest else "no later instant is"
        kept = f"; savepointed instants stay readable: {', '.join(self.savepoints)}" if self.savepoints else ""
        super().__init__(
            f"cannot time travel to {as_of!r}: {reason}; {readable}{kept}. Retain more history with "
            "hoodie.clean.commits.retained, hoodie.clean.fileversions.retained or hoodie.clean.hours.retained"
        )


class InvalidFilterError(ReadError, ValueError):
    """A read filter is malformed or names an unknown column.

    Attributes:
        predicate: The offending predicate, as given.
        reason: What is wrong with it.
    """

    def __init__(self, predicate: object, reason: str) -> None:
        self.predicate = predicate
        self.reason = reason
        super().__init__(f"invalid filter {predicate!r}: {reason}")


class UnknownColumnError(ReadError, KeyError):
    """A projected column is not in the table schema.

    Attributes:
        column: The column asked for.
        available: The table's columns.
    """

    def __init__(self, column: str, available: Sequence[str]) -> None:
        self.column = column
        self.available = tuple(available)
        super().__init__(f"unknown column {column!r}; the table has {', '.join(self.available)}")

    def __str__(self) -> str:  # KeyError would otherwise repr() the message
        return str(self.args[0])
