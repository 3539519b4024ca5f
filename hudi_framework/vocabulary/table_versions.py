"""The table versions (``hoodie.table.version``) this project reads and writes."""

from __future__ import annotations

import enum
from typing import Final

from hudi_framework.vocabulary.hudi_enum import normalize_name

__all__ = ["DEFAULT_TABLE_VERSION", "SUPPORTED_TABLE_VERSIONS", "TableVersion"]


class TableVersion(enum.IntEnum):
    """Supported table versions (``hoodie.table.version``): 6 (Hudi 0.14/0.15), 8 (1.0), 9 (1.1+)."""

    SIX = 6
    EIGHT = 8
    NINE = 9

    @classmethod
    def _missing_(cls, value: object) -> TableVersion | None:
        # Apache Hudi's own docs print the enum name (``NINE``); hoodie.properties holds digits.
        if isinstance(value, str):
            text = normalize_name(value)
            if text.isdigit():
                return cls._value2member_map_.get(int(text))  # type: ignore[return-value]
            return cls.__members__.get(text)
        return None


#: Every supported version, as the integers ``hoodie.properties`` holds.
SUPPORTED_TABLE_VERSIONS: Final = tuple(int(v) for v in TableVersion)
#: The version a new table gets (Apache Hudi 1.1's).
DEFAULT_TABLE_VERSION: Final = int(TableVersion.NINE)
