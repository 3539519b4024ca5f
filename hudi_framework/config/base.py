"""The base of every configuration section and the small value types the sections share.

Every section is a frozen pydantic model that forbids unknown keys (so a typo is an error, not a
silently ignored setting), hides input values in validation errors (so a secret typed into the
wrong field is never echoed), and takes field descriptions from attribute docstrings (so the
configuration reference is generated from one source).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Annotated, ClassVar, Self

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, model_validator
from pydantic_settings import NoDecode

from hudi_framework.config.not_yet import NotYet, NotYetError

__all__ = [
    "CrossFieldError",
    "CsvTuple",
    "FieldName",
    "InstantTime",
    "NonNegativeInt",
    "PartitionPaths",
    "PositiveInt",
    "Section",
]


class Section(BaseModel):
    """Base of every configuration section: frozen, strict about keys, quiet about values."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        hide_input_in_errors=True,
        use_attribute_docstrings=True,
        validate_default=False,
    )

    #: Fields whose feature does not exist yet (see :mod:`hudi_framework.config.not_yet`).
    not_yet: ClassVar[tuple[NotYet, ...]] = ()

    @model_validator(mode="after")
    def _refuse_not_yet(self) -> Self:
        for rule in self.not_yet:
            value = getattr(self, rule.field)
            if isinstance(value, BaseModel):  # a component reference: compared by name
                value = getattr(value, "name", value)
            if rule.rejects(value):
                raise NotYetError(rule)
        return self


class CrossFieldError(ValueError):
    """A consistency check over several fields failed.

    Raised inside ``model_validator``s; pydantic keeps the exception in the error's ``ctx``, so the
    settings loader can name the offending field (``paths[0]``) the way the user spelled it instead
    of reporting the whole section.

    Attributes:
        paths: Field paths, relative to the top of :class:`~hudi_framework.config.HudiSettings`,
            that take part in the conflict; the first one is reported.
    """

    def __init__(self, message: str, *paths: tuple[str, ...]) -> None:
        super().__init__(message)
        self.paths = paths


def _split_csv(value: object) -> object:
    # Apache Hudi spells field lists as one comma-separated string; TOML/YAML users write lists,
    # and an environment variable may hold either form (``a,b`` or ``["a", "b"]``).
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                return json.loads(text)
            except json.JSONDecodeError:
                raise ValueError("not a valid JSON list") from None
        return tuple(part.strip() for part in text.split(",") if part.strip())
    return value


def _no_repeats(value: tuple[str, ...]) -> tuple[str, ...]:
    if len(set(value)) != len(value):
        raise ValueError("field names must not repeat")
    return value


#: A column name (nested columns use dots, ``a.b``).
FieldName = Annotated[str, Field(pattern=r"^[^,\s](?:[^,]*[^,\s])?$")]

#: A tuple of column names, given as a list or as Apache Hudi's comma-separated string.
#: ``NoDecode`` stops pydantic-settings from requiring JSON for it in environment variables.
CsvTuple = Annotated[tuple[FieldName, ...], NoDecode, BeforeValidator(_split_csv), AfterValidator(_no_repeats)]

#: Partition paths (``2024/01/01``, ``city=sf``; patterns may hold ``*``), as a list or comma-separated.
PartitionPaths = Annotated[tuple[str, ...], NoDecode, BeforeValidator(_split_csv)]

PositiveInt = Annotated[int, Field(ge=1)]
NonNegativeInt = Annotated[int, Field(ge=0)]

_DIGITS = re.compile(r"^\d{1,17}$")
_DATETIME = re.compile(
    r"^(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2})"
    r"(?:[ T](?P<h>\d{2}):(?P<mi>\d{2}):(?P<s>\d{2})(?:\.(?P<ms>\d{3}))?)?$"
)


def _normalise_instant(value: object) -> object:
    """Accept Apache Hudi's query-instant spellings and return the digits-only instant time.

    Like Hudi's ``formatQueryInstant``: ``yyyyMMddHHmmss[SSS]`` passes through, ``yyyy-MM-dd
    HH:mm:ss[.SSS]`` and ``yyyy-MM-dd`` are rewritten. YAML turns unquoted dates into ``date``
    objects, so those are accepted too.
    """
    if isinstance(value, dt.datetime):
        return value.strftime("%Y%m%d%H%M%S") + f"{value.microsecond // 1000:03d}"
    if isinstance(value, dt.date):
        return value.strftime("%Y%m%d") + "000000"
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        return value
    text = value.strip()
    if _DIGITS.match(text):
        return text
    match = _DATETIME.match(text)
    if match is None:
        raise ValueError("an instant time is yyyyMMddHHmmss[SSS], 'yyyy-MM-dd HH:mm:ss[.SSS]' or yyyy-MM-dd")
    parts = match.groupdict()
    digits = parts["y"] + parts["mo"] + parts["d"] + (parts["h"] or "00") + (parts["mi"] or "00")
    digits += parts["s"] or "00"
    return digits + (parts["ms"] or "")


#: An instant time as Apache Hudi writes it (``20240115103000123``), or ``000`` for "from the start".
InstantTime = Annotated[str, BeforeValidator(_normalise_instant), Field(pattern=r"^\d{1,17}$")]
