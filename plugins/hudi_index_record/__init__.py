"""Index plugin ``record-level`` (Apache Hudi ``RECORD_INDEX`` / ``GLOBAL_RECORD_LEVEL_INDEX``).

See ``docs/index.md`` for options and Apache Hudi compatibility.
"""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.contracts.index import RecordIndex
from hudi_framework.plugin import ComponentSpec, hookimpl, lazy_exports

#: Re-exported implementation names, imported on first access (plugin/lazy.py).
_EXPORTS = {
    "RecordLevelIndex": "hudi_index_record.index",
    "RecordLevelIndexOptions": "hudi_index_record.index",
}
__all__ = [*_EXPORTS, "hudi_indexes"]
__getattr__ = lazy_exports(__name__, _EXPORTS)


@hookimpl
def hudi_indexes() -> Sequence[ComponentSpec[RecordIndex]]:
    """Register ``record-level``."""
    return [
        ComponentSpec(
            "record-level",
            factory="hudi_index_record.index:RecordLevelIndex",
            options_model="hudi_index_record.index:RecordLevelIndexOptions",
            description="Look keys up in the metadata table's record_index (keys unique table-wide)",
            aliases=("RECORD_INDEX", "GLOBAL_RECORD_LEVEL_INDEX"),
        ),
    ]
