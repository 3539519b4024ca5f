"""Table errors: ``hoodie.properties``, schemas, file and partition names, the timeline."""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.errors.base import HudiError

__all__ = [
    "ColumnTypeError",
    "ColumnValueError",
    "FileNameError",
    "IllegalTransitionError",
    "IncompatibleTableConfigError",
    "InstantMetadataError",
    "InstantNotFoundError",
    "InvalidInstantTimeError",
    "LsmTimelineError",
    "MergeModeMismatchError",
    "MissingDataFileError",
    "NewColumnError",
    "PartialUpdateError",
    "PartitionPathError",
    "PendingRestoreError",
    "SavepointError",
    "SchemaConversionError",
    "SchemaEvolutionRequiredError",
    "SchemaMismatchError",
    "TableConfigCorruptError",
    "TableError",
    "TableExistsError",
    "TableNotFoundError",
    "TableVersionError",
    "TimelineError",
    "UnsupportedFormatError",
]


class TableError(HudiError):
    """A table cannot be opened or created as asked."""


class TableNotFoundError(TableError):
    """No Hudi table at the given base path."""

    def __init__(self, base_path: str) -> None:
        self.base_path = base_path
        super().__init__(f"no Hudi table at {base_path!r} (missing .hoodie/hoodie.properties)")


class TableExistsError(TableError):
    """A table already exists where one was to be created."""

    def __init__(self, base_path: str) -> None:
        self.base_path = base_path
        super().__init__(f"a Hudi table already exists at {base_path!r}")


class IncompatibleTableConfigError(TableError):
    """A requested setting contradicts what the table persisted."""


class MergeModeMismatchError(IncompatibleTableConfigError):
    """A write asks for another merge mode or merge strategy than the table persisted."""

    def __init__(self, key: str, table_value: str, write_value: str) -> None:
        self.key = key
        self.table_value = table_value
        self.write_value = write_value
        super().__init__(
            f"the table persists {key}={table_value} but this write asks for {write_value}; "
            "the merge mode and strategy of a table cannot change once it is created"
        )

    def __str__(self) -> str:
        return str(self.args[0])


class TableVersionError(TableError):
    """The table version or timeline layout is not supported."""


