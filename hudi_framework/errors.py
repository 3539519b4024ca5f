"""The whole exception tree of hudi_framework.

Every error the project raises on purpose derives from :class:`HudiError`, so callers can catch one
root. Errors carry the structured facts they name (a key, a path, an instant) as attributes. Builtin
bases are mixed in where callers already catch them (``LookupError``, ``FileNotFoundError``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Self


class HudiError(Exception):
    """Root of every error raised by hudi_framework."""


# --------------------------------------------------------------------------- configuration
class ConfigError(HudiError):
    """A configuration value or file is invalid.

    Attributes:
        source: Where the offending value was set (a file path, ``environment``, ``hoodie options``),
            when known; the message ends with it.
    """

    source: str | None = None

    def located(self, source: str | None) -> Self:
        """Name where the offending value was set (no-op for None); returns this error."""
        if source and self.source is None:
            self.source = source
            self.args = (f"{self.args[0]} (in {source})", *self.args[1:])
        return self


class UnknownConfigKeyError(ConfigError, KeyError):
    """An option key is not known; carries the closest known keys."""

    def __init__(self, key: str, suggestions: Sequence[str] = (), *, also: Sequence[str] = ()) -> None:
        self.key = key
        self.suggestions = tuple(suggestions)
        self.also = tuple(also)
        hint = f"; did you mean {', '.join(repr(s) for s in self.suggestions)}?" if self.suggestions else ""
        more = f"; also unknown: {', '.join(repr(k) for k in self.also)}" if self.also else ""
        super().__init__(f"unknown option {key!r}{hint}{more}")

    def __str__(self) -> str:  # KeyError would otherwise repr() the message
        return str(self.args[0])


class InvalidConfigValueError(ConfigError, ValueError):
    """One or more configuration values are invalid.

    Attributes:
        key: The first offending key as the user spelled it: a ``hoodie.*`` option, an environment
            variable (``HUDI_WRITE__OPERATION``) or a dotted field path (``write.operation``).
        reason: Why the first value was rejected (never the value itself).
        issues: Every ``(key, reason)`` pair found, the first one included.
    """

    def __init__(self, key: str, reason: str, *, issues: Sequence[tuple[str, str]] = ()) -> None:
        self.key = key
        self.reason = reason
        self.issues: tuple[tuple[str, str], ...] = tuple(issues) or ((key, reason),)
        text = f"invalid value for {key!r}: {reason}"
        others = [f"{k!r}: {r}" for k, r in self.issues if (k, r) != (key, reason)]
        if others:
            text += "; also " + "; ".join(others)
        super().__init__(text)


class ConfigFileError(ConfigError):
    """A configuration file is missing, of an unknown kind, or not parseable.

    Attributes:
        path: The file as given.
        reason: What is wrong with it.
    """

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"cannot load configuration file {path!r}: {reason}")


class PluginConfigError(ConfigError):
    """A plugin's options failed its own options model."""

    def __init__(self, component: str, field_path: str, message: str) -> None:
        self.component = component
        self.field_path = field_path
        super().__init__(f"invalid options for component {component!r} at {field_path}: {message}")


# --------------------------------------------------------------------------- plugins
class PluginError(HudiError):
    """A plugin could not be loaded or resolved."""


class PluginLoadError(PluginError):
    """An entry point failed to import or register."""

    def __init__(self, dist: str, entry_point: str, cause: BaseException) -> None:
        self.dist = dist
        self.entry_point = entry_point
        super().__init__(
            f"plugin entry point {entry_point!r} of distribution {dist!r} failed to load: "
            f"{type(cause).__name__}: {cause}"
        )


class ComponentLoadError(PluginError):
    """A component's lazily imported factory or options model (a ``"module:attribute"`` reference)
    failed to import."""

    def __init__(self, component: str, reference: str, cause: BaseException) -> None:
        self.component = component
        self.reference = reference
        super().__init__(f"component {component!r}: cannot load {reference!r}: {type(cause).__name__}: {cause}")


