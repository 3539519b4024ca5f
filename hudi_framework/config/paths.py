"""Field paths: walking the settings models, and spelling a path the way the user wrote it.

A field path is a tuple of names from the top of the settings (``("write", "operation")``). Users
write it three ways: dotted in files and overrides (``write.operation``), as an environment variable
(``HUDI_WRITE__OPERATION``), or as an Apache Hudi option (``hoodie.datasource.write.operation``).
Errors spell the path in the user's own style so the message points at what they typed.
"""

from __future__ import annotations

import difflib
import enum
import types
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from pydantic import BaseModel, TypeAdapter
from pydantic.fields import FieldInfo

__all__ = [
    "ENV_DELIMITER",
    "ENV_PREFIX",
    "Origin",
    "Path",
    "Style",
    "close_matches",
    "dotted",
    "env_name",
    "field_adapter",
    "field_at",
    "model_at",
    "spell",
]

Path = tuple[str, ...]

#: Environment variable prefix and nesting delimiter, shared with ``HudiSettings.model_config``.
ENV_PREFIX: Final = "HUDI_"
ENV_DELIMITER: Final = "__"


class Style(enum.Enum):
    """How the user spelled a key."""

    DOTTED = "dotted"
    ENV = "env"
    HOODIE = "hoodie"


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a value came from.

    Attributes:
        key: The key as the user wrote it (``hoodie.table.type``, ``HUDI_TABLE__TYPE``, ``table.type``).
        style: Its spelling style.
        source: A human description of the source (a file path, ``environment``...), or None.
    """

    key: str
    style: Style
    source: str | None = None


def dotted(path: Sequence[str | int]) -> str:
    """``("table", "record_key_fields", 0)`` -> ``table.record_key_fields[0]``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text


def env_name(path: Sequence[str | int]) -> str:
    """``("write", "operation")`` -> ``HUDI_WRITE__OPERATION`` (indexes are dropped)."""
    return ENV_PREFIX + ENV_DELIMITER.join(str(p).upper() for p in path if not isinstance(p, int))


def spell(path: Sequence[str | int], style: Style, hoodie_key: str | None = None) -> str:
    """Spell ``path`` in ``style``; Apache Hudi keys have no sub-paths, so they are used whole."""
    if style is Style.ENV:
        return env_name(path)
    if style is Style.HOODIE and hoodie_key is not None:
        return hoodie_key
    return dotted(path)


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    # Unwrap Optional / unions / Annotated down to the model classes a field can hold.
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _models_in(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return []


def model_at(root: type[BaseModel], path: Sequence[str | int]) -> type[BaseModel] | None:
    """The model class reached by following ``path`` from ``root``, or None if it is not a model."""
    model: type[BaseModel] | None = root
    for part in path:
        if model is None or not isinstance(part, str) or part not in model.model_fields:
            return None
        candidates = _models_in(model.model_fields[part].annotation)
        model = candidates[0] if len(candidates) == 1 else None
    return model


def field_at(root: type[BaseModel], path: Sequence[str]) -> FieldInfo | None:
    """The field definition at ``path``, or None when ``path`` leaves the models (free options)."""
    if not path:
        return None
    parent = model_at(root, path[:-1])
    return parent.model_fields.get(path[-1]) if parent is not None else None


def field_adapter(root: type[BaseModel], path: Sequence[str]) -> TypeAdapter[Any] | None:
    """A validator for the single field at ``path`` (with its constraints), or None."""
    info = field_at(root, path)
    if info is None:
        return None
    annotation: Any = info.annotation
    if info.metadata:
        annotation = typing.Annotated[(annotation, *info.metadata)]
    return TypeAdapter(annotation)


def close_matches(word: str, candidates: Sequence[str], *, limit: int = 3, cutoff: float = 0.6) -> list[str]:
    """Candidates close to ``word`` (case-insensitive), best first, in their own spelling."""
    by_lower = {c.lower(): c for c in candidates}
    return [by_lower[m] for m in difflib.get_close_matches(word.lower(), list(by_lower), limit, cutoff)]