class TableConfigCorruptError(TableError):
    """``hoodie.properties`` (and its backup) cannot be used."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"table config {path!r} is unusable: {reason}")


class SchemaMismatchError(TableError, ValueError):
    """Incoming data does not fit the table schema (an unknown, missing or uncastable column)."""

    def __init__(self, column: str, reason: str) -> None:
        self.column = column
        self.reason = reason
        super().__init__(f"column {column!r}: {reason}")


class ColumnTypeError(SchemaMismatchError):
    """An incoming column's type does not go into the table column's type, whatever its values.

    Decided from the two schemas before anything is written (``hudi_framework.model.promotion``).

    Attributes:
        column: The column; a struct field as ``a.b``, a list element as ``a.element``, a map key
            or value as ``a.key`` / ``a.value``.
        incoming: The incoming Arrow type.
        table: The table column's Arrow type; None when the table has no such column.
    """

    def __init__(self, column: str, incoming: str, table: str | None, reason: str) -> None:
        self.incoming = incoming
        self.table = table
        super().__init__(column, reason)


class SchemaEvolutionRequiredError(ColumnTypeError):
    """The column fits only once the table's schema evolves (a wider type, a column the table lacks):
    a batch checked against a schema that did not take it (writes evolve the schema first)."""


class NewColumnError(ColumnTypeError):
    """A column the table lacks cannot be added: it is required (non-nullable, so without the default
    Avro needs to read older records) or of a type Hudi cannot store."""


class ColumnValueError(SchemaMismatchError):
    """A value of an accepted incoming column has no value in the table column's type.

    Apache Hudi accepts some promotions by type whose values may still not convert: text that is no
    number or date, a number beyond the decimal's precision, NaN into a decimal; and a null cannot
    go into a required (non-null) column.

    Attributes:
        column: The column (nested as in :class:`ColumnTypeError`).
        incoming: The incoming Arrow type.
        table: The table column's Arrow type.
        value: The first offending value as text (None for a null).
    """

    def __init__(self, column: str, incoming: str, table: str, value: str | None, reason: str) -> None:
        self.incoming = incoming
        self.table = table
        self.value = value
        super().__init__(column, reason)


class PartialUpdateError(SchemaMismatchError):
    """A partial update (a batch lacking table columns) that cannot be applied; names the column or setting."""


class SchemaConversionError(HudiError, TypeError):
    """A type has no Avro (or Arrow) counterpart."""


class UnsupportedFormatError(TableError):
    """A file format the project does not read (for example Lance base files)."""


class MissingDataFileError(TableError, FileNotFoundError):
    """Data files the timeline names but storage lacks (lost, or deleted by hand): reads and writes
    refuse rather than use an older file version. Attributes: ``key``, the first missing file, and
    ``missing``, all (relative to the base path); ``instant``, the instant whose metadata names ``key``.
    """

    def __init__(self, missing: Sequence[str], instant: str) -> None:
        self.missing, self.key, self.instant = tuple(missing), missing[0], instant
        more = f" (and {len(self.missing) - 1} more)" if len(self.missing) > 1 else ""
        super().__init__(
            f"data file {self.key!r}{more} of instant {instant} is on the timeline but not in storage "
            "(restore it, or roll that instant back: hudi-fw rollback / restore)"
        )

    def __str__(self) -> str:  # FileNotFoundError would otherwise format the arguments
        return str(self.args[0])


class FileNameError(HudiError, ValueError):
    """A data file name (or a part of one) does not follow Hudi's naming rules.

    Attributes:
        name: The offending name or part.
        reason: Which rule it breaks.
    """

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.reason = reason
        super().__init__(f"invalid Hudi file name {name!r}: {reason}")


class PartitionPathError(HudiError, ValueError):
    """A partition value or path cannot be encoded or decoded.

    Attributes:
        path: The partition path or value concerned.
        reason: What is wrong with it.
    """

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"invalid partition path {path!r}: {reason}")


class TimelineError(HudiError):
    """The timeline is inconsistent or an operation on it is invalid."""


class InstantNotFoundError(TimelineError, LookupError):
    """An instant is not on the timeline."""


class SavepointError(TimelineError):
    """A savepoint, restore or rollback request names an instant it cannot act on."""

    def __str__(self) -> str:
        return str(self.args[0])


class PendingRestoreError(TimelineError):
    """A restore did not finish (its process died); ``savepoint`` ("" if unknown) is the one to run it again with."""

    def __init__(self, restore_instant: str, savepoint: str) -> None:
        self.restore_instant, self.savepoint = restore_instant, savepoint
        again = f"hudi-fw restore <path> {savepoint}" if savepoint else "the restore"
        super().__init__(f"restore {restore_instant} is pending: run {again} again to finish it first")


class InvalidInstantTimeError(TimelineError, ValueError):
    """A string is not an instant time (``yyyyMMddHHmmss[SSS]``) nor an ISO date-time."""

    def __init__(self, value: str) -> None:
        self.value = value
        super().__init__(f"invalid instant time {value!r}: expected yyyyMMddHHmmssSSS or an ISO date-time")


class IllegalTransitionError(TimelineError):
    """An instant cannot move from one state to another."""

    def __init__(self, instant: str, from_state: str, to_state: str, reason: str = "") -> None:
        self.instant = instant
        self.from_state = from_state
        self.to_state = to_state
        extra = f": {reason}" if reason else ""
        super().__init__(f"instant {instant} cannot go from {from_state} to {to_state}{extra}")


class LsmTimelineError(TimelineError):
    """The LSM timeline (archived instants of a v8+ table) cannot be read or written as asked."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"LSM timeline {path!r}: {reason}")


class InstantMetadataError(TimelineError):
    """An instant file's content cannot be decoded."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"cannot decode instant file {path!r}: {reason}")