class UnknownComponentError(PluginError, LookupError):
    """No installed plugin provides a component of this kind and name."""

    def __init__(self, kind: str, name: str, installed: Sequence[str]) -> None:
        self.kind = kind
        self.name = name
        self.installed = tuple(installed)
        listing = ", ".join(self.installed) if self.installed else "none"
        super().__init__(f"no {kind} named {name!r} is installed; installed {kind}s: {listing}")

    def __str__(self) -> str:
        return str(self.args[0])


class DuplicateComponentError(PluginError):
    """Two plugins register one component name."""

    def __init__(self, kind: str, name: str, first: str, second: str) -> None:
        self.kind = kind
        self.name = name
        self.first = first
        self.second = second
        super().__init__(f"{kind} {name!r} is registered twice: by {first} and by {second}")


class MergeStrategyNotFoundError(PluginError, LookupError):
    """No installed record merger plugin implements the table's merge strategy UUID."""

    def __init__(self, strategy_id: str, installed: Sequence[str]) -> None:
        self.strategy_id = strategy_id
        self.installed = tuple(installed)
        listing = ", ".join(self.installed) if self.installed else "none"
        super().__init__(
            f"no installed record merger implements merge strategy {strategy_id} "
            f"(hoodie.record.merge.strategy.id); install the plugin that provides it. "
            f"Installed strategies: {listing}"
        )

    def __str__(self) -> str:
        return str(self.args[0])


# --------------------------------------------------------------------------- tables
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
    """Apache Hudi would take the column by changing the table's schema (schema evolution): a wider
    type, or a column the table does not have. Writes never change the table schema yet."""


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


class UnsupportedFormatError(TableError):
    """A file format the project does not read (for example Lance base files)."""


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


# --------------------------------------------------------------------------- timeline
class TimelineError(HudiError):
    """The timeline is inconsistent or an operation on it is invalid."""


class InstantNotFoundError(TimelineError, LookupError):
    """An instant is not on the timeline."""


class SavepointError(TimelineError):
    """A savepoint, restore or rollback request names an instant it cannot act on."""

    def __str__(self) -> str:
        return str(self.args[0])


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


