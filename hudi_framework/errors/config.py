"""Configuration errors: unknown keys, invalid values, unreadable files, plugin options."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Self

from hudi_framework.errors.base import HudiError

__all__ = [
    "ConfigError",
    "ConfigFileError",
    "InvalidConfigValueError",
    "PluginConfigError",
    "UnknownConfigKeyError",
    "UnsupportedOptionError",
]


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


class UnsupportedOptionError(InvalidConfigValueError):
    """An option Apache Hudi has, set to a value whose feature does not exist here yet.

    Accepting it would do nothing; it is refused instead.

    Attributes:
        key: The option as the user spelled it.
        reason: ``not supported yet: `` and what is missing (and what to set instead).
        roadmap: The roadmap item that brings the feature, if any.
    """

    def __init__(self, key: str, reason: str, roadmap: str | None = None) -> None:
        self.roadmap = roadmap
        planned = f" (roadmap: {roadmap})" if roadmap else ""
        super().__init__(key, f"not supported yet: {reason}{planned}")


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
