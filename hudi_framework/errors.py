"""The whole exception tree of hudi_framework.

Every error the project raises on purpose derives from :class:`HudiError`, so callers can catch one
root. Errors carry the structured facts they name (a key, a path, an instant) as attributes. Builtin
bases are mixed in where callers already catch them (``LookupError``, ``FileNotFoundError``).
"""

from __future__ import annotations

from collections.abc import Sequence


class HudiError(Exception):
    """Root of every error raised by hudi_framework."""


# --------------------------------------------------------------------------- configuration
class ConfigError(HudiError):
    """A configuration value or file is invalid."""


class UnknownConfigKeyError(ConfigError, KeyError):
    """An option key is not known; carries the closest known keys."""

    def __init__(self, key: str, suggestions: Sequence[str] = ()) -> None:
        self.key = key
        self.suggestions = tuple(suggestions)
        hint = f"; did you mean {', '.join(repr(s) for s in self.suggestions)}?" if self.suggestions else ""
        super().__init__(f"unknown option {key!r}{hint}")

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


class TableVersionError(TableError):
    """The table version or timeline layout is not supported."""


class TableConfigCorruptError(TableError):
    """``hoodie.properties`` (and its backup) cannot be used."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"table config {path!r} is unusable: {reason}")


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


class MergeError(HudiError):
    """Records could not be merged."""