class InstantMetadataError(TimelineError):
    """An instant file's content cannot be decoded."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"cannot decode instant file {path!r}: {reason}")


# --------------------------------------------------------------------------- storage
class StorageError(HudiError):
    """A storage operation failed."""


class StorageNotFoundError(StorageError, FileNotFoundError):
    """The object or file does not exist."""

    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(f"not found: {key!r}")

    def __str__(self) -> str:
        return str(self.args[0])


class PreconditionFailedError(StorageError):
    """A conditional write lost: the object exists, or changed since it was read."""

    def __init__(self, key: str, reason: str = "precondition failed") -> None:
        self.key = key
        super().__init__(f"{reason}: {key!r}")


class InvalidStorageKeyError(StorageError, ValueError):
    """A key or path is unsafe (traversal, empty segment, control character) or malformed."""

    def __init__(self, key: str, reason: str) -> None:
        self.key = key
        self.reason = reason
        super().__init__(f"invalid storage key {key!r}: {reason}")


class InvalidBucketNameError(StorageError, ValueError):
    """An S3 bucket name breaks AWS naming rules."""

    def __init__(self, bucket: str, reason: str) -> None:
        self.bucket = bucket
        super().__init__(f"invalid S3 bucket name {bucket!r}: {reason}")


# --------------------------------------------------------------------------- concurrency and commits
class ConcurrencyError(HudiError):
    """Locks or concurrent writers got in the way."""


class LockAcquisitionError(ConcurrencyError):
    """The table lock could not be taken in time."""

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        super().__init__(f"could not acquire the table lock within {timeout_s:g}s")


class LockAcquireTimeoutError(LockAcquisitionError):
    """Every attempt to take a table's lock timed out.

    Attributes:
        table: The table (base path or name) whose lock was wanted.
        holder: Who held the lock at the last attempt, as the provider saw it (None when unknown).
        attempts: How many attempts were made.
    """

    def __init__(self, table: str, holder: str | None, timeout_s: float, attempts: int) -> None:
        self.table = table
        self.holder = holder
        self.attempts = attempts
        ConcurrencyError.__init__(
            self,
            f"could not acquire the lock of table {table!r} in {attempts} attempt(s) over {timeout_s:g}s; "
            f"held by {holder or 'an unknown holder'}",
        )
        self.timeout_s = timeout_s


class LockLostError(ConcurrencyError):
    """A writer no longer holds the table lock it took (its lease expired or was taken over).

    Raised before a commit so that a writer whose lease lapsed never completes an instant (fencing).

    Attributes:
        table: The table whose lock was lost.
        owner: The owner id of the writer that lost it.
        reason: What happened, as far as the provider knows.
    """

    def __init__(self, table: str, owner: str, reason: str) -> None:
        self.table = table
        self.owner = owner
        self.reason = reason
        super().__init__(f"lock of table {table!r} is no longer held by {owner}: {reason}")


class LockProviderError(ConcurrencyError):
    """A lock provider's backing service failed in a way retries do not fix (a missing lock table...).

    Attributes:
        provider: The provider's registered name.
        reason: What failed.
    """

    def __init__(self, provider: str, reason: str) -> None:
        self.provider = provider
        self.reason = reason
        super().__init__(f"lock provider {provider!r}: {reason}")


class UnsafeLockConfigError(ConfigError):
    """A combination of concurrency settings would let writers lose data; checked before a write starts.

    Attributes:
        keys: The Apache Hudi option keys that together are unsafe.
        reason: Why the combination is unsafe and what to set instead.
    """

    def __init__(self, keys: Sequence[str], reason: str) -> None:
        self.keys = tuple(keys)
        self.reason = reason
        super().__init__(f"unsafe combination of {' and '.join(self.keys)}: {reason}")


class WriteConflictError(ConcurrencyError):
    """Two writers touched the same file groups."""

    def __init__(self, instant: str, other_instant: str, file_group_ids: Sequence[str]) -> None:
        self.instant = instant
        self.other_instant = other_instant
        self.file_group_ids = tuple(file_group_ids)
        super().__init__(
            f"write {instant} conflicts with {other_instant} on file groups {', '.join(self.file_group_ids)}"
        )


class CommitError(HudiError):
    """A commit failed."""


class CommitVetoedError(CommitError):
    """A plugin vetoed the commit."""

    def __init__(self, plugin: str, reason: str) -> None:
        self.plugin = plugin
        super().__init__(f"commit vetoed by {plugin}: {reason}")


class CommitStateUnknownError(CommitError):
    """The commit may or may not have landed; read the timeline back to know."""


class LogFormatError(HudiError):
    """A log file cannot be decoded."""


class CorruptLogBlockError(LogFormatError):
    """A log block is damaged."""

    def __init__(self, path: str, offset: int, reason: str) -> None:
        self.path = path
        self.offset = offset
        super().__init__(f"corrupt log block in {path!r} at offset {offset}: {reason}")


class LogBlockDecodeError(LogFormatError, ValueError):
    """The bytes of one log block (or of its content) do not decode.

    Log readers report such a block as a corrupt block instead of raising; the error reaches
    callers only from the content decoders used directly.

    Attributes:
        reason: What does not decode.
    """

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class HFileFormatError(LogBlockDecodeError):
    """An HFile (metadata-table base file or HFILE_DATA block content) is damaged or not an HFile.

    Attributes:
        reason: What does not decode (the trailer magic, a block past the end, a cut-off cell...).
    """

    def __init__(self, reason: str) -> None:
        super().__init__(f"HFile does not decode: {reason}")
        self.reason = reason


class UnsupportedLogBlockError(LogFormatError, NotImplementedError):
    """A log block is intact but its content cannot be decoded by this project (HFile records...).

    Attributes:
        block_type: The block type name (``HFILE_DATA``...).
        reason: Why it cannot be decoded, and when it will be.
    """

    def __init__(self, block_type: str, reason: str) -> None:
        self.block_type = block_type
        self.reason = reason
        super().__init__(f"cannot decode {block_type} log block: {reason}")


class LogBlockEncodeError(LogFormatError, ValueError):
    """A log block cannot be encoded (records that do not fit its schema, a block type never written).

    Attributes:
        reason: What is wrong.
    """

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(f"cannot encode log block: {reason}")


class MergeError(HudiError):
    """Records could not be merged."""


class DuplicateRecordKeyError(MergeError, ValueError):
    """Rows that must hold one version per record key (a base file) hold several.

    Attributes:
        where: What held the duplicates (``"base file rows"``...).
        num_duplicates: How many rows repeat an earlier key.
    """

    def __init__(self, where: str, num_duplicates: int) -> None:
        self.where = where
        self.num_duplicates = num_duplicates
        super().__init__(f"{where} repeat {num_duplicates} record key(s); expected one row per key")


class OrderingTypeError(MergeError, TypeError):
    """An ordering field has a type whose values cannot be compared (struct, list, map...).

    Attributes:
        field: The ordering field.
        type_name: Its Arrow type, as text.
    """

    def __init__(self, field: str, type_name: str) -> None:
        self.field = field
        self.type_name = type_name
        super().__init__(f"ordering field {field!r} has type {type_name}, whose values cannot be compared")


# --------------------------------------------------------------------------- record indexes
class RecordIndexError(HudiError):
    """A record index cannot tag keys (for example a base file without a record-key column)."""


class BloomFilterFormatError(RecordIndexError, ValueError):
    """Serialised bloom filter bytes (or their footer entries) cannot be read."""


# --------------------------------------------------------------------------- reads
class ReadError(HudiError):
    """A read cannot be planned or executed as asked."""


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
    """

    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(
            f"file {key!r} of the incremental window no longer exists (likely cleaned); enable "
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


# --------------------------------------------------------------------------- input data (keys)
class DataError(HudiError):
    """Records handed to a write break a rule of the table (record keys, partition values)."""


class InvalidRecordKeyError(DataError, ValueError):
    """Record keys are null or empty; raised before any file is written (Java ``HoodieKeyException``).

    A single-field key fails when the field is null or empty; a multi-field (complex) key fails only
    when every field of a row is null or empty.

    Attributes:
        fields: The record key fields.
        null_rows: Rows whose key is null (for several fields: every field null).
        empty_rows: Rows whose key is empty (for several fields: all null or empty, not all null).
        first_row: Index of the first failing row in the batch.
    """

    def __init__(self, fields: Sequence[str], *, null_rows: int, empty_rows: int, first_row: int) -> None:
        self.fields = tuple(fields)
        self.null_rows = null_rows
        self.empty_rows = empty_rows
        self.first_row = first_row
        if len(self.fields) == 1:
            what = f"record key field {self.fields[0]!r} is null in {null_rows} row(s) and empty in {empty_rows}"
        else:
            what = (
                f"record key fields {', '.join(map(repr, self.fields))} are all null or empty in "
                f"{null_rows + empty_rows} row(s) ({null_rows} all null)"
            )
        super().__init__(f"{what}; first at row {first_row}. Apache Hudi rejects null or empty record keys")


class KeyFieldError(DataError):
    """A record key or partition field is missing from the records, or has a type keys are not made from.

    Attributes:
        field: The field as configured (``a.b`` for a nested one).
        reason: What is wrong.
    """

    def __init__(self, field: str, reason: str) -> None:
        self.field = field
        self.reason = reason
        super().__init__(f"key field {field!r}: {reason}")


class InvalidPartitionValueError(DataError, ValueError):
    """A partition value cannot be turned into a partition path (a date string no input format parses).

    Attributes:
        field: The partition field.
        value: The first offending value, as text.
        reason: Why it was rejected.
    """

    def __init__(self, field: str, value: str, reason: str) -> None:
        self.field = field
        self.value = value
        self.reason = reason
        super().__init__(f"partition field {field!r} value {value!r}: {reason}")


class UnsafePartitionPathError(InvalidPartitionValueError, PartitionPathError):
    """A partition ``value`` makes ``path`` (the field's part) with a ``segment`` no listing reads."""

    def __init__(self, field: str, value: str, path: str, segment: str, reason: str) -> None:
        self.field, self.value, self.path, self.segment, self.reason = field, value, path, segment, reason
        HudiError.__init__(  # both parents have an __init__ of their own
            self,
            f"partition field {field!r} value {value!r} makes the path {path!r}, whose segment {segment!r} is {reason}"
            ": no reader would return the rows. Use a table with hoodie.datasource.write.hive_style_partitioning=true"
            " and hoodie.datasource.write.partitionpath.urlencode=true, or change the value",
        )


class NestedPartitionError(DataError, PartitionPathError):
    """New partition ``path`` would nest in or hold partition ``other``; listings stop at the outer."""

    def __init__(self, path: str, other: str) -> None:
        self.other = other
        inner, outer = (path, other) if path.startswith(other + "/") else (other, path)
        why = "listings stop at the outer one. Values with '/' need hoodie.datasource.write.partitionpath.urlencode"
        super().__init__(path, f"partition {inner!r} would nest inside partition {outer!r}: {why}=true")


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


# --------------------------------------------------------------------------- jobs (hudi-fw run)
class JobError(HudiError):
    """A ``hudi-fw run`` job cannot run as configured (source data that does not fit the table...)."""


class JobVerificationError(JobError):
    """The table read back after a job differs from the rows the job expects.

    Attributes:
        expected_rows: Rows the job's model holds.
        actual_rows: Rows read from the table.
        expected_checksum: Content checksum of the model.
        actual_checksum: Content checksum of the rows read.
    """

    def __init__(self, *, expected_rows: int, actual_rows: int, expected_checksum: str, actual_checksum: str) -> None:
        self.expected_rows = expected_rows
        self.actual_rows = actual_rows
        self.expected_checksum = expected_checksum
        self.actual_checksum = actual_checksum
        super().__init__(
            f"read back {actual_rows} rows (checksum {actual_checksum}), expected {expected_rows} "
            f"(checksum {expected_checksum})"
        )


# --------------------------------------------------------------------------- table services
class TableServiceError(HudiError):
    """A table service (compaction, cleaning, clustering) cannot plan or run as asked."""


class CompactionPlanError(TableServiceError):
    """A compaction cannot be scheduled, or a compaction plan is missing or invalid.

    Attributes:
        instant: The compaction instant concerned ("" when none was created).
        reason: What is wrong.
    """

    def __init__(self, instant: str, reason: str) -> None:
        self.instant = instant
        self.reason = reason
        where = f"compaction {instant}: " if instant else "compaction: "
        super().__init__(where + reason)


class CompactionExecutionError(TableServiceError):
    """Executing a compaction plan failed; the files it wrote were deleted and the plan is requested again.

    Attributes:
        instant: The compaction instant.
        file_group: ``partition/fileId`` of the operation that failed ("" if not operation-specific).
    """

    def __init__(self, instant: str, file_group: str, reason: str) -> None:
        self.instant = instant
        self.file_group = file_group
        at = f" (file group {file_group})" if file_group else ""
        super().__init__(f"compaction {instant} failed{at}: {reason}")


class CleanError(TableServiceError):
    """A clean cannot be scheduled or executed as asked (no such pending clean, or it completed).

    Attributes:
        instant: The clean instant concerned ("" when none was created).
        reason: What is wrong.
    """

    def __init__(self, instant: str, reason: str) -> None:
        self.instant = instant
        self.reason = reason
        where = f"clean {instant}: " if instant else "clean: "
        super().__init__(where + reason)


# --------------------------------------------------------------------------- warnings
class HudiDeprecationWarning(DeprecationWarning):
    """A deprecated Apache Hudi setting that still works (for example a legacy payload class)."""
