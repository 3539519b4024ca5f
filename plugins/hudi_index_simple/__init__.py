"""Index plugin ``simple`` / ``global-simple`` (Apache Hudi ``SIMPLE`` / ``GLOBAL_SIMPLE``).

See ``docs/index.md`` for options and Apache Hudi compatibility.
"""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.contracts.index import RecordIndex
from hudi_framework.plugin import ComponentSpec, hookimpl, lazy_exports

#: Re-exported implementation names, imported on first access (plugin/lazy.py): loading the
#: entry point stays cheap for every process that builds a plugin manager.
_EXPORTS = {
    "GlobalSimpleIndex": "hudi_index_simple.index",
    "SimpleIndex": "hudi_index_simple.index",
    "SimpleIndexOptions": "hudi_index_simple.index",
}
__all__ = [*_EXPORTS, "hudi_indexes"]
__getattr__ = lazy_exports(__name__, _EXPORTS)


@hookimpl
def hudi_indexes() -> Sequence[ComponentSpec[RecordIndex]]:
    """Register ``simple`` and ``global-simple``."""
    return [
        ComponentSpec(
            "simple",
            factory="hudi_index_simple.index:SimpleIndex",
            options_model="hudi_index_simple.index:SimpleIndexOptions",
            description="Join incoming keys with the keys of the latest base files of their partition",
            aliases=("SIMPLE",),
        ),
        ComponentSpec(
            "global-simple",
            factory="hudi_index_simple.index:GlobalSimpleIndex",
            options_model="hudi_index_simple.index:SimpleIndexOptions",
            description="Join incoming keys with the keys of every latest base file (keys unique table-wide)",
            aliases=("GLOBAL_SIMPLE",),
        ),
    ]
