"""Turning pydantic validation errors into configuration errors that name the user's key.

A pydantic error locates a problem by field path (``("table", "type")``); the user wrote
``hoodie.table.type``, ``HUDI_TABLE__TYPE`` or ``table.type``. The layer origins recorded while loading
map one to the other. Input values are never copied into messages: the models hide input in their
own errors, and only ``msg`` (never ``input``) is read here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from hudi_framework.config.base import CrossFieldError
from hudi_framework.config.not_yet import NotYetError
from hudi_framework.config.paths import Origin, Path, Style, close_matches, dotted, model_at, spell
from hudi_framework.errors import ConfigError, InvalidConfigValueError, UnknownConfigKeyError, UnsupportedOptionError

__all__ = ["to_config_error", "user_reason"]

_VALUE_ERROR_PREFIX = "Value error, "
#: pydantic's Python type names in its messages, in the words of TOML, YAML and JSON users.
_USER_TERMS = (("a valid tuple", "a list"), ("a valid list", "a list"), ("a valid dictionary", "a table (mapping)"))


def _origin_for(loc: Sequence[str | int], origins: Mapping[Path, Origin]) -> Origin | None:
    names = tuple(str(p) for p in loc)
    # The value itself, or the container the user set (a list, a shorthand component name).
    for size in range(len(names), 0, -1):
        if names[:size] in origins:
            return origins[names[:size]]
    # A section or unknown key the user set through nested values below it.
    for path, origin in origins.items():
        if path[: len(names)] == names:
            return origin
    return None


def _spelled(loc: Sequence[str | int], origin: Origin | None) -> str:
    if origin is None:
        return dotted(loc)
    if origin.style is Style.HOODIE:
        return origin.key
    return spell(loc, origin.style)


def _location(error: Mapping[str, Any]) -> tuple[str | int, ...]:
    ctx = error.get("ctx") or {}
    cause = ctx.get("error")
    if isinstance(cause, CrossFieldError) and cause.paths:
        return cause.paths[0]
    return tuple(error["loc"])


def user_reason(error: Mapping[str, Any]) -> str:
    """The message of one pydantic error detail in the user's terms (a TOML list is not a "tuple")."""
    message = str(error["msg"]).removeprefix(_VALUE_ERROR_PREFIX)
    for python, user in _USER_TERMS:
        message = message.replace(python, user)
    return message


def to_config_error(error: ValidationError, origins: Mapping[Path, Origin], root: type[BaseModel]) -> ConfigError:
    """Translate a settings :class:`~pydantic.ValidationError` into a :class:`ConfigError`.

    Args:
        error: Raised while validating the merged layers.
        origins: Where each value came from.
        root: The settings model (to suggest field names for unknown keys).

    Returns:
        :class:`UnknownConfigKeyError` (with "did you mean" suggestions) when any key is unknown,
        else :class:`UnsupportedOptionError` when an option's feature does not exist yet, else
        :class:`InvalidConfigValueError` listing every bad value by the key the user wrote.
    """
    details = error.errors(include_url=False, include_input=False)
    for detail in details:
        if detail["type"] != "extra_forbidden":
            continue
        loc = tuple(detail["loc"])
        origin = _origin_for(loc, origins)
        parent = model_at(root, loc[:-1])
        names = list(parent.model_fields) if parent is not None else []
        hints = [_spelled((*loc[:-1], name), origin) for name in close_matches(str(loc[-1]), names)]
        return UnknownConfigKeyError(_spelled(loc, origin), hints).located(origin.source if origin else None)
    for detail in details:
        cause = (detail.get("ctx") or {}).get("error")
        if isinstance(cause, NotYetError):
            loc = (*detail["loc"], cause.rule.field)
            origin = _origin_for(loc, origins)
            refused = UnsupportedOptionError(_spelled(loc, origin), cause.rule.reason, cause.rule.roadmap)
            return refused.located(origin.source if origin else None)
    issues: list[tuple[str, str]] = []
    sources: list[str] = []
    for detail in details:
        loc = _location(detail)
        origin = _origin_for(loc, origins)
        issue = (_spelled(loc, origin), user_reason(detail))
        if issue not in issues:
            issues.append(issue)
        if origin is not None and origin.source and origin.source not in sources:
            sources.append(origin.source)
    return InvalidConfigValueError(issues[0][0], issues[0][1], issues=issues).located(", ".join(sources))
