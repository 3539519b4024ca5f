"""``HudiEnum``: a string enum parsed the way Apache Hudi parses its option values.

Apache Hudi upper-cases option values before ``Enum.valueOf`` (``RecordMergeMode.valueOf(value.toUpperCase())``)
and Spark lower-cases option values users type in SQL, so every enum of Hudi's vocabulary matches
case-insensitively, accepts ``-`` for ``_`` and a few aliases. Each value is the spelling Apache Hudi
writes, so a setting renders back to a Hudi option as ``.value``.
"""

from __future__ import annotations

import enum
from typing import ClassVar

__all__ = ["HudiEnum", "normalize_name"]


def normalize_name(text: str) -> str:
    """``text`` as an upper-snake enum name: trimmed, upper-cased, ``-`` read as ``_``."""
    return text.strip().upper().replace("-", "_")


class HudiEnum(enum.StrEnum):
    """A string enum matched case-insensitively on its values, names and a few aliases."""

    # Filled per subclass after the class body (an Enum class body would turn it into a member).
    _aliases_: ClassVar[dict[str, str]]

    @classmethod
    def _missing_(cls, value: object) -> HudiEnum | None:
        if not isinstance(value, str):
            return None
        key = normalize_name(value)
        key = getattr(cls, "_aliases_", {}).get(key, key)
        for member in cls:
            if key in (normalize_name(str(member.value)), member.name):
                return member
        return None
