"""Value conversions between Apache Hudi option values and typed settings.

Apache Hudi options are strings; settings are typed. Each ``parse_*`` maps one way (raising
:class:`~hudi_framework.vocabulary.HoodieValueError` with a reason that never repeats a secret), each
``render_*`` the other way, returning ``None`` when a value has no Apache Hudi spelling. How options
name components (Java classes, type names) is Hudi's vocabulary: :mod:`hudi_framework.vocabulary`.
"""

from __future__ import annotations

import enum
import json

from pydantic import SecretStr

from hudi_framework.vocabulary.component_names import HoodieValueError

__all__ = [
    "parse_csv",
    "parse_scalar",
    "render_csv",
    "render_scalar",
]


def parse_scalar(value: object) -> object:
    """Pass a value through for pydantic to coerce (``"true"`` -> bool, ``"5"`` -> int, enums)."""
    return value.strip() if isinstance(value, str) else value


def parse_csv(value: object) -> object:
    """Split Apache Hudi's comma-separated lists; lists and tuples pass through."""
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    if isinstance(value, list | tuple):
        return tuple(value)
    raise HoodieValueError("expected a comma-separated string or a list")


def render_scalar(value: object) -> str | None:
    """Spell a typed value the way Apache Hudi options do; ``None`` for unset and secrets."""
    if value is None or isinstance(value, SecretStr):
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, enum.IntEnum):
        return str(int(value))
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, str | int | float):
        return str(value)
    return json.dumps(value, sort_keys=True, default=str)


def render_csv(value: object) -> str | None:
    """Join a tuple of names with commas; ``None`` for an empty tuple."""
    if isinstance(value, tuple | list):
        return ",".join(str(v) for v in value) or None
    return render_scalar(value)
